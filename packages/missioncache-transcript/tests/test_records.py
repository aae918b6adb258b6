"""JSON records from the end of the file: tolerant parsing, exact order."""

from __future__ import annotations

import json
import os
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from missioncache_transcript import iter_records_reversed, parse_record

SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
RECORDS = st.dictionaries(st.text(max_size=8), VALUES, max_size=5)
NOISE = st.sampled_from(
    [
        b"",
        b"   ",
        b"\r",
        b"garbage",
        b"null",
        b"[1, 2]",
        b"42",
        b'"str"',
        b"{not json",
        b"\xff\xfe{",
    ]
)


def test_parse_record_accepts_only_objects():
    assert parse_record(b'{"type": "user"}') == {"type": "user"}
    assert parse_record(b'  {"a": 1}\r') == {"a": 1}
    for line in (b"", b"null", b"[]", b"3", b'"x"', b'{"type": "us', b"\x00\x01"):
        assert parse_record(line) is None


def test_parse_record_replaces_bad_utf8():
    record = parse_record(b'{"text": "caf\xe9 \xff ok"}')
    assert record == {"text": "caf\ufffd \ufffd ok"}


def test_parse_record_survives_deep_nesting():
    assert parse_record(b"[" * 200_000 + b"]" * 200_000) is None
    assert parse_record(b'{"a":' * 200_000) is None


@given(
    items=st.lists(st.tuples(st.booleans(), RECORDS, NOISE), max_size=25),
    cut=st.integers(1, 10_000),
    block_size=st.integers(1, 64),
)
def test_yields_complete_records_reversed(items, cut, block_size):
    lines, expected = [], []
    for is_record, record, noise in items:
        if is_record:
            lines.append(json.dumps(record, ensure_ascii=False).encode("utf-8"))
            expected.append(record)
        else:
            lines.append(noise)
    # A record still being written: any proper prefix of one JSON object is not JSON.
    partial = json.dumps({"type": "user", "message": {"content": "in flight"}}).encode()
    data = b"\n".join(lines) + b"\n" + partial[: cut % len(partial)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.jsonl")
        with open(path, "wb") as handle:
            handle.write(data)
        assert list(iter_records_reversed(path, block_size=block_size)) == expected[::-1]


def test_budget_is_reported(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"n": i}) + "\n" for i in range(100)))
    scan = iter_records_reversed(path, 50)
    records = list(scan)
    assert records and records[0] == {"n": 99}
    assert len(records) < 100
    assert scan.truncated and scan.bytes_read <= 51

"""The reverse line reader: exact lines, any block size, within the byte budget."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_transcript.reverse_reader import ReverseLineReader, iter_lines_reversed

# Lines never contain b"\n"; they may be empty, hold \r or bytes that are not UTF-8.
LINE = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))
LINES = st.lists(LINE, max_size=30)


def _read_all(data: bytes, **kwargs) -> tuple[list[bytes], ReverseLineReader]:
    # A temp dir, not tmp_path: hypothesis runs many examples in one test call.
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.jsonl")
        with open(path, "wb") as handle:
            handle.write(data)
        reader = ReverseLineReader(path, **kwargs)
        return list(reader), reader


@given(lines=LINES, trailing=st.booleans(), block_size=st.integers(1, 70))
def test_yields_exactly_the_lines_reversed(lines, trailing, block_size):
    data = b"\n".join(lines) + (b"\n" if trailing else b"")
    got, reader = _read_all(data, block_size=block_size)
    assert got == [line for line in data.split(b"\n") if line][::-1]
    assert not reader.truncated
    assert reader.bytes_read == len(data)


def _lines_within(data: bytes, max_bytes: int) -> list[bytes]:
    """Non-empty lines that start inside the last ``max_bytes`` bytes, newest first."""
    floor = max(0, len(data) - max_bytes)
    found, start = [], 0
    for segment in data.split(b"\n"):
        if start >= floor and segment:
            found.append(segment)
        start += len(segment) + 1
    return found[::-1]


@given(
    lines=LINES,
    trailing=st.booleans(),
    block_size=st.integers(1, 70),
    max_bytes=st.integers(0, 400),
)
def test_budget_keeps_only_whole_lines_inside_it(lines, trailing, block_size, max_bytes):
    data = b"\n".join(lines) + (b"\n" if trailing else b"")
    got, reader = _read_all(data, block_size=block_size, max_bytes=max_bytes)
    assert got == _lines_within(data, max_bytes)
    assert reader.truncated == (len(data) > max_bytes)
    assert reader.bytes_read <= max_bytes + 1  # the budget, plus one byte to see a newline


def test_line_longer_than_many_blocks_is_reassembled(tmp_path):
    long_line = b"x" * 100_000 + "é".encode() + b"y" * 50_000
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first\n" + long_line + b"\nlast\n")
    assert list(iter_lines_reversed(path, block_size=4096)) == [b"last", long_line, b"first"]


def test_stops_reading_when_the_caller_stops(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as handle:
        handle.write((b"o" * 999 + b"\n") * 20_000)  # 20 MB of older lines
        handle.write(b"newest\n")
    reader = ReverseLineReader(path, block_size=64 * 1024)
    assert next(iter(reader)) == b"newest"
    assert reader.bytes_read <= 64 * 1024
    assert not reader.truncated


def test_missing_file_and_directory_yield_nothing(tmp_path):
    for path in (tmp_path / "not-yet.jsonl", tmp_path):
        reader = ReverseLineReader(path)
        assert list(reader) == []
        assert reader.missing


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    reader = ReverseLineReader(path)
    assert list(reader) == []
    assert not reader.missing and not reader.truncated


def test_rejects_nonsense_sizes(tmp_path):
    with pytest.raises(ValueError):
        ReverseLineReader(tmp_path / "x", block_size=0)
    with pytest.raises(ValueError):
        ReverseLineReader(tmp_path / "x", max_bytes=-1)

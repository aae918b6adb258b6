"""The transcript's own JSON loader against ``json.loads``, the oracle it replaces.

Checked in this process (``json`` loaded), in a ``python -S`` process that never loads
``json`` (the C scanner's other error path), and through the fallback used when ``_json``
is unusable.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_harness.workspace import python3
from missioncache_transcript import _json_line

SRC = Path(__file__).resolve().parents[1] / "src"
# the one package of ours it imports: missioncache_state, for its lazy_exports
STATE_SRC = Path(__file__).resolve().parents[2] / "missioncache-state" / "src"
FALLBACK = _json_line.make_loads(None)
NASTY_CHARS = (
    '٣²ſKİ\t\r\n\x0b\x0c\x1c\x1f\x85\u2028\x00😀\ud800\udfff\ufeff\u00a0é\\"/{}[],:-.eE019'
)
CHARS = st.characters(blacklist_categories=()) | st.sampled_from(NASTY_CHARS)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(CHARS, max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(CHARS, max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
EDGES = ["", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\u00a0", "\ufeff", "\x85"]
EXAMPLES = [
    "",
    " \t\n\r",
    '{"type": "user"}',
    ' \t\n\r{"a": [1, 2.5, null, NaN, -Infinity]} \t\n\r',
    '{"type": "us',
    '{"a": 1}}',
    '{"a": 1} {"b": 2}',
    "\x0b{}",
    "{}\x0c",
    "\u00a0{}",
    "\ufeff{}",
    '"\\ud800"',
    "1" * 4301,
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000,
]


def outcome(function, text) -> tuple[str, str]:
    """A result's repr (1 vs 1.0 vs True, NaN shown) or the kind of error."""
    try:
        return ("ok", repr(function(text)))
    except ValueError:
        return ("ValueError", "")
    except RecursionError:
        return ("RecursionError", "")


@st.composite
def lines(draw) -> str:
    """A JSON text, often torn, spliced or padded with whitespace JSON does not allow."""
    text = json.dumps(draw(VALUES), ensure_ascii=draw(st.booleans()))
    at = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["whole", "cut", "splice", "pad"]))
    if kind == "cut":
        return text[:at]
    if kind == "splice":
        return text[:at] + draw(st.text(CHARS, max_size=2)) + text[at:]
    return draw(st.sampled_from(EDGES)) + text + draw(st.sampled_from(EDGES))


@pytest.mark.parametrize("loads", [_json_line.loads, FALLBACK], ids=["accelerated", "fallback"])
@given(text=lines())
def test_loads_agrees_with_json(loads, text):
    assert outcome(loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize("loads", [_json_line.loads, FALLBACK], ids=["accelerated", "fallback"])
@pytest.mark.parametrize("text", EXAMPLES, ids=range(len(EXAMPLES)))
def test_loads_agrees_with_json_on_examples(loads, text):
    assert outcome(loads, text) == outcome(json.loads, text)


def test_an_unusable_accelerator_means_json_loads():
    assert FALLBACK is _json_line._json_loads
    assert _json_line.make_loads(SimpleNamespace()) is _json_line._json_loads
    wrong = SimpleNamespace(make_scanner=lambda context: lambda text, index: (None, index))
    assert _json_line.make_loads(wrong) is _json_line._json_loads
    import _json

    assert _json_line.make_loads(_json) is not _json_line._json_loads


WORKER = r"""
import marshal, sys
from missioncache_transcript._json_line import loads
answers = []
for text in marshal.loads(sys.stdin.buffer.read()):
    try:
        answers.append(("ok", repr(loads(text))))
    except ValueError:
        answers.append(("ValueError", ""))
    except RecursionError:
        answers.append(("RecursionError", ""))
sys.stdout.buffer.write(marshal.dumps(answers))
"""

VALID = '{"type": "assistant", "message": {"content": [{"type": "text", "text": "hi"}]}}'
IMPORTS = r"""
import sys
from missioncache_transcript._json_line import loads
record = loads(sys.argv[1])
assert record["message"]["content"] == [{"type": "text", "text": "hi"}], record
print(" ".join(sorted(m for m in sys.argv[2:] if m in sys.modules)) or "none")
for bad in ("", "  ", "[1, 2", "{} x"):
    try:
        loads(bad)
    except ValueError:
        pass
    else:
        raise AssertionError(bad)
print(" ".join(sorted(m for m in sys.argv[2:] if m in sys.modules)) or "none")
"""


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "COV"))}
    env["PYTHONPATH"] = os.pathsep.join((str(SRC), str(STATE_SRC)))
    return env


def test_loads_without_json_loaded_agrees_with_json():
    """The C scanner raises differently when ``json`` was never imported (3.10/3.11: no
    exception at all): that path, in a fresh ``python -S``."""
    texts = [
        *EXAMPLES,
        '{"a": "b',
        '{"a" 1}',
        "[1,]",
        "[1 2]",
        '"\\x41"',
        '"\\u12"',
        '"tab\there"',
        "01",
        "-",
        "tru",
    ]
    done = subprocess.run(
        [python3(), "-S", "-c", WORKER],
        input=marshal.dumps(texts),
        env=clean_env(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert marshal.loads(done.stdout) == [outcome(json.loads, t) for t in texts]


def test_loads_imports_neither_json_nor_re():
    done = subprocess.run(
        [python3(), "-S", "-c", IMPORTS, VALID, "re", "json", "enum", "functools"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    valid, invalid = done.stdout.splitlines()
    assert valid == "none"  # valid text never imports them, on any Python
    # Invalid text is an error path: there the C scanner of 3.9 and 3.12+ imports
    # json.decoder to build its exception (3.10 and 3.11 do not).
    assert invalid == "none" or set(invalid.split()) <= {"re", "json", "enum", "functools"}

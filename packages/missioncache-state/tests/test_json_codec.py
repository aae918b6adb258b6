"""json_codec against the ``json`` module it replaces on the hook path.

The oracle is the real ``json`` module: for generated values and generated texts (mostly
not JSON: torn, padded with every kind of whitespace, extra data, BOM, NaN, nasty
Unicode), ``loads`` must give the same value or fail when ``json.loads`` fails, and
``dumps`` the same string byte for byte. Three codecs are checked: the accelerated one in
this process (where ``json`` is loaded, so the C scanner raises JSONDecodeError), the
accelerated one in a ``python -S`` process that never loads ``json`` (where the scanner
takes its other error path), and the fallback used when ``_json`` is unusable.
"""

from __future__ import annotations

import json
import marshal
import os
import platform
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_harness.workspace import python3
from missioncache_state import json_codec
from missioncache_state.json_codec import Codec, default_codec, dumps, loads

SRC = Path(__file__).resolve().parents[1] / "src"
FALLBACK = Codec(None)
# ``loads_small`` where ``_json`` is not loaded yet: texts up to SMALL_TEXT read by the
# scanner written in Python.
SMALL = SimpleNamespace(loads=json_codec.scan_small, dumps=dumps)
CODECS, CODEC_IDS = [default_codec(), FALLBACK, SMALL], ["accelerated", "fallback", "small"]

# Characters that have tripped parsers: non-ASCII digits, case-folding oddities, controls,
# Unicode line breaks and spaces, NUL, emoji, lone surrogates.
NASTY_CHARS = (
    "٣²ſKİ\t\r\n\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\x00😀\ud800\udfff\ufeff"
    '\u00a0\u3000é\\"/\x7f'
)
CHARS = st.characters(blacklist_categories=()) | st.sampled_from(NASTY_CHARS)
STRINGS = st.text(CHARS, max_size=12)
FLOATS = st.floats() | st.sampled_from([0.0, -0.0, 1e300, 5e-324, 1e16, 0.1, 123456789.0])
INTEGERS = st.integers() | st.integers(-(10**400), 10**400)
SCALARS = st.none() | st.booleans() | INTEGERS | FLOATS | STRINGS
KEYS = STRINGS | st.integers() | FLOATS | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(STRINGS, inner, max_size=4)
    ),
    max_leaves=12,
)
# Keys of mixed types: json converts them, and sort_keys then fails as json's does.
MIXED_KEY_DICTS = st.dictionaries(KEYS, SCALARS, max_size=5)
INDENTS = st.sampled_from([None, 0, 2, 4, -1, "\t", "", "  "])
DUMPS_ARGS = st.fixed_dictionaries(
    {
        "indent": INDENTS,
        "sort_keys": st.booleans(),
        "ensure_ascii": st.booleans(),
        "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (";", "=")]),
    }
)
JSON_ARGS = st.fixed_dictionaries(  # arguments that write JSON: no odd separators
    {
        "indent": INDENTS,
        "sort_keys": st.booleans(),
        "ensure_ascii": st.booleans(),
        "separators": st.sampled_from([None, (",", ":"), (", ", ": "), (" , ", " : ")]),
    }
)
# JSON and near-JSON fragments for texts assembled from pieces.
TOKENS = st.sampled_from(
    [
        *'{}[],:"\\-+.eE0123456789 \t\n\r',
        *NASTY_CHARS,
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "NaN",
        "Infinity",
        "-Infinity",
        "infinity",
        "nan",
        '"a"',
        '"k":',
        "\\u00e9",
        "\\ud800",
        "\\udc00",
        "\\u12",
        "\\x41",
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "-0",
        "1" * 40,
    ]
)
EDGES = ["", " ", "\t", "\n", "\r", " \t\n\r", "\x0b", "\x0c", "\u00a0", "\ufeff", "\x85", "\u2028"]


def outcome(function, *args, **kwargs) -> tuple[str, str]:
    """What a call did, comparable across implementations: its result's repr (which tells
    1 from 1.0 from True and shows NaN), or the kind of error (messages may differ)."""
    try:
        return ("ok", repr(function(*args, **kwargs)))
    except ValueError:  # json.JSONDecodeError included
        return ("ValueError", "")
    except RecursionError:
        return ("RecursionError", "")
    except TypeError:
        return ("TypeError", "")


@st.composite
def texts(draw) -> str:
    """Mostly not JSON: a real JSON text, then torn, spliced, padded or wrapped."""
    kind = draw(st.sampled_from(["json", "tokens", "characters"]))
    if kind == "tokens":
        text = "".join(draw(st.lists(TOKENS, max_size=12)))
    elif kind == "characters":
        text = draw(st.text(CHARS, max_size=20))
    else:
        value = draw(VALUES)
        text = json.dumps(value, **draw(DUMPS_ARGS))
    mutation = draw(st.sampled_from(["none", "cut", "splice", "drop", "pad", "append"]))
    at = draw(st.integers(0, len(text)))
    if mutation == "cut":
        text = text[:at]
    elif mutation == "splice":
        text = text[:at] + draw(TOKENS) + text[at:]
    elif mutation == "drop":
        text = text[:at] + text[at + 1 :]
    elif mutation == "append":
        text += draw(TOKENS)
    before, after = draw(st.sampled_from(EDGES)), draw(st.sampled_from(EDGES))
    return before + text + after if mutation in ("pad", "none") else text


# ------------------------------------------------------------------ loads


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@given(text=texts())
def test_loads_agrees_with_json_on_generated_text(codec, text):
    assert outcome(codec.loads, text) == outcome(json.loads, text)


@given(value=VALUES, args=JSON_ARGS)
def test_loads_reads_what_json_writes(value, args):
    text = json.dumps(value, **args)
    assert outcome(loads, text) == outcome(json.loads, text)
    assert outcome(loads, text)[0] == "ok"


EXAMPLES = [
    "",
    " ",
    " \t\n\r",
    "{}",
    "[]",
    '""',
    '"',
    "{",
    "[",
    "}",
    "1",
    "-",
    "-0",
    "01",
    "1.",
    ".5",
    "1e5",
    "1E+5",
    "1e",
    "-1.5e-3",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "infinity",
    "null",
    "nul",
    "true",
    "True",
    " \t\n\r[1] \t\n\r",
    "\x0b1",
    "1\x0b",
    "\x0c1",
    "1\x0c",
    "\u00a01",
    "1\u00a0",
    "\x851",
    "\u20281",
    "\ufeff{}",
    "\ufeff1",
    "[1,\x0b2]",
    "[1]x",
    "[1] [2]",
    "{} {}",
    '{"a": 1}}',
    '{"a": 1,}',
    "[1,]",
    "[1 2]",
    '{"a" 1}',
    "{'a': 1}",
    '{"a": "b',
    '{"a": "b}',
    '"a\\"',
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\ud800\\udc00"',
    '"\\ud83d\\ude00"',
    '"\\u00e9\\u12"',
    '"\\x41"',
    '"tab\there"',
    '"nul\x00"',
    '"\x7f"',
    '"٣²ſKİ\u2028😀"',
    '{"a": 1, "a": 2}',
    "1" * 4301,
    "1" * 4300,
    "1." + "1" * 5000,
    "1e400",
    "-1e400",
    "[" * 50 + "]" * 50,
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000,
    "[" * 100_000,
]


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@pytest.mark.parametrize("text", EXAMPLES, ids=range(len(EXAMPLES)))
def test_loads_agrees_with_json_on_examples(codec, text):
    assert outcome(codec.loads, text) == outcome(json.loads, text)


def test_loads_examples_mean_what_they_say():
    assert loads(' {"a": [1, 2.5, null, true, "\\u00e9"]}\n') == {"a": [1, 2.5, None, True, "é"]}
    assert repr(loads("[NaN, -Infinity]")) == "[nan, -inf]"
    assert loads('"\\ud800"') == "\ud800"
    for bad in ("", "{", "[1] x", "\x0b1", "\ufeff{}", '{"a": "b'):
        with pytest.raises(ValueError):
            loads(bad)
    with pytest.raises(RecursionError):
        loads("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("value", [b'{"a": 1}', bytearray(b"[1]"), b"\xef\xbb\xbf{}", None, 5])
def test_loads_of_anything_but_str_is_json_loads(value):
    assert outcome(loads, value) == outcome(json.loads, value)


# ------------------------------------------------------------------ dumps


@pytest.mark.parametrize("codec", CODECS, ids=CODEC_IDS)
@given(value=VALUES | MIXED_KEY_DICTS, args=DUMPS_ARGS)
def test_dumps_is_json_dumps_byte_for_byte(codec, value, args):
    assert outcome(codec.dumps, value, **args) == outcome(json.dumps, value, **args)


CIRCULAR: list = []
CIRCULAR.append(CIRCULAR)
SHARED = [1]


DUMPS_EXAMPLES = [
    {"b": 1, "a": [1, 2, {"c": None}], "k": {}, "l": [], "t": ()},
    {3: "a", 2.5: "b", True: "c", False: "g", None: "d", "e": "f"},
    {float("nan"): 1, float("inf"): 2, -0.0: 3},
    {1: "int", "1": "str"},
    {"b": 1, 2: "mixed keys fail to sort"},
    [float("nan"), float("inf"), float("-inf"), -0.0, 1e16, 1e-7, 5e-324],
    [10**100, -(10**100), True, False, None],
    '٣²ſKİ\t\r\n\x0b\x0c\x1c\x1f\x85\u2028\x00😀\ud800\udfff\\"/\x7f',
    {"\ud800": "\udfff"},
    (1, (2, (3,))),
    [SHARED, SHARED],
    [[[[[[[]]]]]]],
    {(1, 2): "tuple key"},
    {b"k": "bytes key"},
    {1, 2},
    b"bytes",
    object(),
    [1, {2, 3}],
    CIRCULAR,
    10**5000,
]


@pytest.mark.parametrize("value", DUMPS_EXAMPLES, ids=range(len(DUMPS_EXAMPLES)))
@pytest.mark.parametrize(
    "args",
    [
        {},
        {"indent": 2, "sort_keys": True},
        {"separators": (",", ":"), "sort_keys": True},
        {"sort_keys": True},
        {"ensure_ascii": False},
        {"indent": 0},
        {"indent": "\t", "separators": (";", "=")},
    ],
)
def test_dumps_examples(value, args):
    assert outcome(dumps, value, **args) == outcome(json.dumps, value, **args)


def test_dumps_examples_mean_what_they_say():
    assert dumps({"b": [1, 2.5], "a": None}, indent=2, sort_keys=True) == (
        '{\n  "a": null,\n  "b": [\n    1,\n    2.5\n  ]\n}'
    )
    assert dumps({"é": "x"}, ensure_ascii=False) == '{"é": "x"}'
    assert dumps({"é": "x"}) == '{"\\u00e9": "x"}'
    assert dumps([1, {"a": 2}], separators=(",", ":")) == '[1,{"a":2}]'
    with pytest.raises(TypeError):
        dumps({"a": {1, 2}})
    with pytest.raises(ValueError):
        dumps(CIRCULAR)


# ------------------------------------------------------------------ the fallback


def test_cpython_uses_the_accelerator_and_other_modules_fall_back():
    if platform.python_implementation() == "CPython":
        assert default_codec().accelerated
    assert not FALLBACK.accelerated
    assert not Codec(SimpleNamespace()).accelerated  # a _json without what we need

    def make_scanner(context):
        return lambda text, index: (None, index)  # answers, but wrongly

    wrong = SimpleNamespace(
        make_scanner=make_scanner,
        encode_basestring_ascii=json.encoder.encode_basestring_ascii,
        encode_basestring=json.encoder.encode_basestring,
    )
    assert not Codec(wrong).accelerated
    import _json

    assert Codec(_json).accelerated


# ------------------------------------------------------------------ a process without json


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "COV"))}
    env["PYTHONPATH"] = str(SRC)
    return env


WORKER = r"""
import marshal, sys
from missioncache_state.json_codec import loads
read, out = sys.stdin.buffer.read, sys.stdout.buffer
while True:
    head = read(4)
    if len(head) < 4:
        break
    text = marshal.loads(read(int.from_bytes(head, "big")))
    try:
        answer = ("ok", repr(loads(text)))
    except ValueError:
        answer = ("ValueError", "")
    except RecursionError:
        answer = ("RecursionError", "")
    except Exception as error:
        answer = (type(error).__name__, str(error))
    data = marshal.dumps(answer)
    out.write(len(data).to_bytes(4, "big") + data)
    out.flush()
"""


@pytest.fixture(scope="module")
def json_free_loads():
    """``loads`` in a ``python -S`` process that has not loaded ``json``: there the C
    scanner cannot build a JSONDecodeError (3.10/3.11: no exception at all; 3.9 and 3.12+:
    it imports json.decoder), an error path this process never takes."""
    worker = subprocess.Popen(
        [python3(), "-S", "-c", WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=clean_env(),
    )

    def call(text: str) -> tuple[str, str]:
        data = marshal.dumps(text)
        worker.stdin.write(len(data).to_bytes(4, "big") + data)
        worker.stdin.flush()
        size = int.from_bytes(worker.stdout.read(4), "big")
        assert size, "the worker died"
        return tuple(marshal.loads(worker.stdout.read(size)))

    yield call
    worker.stdin.close()
    worker.wait(timeout=60)
    worker.stdout.close()


@given(text=texts())
def test_loads_without_json_loaded_agrees_with_json(json_free_loads, text):
    assert json_free_loads(text) == outcome(json.loads, text)


@pytest.mark.parametrize("text", EXAMPLES, ids=range(len(EXAMPLES)))
def test_loads_without_json_loaded_agrees_on_examples(json_free_loads, text):
    assert json_free_loads(text) == outcome(json.loads, text)


IMPORTS = r"""
import sys
from missioncache_state.json_codec import dumps, loads
value = loads(' {"a": [1, 2.5, null, true, "\\u00e9", NaN]}\n')
assert repr(value) == "{'a': [1, 2.5, None, True, 'é', nan]}", value
assert dumps(value, indent=2, sort_keys=True).startswith('{\n  "a": [\n    1,')
assert dumps(value, ensure_ascii=False, separators=(",", ":")) == '{"a":[1,2.5,null,true,"é",NaN]}'
print(" ".join(sorted(m for m in sys.argv[1:] if m in sys.modules)) or "none")
for torn in ("", "   ", '{"type": "assistant", "message": {"content": "hal', "[1, 2"):
    try:
        loads(torn)
    except ValueError:
        pass
    else:
        raise AssertionError(torn)
print(" ".join(sorted(m for m in sys.argv[1:] if m in sys.modules)) or "none")
"""


def test_loads_and_dumps_import_neither_json_nor_re():
    heavy = ("re", "json", "enum", "functools", "typing")
    done = subprocess.run(
        [python3(), "-S", "-c", IMPORTS, *heavy],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    valid, invalid = done.stdout.splitlines()
    assert valid == "none"  # valid text never imports them, on any Python
    # Torn text is an error path: there the C scanner of 3.9 and 3.12+ imports json.decoder
    # to build its exception (3.10 and 3.11 do not; the module docstring says so).
    assert invalid == "none" or set(invalid.split()) <= {"re", "json", "enum", "functools"}


def test_the_accelerator_is_imported_once():
    codec = default_codec()
    loads("[1]")
    dumps([1])
    assert default_codec() is codec
    assert json_codec._default is codec


SMALL_ONLY = r"""
import sys
from missioncache_state.json_codec import SMALL_TEXT, loads_small
value = loads_small(' {"prompt": "add \\u00e9 \\ud83d\\ude00", "n": [1, -2.5e3, null, true]}\n')
assert value == {"prompt": "add \u00e9 \U0001f600", "n": [1, -2500.0, None, True]}, value
print("_json" in sys.modules)
loads_small("[" + "1, " * SMALL_TEXT + "1]")  # too big for the Python scanner
print("_json" in sys.modules)
"""


def test_loads_small_reads_a_small_document_without_loading_json_accelerator():
    """A hook that reads only its payload and a state file never loads ``_json`` (an
    extension module: 0.3 ms); a bigger text goes to it."""
    done = subprocess.run(
        [python3(), "-S", "-c", SMALL_ONLY],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]

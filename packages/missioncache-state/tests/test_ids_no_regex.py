"""The id checks behave exactly like the regexes they replaced.

ids.py stopped importing ``re`` (it costs every hook milliseconds); the ORIGINAL regexes are
kept here as oracles and compared with the hand-written checks on generated ids, including
non-ASCII letters and digits that ``str.isalnum`` would accept but the ASCII classes do not.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_state import ids

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
TERMINAL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

NASTY = [
    "\u0663",  # ٣ ARABIC-INDIC DIGIT THREE
    "\uff11",  # １ FULLWIDTH DIGIT ONE
    "\u00b2",  # ² SUPERSCRIPT TWO
    "\u017f",  # ſ LONG S
    "\u212a",  # K KELVIN SIGN
    "\u0130",  # İ
    "\u0131",  # ı
    "\u00e9",
    "\u00a0",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\ud800",  # a lone surrogate
    "\U0001f600",
]
CHARS = list("aZ09_-.:/\\ \t\n\r") + NASTY
ids_text = st.one_of(
    st.text(alphabet=st.sampled_from(CHARS), max_size=12),
    # long ids around the 128-character limit, mostly valid
    st.builds(
        lambda size, tail: "a" * size + tail,
        st.integers(120, 135),
        st.text(alphabet=st.sampled_from(CHARS), max_size=3),
    ),
)


def old_terminal_file_name(value):
    if not isinstance(value, str) or not value:
        return None
    name = TERMINAL_UNSAFE.sub("-", value)[: ids.TERMINAL_ID_MAX]
    return None if name in ("", ".", "..") else name


@given(ids_text)
def test_session_id_check_matches_the_regex(value):
    assert ids.is_valid_session_id(value) == (SESSION_ID.fullmatch(value) is not None)


@given(ids_text)
def test_terminal_file_name_matches_the_regex_substitution(value):
    assert ids.terminal_file_name(value) == old_terminal_file_name(value)


@pytest.mark.parametrize(
    "value",
    ["a", "-a", "_a", "a-", "a\n", "\u0663", "\u00e9t\u00e9", "A" * 128, "A" * 129, "a b", ""],
)
def test_session_id_examples(value):
    assert ids.is_valid_session_id(value) == (SESSION_ID.fullmatch(value) is not None)


@pytest.mark.parametrize(
    "value", [".", "..", "...", "\u00e9", "w0t1p0:ABC", "a\nb", "\ud800", "x" * 200 + "\u00e9"]
)
def test_terminal_file_name_examples(value):
    assert ids.terminal_file_name(value) == old_terminal_file_name(value)

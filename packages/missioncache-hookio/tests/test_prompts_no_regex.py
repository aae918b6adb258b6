"""Prompt filters behave exactly like the regexes they replaced.

prompts.py stopped importing ``re`` (it costs every hook milliseconds). The ORIGINAL patterns
are kept here as oracles. The traps: ``\\w`` is Unicode (any ``str.isalnum`` character or
``_``), ``$`` also matches before one final newline, and IGNORECASE folds ``ı``/``İ`` onto
``i`` and ``ſ`` onto ``s``.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_hookio import prompts

SKIP_PATTERNS = (
    re.compile(r"^/\w+"),  # slash commands
    re.compile(r"^!\w+"),  # shell commands
    re.compile(r"^(exit|clear|help|y|yes|n|no)$", re.IGNORECASE),  # one-word control prompts
)


def old_should_skip(prompt):
    text = prompt.strip()
    if not text:
        return True
    return any(pattern.match(text) for pattern in SKIP_PATTERNS)


TOKENS = ["exit", "EXIT", "clear", "help", "y", "yes", "YeS", "n", "no", "No", "/", "!"]
CHARS = [
    *"/!_aeinosxyEIS \t\n\r",
    "\u0131",  # ı DOTLESS I
    "\u0130",  # İ
    "\u017f",  # ſ LONG S
    "\u212a",  # K KELVIN SIGN
    "\u0663",  # ٣
    "\u00b2",  # ² (\w: isalnum, though not decimal)
    "\u00e9",
    "\u0300",  # combining accent: not \w
    "\u00a0",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\U0001f600",
]
prompt_text = st.lists(st.one_of(st.sampled_from(TOKENS), st.sampled_from(CHARS)), max_size=8).map(
    "".join
)


@given(prompt_text)
def test_command_check_matches_the_regexes(text):
    expected = SKIP_PATTERNS[0].match(text) or SKIP_PATTERNS[1].match(text)
    assert prompts._is_command(text) == (expected is not None)


@given(prompt_text)
def test_control_word_check_matches_the_regex(text):
    assert prompts._is_control_word(text) == (SKIP_PATTERNS[2].match(text) is not None)


@given(prompt_text)
def test_should_skip_matches_the_regex_version(text):
    assert prompts.should_skip(text) == old_should_skip(text)


@pytest.mark.parametrize(
    "text",
    [
        "yes\n",  # $ matches before a final newline
        "yes\n\n",
        "ex\u0131t",
        "EX\u0130T",
        "ye\u017f",
        "/\u00b2",
        "/\u0300",
        "/_",
        "!\u00e9",
        "/",
        "y es",
        "\u212a",
    ],
)
def test_prompt_filter_examples(text):
    found = prompts._is_command(text) or prompts._is_control_word(text)
    assert found == any(pattern.match(text) for pattern in SKIP_PATTERNS)
    assert prompts.should_skip(text) == old_should_skip(text)


def test_every_character_ignorecase_folds_onto_a_control_word_letter_is_known():
    caseless = re.compile("[a-z]", re.IGNORECASE)  # holds every char a letter folds with
    folded = [chr(code) for code in range(0x110000) if caseless.fullmatch(chr(code))]
    for letter in sorted(set("".join(prompts.CONTROL_WORDS))):
        pattern = re.compile(letter, re.IGNORECASE)
        expected = [char for char in folded if pattern.fullmatch(char)]
        assert [char for char in folded if prompts._same_letter(char, letter)] == expected

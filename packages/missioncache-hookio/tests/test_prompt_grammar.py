"""Which prompts count as work: examples of the grammar in data model section 10.1.

A prompt is skipped when, stripped, it is empty, a command (``/`` or ``!`` then an ASCII
letter, digit or ``_``) or a control word alone (``exit clear help y yes n no``, ASCII case
ignored). Look-alikes that Unicode case folding would equate with ASCII letters are ordinary
characters, so such a prompt counts.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_hookio import prompts


@pytest.mark.parametrize(
    "prompt",
    [
        "",
        "   \t\n",
        "/compact",
        "/missioncache:load demo",
        "/_private",
        "/2fa",
        "!ls -la",
        "!_x",
        "exit",
        "EXIT",
        "Clear",
        "help",
        "y",
        "Y",
        "yes",
        "YeS",
        "n",
        "no",
        "No",
        "  yes  ",
        "yes\n",
        "\nno\n\n",
    ],
)
def test_skipped(prompt):
    assert prompts.should_skip(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "fix the parser",
        "yes please",
        "y es",
        "no, the other one",
        "exit the loop early",
        "/",  # a sign alone is not a command
        "!",
        "/ compact",
        "! ls",
        "/\u00e9t\u00e9",  # a non-ASCII letter after the sign
        "/\u00b2",  # a non-ASCII digit after the sign
        "/\u0663",
        "ex\u0131t",  # dotless i
        "EX\u0130T",  # dotted capital I
        "ye\u017f",  # long s
        "\u212a",  # Kelvin sign, not k
        "a/b",
        "yes!",
    ],
)
def test_counted(prompt):
    assert not prompts.should_skip(prompt)


@given(st.sampled_from(prompts.CONTROL_WORDS), st.data())
def test_every_ascii_case_of_a_control_word_is_skipped(word, data):
    upper = data.draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    spelled = "".join(c.upper() if up else c for c, up in zip(word, upper))
    assert prompts.should_skip(spelled)


@given(st.text(max_size=20))
def test_a_prompt_with_a_non_ascii_letter_in_a_control_word_position_counts(text):
    """Whatever the text, a prompt whose first non-blank character is not ASCII, ``/``
    or ``!`` is never a command or control word."""
    stripped = text.strip()
    if stripped and not stripped[0].isascii():
        assert prompts.should_skip(text) is False


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"prompt": "fix it"}, "fix it"),
        ({"prompt": "yes"}, None),
        ({"prompt": "fix it", "agent_id": "a1"}, None),  # a subagent's prompt
        ({"prompt": [{"type": "text", "text": "a"}, {"type": "image"}]}, "a"),
        ({"prompt": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "a\nb"),
        ({"prompt": 5}, None),
        ({}, None),
    ],
)
def test_counted_prompt(payload, expected):
    assert prompts.counted_prompt(payload) == expected

"""How a user prompt reads, command and shell wrappers included (data model section 10.5).

A tag's text is what lies between the first ``<tag>`` and the first ``</tag>`` after it,
possibly empty; without both there is no tag. A ``<command-name>`` makes the prompt that
command followed by its ``<command-args>``; else a ``<bash-input>`` makes it ``! <input>``;
else it is the text itself, or ``[image]`` for an image without text.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_transcript import conversation


def prompt(content):
    return conversation.prompt_text({"type": "user", "message": {"content": content}})


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("  plain text  ", "plain text"),
        ("", ""),
        ("<command-name>/model</command-name><command-args>opus</command-args>", "/model opus"),
        ("<command-name>/x</command-name><command-args></command-args>", "/x"),
        ("<command-name>/x</command-name>\n<command-args> a\nb </command-args>", "/x a\nb"),
        ("<command-name></command-name>", ""),  # an empty name is still a command
        ("</command-name><command-name>/late</command-name>", "/late"),
        ("<command-name>a<command-name>b</command-name>", "a<command-name>b"),
        ("<command-name>/open", "<command-name>/open"),  # never closed: plain text
        ("<bash-input>\nls\n</bash-input><bash-input>pwd</bash-input>", "! ls"),  # the first
        ("<bash-input></bash-input>", "! "),
        ("<bash-input>ls", "<bash-input>ls"),
        ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "a\nb"),
        ([{"type": "image", "source": {}}], "[image]"),
    ],
)
def test_prompt_text(content, text):
    assert prompt(content) == text


@given(st.text(alphabet=st.characters(blacklist_characters="<"), max_size=40))
def test_text_without_tags_is_itself_stripped(text):
    assert prompt(text) == text.strip()


TAGS = ["command-name", "command-args", "bash-input"]


@given(st.text(max_size=20), st.text(max_size=20), st.sampled_from(TAGS))
def test_tag_text_is_between_the_first_opening_and_the_next_closing_tag(before, inner, tag):
    opening, closing = f"<{tag}>", f"</{tag}>"
    if opening in before or closing in inner:
        return  # the first opening or the next closing tag would be another one
    assert conversation._tag_text(f"{before}{opening}{inner}{closing}tail{closing}", tag) == inner
    assert conversation._tag_text(f"{before}{opening}{inner}", tag) is None  # never closed

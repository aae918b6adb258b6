"""Command and bash-input tags are read exactly as the regexes they replaced read them.

conversation.py stopped importing ``re`` (it costs every hook milliseconds); the ORIGINAL
regexes are kept here as oracles for ``_tag_text`` and for ``prompt_text`` as a whole.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_transcript import conversation

COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)
ORACLES = {"command-name": COMMAND_NAME, "command-args": COMMAND_ARGS, "bash-input": BASH_INPUT}

TOKENS = [
    "<command-name>",
    "</command-name>",
    "<command-args>",
    "</command-args>",
    "<bash-input>",
    "</bash-input>",
    "<command-name",
    "</command-",
    "/model",
    "ls -la",
]
CHARS = [
    *"<>/-ab \t\n\r",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x00",
    "\u00a0",
    "\u017f",
    "\U0001f600",
]
tagged_text = st.lists(st.one_of(st.sampled_from(TOKENS), st.sampled_from(CHARS)), max_size=14).map(
    "".join
)


def old_prompt_text(record):
    text = "\n".join(conversation.text_parts(record)).strip()
    name = COMMAND_NAME.search(text)
    if name:
        args = COMMAND_ARGS.search(text)
        return f"{name.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
    bash = BASH_INPUT.search(text)
    if bash:
        return f"! {bash.group(1).strip()}"
    if not text and conversation.blocks_of(record, "image"):
        return "[image]"
    return text


@given(tagged_text, st.sampled_from(sorted(ORACLES)))
def test_tag_text_matches_the_regex(text, tag):
    match = ORACLES[tag].search(text)
    assert conversation._tag_text(text, tag) == (None if match is None else match.group(1))


@given(tagged_text)
def test_prompt_text_matches_the_regex_version(text):
    record = {"type": "user", "message": {"content": text}}
    assert conversation.prompt_text(record) == old_prompt_text(record)


@pytest.mark.parametrize(
    "text",
    [
        "<command-name></command-name>",  # empty name: still a command (the match was truthy)
        "<command-name>/x</command-name><command-args></command-args>",
        "<command-name>/x</command-name>\n<command-args> a\nb </command-args>",
        "</command-name><command-name>/late</command-name>",
        "<command-name>/open",
        "<command-name>a<command-name>b</command-name>",
        "<bash-input>\nls\n</bash-input><bash-input>pwd</bash-input>",
        "<bash-input></bash-input>",
    ],
)
def test_prompt_text_examples(text):
    record = {"type": "user", "message": {"content": text}}
    assert conversation.prompt_text(record) == old_prompt_text(record)

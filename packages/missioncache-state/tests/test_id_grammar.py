"""Ids that become file names: examples of the grammar in data model section 6.

A session id is an ASCII letter or digit followed by at most 127 ASCII letters, digits, ``_``
or ``-``; anything else is no session id. A terminal id becomes a file name by replacing every
character other than ASCII letters, digits, ``.``, ``_`` and ``-`` with ``-``, cut at 128
characters; an empty result, ``.`` or ``..`` is ignored.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_state import ids


@pytest.mark.parametrize(
    "value",
    ["a", "Z", "0", "a-", "a_b", "9f5b7651-0c2d-4c8e-9a57-3c1d2e4f5a6b", "A" * 128],
)
def test_valid_session_ids(value):
    assert ids.is_valid_session_id(value)
    assert ids.session_id_or_none(value) == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "-a",
        "_a",
        "A" * 129,
        "a b",
        "a\n",
        "a/b",
        "../x",
        "a.b",
        "\u0663",  # Arabic-Indic digit three
        "\uff11",  # fullwidth digit one
        "\u00e9t\u00e9",
        "a\u017f",  # long s
        "\u212a",  # Kelvin sign
        "\ud800",  # a lone surrogate
        None,
        5,
        ["a"],
    ],
)
def test_invalid_session_ids(value):
    assert not ids.is_valid_session_id(value)
    assert ids.session_id_or_none(value) is None


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("w0t1p0:ABC-123", "w0t1p0-ABC-123"),  # iTerm2
        ("0b5e9c1a-6f3d-4f7e-9a1b-2c3d4e5f6a7b", "0b5e9c1a-6f3d-4f7e-9a1b-2c3d4e5f6a7b"),
        ("a.b_c-d", "a.b_c-d"),
        ("../etc/passwd", "..-etc-passwd"),
        ("a b\tc\nd", "a-b-c-d"),
        ("\u00e9\u0663\u212a", "---"),
        ("\ud800", "-"),
        ("...", "..."),
        ("x" * 200, "x" * 128),
        ("x" * 127 + "\u00e9" + "y", "x" * 127 + "-"),
        (".", None),
        ("..", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_terminal_file_names(value, name):
    assert ids.terminal_file_name(value) == name


@given(st.text(max_size=300))
def test_a_terminal_file_name_is_always_safe(value):
    name = ids.terminal_file_name(value)
    if name is not None:
        assert 0 < len(name) <= ids.TERMINAL_ID_MAX
        assert name not in (".", "..")
        assert all(char.isascii() and (char.isalnum() or char in "._-") for char in name)
        assert "/" not in name and "\\" not in name


@pytest.mark.parametrize(
    ("env", "sid"),
    [
        ({"CLAUDE_SESSION_ID": "ours", "CLAUDE_CODE_SESSION_ID": "claudes"}, "ours"),
        ({"CLAUDE_CODE_SESSION_ID": "claudes"}, "claudes"),
        ({"CLAUDE_SESSION_ID": "../x", "CLAUDE_CODE_SESSION_ID": "claudes"}, "claudes"),
        ({"CLAUDE_SESSION_ID": "", "CLAUDE_CODE_SESSION_ID": "a b"}, None),
        ({}, None),
    ],
)
def test_session_id_from_env(env, sid):
    """One rule for every process that learns its session from the environment: our
    hand-off first, then Claude Code's own variable; an invalid value counts as absent."""
    assert ids.session_id_from_env(env) == sid


# -- parsed once: the typed values the code past an entry takes ----------------------------


def test_a_parsed_session_id_is_a_session_id_and_comes_back_unchanged():
    sid = ids.session_id_or_none("9f5b-s1")
    assert type(sid) is ids.SessionId and sid == "9f5b-s1"
    assert ids.session_id_or_none(sid) is sid  # a parsed id is not parsed again
    assert ids.session_id_from_env({"CLAUDE_SESSION_ID": "s2"}) == ids.SessionId("s2")
    assert type(ids.session_id_from_env({"CLAUDE_SESSION_ID": "s2"})) is ids.SessionId


@pytest.mark.parametrize("value", ["", "-a", "../x", "a/b", "s" * 129, "a\x00b"])
def test_no_session_id_or_prompt_id_is_made_from_what_the_grammar_refuses(value):
    with pytest.raises(ValueError, match="invalid session id"):
        ids.SessionId(value)
    with pytest.raises(ValueError, match="invalid prompt id"):
        ids.PromptId(value)
    assert ids.session_id_or_none(value) is None and ids.prompt_id_or_none(value) is None


def test_a_prompt_id_is_its_own_type_with_the_same_grammar():
    pid = ids.prompt_id_or_none("p-1")
    assert type(pid) is ids.PromptId and ids.prompt_id_or_none(pid) is pid
    assert type(ids.session_id_or_none(pid)) is ids.SessionId  # checked as what it is used as


def test_a_parsed_id_is_written_like_any_string():
    """A ``str`` subclass: JSON, SQLite and paths see the plain text."""
    from missioncache_state.json_codec import dumps, loads
    from missioncache_state.sqlite import sqlite3

    sid = ids.SessionId("s1")
    assert loads(dumps({"sessionId": sid, sid: 1})) == {"sessionId": "s1", "s1": 1}
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT ?, typeof(?)", (sid, sid)).fetchone() == ("s1", "text")
    assert f"{sid}.json" == "s1.json"

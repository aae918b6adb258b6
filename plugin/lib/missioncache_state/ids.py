"""Validation of ids that become file names (data model section 6).

Session ids come from hook stdin and terminal ids from the environment; both are
attacker-controlled as far as the file system is concerned, so anything that does not
validate is treated as absent rather than "cleaned" into a path.

Checked by hand, not with ``re`` (the hook-path
import policy, docs/hooks.md).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_SESSION_ID_CHARS = _ALNUM | frozenset("_-")
_TERMINAL_SAFE = _ALNUM | frozenset("._-")
SESSION_ID_MAX = 128
TERMINAL_ID_MAX = 128


def is_valid_session_id(value: Any) -> bool:
    """1-128 ASCII letters, digits, ``_`` and ``-``, starting with a letter or digit."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= SESSION_ID_MAX
        and value[0] in _ALNUM
        and all(char in _SESSION_ID_CHARS for char in value)
    )


class SessionId(str):
    """A Claude session id that passed the grammar above: the type the code past a hook's,
    a command's or a tool's entry takes. Made only by ``session_id_or_none`` (or
    ``SessionId(text)``, which raises ValueError for an invalid id), so holding one is
    proof it was checked: ``session_id_or_none`` returns it as is, without looking again.
    A ``str`` subclass, so it is written to JSON, SQLite and paths like any string."""

    __slots__ = ()

    def __new__(cls, value: str) -> SessionId:
        if not is_valid_session_id(value):
            raise ValueError(f"invalid session id {str(value)[:80]!r}")
        return str.__new__(cls, value)


class PromptId(str):
    """A Claude Code prompt id (the turn a heartbeat starts and a Stop ends), checked by
    the same grammar as a session id; made only by ``prompt_id_or_none``."""

    __slots__ = ()

    def __new__(cls, value: str) -> PromptId:
        if not is_valid_session_id(value):
            raise ValueError(f"invalid prompt id {str(value)[:80]!r}")
        return str.__new__(cls, value)


def session_id_or_none(value: Any) -> SessionId | None:
    """The session id when it is valid, else None (invalid ids are treated as absent).

    The one parser of session ids: call it where an id enters (hook stdin, the
    environment, a command's argument, a tool's argument, a file read back). An id it
    already parsed comes back unchanged at the cost of one type test, so the library
    functions that still call it on their input (for callers that hand them plain
    strings) do not check a parsed id twice."""
    if type(value) is SessionId:
        return value
    return str.__new__(SessionId, value) if is_valid_session_id(value) else None


def prompt_id_or_none(value: Any) -> PromptId | None:
    """The prompt id when it is valid, else None; a parsed one comes back unchanged."""
    if type(value) is PromptId:
        return value
    return str.__new__(PromptId, value) if is_valid_session_id(value) else None


SESSION_VARIABLES = ("CLAUDE_SESSION_ID", "CLAUDE_CODE_SESSION_ID")


def session_id_from_env(env: Any = None) -> SessionId | None:
    """The Claude session id a process outside a hook's stdin works for, when valid.

    ``CLAUDE_SESSION_ID`` first: MissionCache's own hand-off (the UserPromptSubmit hook sets
    it to the validated stdin id for its heartbeat child; a person running a command by hand
    may set it). Else Claude Code's ``CLAUDE_CODE_SESSION_ID``, which it gives hooks, MCP
    servers and ``!`` command lines. An invalid value counts as absent (data model section 6).
    """
    from missioncache_state import lean_os as os

    env = os.environ if env is None else env
    for name in SESSION_VARIABLES:
        sid = session_id_or_none(env.get(name))
        if sid is not None:
            return sid
    return None


def terminal_file_name(value: Any) -> str | None:
    """Map a terminal id (iTerm2's ``w0t1p0:UUID``, Windows Terminal's GUID) to a safe
    file name: every character outside ``[A-Za-z0-9._-]`` becomes ``-``, capped at 128;
    empty, ``.`` and ``..`` results are ignored."""
    if not isinstance(value, str) or not value:
        return None
    # One character in, one out: capping first gives the same name without the long tail.
    name = "".join(char if char in _TERMINAL_SAFE else "-" for char in value[:TERMINAL_ID_MAX])
    if name in ("", ".", ".."):
        return None
    return name


TERMINAL_KEY_MAX = 256


def terminal_db_key(value: Any) -> str | None:
    """The key of a terminal id in ``hooks-state.db``: the RAW id (iTerm2's ``w0t1p0:UUID``
    with its colon), so a status line that reads ``TERM_SESSION_ID`` from its own
    environment finds the row without knowing our file-name rule. Capped at 256
    characters; empty or NUL-bearing values are ignored. Only ever a bound SQL parameter,
    never a path."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    return value[:TERMINAL_KEY_MAX]


def terminal_id_from_env(env: Mapping[str, str]) -> str | None:
    """The raw terminal id: ``TERM_SESSION_ID`` (iTerm2) or ``WT_SESSION`` (Windows Terminal)."""
    for key in ("TERM_SESSION_ID", "WT_SESSION"):
        value = env.get(key)
        if value:
            return value
    return None

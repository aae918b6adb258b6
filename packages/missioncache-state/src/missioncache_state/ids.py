"""Validation of ids that become file names (data model section 6).

Session ids come from hook stdin and terminal ids from the environment; both are
attacker-controlled as far as the file system is concerned, so anything that does not
validate is treated as absent rather than "cleaned" into a path.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs ms on every prompt
    from typing import Any

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_TERMINAL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
TERMINAL_ID_MAX = 128


def is_valid_session_id(value: Any) -> bool:
    return isinstance(value, str) and _SESSION_ID.fullmatch(value) is not None


def session_id_or_none(value: Any) -> str | None:
    """The session id when it is valid, else None (invalid ids are treated as absent)."""
    return value if is_valid_session_id(value) else None


def terminal_file_name(value: Any) -> str | None:
    """Map a terminal id (iTerm2's ``w0t1p0:UUID``, Windows Terminal's GUID) to a safe
    file name: every character outside ``[A-Za-z0-9._-]`` becomes ``-``, capped at 128;
    empty, ``.`` and ``..`` results are ignored."""
    if not isinstance(value, str) or not value:
        return None
    name = _TERMINAL_UNSAFE.sub("-", value)[:TERMINAL_ID_MAX]
    if name in ("", ".", ".."):
        return None
    return name


def terminal_id_from_env(env: Any) -> str | None:
    """The raw terminal id: ``TERM_SESSION_ID`` (iTerm2) or ``WT_SESSION`` (Windows Terminal)."""
    for key in ("TERM_SESSION_ID", "WT_SESSION"):
        value = env.get(key)
        if value:
            return value
    return None

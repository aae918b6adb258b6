"""Turning any failure into the one sentence a tool or command reports.

Claude reads these messages and a user may see them: a traceback or a multi-line library
message helps neither. Library errors that carry a useful message (ValueError from the
task database, NotUtf8Error, LockTimeout) keep it; anything unexpected is named by type.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from missioncache_context.update import SaveDivertedError

MAX_LENGTH = 400


class PmError(Exception):
    """A failure the caller can act on, worded as one sentence."""


def sentence(error: BaseException) -> str:
    """One line, ending with a full stop, at most ``MAX_LENGTH`` characters."""
    from missioncache_context.reading import NotUtf8Error
    from missioncache_context.update import SaveDivertedError
    from missioncache_state.lock import LockTimeout

    if isinstance(error, SaveDivertedError):
        text = diverted(error)
    elif isinstance(error, (PmError, NotUtf8Error)):
        text = str(error)
    elif isinstance(error, LockTimeout):
        text = f"The file is locked by another writer ({error}); try again in a moment"
    elif isinstance(error, FileNotFoundError):
        text = f"No such file: {error.filename or error}"
    elif isinstance(error, sqlite3.Error):
        text = f"The task database is unavailable ({error})"
    elif isinstance(error, ValueError):
        text = str(error)
    elif isinstance(error, OSError):
        text = f"{error.strerror or error}: {error.filename or ''}".rstrip(": ")
    elif isinstance(error, ImportError):
        text = (
            f"MissionCache's libraries could not be loaded ({error}); reinstall the plugin "
            "or set MISSIONCACHE_PLUGIN_ROOT"
        )
    else:
        text = f"Unexpected {type(error).__name__}: {error}"
    return finish(text)


def diverted(error: SaveDivertedError) -> str:
    """What a SaveDivertedError means to the user. It is raised AFTER our write landed: an
    editor saved the file at that very moment and its save could not be merged back, so
    "not saved" would be false and would invite a retry that writes the update twice."""
    if error.copy is None:
        kept = "its save could not be kept, so save the file again from the editor"
    else:
        kept = f"its save is kept at {error.copy}, so nothing was lost"
    return (
        f"Saved to {error.file}, but an editor saved it at the same moment; {kept}. Check"
        " the update is still in the file and copy in what the editor's save adds; do not"
        " repeat the update"
    )


def finish(text: str) -> str:
    """Collapse whitespace (no line breaks), cap the length, end with a full stop."""
    text = " ".join(str(text).split()) or "Unknown error"
    if len(text) > MAX_LENGTH:
        text = text[: MAX_LENGTH - 3].rstrip() + "..."
    if text[-1] not in ".!?":
        text += "."
    return text[0].upper() + text[1:]

"""Which Claude session made this tool call?

Claude Code starts the MCP server once per CLI process with ``CLAUDE_CODE_SESSION_ID`` in
its environment, and keeps it running when ``/clear`` or ``/resume`` switches the CLI to
another session (measured on 2.1.328: after ``/clear`` the server still saw the old id,
while ``!`` command lines saw the new one). Binding the old id would point the hooks at a
session that is over. Each ``tools/call`` does carry ``_meta["claudecode/toolUseId"]``,
and Claude Code writes the assistant message holding that tool_use to the session's
transcript, so the transcript that contains the id names the calling session. The write
is asynchronous in an interactive session (measured: the id appeared within a second
after /clear, while ``-p`` runs had it before the call), so the lookup polls briefly. The
environment is the fallback.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from missioncache_state.ids import SessionId

META_KEY = "claudecode/toolUseId"
RECENT_TRANSCRIPTS = 8
TAIL_BYTES = 1 << 20
WAIT_SECONDS = 2.0  # how long to wait for Claude Code to write the tool_use
_TOOL_USE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def tool_use_id(meta: Any) -> str | None:
    """The tool_use id from a request's ``_meta`` (a mapping or a model), if valid."""
    value = None
    if isinstance(meta, Mapping):
        value = meta.get(META_KEY)
    elif meta is not None:
        extra = getattr(meta, "model_extra", None) or {}
        value = extra.get(META_KEY, getattr(meta, META_KEY, None))
    return value if isinstance(value, str) and _TOOL_USE_ID.fullmatch(value) else None


def transcript_folder(project_dir: str) -> Path:
    """``<claude>/projects/<project dir with every non-alphanumeric character as '-'>``."""
    from missioncache_state.locations import claude_dir

    return Path(claude_dir()) / "projects" / re.sub(r"[^A-Za-z0-9]", "-", project_dir)


def _recent(folder: Path) -> list[Path]:
    try:
        files = [(p.stat().st_mtime, p) for p in folder.glob("*.jsonl")]
    except OSError:
        return []
    return [p for _, p in sorted(files, key=lambda pair: pair[0], reverse=True)]


def _tail(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - TAIL_BYTES))
            return handle.read()
    except OSError:
        return b""


def session_of_tool_use(
    use_id: str | None, project_dir: str, wait: float = WAIT_SECONDS
) -> SessionId | None:
    """The session whose recent transcript holds ``use_id`` (newest transcript first),
    polling up to ``wait`` seconds for the transcript write to land."""
    if use_id is None:
        return None
    needle = f'"{use_id}"'.encode()
    folder = transcript_folder(project_dir)
    deadline = time.monotonic() + wait
    delay = 0.05
    while True:
        found = _search(folder, needle)
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def _search(folder: Path, needle: bytes) -> SessionId | None:
    from missioncache_state.ids import session_id_or_none

    for path in _recent(folder)[:RECENT_TRANSCRIPTS]:
        if needle in _tail(path):
            return session_id_or_none(path.stem)  # file boundary: a transcript's name
    return None


def calling_session(meta: Any, env: Mapping[str, str] | None = None) -> SessionId | None:
    """The calling session: found through the tool_use id, else the environment's id."""
    from missioncache_state.ids import session_id_from_env

    env = os.environ if env is None else env
    project = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return session_of_tool_use(tool_use_id(meta), project) or session_id_from_env(env)

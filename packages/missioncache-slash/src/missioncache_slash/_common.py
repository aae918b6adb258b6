"""What every slash command's text is made of: the files shown fenced, the session, the
task's folder gone, the note when the ``pm`` server is down, the plugin's commands by path.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db import Task, TaskDB
    from missioncache_state.ids import SessionId

FILE_LIMIT = 20_000
COMPACTIONS_SHOWN = 3  # the newest summaries /missioncache:load shows
SUMMARY_LIMIT = 8_000  # characters of each summary shown
MCP_NOTICE_STATE = "mcp-missing-told"  # <state>/mcp-missing-told/<session-id>.json
# This package sits in <plugin>/lib/missioncache_slash (in the workspace in
# packages/missioncache-slash/src/missioncache_slash): two folders up is the plugin's root
# (the workspace's package folder).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def helper_script() -> str:
    """The slash commands' script by its full path: ``<plugin>/slash/slash.py`` (in the
    workspace ``packages/missioncache-slash/slash.py``)."""
    bundled = os.path.join(_ROOT, "slash", "slash.py")
    return bundled if os.path.isfile(bundled) else os.path.join(_ROOT, "slash.py")


def read_text(path: Any) -> str | None:
    from missioncache_context import read_file

    try:
        return read_file(path)
    except (OSError, ValueError):
        return None


def fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``, so the text can
    never close it early (a file or summary may hold fenced code of its own)."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    return "`" * (longest + 1)


def file_block(label: str, path: Any) -> list[str]:
    """The file's text in a fence long enough never to be closed by its content."""
    text = read_text(path)
    if text is None:
        return [f"### {label}: {path}", "", "(missing or unreadable)", ""]
    note = ""
    if len(text) > FILE_LIMIT:
        text = text[:FILE_LIMIT]
        note = f"(first {FILE_LIMIT} characters shown; read the file for the rest)"
    fence = fence_for(text)
    lines = [f"### {label}: {path}", "", f"{fence}markdown", text.rstrip("\n"), fence]
    return [*lines, note, ""] if note else [*lines, ""]


def compaction_blocks(task: Task) -> list[str]:
    """The task's last compaction summaries, newest first, each dated and fenced.

    Claude Code's compaction summary is the model's own account of where a session stood;
    PostCompact keeps it with the task (docs/compactions.md), and this is where a later
    session reads it back. Nothing at all when the task never compacted."""
    from missioncache_db import compaction_count, recent_compactions

    items = [item for item in recent_compactions(task, COMPACTIONS_SHOWN) if item.summary]
    if not items:
        return []
    count = compaction_count(task)
    on_record = f"{count} compaction{'' if count == 1 else 's'} on record"
    out = [f"### Last compaction summaries (newest first; {on_record})", ""]
    for item in items:
        text = item.summary
        if len(text) > SUMMARY_LIMIT:
            text = text[:SUMMARY_LIMIT].rstrip() + "\n[… cut: the rest is in the task folder]"
        fence = fence_for(text)
        when = f"{item.when}, {item.trigger} compaction, session {item.session_id or 'unknown'}"
        out += [f"#### {when}", "", f"{fence}text", text, fence, ""]
    return out


def session_from_env() -> SessionId | None:
    from missioncache_state.ids import session_id_from_env

    return session_id_from_env()


def task_for_session(db: TaskDB, sid: SessionId | None) -> Task | None:
    return db.find_task_for_cwd(os.getcwd(), sid)


def launcher() -> str:
    """The ``missioncache`` command by its full path (the plugin's ``bin/missioncache``),
    else the ``missioncache`` console script of a development install."""
    from missioncache_hookio.guide import launcher_command

    if not os.path.isfile(os.path.join(_ROOT, "bin", "missioncache")):
        return "missioncache"
    return launcher_command(_ROOT)


def folder_gone(task: Task) -> list[str]:
    """The way out when a task's folder was deleted or moved: nothing can be loaded or
    saved there, and a raw FileNotFoundError helps nobody."""
    from missioncache_db import folder_ways_out

    name = task.full_path.split("/", 1)[-1]
    return [
        f"MISSIONCACHE PROBLEM: the folder of task {name} is gone (deleted or moved):"
        f" {task.directory_path}. Nothing can be loaded or saved there. Ways out:",
        f"- `/missioncache:new {name}` recreates its context and tasks files from the"
        " templates (its recorded time is kept);",
        f"- if it was moved, move it back to {task.directory_path};",
        f"- in a terminal: {folder_ways_out(name, launcher())}.",
    ]


def mcp_notice() -> list[str]:
    """When the ``pm`` MCP server cannot answer (no ``uvx`` to start it, or
    ``pm_health`` finds it stopped, hung or never started), the tools are gone and the
    failure shows only in ``/mcp``: give Claude the fallback, and the human the reason
    and the way out once per session and outage (the commands work without the server)."""
    import shutil

    if not shutil.which("uvx"):
        return notice_once(
            {"missing": "uvx"},
            "NOTE FOR THE USER: `uvx` (from uv, https://docs.astral.sh/uv/) is not on PATH, so"
            " MissionCache's MCP tools (mcp__plugin_missioncache_pm__*) cannot start. The"
            " /missioncache commands still work; install uv and restart Claude Code to get the"
            " tools.",
        )
    from missioncache_state import pm_health

    found = pm_health.health()
    if not found.down:
        return []
    sid = session_from_env()
    if sid is None or pm_health.first_telling(sid, found):
        return [f"NOTE FOR THE USER: {pm_health.what_to_do(found)}", fallback_note()]
    return [fallback_note()]


def notice_once(record: dict, note: str) -> list[str]:
    from missioncache_state.statefile import load_state, save_state

    sid = session_from_env()
    if sid and load_state(MCP_NOTICE_STATE, sid) is not None:
        return [fallback_note()]
    if sid:
        try:
            save_state(MCP_NOTICE_STATE, record, sid)
        except OSError:
            pass  # a read-only Claude dir: the notice may repeat
    return [note, fallback_note()]


def fallback_note() -> str:
    from missioncache_hookio.guide import fallback_line

    return fallback_line(helper_script())


def task_instructions() -> str:
    from missioncache_hookio.guide import task_instructions as text

    return text()


def sentence(error: Exception) -> str:
    if isinstance(error, ImportError):  # nothing else can be imported to word it
        return (
            f"MissionCache's bundled libraries could not be loaded ({error}); reinstall the plugin."
        )
    try:
        from missioncache_pm.errors import sentence

        return sentence(error)
    except Exception:
        return " ".join(f"{type(error).__name__}: {error}".split())

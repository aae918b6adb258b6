"""UserPromptSubmit: remind Claude to check off tasks it has already written up.

Claude tends to treat the context file as the live ledger (findings under ``### Task N``)
and forget to flip ``- [ ] N.`` in the tasks file. The statusline shows the human that
drift; Claude cannot see its statusline, so this hook prints (plain stdout, which reaches
Claude as ``UserPromptSubmit hook success: ...``) the divergent numbers, the tasks file
and a call to paste. It fires only when the divergent set changes (kept per session in
``<state>/divergence/<session-id>.json``, or ``task-<id>.json`` without a valid session
id); an empty set clears the record so a later reappearance fires again. Read-only on
tasks.db, independent of activity_tracker.py (the two run in parallel). See docs/hooks.md.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import SessionId

BUSY_TIMEOUT = 1.0  # seconds; reads rarely wait in WAL mode, and the budget is 5
STATE_KIND = "divergence"
UPDATE_TOOL = "mcp__plugin_missioncache_pm__update_tasks_file"
EVENT = "UserPromptSubmit"
MAX_LISTED = 50  # numbers named in one reminder: its size stays bounded (hook output cap)


def reminder(task_name: str, tasks_file: str, numbers: list) -> str:
    """The reminder text; at most MAX_LISTED numbers are named (and the rest counted),
    so a tasks file with thousands of divergent items cannot flood Claude's context."""
    from missioncache_state.json_codec import dumps

    shown = numbers[:MAX_LISTED]
    listed = ", ".join(shown)
    if len(numbers) > len(shown):
        listed += f" and {len(numbers) - len(shown)} more"
    call = (
        f"{UPDATE_TOOL}(tasks_file={dumps(tasks_file, ensure_ascii=False)}, "
        f"completed_tasks={dumps(shown, ensure_ascii=False)})"
    )
    return "\n".join(
        [
            f"MissionCache task tracker ({task_name}): the context file has findings under"
            f" `### Task N` for tasks still unchecked in the tasks file: {listed}.",
            f"Tasks file: {tasks_file}",
            "If they are done, check them off now:",
            call,
            'Important: the built-in TaskCreate tool and any system reminders about "task tools"'
            " refer to Claude Code's in-conversation todo list, NOT the MissionCache tasks file.",
        ]
    )


def changed(task_id: int, numbers: list[str], key: SessionId) -> bool:
    """Whether ``numbers`` differs from the last set reported under ``key`` (and record
    it). An empty set clears the record."""
    from missioncache_state.statefile import clear_state, load_state, save_state

    if not numbers:
        clear_state(STATE_KIND, key)
        return False
    last = load_state(STATE_KIND, key) or {}
    if last.get("task_id") == task_id and last.get("numbers") == numbers:
        return False
    save_state(STATE_KIND, {"task_id": task_id, "numbers": numbers}, key)
    return True


def pm_down(session_id: SessionId) -> tuple[str, str] | None:
    """(line for the human, text for Claude) the first time this session meets this
    outage of the ``pm`` server (missioncache_state.pm_health), else None."""
    from missioncache_state import pm_health

    found = pm_health.health()
    if not pm_health.first_telling(session_id, found):
        return None
    from missioncache_hookio.guide import fallback_line, slash_helper

    plugin = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    for_claude = (
        f"MissionCache's `pm` MCP server {found.reason}: the mcp__plugin_missioncache_pm__*"
        " tools are unavailable until the user reconnects it (/mcp). "
        + fallback_line(slash_helper(plugin))
    )
    return pm_health.what_to_do(found), for_claude


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, well_typed
    from missioncache_hookio.prompts import counted_prompt

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    ident = identity(payload)
    down = pm_down(ident.session_id) if ident.session_id else None
    if down is not None:
        from missioncache_hookio.output import emit_json, hook_json

        # Told alone, this prompt: the tasks reminder (if any) comes with the next one.
        emit_json(hook_json(EVENT, additional_context=down[1], system_message=down[0]))
        return
    if counted_prompt(payload) is None:
        return
    from missioncache_db import find_task

    task = find_task(ident.cwd, ident.session_id, BUSY_TIMEOUT)
    if task is None:
        return
    from missioncache_context import divergent_tasks, read_ends, read_head

    tasks_file = task.tasks_path
    try:  # bounded: a 50 MB file must not cost every prompt its whole size. The context
        # file's findings are near its top; the tasks file's new items at its bottom.
        context = read_head(task.context_path)
        numbers = divergent_tasks(context, *read_ends(tasks_file))
    except (OSError, ValueError):
        return  # a missing, special or non-UTF-8 file: nothing we can compare
    from missioncache_state.ids import SessionId

    key = ident.session_id or SessionId(f"task-{task.id}")  # one record per task unbound
    if changed(task.id, numbers, key):
        from missioncache_hookio.output import emit

        emit(reminder(task.name, tasks_file, numbers))

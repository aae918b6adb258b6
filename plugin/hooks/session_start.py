#!/usr/bin/env python3
"""SessionStart: install the bundled rules, map the terminal to this session, and tell
Claude (and the human, in one line) which MissionCache task this session tracks.

Output is ONE JSON object: ``systemMessage`` for the human, ``additionalContext`` for
Claude (the "Active Task Detected" banner; after compact/resume/clear also a digest of
the context file). No task, bad input or an unusable database: no output at all.
A failed pre-compaction snapshot (recorded by pre_compact.py) is reported once, then
cleared. Rules install whatever else happens. See docs/hooks.md.
"""

from __future__ import annotations

import os
import sys

# Bundled libraries for marketplace installs (no pip install step).
_BUNDLED_MISSIONCACHE_DB = os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "missioncache-db"
)
if os.path.isdir(_BUNDLED_MISSIONCACHE_DB) and _BUNDLED_MISSIONCACHE_DB not in sys.path:
    sys.path.insert(0, _BUNDLED_MISSIONCACHE_DB)

BUSY_TIMEOUT = 2.0  # seconds; the hook's own budget is 10
DIGEST_SOURCES = ("compact", "resume", "clear")
DIGEST_LIMIT = 3000
MAX_NAMED = 5
UPDATE_TOOL = "mcp__plugin_missioncache_pm__update_tasks_file"


def install_rules() -> None:
    """Rules live in ``<plugin root>/rules``; the plugin root is this script's parent dir."""
    from missioncache_state.rules import install_bundled_rules

    plugin_root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    install_bundled_rules(os.path.join(plugin_root, "rules"))


def banner(task, invested: str, session_id, source) -> str:
    lines = [
        "## MissionCache: Active Task Detected",
        "",
        f"- **Task:** {task.name} (id {task.id})",
        f"- **Status:** {task.status}",
        f"- **Time invested:** {invested}",
    ]
    if task.jira_key:
        lines.append(f"- **JIRA:** {task.jira_key}")
    lines += [
        f"- **Session:** {session_id or 'unknown'} ({source or 'startup'})",
        f"- **Files:** {task.directory_path}",
        f"  - context: {task.context_path}",
        f"  - tasks: {task.tasks_path}",
        "",
        "Tip: run `/missioncache:load` to read this task's full context before starting work.",
        "",
        f"**Task tracking:** for MissionCache tasks use `{UPDATE_TOOL}` to check items off in"
        " the tasks file, not the built-in TaskCreate / todo tools (those are Claude Code's"
        " in-conversation list, not the MissionCache tasks file).",
    ]
    return "\n".join(lines)


def context_digest(task) -> str:
    from missioncache_context import digest, read_file

    try:
        text = digest(read_file(task.context_path), DIGEST_LIMIT)
    except (OSError, ValueError):
        return ""
    if not text:
        return ""
    return f"### Where the work stands (from {os.path.basename(task.context_path)})\n\n{text}"


def candidates_hint(tasks) -> str:
    names = ", ".join(task.name for task in tasks[:MAX_NAMED])
    more = f", +{len(tasks) - MAX_NAMED} more" if len(tasks) > MAX_NAMED else ""
    return (
        f"MissionCache: this repository has {len(tasks)} active tasks ({names}{more}) and this"
        " session is not bound to one. Ask the user which task this session is for, then run"
        " `/missioncache:load <name>`."
    )


def pending_error():
    """The last pre-compaction failure as (human line, context note), cleared once read."""
    from missioncache_state.precompact_failure import take_failure

    failure = take_failure()
    if failure is None:
        return None
    task, when = failure["task"] or "?", failure["time"] or "?"
    line = (
        f"the pre-compaction snapshot of {task} at {when} was not saved"
        f" ({failure['error'] or 'unknown error'})"
    )
    return line, f"Note: {line}. Run `/missioncache:save` to save the context by hand."


def report(task, db, ident, source) -> None:
    from missioncache_db import format_duration
    from missioncache_hookio.output import emit_json, hook_json

    try:
        db.process_heartbeats()  # current totals when the lock allows
    except Exception:
        pass
    invested = format_duration(db.time_invested(task.id))
    context = banner(task, invested, ident.session_id, source)
    if source in DIGEST_SOURCES:
        digest = context_digest(task)
        if digest:
            context += "\n\n" + digest
    message = f"MissionCache: tracking {task.name} ({invested} invested)"
    error = pending_error()
    if error is not None:
        message += f"; {error[0]}"
        context += "\n\n" + error[1]
    emit_json(hook_json("SessionStart", additional_context=context, system_message=message))


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, text_field, well_typed

    try:
        install_rules()
    except Exception:
        pass  # rules are best effort and independent of everything below
    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    ident = identity(payload)
    if ident.session_id:
        from missioncache_state.terminal import record_terminal_session

        try:
            record_terminal_session(os.environ, ident.session_id)
        except Exception:
            pass  # the statusline map is a convenience; never fail the session over it
    from missioncache_db import open_if_set_up, write_session_binding

    db = open_if_set_up(BUSY_TIMEOUT)
    if db is None:
        return  # MissionCache not set up: nothing to track, and no database to create
    with db:
        task = db.find_task_for_cwd(ident.cwd, ident.session_id)
        if task is None:
            several = db.active_tasks_for_cwd_repo(ident.cwd)
            if len(several) > 1:
                from missioncache_hookio.output import emit_json, hook_json

                emit_json(hook_json("SessionStart", additional_context=candidates_hint(several)))
            return
        if ident.session_id:
            try:
                write_session_binding(ident.session_id, task.name, task.id)
            except OSError as error:  # a read-only or full Claude dir costs the binding only
                from missioncache_hookio.output import breadcrumb

                breadcrumb(f"session binding not saved: {error}")
        report(task, db, ident, text_field(payload, "source"))


if __name__ == "__main__":
    try:
        from missioncache_hookio.output import run_hook
    except ImportError:
        sys.exit(0)
    run_hook(main)

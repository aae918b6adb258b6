"""SessionStart: remove the rules file earlier versions installed, map the terminal to this
session, and tell Claude (and the human, in one line) which MissionCache task this session
tracks, with the instructions for working on it.

Output is ONE JSON object: ``systemMessage`` for the human, ``additionalContext`` for
Claude (the "Active Task Detected" banner; after compact/resume/clear also a digest of
the context file; on startup/resume/clear the task's last compaction summary). No task,
bad input or an unusable database: no output at all. A failed pre-compaction snapshot
(recorded by pre_compact.py) is reported once, then cleared. The legacy rules cleanup runs
whatever else happens. See docs/hooks.md and docs/compactions.md.

What Claude and the human are told is assembled by ``missioncache_briefing`` (labelled
parts fitted into one budget); this file holds the wiring of the event.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db import Task, TaskDB
    from missioncache_hookio.payload import Identity
    from missioncache_state.ids import SessionId

FORK_DONE_STATE = "fork-done-told"  # the finished forks whose worktree was told, once
BUSY_TIMEOUT = 2.0  # seconds; the hook's own budget is 10
BROKEN_DB_STATE = "broken-db-warned"  # <state>/broken-db-warned/<session-id>.json


def remove_legacy_rules() -> None:
    """Claude Code loads ``~/.claude/rules/`` into every project, even after uninstall:
    the managed file an earlier version put there goes (a user's file stays). Without
    that folder, one stat and no import."""
    from missioncache_state.locations import rules_dir

    if os.path.isdir(rules_dir()):
        from missioncache_state.rules import remove_legacy_rules as remove

        remove()


def report(task: Task, db: TaskDB, ident: Identity, source: str | None) -> None:
    """Bring the task's time up to date, then tell Claude and the human about it
    (the text: ``missioncache_briefing``)."""
    from missioncache_briefing import briefing, fitted, unseen_change
    from missioncache_hookio.output import emit_json, hook_json
    from missioncache_time import process_pending, time_split

    try:
        process_pending(db)  # current totals when the lock allows
    except Exception:
        pass
    # Total, Claude's and yours (docs/time.md); the summary it keeps spares the next
    # start re-reading the whole history (missioncache_time._summary).
    split = time_split(db, task.id, keep_summary=True)
    parent = db.parent_of(task)
    forks = db.forks_of(task.id, open_only=True) if parent is None else []
    unseen = unseen_change(ident.session_id, parent, source) if parent is not None else None
    message, parts = briefing(
        task, split, ident.session_id, source, parent, forks, unseen, launcher_command()
    )
    if parent is not None and unseen is None:
        mark_shared_seen(ident.session_id, parent)
    told = [finished_fork_note(db, task, ident.cwd), sync_notice()]  # sync: told once
    message = "\n".join([message, *(note for note in told if note)])
    message, context = fitted(message, parts)
    emit_json(hook_json("SessionStart", additional_context=context, system_message=message))


def finished_fork_note(db: TaskDB, task: Task, cwd: str | None) -> str:
    """Once per fork: after ``fork-done``, a session in the fork's worktree counts for
    its parent, which the person should hear rather than find out from the figures."""
    if task.fork_of is not None or not cwd:
        return ""
    here = os.path.normcase(os.path.realpath(cwd))
    for fork in db.forks_of(task.id):
        where = fork.repo_path
        if fork.is_open or not where:
            continue
        root = os.path.normcase(os.path.realpath(where))
        if here != root and not here.startswith(root.rstrip(os.sep) + os.sep):
            continue
        from missioncache_state.statefile import load_state, save_state

        told = (load_state(FORK_DONE_STATE) or {}).get("forks")
        told = told if isinstance(told, list) else []
        if fork.id in told:
            return ""
        try:
            save_state(FORK_DONE_STATE, {"forks": [*told, fork.id][-200:]})
        except OSError:
            return ""  # a read-only Claude dir: better silent than said on every start
        return f"Fork {fork.name} is finished: sessions in {where} now count for {task.name}."
    return ""


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, well_typed

    try:
        remove_legacy_rules()
    except Exception:
        pass  # best effort and independent of everything below
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
    try:
        respond(ident, payload)
    finally:  # after the answer is out: the pull never competes with it (docs/sync.md)
        from missioncache_state.locations import dashboard_dir, sync_dir

        # Each only where its folder exists: elsewhere one stat, no import (docs/hooks.md).
        if os.path.isdir(dashboard_dir()):
            from missioncache_hookio.dashboard_left import tidy_in_background

            tidy_in_background()  # a killed dashboard's hooks go before the first prompt
        if os.path.isdir(sync_dir()):
            from missioncache_sync.hooks import start_auto

            start_auto("start")  # detached; this hook never waits for it


def sync_notice() -> str:
    """What sync has to tell the person once, or "" (no import where sync is not set up)."""
    from missioncache_state.locations import sync_dir

    if not os.path.isdir(sync_dir()):
        return ""
    from missioncache_sync.hooks import take_notice

    return take_notice()


def respond(ident: Identity, payload: dict[str, Any]) -> None:
    """Track the session's task and say so, or warn about a broken database."""
    from missioncache_db import open_if_set_up
    from missioncache_hookio.payload import text_field

    try:
        db = open_if_set_up(BUSY_TIMEOUT)
        if db is None:
            from missioncache_db import not_a_file_reason

            reason = not_a_file_reason()  # a directory or FIFO where tasks.db should be
            if reason:
                warn_broken_database(reason, ident.session_id)
            return  # else MissionCache is not set up: nothing to track or to create
        with db:
            track(db, ident, text_field(payload, "source"))
    except Exception as error:
        from missioncache_db import is_broken, plain_reason

        if not is_broken(error):
            raise
        warn_broken_database(plain_reason(error), ident.session_id)


def track(db: TaskDB, ident: Identity, source: str | None) -> None:
    """Resolve this session's task, bind the session to it and report it."""
    from missioncache_state.bindings import write_session_binding

    task = db.find_task_for_cwd(ident.cwd, ident.session_id)
    if task is None:
        several = db.active_tasks_for_cwd_repo(ident.cwd)
        if len(several) > 1:
            from missioncache_briefing import candidates_hint
            from missioncache_hookio.output import emit_json, hook_json

            emit_json(hook_json("SessionStart", additional_context=candidates_hint(several)))
        return
    if ident.session_id:
        try:
            write_session_binding(ident.session_id, task.name, task.id, task.full_path)
        except OSError as error:  # a read-only or full Claude dir costs the binding only
            from missioncache_hookio.output import breadcrumb

            breadcrumb(f"session binding not saved: {error}")
    report(task, db, ident, source)


def mark_shared_seen(session_id: SessionId | None, parent: Task) -> None:
    """This session has just read its parent's context (the shared layer): the status
    line's ``parent updated`` note counts from here (missioncache_state.shared_seen)."""
    if not session_id:
        return
    from missioncache_state.shared_seen import stamp

    try:
        stamp(session_id, parent.id, parent.key, parent.context_path)
    except OSError as error:  # a read-only Claude dir costs the note only
        from missioncache_hookio.output import breadcrumb

        breadcrumb(f"shared-seen marker not saved: {error}")


def launcher_command() -> str:
    """The plugin's ``missioncache`` command by its full path (no PYTHONPATH needed)."""
    from missioncache_hookio.guide import launcher_command as command

    return command(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def warn_broken_database(reason: str, session_id: SessionId | None) -> None:
    """Tell the human, once per session, that tasks.db is unusable and how to diagnose it:
    otherwise the banner, status line, reminders and snapshots just vanish without a word.
    Heartbeats wait in the spool meanwhile (``heartbeat-auto``), so no time is lost."""
    from missioncache_hookio.output import emit_json, hook_json
    from missioncache_state.locations import tasks_db_path
    from missioncache_state.statefile import load_state, save_state

    if session_id and load_state(BROKEN_DB_STATE, session_id) is not None:
        return  # already told in this session (compaction and resume keep the id)
    message = (
        f"MissionCache: the task database {tasks_db_path()} cannot be used: "
        f"{reason}. Tasks are not recognised until it is fixed (time is kept"
        f" in the spool meanwhile). To see what is wrong, run: {launcher_command()} doctor"
    )
    emit_json(hook_json("SessionStart", system_message=message))
    if session_id:
        try:
            save_state(BROKEN_DB_STATE, {"reason": reason}, session_id)
        except OSError:
            pass  # a read-only Claude dir: the warning may repeat, which beats silence

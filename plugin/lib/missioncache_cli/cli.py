"""``missioncache`` / ``python -m missioncache_cli``: the task
database from a shell.

A user mistake (unknown task, bad name, duplicate, busy database) prints one line on
stderr and exits 1, never a traceback. ``heartbeat-auto`` and ``process-heartbeats`` are
the hooks' internals, left out of ``--help``; the UserPromptSubmit hook runs ``python -m
missioncache_db heartbeat-auto`` instead, which never imports this module (or argparse).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from typing import Callable

from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT, UserError, task_named
from missioncache_cost import cost_part, task_tokens
from missioncache_db import STATUSES, Task, TaskDB
from missioncache_time import (
    PERIODS,
    format_duration,
    format_split,
    heartbeat_auto,
    period_start,
    process_pending,
    time_invested,
    time_split,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import SessionId

PROG = "missioncache"
DESCRIPTION = (
    "MissionCache keeps your project's context across Claude Code sessions and counts the"
    " time and cost of each task. Your tasks, their time, forks, reports, sync, the"
    " dashboard and the status line, from a terminal."
)
PERIOD_LABELS = {
    "all": "all time",
    "today": "today",
    "week": "last 7 days",
    "month": "last 30 days",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(message)


def cmd_heartbeat_auto(args: argparse.Namespace) -> int:
    return heartbeat_auto()


def cmd_process_heartbeats(args: argparse.Namespace) -> int:
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        print(f"processed {process_pending(db)} heartbeats")
    return 0


def cmd_create_task(args: argparse.Namespace) -> int:
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = db.create_task(args.name, repo=args.repo, jira_key=args.jira, parent=args.parent)
        if args.team:
            from missioncache_team.config import mark_task

            uid = db.conn.execute("SELECT uid FROM tasks WHERE id = ?", (task.id,)).fetchone()
            mark_task(uid[0], args.team == "private", None)
    print(f"created {task.full_path} (id {task.id}) in {task.directory}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        found = db.list_tasks(args.status)
        keys = {task.id: task.key for task in db.list_tasks()} if args.status else {}
    if not found:
        print("no tasks")
        return 0
    rows = [
        (
            str(t.id),
            t.status,
            lead + t.key + _fork_note(t, lead, keys),
            t.jira_key or "",
            t.repo_path or "",
        )
        for t, lead in _forks_under_parents(found)
    ]
    header = ("ID", "STATUS", "TASK", "JIRA", "REPOSITORY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    widths[1] = max(widths[1], max(len(status) for status in STATUSES))  # a steady column
    for row in [header, *rows]:
        cells = [row[0].rjust(widths[0]), *(row[i].ljust(widths[i]) for i in (1, 2, 3)), row[4]]
        print("  ".join(cells).rstrip())
    return 0


def _forks_under_parents(found: list[Task]) -> list[tuple[Task, str]]:
    """(task, lead) in listing order: each fork right under its parent (docs/forks.md); a
    fork whose parent is not listed (another status was asked for) stands alone."""
    shown = {task.id for task in found}
    forks: dict[int, list[Task]] = {}
    for task in found:
        if task.fork_of in shown:
            forks.setdefault(task.fork_of, []).append(task)
    ordered = []
    for task in found:
        if task.fork_of in shown:
            continue
        ordered.append((task, ""))
        ordered += [(fork, "  └ fork ") for fork in forks.get(task.id, [])]
    return ordered


def _fork_note(task: Task, lead: str, keys: dict[int, str]) -> str:
    """A fork listed without its parent says whose fork it is."""
    if task.fork_of is None or lead:
        return ""
    return f" (fork of {keys.get(task.fork_of, task.fork_of)})"


def cmd_time(args: argparse.Namespace) -> int:
    import time

    from missioncache_cli.cli_sync import refresh
    from missioncache_cost import day_pricing

    refresh()  # with sync set up: the other machines' time too (docs/sync.md)
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = task_named(db, args.name)
        try:
            process_pending(db)  # report current totals when the lock allows
        except sqlite3.OperationalError:
            pass
        from missioncache_time import refresh_days, window_tokens

        pricing = day_pricing()
        refresh_days(db.conn, pricing=pricing)  # the day summaries the figures are read from
        split = time_split(db, task.id, args.period)
        forks = [
            (
                fork.name,
                time_split(db, fork.id, args.period),
                task_tokens(db.conn, fork.id, period_start(args.period)),
            )
            for fork in db.forks_of(task.id)
        ]
        since = period_start(args.period)
        tokens = window_tokens(db.conn, task.id, since, pricing, time.time())
        if tokens is None:  # no usable day summaries: from every message
            tokens = task_tokens(db.conn, task.id, since)
        from missioncache_cli.cli_invoice import billable_line

        billable = billable_line(db, task, args.period)
    label = PERIOD_LABELS[args.period]
    waiting = f", waiting {format_duration(split.waiting)}" if split.waiting else ""
    with_forks = " with its forks (overlap counted once)" if forks else ""
    print(f"{task.name}: {format_split(split)}{waiting}{cost_part(tokens)}, {label}{with_forks}")
    for name, fork_split, fork_tokens in forks:
        print(f"  fork {name}: {format_split(fork_split)}{cost_part(fork_tokens)}")
    if billable:
        print(billable)
    return 0


def cmd_bind(args: argparse.Namespace) -> int:
    from missioncache_state.bindings import write_session_binding

    sid = session_argument(args.session_id)
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = task_named(db, args.name)
    if not task.is_open:  # a binding is trusted to name an open task (missioncache_db._bound)
        raise UserError(
            f"{task.name} is {task.status}; reopen it first (`{_prog()} status {task.name} active`)"
        )
    write_session_binding(sid, task.name, task.id, task.full_path)
    print(f"session {sid} bound to {task.name} (id {task.id})")
    return 0


def cmd_unbind(args: argparse.Namespace) -> int:
    from missioncache_state.bindings import delete_session_binding

    sid = session_argument(args.session_id)
    removed = delete_session_binding(sid)
    print(f"session {sid} {'unbound' if removed else 'was not bound'}")
    return 0


def session_argument(text: str) -> SessionId:
    """A session id typed on the command line, parsed where it enters; a one-line error
    for one that is not an id (it would become a file name)."""
    from missioncache_state.ids import session_id_or_none

    sid = session_id_or_none(text)
    if sid is None:
        raise UserError(f"invalid session id {text[:80]!r}")
    return sid


def cmd_status(args: argparse.Namespace) -> int:
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = db.set_status(task_named(db, args.name).id, args.status)
    print(f"{task.name}: {task.status}")
    return 0


def self_command() -> str:
    """How the user ran us, for the fixes we print: the plugin's ``bin/missioncache``
    launcher by the path it was run as, else the ``missioncache`` console script."""
    import os

    if sys.argv and os.path.basename(sys.argv[0]) == "missioncache":
        return sys.argv[0]
    return PROG


def _prog() -> str:
    import os

    return os.path.basename(self_command())


def cmd_doctor(args: argparse.Namespace) -> int:
    from missioncache_cli import doctor

    if args.rebuild:
        doctor.rebuild_database()
    return doctor.run(self_command())


def cmd_close(args: argparse.Namespace) -> int:
    """Stop tracking a task (its files and time stay): the way out when its folder is gone
    and the user is done with it."""
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = db.set_status(task_named(db, args.name).id, args.status)
    print(f"{task.name}: {task.status}; no session will track it any more")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    """Forget a task: its row, heartbeats and work sessions. Files on disk are kept."""
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = task_named(db, args.name)
        # Fold the spool in first: its heartbeats count in the time told, and they go with
        # the task (folded in later, they would count for the next task given its id).
        process_pending(db)
        spent = format_duration(time_invested(db, task.id))
        if not args.yes:
            raise UserError(
                f"this forgets {task.name} and its recorded time ({spent}); its files are"
                " kept. Add --yes to do it"
            )
        db.delete_task(task.id)
    print(f"deleted {task.name} ({spent} of recorded time); files left in {task.directory}")
    return 0


def cmd_recreate(args: argparse.Namespace) -> int:
    """Recreate a task's missing folder and files from the templates (time is kept)."""
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = task_named(db, args.name)
        written = db.recreate_task_files(task)
    if not written:
        print(f"{task.name}: its files are all in {task.directory}; nothing to recreate")
    for path in written:
        print(f"recreated {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=_prog(), description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(
        name: str, func: Callable[[argparse.Namespace], int], text: str, hidden: bool = False
    ) -> argparse.ArgumentParser:
        # a hidden command has no help entry: the hooks' internals are not for people
        if hidden:
            command = sub.add_parser(name, description=text)
        else:
            command = sub.add_parser(name, help=text, description=text)
        command.set_defaults(func=func)
        return command

    add("heartbeat-auto", cmd_heartbeat_auto, "record a heartbeat for this cwd", hidden=True)
    add("process-heartbeats", cmd_process_heartbeats, "fold heartbeats in", hidden=True)
    create = add("create-task", cmd_create_task, "create a task and its files")
    create.add_argument("name")
    create.add_argument("--repo", help="repository directory the task belongs to")
    create.add_argument("--jira", help="JIRA key")
    create.add_argument("--parent", help="make it a subtask of this task")
    create.add_argument(
        "--team", choices=("private", "shared"), help="private: only its figures go to the team"
    )
    listing = add("list", cmd_list, "list tasks")
    listing.add_argument("--status", choices=STATUSES)
    spent = add("time", cmd_time, "time invested in a task: total (Claude, you)")
    spent.add_argument("name")
    spent.add_argument("--period", choices=PERIODS, default="all")
    bind = add("bind", cmd_bind, "bind a Claude session to a task")
    bind.add_argument("session_id")
    bind.add_argument("name")
    unbind = add("unbind", cmd_unbind, "remove a session's binding")
    unbind.add_argument("session_id")
    status = add("status", cmd_status, "change a task's status")
    status.add_argument("name")
    status.add_argument("status", choices=STATUSES)
    doctor = add(
        "doctor", cmd_doctor, "check the database, spool, task folders, bindings, settings"
    )
    doctor.add_argument(
        "--rebuild", action="store_true", help="rebuild tasks.db from every machine's event log"
    )
    close = add("close", cmd_close, "stop tracking a task (files and time are kept)")
    close.add_argument("name")
    close.add_argument("--status", choices=("completed", "archived"), default="completed")
    delete = add("delete", cmd_delete, "forget a task and its recorded time (files are kept)")
    delete.add_argument("name")
    delete.add_argument("--yes", action="store_true", help="really delete it")
    recreate = add("recreate", cmd_recreate, "recreate a task's missing files from templates")
    recreate.add_argument("name")
    from missioncache_cli import (
        cli_billing,
        cli_dashboard,
        cli_forks,
        cli_invoice,
        cli_prices,
        cli_report,
        cli_statusline,
        cli_sync,
        cli_team,
        cli_uninstall,
        install_command,
    )

    cli_forks.register(add)
    cli_prices.register(add)
    cli_report.register(add)
    cli_statusline.register(add)
    cli_dashboard.register(add)
    cli_uninstall.register(add)
    cli_sync.register(add)
    cli_billing.register(add)
    cli_invoice.register(add)
    install_command.register(add)
    cli_team.register(add)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        command: Callable[[argparse.Namespace], int] = args.func
        return command(args)
    except (UserError, ValueError) as error:
        message = str(error)
    except sqlite3.Error as error:
        message = f"tasks.db: {error}"
    except OSError as error:
        message = f"{error.strerror or error}: {error.filename or ''}".rstrip(": ")
    print(f"{_prog()}: error: {' '.join(message.split())}", file=sys.stderr)
    return 1

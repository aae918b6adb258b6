"""``missioncache team ...``: the command-line front of the team's figures (docs/team.md).

``setup POSTGRES_URL --person NAME [--init]``, ``add-member NAME``, ``push``, ``status``,
``report [--period P] [--by task|person|client|day] [--format text|csv|json|html]`` and
``task NAME [--private|--shared] [--client NAME]``. What needs the server runs
``missioncache_teamdb`` (psycopg) here or through uvx (``missioncache_team.launch``);
``status`` and ``task`` are the standard library only.
"""

from __future__ import annotations

import argparse
from typing import Callable

from missioncache_cli.cli_common import UserError

ACTIONS = ("setup", "add-member", "push", "status", "report", "task")
BYS = ("task", "person", "client", "day")
FORMATS = ("text", "csv", "json", "html")


def _server(args: list[str]) -> int:
    from missioncache_team import launch

    try:
        return launch.run(args)
    except RuntimeError as error:
        raise UserError(str(error)) from None


def cmd_team(args: argparse.Namespace) -> int:
    from missioncache_team import config

    try:
        return _ACTIONS[args.action](args)
    except config.TeamError as error:
        raise UserError(str(error)) from None


def _setup(args: argparse.Namespace) -> int:
    from missioncache_team import config

    if not args.arg or not args.person:
        raise UserError("usage: team setup POSTGRES_URL --person NAME [--init]")
    url, person = config.valid_url(args.arg), config.valid_person(args.person)
    code = _server(["setup", url, person, *(["--init"] if args.init else [])])
    if code != 0:
        return code
    config.setup(url, person)
    print(f"team set up: your figures go to the team's server as {person} after each turn")
    print("(`missioncache team status` says how it goes; docs/team.md lists what is sent)")
    return 0


def _add_member(args: argparse.Namespace) -> int:
    from missioncache_team import config

    if not args.arg:
        raise UserError("usage: team add-member NAME")
    config.read()
    return _server(["add-member", config.valid_person(args.arg)])


def _push(args: argparse.Namespace) -> int:
    from missioncache_state.lock import FileLock, LockTimeout
    from missioncache_team import config, paths

    config.read()
    try:
        with FileLock(paths.push_lock_path(), timeout=60):
            return _server(["push"])
    except LockTimeout:
        raise UserError("another push is running; try again in a moment") from None


def _status(args: argparse.Namespace) -> int:
    import time

    from missioncache_team import config, outbox, status

    settings = config.read()
    print(f"server: {settings['url']} (you: {settings['person']})")
    found = status.read()
    if found.get("when"):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found["when"]))
        if found.get("error"):
            print(f"last push ({when}): the server was not reached ({found['error']})")
        else:
            print(f"last push ({when}): ok, {found.get('sent', 0)} sent")
    else:
        print("no push yet (`missioncache team push` sends now)")
    db = outbox.open_tasks_db()
    if db is not None:
        try:
            waiting = outbox.waiting(db.conn, settings)
        finally:
            db.close()
        print(f"events waiting to be pushed: {waiting}")
    private = [
        uid
        for uid, mark in settings["tasks"].items()
        if isinstance(mark, dict) and mark.get("private")
    ]
    if private:
        print(f"private tasks (sent under an opaque name): {len(private)}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from missioncache_team import config

    config.read()
    return _server(["report", "--period", args.period, "--by", args.by, "--format", args.format])


def _task(args: argparse.Namespace) -> int:
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT, task_named
    from missioncache_db import TaskDB
    from missioncache_team import config

    if not args.arg:
        raise UserError("usage: team task NAME [--private|--shared] [--client NAME]")
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        task = task_named(db, args.arg)
        uid = db.conn.execute("SELECT uid FROM tasks WHERE id = ?", (task.id,)).fetchone()[0]
    mark = config.mark_task(uid, args.private, args.client)
    shown = "an opaque name" if mark.get("private") else "its name"
    client = f", client {mark['client']}" if mark.get("client") else ""
    print(f"{args.arg}: its figures go to the team under {shown}{client}")
    return 0


_ACTIONS: dict[str, Callable[[argparse.Namespace], int]] = {
    "setup": _setup,
    "add-member": _add_member,
    "push": _push,
    "status": _status,
    "report": _report,
    "task": _task,
}


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add("team", cmd_team, "share time and cost with your team (PostgreSQL)")
    command.add_argument("action", choices=ACTIONS)
    command.add_argument("arg", nargs="?", help="setup: POSTGRES_URL; add-member, task: NAME")
    command.add_argument("--person", help="setup: your member name (your role on the server)")
    command.add_argument("--init", action="store_true", help="setup: create the schema (owner)")
    command.add_argument("--period", default="month", help="report: today, week, month or all")
    command.add_argument("--by", choices=BYS, default="task", help="report: rows per ...")
    command.add_argument("--format", choices=FORMATS, default="text", help="report format")
    command.add_argument("--client", help="task: the client billed for it ('' clears)")
    private = command.add_mutually_exclusive_group()
    private.add_argument("--private", dest="private", action="store_true", default=None,
                         help="task: send only its figures, under an opaque name")  # fmt: skip
    private.add_argument("--shared", dest="private", action="store_false",
                         help="task: send its name again")  # fmt: skip

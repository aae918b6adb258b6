"""``missioncache fork PARENT NAME [--repo DIR]`` and ``missioncache fork-done NAME``
(docs/forks.md): thin fronts for ``missioncache_db._forks`` and ``fork_done`` (the outcome
is written by ``missioncache_context.fork_outcome``)."""

from __future__ import annotations

import argparse
from typing import Callable


def cmd_fork(args: argparse.Namespace) -> int:
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT
    from missioncache_db import TaskDB

    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        fork = db.create_fork(args.parent, args.name, args.repo)
    tied = f"; sessions in {fork.repo_path} work on it" if args.repo else ""
    print(f"created fork {fork.name} of {args.parent} (id {fork.id}) in {fork.directory}{tied}")
    return 0


def cmd_fork_done(args: argparse.Namespace) -> int:
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT
    from missioncache_context.fork_outcome import write_fork_outcome
    from missioncache_db import TaskDB, finish_fork

    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        fork, parent = finish_fork(db, args.name, args.outcome, write_fork_outcome)
    print(
        f"fork {fork.name} finished: its outcome is in {parent.context_path}; the fork is"
        f" {fork.status} (its files and time are kept)"
    )
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    fork = add("fork", cmd_fork, "fork a task: a task of its own that shares its parent's layer")
    fork.add_argument("parent", help="the task to fork (parent/name for a subtask)")
    fork.add_argument("name", help="the fork's name")
    fork.add_argument("--repo", help="tie the fork to this directory (a git worktree)")
    done = add("fork-done", cmd_fork_done, "finish a fork: outcome to the parent, fork closed")
    done.add_argument("name")
    done.add_argument("--outcome", help="what the fork achieved (default: its newest entry)")

"""The shell helper behind ``/missioncache:load``, ``/missioncache:save`` and ``/missioncache:new``.

Each command file runs this script with ``!`sh "${CLAUDE_PLUGIN_ROOT}/hooks/launch.sh"
"${CLAUDE_PLUGIN_ROOT}/missioncache-pm/src/missioncache_pm/slash.py" <command>
"$ARGUMENTS"``` (the launcher picks the Python) before Claude sees the prompt, and
its output becomes part of the prompt. Doing the deterministic part here (binding the
session, reading the files, folding heartbeats) means it happens even when the model would
forget a step, costs no tool calls or permission prompts (the task files live outside the
project), and works without the MCP server (which needs uvx and a network on first start).

It runs on any ``python3`` (3.9+, standard library plus the plugin's bundled libraries)
and ALWAYS exits 0: Claude Code aborts the whole command, showing the user only a shell
error, when a ``!`` line fails. Problems are printed as a line for Claude to relay.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:  # run as a file from the installed plugin
    # This file is <plugin>/missioncache-pm/src/missioncache_pm/slash.py.
    _HERE = os.path.dirname(os.path.abspath(__file__))
    _SRC = os.path.dirname(_HERE)
    _PLUGIN = os.path.dirname(os.path.dirname(_SRC))
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        sys.path.pop(0)  # our module names must not shadow anything as top-level modules
    for _path in (os.path.join(_PLUGIN, "lib"), _SRC):
        if os.path.isdir(_path) and _path not in sys.path:
            sys.path.insert(0, _path)

import re
import subprocess
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB
    from missioncache_state.ids import SessionId

FILE_LIMIT = 20_000
COMPACTIONS_SHOWN = 3  # the newest summaries /missioncache:load shows
SUMMARY_LIMIT = 8_000  # characters of each summary shown
MCP_NOTICE_STATE = "mcp-missing-told"  # <state>/mcp-missing-told/<session-id>.json
_JIRA = re.compile(r"[A-Z][A-Z0-9]+-\d+")


def _read(path: Any) -> str | None:
    from missioncache_context import read_file

    try:
        return read_file(path)
    except (OSError, ValueError):
        return None


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``, so the text can
    never close it early (a file or summary may hold fenced code of its own)."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    return "`" * (longest + 1)


def file_block(label: str, path: Any) -> list[str]:
    """The file's text in a fence long enough never to be closed by its content."""
    text = _read(path)
    if text is None:
        return [f"### {label}: {path}", "", "(missing or unreadable)", ""]
    note = ""
    if len(text) > FILE_LIMIT:
        text = text[:FILE_LIMIT]
        note = f"(first {FILE_LIMIT} characters shown; read the file for the rest)"
    fence = _fence(text)
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
        fence = _fence(text)
        when = f"{item.when}, {item.trigger} compaction, session {item.session_id or 'unknown'}"
        out += [f"#### {when}", "", f"{fence}text", text, fence, ""]
    return out


def _session_from_env() -> SessionId | None:
    from missioncache_state.ids import session_id_from_env

    return session_id_from_env()


def _task_for_session(db: TaskDB, sid: SessionId | None) -> Task | None:
    return db.find_task_for_cwd(os.getcwd(), sid)


def launcher() -> str:
    """The ``missioncache`` command by its full path (the plugin's ``bin/missioncache``),
    else the ``missioncache-db`` console script of a development install."""
    from missioncache_hookio.guide import launcher_command

    here = os.path.dirname(os.path.abspath(__file__))  # <plugin>/missioncache-pm/src/...
    plugin = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    if not os.path.isfile(os.path.join(plugin, "bin", "missioncache")):
        return "missioncache-db"
    return launcher_command(plugin)


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
        return _notice_once(
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
    sid = _session_from_env()
    if sid is None or pm_health.first_telling(sid, found):
        return [f"NOTE FOR THE USER: {pm_health.what_to_do(found)}", _fallback_line()]
    return [_fallback_line()]


def _notice_once(record: dict, note: str) -> list[str]:
    from missioncache_state.statefile import load_state, save_state

    sid = _session_from_env()
    if sid and load_state(MCP_NOTICE_STATE, sid) is not None:
        return [_fallback_line()]
    if sid:
        try:
            save_state(MCP_NOTICE_STATE, record, sid)
        except OSError:
            pass  # a read-only Claude dir: the notice may repeat
    return [note, _fallback_line()]


def _fallback_line() -> str:
    from missioncache_hookio.guide import fallback_line

    return fallback_line(os.path.abspath(__file__))


def cmd_load(words: list[str]) -> list[str]:
    from missioncache_pm import forkinfo, taskinfo
    from missioncache_pm.pending import take_precompact_error
    from missioncache_state.summary_failure import take_summary_note

    sid = _session_from_env()
    name = " ".join(words).strip()
    with taskinfo.open_db() as db:
        task = taskinfo.task_named(db, name) if name else _task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: no task given and none is tracked here.",
                taskinfo.no_task_message(db, os.getcwd()),
            ]
        if db.task_folder_missing(task):
            return folder_gone(task)
        facts = taskinfo.task_lines(db, task)
        facts += forkinfo.parent_lines(db, task)
        parent = db.parent_of(task)
    out = [f"MISSIONCACHE: loaded task {task.name}.", *facts, taskinfo.bind(task, sid), ""]
    out += forkinfo.change_lines(sid, parent) if parent is not None else []
    failure = take_precompact_error()
    if failure:
        out += [f"WARNING: {failure}", ""]
    lost_summary = take_summary_note()
    if lost_summary:
        out += [f"WARNING: {lost_summary}.", ""]
    out += [*mcp_notice(), task_instructions(), ""]
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    if parent is not None:
        out += shared_layer_block(parent, sid)
    out += compaction_blocks(task)
    return out


def shared_layer_block(parent: Task, sid: str | None) -> list[str]:
    """A fork's parent context, the shared layer, shown whole; reading it restamps this
    session's shared-seen marker (docs/forks.md)."""
    from missioncache_pm import forkinfo

    if not os.path.isdir(parent.directory_path):
        return [f"(The shared layer cannot be read: the folder of {parent.key} is gone.)", ""]
    block = file_block(
        f"Shared layer (context of the parent task {parent.key})", parent.context_file
    )
    forkinfo.stamp_seen(sid, parent)
    return block


def cmd_save(words: list[str]) -> list[str]:
    from missioncache_pm import forkinfo, taskinfo

    sid = _session_from_env()
    with taskinfo.open_db() as db:
        task = _task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: this session is not tracking a task, so there is nothing to save.",
                taskinfo.known_tasks(db) + ".",
            ]
        if db.task_folder_missing(task):
            return folder_gone(task)
        facts = taskinfo.task_lines(db, task)  # folds pending heartbeats into sessions first
        facts += forkinfo.parent_lines(db, task)
        parent = db.parent_of(task)
    from missioncache_hookio.guide import helper_command

    notice = mcp_notice()
    if not notice:  # the server looked fine; Claude may still find its tools gone
        notice = [
            "Helper, should the tools be unavailable:"
            f" `{helper_command(os.path.abspath(__file__))}`"
        ]
    out = [f"MISSIONCACHE: saving task {task.name}.", *facts, "", *notice]
    if parent is not None:
        out += [
            f"THIS TASK IS A FORK of {parent.key}: decisions that hold for every fork go to"
            " the shared layer with `shared_decision` (see the command's instructions);"
            " this fork's own progress stays in its own files.",
            "",
        ]
        out += forkinfo.change_lines(sid, parent)
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    return out


def split_new_args(words: Sequence[str]) -> tuple:
    """(name, jira key or None, whether the name was derived from several words)."""
    tokens = " ".join(words).split()
    jira = next((t for t in tokens if _JIRA.fullmatch(t)), None)
    rest = [t for t in tokens if t != jira]
    if len(rest) == 1 and re.fullmatch(r"[a-z0-9][a-z0-9-]*", rest[0]):
        return rest[0], jira, False
    slug = re.sub(r"[^a-z0-9]+", "-", " ".join(rest).lower()).strip("-")
    return slug, jira, True


def repository_dir(cwd: str) -> str | None:
    """The git work tree containing ``cwd`` (else ``cwd``); None for the home directory,
    the file-system root or the data root, where tying a task would catch everything."""
    from missioncache_state.locations import data_root, is_within

    top = cwd
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            top = done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    real = os.path.realpath(top)
    if real in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)):
        return None
    return None if is_within(real, data_root()) else real


def cmd_new(words: list[str]) -> list[str]:
    from missioncache_pm import taskinfo

    name, jira, derived = split_new_args(words)
    if not name:
        return ["MISSIONCACHE: no task name given. Usage: /missioncache:new <name> [JIRA-KEY]."]
    repo = repository_dir(os.getcwd())
    recreated = recreate_if_gone(name)
    if recreated is not None:
        return recreated
    text = taskinfo.create_task(name, repo, jira, _session_from_env())
    out = [f"MISSIONCACHE: {text.splitlines()[0]}"]
    if derived:
        out.append(f"(The name {name!r} was derived from what was typed.)")
    if repo is None:
        out.append("(Not tied to a repository: this directory is too broad to track.)")
    return [*out, *text.splitlines()[1:], "", *mcp_notice(), task_instructions()]


def recreate_if_gone(name: str) -> list[str] | None:
    """``/missioncache:new NAME`` for a task that exists but whose folder is gone: the
    user wants its files back, so they are recreated from the templates (its recorded
    time is kept) and the session is bound; None when that is not the case."""
    from missioncache_db import validate_name
    from missioncache_pm import taskinfo

    validate_name(name)
    with taskinfo.open_db() as db:
        task = db.get_task_by_name(name)
        if task is None or not db.task_folder_missing(task):
            return None
        db.recreate_task_files(task)
        facts = taskinfo.task_lines(db, task)
    bound = taskinfo.bind(task, _session_from_env())
    return [
        f"MISSIONCACHE: task {name} already existed but its folder was gone; its context and"
        " tasks files were recreated from the templates (its recorded time is kept).",
        *facts,
        bound,
        "",
        *mcp_notice(),
        task_instructions(),
    ]


def task_instructions() -> str:
    from missioncache_hookio.guide import task_instructions as text

    return text()


def _sentence(error: Exception) -> str:
    if isinstance(error, ImportError):  # nothing else can be imported to word it
        return (
            f"MissionCache's bundled libraries could not be loaded ({error}); reinstall the plugin."
        )
    try:
        from missioncache_pm.errors import sentence

        return sentence(error)
    except Exception:
        return " ".join(f"{type(error).__name__}: {error}".split())


def apply_arguments(words: list[str]) -> dict:
    """The tools' arguments from options (``--context-file P --recent-change TEXT
    --next-step TEXT ... --tasks-file P --done N ... --new-task TEXT ...``), or from one
    JSON object on stdin when no option is given.

    Options come first because Claude Code refuses a Bash command holding a brace next to
    a quote ("expansion obfuscation", measured), which any JSON argument does."""
    if not words:
        from missioncache_pm.errors import PmError
        from missioncache_state.json_codec import loads

        try:
            args = loads(sys.stdin.read(4 * 1024 * 1024))
        except ValueError as error:
            raise PmError(f"apply needs options or one JSON object on stdin ({error})") from None
        return args if isinstance(args, dict) else {}
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            from missioncache_pm.errors import PmError

            raise PmError(f"apply: {message}")

    parser = Parser(prog="slash.py apply", add_help=False)
    parser.add_argument("--context-file", dest="context_file")
    parser.add_argument("--recent-change", dest="recent_change", action="append")
    parser.add_argument("--next-step", dest="next_steps", action="append")
    parser.add_argument("--tasks-file", dest="tasks_file")
    parser.add_argument("--done", dest="completed_tasks", action="append")
    parser.add_argument("--new-task", dest="new_tasks", action="append")
    parser.add_argument("--notes", dest="notes", action="append")
    parser.add_argument("--remaining", dest="remaining_summary")
    parser.add_argument("--shared-decision", dest="shared_decision", action="append")
    return {k: v for k, v in vars(parser.parse_args(words)).items() if v is not None}


def cmd_apply(words: list[str]) -> list[str]:
    """The stdlib fallback for the two MCP tools (``update_context_file`` and
    ``update_tasks_file``) with their arguments (see ``apply_arguments``): the same
    checks, locks and reports, no server needed. Each file is written on its own, so a
    failure of one is reported beside the other's outcome: a single error line would
    hide a save that landed (and a retry would write it twice)."""
    from missioncache_pm import edits
    from missioncache_pm.errors import PmError

    args = apply_arguments(words)
    if not ({"context_file", "tasks_file"} & set(args)):
        raise PmError("apply needs --context-file and/or --tasks-file")
    steps: list[tuple[str, Callable[[], str]]] = []
    if "context_file" in args:
        steps.append(
            (
                "context",
                lambda: edits.update_context_file(
                    args["context_file"],
                    args.get("recent_change"),
                    args.get("next_steps"),
                    shared_decision=args.get("shared_decision"),
                    session_id=_session_from_env(),
                ),
            )
        )
    if "tasks_file" in args:
        steps.append(
            (
                "tasks",
                lambda: edits.update_tasks_file(
                    args["tasks_file"],
                    args.get("completed_tasks"),
                    args.get("new_tasks"),
                    args.get("remaining_summary"),
                    args.get("notes"),
                ),
            )
        )
    if len(steps) == 1:
        return ["MISSIONCACHE: saved.", steps[0][1]()]  # a failure is main's one error line
    out, failed = [], []
    for kind, step in steps:
        try:
            out.append(step())
        except Exception as error:
            failed.append(kind)
            out.append(f"The {kind} file was NOT saved: {_sentence(error)}")
    if not failed:
        return ["MISSIONCACHE: saved.", *out]
    if len(failed) == len(steps):
        return ["MISSIONCACHE ERROR: nothing was saved.", *out]
    return [
        f"MISSIONCACHE: only partly saved; the {failed[0]} file was NOT saved (see below);"
        " fix the cause and apply that part again, not the part that was saved.",
        *out,
    ]


def cmd_fork(words: list[str]) -> list[str]:
    """``/missioncache:fork NAME``: fork this session's task and bind the session to the
    fork (tied to this git worktree when the session runs in one no fork is tied to)."""
    from missioncache_db import validate_name
    from missioncache_pm import forkinfo, taskinfo

    name = " ".join(words).strip()
    if not name:
        return ["MISSIONCACHE: no fork name given. Usage: /missioncache:fork <name>."]
    validate_name(name)
    sid = _session_from_env()
    with taskinfo.open_db() as db:
        parent = _task_for_session(db, sid)
        if parent is None:
            return [
                "MISSIONCACHE: this session is not tracking a task, so there is nothing to fork.",
                taskinfo.known_tasks(db) + ".",
            ]
        fork = forkinfo.fork_here(db, parent, name, os.getcwd())
        facts = taskinfo.task_lines(db, fork) + forkinfo.parent_lines(db, fork)
    tied = (
        f"Sessions started in {fork.repo_path} will be on this fork."
        if fork.repo_path and fork.repo_path != parent.repo_path
        else "No directory is tied to it: other sessions reach it with /missioncache:load."
    )
    out = [f"MISSIONCACHE: created fork {fork.name} of {parent.key}.", *facts, tied]
    out += [taskinfo.bind(fork, sid), "", *mcp_notice(), task_instructions(), ""]
    return out + shared_layer_block(parent, sid)


def cmd_fork_done(words: list[str]) -> list[str]:
    """``/missioncache:fork-done [NAME] [OUTCOME]``: the fork's outcome into its parent's
    Recent Changes, and the fork closed (its files and time are kept). Without a name, the
    session's task; without an outcome, the fork's newest Recent Changes entry."""
    from missioncache_context.fork_outcome import write_fork_outcome
    from missioncache_db import finish_fork, is_valid_name, validate_name
    from missioncache_pm import taskinfo

    sid = _session_from_env()
    with taskinfo.open_db() as db:
        first = words[0].split(None, 1) if words and words[0].strip() else []
        named = db.get_task_by_name(first[0]) if first and is_valid_name(first[0]) else None
        fork: Task | None
        if named is not None and named.fork_of is not None:
            fork, outcome = named, " ".join([first[1] if len(first) > 1 else "", *words[1:]])
        else:
            fork, outcome = _task_for_session(db, sid), " ".join(words)
        if fork is None:
            return ["MISSIONCACHE: no fork named and this session is not tracking one."]
        validate_name(fork.name)
        done, parent = finish_fork(db, fork.key, outcome.strip() or None, write_fork_outcome)
    return [
        f"MISSIONCACHE: fork {done.name} is finished ({done.status}); its outcome was added to"
        f" the Recent Changes of {parent.key} ({parent.context_path}). Its files and time are"
        f" kept, and its time still counts in {parent.key}'s. This session is no longer bound"
        f" to it: run `/missioncache:load {parent.key}` to go on with the parent.",
    ]


COMMANDS = {
    "load": cmd_load,
    "save": cmd_save,
    "new": cmd_new,
    "apply": cmd_apply,
    "fork": cmd_fork,
    "fork-done": cmd_fork_done,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the command's text; never fail (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = COMMANDS.get(args[0]) if args else None
    try:
        if command is None:
            raise ValueError(f"usage: slash.py {{{','.join(COMMANDS)}}} [arguments]")
        lines = command(args[1:])
    except Exception as error:
        lines = [f"MISSIONCACHE ERROR: {_sentence(error)}"]
    print("\n".join(lines).rstrip("\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

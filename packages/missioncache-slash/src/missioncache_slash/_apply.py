"""``slash.py apply``: the standard-library fallback of the two MCP update tools, for
when the ``pm`` server is down (docs/hooks.md, "When the `pm` server is down")."""

from __future__ import annotations

import sys

from missioncache_slash._common import sentence, session_from_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


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
                    session_id=session_from_env(),
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
            out.append(f"The {kind} file was NOT saved: {sentence(error)}")
    if not failed:
        return ["MISSIONCACHE: saved.", *out]
    if len(failed) == len(steps):
        return ["MISSIONCACHE ERROR: nothing was saved.", *out]
    return [
        f"MISSIONCACHE: only partly saved; the {failed[0]} file was NOT saved (see below);"
        " fix the cause and apply that part again, not the part that was saved.",
        *out,
    ]

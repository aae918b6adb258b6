"""The slash commands (``/missioncache:load``, ``save``, ``new``, ``fork``, ``fork-done``,
``report``, ``statusline``) and ``apply``, the MCP update tools' fallback.

Each command file runs the plugin's ``slash/slash.py <command> "$ARGUMENTS"`` through the
hooks' launcher (``!`sh "${CLAUDE_PLUGIN_ROOT}/hooks/launch.sh" ...```) before Claude sees
the prompt, and what it prints becomes part of the prompt. Doing the deterministic part here
(binding the session, reading the files, folding heartbeats) means it happens even when the
model would forget a step, costs no tool calls or permission prompts (the task files live
outside the project), and works without the MCP server (which needs uvx and a network on
first start).

It runs on any ``python3`` (3.9+, standard library plus the plugin's bundled libraries and
the ``pm`` server's standard-library modules) and ALWAYS exits 0: Claude Code aborts the
whole command, showing the user only a shell error, when a ``!`` line fails. Problems are
printed as a line for Claude to relay.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["COMMANDS", "main"]


def _commands() -> dict[str, Callable[[list[str]], list[str]]]:
    from missioncache_slash._apply import cmd_apply
    from missioncache_slash._fork import cmd_fork, cmd_fork_done
    from missioncache_slash._load import cmd_load, cmd_save
    from missioncache_slash._new import cmd_new
    from missioncache_slash._shell import through_cli

    return {
        "load": cmd_load,
        "save": cmd_save,
        "new": cmd_new,
        "apply": cmd_apply,
        "fork": cmd_fork,
        "fork-done": cmd_fork_done,
        "report": through_cli("report"),
        "statusline": through_cli("statusline"),
    }


COMMANDS = ("load", "save", "new", "apply", "fork", "fork-done", "report", "statusline")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the command's text; never fail (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        from missioncache_slash._common import sentence

        command = _commands().get(args[0]) if args else None
        if command is None:
            raise ValueError(f"usage: slash.py {{{','.join(COMMANDS)}}} [arguments]")
        lines = command(args[1:])
    except ImportError as error:  # nothing else can be imported to word it
        lines = [
            "MISSIONCACHE ERROR: MissionCache's bundled libraries could not be loaded"
            f" ({error}); reinstall the plugin."
        ]
    except Exception as error:
        lines = [f"MISSIONCACHE ERROR: {sentence(error)}"]
    text = "\n".join(lines).rstrip("\n")
    if text:
        print(text)
    return 0

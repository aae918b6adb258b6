"""``/missioncache:report`` and ``/missioncache:statusline``: the command line for people
(``missioncache_cli``) run with the slash command's arguments, its errors on stdout."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def cli_argv(command: str, words: list[str]) -> list[str]:
    """The command line's argv for ``command`` and the slash command's arguments. Claude
    Code passes them as one string (possibly empty): a bare period is enough for
    ``report`` (``/missioncache:report month``), and ``statusline`` defaults to install."""
    words = " ".join(words).split()
    if command == "report" and words and not words[0].startswith("-"):
        words = ["--period", *words]
    if command == "statusline" and not words:
        words = ["install"]
    return [command, *words]


def through_cli(command: str) -> Callable[[list[str]], list[str]]:
    """The slash command that runs ``missioncache <command>``: what it prints goes straight
    out, its errors too (stderr is sent to stdout, where Claude reads them)."""

    def run(words: list[str]) -> list[str]:
        from missioncache_cli.cli import main

        sys.stderr = sys.stdout  # errors are for Claude to read, in the command's output
        code: int | str | None
        try:
            code = main(cli_argv(command, words))
        except SystemExit as done:  # --help, or argparse's refusal
            code = done.code
        sys.stdout.flush()
        return ["MISSIONCACHE ERROR: the command above failed"] if code else []

    return run

"""Fenced code blocks: which lines are text, never structure.

A user's notes often quote markdown (a sample context file, a heading, a checklist) inside
``` or ~~~ fences. Treating those quotes as structure would make us edit the quote instead of
the real section, so every reader and editor first asks this module which lines are fenced.

Rules (the CommonMark subset that matters here): an opener is 3+ backticks or tildes indented
0-3 spaces, optionally followed by an info string (a backtick opener's info string may not
contain a backtick). The closer uses the same character, is at least as long, is indented 0-3
spaces and carries nothing but trailing spaces/tabs. An unclosed fence runs to end of file.

Lines are read by hand, not with ``re`` (the hook-path
import policy, docs/hooks.md).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class FenceMap:
    """Per-line fence facts for one document.

    ``inside[i]`` is True when line ``i`` belongs to a fence (opener, body or closer).
    ``pending[i]`` is the closing line that would end the fence still open after line ``i``
    (None when no fence is open there); editors use it so an insertion at the end of a file
    whose fence never closes does not disappear into that fence.
    """

    __slots__ = ("inside", "pending")

    def __init__(self, inside: list[bool], pending: list[str | None]) -> None:
        self.inside = inside
        self.pending = pending

    def open_before(self, index: int) -> str | None:
        """The closer needed before line ``index`` (None when not inside an open fence)."""
        return self.pending[index - 1] if index > 0 else None


def _fence_run(line: str) -> tuple[str, str] | None:
    """(run, rest) when ``line`` starts with 0-3 spaces and 3+ backticks or tildes: the
    whole run of that character, and everything after it."""
    start = len(line) - len(line.lstrip(" "))
    char = line[start : start + 1]
    if start > 3 or char not in ("`", "~"):
        return None
    end = start
    while end < len(line) and line[end] == char:
        end += 1
    if end - start < 3:
        return None
    return line[start:end], line[end:]


def _opener(line: str) -> str | None:
    found = _fence_run(line)
    if found is None:
        return None
    run, info = found
    if run[0] == "`" and "`" in info:
        return None  # CommonMark: not a fence, e.g. ```inline` code```
    return run


def _closes(line: str, run: str) -> bool:
    found = _fence_run(line)
    if found is None or found[1].strip(" \t"):
        return False  # a closer carries nothing but spaces/tabs after its run
    closer = found[0]
    return closer[0] == run[0] and len(closer) >= len(run)


def scan_fences(lines: Sequence[str]) -> FenceMap:
    """Map fences over ``lines`` (line contents without their line endings).

    Only a line holding a run of three backticks or tildes can open or close a fence, so
    only those are looked at; the lines between take the state the last of them left."""
    count = len(lines)
    inside: list[bool] = [False] * count
    pending: list[str | None] = [None] * count
    run: str | None = None
    opened = 0
    for index in [i for i, line in enumerate(lines) if "```" in line or "~~~" in line]:
        if run is None:
            run = _opener(lines[index])
            opened = index
        elif _closes(lines[index], run):
            inside[opened : index + 1] = [True] * (index + 1 - opened)
            pending[opened:index] = [run] * (index - opened)
            run = None
    if run is not None:  # never closed: it runs to the end of the file
        inside[opened:] = [True] * (count - opened)
        pending[opened:] = [run] * (count - opened)
    return FenceMap(inside, pending)


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """True for each line that is inside a fence (including its opener and closer)."""
    return scan_fences(lines).inside

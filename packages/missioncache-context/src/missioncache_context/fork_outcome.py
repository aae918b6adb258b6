"""A finished fork's outcome as a dated Recent Changes entry of its parent's context
(docs/forks.md). File-level only: which files are the fork's and the parent's is the
caller's business (``missioncache_db._fork_done``)."""

from __future__ import annotations


def outcome_lines(fork_key: str, fork_context: str, outcome: str | None) -> list[str]:
    """What the parent records: the given outcome, else the body of the fork's newest
    Recent Changes entry (what its last save said). ValueError when there is neither (a
    fork never saved still has only its creation entry): "Fork of X created" is no
    outcome, and the person is asked for one."""
    from missioncache_context.context_file import newest_recent_change
    from missioncache_context.reading import read_head

    text = (outcome or "").strip()
    if not text:
        try:
            newest = newest_recent_change(read_head(fork_context)) or ""
        except (OSError, ValueError):
            newest = ""
        body = newest.split("\n", 1)[1] if newest.startswith("### ") and "\n" in newest else ""
        text = body.strip()
        if not text or _only_its_creation(text):
            raise ValueError(
                f"fork {fork_key} has no outcome to record: nothing was saved in it since it"
                " was created. Say what it achieved: fork-done"
                f' {fork_key} --outcome "TEXT" (in Claude Code: /missioncache:fork-done'
                f" {fork_key} TEXT); the fork stays open until then"
            )
    lines = [f"- Fork {fork_key} finished. Outcome:"]
    for line in text.splitlines():
        if line.strip():
            lines.append(f"  {line.rstrip()}" if line.lstrip().startswith("-") else f"  - {line}")
    return lines


def _only_its_creation(body: str) -> bool:
    """The template's first entry (``- Fork of PARENT created``): no outcome at all."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].startswith("- Fork of ") and lines[0].endswith(" created")


def write_fork_outcome(
    parent_context: str, fork_context: str, fork_key: str, outcome: str | None
) -> None:
    """Add the outcome entry to the parent's context (locked, atomic, one splice)."""
    from missioncache_context.context_file import record_change
    from missioncache_context.update import update_file

    lines = outcome_lines(fork_key, fork_context, outcome)
    update_file(parent_context, lambda text: record_change(text, lines))

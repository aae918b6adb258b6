"""A finished fork's outcome as a dated Recent Changes entry of its parent's context
(docs/forks.md). File-level only: which files are the fork's and the parent's is the
caller's business (``missioncache_db._fork_done``)."""

from __future__ import annotations


def outcome_lines(fork_key: str, fork_context: str, outcome: str | None) -> list[str]:
    """What the parent records: the given outcome, else the body of the fork's newest
    Recent Changes entry (what its last save said), else that nothing was recorded."""
    from missioncache_context.context_file import newest_recent_change
    from missioncache_context.reading import read_head

    text = (outcome or "").strip()
    if not text:
        try:
            newest = newest_recent_change(read_head(fork_context)) or ""
        except (OSError, ValueError):
            newest = ""
        body = newest.split("\n", 1)[1] if newest.startswith("### ") and "\n" in newest else ""
        text = body.strip() or "(the fork recorded no outcome)"
    lines = [f"- Fork {fork_key} finished. Outcome:"]
    for line in text.splitlines():
        if line.strip():
            lines.append(f"  {line.rstrip()}" if line.lstrip().startswith("-") else f"  - {line}")
    return lines


def write_fork_outcome(
    parent_context: str, fork_context: str, fork_key: str, outcome: str | None
) -> None:
    """Add the outcome entry to the parent's context (locked, atomic, one splice)."""
    from missioncache_context.context_file import record_change
    from missioncache_context.update import update_file

    lines = outcome_lines(fork_key, fork_context, outcome)
    update_file(parent_context, lambda text: record_change(text, lines))

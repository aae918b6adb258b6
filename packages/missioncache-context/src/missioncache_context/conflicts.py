"""Sync conflict markers in a context file's section (docs/sync.md).

A sync that meets two machines' edits of the same lines keeps both versions in the file,
between ``<<<<<<<`` / ``=======`` / ``>>>>>>>`` lines. A save that replaces such a section
would drop one of them without anyone choosing, so the tools ask first.
"""

from __future__ import annotations

OPEN, CLOSE = "<<<<<<< ", ">>>>>>> "


def has_conflict(text: str | None) -> bool:
    """Whether ``text`` holds a conflict block: an opening and a closing marker line."""
    if not text:
        return False
    lines = text.splitlines()
    return any(line.startswith(OPEN) for line in lines) and any(
        line.startswith(CLOSE) for line in lines
    )


def section_conflict(text: str, name: str) -> bool:
    """Whether the ``## name`` section of a context file holds a sync conflict."""
    from missioncache_context.context_file import section

    return has_conflict(section(text, name))


def conflict_note(path: str, name: str = "Next Steps") -> str:
    """What Claude is told: what the markers are, and that the person chooses."""
    return (
        f"SYNC CONFLICT in {path}: its `## {name}` holds two versions of the same lines,"
        " from two machines, between `<<<<<<<` and `>>>>>>>` (the `=======` line divides"
        " them). Ask the person which version to keep (or how to combine them), edit the"
        " file to keep that and delete the marker lines, then save again; a save never"
        " replaces the section while both versions are in it."
    )

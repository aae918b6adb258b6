"""Text from a conversation or a user's file, shown to Claude as a quotation.

What SessionStart and ``/missioncache:load`` hand Claude mixes MissionCache's own structure
(the ``## MissionCache: Active Task Detected`` banner, its ``- **Files:**`` lines, its
instructions) with text MissionCache only passes on: a compaction summary (which may hold
whatever a file Claude read said) and digests of the context file. Appended raw, a summary
holding ``## MissionCache: Active Task Detected`` and ``- **Files:** /tmp/elsewhere``
shows Claude a second banner pointing somewhere else. So such text is always a Markdown
block quote: every line, blank ones and every kind of line break included, starts with
``>``, so no line of it can be a heading, a list item or an instruction of ours; the
caller's label above it says where it comes from.
"""

from __future__ import annotations

QUOTE = "> "


def quoted(text: str) -> str:
    """``text`` as a block quote, one ``> `` per line ("" stays ""). Every line break
    Python knows (CR, form feed, U+2028, ...) ends a line here too, so none can start an
    unquoted line in a reader that breaks lines there."""
    if not text:
        return ""
    return "\n".join(QUOTE + line if line else QUOTE.rstrip() for line in text.splitlines())

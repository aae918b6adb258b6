"""Counted nouns in what people read: ``1 task``, ``2 tasks``, never a bracketed plural.

One rule for every message the plugin prints (hooks, the command line, the dashboard's
server side, sync), so a count reads as a sentence whatever it is. Standard library only.
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, the noun in its plural when ``count`` is not 1: ``many`` when
    the plural is irregular (``plural(2, "entry", "entries")``), else ``word + "s"``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def verb(count: int, one: str, many: str) -> str:
    """The verb that agrees with ``count``: ``verb(1, "waits", "wait")`` is ``waits``."""
    return one if count == 1 else many

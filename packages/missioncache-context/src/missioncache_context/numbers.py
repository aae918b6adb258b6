"""Task numbers: ``5``, ``1.2``, ``54a`` - one grammar shared by the tasks and context files.

Numbers are compared as normalised strings, never as floats: ``3`` and ``3.1`` are different
tasks, and ``3.10`` is not ``3.1``.

The grammar (data model section 10.3): a number is one or more segments joined by dots; a
segment is one or more ASCII digits plus an optional single ASCII letter. Other scripts'
digits are ordinary characters. Also here: the ASCII helpers every grammar of this package
uses (data model section 10: ASCII digits, keywords that ignore ASCII case only).
"""

from __future__ import annotations

ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ASCII_LETTERS = ASCII_UPPER + ASCII_UPPER.lower()
ASCII_DIGITS = "0123456789"
_TO_ASCII_LOWER = str.maketrans(ASCII_UPPER, ASCII_UPPER.lower())


def ascii_lower(text: str) -> str:
    """``text`` with A-Z lowered and every other character kept: keywords compare in this
    form, so ``TASK`` is ``task`` while the long s or the Kelvin sign stay what they are."""
    return text.lower() if text.isascii() else text.translate(_TO_ASCII_LOWER)


def number_ends(text: str, start: int, letters: str = ASCII_LETTERS) -> list[int]:
    """End offsets of the segments of the longest number at ``text[start:]`` ([] if none).

    The number is ``text[start:ends[-1]]``; shorter valid numbers end at earlier entries
    (callers that need a number followed by something particular step back through them).
    ``letters`` are the characters allowed as a segment's suffix.
    """
    ends: list[int] = []
    pos = start
    while True:
        end = pos
        while end < len(text) and text[end] in ASCII_DIGITS:
            end += 1
        if end == pos:
            return ends
        if end < len(text) and text[end] in letters:
            end += 1
        ends.append(end)
        if text[end : end + 1] != ".":
            return ends
        pos = end + 1


def normalize_number(value: object) -> str | None:
    """The canonical form of a task number (``"054A."`` -> ``"54a"``), or None if not one.

    Accepts an int (not a bool) or a string; leading zeros and one trailing dot are dropped
    and the letter suffix is lower-cased, so ``Task 54A`` and ``- [ ] 54a.`` agree. Spaces
    and tabs around the number are allowed.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    number = value.strip(" \t")
    if number.endswith("."):
        number = number[:-1]
    ends = number_ends(number, 0)
    if not ends or ends[-1] != len(number):
        return None
    return ".".join(_segment(part) for part in number.split("."))


def selector_number(selector: str) -> str | None:
    """The task number a written selector names, normalised, or None when it names none
    (then it selects by text): ``5``, ``#5``, ``task 5``, ``Task #54A.`` (data model
    section 10.3, "Task selector").

    The MCP tools and the slash fallback read ``completed_tasks`` with this, so a selector
    means the same as everywhere else in the grammar: ``taſk 5`` (long s) and ``Task ٣``
    (Arabic-Indic three) name no number.
    """
    rest = selector.strip(" \t")
    if ascii_lower(rest[:4]) == "task":
        rest = rest[4:].lstrip(" \t")
    if rest[:1] == "#":
        rest = rest[1:]
    return normalize_number(rest)


def _segment(part: str) -> str:
    """``"054A"`` -> ``"54a"`` for one segment already known to be valid."""
    if part[-1] in ASCII_LETTERS:
        return str(int(part[:-1])) + part[-1].lower()
    return str(int(part))


def top_level_integer(number: str) -> int | None:
    """54 for ``54`` or ``54a``; None for a sub-item number such as ``1.2``."""
    if "." in number:
        return None
    return int(number.rstrip("abcdefghijklmnopqrstuvwxyz"))

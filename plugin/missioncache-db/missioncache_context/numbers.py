"""Task numbers: ``5``, ``1.2``, ``54a`` - one grammar shared by the tasks and context files.

Numbers are compared as normalised strings, never as floats: ``3`` and ``3.1`` are different
tasks, and ``3.10`` is not ``3.1``.
"""

from __future__ import annotations

import re

# One segment is digits plus an optional single letter; segments are joined by dots.
NUMBER = r"\d+[A-Za-z]?(?:\.\d+[A-Za-z]?)*"
_WHOLE = re.compile(r"[ \t]*(" + NUMBER + r")\.?[ \t]*\Z")
_SEGMENT = re.compile(r"(\d+)([A-Za-z]?)\Z")


def normalize_number(value: object) -> str | None:
    """The canonical form of a task number (``"054A."`` -> ``"54a"``), or None if not one.

    Accepts an int (not a bool) or a string; leading zeros and one trailing dot are dropped
    and the letter suffix is lower-cased, so ``Task 54A`` and ``- [ ] 54a.`` agree.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    match = _WHOLE.match(value)
    if match is None:
        return None
    return ".".join(_segment(part) for part in match.group(1).split("."))


def _segment(part: str) -> str:
    match = _SEGMENT.match(part)
    assert match is not None  # guaranteed by NUMBER
    return str(int(match.group(1))) + match.group(2).lower()


def top_level_integer(number: str) -> int | None:
    """54 for ``54`` or ``54a``; None for a sub-item number such as ``1.2``."""
    if "." in number:
        return None
    return int(number.rstrip("abcdefghijklmnopqrstuvwxyz"))

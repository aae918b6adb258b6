"""One character budget for everything a hook hands Claude at once.

Claude Code moves a hook's text over 10,000 characters (characters, not bytes; per hook)
to a file and gives the model only a 2,000-character preview it may never follow up on
(contract 11.5). Its "characters" are JavaScript's: UTF-16 code units, so a character
outside the Basic Multilingual Plane (an emoji, a mathematical letter) counts twice
(measured on 2.1.328: ``harness/tests/test_hook_text_unit_conformance.py``). Every length
here is therefore :func:`units`, never ``len``.

A hook that assembles its text from several parts (SessionStart: the banner, the context
digest, the last compaction summary, notes other features add) must therefore fit them
together, and decide which part gives way first. Each part carries a
priority: when the whole is too long, the least important part is cut first (at a line
end, with a visible mark), and dropped when too little of it would be left to be useful.
Parts keep the order they are given in.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

SEPARATOR = "\n\n"
MIN_USEFUL = 300  # a part cut below this many characters is dropped instead


class Part:
    """A labelled piece of hook text; higher ``priority`` is kept longer when space runs
    out. The label names the part in its cut mark (and in tests). A plain class: a
    ``namedtuple`` class costs about ten times as long to create, at every session start."""

    __slots__ = ("label", "priority", "text")

    def __init__(self, label: str, text: str, priority: int):
        self.label, self.text, self.priority = label, text, priority

    def __repr__(self) -> str:
        return f"Part({self.label!r}, {len(self.text)} characters, priority {self.priority})"


# The lead bytes of UTF-8's 4-byte sequences: exactly the code points above U+FFFF.
_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")


def units(text: str) -> int:
    """The length Claude Code measures: UTF-16 code units (a code point above U+FFFF is two).
    Counted through UTF-8, whose codec is loaded at every start: the UTF-16 one is a module
    to import (0.5 M instructions, callgrind) on every session start."""
    if text.isascii():
        return len(text)
    encoded = text.encode("utf-8", "surrogatepass")
    return len(text) + sum(encoded.count(lead) for lead in _ASTRAL_LEADS)


def prefix(text: str, limit: int) -> str:
    """The longest start of ``text`` that is at most ``limit`` UTF-16 units (never half a
    character: Python strings hold whole code points)."""
    size = units(text)
    if size <= limit:
        return text
    if size == len(text):  # no character above U+FFFF: units are code points
        return text[:limit]
    total = 0
    for index, char in enumerate(text):
        total += 2 if char > "\uffff" else 1
        if total > limit:
            return text[:index]
    return text


def cut_mark(label: str) -> str:
    return f"\n[… {label} cut to fit the hook text limit]"


def fit(parts: Sequence[Part], limit: int) -> str:
    """The parts' texts joined by blank lines, at most ``limit`` UTF-16 units in all.

    Least important first (ties: the later part first), each part over the budget is cut
    or dropped until the whole fits; if the most important parts alone are too long, the
    joined text is cut at ``limit`` as a last resort, so the result never exceeds it.
    """
    texts = [part.text for part in parts]
    order = sorted(range(len(parts)), key=lambda i: (parts[i].priority, -i))
    for index in order:
        over = _length(texts) - limit
        if over <= 0:
            break
        texts[index] = _shrink(texts[index], over, parts[index].label)
    joined = SEPARATOR.join(text for text in texts if text)
    return prefix(joined, limit)


def _length(texts: list) -> int:
    present = [text for text in texts if text]
    return sum(map(units, present)) + len(SEPARATOR) * max(0, len(present) - 1)


def _shrink(text: str, over: int, label: str) -> str:
    """``text`` made ``over`` units shorter (mark included), or "" when too little would
    be left. Cut at the last line end when one is near, so no line is half kept."""
    mark = cut_mark(label)
    keep = units(text) - over - units(mark)
    if keep < MIN_USEFUL:
        return ""
    head = prefix(text, keep)
    newline = head.rfind("\n")
    if newline >= len(head) // 2:
        head = head[:newline]
    return head.rstrip() + mark

"""Reading and minimally editing a ``<name>-tasks.md`` checklist (data-model section 8).

Items are ``- [ ] N. text`` / ``- [x] N. text`` (``X`` too; ``*``/``+`` bullets; any indent
for sub-items such as ``  - [ ] 1.2. text``). Items inside fenced code are text. Checking an
item changes exactly one character; appending inserts whole lines and nothing else.

Lines are read by hand, not with ``re`` (the hook-path
import policy, docs/hooks.md).
"""

from __future__ import annotations

from missioncache_state.tuples import namedtuple

from .document import Doc
from .numbers import ASCII_DIGITS, normalize_number, number_ends, top_level_integer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_BULLETS = ("-", "*", "+")
_BOXES = ("[ ]", "[x]", "[X]")
_DIGITS = tuple(ASCII_DIGITS)  # a tuple: "" is in every string, never in a tuple


class TaskItem(namedtuple("TaskItem", "number text done line")):
    """One checklist item: normalised ``number`` (None when the item has none), its
    ``text``, whether it is ``done``, and the 0-based ``line`` index in the file."""

    __slots__ = ()


class MarkResult(namedtuple("MarkResult", "text matched unmatched already_done flipped")):
    """Outcome of :func:`mark_done`: the new ``text``; the selectors that ``matched`` an item
    (flipped now or already checked), those ``unmatched``; ``already_done`` is the subset of
    matched selectors whose item was checked before (nothing to flip); ``flipped`` is
    (selector, item as it was before) for each item checked now, in selector order."""

    __slots__ = ()


class AppendResult(namedtuple("AppendResult", "text numbers")):
    """Outcome of :func:`append_items`: the new ``text`` and the ``numbers`` given."""

    __slots__ = ()


def _blank_or_end(text: str, pos: int) -> bool:
    return text[pos : pos + 1] in ("", " ", "\t")


def _parse_item(content: str) -> tuple[str, str, int, str | None, str] | None:
    """(indent, bullet, offset of the check mark, raw number or None, text) of one line.

    The line is: spaces/tabs, a bullet, spaces/tabs, ``[ ]``/``[x]``/``[X]``, then a space,
    a tab or the end; then maybe a number with a dot (the dot followed by a space, a tab or
    the end); the text is the rest without its surrounding spaces/tabs.
    """
    rest = content.lstrip(" \t")
    bullet = rest[:1]
    if bullet not in _BULLETS:
        return None
    box = rest[1:].lstrip(" \t")
    if len(box) == len(rest) - 1 or box[:3] not in _BOXES or not _blank_or_end(box, 3):
        return None
    mark = len(content) - len(box) + 1
    text = box[3:].lstrip(" \t")
    number = None
    ends = number_ends(text, 0)
    if ends and text[ends[-1] : ends[-1] + 1] == "." and _blank_or_end(text, ends[-1] + 1):
        number = text[: ends[-1]]
        text = text[ends[-1] + 1 :].lstrip(" \t")
    indent = content[: len(content) - len(rest)]
    return indent, bullet, mark, number, text.rstrip(" \t")


def _starts_list(content: str) -> bool:
    """True when ``content`` starts a list item: a bullet, or ASCII digits and ``.``/``)``,
    followed by a space, a tab or the end of the line."""
    if content[:1] in _BULLETS:
        return _blank_or_end(content, 1)
    end = 0
    while content[end : end + 1] in _DIGITS:
        end += 1
    return end > 0 and content[end : end + 1] in (".", ")") and _blank_or_end(content, end + 1)


def _scan(doc: Doc) -> list[tuple[TaskItem, int, str, str]]:
    """(item, offset of its check mark, indent, bullet) for each item outside fences."""
    found = []
    for index, content in enumerate(doc.contents):
        if doc.fenced(index):
            continue
        parsed = _parse_item(content)
        if parsed is None:
            continue
        indent, bullet, mark, number, text = parsed
        item = TaskItem(
            normalize_number(number) if number else None,
            text,
            content[mark] != " ",
            index,
        )
        found.append((item, doc.starts[index] + mark, indent, bullet))
    return found


def parse_items(text: str) -> list[TaskItem]:
    """Every checklist item outside fences, in file order."""
    return [entry[0] for entry in _scan(Doc(text))]


def pending_numbers(text: str) -> list[str]:
    """Numbers of unchecked items, in file order, without duplicates."""
    numbers: list[str] = []
    seen: set[str] = set()  # a set, not `in numbers`: that was quadratic in the items
    for item in parse_items(text):
        if not item.done and item.number is not None and item.number not in seen:
            seen.add(item.number)
            numbers.append(item.number)
    return numbers


def divergent_tasks(context_text: str, *tasks_texts: str) -> list[str]:
    """Task numbers with a ``### Task N`` heading in the context file whose item is still
    unchecked in the tasks file (the task_tracker reminder), in tasks-file order. The
    tasks file may come in parts (``read_ends``: its head and its tail), parsed apart."""
    from .context_file import task_headings

    headed = set(task_headings(context_text))
    numbers: list[str] = []
    for text in tasks_texts:
        for number in pending_numbers(text):
            if number in headed:
                headed.discard(number)  # named once, where it first appears
                numbers.append(number)
    return numbers


# -- mark_done -----------------------------------------------------------------------------


class _Index:
    """Items looked up by number and by folded text, built once per mark_done: looking
    each selector up by scanning every item re-did the whole file's work per selector."""

    def __init__(self, items: list[TaskItem]) -> None:
        self.items = items
        self.by_number: dict[str, list[TaskItem]] = {}
        for item in items:
            if item.number is not None:
                self.by_number.setdefault(item.number, []).append(item)
        self._folded: list[str] | None = None

    def containing(self, needle: str) -> list[TaskItem]:
        if self._folded is None:
            self._folded = [item.text.casefold() for item in self.items]
        return [item for item, text in zip(self.items, self._folded) if needle in text]


def _pick(index: _Index, selector: object, flipped: set[int]) -> tuple[TaskItem | None, bool]:
    """(item to flip or None, matched) for one selector, given lines already flipped."""
    number = normalize_number(selector) if isinstance(selector, (int, str)) else None
    if number is not None:
        candidates = index.by_number.get(number, [])
    elif isinstance(selector, str) and selector.strip():
        candidates = index.containing(selector.strip().casefold())
    else:
        return None, False
    for item in candidates:
        if not item.done and item.line not in flipped:
            return item, True
    return None, bool(candidates)


def mark_done(text: str, selectors: Iterable[object] | int | str) -> MarkResult:
    """Check items off.

    A selector that is a task number (an int, or a string like ``"3"``, ``"1.2"``, ``"54a"``)
    flips exactly that item - ``3`` never flips ``3.1``. Any other string flips the first
    unchecked item whose text contains it, case-insensitively. Selectors apply in order; a
    selector whose item is already checked is matched and listed in ``already_done``.
    The file is parsed once, however many selectors there are.
    """
    if isinstance(selectors, (int, str)):
        selectors = [selectors]
    doc = Doc(text)
    scanned = _scan(doc)
    index = _Index([entry[0] for entry in scanned])
    marks = {entry[0].line: entry[1] for entry in scanned}
    flipped: set[int] = set()
    matched: list[object] = []
    unmatched: list[object] = []
    already_done: list[object] = []
    changed: list[tuple[object, TaskItem]] = []
    for selector in selectors:
        item, hit = _pick(index, selector, flipped)
        if item is not None:
            flipped.add(item.line)
            changed.append((selector, item))
        (matched if hit else unmatched).append(selector)
        if hit and item is None:
            already_done.append(selector)
    new_text = doc.replace_many([(marks[line], marks[line] + 1, "x") for line in flipped])
    return MarkResult(new_text, matched, unmatched, already_done, changed)


# -- append_items --------------------------------------------------------------------------


def _item_end(doc: Doc, line: int) -> int:
    """The line after item ``line`` and its continuation lines (and any fence begun there)."""
    index = line + 1
    while index < len(doc):
        if doc.fences.open_before(index) is not None:
            index += 1
            continue
        content = doc.contents[index]
        at_margin = content[:1] not in (" ", "\t")
        if doc.blank(index) or doc.heading(index) is not None:
            break
        if at_margin and (doc.fenced(index) or _starts_list(content)):
            break
        index += 1
    return index


def append_items(text: str, texts: Iterable[str] | str) -> AppendResult:
    """Append ``- [ ] N. text`` items numbered after the highest top-level number.

    ``54a`` counts as 54; sub-item numbers (``1.2``) do not count. The items go after the
    last checklist item (and its continuation lines), in its bullet style, or at the end of
    the file when there is none. Whitespace in a text collapses to single spaces (an item is
    one line); an empty text is a ValueError and nothing is appended.
    """
    if isinstance(texts, str):
        texts = [texts]
    cleaned = [" ".join(str(value).split()) for value in texts]
    if any(not value for value in cleaned):
        raise ValueError("task text must not be empty")
    doc = Doc(text)
    scanned = _scan(doc)
    highest = 0
    bullet = "-"
    for item, _mark, indent, item_bullet in scanned:
        if item.number is not None:
            highest = max(highest, top_level_integer(item.number) or 0)
        if not indent:
            bullet = item_bullet
    numbers = [str(highest + offset) for offset in range(1, len(cleaned) + 1)]
    lines = [f"{bullet} [ ] {n}. {value}" for n, value in zip(numbers, cleaned)]
    if not lines:
        return AppendResult(text, [])
    if scanned:
        new_text = doc.insert_lines(_item_end(doc, scanned[-1][0].line), lines, separate=False)
    else:
        new_text = doc.insert_lines(len(doc), lines)
    return AppendResult(new_text, numbers)

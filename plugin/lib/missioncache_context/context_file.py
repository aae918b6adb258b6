"""Reading and minimally editing a ``<name>-context.md`` file (data-model section 7).

Structure is: the first ``**Last Updated:**`` line (the stamp), ``## Next Steps``, and
``## Recent Changes`` holding ``### YYYY-MM-DD HH:MM`` entries, newest first. Headings and
stamps inside fenced code are text. Section names match ignoring ASCII case; a ``##`` section
ends at the next ``#``/``##`` heading outside fences.

Editors return the whole new text; each is a single splice of the old one (see document.py).

Stamps, dates and task titles follow the grammar of data model section 10.2: ASCII digits,
keywords that ignore ASCII case only.
"""

from __future__ import annotations

from .document import Doc, parse_heading, split_input_lines
from .fences import scan_fences
from .numbers import (
    ASCII_DIGITS,
    ASCII_LETTERS,
    ascii_lower,
    normalize_number,
    number_ends,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

STAMP_MARKER = "**Last Updated:**"
RECENT_CHANGES = "Recent Changes"
NEXT_STEPS = "Next Steps"

_AFTER_TITLE_NUMBER = ASCII_DIGITS + ASCII_LETTERS  # may not follow a heading's number


def format_when(when: object = None) -> str:
    """``YYYY-MM-DD HH:MM`` for a datetime (None = now, local time); a string is used as is.

    A string must be a single line: a newline inside a stamp or entry heading would break
    the file's structure.
    """
    if when is None:
        import time  # not datetime: importing it costs PreCompact most of a millisecond

        return time.strftime("%Y-%m-%d %H:%M")
    if hasattr(when, "strftime"):
        return str(when.strftime("%Y-%m-%d %H:%M"))
    value = str(when).strip()
    if not value or "\n" in value or "\r" in value:
        raise ValueError(f"not a one-line stamp: {when!r}")
    return value


# -- the stamp ---------------------------------------------------------------------------


def _starts_caseless(text: str, prefix: str) -> bool:
    """True when ``text`` starts with ``prefix`` ignoring ASCII case."""
    return ascii_lower(text[: len(prefix)]) == ascii_lower(prefix)


def _parse_stamp(content: str) -> tuple[str, str] | None:
    """(spacing, value) of a stamp line: the marker in any case at the very start, the
    spaces/tabs after it, and the rest without its trailing spaces/tabs; None otherwise."""
    if content[:2] != "**" or not _starts_caseless(content, STAMP_MARKER):  # "**": quick no
        return None
    rest = content[len(STAMP_MARKER) :]
    value = rest.lstrip(" \t")
    return rest[: len(rest) - len(value)], value.rstrip(" \t")


def _stamp_line(doc: Doc) -> tuple[int, tuple[str, str]] | None:
    for index, content in enumerate(doc.contents):
        if not doc.fenced(index):
            parsed = _parse_stamp(content)
            if parsed is not None:
                return index, parsed
    return None


def get_stamp(text: str) -> str | None:
    """The value of the first ``**Last Updated:**`` line outside fences (None if absent)."""
    found = _stamp_line(Doc(text))
    return None if found is None else found[1][1]


def set_stamp(text: str, when: object = None) -> str:
    """Set the stamp: replace the first stamp's value, or insert a stamp line.

    Only the value changes (spacing after the marker and trailing spaces are kept). Without a
    stamp, the line goes after the first ``# `` title (or at the very top), blank-separated.
    """
    value = format_when(when)
    doc = Doc(text)
    found = _stamp_line(doc)
    if found is not None:
        index, (spacing, old) = found
        start = doc.starts[index] + len(STAMP_MARKER)
        end = start + len(spacing) + len(old)
        return doc.splice(start, end, (spacing or " ") + value)
    stamp = f"{STAMP_MARKER} {value}"
    for index, level, _title in doc.headings():
        if level == 1:
            return doc.insert_lines(index + 1, [stamp])
    return doc.insert_lines(0, [stamp])


# -- sections ------------------------------------------------------------------------------


def _section_span(doc: Doc, name: str) -> tuple[int, int] | None:
    """(heading line, end line) of the first ``## name`` section, case-insensitively
    (``"## Next Steps"`` is accepted for ``"Next Steps"``)."""
    key = ascii_lower(name.strip().lstrip("#").strip())
    for index, level, title in doc.headings():
        if level == 2 and ascii_lower(title) == key:
            return index, doc.block_end(index, 2)
    return None


def section(text: str | Doc, name: str) -> str | None:
    """Body of the first ``## name`` section (``\\n`` line endings, outer blank lines
    trimmed); None when there is no such section. ``text`` may come parsed already."""
    doc = Doc.of(text)
    span = _section_span(doc, name)
    return None if span is None else doc.text_of(span[0] + 1, span[1])


def _entry_spans(doc: Doc, start: int, end: int) -> list[tuple[int, int]]:
    """(heading, end) of each ``###`` entry between lines ``start`` and ``end``."""
    spans = []
    for index in doc.headings_between(start, end):
        if doc.heading(index)[0] == 3:  # type: ignore[index]
            spans.append((index, min(doc.block_end(index, 3), end)))
    return spans


def recent_changes(text: str) -> list[str]:
    """Every ``###`` entry of ``## Recent Changes`` (heading + body) in file order."""
    doc = Doc(text)
    span = _section_span(doc, RECENT_CHANGES)
    if span is None:
        return []
    return [doc.text_of(start, end) for start, end in _entry_spans(doc, *span)]


def newest_recent_change(text: str | Doc) -> str | None:
    """The newest Recent Changes entry (heading + body).

    Entries are kept newest first, but a hand-edited file may not be: the entry with the
    latest ``YYYY-MM-DD HH:MM`` heading wins, ties going to the one nearer the top. With no
    dated entry the first entry is used; with no entry at all, the section's own text (older
    tools wrote bare bullets there); None when that is empty too. ``text`` may come
    parsed already.
    """
    doc = Doc.of(text)
    span = _section_span(doc, RECENT_CHANGES)
    if span is None:
        return None
    spans = _entry_spans(doc, *span)
    if not spans:
        return doc.text_of(span[0] + 1, span[1]) or None
    best, best_date = spans[0], ""
    for start, end in spans:
        date = _date_prefix(doc.heading(start)[1])  # type: ignore[index]
        if date is not None and date > best_date:
            best, best_date = (start, end), date
    return doc.text_of(*best)


def _date_prefix(title: str) -> str | None:
    """The ``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM`` (or ``T`` between) that starts ``title``,
    in ASCII digits."""
    if not (
        _decimals(title, 0, 4)
        and title[4:5] == "-"
        and _decimals(title, 5, 2)
        and title[7:8] == "-"
        and _decimals(title, 8, 2)
    ):
        return None
    if (
        title[10:11] in (" ", "T")
        and _decimals(title, 11, 2)
        and title[13:14] == ":"
        and _decimals(title, 14, 2)
    ):
        return title[:16]
    return title[:10]


def _decimals(text: str, start: int, count: int) -> bool:
    chunk = text[start : start + count]
    return len(chunk) == count and chunk.isdigit() and chunk.isascii()


def add_recent_change(text: str, body: str | Sequence[str], *, when: object = None) -> str:
    """Add ``### <when>`` with ``body`` lines at the top of ``## Recent Changes``.

    The entry goes before the section's first ``###`` entry (text above the first entry stays
    where it is, above it), or after the section's content when it has no entry yet. A
    missing section is created at the end of the file. Body lines are inserted verbatim (any
    embedded newline splits a line); a fence the body leaves open is closed so it cannot
    swallow the rest of the file.
    """
    block = [f"### {format_when(when)}", *_trimmed(split_input_lines(body))]
    closer = scan_fences(block).pending[-1]
    if closer is not None:
        block.append(closer)
    doc = Doc(text)
    span = _section_span(doc, RECENT_CHANGES)
    if span is None:
        return doc.insert_lines(len(doc), [f"## {RECENT_CHANGES}", "", *block])
    heading, end = span
    entries = _entry_spans(doc, heading, end)
    if entries:
        return doc.insert_lines(entries[0][0], block)
    last = heading
    for index in range(heading + 1, end):
        if not doc.blank(index):
            last = index
    return doc.insert_lines(last + 1, block)


def record_change(text: str, body: str | Sequence[str], *, when: object = None) -> str:
    """Add a Recent Changes entry and set the stamp to the same time (the usual save)."""
    stamp = format_when(when)
    return set_stamp(add_recent_change(text, body, when=stamp), stamp)


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def set_section(
    text: str, name: str, body: str | Sequence[str], *, before: str | None = None
) -> str:
    """Replace the body of the first ``## name`` section with ``body`` (a splice of that
    body only: the heading and everything outside the section stay byte-identical).

    The new body sits between one blank line after the heading and one blank line before
    the next heading. A missing section is created before the ``## before`` section when
    that exists, else at the end of the file. Body lines are inserted verbatim (outer blank
    lines dropped, embedded newlines split); a fence the body leaves open is closed. A body
    holding a ``#`` or ``##`` heading outside fences is a ValueError: it would end the
    section early and scatter the rest of the body into another one.
    """
    lines = _trimmed(split_input_lines(body))
    closer = scan_fences(lines).pending[-1] if lines else None
    if closer is not None:
        lines.append(closer)
    _refuse_section_breaks(lines)
    title = name.strip().lstrip("#").strip()
    doc = Doc(text)
    span = _section_span(doc, title)
    if span is None:
        block = [f"## {title}", "", *lines] if lines else [f"## {title}"]
        target = _section_span(doc, before) if before else None
        return doc.insert_lines(target[0] if target else len(doc), block)
    heading, end = span
    new = ["", *lines]
    if end < len(doc) and lines:
        new.append("")
    return _replace_lines(doc, heading, end, new)


def _refuse_section_breaks(lines: list[str]) -> None:
    fences = scan_fences(lines)
    for index, line in enumerate(lines):
        if fences.inside[index]:
            continue
        parsed = parse_heading(line)
        if parsed is not None and parsed[0] <= 2:
            raise ValueError(f"a section body cannot hold the heading {line.strip()!r}")


def _replace_lines(doc: Doc, heading: int, end: int, new: list[str]) -> str:
    """Replace lines ``heading+1:end`` with ``new`` (line contents) in the file's newline.

    At the end of a file, a file that had no final newline keeps not having one.
    """
    nl = doc.nl
    start = doc.line_end(heading)
    if end < len(doc):
        return doc.splice(start, doc.starts[end], "".join(line + nl for line in new))
    rows = [] if new == [""] else new
    if not rows:
        return doc.splice(start, len(doc.body), "")
    piece = nl.join(rows)
    if doc.body.endswith("\n"):
        piece += nl
    if not doc.lines[heading].endswith("\n"):
        piece = nl + piece
    return doc.splice(start, len(doc.body), piece)


# -- task headings -------------------------------------------------------------------------


def _task_title_number(title: str) -> str | None:
    """The raw number of a ``Task N`` title (``"task 5: x"`` -> ``"5"``), or None.

    ``task`` ignoring ASCII case, one or more spaces/tabs, the longest task number, then the
    end of the title or a character that is neither an ASCII digit nor an ASCII letter
    (``Task 5: x``, ``task 5.``). A number that runs on (``task 12a3``) is no task number.
    """
    if not _starts_caseless(title, "task"):
        return None
    start = 4
    while title[start : start + 1] in (" ", "\t"):
        start += 1
    ends = number_ends(title, start) if start > 4 else []
    if not ends:
        return None
    end = ends[-1]
    if end < len(title) and title[end] in _AFTER_TITLE_NUMBER:
        return None
    return title[start:end]


def task_headings(text: str) -> list[str]:
    """Normalised numbers of ``### Task N`` / ``### Task N: title`` headings (any case),
    outside fences, first occurrence order, without duplicates."""
    numbers: list[str] = []
    seen: set[str] = set()  # a set, not `in numbers`: that was quadratic in the headings
    for _index, level, title in Doc(text).headings():
        if level != 3:
            continue
        raw = _task_title_number(title)
        if raw is None:
            continue
        number = normalize_number(raw)
        if number is not None and number not in seen:
            seen.add(number)
            numbers.append(number)
    return numbers

"""A markdown text seen as lines, with fences, headings and byte-exact splicing.

Every edit in this package is a splice: one region of the original string is replaced (or a
block is inserted) and everything else is copied verbatim. That is how we guarantee the user's
notes survive: line endings, trailing whitespace, a missing final newline, odd characters -
whatever we did not mean to touch is not touched.

Only ``\\n`` ends a line (a ``\\r`` before it belongs to the ending). Lines we add use the
file's dominant ending, so CRLF files stay CRLF.

Headings are read by hand, not with ``re`` (the hook-path
import policy, docs/hooks.md).
"""

from __future__ import annotations

from .fences import scan_fences

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

BOM = "\ufeff"


def split_bom(text: str) -> tuple[str, str]:
    """(BOM or "", rest): structure is matched on the rest, the BOM is put back on write."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def dominant_newline(text: str) -> str:
    """``\\r\\n`` when most line endings are CRLF, otherwise ``\\n`` (also for no endings)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def parse_heading(content: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, or None. ``#tag`` is not a heading.

    A heading is 0-3 spaces, 1-6 ``#`` and then a space, a tab or the end of the line; an
    optional closing run of ``#`` (after a space or tab) is not part of the title.
    """
    if "#" not in content[:4]:  # cheap pre-check: a heading's # is within 3 spaces of the start
        return None
    start = len(content) - len(content.lstrip(" "))
    end = start
    while end < len(content) and content[end] == "#":
        end += 1
    if start > 3 or not 1 <= end - start <= 6 or content[end : end + 1] not in ("", " ", "\t"):
        return None
    title = _without_closing_hashes(content[end:].strip()).strip()
    return end - start, title


def _without_closing_hashes(title: str) -> str:
    """``title`` without a final run of ``#`` that is the whole title or follows spaces/tabs
    (those spaces/tabs go too): ``"Notes ##"`` -> ``"Notes"``, ``"C#"`` stays."""
    body = title.rstrip("#")
    if body == title or (body and body[-1] not in (" ", "\t")):
        return title
    return body.rstrip(" \t")


class Doc:
    """One parse of a text: lines with endings, their contents, offsets and fence map."""

    def __init__(self, text: str) -> None:
        self.bom, self.body = split_bom(text)
        self.nl = dominant_newline(self.body)
        parts = self.body.split("\n")
        last = parts.pop()  # the text after the final newline ("" when it ends with one)
        self.lines = [part + "\n" for part in parts]
        if last:
            self.lines.append(last)
            parts.append(last)
        # A line's content drops its ending; only a \r right before the \n belongs to it.
        self.contents = (
            [part[:-1] if part[-1:] == "\r" else part for part in parts]
            if "\r" in self.body
            else parts
        )
        # Each line's offset, summed here: ``itertools.accumulate`` would cost the import
        # of ``itertools`` (0.5 M instructions) on every hook that reads a context file.
        starts: list[int] = []
        self.starts = starts
        offset = 0
        for line in self.lines:
            starts.append(offset)
            offset += len(line)
        self.fences = scan_fences(self.contents)
        self._headings: list[tuple[int, str] | None] | None = None
        self._lines_with_headings: list[int] | None = None

    @classmethod
    def of(cls, text: str | Doc) -> Doc:
        """``text`` parsed, or as it is when it was parsed already (readers that look at
        one text several ways parse it once)."""
        return text if isinstance(text, Doc) else cls(text)

    def __len__(self) -> int:
        return len(self.lines)

    def fenced(self, index: int) -> bool:
        return self.fences.inside[index]

    def blank(self, index: int) -> bool:
        return not self.contents[index].strip()

    def heading(self, index: int) -> tuple[int, str] | None:
        """The heading on line ``index`` when it is structure (not inside a fence)."""
        return self._parsed_headings()[index]

    def _parsed_headings(self) -> list[tuple[int, str] | None]:
        """Every line's heading, parsed once (section and entry lookups ask about the same
        lines again and again, and a hook reads a context file on the user's time). Only a
        line with a ``#`` in its first four characters can be a heading, so the others cost
        one test."""
        if self._headings is None:
            inside = self.fences.inside
            headings: list[tuple[int, str] | None] = [None] * len(self.contents)
            for index, content in enumerate(self.contents):
                if "#" in content[:4] and not inside[index]:
                    headings[index] = parse_heading(content)
            self._headings = headings
        return self._headings

    def _heading_lines(self) -> list[int]:
        """Indexes of the lines that are headings, in order: lookups walk these, not every
        line."""
        if self._lines_with_headings is None:
            parsed = self._parsed_headings()
            self._lines_with_headings = [i for i, found in enumerate(parsed) if found is not None]
        return self._lines_with_headings

    def headings(self) -> list[tuple[int, int, str]]:
        """(line index, level, title) of every heading outside fences, in order."""
        parsed = self._parsed_headings()
        return [(index, *parsed[index]) for index in self._heading_lines()]  # type: ignore[misc]

    def headings_between(self, start: int, end: int) -> list[int]:
        """Line indexes of the headings after line ``start`` and before line ``end``."""
        lines = self._heading_lines()
        return lines[_first_after(lines, start) : _first_after(lines, end - 1)]

    def block_end(self, start: int, max_level: int) -> int:
        """Index of the first heading after ``start`` with level <= ``max_level`` (or EOF)."""
        parsed = self._parsed_headings()
        lines = self._heading_lines()
        for index in lines[_first_after(lines, start) :]:
            if parsed[index][0] <= max_level:  # type: ignore[index]
                return index
        return len(self.lines)

    def text_of(self, start: int, end: int) -> str:
        """Lines ``start:end`` joined with ``\\n``, surrounding blank lines dropped."""
        contents = list(self.contents[start:end])
        while contents and not contents[0].strip():
            contents.pop(0)
        while contents and not contents[-1].strip():
            contents.pop()
        return "\n".join(contents)

    def line_end(self, index: int) -> int:
        """Offset just past line ``index`` including its ending."""
        return self.starts[index] + len(self.lines[index])

    def splice(self, start: int, end: int, new: str) -> str:
        """The full text (BOM kept) with ``body[start:end]`` replaced by ``new``."""
        return self.bom + self.body[:start] + new + self.body[end:]

    def replace_many(self, edits: Sequence[tuple[int, int, str]]) -> str:
        """The full text with several non-overlapping ``(start, end, new)`` body edits."""
        pieces, previous = [self.bom], 0
        for start, end, new in sorted(edits):
            pieces += [self.body[previous:start], new]
            previous = end
        pieces.append(self.body[previous:])
        return "".join(pieces)

    def insert_lines(self, index: int, block: Sequence[str], *, separate: bool = True) -> str:
        """Insert ``block`` (line contents) before line ``index`` (``len(doc)`` = at the end).

        With ``separate``, a blank line is added on each side where the neighbour is not
        already blank, so the block never glues onto a paragraph or list. If a fence is still
        open at the insertion point (only possible at the end of a file whose fence never
        closes) its closer is inserted first, or the new lines would be swallowed as code.
        """
        new = list(block)
        if separate and index < len(self.lines) and not self.blank(index):
            new.append("")
        closer = self.fences.open_before(index)
        if closer is not None:
            new[:0] = [closer, ""] if separate else [closer]
        elif separate and index > 0 and not self.blank(index - 1):
            new.insert(0, "")
        if index < len(self.lines):
            return self.splice(self.starts[index], self.starts[index], _joined(new, self.nl))
        if self.body and not self.body.endswith("\n"):
            # The file has no final newline: end our addition the same way.
            return self.splice(len(self.body), len(self.body), self.nl + self.nl.join(new))
        return self.splice(len(self.body), len(self.body), _joined(new, self.nl))


def _joined(lines: Sequence[str], nl: str) -> str:
    return "".join(line + nl for line in lines)


def _first_after(sorted_lines: list[int], start: int) -> int:
    """Position of the first value above ``start`` in ``sorted_lines`` (a binary search:
    ``bisect`` is a shared library to load on most Pythons, for ten lines of work)."""
    low, high = 0, len(sorted_lines)
    while low < high:
        middle = (low + high) // 2
        if sorted_lines[middle] <= start:
            low = middle + 1
        else:
            high = middle
    return low


def split_input_lines(value: str | Sequence[str]) -> list[str]:
    """Caller-supplied lines, each split further on any newline so none smuggles one in."""
    items = [value] if isinstance(value, str) else list(value)
    lines: list[str] = []
    for item in items:
        lines.extend(str(item).replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return lines

"""Cells of a text or CSV report that cannot be turned against the person reading them.

Every CSV and text writer of MissionCache passes its cells through here (the time report;
any later timesheet export), so the rules live in one place:

- **Formula injection** (OWASP, "CSV Injection"). A spreadsheet runs a cell that starts
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a formula
  (``=HYPERLINK(...)``, ``@SUM(...)``, DDE calls). A task name is text someone else may
  have chosen (a shared tasks.db, another tool's row), so :func:`csv_cell` makes such a
  text cell start with a single quote, which spreadsheets show as text and do not run.
  Leading spaces do not hide a trigger (some programs strip them first), and the
  full-width forms of the trigger characters count too. Numbers (int, float) are left
  alone: they are ours and never text.
- **Bidirectional controls** (U+202A–U+202E, U+2066–U+2069, and the marks U+200E, U+200F,
  U+061C). A right-to-left override in a task name reverses the rest of the line when it
  is displayed, so ``task‮ 1h`` can read as another figure. They are written as the
  visible ``<U+202E>``, in text and in CSV alike.
- **Other control characters** (ESC starting a terminal sequence, a newline breaking the
  table, a CR that ends a CSV row for many readers although Python's csv leaves it
  unquoted) are shown the same way, in text and CSV.

Standard library only, like the rest of the report.
"""

from __future__ import annotations

import csv
import io

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Union

    Cell = Union[str, int, float, None]

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# What makes a spreadsheet evaluate a cell (OWASP), with the full-width forms.
FORMULA_TRIGGERS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
FORMULA_GUARD = "'"


def _shown(char: str) -> str:
    return f"<U+{ord(char):04X}>"


def escape_bidi(text: str) -> str:
    """``text`` with every bidirectional control written as ``<U+XXXX>``."""
    if not any(char in BIDI_CONTROLS for char in text):
        return text
    return "".join(_shown(char) if char in BIDI_CONTROLS else char for char in text)


def _is_control(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or 0x7F <= code < 0xA0 or char in BIDI_CONTROLS


def text_cell(value: object) -> str:
    """A value as it may appear in a text report: bidirectional and other control
    characters (ESC, newline, tab) written as ``<U+XXXX>``."""
    text = "" if value is None else str(value)
    if not any(_is_control(char) for char in text):
        return text
    return "".join(_shown(char) if _is_control(char) else char for char in text)


def csv_cell(value: Cell) -> Cell:
    """A value as it may appear in a CSV cell: a number as it is; text with its bidi and
    other control characters escaped (as :func:`text_cell`) and, when a spreadsheet would
    take it for a formula, a leading single quote."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = text_cell(value)  # a CR would end the row for many readers (csv leaves it unquoted)
    first = text.lstrip(" ")[:1]
    if first and first in FORMULA_TRIGGERS:
        return FORMULA_GUARD + text
    return text


def csv_rows(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """A whole CSV document (``\\n`` line ends), every cell through :func:`csv_cell`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(name) for name in header])
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return out.getvalue()

"""``missioncache_report.cells``: the one helper every CSV and text writer uses."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from missioncache_report.cells import (
    BIDI_CONTROLS,
    FORMULA_TRIGGERS,
    csv_cell,
    csv_rows,
    text_cell,
)


def test_owasp_triggers_are_guarded_and_numbers_left_alone():
    for cell in ("=1+1", "+1", "-1", "@A1", "\uff1d1+1", "  =1"):
        assert csv_cell(cell) == "'" + cell
    assert csv_cell(-5) == -5 and csv_cell(1.5) == 1.5 and csv_cell("plain") == "plain"


@given(st.text())
def test_no_cell_can_start_a_formula_or_carry_a_control(text):
    cell = csv_cell(text)
    assert isinstance(cell, str)
    assert cell.lstrip(" ")[:1] not in FORMULA_TRIGGERS or cell.startswith("'")
    assert not any(char in BIDI_CONTROLS for char in cell)
    assert not any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in cell)
    shown = text_cell(text)
    assert not any(char in BIDI_CONTROLS or ord(char) < 0x20 for char in shown)


@given(st.lists(st.lists(st.text(), min_size=2, max_size=2), max_size=5))
def test_csv_rows_keep_one_line_per_row(rows):
    out = csv_rows(["a", "b"], rows)
    parsed = list(csv.reader(io.StringIO(out.replace("\r", ""))))
    assert len(parsed) == len(rows) + 1

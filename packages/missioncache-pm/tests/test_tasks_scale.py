"""Issue 12, item 5: update_tasks_file's work does not grow with selectors x items.

Regression: each selector re-parsed the whole tasks file (twice, plus a mark_done
parse), so 200 selectors on 20,000 items took 98 s while holding the file's lock. The
file is now parsed a fixed number of times, whatever the number of selectors; counting
parses keeps this test independent of the machine's speed."""

from __future__ import annotations

import missioncache_context.document as document
from missioncache_pm.edits import apply_tasks_update


def _count_parses(monkeypatch) -> list[int]:
    calls = [0]
    real_init = document.Doc.__init__

    def counting_init(self, text):
        calls[0] += 1
        real_init(self, text)

    monkeypatch.setattr(document.Doc, "__init__", counting_init)
    return calls


def test_selectors_do_not_each_reparse_the_file(monkeypatch):
    tasks = "# T\n\n" + "".join(f"- [ ] {n}. item {n}\n" for n in range(1, 2001))
    calls = _count_parses(monkeypatch)
    one = apply_tasks_update(tasks, ["1"], [], "2026-01-01 00:00")
    parses_for_one = calls[0]
    calls[0] = 0
    many = apply_tasks_update(
        tasks, [str(n) for n in range(1, 201)] + ["item 1999", "nothing like it"], [], "D"
    )
    assert calls[0] == parses_for_one
    assert [item.number for _, item in one.flipped] == ["1"]
    assert len(many.flipped) == 201 and many.unmatched == ["nothing like it"]
    assert many.text.count("- [x] ") == 201
    assert [selector for selector, _ in many.flipped][-1] == "item 1999"

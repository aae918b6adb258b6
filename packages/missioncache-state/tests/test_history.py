"""``missioncache_state.history``: the copies kept of every file MissionCache rewrites."""

from __future__ import annotations

import os

from missioncache_state import history


def _plant(path, names):
    folder = history.safe_history_dir(path)
    for index, name in enumerate(names):
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(f"planted {index}".encode())
    return folder


def test_copies_named_by_a_clock_that_was_ahead_never_push_out_the_new_one(tmp_path):
    """Issue 20, defect 7: with KEEP copies named in 2099 (a clock that was ahead), the
    version just replaced was named today, sorted oldest, and was deleted at once: no undo
    copy until the clock passed 2099. A new copy is now named after the newest."""
    notes = tmp_path / "notes.md"
    names = [f"209901{day:02d}T120000.000000Z-aaaaaa.md" for day in range(1, history.KEEP + 1)]
    _plant(notes, names)
    copy = history.keep_version(notes, b"the version just replaced")
    assert copy is not None and os.path.exists(copy)
    kept = history.versions(notes)
    assert kept[0] == copy and len(kept) == history.KEEP
    with open(kept[0], "rb") as handle:
        assert handle.read() == b"the version just replaced"
    second = history.keep_version(notes, b"and the next one")
    assert history.versions(notes)[:2] == [second, copy]


def test_the_newest_copy_is_never_the_one_pruned_even_under_a_foreign_name(tmp_path):
    notes = tmp_path / "notes.md"
    _plant(notes, [f"9{index}-not-ours.md" for index in range(history.KEEP)])
    copy = history.keep_version(notes, b"mine")
    assert copy is not None and os.path.exists(copy)
    assert len(history.versions(notes)) == history.KEEP


def test_copies_in_order_of_making_with_a_normal_clock(tmp_path):
    notes = tmp_path / "notes.md"
    made = [history.keep_version(notes, f"v{n}".encode()) for n in range(history.KEEP + 3)]
    assert history.versions(notes) == list(reversed(made))[: history.KEEP]

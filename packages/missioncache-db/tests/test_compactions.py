"""Compaction summaries kept with the task (missioncache_db._compactions)."""

import os

import pytest

from missioncache_db import _compactions as store
from missioncache_db import compaction_count, recent_compactions, record_compaction
from missioncache_db._model import Task

RAW = "<analysis>thinking aloud</analysis>\n<summary>Where it stands: parser half done.</summary>"


@pytest.fixture
def task(db):
    return db.create_task("demo")


def test_summary_part_is_kept_without_the_analysis(task, mc_roots):
    path = record_compaction(task, RAW, "manual", "sess-1", when=1_800_000_000.5)
    data_root, _ = mc_roots
    assert os.path.realpath(path).startswith(os.path.realpath(data_root / "active" / "demo"))
    [item] = recent_compactions(task, 5)
    assert item.summary == "Where it stands: parser half done."
    assert (item.epoch, item.trigger, item.session_id) == (1_800_000_000.5, "manual", "sess-1")
    assert item["summary"] == item.summary  # key access works as well as attributes


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("plain text summary", "plain text summary"),
        ("<analysis>a</analysis>rest", "rest"),
        ("<analysis>never closed", ""),
        ("<summary>cut off mid-way", "cut off mid-way"),
        ("<summary>old</summary> <summary>new</summary>", "new"),
        (None, ""),
    ],
)
def test_summary_text_forms(raw, expected):
    assert store.summary_text(raw) == expected


def test_newest_first_and_limit(task):
    for n in range(4):
        record_compaction(task, f"summary {n}", "auto", "s", when=1_000 + n)
    items = recent_compactions(task, 3)
    assert [i.summary for i in items] == ["summary 3", "summary 2", "summary 1"]
    assert compaction_count(task) == 4
    assert compaction_count(task, since_epoch=1_002) == 2


def test_records_are_read_one_by_one_as_asked(task, monkeypatch):
    """compaction_records: the count and the same records as recent_compactions, each
    file opened only when the iterator reaches it (SessionStart usually needs one)."""
    for n in range(4):
        record_compaction(task, f"summary {n}", "auto", "s", when=1_000 + n)
    count, records = store.compaction_records(task)
    assert count == compaction_count(task) == 4
    opened = []
    real = store._read
    monkeypatch.setattr(store, "_read", lambda path: opened.append(path) or real(path))
    assert next(records).summary == "summary 3"
    assert len(opened) == 1
    assert [i.summary for i in records] == ["summary 2", "summary 1", "summary 0"]
    count, records = store.compaction_records(Task(1, "x", "../../etc", "active"))
    assert count == 0 and list(records) == []  # an unsafe path reads nothing


def test_hostile_trigger_and_session_id_are_not_stored_as_given(task):
    record_compaction(task, "s", "block", "../../etc", when=5)
    [item] = recent_compactions(task, 1)
    assert (item.trigger, item.session_id) == ("unknown", None)


def test_a_huge_summary_is_cut(task):
    record_compaction(task, "x" * 50_000, "manual", "s")
    [item] = recent_compactions(task, 1)
    assert len(item.summary) <= store.MAX_SUMMARY_CHARS
    assert item.summary.endswith(store.CUT_MARK)


def test_bounded_older_records_become_stubs_and_the_oldest_go(task, monkeypatch):
    monkeypatch.setattr(store, "KEEP_SUMMARIES", 3)
    monkeypatch.setattr(store, "KEEP_RECORDS", 5)
    for n in range(7):
        record_compaction(task, f"summary {n} " + "y" * 2000, "manual", "s", when=100 + n)
    items = recent_compactions(task, 10)
    assert [round(i.epoch) for i in items] == [106, 105, 104, 103, 102]
    assert all(i.summary.startswith(f"summary {round(i.epoch) - 100}") for i in items[:3])
    assert [i.summary for i in items[3:]] == ["", ""]
    folder = store.folder_for(task)
    assert len(os.listdir(folder)) == 5
    oldest = sorted(os.listdir(folder))[:2]
    assert all(os.path.getsize(os.path.join(folder, name)) < 1024 for name in oldest)


def test_no_compactions_yet(task):
    assert recent_compactions(task, 5) == []
    assert compaction_count(task) == 0


def test_a_task_path_outside_the_data_root_is_refused(mc_roots):
    evil = Task(id=1, name="x", full_path="active/../../x", status="active")
    with pytest.raises(ValueError):
        record_compaction(evil, "s", "manual", "s")
    assert recent_compactions(evil, 5) == []
    assert compaction_count(evil) == 0


def test_corrupt_and_foreign_files_are_skipped(task):
    record_compaction(task, "good", "manual", "s", when=10)
    folder = store.folder_for(task)
    with open(os.path.join(folder, f"{20 * 1_000_000:016d}-bad.json"), "wb") as handle:
        handle.write(b"{not json")
    with open(os.path.join(folder, "notes.txt"), "w") as handle:
        handle.write("mine")
    assert [i.summary for i in recent_compactions(task, 5)] == ["good"]
    assert compaction_count(task) == 2  # names only: a damaged record still happened


def test_folder_is_hidden_so_it_never_looks_like_a_subtask(task):
    assert os.path.basename(store.folder_for(task)).startswith(".")


def test_a_lone_surrogate_does_not_make_the_record_unwritable(task):
    record_compaction(task, "before \ud800 after", "manual", "s")
    [item] = recent_compactions(task, 1)
    assert item.summary.startswith("before ") and item.summary.endswith(" after")

"""A save that landed while an editor saved the same file: the tools must say it landed.

``update_file`` raises SaveDivertedError AFTER our text is written, when an editor's save
went to the version we replaced and could not be put back (it is kept in the history).
The tools used to report that as a failure ("NOT saved" / a tool error), so the user
believed the update was lost and Claude repeated it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

CONTEXT = "# Demo - Context\n\n**Last Updated:** 2026-01-01 00:00\n\n## Recent Changes\n"


def _editor_saves_twice_around_our_replace(monkeypatch, path: Path) -> None:
    """The editor opened the file just before our replace and wrote into it after (the
    save reaches the replaced version), then saved again on top of our version, so the
    late save cannot be put back."""
    import missioncache_state.atomic as atomic

    real_replace = os.replace
    target = os.path.realpath(path)

    def replace(src, dst):
        if os.fspath(dst) != target or os.fspath(src).endswith("-x"):
            return real_replace(src, dst)
        late = open(path, "a", encoding="utf-8")  # noqa: SIM115 - the editor's handle
        real_replace(src, dst)
        late.write("- the editor's diverted save\n")
        late.close()
        with open(path, "a", encoding="utf-8") as again:
            again.write("- the editor's next save\n")
        return None

    monkeypatch.setattr(atomic.os, "replace", replace)


@pytest.fixture
def demo(world):
    task = world.task("demo", repo=world.repo)
    world.write(task.context_file, CONTEXT)
    world.write(task.tasks_file, "# Demo - Tasks\n\n- [ ] 1. Parse\n")
    then = time.time() - 60
    for path in (task.context_file, task.tasks_file):
        os.utime(path, (then, then))
    return task


def _kept_copy(report: str) -> Path:
    copy = Path(report.split("its save is kept at ", 1)[1].split(", so nothing was lost")[0])
    assert copy.read_text(encoding="utf-8").endswith("- the editor's diverted save\n")
    return copy


def test_update_context_file_says_the_update_landed_and_where_the_editors_save_is(
    world, demo, monkeypatch
):
    from missioncache_pm.edits import update_context_file

    _editor_saves_twice_around_our_replace(monkeypatch, demo.context_file)
    report = update_context_file(str(demo.context_file), "Parsed the input")
    assert report.startswith(f"Updated {os.path.realpath(demo.context_file)}: added")
    assert "NOT" not in report and "not saved" not in report.lower()
    assert "do not repeat the update" in report
    _kept_copy(report)
    assert "- Parsed the input" in demo.context_file.read_text(encoding="utf-8")


def test_update_tasks_file_notes_diverted_are_reported_as_saved(world, demo, monkeypatch):
    from missioncache_pm.edits import update_tasks_file

    _editor_saves_twice_around_our_replace(monkeypatch, demo.context_file)
    report = update_tasks_file(str(demo.tasks_file), ["1"], notes="Parser done")
    assert "Marked done: 1. Parse." in report
    assert "Notes: added a Recent Changes entry" in report
    assert "NOT saved" not in report
    _kept_copy(report)
    assert "- Parser done" in demo.context_file.read_text(encoding="utf-8")


def test_the_one_sentence_of_a_diverted_save_does_not_claim_a_failure(tmp_path):
    from missioncache_context import SaveDivertedError
    from missioncache_pm.errors import sentence

    text = sentence(SaveDivertedError(str(tmp_path / "x-context.md"), None))
    assert text.startswith(f"Saved to {tmp_path / 'x-context.md'}, but an editor")
    assert "save the file again from the editor" in text


def test_update_tasks_file_itself_diverted_says_the_items_landed(world, demo, monkeypatch):
    from missioncache_pm.edits import update_tasks_file

    _editor_saves_twice_around_our_replace(monkeypatch, demo.tasks_file)
    report = update_tasks_file(str(demo.tasks_file), ["1"], ["Ship"])
    assert "Marked done: 1. Parse." in report
    assert "NOT saved" not in report and "do not repeat the update" in report
    _kept_copy(report)
    tasks = demo.tasks_file.read_text(encoding="utf-8")
    assert "- [x] 1. Parse" in tasks and "Ship" in tasks

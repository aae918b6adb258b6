"""The shared-seen marker (docs/forks.md): which version of its parent's context a fork
session last read, and whether the parent changed after that."""

from __future__ import annotations

import json
import os

import pytest

from missioncache_state import shared_seen

SID = "sess-1"


@pytest.fixture
def parent(mc_roots):
    data, _ = mc_roots
    path = data / "active" / "p" / "p-context.md"
    path.parent.mkdir(parents=True)
    path.write_text("# P - Context\n\n## Recent Changes\n")
    return path


def test_a_session_that_never_read_the_parent_has_no_change_to_see(parent):
    assert shared_seen.read_mark(SID) is None
    parent.write_text(parent.read_text() + "- later\n")
    assert shared_seen.changed_since_mark(SID, str(parent)) is None


def test_a_change_after_the_stamp_is_seen_and_a_restamp_clears_it(parent, mc_roots):
    _, claude = mc_roots
    assert shared_seen.stamp(SID, 1, "p", str(parent))
    marker = claude / "hooks" / "state" / "shared-seen" / f"{SID}.json"
    assert json.loads(marker.read_text())["parent"] == "p"
    assert shared_seen.seen_text(SID) == parent.read_text()
    assert shared_seen.changed_since_mark(SID, str(parent)) is None
    parent.write_text(parent.read_text() + "- a shared decision\n")
    assert shared_seen.changed_since_mark(SID, str(parent)) == parent.stat().st_mtime_ns
    assert shared_seen.stamp(SID, 1, "p", str(parent))
    assert shared_seen.changed_since_mark(SID, str(parent)) is None


def test_a_write_within_one_clock_tick_is_told_by_its_size(parent):
    shared_seen.stamp(SID, 1, "p", str(parent))
    seen_ns = parent.stat().st_mtime_ns
    parent.write_text(parent.read_text() + "- same tick\n")
    os.utime(parent, ns=(seen_ns, seen_ns))  # a coarse file-system clock
    assert shared_seen.changed_since_mark(SID, str(parent)) == seen_ns


def test_a_mark_of_another_file_or_a_damaged_mark_is_no_mark(parent, mc_roots):
    _, claude = mc_roots
    other = parent.with_name("other-context.md")
    other.write_text("x")
    shared_seen.stamp(SID, 2, "other", str(other))
    parent.write_text("changed\n")
    assert shared_seen.changed_since_mark(SID, str(parent)) is None
    marker = claude / "hooks" / "state" / "shared-seen" / f"{SID}.json"
    for damaged in ('{"context": 1, "mtimeNs": 5}', '{"mtimeNs": true, "context": "x"}', "[]", "{"):
        marker.write_text(damaged)
        assert shared_seen.read_mark(SID) is None


@pytest.mark.parametrize("sid", ["../x", "", "a/b", None, 7, "x" * 200])
def test_hostile_session_ids_write_nothing(parent, mc_roots, sid):
    _, claude = mc_roots
    assert shared_seen.stamp(sid, 1, "p", str(parent)) is False
    assert shared_seen.changed_since_mark(sid, str(parent)) is None
    assert not (claude / "hooks").exists()


def test_an_unreadable_parent_is_not_marked(mc_roots):
    assert shared_seen.stamp(SID, 1, "p", "/nonexistent/p-context.md") is False
    assert shared_seen.read_mark(SID) is None

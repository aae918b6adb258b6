import sqlite3
from pathlib import Path

import pytest

from missioncache_state import bindings, statefile, terminal

HOSTILE = ["../x", "a/b", "x" * 300, "a\x00b", ".", "..", "/etc/passwd", "a\\b", 5, None]


def all_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_binding_round_trip(mc_roots):
    assert bindings.write_session_binding("s1", "demo", 7)
    got = bindings.read_session_binding("s1")
    assert got["projectName"] == "demo"
    assert got["taskId"] == 7
    assert got["sessionId"] == "s1"
    assert bindings.delete_session_binding("s1")
    assert bindings.read_session_binding("s1") is None
    assert not bindings.delete_session_binding("s1")  # nothing left to delete
    assert not bindings.delete_session_binding("../s1")  # never a path from a hostile id


@pytest.mark.parametrize("sid", HOSTILE)
def test_hostile_session_ids_write_nothing(mc_roots, tmp_path, sid):
    assert not bindings.write_session_binding(sid, "demo", 1)
    assert bindings.read_session_binding(sid) is None
    if sid is not None:  # None selects the global state file by design
        assert statefile.save_state("reminders", {"a": 1}, sid) is False
    assert all_files(tmp_path) == []


@pytest.mark.parametrize("content", ["{", "[]", '{"projectName": 3}', '{"taskId": "x"}'])
def test_corrupt_binding_reads_as_absent(mc_roots, content):
    path = Path(bindings.binding_file("s1"))
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert bindings.read_session_binding("s1") is None


def test_legacy_binding_without_task_id(mc_roots):
    path = Path(bindings.binding_file("s1"))
    path.parent.mkdir(parents=True)
    path.write_text('{"projectName": "demo"}')
    got = bindings.read_session_binding("s1")
    assert got["projectName"] == "demo"
    assert got.get("taskId") is None


def test_terminal_session_written_to_file_and_db(mc_roots):
    _, claude = mc_roots
    path = Path(terminal.record_terminal_session({"TERM_SESSION_ID": "w0t0p0:AB-CD"}, "sess-1"))
    assert path == claude / "hooks" / "state" / "term-sessions" / "w0t0p0-AB-CD"
    assert path.read_text() == "sess-1\n"
    conn = sqlite3.connect(claude / "hooks-state.db")
    rows = conn.execute("SELECT term_session_id, session_id FROM term_sessions").fetchall()
    # The row is keyed by the raw id: what a status line finds in its own environment.
    assert rows == [("w0t0p0:AB-CD", "sess-1")]


def test_terminal_session_found_by_the_raw_id_a_status_line_sees(mc_roots):
    _, claude = mc_roots
    raw = "w0t0p0:6E2F1A-77"
    terminal.record_terminal_session({"TERM_SESSION_ID": raw}, "sess-2")
    assert terminal.lookup_terminal_session({"TERM_SESSION_ID": raw}) == "sess-2"
    assert terminal.lookup_terminal_session({"TERM_SESSION_ID": "w0t0p0:other"}) is None
    # Rows written before the fix (sanitised key) and the file alone still answer.
    conn = sqlite3.connect(claude / "hooks-state.db")
    with conn:
        conn.execute("UPDATE term_sessions SET term_session_id = 'w0t0p0-6E2F1A-77'")
    conn.close()
    assert terminal.lookup_terminal_session({"TERM_SESSION_ID": raw}) == "sess-2"
    (claude / "hooks-state.db").unlink()
    assert terminal.lookup_terminal_session({"TERM_SESSION_ID": raw}) == "sess-2"
    assert terminal.lookup_terminal_session({}) is None


@pytest.mark.parametrize(
    ("env", "sid"), [({}, "s1"), ({"TERM_SESSION_ID": ".."}, "s1"), ({"WT_SESSION": "x"}, "../s")]
)
def test_terminal_session_skipped_without_usable_ids(mc_roots, tmp_path, env, sid):
    assert terminal.record_terminal_session(env, sid) is None
    assert all_files(tmp_path) == []


def test_state_files_round_trip(mc_roots):
    assert statefile.save_state("precompact-error", {"error": "x"})
    assert statefile.load_state("precompact-error") == {"error": "x"}
    assert statefile.clear_state("precompact-error")
    assert statefile.load_state("precompact-error") is None
    assert not statefile.clear_state("precompact-error")
    assert not statefile.clear_state("divergence", "../s1")
    with pytest.raises(ValueError):
        statefile.state_path("../evil")


@pytest.mark.parametrize("suffix", ["", "-journal", "-wal", "-shm"])
def test_symlinked_hooks_state_db_is_refused(mc_roots, tmp_path, suffix):
    """Regression (reliability suite): SQLite follows a symlink planted at hooks-state.db
    and wrote our row into the user's database it pointed at."""
    _, claude = mc_roots
    victim = tmp_path / "victim.db"
    conn = sqlite3.connect(victim)
    with conn:
        conn.execute("CREATE TABLE notes(x)")
    conn.close()
    before = victim.read_bytes()
    claude.mkdir(parents=True)
    (claude / f"hooks-state.db{suffix}").symlink_to(victim)
    with pytest.raises(OSError):
        terminal.record_terminal_session({"TERM_SESSION_ID": "tab"}, "sess-1")
    assert victim.read_bytes() == before
    # the plain-text map is still written: it needs no SQLite
    assert (claude / "hooks" / "state" / "term-sessions" / "tab").read_text() == "sess-1\n"


def test_precompact_failure_is_taken_once(mc_roots):
    from missioncache_state import precompact_failure as failure

    assert failure.take_failure() is None
    failure.record_failure("demo", 3, "LockTimeout:\n  busy", "s1", "2026-01-02 03:04")
    assert failure.take_failure() == {
        "task": "demo",
        "time": "2026-01-02 03:04",
        "error": "LockTimeout: busy",
        "saved": "",
    }
    assert failure.take_failure() is None
    failure.record_failure("demo", 3, "kept at /k", "s1", "t", saved=True)
    assert failure.take_failure()["saved"] == "yes"


def test_unreadable_precompact_failure_is_still_reported_once(mc_roots):
    from missioncache_state import precompact_failure as failure

    path = Path(statefile.state_path(failure.KIND))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert failure.take_failure() == {
        "task": "",
        "time": "",
        "error": statefile.UNREADABLE,
        "saved": "",
    }
    assert not path.exists()
    assert failure.take_failure() is None


def test_summary_failure_is_taken_once(mc_roots):
    from missioncache_state import summary_failure as failure

    assert failure.take_summary_note() is None
    assert failure.record_summary_failure("demo", "disk\n full", "2026-01-02 03:04")
    assert failure.take_summary_note() == failure.summary_note(
        "demo", "disk full", "2026-01-02 03:04"
    )
    assert failure.take_summary_note() is None


def test_unreadable_summary_failure_is_still_reported_once(mc_roots):
    """Regression: a damaged record was neither reported nor cleared, so the user never
    heard that a compaction summary was lost."""
    from missioncache_state import summary_failure as failure

    path = Path(statefile.state_path(failure.KIND))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert failure.take_summary_note() == failure.summary_note("?", statefile.UNREADABLE)
    assert not path.exists()
    assert failure.take_summary_note() is None

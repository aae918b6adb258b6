import os
import subprocess
import sys
import textwrap

import pytest

from missioncache_context import (
    NotUtf8Error,
    add_recent_change,
    read_file,
    recent_changes,
    set_stamp,
    update_file,
)
from missioncache_state.lock import FileLock, LockTimeout


def test_update_writes_only_when_the_text_changes(tmp_path):
    path = tmp_path / "p-context.md"
    path.write_bytes(b"# T\r\n\r\n**Last Updated:** old\r\n")
    os.chmod(path, 0o600)
    result = update_file(path, lambda text: set_stamp(text, "new"))
    assert result.changed and result.before.endswith("old\r\n") and result.after.endswith("new\r\n")
    assert path.read_bytes() == b"# T\r\n\r\n**Last Updated:** new\r\n"
    assert os.stat(path).st_mode & 0o777 == 0o600
    before = os.stat(path).st_mtime_ns, os.stat(path).st_ino
    again = update_file(path, lambda text: set_stamp(text, "new"))
    assert not again.changed
    assert (os.stat(path).st_mtime_ns, os.stat(path).st_ino) == before


def test_bom_is_stripped_for_the_transform_and_restored(tmp_path):
    path = tmp_path / "c.md"
    path.write_bytes(b"\xef\xbb\xbf# T\n")
    seen = []

    def transform(text):
        seen.append(text)
        return text + "more\n"

    update_file(path, transform)
    assert seen == ["# T\n"]
    assert path.read_bytes() == b"\xef\xbb\xbf# T\nmore\n"
    assert read_file(path) == "# T\nmore\n"


def test_not_utf8_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "c.md"
    original = b"# T\n\xff\xfe latin-1 \xe9\n"
    path.write_bytes(original)
    called = []
    with pytest.raises(NotUtf8Error) as caught:
        update_file(path, lambda text: called.append(text) or "x")
    assert caught.value.position == 4 and caught.value.path.name == "c.md"
    assert isinstance(caught.value, ValueError)
    assert called == []
    assert path.read_bytes() == original
    with pytest.raises(NotUtf8Error):
        read_file(path)


def test_missing_file_is_not_created(tmp_path):
    path = tmp_path / "nowhere" / "c.md"
    with pytest.raises(FileNotFoundError):
        update_file(path, lambda text: text + "x")
    assert not path.parent.exists()


def test_a_failing_transform_writes_nothing(tmp_path):
    path = tmp_path / "c.md"
    path.write_text("keep\n")

    def boom(text):
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        update_file(path, boom)
    with pytest.raises(TypeError):
        update_file(path, lambda text: None)
    assert path.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.md"]  # no .lock left behind


def test_symlinked_file_is_updated_through_the_link(tmp_path):
    real = tmp_path / "notes" / "c.md"
    real.parent.mkdir()
    real.write_text("a\n")
    link = tmp_path / "c.md"
    link.symlink_to(real)
    result = update_file(link, lambda text: text + "b\n")
    assert link.is_symlink()
    assert real.read_text() == "a\nb\n"
    assert result.path == real


def test_update_waits_for_the_lock_and_times_out(tmp_path):
    path = tmp_path / "c.md"
    path.write_text("x\n")
    with FileLock(path, timeout=1), pytest.raises(LockTimeout):
        update_file(path, lambda text: text + "y\n", timeout=0.1)
    assert path.read_text() == "x\n"


WORKER = textwrap.dedent(
    """
    import sys
    from missioncache_context import add_recent_change, update_file
    path, tag = sys.argv[1], sys.argv[2]
    for n in range(200):
        marker = f"- marker {tag}-{n:03d}"
        update_file(path, lambda text: add_recent_change(text, [marker], when="2026-01-01 10:00"),
                    timeout=60)
    """
)


def test_two_processes_never_lose_each_others_entries(tmp_path):
    path = tmp_path / "p-context.md"
    path.write_bytes(b"# P - Context\r\n\r\n## Recent Changes\r\n\r\n## Next Steps\r\n- keep\r\n")
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(path), tag]) for tag in ("a", "b")
    ]
    for worker in workers:
        assert worker.wait(timeout=240) == 0
    text = path.read_bytes().decode("utf-8")
    entries = recent_changes(text)
    assert len(entries) == 400
    markers = {entry.splitlines()[1] for entry in entries}
    assert markers == {f"- marker {tag}-{n:03d}" for tag in "ab" for n in range(200)}
    assert text.endswith("## Next Steps\r\n- keep\r\n")
    assert "\n" not in text.replace("\r\n", "")
    # each writer's own entries stay newest first
    for tag in "ab":
        mine = [m for m in (e.splitlines()[1] for e in entries) if m.startswith(f"- marker {tag}")]
        assert mine == sorted(mine, reverse=True)


def test_add_recent_change_through_update_file_keeps_crlf(tmp_path):
    path = tmp_path / "c.md"
    path.write_bytes(b"# T\r\ntext")
    update_file(path, lambda text: add_recent_change(text, "- x", when="D"))
    assert path.read_bytes() == b"# T\r\ntext\r\n\r\n## Recent Changes\r\n\r\n### D\r\n- x"


def test_a_save_landing_during_the_transform_is_kept(tmp_path):
    """Regression (reliability suite): an editor that saves without our lock by truncating
    and rewriting in place. PreCompact read the truncated (empty) file, and wrote back just
    its entry: the user's whole context file was gone. Now the bytes are re-read before
    the replace and the update starts over from the user's save."""
    path = tmp_path / "p-context.md"
    path.write_text("", encoding="utf-8")  # the editor has truncated, not yet written
    calls = []

    def transform(text):
        calls.append(text)
        if len(calls) == 1:  # the editor's write completes while we transform
            path.write_text("# P - Context\n\nuser notes\n", encoding="utf-8")
        return text + "- entry\n"

    result = update_file(path, transform)
    assert calls == ["", "# P - Context\n\nuser notes\n"]
    assert path.read_text(encoding="utf-8") == "# P - Context\n\nuser notes\n- entry\n"
    assert result.changed and result.before == "# P - Context\n\nuser notes\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_file_that_never_stops_changing_is_left_alone(tmp_path):
    from missioncache_context import FileChangedError

    path = tmp_path / "p-context.md"
    path.write_text("v0\n", encoding="utf-8")
    count = [0]

    def transform(text):
        count[0] += 1
        path.write_text(f"user save {count[0]}\n", encoding="utf-8")
        return text + "- entry\n"

    with pytest.raises(FileChangedError):
        update_file(path, transform)
    assert path.read_text(encoding="utf-8") == f"user save {count[0]}\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_read_caught_mid_save_is_not_written_back(tmp_path):
    """An editor saving in place truncates the file, then writes it back; if it is paused
    in between, an immediate re-read sees the same empty file. The update must wait for
    the save instead of replacing the file with its own entry alone. The editor finishes
    its save once the update holds the lock, so the update really starts mid-save."""
    import threading
    import time

    from missioncache_context import record_change, update_file

    path = tmp_path / "ctx.md"
    original = "# Demo - Context\n\n**Last Updated:** 2026-01-01 00:00\n\nprecious notes\n"
    editor = open(path, "w", encoding="utf-8")  # noqa: SIM115 - truncated, held open
    saved = threading.Event()

    def finish_save():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the update has taken the lock
            try:
                with FileLock(path, timeout=0):
                    pass
            except LockTimeout:
                break
            time.sleep(0.001)
        editor.write(original)
        editor.close()
        saved.set()

    threading.Thread(target=finish_save).start()
    update_file(path, lambda text: record_change(text, ["- entry"], when="2026-01-02 03:04"))
    assert saved.wait(5)
    text = path.read_text(encoding="utf-8")
    assert "precious notes" in text
    assert "- entry" in text

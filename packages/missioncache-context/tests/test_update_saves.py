"""Issue 12, items 1, 2 and 6: a half-written save is never written back, every rewrite
keeps the version it replaced, paths that are not regular files are left alone, and a
killed writer's leftovers are cleaned up."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from missioncache_context import record_change, update_file
from missioncache_context.reading import NotUtf8Error, read_ends, read_file, read_head
from missioncache_context.update import QUIET_SECONDS
from missioncache_state.files import NotRegularFileError
from missioncache_state.history import KEEP, history_dir, versions

ORIGINAL = "# Demo - Context\n\n**Last Updated:** 2026-01-01 00:00\n\n" + "".join(
    f"- precious note {n}\n" for n in range(200)
)


def _entry(text: str) -> str:
    return record_change(text, ["- entry"], when="2026-01-02 03:04")


def _backdate(path, seconds: float = 60.0) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_save_paused_between_its_writes_is_not_lost(tmp_path):
    """Regression: an editor saving in place writes the first half, pauses, writes the
    rest. The update read the half (not empty, so the old settle did not wait), saw the
    same half again right before the replace, and replaced the file: the editor's second
    write went to the unlinked old file and the rest of the notes were gone."""
    path = tmp_path / "ctx.md"
    data = ORIGINAL.encode()
    editor = open(path, "wb")  # noqa: SIM115 - an in-place save, held open across its pause
    editor.write(data[: len(data) // 2])
    editor.flush()

    def finish_save():
        time.sleep(0.3)
        editor.write(data[len(data) // 2 :])
        editor.close()

    thread = threading.Thread(target=finish_save)
    thread.start()
    update_file(path, _entry)
    thread.join()
    text = path.read_text(encoding="utf-8")
    assert "- precious note 199\n" in text, "the second half of the user's save was lost"
    assert "- entry" in text


def test_a_file_at_rest_is_updated_without_waiting(tmp_path):
    path = tmp_path / "ctx.md"
    path.write_text(ORIGINAL, encoding="utf-8")
    _backdate(path)
    started = time.monotonic()
    update_file(path, _entry)
    assert time.monotonic() - started < QUIET_SECONDS / 2
    # our own write is not mistaken for an editor's: the next update does not wait either
    started = time.monotonic()
    update_file(path, lambda text: text + "- more\n")
    assert time.monotonic() - started < QUIET_SECONDS / 2


def test_a_fresh_save_is_waited_for(tmp_path):
    path = tmp_path / "ctx.md"
    path.write_text(ORIGINAL, encoding="utf-8")
    started = time.monotonic()
    update_file(path, _entry)
    assert time.monotonic() - started >= QUIET_SECONDS * 0.9


def test_a_save_reaching_the_replaced_file_is_put_back(tmp_path, monkeypatch):
    """A save that opened the file just before our replace and writes after it would go
    to the replaced file. It is noticed, kept in the history and put back, and the
    update starts over from it."""
    import missioncache_state.atomic as atomic

    path = tmp_path / "ctx.md"
    path.write_text(ORIGINAL, encoding="utf-8")
    _backdate(path)
    real_replace = os.replace
    late = []

    def replace_with_a_late_save(src, dst):
        if not late and os.fspath(dst) == os.path.realpath(path):
            late.append(open(path, "w", encoding="utf-8"))  # noqa: SIM115 - editor's handle
            real_replace(src, dst)
            late[0].write(ORIGINAL + "- saved just in time\n")
            late[0].close()
            return
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace_with_a_late_save)
    update_file(path, _entry)
    text = path.read_text(encoding="utf-8")
    assert "- saved just in time\n" in text and "- entry" in text
    assert any(b"saved just in time" in Path(v).read_bytes() for v in versions(path))


def test_a_diverted_save_that_cannot_be_put_back_is_kept_and_reported(tmp_path, monkeypatch):
    """The editor saved again on top of our version before the late save could be put
    back: the late save is kept in the history and the update says where."""
    import missioncache_state.atomic as atomic
    from missioncache_context import SaveDivertedError

    path = tmp_path / "ctx.md"
    path.write_text(ORIGINAL, encoding="utf-8")
    _backdate(path)
    real_replace = os.replace

    def replace_then_two_saves(src, dst):
        if os.fspath(dst) != os.path.realpath(path) or os.fspath(src).endswith("-x"):
            return real_replace(src, dst)
        late = open(path, "w", encoding="utf-8")  # noqa: SIM115 - the editor's handle
        real_replace(src, dst)
        late.write(ORIGINAL + "- diverted save\n")
        late.close()
        path.write_text(ORIGINAL + "- next save\n", encoding="utf-8")
        return None

    monkeypatch.setattr(atomic.os, "replace", replace_then_two_saves)
    with pytest.raises(SaveDivertedError) as caught:
        update_file(path, _entry)
    assert caught.value.copy in versions(path)
    assert Path(caught.value.copy).read_text(encoding="utf-8").endswith("- diverted save\n")
    assert caught.value.copy in str(caught.value)


def test_every_rewrite_keeps_the_replaced_version_bounded(tmp_path):
    path = tmp_path / "demo-context.md"
    path.write_text("v0\n", encoding="utf-8")
    _backdate(path)
    for n in range(1, KEEP + 4):
        update_file(path, lambda text, n=n: f"v{n}\n")
    kept = versions(path)
    assert len(kept) == KEEP
    assert [Path(v).read_text(encoding="utf-8") for v in kept] == [
        f"v{n}\n" for n in range(KEEP + 2, 2, -1)
    ]
    assert all(v.endswith(".md") for v in kept)
    assert os.path.dirname(kept[0]) == history_dir(path)
    assert history_dir(path).startswith(str(tmp_path / ".missioncache-history"))
    # unchanged text: nothing written, nothing kept
    update_file(path, lambda text: text)
    assert versions(path) == kept


def test_history_is_not_written_through_a_planted_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    task = tmp_path / "task"
    task.mkdir()
    (task / ".missioncache-history").symlink_to(outside)
    path = task / "c.md"
    path.write_text("a\n", encoding="utf-8")
    _backdate(path)
    update_file(path, lambda text: text + "b\n")
    assert path.read_text(encoding="utf-8") == "a\nb\n"
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("kind", ["fifo", "directory", "link-to-fifo", "dev-zero"])
def test_a_path_that_is_not_a_regular_file_is_never_read_or_replaced(tmp_path, kind):
    """Regression: a FIFO made every read block for the hook's whole timeout, /dev/zero
    was read until memory ran out, and a device node was replaced by a regular file."""
    path = tmp_path / "c.md"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "link-to-fifo":
        os.mkfifo(tmp_path / "pipe")
        path.symlink_to(tmp_path / "pipe")
    else:
        path.symlink_to("/dev/zero")
    before = os.stat(path)
    started = time.monotonic()
    for call in (read_file, read_head, read_ends, lambda p: update_file(p, lambda t: t + "x")):
        with pytest.raises(NotRegularFileError):
            call(path)
    assert time.monotonic() - started < 2
    after = os.stat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_head_read_stops_at_the_limit_on_a_whole_line(tmp_path):
    path = tmp_path / "c.md"
    path.write_text("first line\nsecond é line\nthird\n", encoding="utf-8")
    assert read_head(path, 1000) == "first line\nsecond é line\nthird\n"
    assert read_head(path, 20) == "first line\n"  # cut inside "é": no half character
    path.write_text("é" * 20, encoding="utf-8")  # no line end at all within the limit
    assert read_head(path, 7) == "ééé"  # whole characters, not an empty digest


def test_head_read_without_a_line_end_still_refuses_a_file_that_is_not_utf8(tmp_path):
    """Regression: cutting a head that has no line end dropped every invalid byte, so a
    file that is not UTF-8 was shown as text where read_file refuses it."""
    path = tmp_path / "c.md"
    path.write_bytes(b"abc\xff" + "é".encode() * 20)
    with pytest.raises(NotUtf8Error):
        read_head(path, 8)


def test_a_retried_update_keeps_one_copy_of_the_same_version(tmp_path):
    """keep_version is called once per attempt; a retry after a raced save must not push
    genuinely older versions out with copies of the same bytes."""
    from missioncache_state.history import keep_version

    path = tmp_path / "demo-context.md"
    path.write_text("v1\n", encoding="utf-8")
    first = keep_version(path, b"v0\n")
    assert keep_version(path, b"v0\n") == first
    assert len(versions(path)) == 1
    keep_version(path, b"v0 changed\n")
    assert len(versions(path)) == 2


def test_a_killed_writers_temp_file_and_the_lock_sidecar_are_cleaned_up(tmp_path):
    path = tmp_path / "demo-context.md"
    path.write_text("a\n", encoding="utf-8")
    _backdate(path)
    stale = tmp_path / ".demo-context.md.0123456789ab.tmp"
    stale.write_text("half", encoding="utf-8")
    _backdate(stale, 3600)
    fresh = tmp_path / ".demo-context.md.ba9876543210.tmp"  # a live writer's, maybe
    fresh.write_text("half", encoding="utf-8")
    users = tmp_path / ".demo-context.md.swp"
    users.write_text("editor", encoding="utf-8")
    update_file(path, lambda text: text + "b\n")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        ".demo-context.md.ba9876543210.tmp",
        ".demo-context.md.swp",
        ".missioncache-history",
        "demo-context.md",
    ]


def test_a_file_over_the_size_bound_is_refused_whole_and_left_alone(tmp_path, monkeypatch):
    """A notes file larger than MAX_EDIT_BYTES is neither read into memory nor rewritten
    from a part of it; one exactly at the bound is still a notes file."""
    from missioncache_context import reading
    from missioncache_state.files import FileTooLargeError

    monkeypatch.setattr(reading, "MAX_EDIT_BYTES", 10)
    path = tmp_path / "c.md"
    path.write_bytes(b"0123456789")
    _backdate(path)
    assert read_file(path) == "0123456789"
    path.write_bytes(b"0123456789\n")
    _backdate(path)
    for call in (read_file, lambda p: update_file(p, lambda text: "short\n")):
        with pytest.raises(FileTooLargeError):
            call(path)
    assert path.read_bytes() == b"0123456789\n"
    assert versions(path) == []

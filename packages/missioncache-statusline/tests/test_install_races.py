"""Issue 20, defects 1 and 2: ``statusline install``/``uninstall`` beside other programs
that save settings.json (Claude Code granting a permission, an editor) without our lock.

Regressions: a key saved between install's read and its replace was lost (10 of 10), and an
editor's half-save (truncate, pause, write the rest) was read as ``{}``, so install wrote
only ``statusLine`` and its backup held the empty file ("uninstall restores exactly" then
restored nothing). The window is forced in-process: the other program saves while install
writes its launcher, which both the old and the new code do between read and replace."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from missioncache_statusline import install as installer

ORIGINAL = {"permissions": {"allow": ["Bash(ls:*)"]}, "model": "opus"}


@pytest.fixture
def settings(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "mc"))
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(ORIGINAL, indent=2))
    old = time.time() - 60  # saved a minute ago: settled
    os.utime(path, (old, old))
    return path


def _someone_saves_during_the_replace(monkeypatch, path, key, value):
    """The other program saves ``key`` (a read-modify-write of its own) exactly once, just
    as MissionCache is about to replace settings.json: after MissionCache read it, before
    the new version lands."""
    from missioncache_state import atomic

    real = atomic.atomic_write_bytes
    saved = []

    def write_after_a_concurrent_save(target, data, **kwargs):
        if not saved and os.path.realpath(target) == os.path.realpath(path):
            current = json.loads(path.read_text())
            current[key] = value
            path.write_text(json.dumps(current, indent=2))
            saved.append(key)
        return real(target, data, **kwargs)

    monkeypatch.setattr(atomic, "atomic_write_bytes", write_after_a_concurrent_save)
    monkeypatch.setattr(installer, "atomic_write_bytes", write_after_a_concurrent_save)
    return saved


def test_a_key_saved_while_install_works_is_kept(settings, monkeypatch, mc_plugin):
    saved = _someone_saves_during_the_replace(monkeypatch, settings, "theme", "dark")
    assert "installed" in installer.install(plugin_root=str(mc_plugin))
    assert saved == ["theme"]
    after = json.loads(settings.read_text())
    assert after["theme"] == "dark" and after["permissions"] == ORIGINAL["permissions"]
    assert installer.is_ours(after["statusLine"])
    # the backup is of the file actually replaced, so an exact uninstall keeps the key too
    assert "exactly" in installer.uninstall()
    assert json.loads(settings.read_text()) == {**ORIGINAL, "theme": "dark"}


def test_a_key_saved_while_uninstall_works_is_kept(settings, monkeypatch, mc_plugin):
    installer.install(plugin_root=str(mc_plugin))
    saved = _someone_saves_during_the_replace(monkeypatch, settings, "includeCoAuthoredBy", False)
    installer.uninstall()
    assert saved
    assert json.loads(settings.read_text()) == {**ORIGINAL, "includeCoAuthoredBy": False}


def test_a_key_saved_while_uninstalling_without_a_record_is_kept(settings, monkeypatch, mc_plugin):
    installer.install(plugin_root=str(mc_plugin))
    os.unlink(installer.record_path())
    saved = _someone_saves_during_the_replace(monkeypatch, settings, "model", "sonnet")
    assert "removed" in installer.uninstall()
    assert saved
    assert json.loads(settings.read_text()) == {**ORIGINAL, "model": "sonnet"}


def _editor_half_save(path, content: bytes, pause: float, started: threading.Event):
    """An editor saving in place: truncate, pause, then write the rest."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.flush()
        started.set()
        time.sleep(pause)
        handle.write(content)


def test_an_editor_half_save_is_waited_for_not_taken_as_empty(settings, mc_plugin):
    edited = {**ORIGINAL, "env": {"EDITOR": "vim"}}
    content = json.dumps(edited, indent=2).encode()
    started = threading.Event()
    editor = threading.Thread(target=_editor_half_save, args=(settings, content, 0.3, started))
    editor.start()
    started.wait()
    try:
        installer.install(plugin_root=str(mc_plugin))
    finally:
        editor.join()
    after = json.loads(settings.read_text())
    assert {k: v for k, v in after.items() if k != "statusLine"} == edited
    backup = settings.parent / ("settings.json" + installer.BACKUP_SUFFIX)
    assert json.loads(backup.read_bytes()) == edited
    assert "exactly" in installer.uninstall()
    assert settings.read_bytes() == content


def test_a_file_that_stays_half_saved_is_refused_unchanged(settings, monkeypatch, mc_plugin):
    """An editor that keeps the file empty and fresh (it crashed mid-save, or is very slow)
    longer than the settle limit: install refuses with a message, nothing written."""
    from missioncache_state import settings_file

    monkeypatch.setattr(settings_file, "SETTLE_LIMIT", 0.3)
    monkeypatch.setattr(settings_file, "QUIET_SECONDS", 30.0)
    settings.write_bytes(b"")
    with pytest.raises(installer.InstallError, match="nothing was changed"):
        installer.install(plugin_root=str(mc_plugin))
    assert settings.read_bytes() == b""
    assert not os.path.exists(installer.record_path())
    assert not (settings.parent / ("settings.json" + installer.BACKUP_SUFFIX)).exists()


def test_a_file_empty_for_a_while_is_still_taken_as_empty(settings, mc_plugin):
    settings.write_bytes(b"")
    old = time.time() - 60
    os.utime(settings, (old, old))
    installer.install(plugin_root=str(mc_plugin))
    assert list(json.loads(settings.read_text())) == ["statusLine"]
    assert "exactly" in installer.uninstall()
    assert settings.read_bytes() == b""

"""``missioncache_state.settings_file``: the one way MissionCache edits settings.json (the
status line installer uses it; so will any other installer, e.g. of http hooks)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from missioncache_state import atomic, settings_file

BEFORE = {"permissions": {"allow": ["Read"]}, "hooks": {}}


@pytest.fixture
def path(tmp_path):
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(BEFORE))
    old = time.time() - 60
    os.utime(settings, (old, old))
    return settings


def _add_hook(snapshot):
    updated = dict(snapshot.value)
    updated["hooks"] = {**updated.get("hooks", {}), "Stop": [{"ours": True}]}
    return updated


def _without_hook(settings):
    hooks = {k: v for k, v in settings.get("hooks", {}).items() if k != "Stop"}
    return {**settings, "hooks": hooks}


def test_install_then_uninstall_is_exact(path, tmp_path):
    original = path.read_bytes()
    record_path = str(tmp_path / "record.json")
    settings_file.install_edit(
        str(path), _add_hook, record_path=record_path, details=lambda s: {"n": 1}
    )
    assert json.loads(path.read_text())["hooks"]["Stop"] == [{"ours": True}]
    record = json.loads(Path(record_path).read_text())
    assert record["n"] == 1 and record["had_file"] is True
    assert settings_file.uninstall_edit(str(path), record, _without_hook) == settings_file.EXACT
    assert path.read_bytes() == original
    assert not os.path.exists(record["backup"])


def test_uninstall_after_an_edit_keeps_the_edit(path, tmp_path):
    record_path = str(tmp_path / "record.json")
    settings_file.install_edit(str(path), _add_hook, record_path=record_path)
    edited = {**json.loads(path.read_text()), "model": "opus"}
    path.write_text(json.dumps(edited))
    record = json.loads(Path(record_path).read_text())
    assert settings_file.uninstall_edit(str(path), record, _without_hook) == settings_file.EDITED
    assert json.loads(path.read_text()) == {**BEFORE, "model": "opus"}


def test_install_into_no_file_is_undone_by_removing_it(tmp_path):
    path = tmp_path / "settings.json"
    record_path = str(tmp_path / "record.json")
    settings_file.install_edit(str(path), _add_hook, record_path=record_path)
    record = json.loads(Path(record_path).read_text())
    assert settings_file.uninstall_edit(str(path), record, _without_hook) == settings_file.REMOVED
    assert not path.exists()


def test_a_save_that_reaches_the_replaced_file_is_put_back_and_edited(path, monkeypatch):
    """An editor opened settings.json just before our replace and writes into it after:
    its save is put back and our edit redone on top of it, nothing lost."""
    late = {**BEFORE, "theme": "light"}
    real = atomic.atomic_write_bytes
    handles = []

    def replace_while_an_editor_holds_it(target, data, **kwargs):
        if not handles and os.path.realpath(target) == os.path.realpath(path):
            handles.append(open(path, "r+b"))  # noqa: SIM115 (the editor opens the current version)
            done = real(target, data, **kwargs)
            editor = handles[0]
            editor.truncate(0)
            editor.write(json.dumps(late).encode())
            editor.flush()
            old = time.time() - 60  # and has long finished (no settle wait)
            os.utime(editor.fileno(), (old, old))
            return done
        return real(target, data, **kwargs)

    monkeypatch.setattr(atomic, "atomic_write_bytes", replace_while_an_editor_holds_it)
    try:
        settings_file.edit_settings(str(path), _add_hook)
    finally:
        for handle in handles:
            handle.close()
    after = json.loads(path.read_text())
    assert after["theme"] == "light" and after["hooks"]["Stop"] == [{"ours": True}]


def test_a_transform_that_refuses_changes_nothing(path):
    before = path.read_bytes()

    def refuse(snapshot):
        raise settings_file.SettingsError("no")

    with pytest.raises(settings_file.SettingsError):
        settings_file.edit_settings(str(path), refuse)
    assert path.read_bytes() == before


def test_a_file_that_keeps_changing_is_left_alone(path, monkeypatch):
    """Another program saves on every one of our attempts: refused, its last save kept."""
    real = atomic.atomic_write_bytes
    count = []

    def always_someone_first(target, data, **kwargs):
        if os.path.realpath(target) == os.path.realpath(path):
            count.append(1)
            path.write_text(json.dumps({**BEFORE, "n": len(count)}))
        return real(target, data, **kwargs)

    monkeypatch.setattr(atomic, "atomic_write_bytes", always_someone_first)
    with pytest.raises(settings_file.SettingsError, match="kept changing"):
        settings_file.edit_settings(str(path), _add_hook)
    assert json.loads(path.read_text()) == {**BEFORE, "n": settings_file.ATTEMPTS}

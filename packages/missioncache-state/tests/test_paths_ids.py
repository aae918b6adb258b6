from pathlib import Path

import pytest

from missioncache_state import ids, locations


def test_overrides_are_read_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "a"))
    assert locations.data_root() == str(tmp_path / "a")
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "b"))
    assert locations.tasks_db_path() == str(tmp_path / "b" / "tasks.db")


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_empty_or_relative_override_falls_back_to_home(monkeypatch, tmp_path, value):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MISSIONCACHE_ROOT", value)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", value)
    assert locations.data_root() == str(Path(tmp_path) / ".missioncache")
    assert locations.claude_dir() == str(Path(tmp_path) / ".claude")
    assert locations.projects_dir() == str(
        Path(tmp_path) / ".claude" / "hooks" / "state" / "projects"
    )


@pytest.mark.parametrize(
    "good", ["abc", "0f8b6c1e-7d4e-4a4f-9d55-0f4e6b0c2a11", "A_b-c", "x" * 128]
)
def test_valid_session_ids(good):
    assert ids.session_id_or_none(good) == good


@pytest.mark.parametrize(
    "bad",
    [
        "",
        ".",
        "..",
        "../x",
        "a/b",
        "a\\b",
        "x" * 129,
        "a\x00b",
        "-lead",
        "_lead",
        "a b",
        "é",
        None,
        7,
        ["a"],
        "abc\n",
    ],
)
def test_invalid_session_ids_are_absent(bad):
    assert ids.session_id_or_none(bad) is None


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("w0t1p0:6F1C-AB", "w0t1p0-6F1C-AB"),
        ("../../etc/passwd", "..-..-etc-passwd"),
        ("a/b\\c\x00d", "a-b-c-d"),
        ("x" * 300, "x" * 128),
        (".", None),
        ("..", None),
        ("", None),
        (None, None),
    ],
)
def test_terminal_file_names(raw, name):
    assert ids.terminal_file_name(raw) == name


def test_terminal_id_prefers_iterm_then_windows_terminal():
    assert ids.terminal_id_from_env({"TERM_SESSION_ID": "t", "WT_SESSION": "w"}) == "t"
    assert ids.terminal_id_from_env({"WT_SESSION": "w"}) == "w"
    assert ids.terminal_id_from_env({}) is None


def test_is_within(tmp_path):
    assert locations.is_within(tmp_path / "a" / "b", tmp_path)
    assert locations.is_within(str(tmp_path), str(tmp_path))
    assert not locations.is_within(tmp_path / ".." / "x", tmp_path)
    assert not locations.is_within(str(tmp_path) + "-sibling", tmp_path)  # not a prefix test
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "out").symlink_to(tmp_path.parent)
    assert not locations.is_within(tmp_path / "inside" / "out" / "x", tmp_path)

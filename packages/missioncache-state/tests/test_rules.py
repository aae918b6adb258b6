"""Issue 12 item 8: the rules file an earlier version installed is removed, and only it.

Claude Code loads ``<claude>/rules/*.md`` into every session of every project, even after
the plugin is uninstalled; MissionCache now installs nothing there and cleans up."""

import os
import threading
from pathlib import Path

import pytest

from missioncache_state import locations
from missioncache_state.rules import MARKER, remove_legacy_rules


def rules_dir() -> Path:
    return Path(locations.rules_dir())


MANAGED = MARKER + b" -- installed by the MissionCache plugin -->\n# MissionCache task tracking\n"


@pytest.fixture
def rules(mc_roots):
    rules_dir().mkdir(parents=True)
    return rules_dir()


def test_the_managed_file_an_earlier_version_installed_is_removed(rules):
    (rules / "missioncache.md").write_bytes(MANAGED)
    assert remove_legacy_rules() == ["missioncache.md"]
    assert not (rules / "missioncache.md").exists()
    assert remove_legacy_rules() == []  # nothing left to do, nothing raised


def test_a_file_the_user_took_over_is_kept(rules):
    (rules / "missioncache.md").write_bytes(b"# my own rules\n" + MANAGED)
    assert remove_legacy_rules() == []
    assert (rules / "missioncache.md").read_bytes() == b"# my own rules\n" + MANAGED


def test_other_rule_files_are_never_touched_even_with_the_marker(rules):
    (rules / "other.md").write_bytes(MANAGED)
    assert remove_legacy_rules() == []
    assert (rules / "other.md").read_bytes() == MANAGED


def test_a_legacy_symlink_goes_but_its_target_stays(rules, tmp_path):
    target = tmp_path / "old-plugin" / "rules" / "missioncache.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(MANAGED)
    os.symlink(target, rules / "missioncache.md")
    assert remove_legacy_rules() == ["missioncache.md"]
    assert not os.path.lexists(rules / "missioncache.md")
    assert target.read_bytes() == MANAGED


def test_a_symlink_to_a_user_file_or_nowhere_is_kept(rules, tmp_path):
    mine = tmp_path / "mine.md"
    mine.write_bytes(b"# mine\n")
    os.symlink(mine, rules / "missioncache.md")
    assert remove_legacy_rules() == []
    assert os.path.islink(rules / "missioncache.md")
    os.unlink(rules / "missioncache.md")
    os.symlink(tmp_path / "gone.md", rules / "missioncache.md")
    assert remove_legacy_rules() == []
    assert os.path.islink(rules / "missioncache.md")


def test_a_directory_or_fifo_is_left_alone_without_blocking(rules):
    os.mkfifo(rules / "missioncache.md")
    done = []
    worker = threading.Thread(target=lambda: done.append(remove_legacy_rules()), daemon=True)
    worker.start()
    worker.join(5)
    assert done == [[]], "a FIFO named like the rules file made the cleanup block"
    os.unlink(rules / "missioncache.md")
    (rules / "missioncache.md").mkdir()
    assert remove_legacy_rules() == []
    assert (rules / "missioncache.md").is_dir()


def test_no_rules_directory_removes_nothing(mc_roots):
    assert remove_legacy_rules() == []
    assert not rules_dir().exists()  # and creates nothing

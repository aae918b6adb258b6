import os
from pathlib import Path

import pytest

from missioncache_state import locations
from missioncache_state.rules import MARKER, install_bundled_rules


def rules_dir() -> Path:
    return Path(locations.rules_dir())


MANAGED = MARKER + b" -- installed by the plugin -->\n# Rule\n"


@pytest.fixture
def source(tmp_path, roots):
    src = tmp_path / "plugin" / "rules"
    src.mkdir(parents=True)
    return src


def test_installs_managed_files_into_the_claude_rules_dir(source):
    (source / "a.md").write_bytes(MANAGED)
    (source / "b.md").write_bytes(MANAGED + b"b\n")
    assert install_bundled_rules(source) == ["a.md", "b.md"]
    assert (rules_dir() / "a.md").read_bytes() == MANAGED
    assert (rules_dir() / "b.md").read_bytes() == MANAGED + b"b\n"


def test_unmanaged_sources_and_other_files_are_not_installed(source):
    (source / "plain.md").write_bytes(b"# no marker\n")
    (source / "notes.txt").write_bytes(MANAGED)
    (source / "dir.md").mkdir()
    assert install_bundled_rules(source) == []
    assert not rules_dir().exists() or os.listdir(rules_dir()) == []


def test_user_owned_destination_is_never_touched(source):
    (source / "a.md").write_bytes(MANAGED + b"new\n")
    rules_dir().mkdir(parents=True)
    (rules_dir() / "a.md").write_bytes(b"# my own edits\n")
    assert install_bundled_rules(source) == []
    assert (rules_dir() / "a.md").read_bytes() == b"# my own edits\n"


def test_managed_destination_is_updated_and_identical_one_left_alone(source):
    (source / "a.md").write_bytes(MANAGED + b"v2\n")
    (source / "b.md").write_bytes(MANAGED)
    rules_dir().mkdir(parents=True)
    (rules_dir() / "a.md").write_bytes(MANAGED + b"v1\n")
    (rules_dir() / "b.md").write_bytes(MANAGED)
    before = os.stat(rules_dir() / "b.md")
    assert install_bundled_rules(source) == ["a.md"]
    assert (rules_dir() / "a.md").read_bytes() == MANAGED + b"v2\n"
    after = os.stat(rules_dir() / "b.md")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize("target_content", [b"# user file, no marker\n", MANAGED + b"old\n"])
def test_symlinked_destination_is_replaced_and_its_target_untouched(
    source, tmp_path, target_content
):
    (source / "a.md").write_bytes(MANAGED)
    target = tmp_path / "elsewhere.md"
    target.write_bytes(target_content)
    rules_dir().mkdir(parents=True)
    os.symlink(target, rules_dir() / "a.md")
    assert install_bundled_rules(source) == ["a.md"]
    assert not os.path.islink(rules_dir() / "a.md")
    assert (rules_dir() / "a.md").read_bytes() == MANAGED
    assert target.read_bytes() == target_content


def test_dangling_symlink_is_replaced(source, tmp_path):
    (source / "a.md").write_bytes(MANAGED)
    rules_dir().mkdir(parents=True)
    os.symlink(tmp_path / "gone.md", rules_dir() / "a.md")
    assert install_bundled_rules(source) == ["a.md"]
    assert (rules_dir() / "a.md").read_bytes() == MANAGED
    assert not (tmp_path / "gone.md").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_one_unreadable_file_does_not_stop_the_others(source):
    (source / "a.md").write_bytes(MANAGED)
    (source / "b.md").write_bytes(MANAGED)
    (source / "c.md").write_bytes(MANAGED + b"new\n")
    rules_dir().mkdir(parents=True)
    (rules_dir() / "c.md").write_bytes(MANAGED)
    os.chmod(source / "a.md", 0)
    os.chmod(rules_dir() / "c.md", 0)
    try:
        assert install_bundled_rules(source) == ["b.md"]
    finally:
        os.chmod(rules_dir() / "c.md", 0o644)
    assert not (rules_dir() / "a.md").exists()
    assert (rules_dir() / "c.md").read_bytes() == MANAGED


def test_unreadable_entries_do_not_stop_the_others_even_as_root(source):
    """A directory where a destination file should be, and a dangling source link, are
    skipped; the files around them still install (works whatever the user id)."""
    (source / "a.md").write_bytes(MANAGED)
    os.symlink(source / "missing.md", source / "b.md")
    (source / "c.md").write_bytes(MANAGED)
    rules_dir().mkdir(parents=True)
    (rules_dir() / "a.md").mkdir()
    assert install_bundled_rules(source) == ["c.md"]
    assert (rules_dir() / "a.md").is_dir()


def test_missing_source_dir_installs_nothing(tmp_path, roots):
    assert install_bundled_rules(tmp_path / "nope") == []


def test_explicit_destination(source, tmp_path):
    (source / "a.md").write_bytes(MANAGED)
    dest = tmp_path / "custom"
    assert install_bundled_rules(source, dest) == ["a.md"]
    assert (dest / "a.md").read_bytes() == MANAGED

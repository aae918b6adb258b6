"""Two data roots kept in step by a file-sync engine (Syncthing, Dropbox, iCloud Drive)
instead of git: copied both ways by the ignore rule docs/sync.md gives, nothing lost."""

from __future__ import annotations

import shutil

from missioncache_harness.machines import A_TURNS, B_TURNS, Machine
from missioncache_sync.sync import FILE_SYNC_IGNORE


def copy_by_the_rule(source: Machine, target: Machine) -> None:
    """What the engine does: every file not ignored, newer copies win (here: all)."""
    shutil.copytree(
        source.root,
        target.root,
        ignore=shutil.ignore_patterns(*FILE_SYNC_IGNORE),
        dirs_exist_ok=True,
    )


def test_two_data_roots_copied_both_ways_share_one_history(tmp_path, mc_plugin):
    project = tmp_path / "project"
    project.mkdir()
    a, b = Machine(tmp_path, "A", mc_plugin), Machine(tmp_path, "B", mc_plugin)
    a.cli("create-task", "demo", "--repo", str(project))
    a.turns("demo", "sa", A_TURNS)
    assert "logs exchanged locally" in a.cli("sync").stdout
    copy_by_the_rule(a, b)
    b.cli("sync")
    b.turns("demo", "sb", B_TURNS)
    b.cli("sync")
    copy_by_the_rule(b, a)
    a.cli("sync")
    assert a.time("demo") == "demo: 30m (Claude 30m, you 0s), all time"
    assert b.time("demo") == a.time("demo")
    # No file was written by both: each machine kept its own id and log folder.
    ids = {(m.root / "machine-id").read_text() for m in (a, b)}
    assert len(ids) == 2
    assert sorted(p.name for p in (a.root / "events").iterdir()) == sorted(m.strip() for m in ids)

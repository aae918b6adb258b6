"""`scripts/build_plugin.py --check` (CI's freshness gate) judges the built files, not the
byte-code Python leaves beside them once the plugin's hooks have run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from missioncache_harness.locate import build_script


def check(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(build_script()), "--check", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_plugin_whose_hooks_have_run_is_still_up_to_date(mc_plugin: Path, tmp_path):
    copy = tmp_path / "plugin"
    shutil.copytree(mc_plugin, copy)
    library = copy / "lib" / "missioncache_state"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(library)], check=True)
    assert list(library.glob("__pycache__/*.pyc"))  # what running a hook leaves behind
    done = check(copy)
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout


def test_a_changed_or_extra_built_file_is_stale(mc_plugin: Path, tmp_path):
    copy = tmp_path / "plugin"
    shutil.copytree(mc_plugin, copy)
    (copy / "hooks" / "stop.py").write_text("# edited by hand\n")
    (copy / "hooks" / "extra.py").write_text("pass\n")
    done = check(copy)
    assert done.returncode == 1
    assert "hooks/stop.py" in done.stderr and "hooks/extra.py" in done.stderr


def test_the_launcher_is_built_executable_and_losing_the_bit_is_stale(mc_plugin, tmp_path):
    """Issue 12 item 12: `<plugin>/bin/missioncache` is run by its path, so it must stay
    executable in the committed tree (git keeps the bit; a marketplace install copies it)."""
    import os

    assert os.access(mc_plugin / "bin" / "missioncache", os.X_OK)
    copy = tmp_path / "plugin"
    shutil.copytree(mc_plugin, copy)
    (copy / "bin" / "missioncache").chmod(0o644)
    done = check(copy)
    assert done.returncode == 1
    assert "bin/missioncache" in done.stderr


def test_a_file_both_edited_and_not_executable_is_listed_once(mc_plugin, tmp_path):
    """The stale list names each file once, whatever made it stale."""
    copy = tmp_path / "plugin"
    shutil.copytree(mc_plugin, copy)
    launcher = copy / "bin" / "missioncache"
    launcher.write_text("#!/bin/sh\n# edited by hand\n")
    launcher.chmod(0o644)
    done = check(copy)
    assert done.returncode == 1
    assert done.stderr.count("bin/missioncache") == 1, done.stderr

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


def test_a_plugin_whose_hooks_have_run_is_still_up_to_date(built_plugin: Path, tmp_path):
    copy = tmp_path / "plugin"
    shutil.copytree(built_plugin, copy)
    library = copy / "missioncache-db" / "missioncache_state"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(library)], check=True)
    assert list(library.glob("__pycache__/*.pyc"))  # what running a hook leaves behind
    done = check(copy)
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout


def test_a_changed_or_extra_built_file_is_stale(built_plugin: Path, tmp_path):
    copy = tmp_path / "plugin"
    shutil.copytree(built_plugin, copy)
    (copy / "hooks" / "stop.py").write_text("# edited by hand\n")
    (copy / "hooks" / "extra.py").write_text("pass\n")
    done = check(copy)
    assert done.returncode == 1
    assert "hooks/stop.py" in done.stderr and "hooks/extra.py" in done.stderr

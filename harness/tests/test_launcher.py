"""Issue 12 item 12: ``<plugin>/bin/missioncache`` runs the command line straight from an
installed plugin: no PYTHONPATH, no install step, from a path with spaces, through a
symlink on PATH. Before it existed, users had to type
``PYTHONPATH=<plugin>/lib python3 -m missioncache_db``."""

from __future__ import annotations

import os
import shutil
import subprocess


def bare_env(tmp_path, path_dirs=()) -> dict:
    """Only what a login shell has: no PYTHONPATH, no virtualenv."""
    return {
        "HOME": str(tmp_path / "home"),
        "PATH": os.pathsep.join([*map(str, path_dirs), "/usr/local/bin", "/usr/bin", "/bin"]),
        "MISSIONCACHE_ROOT": str(tmp_path / "home" / ".missioncache"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
    }


def run(argv, env, cwd):
    return subprocess.run(
        argv, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=60, check=False
    )


def test_the_launcher_needs_no_pythonpath_even_under_a_path_with_spaces(mc_plugin, tmp_path):
    installed = tmp_path / "plugins cache" / "missioncache" / "0.1.0"
    shutil.copytree(mc_plugin, installed, symlinks=True)
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    env = bare_env(tmp_path)
    launcher = str(installed / "bin" / "missioncache")
    created = run([launcher, "create-task", "demo", "--repo", "."], env, repo)
    assert created.returncode == 0, created.stderr
    assert "created active/demo" in created.stdout
    listed = run([launcher, "list"], env, repo)
    assert "demo" in listed.stdout and listed.stderr == ""
    doctor = run([launcher, "doctor"], env, repo)
    assert doctor.returncode == 0 and "no problems found" in doctor.stdout


def test_a_symlink_on_path_finds_the_bundled_libraries(mc_plugin, tmp_path):
    (tmp_path / "home").mkdir()
    bin_dir = tmp_path / "home" / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    os.symlink(mc_plugin / "bin" / "missioncache", bin_dir / "missioncache")
    done = run(["missioncache", "nonsense"], bare_env(tmp_path, [bin_dir]), tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("missioncache: error:")  # ours, named as the user typed it
    assert "Traceback" not in done.stderr

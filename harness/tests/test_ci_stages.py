"""`.ci/run` cannot pass by accident: a failed stage fails the run even when later stages
pass, the summary table names every stage, and an interpreter the hooks promise that
cannot be found is a failure naming the command that installs it (it used to be a warning
and a pass). The stage machinery is `.ci/stages.sh`, sourced here as `.ci/run` sources it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STAGES = ROOT / ".ci" / "stages.sh"


def run_ci(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``script`` in bash after sourcing the stage machinery, the way `.ci/run` runs."""
    return subprocess.run(
        ["bash", "-c", f'set -uo pipefail\n. "{STAGES}"\n{script}'],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def table(out: str) -> dict[str, str]:
    """Stage name -> result, from the summary table."""
    rows = out.split("-------\n", 1)[1].splitlines()
    return {row[:44].strip(): row[44:52].strip() for row in rows if len(row) > 44}


def test_a_failed_stage_fails_the_run_and_the_others_still_run():
    done = run_ci("stage first true\nstage broken false\nstage last true\nsummary\nexit $failed")
    assert done.returncode == 1
    assert table(done.stdout) == {"first": "passed", "broken": "FAILED", "last": "passed"}
    assert done.stdout.rstrip().endswith("CI FAILED")
    assert "broken FAILED (exit 1)" in done.stderr


def test_every_stage_passing_is_a_passing_run():
    done = run_ci("stage one true\nstage two true\nsummary\nexit $failed")
    assert done.returncode == 0, done.stderr
    assert table(done.stdout) == {"one": "passed", "two": "passed"}
    assert done.stdout.rstrip().endswith("CI passed")


def test_a_stage_the_rest_needs_stops_the_run_with_its_table():
    done = run_ci("stage before true\nmust setup false\nstage after true\nsummary\nexit 0")
    assert done.returncode == 1
    assert table(done.stdout) == {"before": "passed", "setup": "FAILED"}
    assert "== after" not in done.stdout


def test_a_missing_interpreter_fails_naming_the_command_that_installs_it(tmp_path):
    """No 3.1 anywhere (uv may not download, no pyenv, nothing on PATH): the hook-side
    stage for it fails, and says how to get it."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.fail("uv not on PATH: the workspace runs through uv")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").symlink_to(uv)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path),
        "PYENV_ROOT": str(tmp_path / "pyenv"),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_OFFLINE": "1",
        "UV_PYTHON_INSTALL_DIR": str(tmp_path / "uv-python"),
    }
    done = run_ci(
        "hook_side_tests=(harness/tests/test_ci_stages.py)\n"
        'stage "hook-side tests under Python 3.1" hook_side_tests_under 3.1\n'
        "summary\nexit $failed",
        env=env,
    )
    assert done.returncode == 1
    assert table(done.stdout) == {"hook-side tests under Python 3.1": "FAILED"}
    assert "no Python 3.1" in done.stderr and "`uv python install 3.1`" in done.stderr


def test_ci_run_sources_the_machinery_and_tests_both_promised_interpreters():
    """The tests above pin `.ci/stages.sh`; this pins that `.ci/run` is built on it."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert '. "$root/.ci/stages.sh"' in text
    assert "for version in 3.9 3.13; do" in text and "hook_side_tests_under" in text
    assert text.rstrip().endswith('summary\nexit "$failed"')
    assert "WARNING" not in text and "set -e" not in text  # no warn-and-pass, no early exit


def test_the_ci_script_parses():
    """A lost brace in .ci/run (a merge) fails every CI run before its first stage; bash
    says so here in a second, without running anything."""
    done = subprocess.run(
        ["bash", "-n", str(ROOT / ".ci" / "run")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_the_stress_stage_names_test_files_that_exist():
    """A test file moved to another package left the stress stage running no test at all
    (pytest's exit 5), which failed CI."""
    import ast

    tree = ast.parse((ROOT / "scripts" / "stress_concurrency.py").read_text(encoding="utf-8"))
    (listed,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "TESTS"
    ]
    paths = [element.value for element in listed.elts]  # type: ignore[attr-defined]
    assert paths and [p for p in paths if not (ROOT / p).is_file()] == []

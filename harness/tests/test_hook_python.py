"""MISSIONCACHE_HOOK_PYTHON: the built plugin runs under the interpreter it names."""

import os
import subprocess
import sys

import pytest

from missioncache_harness.workspace import HOOK_PYTHON_VARIABLE, put_hook_python_first


def test_the_chosen_interpreter_becomes_python3_first_on_path(tmp_path):
    environ = {HOOK_PYTHON_VARIABLE: sys.executable, "PATH": "/usr/bin"}
    assert put_hook_python_first(tmp_path / "shim", environ) == sys.executable
    first = environ["PATH"].split(os.pathsep)[0]
    assert first == str(tmp_path / "shim")
    assert environ["PATH"].endswith(os.pathsep + "/usr/bin")
    done = subprocess.run(
        ["python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
        env={"PATH": environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
    )
    # The interpreter itself, not just its version: /usr/bin/python3 may share it.
    assert done.stdout.strip() == os.path.realpath(sys.executable)


def test_unset_leaves_path_alone(tmp_path):
    environ = {"PATH": "/usr/bin"}
    assert put_hook_python_first(tmp_path / "shim", environ) is None
    assert environ == {"PATH": "/usr/bin"}
    assert not (tmp_path / "shim").exists()


def test_a_missing_interpreter_is_an_error_not_a_silent_fallback(tmp_path):
    environ = {HOOK_PYTHON_VARIABLE: str(tmp_path / "no-python"), "PATH": "/usr/bin"}
    with pytest.raises(FileNotFoundError, match=HOOK_PYTHON_VARIABLE):
        put_hook_python_first(tmp_path / "shim", environ)

"""missioncache_state.lean_os: ``os`` for the hooks without importing ``os``, giving the
same answers as ``os`` and ``posixpath`` wherever a hook asks."""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_harness.workspace import python3

SRC = Path(__file__).resolve().parents[1] / "src"

pytestmark = pytest.mark.skipif(os.name != "posix", reason="lean_os is os itself off POSIX")

if os.name == "posix":
    from missioncache_state import _lean_path as lean_path

# Paths built from the parts that make the rules differ: separators, dots, names, and
# a name with a dot in it.
parts = st.sampled_from(["/", "//", "///", ".", "..", "a", "b.c", ".d", "..e", "f.", ""])
paths = st.lists(parts, max_size=8).map("".join)


def run_bare(code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh ``python -S`` that finds the state library (no ``os`` loaded)."""
    env = {"PYTHONPATH": str(SRC), "PATH": os.environ.get("PATH", "")}
    return subprocess.run(
        [python3(), "-S", "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


@given(paths, st.lists(paths, max_size=3))
def test_the_text_functions_answer_as_posixpath(path, more):
    assert lean_path.join(path, *more) == posixpath.join(path, *more)
    assert lean_path.split(path) == posixpath.split(path)
    assert lean_path.dirname(path) == posixpath.dirname(path)
    assert lean_path.basename(path) == posixpath.basename(path)
    assert lean_path.splitext(path) == posixpath.splitext(path)
    assert lean_path.isabs(path) == posixpath.isabs(path)
    assert lean_path.normpath(path) == posixpath.normpath(path)
    assert lean_path.abspath(path) == posixpath.abspath(path)
    for start in more:
        if path:
            assert lean_path.relpath(path, start or None) == posixpath.relpath(path, start or None)
    with pytest.raises(ValueError):
        lean_path.relpath("")


def test_path_objects_and_bytes_are_taken_as_os_takes_them(tmp_path):
    assert lean_path.join(tmp_path, "a") == os.path.join(tmp_path, "a")
    assert lean_path.join(b"/x", b"y") == b"/x/y"
    assert lean_path.split(b"/x/y") == (b"/x", b"y")
    with pytest.raises(TypeError):
        lean_path.join("/x", b"y")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Files, folders and every kind of symbolic link realpath must follow or stop at."""
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "real" / "file.txt").write_text("12345")
    links = {
        "to_real": "real",  # relative
        "to_abs": str(tmp_path / "real" / "deep"),  # absolute
        "chain": "to_real",  # a link to a link
        "up": "real/deep/..",  # dots inside the target
        "dangling": "nowhere/at/all",
        "loop_a": "loop_b",
        "loop_b": "loop_a",
        "self": "self/x",
    }
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    (tmp_path / "real" / "deep" / "back").symlink_to("../../chain")
    return tmp_path


CASES = [
    "real/file.txt",
    "to_real/file.txt",
    "to_abs",
    "to_abs/../file.txt",
    "chain/deep/back/deep",
    "up/file.txt",
    "dangling",
    "dangling/more/..",
    "missing/../real",
    "real/./deep//",
    "to_real/../to_abs/..",
    "",
    ".",
]
LOOPS = ["loop_a", "loop_a/x", "self", "self/y/z"]


@pytest.mark.parametrize("case", CASES + LOOPS)
def test_realpath_answers_as_posixpath(tree, case, monkeypatch):
    monkeypatch.chdir(tree)
    assert lean_path.realpath(case) == posixpath.realpath(case)
    assert lean_path.realpath(str(tree / case)) == posixpath.realpath(str(tree / case))


@pytest.mark.parametrize("case", [*CASES, *LOOPS, "real", "real/deep/back"])
def test_the_stat_functions_answer_as_os_path(tree, case):
    path = str(tree / case)
    for name in ("exists", "lexists", "isdir", "isfile", "islink"):
        assert getattr(lean_path, name)(path) == getattr(os.path, name)(path), (name, case)
    if os.path.exists(path):
        assert lean_path.getsize(path) == os.path.getsize(path)
    assert lean_path.exists("bad\0path") is False


def test_environ_reads_and_writes_the_same_environment_as_os(monkeypatch):
    environ = lean_path._Environ()
    monkeypatch.setenv("MC_LEAN_READ", "é")
    assert environ["MC_LEAN_READ"] == "é" and environ.get("MC_LEAN_NONE") is None
    assert "MC_LEAN_READ" in environ and dict(environ) == dict(os.environ)
    monkeypatch.delenv("MC_LEAN_WRITTEN", raising=False)
    environ["MC_LEAN_WRITTEN"] = "1"
    try:
        assert os.environ["MC_LEAN_WRITTEN"] == "1"
    finally:
        del environ["MC_LEAN_WRITTEN"]
    assert "MC_LEAN_WRITTEN" not in os.environ
    with pytest.raises(KeyError):
        environ["MC_LEAN_WRITTEN"]
    assert environ.setdefault("MC_LEAN_WRITTEN", "2") == "2" == os.environ["MC_LEAN_WRITTEN"]
    assert environ.pop("MC_LEAN_WRITTEN") == "2" and "MC_LEAN_WRITTEN" not in os.environ
    assert environ.pop("MC_LEAN_WRITTEN", None) is None


def test_in_a_hook_process_it_serves_without_importing_os(tmp_path):
    code = f"""
import sys
from missioncache_state import lean_os as os
target = os.path.join({str(tmp_path)!r}, "a", "b")
os.makedirs(target)
os.makedirs(target, exist_ok=True)
try:
    os.makedirs(target)
except FileExistsError:
    pass
else:
    raise SystemExit("makedirs did not refuse an existing folder")
with os.fdopen(os.open(os.path.join(target, "f"), os.O_WRONLY | os.O_CREAT), "w") as f:
    f.write("x")
assert os.path.getsize(os.path.join(target, "f")) == 1
assert getattr(os, "O_BINARY", 0) == 0 and os.environ.get("PATH") is not None
assert os.SEEK_END == 2 and os.sep == "/" and os.name == "posix"
from missioncache_state.lean_os import path  # the import system probes __path__
print("os" in sys.modules)
os.walk  # not lean: os itself, imported now
print("os" in sys.modules, os.path.commonpath(["/a/b", "/a/c"]))
"""
    done = run_bare(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "/a"]


def test_where_os_is_already_loaded_it_is_os():
    done = run_bare("import os\nfrom missioncache_state import lean_os\nprint(lean_os is os)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
    from missioncache_state import lean_os

    assert lean_os is os  # pytest loaded os first: patching os patches what code calls


def test_the_hook_pythons_agree(tmp_path):
    """The same checks under the interpreter the hooks run on (3.9 and 3.13 in CI)."""
    real = str(tmp_path.resolve())
    code = "\n".join(
        [
            "import sys",
            "from missioncache_state import _lean_path as p",
            "assert p.normpath('//a/../b/./c/') == '//b/c', p.normpath('//a/../b/./c/')",
            "assert p.normpath('///a') == '/a' and p.normpath('') == '.'",
            f"assert p.realpath({str(tmp_path)!r} + '/x/../y') == {real!r} + '/y'",
            "print('ok', 'os' in sys.modules)",
        ]
    )
    done = run_bare(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "False"]

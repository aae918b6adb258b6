"""missioncache_state.bytecode: the plugin's modules served from one compiled file, and
never a module whose source changed since."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.workspace import python3

SRC = Path(__file__).resolve().parents[1] / "src"

# A process that installs the bundle of the plugin in argv[1], imports what argv[2:] name,
# and says for each where it came from and what it holds.
PROBE = """
import json, os, sys
if os.environ.get("PROBE_NO_PREAD"):  # as on Windows, where the os module is nt
    import posix
    del posix.pread
from missioncache_state import bytecode
installed = bytecode.install(sys.argv[1])
sys.path.append(sys.argv[1] + "/hooks")
seen = {}
for name in sys.argv[2:]:
    module = __import__(name, fromlist=["x"])
    seen[name] = {
        "bundled": isinstance(module.__spec__.loader, bytecode.BundleFinder),
        "file": module.__file__,
        "value": getattr(module, "VALUE", None),
    }
print(json.dumps({"installed": installed, "seen": seen, "rebuild": bytecode.needs_build()}))
"""


def _plugin(root: Path) -> Path:
    """A plugin tree: a package with a module and a subpackage in lib, one hook body."""
    lib = root / "lib"
    (lib / "pkg" / "sub").mkdir(parents=True)
    (root / "hooks").mkdir()
    (lib / "pkg" / "__init__.py").write_text("VALUE = 'package'\n")
    (lib / "pkg" / "mod.py").write_text("from pkg.sub.deep import VALUE as DEEP\nVALUE = 'mod'\n")
    (lib / "pkg" / "sub" / "__init__.py").write_text("")
    (lib / "pkg" / "sub" / "deep.py").write_text("VALUE = 'deep'\n")
    (root / "hooks" / "_body.py").write_text("VALUE = 'body'\n")
    (root / "hooks" / "body.py").write_text("raise SystemExit('the script, never imported')\n")
    return root


def _probe(plugin: Path, *names: str, **env: str) -> dict:
    done = subprocess.run(
        [python3(), "-S", "-c", PROBE, str(plugin), *names],
        env={
            "PYTHONPATH": f"{SRC}{os.pathsep}{plugin / 'lib'}",
            "PYTHONDONTWRITEBYTECODE": "1",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _build(plugin: Path) -> Path:
    done = subprocess.run(
        [python3(), "-S", "-m", "missioncache_state.bytecode", str(plugin)],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    found = list((plugin / "lib" / "__pycache__").glob("missioncache.*.bundle"))
    assert len(found) == 1, found
    return found[0]


def test_without_a_bundle_imports_work_as_always_and_ask_for_one(tmp_path):
    plugin = _plugin(tmp_path / "plugin")
    out = _probe(plugin, "pkg.mod", "_body")
    assert out["installed"] is False and out["rebuild"] is True
    assert out["seen"]["pkg.mod"] == {
        "bundled": False,
        "file": str(plugin / "lib" / "pkg" / "mod.py"),
        "value": "mod",
    }


@pytest.mark.parametrize("pread", [True, False], ids=["pread", "read-whole"])
def test_a_built_bundle_serves_packages_modules_and_hook_bodies_as_their_sources_would(
    tmp_path, pread
):
    plugin = _plugin(tmp_path / "plugin")
    _build(plugin)
    env = {} if pread else {"PROBE_NO_PREAD": "1"}
    out = _probe(plugin, "pkg", "pkg.mod", "pkg.sub.deep", "_body", **env)
    assert out["installed"] is True and out["rebuild"] is False
    lib = plugin / "lib"
    assert out["seen"] == {
        "pkg": {"bundled": True, "file": str(lib / "pkg" / "__init__.py"), "value": "package"},
        "pkg.mod": {"bundled": True, "file": str(lib / "pkg" / "mod.py"), "value": "mod"},
        "pkg.sub.deep": {
            "bundled": True,
            "file": str(lib / "pkg" / "sub" / "deep.py"),
            "value": "deep",
        },
        "_body": {"bundled": True, "file": str(plugin / "hooks" / "_body.py"), "value": "body"},
    }


def test_an_edited_module_runs_its_new_source_and_asks_for_a_rebuild(tmp_path):
    plugin = _plugin(tmp_path / "plugin")
    _build(plugin)
    deep = plugin / "lib" / "pkg" / "sub" / "deep.py"
    deep.write_text("VALUE = 'edited'\n")
    os.utime(deep, ns=(deep.stat().st_atime_ns, deep.stat().st_mtime_ns + 1_000_000_000))
    out = _probe(plugin, "pkg.mod", "pkg.sub.deep")
    assert out["seen"]["pkg.sub.deep"]["value"] == "edited"
    assert out["seen"]["pkg.sub.deep"]["bundled"] is False
    assert out["seen"]["pkg.mod"]["bundled"] is True  # the others still come from it
    assert out["rebuild"] is True
    _build(plugin)
    out = _probe(plugin, "pkg.sub.deep")
    assert out["seen"]["pkg.sub.deep"] == {
        "bundled": True,
        "file": str(deep),
        "value": "edited",
    }
    assert out["rebuild"] is False


def test_a_removed_module_is_not_served_from_the_bundle(tmp_path):
    plugin = _plugin(tmp_path / "plugin")
    _build(plugin)
    (plugin / "lib" / "pkg" / "sub" / "deep.py").unlink()
    done = subprocess.run(
        [python3(), "-S", "-c", PROBE, str(plugin), "pkg.mod"],
        env={"PYTHONPATH": f"{SRC}{os.pathsep}{plugin / 'lib'}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "ModuleNotFoundError" in done.stderr


def test_a_damaged_bundle_or_one_of_another_python_is_ignored(tmp_path):
    plugin = _plugin(tmp_path / "plugin")
    bundle = _build(plugin)
    good = bundle.read_bytes()
    magic_changed = good[:4] + b"\0\0\0\0" + good[8:]
    cuts = (b"", good[:10], good[:200], good[:-1], b"x" * 64)
    for damaged in (magic_changed, *cuts, good + b"x"):
        bundle.write_bytes(damaged)
        out = _probe(plugin, "pkg.mod", "_body")
        assert out["installed"] is False, len(damaged)
        assert out["seen"]["pkg.mod"] == {
            "bundled": False,
            "file": str(plugin / "lib" / "pkg" / "mod.py"),
            "value": "mod",
        }
    # Damage inside a module's code, the length right: that module is compiled from its
    # source, the others still served.
    at = good.index(b"\n_body ")
    offset = int(good[at:].split(b"\n")[1].split()[4])
    bundle.write_bytes(good[:offset] + b"\xff" * 8 + good[offset + 8 :])
    out = _probe(plugin, "_body", "pkg.mod")
    assert out["installed"] is True
    assert out["seen"]["_body"]["value"] == "body"
    assert out["seen"]["pkg.mod"]["value"] == "mod"


def test_the_build_skips_what_cannot_be_a_module_and_what_does_not_compile(tmp_path):
    plugin = _plugin(tmp_path / "plugin")
    lib = plugin / "lib"
    (lib / "pkg" / "broken.py").write_text("def (:\n")
    (lib / "pkg" / "not-a-name.py").write_text("VALUE = 1\n")
    (lib / "pkg" / "tests").mkdir()
    _build(plugin)
    out = _probe(plugin, "pkg.mod")
    assert out["seen"]["pkg.mod"]["bundled"] is True
    done = subprocess.run(
        [python3(), "-S", "-c", PROBE, str(plugin), "pkg.broken"],
        env={"PYTHONPATH": f"{SRC}{os.pathsep}{lib}", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "SyntaxError" in done.stderr  # the usual import, with the usual error

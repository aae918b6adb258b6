"""The server finds the plugin's bundled libraries when they are not installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = (
    "import sys; sys.path.insert(0, sys.argv[1]);"
    "from missioncache_pm.bootstrap import ensure_libraries;"
    "added = ensure_libraries();"
    "import missioncache_db, missioncache_context, missioncache_state;"
    "print(added); print(missioncache_db.__file__)"
)


def probe(built_plugin, **env):
    """A bare interpreter (no site-packages, no PYTHONPATH) with only our package's src."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "MISSION"))}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(built_plugin / "missioncache-pm" / "src")],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("variable", ["MISSIONCACHE_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"])
def test_the_bundled_libraries_are_put_on_the_path(built_plugin, variable):
    done = probe(built_plugin, **{variable: str(built_plugin)})
    assert done.returncode == 0, done.stderr
    added, db_file = done.stdout.splitlines()
    assert added == str(built_plugin / "missioncache-db")
    assert db_file.startswith(added + os.sep)


def test_without_a_plugin_root_nothing_is_added_and_the_import_fails(built_plugin):
    done = probe(built_plugin)
    assert done.returncode != 0
    assert "No module named 'missioncache_db'" in done.stderr
    relative = probe(built_plugin, MISSIONCACHE_PLUGIN_ROOT="relative/plugin")
    assert relative.returncode != 0


def test_installed_libraries_are_left_alone():
    from missioncache_pm.bootstrap import ensure_libraries

    before = list(sys.path)
    assert ensure_libraries({"MISSIONCACHE_PLUGIN_ROOT": "/nonexistent"}) is None
    assert sys.path == before


def test_the_server_reports_missing_libraries_as_one_sentence(built_plugin):
    from missioncache_pm.errors import sentence

    text = sentence(ModuleNotFoundError("No module named 'missioncache_db'"))
    assert text.startswith("MissionCache's libraries could not be loaded")
    assert "\n" not in text and text.endswith(".")


def test_check_flag_exits_without_serving():
    """The launcher's probe: ``missioncache-pm --check`` imports the server and the SDK,
    then exits 0 at once, even with stdin left open (a real server would wait on it)."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "missioncache_pm", "--check"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == b""


def test_launcher_starts_exactly_one_server():
    """plugin.json probes the offline cache, then ``exec``s one server; an
    ``offline || online`` chain would start a second server whenever the first exits
    non-zero (uv's cache miss and a crashed server both exit 1)."""
    import json
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    manifest = json.loads((repo / "plugin-src" / ".claude-plugin" / "plugin.json").read_text())
    script = manifest["mcpServers"]["pm"]["args"][1]
    assert "||" not in script
    assert "missioncache-pm --check" in script
    assert script.count("exec uvx") == 2

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


def probe(mc_plugin, **env):
    """A bare interpreter (no site-packages, no PYTHONPATH) with only our package's src."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "MISSION"))}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(mc_plugin / "missioncache-pm" / "src")],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("variable", ["MISSIONCACHE_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"])
def test_the_bundled_libraries_are_put_on_the_path(mc_plugin, variable):
    done = probe(mc_plugin, **{variable: str(mc_plugin)})
    assert done.returncode == 0, done.stderr
    added, db_file = done.stdout.splitlines()
    assert added == str(mc_plugin / "lib")
    assert db_file.startswith(added + os.sep)


def test_without_a_plugin_root_nothing_is_added_and_the_import_fails(mc_plugin):
    done = probe(mc_plugin)
    assert done.returncode != 0
    assert "No module named 'missioncache_db'" in done.stderr
    relative = probe(mc_plugin, MISSIONCACHE_PLUGIN_ROOT="relative/plugin")
    assert relative.returncode != 0


def test_installed_libraries_are_left_alone():
    from missioncache_pm.bootstrap import ensure_libraries

    before = list(sys.path)
    assert ensure_libraries({"MISSIONCACHE_PLUGIN_ROOT": "/nonexistent"}) is None
    assert sys.path == before


def test_the_server_reports_missing_libraries_as_one_sentence(mc_plugin):
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


def _launcher_script() -> str:
    import json
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    manifest = json.loads((repo / "plugin-src" / ".claude-plugin" / "plugin.json").read_text())
    launch = manifest["mcpServers"]["pm"]
    assert launch["command"] == "sh"
    return launch["args"][1]


@pytest.mark.parametrize(
    ("cache", "server", "calls"),
    [
        # warm cache, the server crashes: its exit code stands, nothing is started again
        ("0", "1", ["--offline --check", "--offline"]),
        # warm cache, the server is stopped at the end of the session
        ("0", "143", ["--offline --check", "--offline"]),
        # cold cache (no network yet used): one online start
        ("1", "0", ["--offline --check", "online"]),
    ],
)
@pytest.mark.parametrize("through", ["sh", "launch.py"])
def test_launcher_starts_exactly_one_server(tmp_path, cache, server, calls, through, request):
    """plugin.json's launcher, run by sh with a stand-in ``uvx`` that logs each call: it
    probes uv's offline cache, then starts one server whatever that server's exit code
    (an ``offline || online`` chain would start a second one after a crash)."""
    log = tmp_path / "calls"
    fake = tmp_path / "bin" / "uvx"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'  *--offline*--check*) echo "--offline --check" >> "{log}"; exit {cache} ;;\n'
        f'  *--offline*) echo "--offline" >> "{log}"; exit {server} ;;\n'
        f'  *) echo "online" >> "{log}"; exit {server} ;;\n'
        "esac\n"
    )
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake.parent}:{os.environ['PATH']}")
    # Without the built plugin's launch.py (or without python3) sh does the same itself.
    root = request.getfixturevalue("mc_plugin") if through == "launch.py" else tmp_path / "plugin"
    env["MISSIONCACHE_PLUGIN_ROOT"] = str(root)
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude")
    done = subprocess.run(["sh", "-c", _launcher_script()], env=env, timeout=30, check=False)
    assert done.returncode == int(server)
    assert log.read_text().split("\n")[:-1] == calls

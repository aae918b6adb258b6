"""The status line against the real Claude Code CLI (conformance tier).

The real CLI runs interactively in tmux (it never runs a status line with ``-p``), offline
against the fake Messages API, with the command ``statusline install --chain`` wrote into
its settings.json, chained after a recorder that keeps the exact stdin the CLI sent. Then:

- the CLI's status area shows our task name and progress;
- the simulator runs the same command with the same stdin and prints the same line;
- the stdin the CLI sent has the shape of the golden file
  (``harness/tests/data/statusline-stdin-2.1.328.json``), and so has the simulator's
  payload (``missioncache_harness.payloads.statusline``).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from missioncache_harness import payloads
from missioncache_harness.claude_cli import claude_version, requires_claude
from missioncache_harness.fake_api import FakeAnthropicAPI
from missioncache_harness.statusline import run_status_line
from missioncache_harness.terminal import Terminal, tmux_available
from missioncache_harness.workspace import create_task, make_cli_env, python3

DATA = Path(__file__).resolve().parents[3] / "harness" / "tests" / "data"
GOLDEN = DATA / "statusline-stdin-2.1.328.json"
RECORDER = "import sys\nopen(sys.argv[1], 'ab').write(sys.stdin.buffer.read() + b'\\n')\n"
TASKS = "# Tasks\n\n- [x] 1. Reproduce\n- [x] 2. Find the cause\n- [ ] 3. Fix\n- [ ] 4. Test\n"

pytestmark = [
    pytest.mark.conformance,
    requires_claude,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed (apt-get install tmux)"),
]


def shape(value: object) -> object:
    """Keys and value types, recursively: what a reader of the payload relies on."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value[:1]]
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def _read(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def test_simulator_payload_has_the_golden_shape(tmp_path):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    startup = payloads.statusline(session_id="s", transcript_path="/t.jsonl", cwd=tmp_path)
    after = payloads.statusline(
        session_id="s", transcript_path="/t.jsonl", cwd=tmp_path, prompt_id="p"
    )
    assert shape(startup) == shape(golden["startup"])
    assert shape(after) == shape(golden["after_prompt"])
    assert list(after) == list(golden["after_prompt"])  # and the same key order


def test_real_cli_shows_task_and_progress_and_simulator_agrees(tmp_path, mc_plugin):
    work = tmp_path / "work"
    work.mkdir()
    work = work.resolve()
    env = make_cli_env(tmp_path)
    home, claude_dir, data = env.home, env.claude_dir, env.data_root
    create_task(mc_plugin, env, "demo-task", work)
    (data / "active" / "demo-task" / "demo-task-tasks.md").write_text(TASKS)
    recorder, recorded = tmp_path / "recorder.py", tmp_path / "stdin.jsonl"
    recorder.write_text(RECORDER)
    settings = claude_dir / "settings.json"
    theirs = {"type": "command", "command": f"python3 {recorder} {recorded}"}
    settings.write_text(json.dumps({"statusLine": theirs}))
    install = ["statusline", "install", "--chain", "--plugin-root", str(mc_plugin)]
    installed = subprocess.run(
        [python3(), "-m", "missioncache_cli", *install],
        env=dict(env.env, PYTHONPATH=str(mc_plugin / "lib")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert installed.returncode == 0, installed.stderr
    command = json.loads(settings.read_text())["statusLine"]["command"]

    with (
        FakeAnthropicAPI() as api,
        Terminal(home, work, api, {"MISSIONCACHE_ROOT": str(data)}) as terminal,
    ):
        terminal.wait_for(lambda s: "◆ demo-task [2/4]" in s, timeout=90)
        terminal.type("hello there")
        terminal.wait_for(lambda s: "Done." in s, timeout=90)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and b'"prompt_id"' not in _read(recorded):
            time.sleep(0.2)
        screen = terminal.screen()

    sent = [json.loads(line) for line in recorded.read_text().splitlines() if line.strip()]
    after = [p for p in sent if "prompt_id" in p]
    assert sent and after, sent
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert shape(after[-1]) == shape(golden["after_prompt"]), "the CLI's status-line stdin changed"
    assert shape(sent[0]) == shape(golden["startup"])
    assert after[-1]["cwd"] == str(work) and after[-1]["version"] == claude_version()

    # The simulator: the same command, the same stdin, as Claude Code runs a status line.
    simulated = run_status_line(command, after[-1], cwd=work, env=env.env, columns=200)
    assert simulated.exit_code == 0
    [line] = simulated.plain_rows
    assert line.startswith("◆ demo-task [2/4] · today ")
    status_rows = [row.strip() for row in screen.splitlines() if "◆ demo-task" in row]
    assert status_rows == [line], screen

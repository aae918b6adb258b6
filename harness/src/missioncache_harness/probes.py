"""Tiny probe plugins for tests: hooks whose behaviour is data (sleep, print, exit, JSON, children).

WHY in the package: the harness's own tests and any product test that needs "a hook that does X"
(block, sleep past its timeout, print 20,000 characters) build one here instead of hand-writing
hooks.json and scripts. A probe logs what it received (stdin, env, cwd, process ids) so tests can
assert on exactly what Claude Code's stand-in gave it.

    root = probe_plugin(tmp_path / "plug", {"Stop": ["A"]}, {"A": {"stderr": "no", "exit": 2}})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PROBE_SCRIPT = r'''"""Probe hook. Behaviour: $MC_PROBE_BEHAVIOUR (JSON) or behav.json beside it,
keyed by "*", "NAME", "Event" or "NAME:Event" (later keys win).
Log: $MC_PROBE_LOG or log.jsonl beside it."""
import json, os, signal, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
name = sys.argv[1] if len(sys.argv) > 1 else "A"
table = os.environ.get("MC_PROBE_BEHAVIOUR")
if table is None:
    with open(os.path.join(here, "behav.json")) as fh:
        table = fh.read()
behaviours = json.loads(table or "{}")
generic = dict(behaviours.get("*", {}), **behaviours.get(name, {}))
raw = b"" if generic.get("no_stdin") else sys.stdin.buffer.read()
try:
    data = json.loads(raw.decode("utf-8")) if raw else {}
except ValueError:
    data = {"_unparsed": raw.decode("utf-8", "replace")}
event = str(data.get("hook_event_name", "?"))
behav = dict(generic, **behaviours.get(event, {}))
behav.update(behaviours.get(name + ":" + event, {}))
source = str(data.get("source") or data.get("trigger") or "")
if behav.get("ignore_term"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
entry = {
    "name": name, "event": event, "stdin": data, "stdin_bytes": len(raw),
    "env": {k: v for k, v in os.environ.items()
            if k.startswith(("CLAUDE", "MC_")) or k in ("HOME", "PWD", "ANTHROPIC_BASE_URL")},
    "cwd": os.getcwd(), "pid": os.getpid(), "pgid": os.getpgid(0), "sid": os.getsid(0),
    "start": time.time(),
    "transcript_exists": os.path.exists(str(data.get("transcript_path", ""))),
}
if "child" in behav:
    child = subprocess.Popen(["sleep", str(behav["child"])])
    entry["child_pid"] = child.pid
if "background" in behav:
    marker = os.path.join(here, "background-" + name + ".done")
    code = "import time; time.sleep(%r); open(%r, 'w').write('done')" % (
        behav["background"], marker)
    subprocess.Popen([sys.executable, "-c", code])
log = os.environ.get("MC_PROBE_LOG") or os.path.join(here, "log.jsonl")
fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (json.dumps(entry) + "\n").encode())
os.close(fd)
if behav.get("if_not_active") and data.get("stop_hook_active"):
    sys.exit(0)
out = sys.stdout.buffer
if "early_stdout" in behav:
    out.write(str(behav["early_stdout"]).encode())
    out.flush()
time.sleep(float(behav.get("sleep", 0)))
if "json" in behav:
    out.write(json.dumps(behav["json"]).replace("{EV}", event).replace("{SRC}", source).encode())
if "stdout" in behav:
    out.write(str(behav["stdout"]).replace("{EV}", event).replace("{SRC}", source).encode())
if "stdout_hex" in behav:
    out.write(bytes.fromhex(behav["stdout_hex"]))
if "stdout_chars" in behav:
    out.write(b"x" * int(behav["stdout_chars"]))
out.flush()
if "stderr" in behav:
    sys.stderr.write(str(behav["stderr"]).replace("{EV}", event).replace("{SRC}", source))
    sys.stderr.flush()
sys.exit(int(behav.get("exit", 0)))
'''


def write_plugin(
    root: str | Path,
    hooks: Mapping[str, Any] | str,
    *,
    name: str = "probe-plugin",
    manifest: Mapping[str, Any] | None = None,
) -> Path:
    """A plugin dir with this hooks.json (a dict under ``hooks``, or raw text) and a manifest."""
    root = Path(root)
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (root / "hooks").mkdir(parents=True, exist_ok=True)
    meta = {"name": name, "version": "0.0.1", "description": "test probe", "author": {"name": "t"}}
    meta.update(manifest or {})
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(meta), encoding="utf-8")
    text = hooks if isinstance(hooks, str) else json.dumps({"hooks": dict(hooks)}, indent=1)
    (root / "hooks" / "hooks.json").write_text(text, encoding="utf-8")
    return root


def probe_plugin(
    root: str | Path,
    events: Mapping[str, Sequence[str | Mapping[str, Any]]],
    behaviours: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    name: str = "probe-plugin",
) -> Path:
    """A plugin whose hooks are probes.

    ``events`` maps an event to probe names, or to dicts ``{"name", "timeout", "matcher"}``; each
    probe becomes its own matcher group. ``behaviours`` maps ``"*"``, ``"NAME"``, ``"Event"`` or
    ``"NAME:Event"`` ({EV} and {SRC} in texts become the event and its source or trigger) to
    ``{"sleep", "early_stdout" (printed before the sleep), "stdout", "stdout_hex", "stdout_chars",
    "stderr", "json", "exit", "no_stdin", "ignore_term", "child" (seconds a child ``sleep`` runs),
    "background" (seconds a detached child runs), "if_not_active" (Stop: quiet when active)}``.
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for event, probes in events.items():
        for probe in probes:
            spec = {"name": probe} if isinstance(probe, str) else dict(probe)
            command = f'python3 "${{CLAUDE_PLUGIN_ROOT}}/hooks/probe.py" {spec["name"]}'
            entry: dict[str, Any] = {"type": "command", "command": command}
            if spec.get("timeout") is not None:
                entry["timeout"] = spec["timeout"]
            group: dict[str, Any] = {"hooks": [entry]}
            if spec.get("matcher") is not None:
                group["matcher"] = spec["matcher"]
            groups.setdefault(event, []).append(group)
    path = write_plugin(root, groups, name=name)
    (path / "hooks" / "probe.py").write_text(PROBE_SCRIPT, encoding="utf-8")
    set_behaviours(path, behaviours or {})
    return path


def cli_probe_plugin(root: str | Path) -> Path:
    """The probe the real-CLI tests run: one probe ``A`` on each event MissionCache registers
    and what fires around them; what it prints comes from ``$MC_PROBE_BEHAVIOUR`` per run and
    it logs to ``$MC_PROBE_LOG``."""
    events = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd")
    return probe_plugin(root, {e: [{"name": "A", "timeout": 10}] for e in events}, name="mc-probe")


def set_behaviours(root: str | Path, behaviours: Mapping[str, Mapping[str, Any]]) -> None:
    """Change what the probes do, between events of one session."""
    target = Path(root) / "hooks" / "behav.json"
    target.write_text(json.dumps(dict(behaviours)), encoding="utf-8")


def read_log(root: str | Path) -> list[dict[str, Any]]:
    """What every probe run logged, in start order."""
    path = Path(root) / "hooks" / "log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

"""Probe hook for the real-CLI conformance tests: log what Claude Code gives a hook, then answer.

Every event appends one JSON line to $MC_PROBE_LOG: the event, the parsed stdin, selected
environment variables and the process cwd. What it prints comes from $MC_PROBE_BEHAVIOUR, a JSON
object keyed by event name (or "*"): {"stdout": str, "json": obj, "stderr": str, "exit": int}.
"{EV}" in a string becomes the event name, "{SRC}" the stdin `source` (SessionStart) or
`trigger` (compaction). Runs on any Python 3 (test data, not product code).
"""

from __future__ import annotations

import json
import os
import sys

ENV_KEYS = (
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_ENV_FILE",
    "HOME",
    "ANTHROPIC_BASE_URL",
)


def main() -> int:
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except ValueError:
        data = {"_unparsed": raw}
    event = str(data.get("hook_event_name", "?"))
    log = os.environ.get("MC_PROBE_LOG")
    if log:
        entry = {
            "event": event,
            "stdin": data,
            "env": {k: os.environ.get(k) for k in ENV_KEYS},
            "cwd": os.getcwd(),
            "transcript_exists": os.path.exists(str(data.get("transcript_path", ""))),
        }
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
    behaviours = json.loads(os.environ.get("MC_PROBE_BEHAVIOUR") or "{}")
    behav = behaviours.get(event, behaviours.get("*", {}))
    source = str(data.get("source") or data.get("trigger") or "")

    def fill(text: str) -> str:
        return text.replace("{EV}", event).replace("{SRC}", source)

    if "json" in behav:
        sys.stdout.write(fill(json.dumps(behav["json"])))
    if "stdout" in behav:
        sys.stdout.write(fill(str(behav["stdout"])))
    if "stderr" in behav:
        sys.stderr.write(fill(str(behav["stderr"])))
    return int(behav.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())

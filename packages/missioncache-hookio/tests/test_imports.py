"""Reading the payload, applying the prompt rules and writing output cost no heavy
imports: hooks run on every prompt, and pathlib, typing or subprocess are each
milliseconds of a ~12 ms interpreter start."""

import json
import os
import subprocess
from pathlib import Path

from missioncache_harness.import_cost import heavy_from, measuring
from missioncache_harness.workspace import python3

PACKAGES = Path(__file__).resolve().parents[2]

CODE = r"""
from missioncache_hookio.output import emit_json, hook_json
from missioncache_hookio.payload import identity, read_payload, text_field, well_typed
from missioncache_hookio.prompts import counted_prompt
from missioncache_hookio.spawn import spawn_detached
payload = read_payload()
assert well_typed(payload) and counted_prompt(payload) == "fix the parser"
ident = identity(payload)
spawn_detached([sys.executable, "-c", "pass"], ident.cwd, dict(os.environ))
emit_json(hook_json("SessionStart", additional_context=ident.session_id))
"""


def test_hook_path_imports_nothing_heavy(tmp_path):
    source = [str(PACKAGES / n / "src") for n in ("missioncache-hookio", "missioncache-state")]
    env = {"PYTHONPATH": os.pathsep.join(source), "PATH": os.defpath}
    payload = {"session_id": "s1", "cwd": str(tmp_path), "prompt": "fix the parser"}
    done = subprocess.run(
        [python3(), "-S", "-c", measuring(CODE)],
        input=json.dumps(payload),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["hookSpecificOutput"]["additionalContext"] == "s1"  # the path really ran
    assert heavy_from(done.stderr) == []

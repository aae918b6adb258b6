"""The package imports nothing until a name is used: hooks run on every prompt."""

from __future__ import annotations

import subprocess
import sys

from missioncache_harness.import_cost import heavy_from, measuring
from missioncache_harness.workspace import python3


def test_import_is_lazy_and_reexports_work():
    code = (
        "import sys, missioncache_transcript as m\n"
        "loaded = [k for k in sys.modules if k.startswith('missioncache_transcript.')]\n"
        "assert not loaded, loaded\n"
        "assert callable(m.find_edits) and callable(m.recent_turns)\n"
        "assert 'missioncache_transcript.edits' in sys.modules\n"
        "try:\n    m.nope\nexcept AttributeError:\n    print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_hook_path_imports_nothing_heavy(tmp_path):
    """Stop and PreCompact read transcripts on the user's time: no pathlib/typing/...
    imports (each is milliseconds of a ~12 ms interpreter start)."""
    import os
    from pathlib import Path

    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        '{"type":"user","message":{"role":"user","content":"rename it"}}\n'
        '{"type":"assistant","message":{"id":"m1","role":"assistant","content":'
        '[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/a.py"}}]}}\n'
    )
    code = (
        "from missioncache_transcript import find_edits, recent_turns\n"
        "assert [e.file_path for e in find_edits(sys.argv[1])] == ['/a.py']\n"
        "assert recent_turns(sys.argv[1], 3, None)[0].text == 'rename it'\n"
    )
    packages = Path(__file__).resolve().parents[2]
    source = [packages / "missioncache-transcript" / "src", packages / "missioncache-state" / "src"]
    env = {"PYTHONPATH": os.pathsep.join(map(str, source)), "PATH": os.defpath}
    result = subprocess.run(
        [python3(), "-S", "-c", measuring(code), str(transcript)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert heavy_from(result.stderr) == []

"""The package imports nothing until a name is used: hooks run on every prompt."""

from __future__ import annotations

import subprocess
import sys


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

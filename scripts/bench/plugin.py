"""The plugin under test: built fresh by ``scripts/build_plugin.py --out`` into scratch.

A checkout without the hook scripts yet still gets its libraries bundled (the database
parts need only those), and the parts that run hooks say they were skipped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.common import REPO


def build(out: Path) -> tuple[Path, str | None]:
    """Build into ``out``; returns (plugin root, None) or (libraries-only root, why)."""
    script = REPO / "scripts" / "build_plugin.py"
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(out)], capture_output=True, text=True
    )
    if done.returncode == 0:
        return out, None
    sys.path.insert(0, str(REPO / "scripts"))
    import build_plugin

    for package, module in build_plugin.LIBRARIES.items():
        src = build_plugin.PACKAGES / package / "src" / module
        build_plugin._copy_python_tree(src, out / "lib" / module)
    reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "build failed"
    return out, reason


def compile_bundle(plugin: Path, python: str) -> bool:
    """Build the plugin's compiled bundle for ``python`` (``missioncache_state.bytecode``),
    as the first hook run after an install starts it in the background: the figures are
    those of every run after that one. A build that has no bundle (an older plugin, a
    baseline) is left as it is; returns whether one was built."""
    if not (plugin / "lib" / "missioncache_state" / "bytecode.py").is_file():
        return False
    done = subprocess.run(
        [python, "-S", "-m", "missioncache_state.bytecode", str(plugin)],
        env={"PYTHONPATH": str(plugin / "lib")},
        capture_output=True,
        text=True,
    )
    return done.returncode == 0 and any((plugin / "lib" / "__pycache__").glob("*.bundle"))

"""The machine the figures come from: cores, CPU model, the hooks' interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.common import clean_environ


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def interpreter_facts(python: str) -> dict:
    """Version, SQLite version and what its bare startup already imports (a ``.pth``
    that imports e.g. pathlib makes the floor slower and the hooks look cheaper)."""
    code = (
        "import sys, json, sqlite3; print(json.dumps({'version': sys.version.split()[0], "
        "'executable': sys.executable, 'sqlite': sqlite3.sqlite_version}))"
    )
    env = clean_environ()
    facts = json.loads(subprocess.check_output([python, "-c", code], env=env, text=True))
    startup = subprocess.check_output(
        [python, "-c", "import sys; print(' '.join(sorted(sys.modules)))"], env=env, text=True
    ).split()
    heavy = sorted(m for m in ("pathlib", "re", "json", "sqlite3", "certifi") if m in startup)
    facts["startup_modules"] = len(startup)
    facts["startup_preimports"] = heavy
    return facts


def machine_info(python: str) -> dict:
    import platform

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "hook_python": interpreter_facts(python),
        "bench_python": sys.version.split()[0],
        "loadavg_start": [round(x, 2) for x in load] if load else None,
    }

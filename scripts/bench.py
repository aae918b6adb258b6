#!/usr/bin/env python3
"""MissionCache benchmarks: what the hooks cost per prompt, and how the costs grow.

Benchmarks, not tests: they report figures and whether each target was met; they never
fail a build. Parts (``--parts``, comma-separated, default all but ``history``):

- ``hooks``: each hook as Claude Code runs it, beside the interpreter floor (interleaved)
- ``instructions``: instructions each hook executes (valgrind's callgrind), beside the floor
- ``contention``: heartbeats from 1/4/16 sessions while another process holds the lock
- ``transcripts``: Stop and PreCompact against transcript size (10 KB .. 500 MB)
- ``heartbeats``: process_pending against 10k/100k/1M heartbeats (time, peak memory)
- ``sessionstart``: SessionStart against 10/1,000/10,000 tasks and repositories
- ``bigfiles``: the prompt and SessionStart hooks against tasks/context file size
- ``statusline``: the status line command as Claude Code runs it, beside the floor
- ``accuracy``: time invested vs the ground truth of a scripted week replayed through the
  hooks under libfaketime (new turn model and heartbeat-only model; docs/time.md)
- ``history``: every read (reports, ``time``, the dashboard's task list, the hooks, the
  status line) against ``--years N`` (default 3) of heavy use written through the
  product's write path, and the bytes of tasks.db (docs/history.md)

Results go to ``bench-results/bench-<time>.{json,md}`` (and ``latest.*``).

    uv run scripts/bench.py
    uv run scripts/bench.py --quick --parts hooks,heartbeats
    uv run scripts/bench.py --python /usr/bin/python3.9
    uv run scripts/bench.py --parts hooks --plugin /tmp/my-plugin-build
    uv run scripts/bench.py --parts hooks --baseline /tmp/last-release-build

The hooks run with ``python3`` resolved to one real interpreter (default: the one behind
``python3`` on PATH; a startup warning says when its site-packages make the floor slow).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import PARTS, report
from bench.common import REPO, Bench
from bench.machine import machine_info
from bench.plugin import build, compile_bundle


def default_python() -> str:
    """The real interpreter behind ``python3`` on PATH (through any pyenv shim)."""
    found = shutil.which("python3", path=_path_without_venv())
    if found is None:
        return sys.executable
    code = "import sys; print(sys.executable)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = _path_without_venv()
    try:
        out = subprocess.check_output([found, "-c", code], env=env, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return found
    return out.strip() or found


def _path_without_venv() -> str:
    """PATH as the user has it: ``uv run`` puts the project venv first."""
    venv = os.environ.get("VIRTUAL_ENV")
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    if venv:
        entries = [e for e in entries if not e.startswith(venv)]
    return os.pathsep.join(entries)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(  # history builds years of events: only when asked
        "--parts",
        default=",".join(p for p in PARTS if p != "history"),
        help="comma-separated parts",
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs, smaller sizes")
    parser.add_argument("--runs", type=int, help="runs per hook figure (default 30, quick 10)")
    parser.add_argument("--python", help="interpreter for the hooks (default: python3 on PATH)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results", help="output dir")
    parser.add_argument("--scratch", type=Path, help="where temp homes go (default: tmp)")
    parser.add_argument(
        "--plugin",
        type=Path,
        help="benchmark this built plugin tree (copied) instead of a fresh build",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a built plugin tree (copied) whose hooks run in the same rounds, for paired ratios",
    )
    parser.add_argument(
        "--years", type=float, default=3.0, help="years of history for --parts history"
    )
    args = parser.parse_args(argv)
    args.parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    args.runs = args.runs or (10 if args.quick else 30)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    PARTS["history"].YEARS = args.years
    python = os.path.realpath(args.python or default_python())
    machine = machine_info(python)
    print(f"Machine: {report.machine_line(machine)}", flush=True)
    results: dict = {
        "machine": machine,
        "config": {
            "profile": "quick" if args.quick else "full",
            "runs": args.runs,
            "parts": args.parts,
            "plugin": str(args.plugin) if args.plugin else "fresh build of the working tree",
            "baseline": str(args.baseline) if args.baseline else None,
            "command": " ".join(["uv run scripts/bench.py", *(argv or sys.argv[1:])]),
        },
        "parts": {},
        "targets": [],
    }
    sections = []
    with tempfile.TemporaryDirectory(prefix="mc-bench-", dir=args.scratch) as tmp:
        if args.plugin:
            plugin, missing = Path(tmp) / "plugin", None
            shutil.copytree(args.plugin, plugin, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            plugin, missing = build(Path(tmp) / "plugin")
        baseline = None
        if args.baseline:
            copy = Path(tmp) / "baseline"
            shutil.copytree(args.baseline, copy, ignore=shutil.ignore_patterns("__pycache__"))
            compile_bundle(copy, python)
            baseline = Bench(python, copy, Path(tmp) / "baseline-homes", args.quick, args.runs)
        results["config"]["bundle"] = compile_bundle(plugin, python)
        bench = Bench(python, plugin, Path(tmp) / "homes", args.quick, args.runs, baseline)
        for name in args.parts:
            module = PARTS[name]
            if getattr(module, "NEEDS_HOOKS", False) and missing:
                print(f"[{name}] skipped: plugin has no hooks ({missing})", flush=True)
                results["parts"][name] = {"skipped": missing}
                continue
            print(f"[{name}] {module.__doc__.splitlines()[0]}", flush=True)
            started = time.perf_counter()
            result = module.run(bench)
            result["elapsed_s"] = round(time.perf_counter() - started, 1)
            results["parts"][name] = result
            results["targets"] += result.get("targets", [])
            sections.append(module.markdown(result))
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    machine["loadavg_end"] = [round(x, 2) for x in load] if load else None
    text = report.markdown(results, sections)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    json_path, md_path = report.write(args.out, stamp, results, text)
    print("\n" + text)
    print(f"wrote {json_path} and {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

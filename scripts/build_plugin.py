#!/usr/bin/env python3
"""Assemble the installable plugin tree ``plugin/`` from the workspace packages.

Claude Code installs a plugin by copying a directory, with no install step, so the
hooks' libraries travel inside it (``plugin/lib/``) and the hook scripts are
plain files. The output is deterministic (sorted, fixed bytes) and committed, so a
marketplace install from git works; ``--check`` fails when ``plugin/`` is stale.

Usage: ``uv run scripts/build_plugin.py [--check] [--out DIR]``
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = REPO / "packages"
HAND_WRITTEN = REPO / "plugin-src"

# Libraries the hooks, the command line and the slash commands (bin/missioncache,
# slash/slash.py) import at run time, bundled as plugin/lib/<module>/: the list the root
# pyproject.toml names once ([tool.missioncache] libraries).
NAMED_ONCE = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
LIBRARIES = {name: name.replace("-", "_") for name in NAMED_ONCE["missioncache"]["libraries"]}

# Scripts that are not hooks: (package, script, path in the plugin). The status line is
# run from the user's settings.json (through the launcher `statusline install` writes);
# slash/slash.py is what the slash commands' files run.
SCRIPTS = [
    ("missioncache-statusline", "statusline.py", "statusline/statusline.py"),
    ("missioncache-slash", "slash.py", "slash/slash.py"),
]

# The `pm` MCP server: plugin.json runs `uvx --from "${CLAUDE_PLUGIN_ROOT}/missioncache-pm"
# missioncache-pm`, so its installable source tree (not just the module) is shipped.
PM_SERVER = "missioncache-pm"
PM_SERVER_FILES = ("pyproject.toml", "README.md")

# The dashboard, also run through uvx (`missioncache dashboard`), with its page's files.
DASHBOARD = "missioncache-dashboard"
DASHBOARD_STATIC = "src/missioncache_dashboard/static"

# The team's server side (psycopg), run through uvx by `missioncache team` and the push.
TEAMDB = "missioncache-teamdb"

# Every hook's started script (hooks/<script>); the hook itself is its package's _<script>.
HOOK_SCRIPT = PACKAGES / "missioncache-hookio" / "hook.py"

# (event, hook package, script, timeout in seconds) in hooks.json order.
HOOKS = [
    ("SessionStart", "hook-session-start", "session_start.py", 10),
    ("UserPromptSubmit", "hook-activity-tracker", "activity_tracker.py", 5),
    ("UserPromptSubmit", "hook-task-tracker", "task_tracker.py", 5),
    ("PreCompact", "hook-pre-compact", "pre_compact.py", 30),
    ("PostCompact", "hook-post-compact", "post_compact.py", 10),
    ("Stop", "hook-stop", "stop.py", 10),
    ("StopFailure", "hook-stop-failure", "stop_failure.py", 5),
]


def hook_command(script: str) -> str:
    """The shell command Claude Code runs for a hook: ``"${CLAUDE_PLUGIN_ROOT}/hooks/run" <hook>``.

    Claude Code shows PreCompact's and PostCompact's command as written to the person (and
    sends that line to the model on later turns), so the command carries no shell code:
    ``hooks/run`` (plugin-src) runs ``hooks/<hook>.py`` through ``hooks/launch.sh``, which
    picks the Python (Windows included), and always exits 0, since exit 2 blocks the prompt
    or the compaction. Run by its path, not with ``sh`` or ``.``: dash exits 2 on a missing
    file it is asked to read, while a missing program is exit 127, which does not block.
    The double quotes keep a plugin path with spaces whole.
    """
    return f'"${{CLAUDE_PLUGIN_ROOT}}/hooks/run" {script.removesuffix(".py")}'


def hooks_json() -> dict:
    events: dict[str, list[dict]] = {}
    for event, _package, script, timeout in HOOKS:
        entry = {"type": "command", "command": hook_command(script), "timeout": timeout}
        events.setdefault(event, [{"hooks": []}])[0]["hooks"].append(entry)
    return {"hooks": events}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# A library's pytest fixtures for other packages' tests (``missioncache_db.testing``): they
# import pytest and are never run by the plugin, so they are not shipped.
TEST_ONLY = "testing.py"


def _copy_python_tree(src: Path, dest: Path) -> None:
    for file in sorted(src.rglob("*.py")):
        if "__pycache__" in file.parts or file.relative_to(src).as_posix() == TEST_ONLY:
            continue
        _write(dest / file.relative_to(src), file.read_bytes())


def _dump(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _copy_pm_server(out: Path) -> None:
    source = PACKAGES / PM_SERVER
    for name in PM_SERVER_FILES:
        if (source / name).is_file():
            _write(out / PM_SERVER / name, (source / name).read_bytes())
    _copy_python_tree(source / "src", out / PM_SERVER / "src")


def _copy_dashboard(out: Path) -> None:
    source = PACKAGES / DASHBOARD
    for name in PM_SERVER_FILES:
        _write(out / DASHBOARD / name, (source / name).read_bytes())
    _copy_python_tree(source / "src", out / DASHBOARD / "src")
    for file in sorted((source / DASHBOARD_STATIC).iterdir()):
        if file.is_file():
            _write(out / DASHBOARD / DASHBOARD_STATIC / file.name, file.read_bytes())


def _copy_teamdb(out: Path) -> None:
    source = PACKAGES / TEAMDB
    for name in PM_SERVER_FILES:
        _write(out / TEAMDB / name, (source / name).read_bytes())
    _copy_python_tree(source / "src", out / TEAMDB / "src")


def build(out: Path) -> None:
    """Write the complete plugin tree into ``out`` (which must be empty or absent)."""
    for package, module in LIBRARIES.items():
        _copy_python_tree(PACKAGES / package / "src" / module, out / "lib" / module)
    _copy_pm_server(out)
    _copy_dashboard(out)
    _copy_teamdb(out)
    for _event, package, script, _timeout in HOOKS:
        # The script started is the same few lines for every hook; it imports the hook's
        # body, whose byte code is then cached (missioncache_hookio.output.run_body).
        _write(out / "hooks" / script, HOOK_SCRIPT.read_bytes())
        _write(out / "hooks" / f"_{script}", (PACKAGES / package / f"_{script}").read_bytes())
    _write(out / "hooks" / "hooks.json", _dump(hooks_json()))
    for package, script, dest in SCRIPTS:
        _write(out / dest, (PACKAGES / package / script).read_bytes())
    for file in sorted(HAND_WRITTEN.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            _write(out / file.relative_to(HAND_WRITTEN), file.read_bytes())
            if file.parent.name == "bin" or file.name == "run":  # run by path: executable
                (out / file.relative_to(HAND_WRITTEN)).chmod(0o755)


def _tree(root: Path) -> set[str]:
    """The files of a plugin tree, byte-code caches left out: Python writes ``__pycache__``
    into an installed plugin as soon as its hooks run (the demo does, on ``plugin/``), and
    git ignores them, so they are never part of what is built or committed."""
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def stale_files(built: Path, committed: Path) -> list[str]:
    """Files that differ between a fresh build and the committed tree."""
    if not committed.is_dir():
        return ["plugin/ (missing)"]
    new, old = _tree(built), _tree(committed)
    changed = [
        f
        for f in sorted(new & old)
        if not filecmp.cmp(built / f, committed / f, False)
        # a launcher that lost its executable bit cannot be run by its path
        or os.access(built / f, os.X_OK) != os.access(committed / f, os.X_OK)
    ]
    return sorted(new ^ old) + changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when plugin/ is stale")
    parser.add_argument("--out", type=Path, default=REPO / "plugin", help="output directory")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "plugin"
        build(fresh)
        if args.check:
            stale = stale_files(fresh, args.out)
            if stale:
                print(
                    f"{args.out} is stale; run `uv run scripts/build_plugin.py`:", file=sys.stderr
                )
                for name in stale:
                    print(f"  {name}", file=sys.stderr)
                return 1
            print(f"{args.out} is up to date")
            return 0
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(fresh, args.out)
    print(f"built {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

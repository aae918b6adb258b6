"""Running the server side, ``missioncache_teamdb`` (psycopg), from the standard library.

WHY a hand-over: psycopg is a third-party package and the command line and the hooks run
under the person's own Python with the standard library only. So, like the dashboard:
``python -m missioncache_teamdb`` with this Python where it and psycopg import (the
development workspace), else ``uvx --from <plugin>/missioncache-teamdb
missioncache-teamdb ...``, offline first (uv's cache), then online; without uv, a message
that says how to get it.
"""

from __future__ import annotations

import os
import sys

PACKAGE = "missioncache-teamdb"
NO_UV = (
    "the team's server is reached through uv's `uvx`, which is not installed: install uv"
    " (https://docs.astral.sh/uv/getting-started/installation/), then try again"
)


def plugin_root() -> str:
    """The plugin this module was bundled into (``<root>/lib/missioncache_team/``), or the
    checkout's ``packages`` folder (which holds ``missioncache-teamdb`` too)."""
    here = os.path.dirname(os.path.realpath(__file__))
    bundled = os.path.dirname(os.path.dirname(here))
    if os.path.isdir(os.path.join(bundled, PACKAGE)):
        return bundled
    packages = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    return packages


def _in_process() -> bool:
    import importlib.util

    try:
        return all(
            importlib.util.find_spec(m) is not None for m in ("psycopg", "missioncache_teamdb")
        )
    except (ImportError, ValueError):
        return False


def uvx_argv(args: list[str], offline: bool) -> list[str]:
    import shutil

    uvx = shutil.which("uvx")
    if uvx is None:
        raise RuntimeError(NO_UV)
    source = os.path.join(plugin_root(), PACKAGE)
    return [uvx, "--quiet", *(["--offline"] if offline else []), "--from", source, PACKAGE, *args]


def run(args: list[str]) -> int:
    """``missioncache-teamdb ARGS`` here or through uvx; its output goes to ours."""
    import subprocess

    env = dict(os.environ)
    env["MISSIONCACHE_PLUGIN_ROOT"] = plugin_root()
    lib = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    env["MISSIONCACHE_LIB"] = lib
    if _in_process():
        here = [sys.executable, "-m", "missioncache_teamdb", *args]
        return subprocess.run(here, env=env, check=False).returncode
    check = subprocess.run(
        uvx_argv(["--check"], True),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    argv = uvx_argv(args, check.returncode == 0)
    try:
        done = subprocess.run(argv, env=env, check=False)
    except OSError as error:
        raise RuntimeError(f"could not start {argv[0]}: {error}") from None
    if done.returncode == 2 and check.returncode != 0:
        print(
            "the team's client could not be installed by uvx (it needs psycopg from PyPI"
            " once); check the network, then try again",
            file=sys.stderr,
        )
    return done.returncode

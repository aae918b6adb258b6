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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["MISSIONCACHE_PLUGIN_ROOT"] = plugin_root()
    env["MISSIONCACHE_LIB"] = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return env


def run(args: list[str], timeout: float | None = None) -> int:
    """``missioncache-teamdb ARGS`` here or through uvx; its output goes to ours.
    ``timeout``: seconds for the whole run (the install check included), after which the
    client and its children are killed and ``TimedOut`` is raised; no uv raises
    ``RuntimeError``. Without one (a person at a terminal) the client stays in our
    process group, so Ctrl-C reaches it."""
    import time

    env = _env()
    deadline = None if timeout is None else time.monotonic() + timeout
    if _in_process():
        here = [sys.executable, "-m", "missioncache_teamdb", *args]
        return _bounded(here, env, deadline, capture=False)[0]
    check, _out, _err = _bounded(uvx_argv(["--check"], True), env, deadline)
    argv = uvx_argv(args, check == 0)
    code = _bounded(argv, env, deadline, capture=False)[0]
    if code == 2 and check != 0:
        print(
            "the team's client could not be installed by uvx (it needs psycopg from PyPI"
            " once); check the network, then try again",
            file=sys.stderr,
        )
    return code


class TimedOut(Exception):
    """The server side did not finish within the time it was given (and was stopped)."""


def output(args: list[str], timeout: float) -> tuple[int, str, str]:
    """``missioncache-teamdb ARGS`` (here or through uvx, as ``run``) with its output
    captured: (exit code, stdout, stderr). WHY a deadline over the whole run: the
    dashboard asks this while a page waits, and a server that accepts the connection but
    never answers must cost seconds, not the page. Past ``timeout`` the process and its
    children are killed and ``TimedOut`` is raised; no uv raises ``RuntimeError``."""
    import time

    env = _env()
    deadline = time.monotonic() + timeout
    if _in_process():
        argv = [sys.executable, "-m", "missioncache_teamdb", *args]
    else:
        code, _out, _err = _bounded(uvx_argv(["--check"], True), env, deadline)
        argv = uvx_argv(args, code == 0)
    return _bounded(argv, env, deadline)


def _bounded(
    argv: list[str], env: dict[str, str], deadline: float | None, capture: bool = True
) -> tuple[int, str, str]:
    """Run ``argv`` until it ends or ``deadline`` (``time.monotonic``) passes: (exit code,
    stdout, stderr), both empty unless ``capture`` (else the output is ours). With a
    deadline the child leads a session of its own, so that uvx's own child is killed
    with it."""
    import subprocess
    import time

    posix = os.name == "posix"
    pipe = subprocess.PIPE if capture else None
    try:
        child = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL if capture else None,
            stdout=pipe,
            stderr=pipe,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=posix and deadline is not None,
        )
    except OSError as error:
        raise RuntimeError(f"could not start {argv[0]}: {error}") from None
    left = None if deadline is None else max(0.1, deadline - time.monotonic())
    try:
        out, err = child.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        _kill(child, posix)
        child.communicate()
        raise TimedOut() from None
    return child.returncode, out or "", err or ""


def _kill(child: Any, posix: bool) -> None:
    if posix:
        import signal

        try:
            os.killpg(child.pid, signal.SIGKILL)  # uvx's own child too
            return
        except OSError:
            pass
    child.kill()

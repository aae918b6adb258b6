"""``missioncache dashboard [start|stop|install|uninstall] [--port N]``: a thin front for
``missioncache_dashboard`` (docs/dashboard.md), imported only when this command runs.

WHY a front that may hand over to uvx: the dashboard needs Starlette and uvicorn, and this
command line runs under the user's own Python with the standard library only. So:

- ``install``/``uninstall``/``stop`` and reading ``running.json`` are standard library
  (``missioncache_dashboard.install`` and ``.running``), imported from the plugin's
  ``missioncache-dashboard/src`` (or the workspace) and run here.
- Serving runs in this process when Starlette and uvicorn are importable (the
  development workspace), else through ``uvx --from <plugin>/missioncache-dashboard``,
  offline first, like the ``pm`` server; without uv it says how to get it.
- ``start`` serves in the background and prints the URL (what ``/missioncache:dashboard``
  runs); a dashboard already running is reused. ``stop`` ends it, and takes out the http
  hooks a dashboard that was killed left wired; ``tidy`` only does the latter (the hooks
  start it when they find such hooks).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from typing import Callable

from missioncache_state.command import missioncache_command

DEFAULT_PORT = 8787
START_WAIT_SECONDS = 60.0  # uvx may first have to build the package into its cache
ACTIONS = ("serve", "start", "stop", "install", "uninstall", "tidy")


def plugin_root() -> str:
    """The plugin this module was bundled into (``<root>/lib/missioncache_cli/``), or
    ``plugin/`` of the checkout it comes from."""
    here = os.path.dirname(os.path.realpath(__file__))
    bundled = os.path.dirname(os.path.dirname(here))
    if os.path.isdir(os.path.join(bundled, "missioncache-dashboard")):
        return bundled
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(bundled))))
    return os.path.join(checkout, "plugin") if os.path.isdir(checkout) else bundled


def dashboard_package() -> str:
    return os.path.join(plugin_root(), "missioncache-dashboard")


def _importable() -> None:
    """Make ``missioncache_dashboard`` importable: the workspace's, else the plugin's."""
    if importlib.util.find_spec("missioncache_dashboard") is None:
        source = os.path.join(dashboard_package(), "src")
        if not os.path.isdir(os.path.join(source, "missioncache_dashboard")):
            raise ValueError(f"the dashboard is missing from the plugin ({source})")
        sys.path.insert(0, source)
        importlib.invalidate_caches()


def _can_serve_here() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("starlette", "uvicorn"))


def _uvx_argv(port: int, offline: bool, check: bool = False) -> list:
    uvx = shutil.which("uvx")
    if uvx is None:
        raise ValueError(
            "the dashboard runs through uv's `uvx`, which is not installed: install uv "
            "(https://docs.astral.sh/uv/getting-started/installation/), then run "
            f"`{missioncache_command()} dashboard` again"
        )
    argv = [uvx, *(["--offline"] if offline else []), "--from", dashboard_package()]
    return [*argv, "missioncache-dashboard", *(["--check"] if check else ["--port", str(port)])]


def serve(port: int) -> int:
    """Serve in the foreground until Ctrl-C."""
    _importable()
    if _can_serve_here():
        from missioncache_dashboard.server import main

        return main(["--port", str(port)])
    env = dict(os.environ, MISSIONCACHE_PLUGIN_ROOT=plugin_root())
    offline = subprocess.run(
        _uvx_argv(port, True, check=True),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    try:
        return subprocess.run(
            _uvx_argv(port, offline.returncode == 0), env=env, check=False
        ).returncode
    except KeyboardInterrupt:
        return 0


def start(port: int) -> int:
    """Serve in the background (or find the one running) and print its URL."""
    _importable()
    from missioncache_dashboard.running import answers, log_path, page_url, running

    found = running()
    if found is not None:
        print(f"MissionCache dashboard: {page_url(found['port'])} (already running)")
        return 0
    os.makedirs(os.path.dirname(log_path()), exist_ok=True)
    library = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (library, env.get("PYTHONPATH")) if p)
    argv = [sys.executable, "-m", "missioncache_cli", "dashboard", "--port", str(port)]
    with open(log_path(), "ab") as log:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_WAIT_SECONDS
    while time.monotonic() < deadline:
        if answers(port, 0.5):
            print(f"MissionCache dashboard: {page_url(port)}")
            print(
                f"(it runs in the background; `{missioncache_command()} dashboard stop` stops it;"
            )
            print(f" its log: {log_path()})")
            return 0
        if child.poll() is not None:
            break
        time.sleep(0.2)
    raise ValueError(f"the dashboard did not start: {_last_line(log_path())}")


def _last_line(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            lines = handle.read()[-4000:].decode("utf-8", "replace").strip().splitlines()
    except OSError:
        lines = []
    return lines[-1] if lines else f"see {path}"


def stop() -> int:
    _importable()
    import signal

    from missioncache_dashboard.running import running

    found = running()
    if found is None or not isinstance(found.get("pid"), int):
        print("no MissionCache dashboard is running")
        _unwire_left_over()
        return 0
    os.kill(found["pid"], signal.SIGTERM)
    print(f"stopped the MissionCache dashboard on port {found['port']}")
    return 0


def tidy() -> int:
    """Take out the http hooks a dead dashboard left wired, and nothing else: what the
    hooks start, detached, when they find them (``missioncache_hookio.dashboard_left``);
    a dashboard that answers keeps its hooks and is never signalled."""
    _importable()
    from missioncache_dashboard.running import running

    if running() is None:
        _unwire_left_over()
    return 0


def _unwire_left_over() -> None:
    """A dashboard that died without its shutdown (killed, a crash) left its http hooks
    wired: each shows ``hook failed`` under every prompt and edit until they go."""
    from missioncache_dashboard import install

    try:
        if install.wired_port(install.read_settings()) is not None:
            print(install.unwire())
    except install.InstallError as error:
        print(f"the dashboard's http hooks could not be checked: {error}")


def cmd_dashboard(args: argparse.Namespace) -> int:
    if args.action in ("install", "uninstall"):
        if args.port_text.strip().isdigit():
            args.port = int(args.port_text.strip())
        _importable()
        from missioncache_dashboard import install

        try:
            done = install.install(args.port) if args.action == "install" else install.uninstall()
        except install.InstallError as error:
            raise ValueError(str(error)) from error
        print(done)
        return 0
    if args.port_text.strip():  # /missioncache:dashboard 8790
        if not args.port_text.strip().isdigit():
            raise ValueError(f"invalid port {args.port_text.strip()[:20]!r}: a number, e.g. 8787")
        args.port = int(args.port_text.strip())
    if not 0 < args.port < 65536:
        raise ValueError(f"invalid port {args.port}: use 1 to 65535")
    if args.action == "start":
        return start(args.port)
    if args.action == "stop":
        return stop()
    if args.action == "tidy":
        return tidy()
    return serve(args.port)


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add(
        "dashboard",
        cmd_dashboard,
        "serve the local dashboard (start: in the background; install: its http hooks)",
    )
    command.add_argument("action", nargs="?", choices=ACTIONS, default="serve")
    # The slash command's argument: a port, or nothing.
    command.add_argument("port_text", nargs="?", default="", help=argparse.SUPPRESS)
    command.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 ({DEFAULT_PORT})"
    )

"""Start a background process and leave it running: the UserPromptSubmit heartbeat.

WHY not ``subprocess``: importing it (with signal handling, threading, selectors and
locale) costs about 4 ms of a ~12 ms interpreter start, on every prompt, to start one
process we never wait for. ``os.posix_spawn`` (glibc and macOS implement it with vfork)
does the same job from the ``os`` module that is already loaded. Where it is missing or
refuses an option, ``subprocess`` is the fallback, with the same guarantees.

On Windows (no ``posix_spawn``) the child is started with ``DETACHED_PROCESS`` and
``CREATE_NEW_PROCESS_GROUP``: it outlives the hook and its console.

Guarantees either way: stdin, stdout and stderr are ``/dev/null`` and no other inheritable
descriptor reaches the child (so Claude Code, which waits for its pipes to close, never
waits for the child), the child runs in a session of its own (a terminal's hangup or
Ctrl-C does not reach it), in ``cwd``, with exactly ``env``.
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


def spawn_detached(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> int:
    """Start ``argv`` (``argv[0]`` an absolute executable path) detached; returns its pid.
    Raises OSError when it cannot be started at all."""
    if hasattr(os, "posix_spawn") and hasattr(os, "POSIX_SPAWN_OPEN"):
        try:
            return _posix_spawn(list(argv), cwd, dict(env))
        except (NotImplementedError, ValueError, TypeError):
            pass  # an option this platform's posix_spawn lacks: use subprocess
    return _subprocess_spawn(list(argv), cwd, dict(env))


def start_debounced(module_args: Sequence[str], stamp: str, debounce: float) -> bool:
    """Start ``python -S -m <module_args>`` detached from the data root, with the bundled
    libraries on its path, unless ``stamp`` was touched less than ``debounce`` seconds ago
    (0: always); touches it. The hooks' background children (sync, the team push) share
    this rule. Returns whether a child was started; raises OSError when it could not be."""
    import time

    if debounce > 0:
        try:
            if time.time() - os.stat(stamp).st_mtime < debounce:
                return False
        except OSError:
            pass
    with open(stamp, "a"):
        pass
    os.utime(stamp, None)
    from missioncache_state.locations import data_root

    env = os.environ.copy()
    lib = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join([lib] + ([existing] if existing else []))
    spawn_detached([sys.executable, "-S", "-m", *module_args], data_root(), env)
    return True


def _inheritable_fds() -> list[int]:
    """Descriptors above stderr that a child would inherit (Python's own are all
    close-on-exec; a launching program may have left others open)."""
    found = []
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            fd = int(name) if name.isdigit() else -1
            if fd > 2:
                try:
                    if os.get_inheritable(fd):
                        found.append(fd)
                except OSError:  # the descriptor listdir itself used, now closed
                    pass
        return found
    return found


def _posix_spawn(argv: list[str], cwd: str, env: dict[str, str]) -> int:
    """posix_spawn has no working-directory option (before glibc's ``_np`` extension),
    so the parent steps into ``cwd`` around the call and back out."""
    actions: list[tuple[object, ...]] = [
        (os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)
    ]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds()]
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return os.posix_spawn(argv[0], argv, env, file_actions=actions, setsid=True)
    finally:
        os.chdir(previous)


def _subprocess_spawn(argv: list[str], cwd: str, env: dict[str, str]) -> int:
    import subprocess

    flags = 0  # must be 0 on POSIX
    if sys.platform == "win32":
        # Windows has no sessions: the child gets no console (nothing flashes, the
        # console closing does not end it) and a process group of its own (a Ctrl-C or
        # Ctrl-Break sent to the hook's group does not reach it).
        flags = getattr(subprocess, "DETACHED_PROCESS", 0x8) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200
        )
    child = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        start_new_session=True,  # POSIX only; ignored on Windows
        creationflags=flags,
    )
    return child.pid

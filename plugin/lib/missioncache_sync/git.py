"""Running git in the data root, bounded and non-interactive.

A sync runs detached after a turn or from a person's shell; either way git must never
wait for a password prompt, a pager or an editor, and a network command must end by its
timeout even when ssh hangs: git runs in its own process group, which is killed whole.
"""

from __future__ import annotations

import os
import signal
import subprocess

from missioncache_state.locations import data_root

LOCAL_TIMEOUT = 30.0


class GitError(Exception):
    """git failed, could not be run, or ran out of time (``timed_out``)."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


def _env(network_timeout: float) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
        GIT_PAGER="cat",
        GIT_EDITOR="true",
        GIT_MERGE_AUTOEDIT="no",
        LC_ALL="C",
    )
    env.pop("GIT_DIR", None)  # a caller's repository must never stand in for the data root
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    if "GIT_SSH_COMMAND" not in env and "GIT_SSH" not in env:
        seconds = max(1, int(network_timeout))
        env["GIT_SSH_COMMAND"] = f"ssh -o BatchMode=yes -o ConnectTimeout={seconds}"
    return env


def git(
    *args: str,
    timeout: float = LOCAL_TIMEOUT,
    check: bool = True,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess:
    """``git -C <data root> ARGS``; GitError when it fails (``check``), cannot start or
    runs past ``timeout`` seconds (then its whole process group is killed)."""
    argv = ["git", "-C", data_root(), "-c", "core.quotepath=off", "-c", "commit.gpgsign=false"]
    argv += list(args)
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(timeout),
            start_new_session=True,
        )
    except OSError as error:
        raise GitError(f"git could not be run: {error}") from error
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise GitError(f"git {args[0]} took longer than {timeout:g} s", timed_out=True) from None
    result = subprocess.CompletedProcess(argv, process.returncode, out, err)
    if check and result.returncode != 0:
        raise GitError(_message(args[0], result))
    return result


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        process.kill()
    process.communicate()


def _message(command: str, result: subprocess.CompletedProcess) -> str:
    text = (result.stderr or result.stdout or b"").decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
    return f"git {command}: {' '.join(lines[-2:]) or f'exit status {result.returncode}'}"


def text(*args: str, timeout: float = LOCAL_TIMEOUT) -> str:
    """The stripped stdout of a git command that must succeed."""
    out: bytes = git(*args, timeout=timeout).stdout
    return out.decode("utf-8", "replace").strip()

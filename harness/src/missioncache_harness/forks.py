"""Git repositories with linked worktrees, the ground every fork test stands on (docs/forks.md).

WHY here: a fork is tied to a linked git worktree of its parent's repository, so the library's
tests, the hook's and the real-CLI ones all need the same few git commands; written once they
make the same repository everywhere (one empty commit, worktrees added with ``git worktree``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# An empty commit needs an author; these keep the test off the developer's git config.
_AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@t")


def git(*args: str, cwd: Path) -> None:
    """``git ARGS`` in ``cwd``; raises when it fails (the output is captured)."""
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


def require_git(what: str = "the fork tests") -> None:
    """Skip the test where git is missing; with ``CI`` set, fail it (CI never skips)."""
    if shutil.which("git") is None:
        if os.environ.get("CI"):
            pytest.fail(f"git is needed for {what}")
        pytest.skip("git is not installed")


def repo_with_worktrees(main: Path, *worktrees: Path) -> Path:
    """``main``: a new repository with one empty commit, and each of ``worktrees`` a linked
    worktree of it (a path inside ``main`` works too, as Claude Code's ``.claude/worktrees``)."""
    main.mkdir(parents=True)
    git("init", "-q", cwd=main)
    git(*_AUTHOR, "commit", "-q", "--allow-empty", "-m", "i", cwd=main)
    for worktree in worktrees:
        git("worktree", "add", "-q", str(worktree), cwd=main)
    return main

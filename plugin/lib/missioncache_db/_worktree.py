"""Which main repository a linked ``git worktree`` belongs to, read from files alone.

A linked worktree has a ``.git`` *file* (``gitdir: <repo>/.git/worktrees/<name>``), and
that directory's ``commondir`` names the repository's own ``.git``, whose parent is the
main worktree. Reading three small files answers it in microseconds; a ``git`` process
would cost every prompt tens of milliseconds (this runs on the hook path). A submodule
also has a ``.git`` file but no ``commondir``: it is its own repository, not a worktree.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

_READ_LIMIT = 4096  # a .git file or commondir is one short line


def _first_line(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_READ_LIMIT)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    return lines[0].strip() if lines else None


def _gitdir(dotgit: str) -> str | None:
    """The directory a ``.git`` file points at (relative paths are from its folder)."""
    line = _first_line(dotgit)
    if not line or not line.startswith("gitdir:"):
        return None
    target = line[len("gitdir:") :].strip()
    if not target:
        return None
    return os.path.join(os.path.dirname(dotgit), target)


def linked_worktree(path: str) -> tuple[str, str] | None:
    """``(top of the linked worktree holding path, top of its main worktree)``, or None
    when ``path`` is in no linked worktree (a main worktree, a plain directory, a
    submodule, a worktree of a bare repository: nothing to map it to)."""
    current = path
    while True:
        dotgit = os.path.join(current, ".git")
        if os.path.isdir(dotgit):
            return None  # a main worktree: it is its own repository
        if os.path.isfile(dotgit):
            return _main_of(current, dotgit)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _main_of(top: str, dotgit: str) -> tuple[str, str] | None:
    gitdir = _gitdir(dotgit)
    if gitdir is None:
        return None
    common = _first_line(os.path.join(gitdir, "commondir"))
    if not common:
        return None
    common_dir = os.path.realpath(os.path.join(gitdir, common))
    if os.path.basename(common_dir) != ".git":
        return None  # a bare repository has no main worktree
    main = os.path.dirname(common_dir)
    return (top, main) if main != top else None


def main_repository_path(real_cwd: str) -> str | None:
    """``real_cwd`` seen from the main worktree (the same place below the top), or None
    when it is in no linked worktree."""
    found = linked_worktree(real_cwd)
    if found is None:
        return None
    top, main = found
    rel = os.path.relpath(real_cwd, top)
    return main if rel == os.curdir else os.path.join(main, rel)

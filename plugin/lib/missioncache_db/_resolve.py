"""Which task is this session on? (data model section 4; first match wins)

1. the session binding (by ``taskId``; legacy bindings by a unique name),
2. a cwd inside ``<root>/active/<p0>[/<p1>]`` (deepest first),
3. a cwd inside a registered repository with exactly one active task (a fork tied to
   that directory wins over its parent there; a linked git worktree with no task of its
   own counts as its main repository: docs/forks.md),
4. otherwise nothing.
"""

from __future__ import annotations

import sys

from missioncache_db._model import OPEN_STATUSES, Task
from missioncache_db._tasks import get_task, query_tasks
from missioncache_state import lean_os as os
from missioncache_state.bindings import read_session_binding
from missioncache_state.locations import data_root
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import SessionId

_UNRESOLVED = object()  # the binding decided "no task": stop, do not look at the cwd


def find_task_for_cwd(
    conn: sqlite3.Connection, cwd: str | os.PathLike, session_id: SessionId | None = None
) -> Task | None:
    bound = _from_binding(conn, session_id)
    if bound is _UNRESOLVED:
        return None
    if isinstance(bound, Task):
        return bound
    real_cwd = os.path.realpath(os.fspath(cwd))
    return _from_data_root(conn, real_cwd) or _from_repository(conn, real_cwd)


def _from_binding(conn: sqlite3.Connection, sid: SessionId | None) -> object:
    """A Task, ``_UNRESOLVED`` (ambiguous legacy name), or None (go on to the cwd).

    The id comes parsed; ``read_session_binding`` checks it where it becomes a file name,
    so an id that is not one reads no binding. A binding by ``taskId`` to a task that is
    gone or closed does not fall back to the name it also records: that name may since
    belong to a different task.
    """
    binding = read_session_binding(sid) if sid else None
    if binding is None:
        return None
    task_id = binding.get("taskId")
    if task_id is not None:
        task = get_task(conn, task_id)
        return task if task is not None and task.is_open else None
    name = binding.get("projectName")
    if not isinstance(name, str):
        return None
    candidates = query_tasks(
        conn, "WHERE t.name = ? AND t.status IN (?, ?)", (name, *OPEN_STATUSES)
    )
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        _breadcrumb(sid, name, candidates)
        return _UNRESOLVED
    return None


def _breadcrumb(sid: SessionId | None, name: str, candidates: list[Task]) -> None:
    shown = ascii(name[:80])
    paths = ", ".join(task.full_path for task in candidates[:5])
    print(
        f"missioncache: session {sid} is bound by name to {shown}, which {len(candidates)} "
        f"open tasks share ({paths}); no task chosen, run /missioncache:load <name>",
        file=sys.stderr,
    )


def _from_data_root(conn: sqlite3.Connection, real_cwd: str) -> Task | None:
    active = os.path.join(os.path.realpath(data_root()), "active")
    try:
        rel = os.path.relpath(real_cwd, active)
    except ValueError:  # another drive on Windows
        return None
    parts = rel.split(os.sep)
    if rel == os.curdir or parts[0] == os.pardir:
        return None
    keys = ["active/" + "/".join(parts[:depth]) for depth in (2, 1) if len(parts) >= depth]
    keys = [key for key in keys if _storable(key)]
    for key in keys:
        found = query_tasks(conn, "WHERE t.full_path = ? AND t.status = 'active'", (key,))
        if found:
            return found[0]
    return None


def _storable(path: str) -> bool:
    """Whether ``path`` can be a stored (UTF-8) path. POSIX paths are bytes: a directory
    named with bytes that are not UTF-8 reaches us as lone surrogates, which SQLite
    refuses to bind (UnicodeEncodeError made every hook fail in such a directory). It
    can never equal a stored path, but a directory above it can."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _ancestors(real_cwd: str) -> list[str]:
    """``real_cwd`` and every directory above it that could be stored, deepest first."""
    paths, current = [], real_cwd
    while True:
        if _storable(current):
            paths.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            return paths
        current = parent


def repository_for(conn: sqlite3.Connection, real_cwd: str) -> int | None:
    """The id of the deepest registered repository containing ``real_cwd``."""
    ancestors = _ancestors(real_cwd)
    if sys.platform == "win32":
        return _windows_repository_for(conn, ancestors)
    marks = ",".join("?" * len(ancestors))
    row = conn.execute(
        f"SELECT id FROM repositories WHERE path IN ({marks}) ORDER BY length(path) DESC LIMIT 1",
        ancestors,
    ).fetchone()
    if row:
        return int(row[0])
    return _from_elsewhere(conn, ancestors)


def _from_elsewhere(conn: sqlite3.Connection, ancestors: list[str]) -> int | None:
    """A repository synced from another machine, where it lives at another path
    (docs/sync.md): the deepest folder above the cwd with the same git remote, or with the
    same name when either side has no remote, is it. The match is remembered (the row
    takes this machine's path) when the database is free; a busy one matches again next
    time. One indexed query, empty unless sync brought such a repository."""
    try:
        rows = conn.execute(
            "SELECT id, short_name, remote FROM repositories WHERE elsewhere = 1"
        ).fetchall()
    except sqlite3.OperationalError:  # a database from before version 4, read-only
        return None
    if not rows:
        return None
    from missioncache_db._remote import git_remote

    for folder in ancestors:
        here = git_remote(folder)
        name = os.path.basename(folder)
        for repo_id, short_name, remote in rows:
            if (remote and here and remote == here) or (
                not (remote and here) and name and name == short_name
            ):
                _adopt(conn, repo_id, folder)
                return int(repo_id)
    return None


def _adopt(conn: sqlite3.Connection, repo_id: int, folder: str) -> None:
    try:
        conn.execute(
            "UPDATE repositories SET path = ?, elsewhere = 0 WHERE id = ? AND NOT EXISTS "
            "(SELECT 1 FROM repositories WHERE path = ?)",
            (folder, repo_id, folder),
        )
    except sqlite3.Error:
        pass


def _windows_repository_for(conn: sqlite3.Connection, ancestors: list[str]) -> int | None:
    """``repository_for`` where paths name the same folder whatever their case and
    slashes (``C:\\Work\\Repo`` is ``c:/work/repo``): Windows file names are
    case-insensitive, and a repository stored by an older version, another tool or a
    path realpath could not resolve (a network share) need not be spelled as the cwd.
    WHY in Python: SQLite folds only ASCII case and knows nothing of slashes; a user has
    a handful of repositories, so reading them all costs nothing."""
    depth_of: dict[str, int] = {}
    for depth, path in enumerate(ancestors):
        depth_of.setdefault(os.path.normcase(path), depth)
    best: tuple[int, int] | None = None
    for repo_id, stored in conn.execute("SELECT id, path FROM repositories"):
        found = depth_of.get(os.path.normcase(stored)) if isinstance(stored, str) else None
        if found is not None and (best is None or found < best[0]):
            best = (found, int(repo_id))
    return best[1] if best else None


def _active_of(conn: sqlite3.Connection, real_cwd: str) -> list[Task]:
    """The active tasks of the deepest repository holding ``real_cwd``; the forks among
    them when there are any: a fork tied to a directory is what sessions there are on."""
    repo_id = repository_for(conn, real_cwd)
    if repo_id is None:
        return []
    found = query_tasks(conn, "WHERE t.repo_id = ? AND t.status = 'active'", (repo_id,))
    forks = [task for task in found if task.fork_of is not None]
    return forks or found


def active_tasks_for_cwd_repo(conn: sqlite3.Connection, cwd: str | os.PathLike) -> list[Task]:
    """The active tasks of the deepest registered repository containing ``cwd``:
    SessionStart names them when there are several. In a linked git worktree that has
    no task of its own, those of its main repository (the same git common directory)."""
    real_cwd = os.path.realpath(os.fspath(cwd))
    found = _active_of(conn, real_cwd)
    if found:
        return found
    from missioncache_db._worktree import main_repository_path

    mapped = main_repository_path(real_cwd)
    return _active_of(conn, mapped) if mapped is not None and _storable(mapped) else []


def _from_repository(conn: sqlite3.Connection, real_cwd: str) -> Task | None:
    candidates = active_tasks_for_cwd_repo(conn, real_cwd)
    return candidates[0] if len(candidates) == 1 else None

"""What a sync checks before it commits and before it merges (docs/sync.md, "Faults").

- A git killed mid-command leaves ``.git/index.lock``; every later git command would fail.
  A lock older than ``STALE_LOCK_SECONDS`` while no git runs in the data root is cleared.
- A sync killed after git's conflicting merge leaves ``MERGE_HEAD`` and git's raw markers
  in the files; ``git add -A`` would commit them. The merge is finished first, both
  versions kept between our labelled markers, as a merge that was not interrupted.
- Only ``active/`` and ``events/`` are shared. The ignore rules are written to
  ``.git/info/exclude`` on every sync (a remote ``.gitignore`` cannot let ``tasks.db``,
  ``machine-id`` or ``sync/`` in), and a remote commit that changes anything else, or
  brings a symbolic link, is refused: its content could overwrite this machine's own
  files or make a hook write outside the data root.
- A task folder that vanished here without a task delete (a purge, a folder removed by
  hand) is restored from the last sync, never sent as a deletion to the other machines.
- A link here travels as the content it points to, never as a link.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.locations import data_root
from missioncache_sync.git import GitError, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

STALE_LOCK_SECONDS = 10.0  # where no process list can be read (no /proc)
STALE_LOCK_SECONDS_SEEN = 2.0  # where /proc shows that no git works in the data root
SHARED = ("active/", "events/")
LINK_MODE = "120000"
MAX_LINKED = 8 << 20  # a linked file larger than this is not sent


class Refused(GitError):
    """The remote holds a commit this machine will not merge; the person must act."""


# -- a killed git ------------------------------------------------------------------------
def clear_stale_lock(now: float | None = None) -> bool:
    """Remove ``.git/index.lock`` when its git is gone; True when it was removed."""
    lock = os.path.join(data_root(), ".git", "index.lock")
    try:
        age = (time.time() if now is None else now) - os.lstat(lock).st_mtime
    except OSError:
        return False
    running = _git_running(data_root())
    if running or age < (STALE_LOCK_SECONDS if running is None else STALE_LOCK_SECONDS_SEEN):
        return False
    try:
        os.unlink(lock)
    except OSError:
        return False
    return True


def _git_running(root: str) -> bool | None:
    """Whether a git process works in ``root`` (Linux's /proc); None where that cannot be
    known (then the lock's age alone decides; the sync lock keeps our own gits one at a
    time)."""
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    real = os.path.realpath(root)
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
                if not handle.read().strip().startswith("git"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
            cwd = os.path.realpath(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        if cwd == real or os.fsencode(real) in argv:
            return True
    return False


# -- the ignore rules --------------------------------------------------------------------
def write_exclude(rules: str) -> None:
    """Our ignore rules in ``.git/info/exclude``, every sync: they hold whatever the
    tracked ``.gitignore`` says."""
    folder = os.path.join(data_root(), ".git", "info")
    path = os.path.join(folder, "exclude")
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == rules:
                return
    except OSError:
        pass
    os.makedirs(folder, exist_ok=True)
    if os.path.islink(path):
        os.unlink(path)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(rules)


# -- what arrives ------------------------------------------------------------------------
def check_incoming(head: str | None, ref: str, gitignore: str) -> list[str]:
    """The paths the remote changed since the common commit (all of its tree when this
    machine has no commit yet). Refused when one is not a task folder's or an event log
    (our own ``.gitignore`` excepted), or is a link."""
    base = git("merge-base", head, ref, check=False).stdout.decode().strip() if head else ""
    if base:
        raw = git("diff", "--raw", "-z", "--no-renames", base, ref).stdout
        entries = _raw_entries(raw)
    else:
        raw = git("ls-tree", "-r", "-z", ref).stdout
        entries = [
            (info.split()[0], path.decode("utf-8", "surrogateescape"))
            for info, _, path in (e.partition(b"\t") for e in raw.split(b"\0") if e)
            for info in [info.decode("ascii", "replace")]
        ]
    for mode, path in entries:
        if mode == LINK_MODE:
            raise Refused(
                f"the remote brings {path} as a symbolic link; links are never synced, so"
                " nothing was merged: replace it there by the file itself"
            )
        if path == ".gitignore" and _blob_at(ref, path) in (gitignore.encode(), None):
            continue
        if not path.startswith(SHARED):
            raise Refused(
                f"the remote has a commit that changes {path}, which MissionCache never"
                " syncs (only active/ and events/ travel), so nothing was merged: remove"
                " that commit from the remote repository, then run `missioncache sync`"
            )
    return [path for _mode, path in entries]


def _raw_entries(raw: bytes) -> list[tuple[str, str]]:
    """(new mode, path) of ``git diff --raw -z``: ``:old new sha sha status\\0path\\0``."""
    parts = raw.split(b"\0")
    found = []
    for index in range(0, len(parts) - 1, 2):
        info = parts[index].decode("ascii", "replace").split()
        if len(info) >= 2:
            found.append((info[1], parts[index + 1].decode("utf-8", "surrogateescape")))
    return found


def _blob_at(ref: str, path: str) -> bytes | None:
    result = git("cat-file", "blob", f"{ref}:{path}", check=False)
    return result.stdout if result.returncode == 0 else None


# -- what leaves -------------------------------------------------------------------------
def restore_vanished(deleted: Callable[[], set[str]]) -> list[str]:
    """Task folders whose files vanished here (their folder gone, or the context or tasks
    file itself): restored from the index, never committed as deletions, unless the
    folder is one of a task deleted with ``missioncache delete`` (``deleted()``: their
    folders, asked only when something vanished). Returns the task folders restored."""
    # Against the last commit, not the index: a lost index must not hide a deletion.
    raw = git(
        "diff", "--name-only", "-z", "--no-renames", "--diff-filter=D", "HEAD", "--", "active"
    ).stdout
    root = data_root()
    restore = []
    for path in sorted({p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p}):
        name = os.path.basename(path)
        folder = os.path.dirname(path)
        task_file = name.endswith(("-context.md", "-tasks.md")) and "/." not in path
        if task_file or not os.path.isdir(os.path.join(root, folder)):
            restore.append(path)
    if restore:
        gone = deleted()
        restore = [p for p in restore if not any(p.startswith(f + "/") for f in gone)]
    if not restore:
        return []
    git("checkout", "-q", "HEAD", "--", *restore)
    return sorted({"/".join(p.split("/")[:2]) for p in restore})


def stage_links_as_files() -> list[str]:
    """After ``git add -A``: a link under the shared folders is staged as the content of
    the file it points to (or dropped when that is not a readable file). Returns them."""
    staged = git("ls-files", "-s", "-z", "--", *SHARED).stdout
    root = data_root()
    links = []
    for entry in staged.split(b"\0"):
        info, _, raw_path = entry.partition(b"\t")
        if not info.startswith(LINK_MODE.encode()):
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        links.append(path)
        full = os.path.join(root, path)
        try:
            with open(full, "rb") as handle:
                data = handle.read(MAX_LINKED + 1)
        except OSError:
            data = None
        if data is not None and len(data) <= MAX_LINKED:
            sha = git("hash-object", "-w", "--stdin", stdin=data).stdout.decode().strip()
            git("update-index", "--cacheinfo", f"100644,{sha},{path}")
        else:
            git("rm", "-q", "--cached", "--", path)
    return links


def unlink_arrived_links() -> list[str]:
    """Links an earlier version checked out from the remote (their index entry is a link:
    the person's own links are staged as content): each becomes the plain file git writes
    for a link with ``core.symlinks=false``, so no hook writes through it. Returns them."""
    staged = git("ls-files", "-s", "-z", "--", *SHARED).stdout
    root = data_root()
    found = []
    for entry in staged.split(b"\0"):
        info, _, raw_path = entry.partition(b"\t")
        path = raw_path.decode("utf-8", "surrogateescape")
        if info.startswith(LINK_MODE.encode()) and os.path.islink(os.path.join(root, path)):
            os.unlink(os.path.join(root, path))
            git("checkout", "-q", "--", path)
            found.append(path)
    return found

"""Merging the other machines' commits (docs/sync.md, "Git" and "Faults").

Event logs never conflict while each machine writes only its own; when two machines share
one id they do, and both sides' lines are kept (then this machine takes a new id). A task
file edited on both keeps both versions between markers labelled with the machines' names.
A merge a killed sync left unfinished is finished the same way before anything else is
committed, so git's raw markers are never committed. What the remote may change at all is
checked first (``guard.check_incoming``).
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.locations import data_root
from missioncache_sync import guard
from missioncache_sync.git import GitError, git, text


def merge(ref: str, told: list[str], mine: str, gitignore: str) -> list[str]:
    """Merge ``ref`` into this machine's branch; returns the files merged with markers.
    What the remote may change is checked first (``guard.check_incoming``)."""
    from missioncache_sync._event_log import machine_id

    has_head = git("rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0
    incoming = guard.check_incoming("HEAD" if has_head else None, ref, gitignore)
    own_log = f"events/{machine_id()}/"
    shared_id = any(_not_mine(ref, path) for path in incoming if path.startswith(own_log))
    if not has_head:
        git("reset", "-q", "--hard", ref)  # a first sync with nothing local: take theirs
        return []
    result = git(
        "merge", "-q", "--no-edit", "--no-verify", "--allow-unrelated-histories",
        "-m", f"MissionCache sync on {mine}: merge", ref, check=False,
    )  # fmt: skip
    if result.returncode == 0:
        conflicts: list[str] = []
    elif not _unmerged():
        git("merge", "--abort", check=False)
        raise GitError(_said(result) or "git merge failed")
    else:
        conflicts = finish_merge(ref, told, mine)
    if shared_id:
        _new_identity(told)
    return conflicts


def _not_mine(ref: str, path: str) -> bool:
    """Whether the remote's copy of this machine's own log holds a line the log here does
    not: another machine writes it (the two share an id)."""
    theirs = git("cat-file", "blob", f"{ref}:{path}", check=False).stdout or b""
    try:
        with open(os.path.join(data_root(), path), "rb") as handle:
            mine = set(handle.read().splitlines())
    except OSError:
        mine = set()
    return any(line and line not in mine for line in theirs.splitlines())


def finish_merge(ref: str, told: list[str], mine: str) -> list[str]:
    """Resolve the conflicted files of the merge under way and commit it: a task file
    keeps both versions between labelled markers; an event log (two machines writing
    one: they share an id) keeps every line of both."""
    conflicted = _unmerged()
    other = _author(ref)
    for path, stages in conflicted.items():
        if path.startswith("events/"):
            _union(path, stages)
        else:
            _keep_both(path, stages, mine, other)
    git("commit", "-q", "--no-verify", "--no-edit")
    if any(path.startswith("events/") for path in conflicted):
        _new_identity(told)
    return sorted(p for p in conflicted if not p.startswith("events/"))


def _union(path: str, stages: dict[int, str]) -> None:
    """Both sides' lines of an append-only log, each once, in their order."""
    seen: set[bytes] = set()
    out = []
    for stage in (2, 3):
        for line in _blob(stages.get(stage)).splitlines(keepends=True):
            line = line if line.endswith(b"\n") else line + b"\n"
            if line not in seen:
                seen.add(line)
                out.append(line)
    full = os.path.join(data_root(), path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(b"".join(out))
    git("add", "--", path)


def _new_identity(told: list[str]) -> None:
    """Another machine writes this machine's log: the two share an id (a restored home
    folder, a cloned machine). This one takes a new id; the old log is now the other
    machine's, imported like any other."""
    from missioncache_sync._event_log import new_machine_id

    if any("shares this machine's id" in line for line in told):
        return
    mid = new_machine_id()
    git("config", "missioncache.machine", mid)
    told.append(
        "sync: another machine shares this machine's id (a restored home folder or a cloned"
        " machine); this machine now has its own id, so the time of both is counted"
    )


def _said(result: object) -> str:
    raw = getattr(result, "stderr", b"") or getattr(result, "stdout", b"") or b""
    return " ".join(raw.decode("utf-8", "replace").split())[:300]


def _author(ref: str) -> str:
    name = text("log", "-1", "--format=%an", ref)
    return (
        name[len("MissionCache on ") :]
        if name.startswith("MissionCache on ")
        else "the other machine"
    )


def _unmerged() -> dict[str, dict[int, str]]:
    """Conflicted paths and their index stages (1 base, 2 ours, 3 theirs) -> blob ids."""
    raw = git("ls-files", "-u", "-z").stdout.decode("utf-8", "surrogateescape")
    found: dict[str, dict[int, str]] = {}
    for entry in raw.split("\0"):
        if not entry:
            continue
        info, _, path = entry.partition("\t")
        parts = info.split()
        found.setdefault(path, {})[int(parts[2])] = parts[1]
    return found


def _blob(sha: str | None) -> bytes:
    return git("cat-file", "blob", sha).stdout if sha else b""


def _keep_both(path: str, stages: dict[int, str], mine: str, theirs: str) -> None:
    """Write ``path`` with both sides kept: git's three-way result with markers naming the
    machines, or the surviving side of a file one machine deleted and the other changed."""
    import tempfile

    full = os.path.join(data_root(), path)
    if 2 not in stages or 3 not in stages:
        data = _blob(stages.get(2) or stages.get(3))
    else:
        with tempfile.TemporaryDirectory() as scratch:
            files = []
            for stage in (2, 1, 3):
                name = os.path.join(scratch, str(stage))
                with open(name, "wb") as handle:
                    handle.write(_blob(stages.get(stage)))
                files.append(name)
            data = git(
                "merge-file", "-p", "-L", f"version from {mine}", "-L", "common ancestor",
                "-L", f"version from {theirs}", *files, check=False,
            ).stdout  # fmt: skip
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(data)
    git("add", "--", path)

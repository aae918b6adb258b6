"""Which files a tool may edit: only tasks/context files inside the data root.

A tool's path argument comes from the model, so it is treated as untrusted: it must be
absolute, resolve (symlinks followed) to a file inside the MissionCache data root, and
be a file of the expected kind, so a confused or injected call can never rewrite an
arbitrary file on the user's machine.
"""

from __future__ import annotations

import os
from pathlib import Path

from missioncache_pm.errors import PmError

KINDS = ("tasks", "context")


def checked_file(path_text: object, kind: str) -> Path:
    """The resolved path of an existing ``<name>-<kind>.md`` / ``<kind>.md`` in the data
    root; PmError with the reason otherwise."""
    from missioncache_state.locations import data_root, is_within

    if kind not in KINDS:
        raise ValueError(f"unknown file kind {kind!r}")
    if not isinstance(path_text, str) or not path_text.strip():
        raise PmError(f"Give the path of the {kind} file")
    raw = os.path.expanduser(path_text.strip())
    if not os.path.isabs(raw):
        raise PmError(f"The {kind} file path must be absolute, not {path_text.strip()!r}")
    root = data_root()
    if not is_within(raw, root):
        raise PmError(f"Refusing to edit {raw}: it is outside the MissionCache data root {root}")
    real = Path(os.path.realpath(raw))
    if not real.name.endswith(f"{kind}.md"):
        raise PmError(f"{raw} is not a {kind} file (expected <name>-{kind}.md or {kind}.md)")
    if not real.is_file():
        raise PmError(f"There is no {kind} file at {raw}")
    return real


def sibling(path: Path, kind: str) -> Path | None:
    """The other file of the same task: ``demo-tasks.md`` -> ``demo-context.md`` (or the
    bare ``context.md``), first existing, named first; None when neither exists."""
    other = "context" if kind == "tasks" else "tasks"
    name = path.name
    prefix = name[: -len(f"{kind}.md")]
    for candidate in (path.with_name(f"{prefix}{other}.md"), path.with_name(f"{other}.md")):
        if candidate.is_file():
            return candidate
    return None

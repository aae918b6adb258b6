"""Session bindings: ``<state>/projects/<session-id>.json`` names the task a Claude
session works on (data model section 4, step 1).

``taskId`` is the durable identity (immune to renames and name reuse); ``projectName``
is kept for the statusline and for legacy bindings written before ``taskId`` existed.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.atomic import read_json_object, remove_file, write_json_atomic
from missioncache_state.ids import session_id_or_none
from missioncache_state.locations import projects_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_state.ids import SessionId


def binding_file(session_id: SessionId | None) -> str | None:
    """The binding file for a valid session id, else None (invalid ids write nothing)."""
    sid = session_id_or_none(session_id)  # file boundary: the id becomes a file name
    if sid is None:
        return None
    return os.path.join(projects_dir(), f"{sid}.json")


def write_session_binding(
    session_id: SessionId | None,
    project_name: str,
    task_id: int | None,
    full_path: str | None = None,
) -> bool:
    """Bind a session to a task. Returns False (writing nothing) for an invalid id.

    ``fullPath`` (the task's folder under the data root) lets the hooks that run after
    every turn find the task's files from the binding alone, without opening tasks.db
    (``missioncache_db._bound.bound_task``)."""
    path = binding_file(session_id)
    if path is None:
        return False
    data: dict[str, Any] = {
        "projectName": project_name,
        "taskId": task_id,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "sessionId": session_id,
    }
    if full_path is not None:
        data["fullPath"] = full_path
    # Rebuilt by the next SessionStart; not worth an fsync per session.
    write_json_atomic(path, data, durable=False)
    return True


def unbind_task(task_id: int) -> int:
    """Remove every binding that names ``task_id`` (the task was closed or deleted: no
    session may go on tracking it from its binding). Returns how many were removed."""
    folder = projects_dir()
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    removed = 0
    for name in names:
        if not name.endswith(".json"):
            continue
        data = read_json_object(os.path.join(folder, name))
        if (
            data is not None
            and data.get("taskId") == task_id
            and not isinstance(data.get("taskId"), bool)
        ):
            removed += remove_file(os.path.join(folder, name))
    return removed


def read_session_binding(session_id: SessionId | None) -> dict[str, Any] | None:
    """The binding as written, or None when absent, corrupt or of the wrong shape."""
    path = binding_file(session_id)
    if path is None:
        return None
    data = read_json_object(path)
    if data is None:
        return None
    name = data.get("projectName")
    task_id = data.get("taskId")
    if not isinstance(name, str) and not isinstance(task_id, int):
        return None
    if isinstance(task_id, bool) or not isinstance(task_id, (int, type(None))):
        data["taskId"] = None
    return data


def delete_session_binding(session_id: SessionId | None) -> bool:
    return remove_file(binding_file(session_id))

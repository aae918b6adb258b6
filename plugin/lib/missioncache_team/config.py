"""The team's settings, ``<data root>/team/config.json`` (docs/team.md).

What it holds: the server's libpq connection string *without a password* (the password
comes from ``PGPASSWORD``, ``~/.pgpass`` or a ``PGSERVICE``, libpq's own places), the
person (the member's role name on the server, which is also what the server records as
the person: ``current_user``); ``team/tasks.json`` per task whether it leaves only under an
opaque name (``private``) and its client. The team folder is never synced (it is outside ``sync/``),
and a connection string with a password in it is refused, not stripped: the person must
know where the password went.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_team import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CLIENT = 80


class TeamError(ValueError):
    """A problem the person can fix, said in plain words."""


def valid_person(name: str) -> str:
    """A member's role name: lower-case letters, digits and ``_``, a letter first, at most 63
    (PostgreSQL's limit; lower case so it never needs quoting to match ``current_user``)."""
    ok = 0 < len(name) <= 63 and name[0].isalpha() and name.isascii()
    if not ok or any(not (c.islower() or c.isdigit() or c == "_") for c in name):
        raise TeamError(
            f"{name!r} cannot be a member's name: use lower-case letters, digits and _,"
            " starting with a letter (it is the member's role on the server)"
        )
    return name


def has_password(url: str) -> bool:
    """Whether a libpq connection string (a URI or ``key=value`` words) carries a password."""
    text = url.strip()
    if "://" in text:
        rest = text.split("://", 1)[1]
        authority = rest.split("/", 1)[0].split("?", 1)[0]
        if "@" in authority and ":" in authority.rsplit("@", 1)[0]:
            return True
        query = rest.split("?", 1)[1] if "?" in rest else ""
        return any(part.split("=", 1)[0].lower() == "password" for part in query.split("&"))
    return any(word.split("=", 1)[0].strip().lower() == "password" for word in text.split())


def valid_url(url: str) -> str:
    text = url.strip()
    if not text or "\n" in text or len(text) > 2000:
        raise TeamError("give the server as a libpq connection string: postgresql://HOST/DB")
    if has_password(text):
        raise TeamError(
            "the connection string holds a password, which MissionCache never stores: take it"
            " out and put it in ~/.pgpass (or PGPASSWORD, or a PGSERVICE), then run setup again"
        )
    return text


def read() -> dict[str, Any]:
    """The settings; raises ``TeamError`` when the team is not set up."""
    from missioncache_state.atomic import read_json_object

    found = read_json_object(paths.config_path())
    if (
        not found
        or not isinstance(found.get("url"), str)
        or not isinstance(found.get("person"), str)
    ):
        raise TeamError(
            "no team set up here: run `missioncache team setup POSTGRES_URL --person NAME`"
        )
    found["tasks"] = marks()
    return found


def marks() -> dict[str, Any]:
    """Each task's mark (``{uid: {"private": bool, "client": str}}``), kept apart from the
    settings so a task can be marked before the team is set up (``create-task --team``)."""
    from missioncache_state.atomic import read_json_object

    return read_json_object(paths.marks_path()) or {}


def write(settings: dict[str, Any]) -> None:
    from missioncache_state.atomic import write_json_atomic

    os.makedirs(paths.team_dir(), exist_ok=True)
    write_json_atomic(paths.config_path(), settings)


def setup(url: str, person: str) -> dict[str, Any]:
    """Write the settings for ``url`` and ``person`` (task marks are kept apart)."""
    write({"url": valid_url(url), "person": valid_person(person)})
    return read()


def mark_task(uid: str, private: bool | None, client: str | None) -> dict[str, Any]:
    """Record whether task ``uid`` leaves under an opaque name and its client ("" clears)."""
    from missioncache_state.atomic import write_json_atomic

    every = marks()
    mark = dict(every.get(uid) or {})
    if private is not None:
        mark["private"] = private
    if client is not None:
        client = " ".join(client.split())
        if len(client) > MAX_CLIENT:
            raise TeamError(f"a client's name is at most {MAX_CLIENT} characters")
        mark["client"] = client
    every[uid] = mark
    os.makedirs(paths.team_dir(), exist_ok=True)
    write_json_atomic(paths.marks_path(), every)
    return mark


def task_mark(settings: dict[str, Any], uid: str) -> tuple[bool, str | None]:
    """(private, client) of task ``uid``."""
    mark = settings["tasks"].get(uid)
    if not isinstance(mark, dict):
        return False, None
    client = mark.get("client")
    return mark.get("private") is True, client if isinstance(client, str) and client else None

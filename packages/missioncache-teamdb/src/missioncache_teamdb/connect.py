"""Connecting to the team's server: the stored connection string, the person as the user
when the string names none, libpq's own places for the password, a bounded wait."""

from __future__ import annotations

from typing import Any

CONNECT_TIMEOUT = 5


class Unreachable(Exception):
    """The server did not answer, or refused us; the message says which, in plain words."""


def connect(url: str, person: str | None = None, autocommit: bool = True) -> Any:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError as error:
        raise Unreachable(f"the connection string does not parse: {error}") from None
    extra: dict[str, Any] = {"application_name": "missioncache"}
    if person and "user" not in given:
        extra["user"] = person
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT
    try:
        return psycopg.connect(url, autocommit=autocommit, **extra)
    except psycopg.OperationalError as error:
        raise Unreachable(_first_line(error)) from None


def _first_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:300] or type(error).__name__

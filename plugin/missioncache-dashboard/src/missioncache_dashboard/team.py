"""The team page's figures (docs/dashboard.md, "Team"; docs/team.md).

WHY a process and not an import: the team report needs psycopg, which the dashboard's own
uvx environment (Starlette and uvicorn) does not carry. Rather than make every dashboard
user download a PostgreSQL driver, the page runs what ``missioncache team report --format
json`` runs, ``missioncache-teamdb`` (here when it imports, else through ``uvx`` from
``<plugin>/missioncache-teamdb``: the environment the hooks' push already installed), with
the action ``figures``: the same report, by task and by person, in one JSON object. So the
page's figures are the command line's by construction, and a server that hangs is a child
process killed after ``TIMEOUT`` seconds, never a stuck thread of the dashboard.

Each period's answer, good or bad, is kept ``CACHE_SECONDS``: a server that is down is
asked at most once a minute per period, and the rest of the dashboard never waits on it
(the page asks ``/api/team`` only when its Team tab is open). The team's status (the last
push, events waiting) is read from ``<data root>/team/`` without the network.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

CACHE_SECONDS = 60.0
TIMEOUT = 8.0
PERIODS = ("today", "week", "month", "all")
HOW_TO_SET_UP = "missioncache team setup POSTGRES_URL --person NAME"
Fetch = Callable[[str], dict[str, Any]]


class Problem(Exception):
    """Why the team's figures could not be had, in plain words with what to do."""


def is_set_up() -> bool:
    from missioncache_team import paths

    return paths.is_set_up()


def fetch_figures(period: str) -> dict[str, Any]:
    """``missioncache-teamdb figures --period P``: ``{"task": report, "person": report}``."""
    from missioncache_team import launch

    try:
        code, out, err = launch.output(["figures", "--period", period], TIMEOUT)
    except launch.TimedOut:
        raise Problem(
            f"The team's server did not answer within {TIMEOUT:.0f} seconds. Check that it is"
            " up and reachable from here (`missioncache team report` in a terminal says more);"
            " this page asks again in a minute."
        ) from None
    except RuntimeError as error:  # no uv: the team's client cannot start
        raise Problem(f"The team's figures cannot be read: {error}.") from None
    if code != 0:
        raise Problem(_failure(err))
    try:
        found = json.loads(out)
    except ValueError:
        raise Problem(
            "The team's client answered something that is not its report; run"
            " `missioncache team report` in a terminal to see what goes wrong."
        ) from None
    if not isinstance(found, dict) or not all(isinstance(found.get(b), dict) for b in _BYS):
        raise Problem("The team's client answered without the report; try again in a minute.")
    return found


_BYS = ("task", "person")


def _failure(stderr: str) -> str:
    """The client's own one-line message (never a traceback), with what to do."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in lines if line.startswith("missioncache team:")]
    reason = said[-1].split(":", 1)[1].strip() if said else (lines[-1] if lines else "")
    reason = reason[:300]
    if "not reached" in reason or "connection" in reason.lower():
        return (
            f"The team's server could not be reached ({reason}). Your own figures wait on this"
            " machine and go with the next push. Check that the server is up and that"
            " `missioncache team status` works in a terminal; this page asks again in a minute."
        )
    if said:
        return f"The team's figures could not be read: {reason}."
    return (
        "The team's client stopped with an error; run `missioncache team report` in a"
        " terminal to see it. This page asks again in a minute."
    )


def push_status(waiting: Callable[[], int | None]) -> dict[str, Any]:
    """The last push (when, whether it reached the server, what it sent) and the events
    waiting now (``waiting``: None when tasks.db cannot be read)."""
    from missioncache_team import status

    found = status.read()
    when = found.get("when")
    return {
        "last_push": when if isinstance(when, (int, float)) else None,
        "reached": not found.get("error") if when else None,
        "error": found.get("error") if isinstance(found.get("error"), str) else None,
        "sent": found.get("sent") if isinstance(found.get("sent"), int) else None,
        "last_ok": found.get("last_ok") if isinstance(found.get("last_ok"), (int, float)) else None,
        "waiting": waiting(),
    }


class TeamFigures:
    """The answers of ``/api/team``, each period's kept ``CACHE_SECONDS``."""

    def __init__(self, fetch: Fetch = fetch_figures, clock: Callable[[], float] = time.time):
        self.fetch, self.clock = fetch, clock
        self._cache: dict[str, tuple[float, dict[str, Any]]] = {}
        self._locks = {period: threading.Lock() for period in PERIODS}

    def answer(self, period: str, waiting: Callable[[], int | None]) -> dict[str, Any]:
        if not is_set_up():
            return {"set_up": False, "how": HOW_TO_SET_UP}
        # One asker per period at a time: the others wait for its answer, not a second process.
        with self._locks[period]:
            now = self.clock()
            kept = self._cache.get(period)
            if kept is None or now - kept[0] >= CACHE_SECONDS:
                kept = (now, self._ask(period, waiting))
                self._cache[period] = kept
        return dict(kept[1], set_up=True, period=period, checked=kept[0])

    def _ask(self, period: str, waiting: Callable[[], int | None]) -> dict[str, Any]:
        answer: dict[str, Any] = {"status": push_status(waiting), "problem": None}
        try:
            answer.update(self.fetch(period))
        except Problem as problem:
            answer.update(task=None, person=None, problem=str(problem))
        return answer

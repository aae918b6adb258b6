"""The dashboard's web app: the page, its JSON, the event stream and the hook endpoints.

Database reads run in Starlette's thread pool (plain ``def`` endpoints) with a short
busy timeout, so a busy tasks.db slows a page, never the hooks. The hook endpoints are
``async``, answer ``{}`` at once and do any database work after the answer is sent.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from missioncache_dashboard import data, hooks
from missioncache_dashboard.live import Live
from missioncache_dashboard.security import Guard
from missioncache_dashboard.transcripts import TranscriptEdits
from missioncache_state.dashboard_token import ensure_token, install_id
from missioncache_time import process_pending

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# The only files served: a fixed map, never a name from the request.
FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
DB_BUSY_TIMEOUT = 1.0
INGEST_EVERY = 5.0  # seconds between folding the spool in, so turn ends show up
HEALTH_EVERY = 30.0
STREAM_PING = 15.0


def _json(value: Any, status: int = 200, background: BackgroundTask | None = None) -> Response:
    return JSONResponse(value, status, headers=SECURITY_HEADERS, background=background)


class Dashboard:
    """The app's state: live sessions from the hooks, and cached slow facts."""

    def __init__(self, port: int, install: str = "") -> None:
        self.port, self.install = port, install
        self.live = Live()
        self.transcripts = TranscriptEdits()
        self._ingested = 0.0
        self._health: tuple[float, list[dict]] | None = None
        from missioncache_dashboard.team import TeamFigures

        self.team_figures = TeamFigures()

    def open_db(self) -> Any:
        from missioncache_db import open_if_set_up

        return open_if_set_up(DB_BUSY_TIMEOUT)

    def with_db(self, read: Callable[[Any], Any], empty: Any) -> Any:
        db = self.open_db()
        if db is None:
            return empty
        with db:
            return read(db)

    # -- pages and JSON ----------------------------------------------------------------

    def page(self, request: Request) -> Response:
        name, media = FILES[request.url.path]
        path = os.path.join(STATIC, name)
        if name != "index.html":
            return FileResponse(path, media_type=media, headers=SECURITY_HEADERS)
        from missioncache_dashboard import first_paint

        with open(path, encoding="utf-8") as handle:
            template = handle.read()
        body = first_paint.page(template, self.with_db(data.task_list, []))
        return HTMLResponse(body, headers=SECURITY_HEADERS)

    def tasks(self, request: Request) -> Response:
        return _json({"tasks": self.with_db(data.task_list, [])})

    def task(self, request: Request) -> Response:
        task_id = request.path_params["task_id"]
        found = self.with_db(lambda db: data.task_detail(db, task_id), None)
        return _json(found) if found is not None else _json({"error": "no such task"}, 404)

    def days(self, request: Request) -> Response:
        period = request.query_params.get("period", "week")
        if period not in ("week", "month"):
            return _json({"error": "period: week or month"}, 400)
        empty = {"period": period, "tasks": [], "days": []}
        return _json(self.with_db(lambda db: data.day_chart(db, period), empty))

    def team(self, request: Request) -> Response:
        """The team page's figures (``team.py``): cached a minute, bounded by a timeout."""
        from missioncache_dashboard.team import PERIODS

        period = request.query_params.get("period", "week")
        if period not in PERIODS:
            return _json({"error": f"period: one of {', '.join(PERIODS)}"}, 400)
        return _json(self.team_figures.answer(period, self._team_waiting))

    def _team_waiting(self) -> int | None:
        from missioncache_team import config, outbox

        try:
            settings = config.read()
            return self.with_db(lambda db: outbox.waiting(db.conn, settings), None)  # type: ignore[no-any-return]
        except Exception:  # tasks.db busy or broken: the page says it does not know
            return None

    def sessions(self, request: Request) -> Response:
        return _json({"sessions": self.session_list()})

    def session_list(self, now: float | None = None) -> list[dict]:
        """Recent Claude sessions: the heartbeats' view merged with the hooks' live one."""
        now = time.time() if now is None else now

        def read(db: Any) -> tuple[dict, dict]:
            self._ingest(db, now)
            found = data.recent_sessions(db, now)
            tasks = {
                sid: data.resolve_task(db, item.cwd, sid)
                for sid, item in self.live.sessions.items()
                if sid not in found
            }
            return found, tasks

        found, tasks = self.with_db(read, ({}, {}))
        merged = []
        for sid in [*found, *(s for s in self.live.sessions if s not in found)]:
            row = found.get(sid) or {
                "session_id": sid,
                "task_id": tasks.get(sid, (None, None))[0],
                "task": tasks.get(sid, (None, None))[1],
                "turn_started": None,
                "turn_running": False,
                "machine": None,
            }
            row = dict(row, edit_count=0, last_prompt=None)
            live = self.live.sessions.get(sid)
            if live is not None:
                row["edit_count"], row["last_prompt"] = live.edit_count, live.last_prompt
                if live.turn_started is not None and live.last_event >= (row["turn_started"] or 0):
                    row["turn_started"], row["turn_running"] = live.turn_started, live.turn_running
            # The hooks count only what happened while we ran; the transcript has it all.
            row["edit_count"] = max(row["edit_count"], self.transcripts.count(sid))
            started = row["turn_started"]
            row["turn_seconds"] = int(now - started) if row["turn_running"] and started else None
            if not self.live.is_ended(sid, row["turn_started"]):
                merged.append(row)
        merged.sort(key=lambda r: r["turn_started"] or 0, reverse=True)
        return merged

    def _ingest(self, db: Any, now: float) -> None:
        """Fold spooled heartbeats and turn ends in, now and then, when the lock is free."""
        if now - self._ingested < INGEST_EVERY:
            return
        self._ingested = now
        try:
            process_pending(db, now)
        except Exception:  # busy or broken: the page shows what is there
            pass

    def health(self, request: Request) -> Response:
        now = time.time()
        if self._health is None or now - self._health[0] > HEALTH_EVERY:
            from missioncache_dashboard.health import findings

            self._health = (now, findings())
        problems = [f for f in self._health[1] if f["status"] == "problem"]
        from missioncache_dashboard.team import is_set_up

        found: dict[str, Any] = {"dashboard": "missioncache", "install": self.install}
        found["problems"] = problems
        found["team"] = is_set_up()  # whether the page offers its Team tab
        return _json(found)

    async def alive(self, request: Request) -> Response:
        """Who answers on this port, in microseconds (the hooks ask it at Stop): this
        install's dashboard, named by a digest of its secret. No database, no checks."""
        return _json({"dashboard": "missioncache", "install": self.install})

    async def events(self, request: Request) -> Response:
        """Server-sent events: one ``data`` line per change (``{"version", "tasks"}``)."""

        async def stream() -> AsyncIterator[bytes]:
            version = -1
            while not await request.is_disconnected():
                if version != self.live.version:
                    version = self.live.version
                    note = {"version": version, "tasks": self.live.tasks_version}
                    yield f"data: {json.dumps(note)}\n\n".encode()
                else:
                    yield b": ping\n\n"
                await self.live.wait(version, STREAM_PING)

        headers = dict(SECURITY_HEADERS, **{"X-Accel-Buffering": "no"})
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    # -- hook endpoints: always {} ---------------------------------------------------

    async def hook_edit_count(self, request: Request) -> Response:
        body = await read_body(request, hooks.MAX_BODY)
        if body is None:
            return _too_large()
        try:
            payload = hooks.parse_json(body)
            event = hooks.edit_event(payload) if payload is not None else None
            if event is not None:
                self.live.record_edit(event.session_id, event.tool_use_id, event.cwd)
        except Exception:  # whatever was posted, the hook gets {}
            pass
        return _json({})

    async def hook_heartbeat(self, request: Request) -> Response:
        body = await read_body(request, hooks.MAX_BODY)
        if body is None:
            return _too_large()
        try:
            payload = hooks.parse_json(body)
            event = hooks.heartbeat_event(payload) if payload is not None else None
            if isinstance(event, hooks.Prompt):
                self.live.record_prompt(event.session_id, event.prompt, event.cwd, event.at)
                return _json({}, background=BackgroundTask(_quietly, hooks.record_heartbeat, event))
            if isinstance(event, hooks.TurnEnd):
                self.live.record_turn_end(event.session_id, event.cwd)
        except Exception:  # whatever was posted, the hook gets {}
            pass
        return _json({})

    async def hook_session_end(self, request: Request) -> Response:
        body = await read_body(request, hooks.MAX_SESSION_END)
        if body is None:
            return _too_large()
        try:
            payload = hooks.parse_json(body)
            event = hooks.session_end_event(payload) if payload is not None else None
            if event is not None:
                self.live.record_session_end(event.session_id, event.at)
        except Exception:  # whatever was posted, the hook gets {}
            pass
        return _json({})

    async def hook_task_created(self, request: Request) -> Response:
        if await read_body(request, hooks.MAX_NOTE) is None:
            return _too_large()
        self.live.task_created()
        return _json({})


async def read_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it is longer than ``limit``: a Content-Length
    above it is refused before a byte is read, and a body without one (or lying about
    it) is read only up to the limit, so memory never holds more than ``limit``."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        return None
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large() -> Response:
    # The connection is closed: the rest of the body is never read.
    headers = dict(SECURITY_HEADERS, Connection="close")
    return JSONResponse({"error": "the request body is too large"}, 413, headers=headers)


def _quietly(work: Callable[..., None], *args: Any) -> None:
    try:
        work(*args)
    except Exception:  # the hook was answered already; the command hook's record stands
        pass


def create_app(port: int, lifespan: Any = None, token: str | None = None) -> Any:
    """The ASGI app for ``port`` (the Host and Origin checks need it), guarded by the
    install's secret (made on first use)."""
    token = token if token is not None else ensure_token()
    board = Dashboard(port, install_id(token))
    routes = [Route(path, board.page) for path in FILES]
    routes += [
        Route("/api/tasks", board.tasks),
        Route("/api/tasks/{task_id:int}", board.task),
        Route("/api/days", board.days),
        Route("/api/sessions", board.sessions),
        Route("/api/team", board.team),
        Route("/api/health", board.health),
        Route("/api/alive", board.alive),
        Route("/api/events", board.events),
        Route("/api/hooks/edit-count", board.hook_edit_count, methods=["POST"]),
        Route("/api/hooks/heartbeat", board.hook_heartbeat, methods=["POST"]),
        Route("/api/hooks/task-created", board.hook_task_created, methods=["POST"]),
        Route("/api/hooks/session-end", board.hook_session_end, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.dashboard = board
    return Guard(app, port, token)

"""Start the dashboard as a user does and talk to it: for the tests and the README
picture (``scripts/dashboard_picture.py``), which go through the same functions.

The server is the BUILT plugin's ``bin/missioncache dashboard --port P``, run by the
workspace's Python (which has Starlette and uvicorn, so it serves in that process rather
than through uvx), in the isolated home of ``mc_env``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
PROMPT_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Running:
    port: int
    process: subprocess.Popen
    env: dict

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        headers: dict | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=timeout) as response:
                return response.status, _decoded(response.read())
        except urllib.error.HTTPError as error:
            return error.code, _decoded(error.read())

    def get(self, path: str, **kwargs: object) -> dict:
        status, value = self.request("GET", path, **kwargs)  # type: ignore[arg-type]
        assert status == 200, (status, value)
        return value

    def post(self, path: str, body: object, **kwargs: object) -> tuple[int, dict]:
        return self.request("POST", path, body, **kwargs)  # type: ignore[arg-type]


def _decoded(body: bytes) -> object:
    """JSON when the body is JSON, else its text (a 404 page is plain text)."""
    try:
        return json.loads(body or b"null")
    except ValueError:
        return body.decode("utf-8", "replace")


def command(plugin: Path, *args: str) -> list[str]:
    return [sys.executable, str(plugin / "bin" / "missioncache"), "dashboard", *args]


def wait_until_up(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            out, err = process.communicate()
            raise RuntimeError(f"the dashboard exited {process.returncode}: {err or out}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError("the dashboard did not start listening")


@contextlib.contextmanager
def serving(plugin: Path, mc_env, port: int | None = None) -> Iterator[Running]:
    """The dashboard on a free port until the block ends, then stopped by SIGTERM (as
    ``dashboard stop`` does), so its shutdown runs."""
    port = port or free_port()
    env = dict(mc_env.env)
    process = subprocess.Popen(
        command(plugin, "--port", str(port)),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_up(port, process)
        yield Running(port, process, env)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def edit_payload(cwd: Path, tool_use_id: str = "toolu_01", session: str = SID) -> dict:
    """A PostToolUse body as Claude Code posts it for a Write (contract sections 1, 6)."""
    return {
        "session_id": session,
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "acceptEdits",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(cwd / "a.txt"), "content": "hello\n"},
        "tool_response": {"type": "create", "filePath": str(cwd / "a.txt")},
        "tool_use_id": tool_use_id,
    }


def prompt_payload(cwd: Path, prompt: str = "make the login work", session: str = SID) -> dict:
    return {
        "session_id": session,
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "prompt_id": PROMPT_ID,
    }


def session_row(running: Running, session: str = SID) -> dict | None:
    rows = running.get("/api/sessions")["sessions"]
    return next((row for row in rows if row["session_id"] == session), None)


def chromium_path() -> str | None:
    """``$MISSIONCACHE_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else one on PATH."""
    import shutil

    explicit = os.environ.get("MISSIONCACHE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextlib.contextmanager
def browser_page(chromium: str) -> Iterator[tuple[object, list]]:
    """A Playwright page in headless Chromium, and the list its console errors (and page
    errors) are appended to."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            errors: list = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()

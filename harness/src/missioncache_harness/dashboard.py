"""Start the dashboard as a user does and talk to it: for the dashboard's tests and the
README picture (``scripts/dashboard_picture.py``), which go through the same functions.

The server is the BUILT plugin's ``bin/missioncache dashboard --port P``, run by the
workspace's Python (which has Starlette and uvicorn, so it serves in that process rather
than through uvx), in the isolated home of ``mc_env``.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from missioncache_harness.worklog import record_plan
from missioncache_harness.workspace import McEnv, create_fork, create_task

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
PROMPT_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


TOKEN_HEADER = "X-MissionCache-Token"


def read_token(data_root: Path) -> str | None:
    """The dashboard's secret (``<data root>/dashboard-token``), None before it exists."""
    try:
        return (data_root / "dashboard-token").read_text(encoding="ascii").strip() or None
    except OSError:
        return None


@dataclass
class Running:
    """A dashboard being served. Requests carry its secret unless ``token=False`` (or
    another value is given), as the person's own tools do."""

    port: int
    process: subprocess.Popen
    env: dict
    token: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def page_url(self) -> str:
        """The address ``dashboard start`` prints: it gives the browser its cookie."""
        return f"{self.url}/?token={self.token}"

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        headers: dict | None = None,
        timeout: float = 10.0,
        token: bool | str = True,
    ) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        sent = dict(headers or {})
        if token is not False:
            sent.setdefault(TOKEN_HEADER, self.token if token is True else str(token))
        for key, value in sent.items():
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


def _announced_by(process: subprocess.Popen, claude_dir: Path) -> bool:
    """Whether ``running.json`` names ``process``: the answer on the port is then ours,
    not that of a dashboard another test run on this machine started on the same port."""
    try:
        found = json.loads(
            (claude_dir / "hooks" / "state" / "dashboard" / "running.json").read_text()
        )
    except (OSError, ValueError):
        return False
    return isinstance(found, dict) and found.get("pid") == process.pid


def wait_until_up(
    port: int, process: subprocess.Popen, mc_env: McEnv, timeout: float = 30.0
) -> str:
    """Wait for the dashboard to serve; its secret."""
    data_root = mc_env.data_root
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            out, err = process.communicate()
            raise RuntimeError(f"the dashboard exited {process.returncode}: {err or out}")
        # Served only once the startup (announcing, wiring the hooks) is done.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        token = read_token(data_root)
        health = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/health", headers={TOKEN_HEADER: token or ""}
        )
        with contextlib.suppress(OSError), opener.open(health, timeout=1) as answer:
            if answer.status == 200 and _announced_by(process, mc_env.claude_dir):
                return token or ""
        time.sleep(0.05)
    raise RuntimeError("the dashboard did not start listening")


@contextlib.contextmanager
def serving(plugin: Path, mc_env: McEnv, port: int | None = None) -> Iterator[Running]:
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
        token = wait_until_up(port, process, mc_env)
        yield Running(port, process, env, token)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def _payload(cwd: Path, session: str, event: str, mode: str, **fields: object) -> dict:
    """The fields every hook's body starts with (contract section 1), then ``fields``."""
    common = {"session_id": session, "transcript_path": str(cwd / "t.jsonl"), "cwd": str(cwd)}
    return {**common, "permission_mode": mode, "hook_event_name": event, **fields}


def edit_payload(cwd: Path, tool_use_id: str = "toolu_01", session: str = SID) -> dict:
    """A PostToolUse body as Claude Code posts it for a Write (contract sections 1, 6)."""
    return _payload(
        cwd,
        session,
        "PostToolUse",
        "acceptEdits",
        tool_name="Write",
        tool_input={"file_path": str(cwd / "a.txt"), "content": "hello\n"},
        tool_response={"type": "create", "filePath": str(cwd / "a.txt")},
        tool_use_id=tool_use_id,
    )


def prompt_payload(cwd: Path, prompt: str = "make the login work", session: str = SID) -> dict:
    """A UserPromptSubmit body as Claude Code posts it (contract section 1)."""
    return _payload(cwd, session, "UserPromptSubmit", "default", prompt=prompt, prompt_id=PROMPT_ID)


def session_row(running: Running, session: str = SID) -> dict | None:
    rows = running.get("/api/sessions")["sessions"]
    return next((row for row in rows if row["session_id"] == session), None)


# -- the demo world of the browser test and the README picture ----------------------

# (task, parent, [(days ago, start hour, minutes)], (done, total))
DEMO = [
    (
        "billing-export",
        None,
        [(6, 9, 95), (4, 9, 60), (2, 14, 110), (1, 9, 75), (0, 9, 50)],
        (5, 8),
    ),
    ("auth-refactor", None, [(5, 14, 45), (3, 9, 160), (0, 11, 35)], (2, 6)),
    ("auth-tokens", "auth-refactor", [(3, 15, 40), (1, 14, 90)], (1, 3)),
]
DEMO_CONTEXT = """# Billing Export - Context

**Last Updated:** {stamp}

## Description
Export invoices as CSV for the accounting team. <script>document.title = "pwned"</script>

## Next Steps
- Handle refunds in the totals
- Ask finance about the `VAT` column

## Recent Changes

### {stamp}
- Wrote the **CSV writer** and its tests
"""


def demo_world(plugin: Path, env: McEnv, repo: Path) -> dict:
    """Tasks with a week of work (one a fork of another), checklists and a context file
    holding a script tag (shown as text). Returns {name: task id}."""
    ids: dict = {}
    now = time.time()
    today = time.localtime(now)
    for name, parent, plan, (done, total) in DEMO:
        if parent is None:
            task = create_task(plugin, env, name, repo if name == "billing-export" else None)
            ids[name] = task.id
            folder = env.data_root / "active" / name
        else:  # a fork (docs/forks.md): its own row, files and time, counted in its parent
            ids[name], folder = create_fork(plugin, env, parent, name)
        items = "".join(
            f"- [{'x' if i < done else ' '}] {i + 1}. Step {i + 1}\n" for i in range(total)
        )
        (folder / f"{name}-tasks.md").write_text("# Tasks\n\n" + items, encoding="utf-8")
        record_plan(env.data_root / "tasks.db", ids[name], plan, now, clear=3600)
    stamp = time.strftime("%Y-%m-%d %H:%M", today)
    context = env.data_root / "active" / "billing-export" / "billing-export-context.md"
    context.write_text(DEMO_CONTEXT.format(stamp=stamp), encoding="utf-8")
    return ids


def live_session(running: Running, repo: Path) -> None:
    """A session that asked for something and made two edits, as the http hooks post it."""
    running.post("/api/hooks/heartbeat", prompt_payload(repo, "add refunds to the CSV totals"))
    running.post("/api/hooks/edit-count", edit_payload(repo, "toolu_a"))
    running.post("/api/hooks/edit-count", edit_payload(repo, "toolu_b"))


def screenshot(page, path: Path) -> None:
    """The page as the README shows it (the full page, at the browser's viewport width)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)

"""After create_task, a running dashboard is told (``dashboard_notify``); none running,
nothing is sent and nothing fails."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from missioncache_pm import dashboard_notify


def test_running_dashboard_gets_task_created(tmp_path, monkeypatch):
    """It carries the install's secret, as every request to the dashboard must."""
    from missioncache_state.dashboard_token import ensure_token

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "mc"))
    token = ensure_token()
    seen: list = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.path, json.loads(body), self.headers["X-MissionCache-Token"]))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        folder = tmp_path / "hooks" / "state" / "dashboard"
        folder.mkdir(parents=True)
        port = server.server_address[1]
        (folder / "running.json").write_text(json.dumps({"port": port, "pid": 1}))
        thread = dashboard_notify.task_created("fix-login")
        assert thread is not None
        thread.join(10)
        server.shutdown()
    assert seen == [("/api/hooks/task-created", {"name": "fix-login"}, token)]


def test_no_dashboard_sends_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert dashboard_notify.task_created("fix-login") is None


def test_dashboard_gone_is_silent(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    folder = tmp_path / "hooks" / "state" / "dashboard"
    folder.mkdir(parents=True)
    (folder / "running.json").write_text(json.dumps({"port": 9, "pid": 1}))  # nothing there
    thread = dashboard_notify.task_created("fix-login")
    assert thread is not None
    thread.join(10)
    assert not thread.is_alive()

"""Another account on the machine shares loopback: without the install's secret it can
neither read the notes nor forge time (issue 35, item 11). And whatever is posted, a hook
endpoint reads at most its limit and answers ``{}`` (items 15 and 19)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import time
import uuid

import pytest

from missioncache_harness import dashboard as dash


def heartbeats(mc_env) -> int:
    with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0])


def test_without_the_secret_nothing_is_read_or_changed(dashboard, mc_env, mc_task):
    task_id = dashboard.get("/api/tasks")["tasks"][0]["id"]
    before = heartbeats(mc_env)
    for token in (False, "0" * 64, dashboard.token[:-1] + "0"):
        for path in ("/", f"/api/tasks/{task_id}", "/api/tasks", "/api/sessions", "/api/health"):
            status, body = dashboard.request("GET", path, token=token)
            assert status == 403, (path, status)
            assert mc_task.name not in json.dumps(body)
        for _ in range(3):
            prompt = dash.prompt_payload(mc_task.repo)
            prompt["prompt_id"] = str(uuid.uuid4())
            assert dashboard.post("/api/hooks/heartbeat", prompt, token=token)[0] == 403
        edit = dash.edit_payload(mc_task.repo)
        assert dashboard.post("/api/hooks/edit-count", edit, token=token)[0] == 403
    time.sleep(0.5)  # a heartbeat is stored after the answer: give one time to land
    assert heartbeats(mc_env) == before
    assert dash.session_row(dashboard) is None


def test_the_secret_is_a_file_only_its_owner_reads(dashboard, mc_env):
    path = mc_env.data_root / "dashboard-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == dashboard.token and len(dashboard.token) == 64


def test_the_printed_address_gives_the_page_a_cookie(dashboard, mc_task):
    """Jupyter-style: ``/?token=`` answers with an HttpOnly, SameSite=Strict cookie and
    sends the browser on without the secret in its address; the cookie then opens all."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=10)
    conn.request("GET", f"/?token={dashboard.token}")
    answer = conn.getresponse()
    answer.read()
    assert answer.status == 303 and answer.getheader("Location") == "/"
    cookie = answer.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    jar = cookie.split(";")[0]
    status, body = dashboard.request("GET", "/api/tasks", headers={"Cookie": jar}, token=False)
    assert status == 200 and body["tasks"][0]["name"] == mc_task.name
    conn.request("GET", "/?token=" + "0" * 64)
    wrong = conn.getresponse()
    assert wrong.status == 403 and wrong.getheader("Set-Cookie") is None
    wrong.read()
    conn.close()


def test_health_names_this_install(dashboard):
    import hashlib

    expected = hashlib.sha256(b"missioncache-dashboard:" + dashboard.token.encode()).hexdigest()
    for path in ("/api/health", "/api/alive"):
        found = dashboard.get(path)
        assert found["dashboard"] == "missioncache" and found["install"] == expected[:16]
        assert dashboard.token not in json.dumps(found)
    assert dashboard.request("GET", "/api/alive", token=False)[0] == 403


def _raw_post(port: int, path: str, head: str, body_sizes: int, token: str) -> int:
    """Send a POST head then ``body_sizes`` bytes in 1 MB pieces; the status, or 0 when
    the connection was closed before an answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"X-MissionCache-Token: {token}\r\n{head}\r\n".encode()
        )
        piece = b"x" * (1 << 20)
        try:
            for _ in range(body_sizes >> 20):
                sock.sendall(piece)
        except OSError:
            pass  # refused while sending: the answer is still there to read
        answer = b""
        try:
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            return 0
    return int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/1.1") else 0


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads memory from /proc")
@pytest.mark.parametrize("endpoint", ["heartbeat", "edit-count", "task-created", "session-end"])
def test_a_huge_body_is_refused_without_being_held(dashboard, endpoint):
    path = f"/api/hooks/{endpoint}"
    before = _rss_kb(dashboard.process.pid)
    declared = _raw_post(dashboard.port, path, "Content-Length: 209715200\r\n", 0, dashboard.token)
    assert declared == 413  # refused from its Content-Length, before any byte
    # A body that streams past the limit without saying its length.
    with socket.create_connection(("127.0.0.1", dashboard.port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{dashboard.port}\r\n"
            f"X-MissionCache-Token: {dashboard.token}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        piece = b"x" * (1 << 20)
        chunk = b"%x\r\n" % len(piece) + piece + b"\r\n"
        try:
            for _ in range(12):
                sock.sendall(chunk)
        except OSError:
            pass
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    grown = _rss_kb(dashboard.process.pid) - before
    assert grown < 40_000, f"the dashboard grew by {grown} kB for a refused body"
    assert dashboard.get("/api/health")["dashboard"] == "missioncache"


@pytest.mark.parametrize("endpoint", ["heartbeat", "edit-count", "task-created"])
def test_any_body_gets_empty_json(dashboard, mc_task, endpoint):
    deep = "[" * 100_000 + "]" * 100_000
    deep_object = '{"session_id": ' + "[" * 100_000 + "]" * 100_000 + "}"
    wrong_types = json.dumps(
        {
            "session_id": dash.SID,
            "hook_event_name": ["UserPromptSubmit"],
            "tool_name": ["Edit"],
            "prompt": {"a": 1},
            "cwd": ["x"],
            "prompt_id": 5,
        }
    )
    for body in (deep, deep_object, wrong_types, "{", "\xff\xfe", "null", "[]", '"x"'):
        raw = body.encode("utf-8", "surrogateescape")
        status, answer = _post_raw(dashboard, f"/api/hooks/{endpoint}", raw)
        assert (status, answer) == (200, {}), (body[:40], status, answer)


def _post_raw(dashboard, path: str, raw: bytes) -> tuple[int, object]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=30)
    conn.request(
        "POST",
        path,
        raw,
        {"Content-Type": "application/json", "X-MissionCache-Token": dashboard.token},
    )
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    try:
        return answer.status, json.loads(data)
    except ValueError:
        return answer.status, data[:200]

"""Who may talk to the dashboard (``security.refusal``), rule by rule."""

from __future__ import annotations

import pytest

from missioncache_dashboard.security import refusal

PORT = 8787


@pytest.mark.parametrize("host", ["127.0.0.1:8787", "localhost:8787", "LOCALHOST:8787"])
def test_own_hosts_pass(host):
    assert refusal("GET", host, None, PORT) is None
    assert refusal("POST", host, None, PORT) is None  # Claude Code sends no Origin


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "evil.example",
        "evil.example:8787",
        "127.0.0.1",
        "127.0.0.1:8788",
        "0.0.0.0:8787",
        "[::1]:8787",
        "127.0.0.1.evil.example:8787",
    ],
)
def test_other_hosts_are_refused(host):
    assert refusal("GET", host, None, PORT) is not None


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:8788", "https://127.0.0.1:8787"]
)
def test_foreign_origin_may_not_change_anything(origin):
    assert refusal("POST", "127.0.0.1:8787", origin, PORT) is not None
    assert refusal("GET", "127.0.0.1:8787", origin, PORT) is None  # reading is Host-guarded


def test_own_origin_may_post():
    assert refusal("POST", "127.0.0.1:8787", "http://127.0.0.1:8787", PORT) is None
    assert refusal("POST", "localhost:8787", "http://localhost:8787", PORT) is None

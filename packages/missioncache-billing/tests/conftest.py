"""The billing tests' week of turns (both test files of this package use it)."""

from __future__ import annotations

import time

import pytest

from missioncache_harness.worklog import record_work

WEEK = "2025-W10"  # Monday 2025-03-03 to Sunday 2025-03-09: always in the past


@pytest.fixture
def billing(mc_env, mc_plugin, mc_make_task):
    """Acme (EUR 120/h, 15-minute entries rounded up, 20% tax from billing setup) has
    alpha and beta (its own rate, 150); Globex (USD 95.50/h, 6-minute entries rounded to
    the nearest, no tax) has gamma. The truth, per task per day:

    - alpha Mon: turns of 25m and 20m with 5m of yours between them = 50m -> 1.00 h
    - alpha Wed: 10m -> 0.25 h                       (alpha: 1.25 h x 120 = 150.00)
    - beta  Tue: 67m -> 1.25 h                       (beta:  1.25 h x 150 = 187.50)
    - gamma Mon: 2000 s = 5.56 tenths -> 0.60 h
    - gamma Thu: 1000 s + 200 s of yours + 700 s = 1900 s = 5.28 tenths -> 0.50 h
    - gamma Sat: 100 s -> 0 h (nearest), no entry    (gamma: 1.10 h x 95.50 = 105.05)
    """

    def _at(day: int, hour: int) -> float:  # local 2025-03-<day> hour:00
        return time.mktime((2025, 3, day, hour, 0, 0, 0, 0, -1))

    db = mc_env.data_root / "tasks.db"
    alpha, beta, gamma = (mc_make_task(name) for name in ("alpha", "beta", "gamma"))
    record_work(db, alpha.id, _at(3, 10), [(1500, 300), (1200, 0)])
    record_work(db, alpha.id, _at(5, 14), [(600, 0)])
    record_work(db, beta.id, _at(4, 9), [(4020, 0)])
    record_work(db, gamma.id, _at(3, 11), [(2000, 0)])
    record_work(db, gamma.id, _at(6, 16), [(1000, 200), (700, 0)])
    record_work(db, gamma.id, _at(8, 12), [(100, 0)])

    def cli(*args, expect=0):
        done = mc_env.bundled(mc_plugin, *args)
        assert done.returncode == expect, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        return done.stdout if expect == 0 else done.stderr

    cli(
        "billing",
        "setup",
        "--name",
        "Ada Lovelace",
        "--email",
        "ada@example.com",
        "--address",
        "1 Analytical Road\\nLondon",
        "--tax",
        "20",
        "--terms",
        "14",
    )
    cli("client", "add", "Acme", "--rate", "120", "--currency", "EUR", "--rounding", "15m")
    cli(
        "client",
        "add",
        "Globex",
        "--rate",
        "95.50",
        "--currency",
        "usd",
        "--rounding",
        "6m",
        "--round",
        "nearest",
        "--tax",
        "0",
    )
    cli("task", "set", "alpha", "--client", "Acme")
    cli("task", "set", "beta", "--client", "Acme", "--rate", "150")
    cli("task", "set", "gamma", "--client", "Globex")
    return cli

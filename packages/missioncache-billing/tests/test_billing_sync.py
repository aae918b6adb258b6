"""Billing across two machines (docs/billing.md, "Where it is kept, and sync"): clients and
rates travel with sync, the newer change wins, and an invoice number issued on one
machine is known as used on the other, whose own numbers have another prefix."""

from __future__ import annotations

import json
import time

from missioncache_harness.machines import A_TURNS, T0, Machine, bare_remote


def test_clients_rates_and_invoice_numbers_travel(tmp_path, mc_plugin):
    project = tmp_path / "project"
    project.mkdir()
    a, b = Machine(tmp_path, "A", mc_plugin), Machine(tmp_path, "B", mc_plugin)
    url = bare_remote(tmp_path / "remote.git")
    a.cli("create-task", "demo", "--repo", str(project))
    a.cli("sync", "setup", url, "--name", "laptop")
    b.cli("sync", "setup", url, "--name", "desktop")
    a.cli("client", "add", "Acme", "--rate", "120", "--rounding", "15m")
    a.cli("task", "set", "demo", "--client", "Acme")
    a.turns("demo", "sa", A_TURNS)  # 20 minutes of Claude, two days ago
    a.cli("sync")
    b.cli("sync")
    assert "rate: 120" in b.cli("client", "show", "Acme").stdout
    b.cli("client", "edit", "Acme", "--rate", "130")  # the newer change wins everywhere
    b.cli("sync")
    a.cli("sync")
    assert "rate: 130" in a.cli("client", "show", "Acme").stdout

    day = time.strftime("%Y-%m-%d", time.localtime(T0))
    issued = json.loads(a.cli("invoice", "Acme", "--period", day, "--format", "json").stdout)
    assert [(line["task"], line["hours"], line["amount"]) for line in issued["lines"]] == [
        ("demo", "0.50", "65.00")  # two 10-minute turns on one day: 20m, up to 0.50 h
    ]
    a.cli("sync")
    b.cli("sync")
    assert issued["number"] in b.cli("invoice", "list").stdout
    used = b.cli("invoice", "Acme", "--period", "2025-01", "--number", issued["number"], ok=False)
    assert used.returncode == 1 and "already used" in used.stderr
    same = json.loads(b.cli("invoice", "Acme", "--period", day, "--format", "json").stdout)
    assert same == issued  # nothing new: B shows A's invoice, it issues no second one
    draft = b.cli("invoice", "Acme", "--period", "2025-01", "--draft", ok=False)
    assert "nothing to bill Acme" in draft.stderr
    b.turns("demo", "sb", [(T0 + 86400, T0 + 86400 + 900)])  # 15 minutes the next day
    next_day = time.strftime("%Y-%m-%d", time.localtime(T0 + 86400))
    mine = json.loads(b.cli("invoice", "Acme", "--period", next_day, "--format", "json").stdout)
    assert mine["number"].split("-")[0] != issued["number"].split("-")[0]  # B's own prefix
    assert mine["number"].endswith("-0001") and mine["total"] == "32.50"

"""Tokens in tasks.db and what they cost (missioncache_cost._tokens, missioncache_cost._prices)."""

from __future__ import annotations

import json

import pytest

import missioncache_spool as spool
from missioncache_cost._prices import PRICES_DATE, load_prices, normalise_model, price_lines
from missioncache_cost._tokens import format_cost, format_tokens, task_tokens
from missioncache_spool import spool_records
from missioncache_time import process_pending, time_split

T0 = 1_790_000_000.0


def message(key, prompt="p-1", model="claude-sonnet-4-5", tokens=(100, 20, 0, 0, 0), at=T0):
    return [key, model, "standard", None, prompt, at, *tokens]


def heartbeat(db, task_id, session, prompt, at):
    db.conn.execute(
        "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id, processed)"
        " VALUES (?, ?, '2026-01-01 00:00:00', ?, ?, ?, 1)",
        (f"{session}{prompt}".encode().hex()[:32], task_id, at, session, prompt),
    )


def spool_usage(db, session, rows):
    for record in spool_records(session, rows):
        spool.append(db.spool_dir, record)


@pytest.fixture
def task(db, mc_workdir):
    return db.create_task("priced", repo=mc_workdir)


def test_a_message_spooled_twice_is_stored_once_on_the_sessions_task(db, task):
    heartbeat(db, task.id, "s1", "p-1", T0 - 5)
    spool_usage(db, "s1", [message("m1:r1"), message("m2:r2", tokens=(1, 2, 3, 4, 5))])
    spool_usage(db, "s1", [message("m1:r1")])  # read again after a crash: no double count
    process_pending(db)
    tokens = task_tokens(db.conn, task.id)
    assert tokens.as_json() == {"input": 101, "output": 22, "cache_write": 7, "cache_read": 5}
    assert db.conn.execute("SELECT COUNT(*) FROM usage").fetchone()[0] == 2


def test_an_untracked_session_reaches_no_task(db, task):
    heartbeat(db, task.id, "tracked", "p-1", T0 - 5)
    spool_usage(db, "tracked", [message("m1:")])
    spool_usage(db, "untracked", [message("m2:", tokens=(9999, 9999, 0, 0, 0))])
    process_pending(db)
    assert task_tokens(db.conn, task.id).input == 100
    rows = db.conn.execute("SELECT session_id, task_id FROM usage ORDER BY id").fetchall()
    assert rows == [("tracked", task.id), ("untracked", None)]


def test_tokens_before_their_heartbeat_are_assigned_when_it_arrives(db, task):
    spool_usage(db, "s1", [message("m1:", prompt="p-1")])
    process_pending(db)
    assert task_tokens(db.conn, task.id).input == 0
    heartbeat(db, task.id, "s1", "p-1", T0 - 5)
    process_pending(db)
    assert task_tokens(db.conn, task.id).input == 100


def test_a_slash_command_turn_counts_for_the_task_the_session_is_on(db, task, mc_workdir):
    """A turn with no heartbeat of its own (a slash command) goes to the task of the
    session's latest prompt before it, or its first when none came before."""
    other = db.create_task("other", repo=mc_workdir.parent)
    heartbeat(db, task.id, "s1", "p-1", T0)
    heartbeat(db, other.id, "s1", "p-3", T0 + 100)
    spool_usage(db, "s1", [message("early:", prompt="slash-0", at=T0 - 50),
                           message("mid:", prompt="slash-2", at=T0 + 50),
                           message("late:", prompt="slash-4", at=T0 + 150)])  # fmt: skip
    process_pending(db)
    found = dict(db.conn.execute("SELECT message_key, task_id FROM usage").fetchall())
    assert found == {"early:": task.id, "mid:": task.id, "late:": other.id}


def test_sonnet_cost_is_its_published_rates():
    # $3 input, $15 output, $3.75 5-minute and $6 1-hour writes, $0.30 reads per MTok
    counts = (40_000,) * 5  # a prompt of 160k tokens: below the long-context threshold
    cost = load_prices().cost("claude-sonnet-4-5-20250929", "standard", counts)
    assert cost == pytest.approx(0.04 * (3 + 15 + 3.75 + 6 + 0.3))


def test_the_sample_transcripts_cost_is_what_claude_code_itself_recorded():
    """2.1.328's cost-state for the sample: 30 input and 15 output tokens of
    claude-opus-5-5 cost $0.00042."""
    prices = load_prices()
    assert prices.cost("claude-opus-5-5", "standard", (30, 15, 0, 0, 0)) == pytest.approx(0.00042)


def test_unknown_model_or_fast_mode_has_no_price_but_nothing_costs_nothing():
    prices = load_prices()
    assert prices.cost("claude-nonesuch-9", None, (10, 1, 0, 0, 0)) is None
    assert prices.cost("claude-opus-5-5", "fast", (10, 1, 0, 0, 0)) is None  # no known rate
    assert prices.cost("<synthetic>", None, (0, 0, 0, 0, 0)) == 0.0
    standard = prices.cost("claude-opus-4-6", "standard", (10, 1, 0, 0, 0))
    assert prices.cost("claude-opus-4-6", "fast", (10, 1, 0, 0, 0)) == pytest.approx(6 * standard)


def test_a_long_prompt_pays_the_long_context_rates():
    prices = load_prices()
    short = prices.cost("claude-sonnet-4-5", None, (200_000, 1000, 0, 0, 0))
    long = prices.cost("claude-sonnet-4-5", None, (200_001, 1000, 0, 0, 0))
    assert short == pytest.approx(0.6 + 0.015)
    assert long == pytest.approx(200_001 * 6e-6 + 1000 * 22.5e-6)


def test_a_task_with_an_unpriced_model_shows_its_cost_as_unknown(db, task):
    heartbeat(db, task.id, "s1", "p-1", T0 - 5)
    spool_usage(db, "s1", [message("m1:"), message("m2:", model="claude-nonesuch-9")])
    process_pending(db)
    tokens = task_tokens(db.conn, task.id)
    assert tokens.cost is None and tokens.unknown == {"claude-nonesuch-9"}
    assert format_cost(tokens.cost) == "cost unknown" and tokens.input == 200


def test_model_names_are_matched_without_dates_prefixes_or_context_tags():
    for name in ("claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5",
                 "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5@20250929",
                 "claude-sonnet-4-5[1m]"):  # fmt: skip
        assert normalise_model(name) == "claude-sonnet-4-5", name
    assert normalise_model("claude-opus-4-20250514") == "claude-opus-4"


def test_the_users_prices_file_corrects_the_table(mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True, exist_ok=True)
    rates = {"input": 1, "output": 2, "cache_5m": 0, "cache_1h": 0, "cache_read": 0}
    body = {"date": "2027-01-05", "models": {"claude-new-1": rates, "claude-bad": {"input": 1}}}
    (data / "prices.json").write_text(json.dumps(body))
    prices = load_prices()
    assert prices.cost("claude-new-1-20270101", None, (10**6, 10**6, 0, 0, 0)) == pytest.approx(3)
    assert prices.rates("claude-bad") is None
    shown = "\n".join(price_lines(prices))
    assert "2027-01-05" in shown and PRICES_DATE in shown and "from your prices.json" in shown


def test_figures_read_as_people_write_them():
    assert [format_tokens(n) for n in (950, 12_345, 1_300_000, 2_000_000)] == [
        "950 tokens", "12.3k tokens", "1.3M tokens", "2M tokens"]  # fmt: skip
    assert [format_cost(c) for c in (4.1234, 0.001, 0.0)] == ["$4.12", "<$0.01", "$0.00"]


def test_the_parts_shown_add_up_to_the_total_shown():
    from missioncache_time import format_split

    assert format_split((130, 12, 118)) == "2m (Claude <1m, you 2m)"  # was "Claude 12s, you 1m"
    assert format_split((71, 11, 60)) == "1m (Claude <1m, you 1m)"  # was "Claude 11s, you 1m"
    assert format_split((3900, 1830, 2070)) == "1h 5m (Claude 31m, you 34m)"
    assert format_split((45, 30, 15)) == "45s (Claude 30s, you 15s)"
    assert format_split((0, 0, 0)) == "0s (Claude 0s, you 0s)"


def test_a_stop_failure_with_an_agent_counts_until_its_notification(db, task):
    """Stored events: the failure's end (outcome failure) is read as "an agent may run"."""
    heartbeat(db, task.id, "s1", "p-1", T0)
    db.conn.execute(
        "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, background)"
        " VALUES ('e1', 's1', 'p-1', ?, 'failure', 0)",
        (T0 + 60,),
    )
    heartbeat(db, task.id, "s1", "p-2", T0 + 900)
    db.conn.execute("UPDATE heartbeats SET kind = 'synthetic' WHERE prompt_id = 'p-2'")
    db.conn.execute(
        "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, background)"
        " VALUES ('e2', 's1', 'p-2', ?, 'stop', 0)",
        (T0 + 930,),
    )
    assert tuple(time_split(db, task.id, now=T0 + 5000)) == (930, 930, 0)


def test_waits_are_nobodys_time_and_shown_apart(db, task):
    """A 10-minute turn of which 4 minutes were Claude Code waiting to retry: Claude 6m."""
    heartbeat(db, task.id, "s1", "p-1", T0)
    db.conn.execute(
        "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, background)"
        " VALUES ('e1', 's1', 'p-1', ?, 'stop', 0)",
        (T0 + 600,),
    )
    for record in spool_records("s1", [], [[T0 + 60, 100.0], [T0 + 200, 140.0]]):
        spool.append(db.spool_dir, record)
    process_pending(db)
    found = time_split(db, task.id, now=T0 + 5000)
    assert tuple(found) == (360, 360, 0) and found.waiting == 240


def test_two_sessions_waiting_in_the_same_minutes_wait_once(db, task):
    """Two parallel 10-minute turns, both rate-limited from minute 2 to 6 (the second's
    wait a minute longer): the task waited 5 minutes, not 9, and Claude worked 5."""
    for session, wait in (("s1", 240.0), ("s2", 300.0)):
        heartbeat(db, task.id, session, "p-1", T0)
        db.conn.execute(
            "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, background)"
            " VALUES (?, ?, 'p-1', ?, 'stop', 0)",
            (f"e-{session}", session, T0 + 600),
        )
        for record in spool_records(session, [], [[T0 + 120, wait]]):
            spool.append(db.spool_dir, record)
    process_pending(db)
    found = time_split(db, task.id, now=T0 + 5000)
    assert tuple(found) == (300, 300, 0) and found.waiting == 300


def test_a_forked_sessions_copied_messages_are_priced_once(db, task):
    """Regression: ``claude --resume ID --fork-session`` copies the parent's messages into
    the new transcript (same message id and request) and they were counted again."""
    heartbeat(db, task.id, "parent", "p-1", T0 - 5)
    heartbeat(db, task.id, "forked", "p-2", T0 + 50)
    spool_usage(db, "parent", [message("m1:r1"), message("m2:r2", tokens=(1000, 200, 0, 0, 0))])
    copied = [message("m1:r1"), message("m2:r2", tokens=(1000, 200, 0, 0, 0))]
    spool_usage(db, "forked", [*copied, message("m3:r3", prompt="p-2", at=T0 + 60)])
    process_pending(db)
    tokens = task_tokens(db.conn, task.id)
    assert (tokens.input, tokens.output) == (1200, 240)
    # A key without a request (a test model's reused ``msg_2``) is not merged across rows.
    spool_usage(db, "forked", [message("msg_2:", prompt="p-2", at=T0 + 70)])
    spool_usage(db, "parent", [message("msg_2:", at=T0 + 80)])
    process_pending(db)
    assert task_tokens(db.conn, task.id).input == 1400


def test_an_implausible_count_from_the_spool_or_a_log_is_dropped(db, task):
    """Regression: 10^30 tokens were clamped to 2^40 and cost $6.6 million."""
    heartbeat(db, task.id, "s1", "p-1", T0 - 5)
    spool_usage(db, "s1", [message("big:r", tokens=(10**30, 0, 0, 0, 0))])
    spool_usage(db, "s1", [message("huge:r", tokens=(0, 100_000_001, 0, 0, 0)),
                           message("fine:r")])  # fmt: skip
    process_pending(db)
    tokens = task_tokens(db.conn, task.id)
    assert tokens.input == 100 and tokens.output == 20
    assert tokens.cost is not None and tokens.cost < 0.01

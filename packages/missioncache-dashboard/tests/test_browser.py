"""The dashboard in a real browser: headless Chromium (Debian's ``/usr/bin/chromium``)
driven by Playwright renders the page the built plugin's ``missioncache dashboard`` serves.

Skips with a reason where Chromium is missing, except in CI (``CI`` set), where a missing
browser is a failure: ``.ci/run`` installs Debian's ``chromium``.
"""

from __future__ import annotations

import pytest

from missioncache_harness import browser
from missioncache_harness import dashboard as dash

LIVE_WAIT_MS = 10_000  # the page shows a hook event within 2 s; this only bounds a hang


@pytest.fixture
def world(mc_plugin, mc_env, mc_repo):
    ids = dash.demo_world(mc_plugin, mc_env, mc_repo)
    with dash.serving(mc_plugin, mc_env) as running:
        yield running, ids


def test_task_list_renders_and_a_hook_event_shows_live(mc_chromium, world, mc_repo, tmp_path):
    running, ids = world
    with browser.browser_page(mc_chromium) as (page, errors):
        page.goto(running.page_url)
        rows = page.locator("#tasks tbody tr")
        rows.first.wait_for()
        names = [row.get_attribute("data-task") for row in rows.all()]
        # Parents first, the fork right under its parent.
        assert names.index("auth-tokens") == names.index("auth-refactor") + 1
        assert set(names) == set(ids)
        billing = page.locator('#tasks tr[data-task="billing-export"]')
        assert "[5/8]" in billing.inner_text()
        # The rows above are in the page's own HTML (first paint); the chart is drawn by
        # the script, a moment later.
        page.locator("#chart svg rect").first.wait_for(timeout=LIVE_WAIT_MS)
        page.locator("#live-state", has_text="live").wait_for(timeout=LIVE_WAIT_MS)
        page.evaluate("window.__same_page = true")

        dash.live_session(running, mc_repo)
        row = page.locator(f'#sessions tr[data-session="{dash.SID}"]')
        row.locator("td.edits", has_text="2").wait_for(timeout=LIVE_WAIT_MS)
        text = row.inner_text()
        assert "billing-export" in text and "turn running" in text
        assert "add refunds to the CSV totals" in text
        assert page.locator("#machine-col").is_hidden()  # every session is this machine's
        assert page.evaluate("window.__same_page") is True  # updated without a reload
        dash.screenshot(page, tmp_path / "dashboard.png")
        assert (tmp_path / "dashboard.png").stat().st_size > 10_000
        assert errors == []


def test_a_session_of_another_machine_shows_a_machine_column(mc_chromium, world, mc_env, mc_repo):
    """A session synced from another machine (its heartbeat imported, named ``desk``) gets
    a machine column; this machine's own session says so in it."""
    import sqlite3
    import time

    running, _ids = world
    dash.live_session(running, mc_repo)
    with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id,"
            " synced, machine) VALUES ('ab01', 1, 'x', ?, 'desk-session', 'p1', 1, 'desk')",
            (time.time(),),
        )
    with browser.browser_page(mc_chromium) as (page, errors):
        page.goto(running.page_url)
        theirs = page.locator('#sessions tr[data-session="desk-session"] td.machine')
        theirs.wait_for(timeout=LIVE_WAIT_MS)
        assert theirs.inner_text() == "desk" and page.locator("#machine-col").is_visible()
        mine = page.locator(f'#sessions tr[data-session="{dash.SID}"]')
        assert "this machine" in mine.inner_text()
        assert errors == []


def test_task_page_shows_the_context_escaped(mc_chromium, world):
    running, ids = world
    with browser.browser_page(mc_chromium) as (page, errors):
        page.goto(running.page_url)  # the cookie, then the task's page
        page.goto(f"{running.url}/#/task/{ids['billing-export']}")
        markdown = page.locator("#task .markdown")
        markdown.locator("h1").wait_for()
        assert "Billing Export - Context" in markdown.locator("h1").inner_text()
        # The script tag in the file is shown as text and never ran.
        assert '<script>document.title = "pwned"</script>' in markdown.inner_text()
        assert page.title() != "pwned"
        assert markdown.locator("strong", has_text="CSV writer").count() == 1
        checklist = page.locator("#task ul.checklist li")
        assert checklist.count() == 8 and page.locator("#task ul.checklist li.done").count() == 5
        assert "Work sessions" in page.locator("#task").inner_text()
        assert errors == []


def test_dom_dumped_at_load_names_every_task(mc_chromium, world, tmp_path):
    """``chromium --headless --dump-dom``, with no waiting for scripts, names each task."""
    import subprocess

    running, ids = world
    argv = [mc_chromium, *browser.FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    done = subprocess.run(
        [*argv, "--dump-dom", running.page_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ids:
        assert f'data-task="{name}"' in done.stdout, name
    # the live table says it is loading rather than looking empty
    assert "Loading the live sessions" in done.stdout


def test_a_billed_task_shows_its_client_on_the_list_and_its_page(
    mc_chromium, world, mc_plugin, mc_env
):
    running, ids = world
    for args in (
        ("client", "add", "Acme", "--rate", "100", "--currency", "GBP"),
        ("task", "set", "billing-export", "--client", "Acme"),
    ):
        assert mc_env.bundled(mc_plugin, *args).returncode == 0
    with browser.browser_page(mc_chromium) as (page, errors):
        page.goto(running.page_url)
        note = page.locator('#tasks tr[data-task="billing-export"] .billing')
        note.wait_for(timeout=LIVE_WAIT_MS)
        assert note.inner_text().startswith("Acme · ") and " h this month = £" in note.inner_text()
        assert page.locator('#tasks tr[data-task="auth-refactor"] .billing').count() == 0
        page.goto(f"{running.url}/#/task/{ids['billing-export']}")
        page.locator("#task .billing", has_text="Acme").wait_for(timeout=LIVE_WAIT_MS)
        assert errors == []


def test_the_day_chart_has_an_axis_figures_and_only_drawn_colours(mc_chromium, world):
    running, _ids = world
    with browser.browser_page(mc_chromium) as (page, errors):
        page.goto(running.page_url)
        page.locator("#chart svg rect").first.wait_for(timeout=LIVE_WAIT_MS)
        texts = "els => els.map(e => e.textContent)"  # SVG text has no innerText
        axis = page.locator("#chart svg text.axis").evaluate_all(texts)
        assert axis[0] == "0h" and len(axis) >= 2  # hours up the side
        figures = page.locator("#chart svg text.fig").evaluate_all(texts)
        assert figures and all(f[-1] in "hms" for f in figures)  # each day's total
        legend = page.locator("#chart .legend span").all_inner_texts()
        assert sorted(legend) == ["auth-refactor", "billing-export"]  # the fork has no bar
        page.locator("#sessions-loading").wait_for(state="hidden", timeout=LIVE_WAIT_MS)
        assert errors == []


def test_the_health_banner_shows_code_as_code(mc_chromium, mc_plugin, mc_env, mc_repo):
    """A task folder gone: the banner's fix names a command, shown as code, not in
    backticks."""
    import shutil

    dash.demo_world(mc_plugin, mc_env, mc_repo)
    shutil.rmtree(mc_env.data_root / "active" / "auth-refactor" / "auth-tokens", True)
    shutil.rmtree(mc_env.data_root / "active" / "billing-export")
    with (
        dash.serving(mc_plugin, mc_env) as running,
        browser.browser_page(mc_chromium) as (page, errors),
    ):
        page.goto(running.page_url)
        banner = page.locator("#health")
        banner.locator("code").first.wait_for(timeout=LIVE_WAIT_MS)
        assert "`" not in banner.inner_text()
        assert any("doctor" in c for c in banner.locator("code").all_inner_texts())
        assert errors == []

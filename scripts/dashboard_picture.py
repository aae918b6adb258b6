#!/usr/bin/env python3
"""Make ``docs/img/dashboard.png``, the README's picture of the dashboard.

The same code path as the browser test (``packages/missioncache-dashboard/tests/
test_browser.py``): the demo tasks, the dashboard served by a freshly built plugin, a live
session posted through the http hook endpoints, and headless Chromium through Playwright,
all from the harness's ``dashboard`` and ``browser``.

Usage: ``uv run scripts/dashboard_picture.py [--out docs/img/dashboard.png]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from missioncache_harness import browser
from missioncache_harness import dashboard as dash
from missioncache_harness.workspace import build_plugin, make_env

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "dashboard.png")
    args = parser.parse_args(argv)
    chromium = browser.find_chromium()
    if chromium is None:
        print("chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        plugin = build_plugin(Path(tmp) / "plugin")
        env = make_env(Path(tmp) / "demo")
        repo = Path(tmp) / "work" / "billing"
        repo.mkdir(parents=True)
        dash.demo_world(plugin, env, repo.resolve())
        with (
            dash.serving(plugin, env) as running,
            browser.browser_page(chromium) as (
                page,
                _errors,
            ),
        ):
            page.goto(running.page_url)
            page.locator("#live-state", has_text="live").wait_for()
            dash.live_session(running, repo.resolve())
            page.locator("#sessions td.edits", has_text="2").wait_for()
            dash.screenshot(page, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

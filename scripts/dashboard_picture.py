#!/usr/bin/env python3
"""Make ``docs/img/dashboard.png``, the README's picture of the dashboard.

The same code path as the browser test (``packages/missioncache-dashboard/tests/
test_browser.py``): the demo tasks, the dashboard served by a freshly built plugin, a live
session posted through the http hook endpoints, and headless Chromium through Playwright,
all from that test's ``dash_kit``.

Usage: ``uv run scripts/dashboard_picture.py [--out docs/img/dashboard.png]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from missioncache_harness.workspace import build_plugin, make_env

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "packages" / "missioncache-dashboard" / "tests"))

import dash_kit  # noqa: E402 - found through the path set just above


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "dashboard.png")
    args = parser.parse_args(argv)
    chromium = dash_kit.chromium_path()
    if chromium is None:
        print("chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        plugin = build_plugin(Path(tmp) / "plugin")
        env = make_env(Path(tmp) / "demo")
        repo = Path(tmp) / "work" / "billing"
        repo.mkdir(parents=True)
        dash_kit.demo_world(plugin, env, repo.resolve())
        with (
            dash_kit.serving(plugin, env) as running,
            dash_kit.browser_page(chromium) as (
                page,
                _errors,
            ),
        ):
            page.goto(running.url + "/")
            page.locator("#live-state", has_text="live").wait_for()
            dash_kit.live_session(running, repo.resolve())
            page.locator("#sessions td.edits", has_text="2").wait_for()
            dash_kit.screenshot(page, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Make ``docs/img/report.png``, the README's picture of the HTML time report.

The same code path as the browser test (``packages/missioncache-report/tests/
test_report_browser.py``): the demo week, the report written by a freshly built plugin and
headless Chromium, all from the harness's ``report_demo`` and ``browser``.

Usage: ``uv run scripts/report_picture.py [--out docs/img/report.png]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from missioncache_harness import browser, report_demo
from missioncache_harness.workspace import build_plugin

REPO = Path(__file__).resolve().parent.parent

WIDTH, HEIGHT = 900, 640


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "report.png")
    args = parser.parse_args(argv)
    chromium = browser.find_chromium()
    if chromium is None:
        print("chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        plugin = build_plugin(Path(tmp) / "plugin")
        _env, page = report_demo.build(Path(tmp) / "demo", plugin)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        browser.screenshot(chromium, page, args.out, WIDTH, HEIGHT)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

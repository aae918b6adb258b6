"""The HTML report in a real browser: headless Chromium renders the file the BUILT
plugin's ``report --format html`` wrote, offline; the screenshot is not blank and shows
the chart's colours, and the rendered page's text names every task.

Skips with a reason where Chromium is missing, except in CI (``CI`` set), where a missing
browser is a failure: ``.ci/run`` installs Debian's ``chromium``.
"""

from __future__ import annotations

import pytest

from missioncache_harness import browser, report_demo

PALETTE_FIRST, PALETTE_SECOND = (0x2F, 0x7E, 0xD8), (0xF2, 0x8F, 0x43)


@pytest.fixture
def page(tmp_path, mc_plugin):
    _env, page = report_demo.build(tmp_path, mc_plugin)
    return page


def test_report_renders_offline_with_chart_and_every_task(mc_chromium, page, tmp_path):
    html = page.read_text(encoding="utf-8")
    assert "<svg" in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    assert "https://" not in html and "<script" not in html and "<link" not in html

    dom = browser.dump_dom(mc_chromium, page)
    for name in [*report_demo.WEEK, report_demo.FORK[1]]:
        assert name in dom
    assert "MissionCache time report" in dom and "total time" in dom

    png = tmp_path / "report.png"
    browser.screenshot(mc_chromium, png=png, page=page)
    width, height, colors = browser.pixel_colors(png)
    assert (width, height) == (900, 640)
    total = width * height
    white = colors.get((255, 255, 255), 0)
    assert white < total * 0.95, "the screenshot is (almost) blank"
    # The stacked bars are drawn: the first two tasks' colours cover real areas.
    assert colors.get(PALETTE_FIRST, 0) > 2000 and colors.get(PALETTE_SECOND, 0) > 2000
    assert len(colors) > 50  # text is anti-aliased: many shades, not a flat fill


def test_blank_page_is_caught(mc_chromium, tmp_path):
    """The blank check can fail: an empty page's screenshot is all white."""
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><html><body></body></html>")
    png = tmp_path / "empty.png"
    browser.screenshot(mc_chromium, empty, png)
    _width, _height, colors = browser.pixel_colors(png)
    assert colors.get((255, 255, 255), 0) == sum(colors.values())

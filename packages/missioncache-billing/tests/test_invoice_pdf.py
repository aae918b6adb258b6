"""The PDF invoice through the real path a user takes: the built plugin's command line
starting WeasyPrint with ``uvx``, the PDF read back with ``pdftotext``; and the same HTML
rendered by Chromium. In CI (``CI`` set) a missing uvx, Pango or pdftotext FAILS these
tests (``.ci/run`` installs them), never skips."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from missioncache_harness import browser

WEEK = "2025-W10"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PDF test: {name} is missing (.ci/run installs it)")
        pytest.skip(f"{name} is not installed (apt-get install poppler-utils; uv for uvx)")
    return found


def test_pdf_invoice_reads_back_with_every_figure(billing, tmp_path):
    pdftotext, _uvx = _tool("pdftotext"), _tool("uvx")
    target = tmp_path / "acme.pdf"
    said = billing("invoice", "Acme", "--period", WEEK, "--format", "pdf", "-o", str(target))
    assert "issued" in said and str(target) in said
    assert target.read_bytes().startswith(b"%PDF-")
    text = subprocess.run(
        [pdftotext, str(target), "-"], capture_output=True, text=True, check=True
    ).stdout
    number = said.split()[1]
    for expected in (
        f"Invoice number {number}",
        "Ada Lovelace",
        "Bill to",
        "Acme",
        "€150.00",
        "€187.50",
        "€337.50",
        "Tax 20%",
        "€67.50",
        "€405.00",
        "week 10 of 2025",
        "2025-03-03",
        "Due date",
    ):
        assert expected.lower() in " ".join(text.split()).lower(), (expected, text)


def test_pdf_failure_is_one_clear_line(billing, mc_env, mc_plugin, tmp_path):
    env = dict(
        mc_env.with_lib(mc_plugin), MISSIONCACHE_WEASYPRINT=str(tmp_path / "no-such-weasyprint")
    )
    done = mc_env.bundled(
        mc_plugin,
        "invoice",
        "Acme",
        "--period",
        WEEK,
        "--format",
        "pdf",
        "-o",
        str(tmp_path / "x.pdf"),
        env=env,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "could not print the PDF with WeasyPrint" in done.stderr
    assert "--format html" in done.stderr and not (tmp_path / "x.pdf").exists()


def test_invoice_html_renders_in_chromium(billing, mc_chromium, tmp_path):
    page = tmp_path / "invoice.html"
    billing("invoice", "Globex", "--period", WEEK, "--format", "html", "-o", str(page))
    dom = browser.dump_dom(mc_chromium, page)
    assert "$105.05" in dom and "gamma" in dom and "Invoice" in dom
    png = tmp_path / "invoice.png"
    browser.screenshot(mc_chromium, png=png, page=page)
    _width, _height, colors = browser.pixel_colors(png)
    assert colors.get((255, 255, 255), 0) < sum(colors.values()) * 0.98  # not blank
    assert len(colors) > 20  # anti-aliased text

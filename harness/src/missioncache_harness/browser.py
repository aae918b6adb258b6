"""Headless Chromium for the tests that look at a page as a reader does (the HTML report,
the dashboard) and for the README's pictures, which go through the same functions.

WHY a real browser: only a browser shows whether a page renders offline and what a reader
sees. Debian's ``chromium`` is what ``.ci/run`` installs; ``$MISSIONCACHE_CHROMIUM`` names
another. The ``mc_chromium`` fixture skips without one, and fails with ``CI`` set.

- ``find_chromium()``: the browser's path, or None.
- ``run_headless`` / ``screenshot`` / ``dump_dom``: Chromium's own command line, offline.
- ``pixel_colors``: the colours of a screenshot, read without a PNG library.
- ``browser_page``: a Playwright page (Playwright is a dev dependency, imported on use).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

CHROMIUM_VARIABLE = "MISSIONCACHE_CHROMIUM"
DEBIAN_CHROMIUM = "/usr/bin/chromium"
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Every launch: headless, no sandbox (CI containers run as root), nothing of its own online.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A page rendered from a file: no network at all (``--host-resolver-rules`` maps every name
# to nowhere, so a page that tried to fetch anything would show it), no scrollbars.
OFFLINE_FLAGS = [
    "--hide-scrollbars",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def find_chromium() -> str | None:
    """``$MISSIONCACHE_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else one on PATH."""
    explicit = os.environ.get(CHROMIUM_VARIABLE)
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        return DEBIAN_CHROMIUM
    return next((found for name in NAMES if (found := shutil.which(name))), None)


def run_headless(chromium: str, *args: str) -> subprocess.CompletedProcess:
    """Chromium headless, offline and isolated (its own throwaway profile and HOME)."""
    with tempfile.TemporaryDirectory(prefix="mc-chromium-") as profile:
        argv = [chromium, *FLAGS, *OFFLINE_FLAGS, f"--user-data-dir={profile}", *args]
        env = dict(os.environ, HOME=profile)
        return subprocess.run(argv, capture_output=True, timeout=120, env=env, check=False)


def _failed(done: subprocess.CompletedProcess, what: str) -> RuntimeError:
    return RuntimeError(f"chromium {what} (exit {done.returncode}): {done.stderr.decode()[-2000:]}")


def screenshot(chromium: str, page: Path, png: Path, width: int = 900, height: int = 640) -> None:
    """Render ``page`` (a local file) into ``png`` at ``width`` x ``height``."""
    png = png.resolve()
    png.unlink(missing_ok=True)
    size, uri = f"--window-size={width},{height}", page.resolve().as_uri()
    done = run_headless(chromium, size, f"--screenshot={png}", uri)
    if not png.is_file():
        raise _failed(done, "wrote no screenshot")


def dump_dom(chromium: str, page: Path) -> str:
    """The page's DOM after rendering, serialised (what ``--dump-dom`` prints)."""
    done = run_headless(chromium, "--dump-dom", page.resolve().as_uri())
    if done.returncode != 0 or not done.stdout:
        raise _failed(done, "--dump-dom failed")
    return done.stdout.decode("utf-8", errors="replace")


def pixel_colors(path: Path) -> tuple[int, int, Counter[tuple[int, int, int]]]:
    """(width, height, pixels per RGB colour) of an 8-bit, non-interlaced RGB or RGBA PNG,
    which is what Chromium writes; unfiltered here so a test can look at the pixels."""
    data, pos, idat = path.read_bytes(), 8, b""
    width = height = depth = color = interlace = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {color})")
    step = 3 if color == 2 else 4
    raw, stride = zlib.decompress(idat), width * step
    counts: Counter[tuple[int, int, int]] = Counter()
    up = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(raw[start], line, up, step)
        counts.update(zip(line[0::step], line[1::step], line[2::step]))
        up = line
    return width, height, counts


def _unfilter(kind: int, line: bytearray, up: bytearray, step: int) -> None:
    for i in range(len(line)):
        left = line[i - step] if i >= step else 0
        above, corner = up[i], up[i - step] if i >= step else 0
        if kind == 4:
            p = left + above - corner
            pa, pb, pc = abs(p - left), abs(p - above), abs(p - corner)
            pred = left if pa <= pb and pa <= pc else above if pb <= pc else corner
        else:
            pred = (0, left, above, (left + above) // 2)[kind]
        line[i] = (line[i] + pred) & 0xFF


@contextlib.contextmanager
def browser_page(chromium: str) -> Iterator[tuple[object, list]]:
    """A Playwright page in headless Chromium, and the list its console errors (and page
    errors) are appended to."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            errors: list = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()

"""The report's demo week and headless Chromium, for the browser test and the README
picture (``scripts/report_picture.py``): both go through these functions, so the picture
is the tested page.

WHY a real browser: the report is one self-contained file whose chart is inline SVG; only
a browser shows whether it really renders offline (no CDN, no script) and what a reader
sees. Debian's ``chromium`` is what ``.ci/run`` installs. The work is written straight
into tasks.db as the hooks record it (``worklog``): a week of real prompts takes a week.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import McEnv, create_task, make_env

# (task, [(days ago, start hour, minutes)]): a plausible week, deterministic.
WEEK = {
    "billing-export": [(6, 9, 95), (5, 10, 140), (4, 9, 60), (2, 14, 110), (1, 9, 75), (0, 9, 50)],
    "auth-refactor": [(6, 14, 45), (4, 13, 130), (3, 9, 160), (2, 9, 40), (0, 11, 35)],
    "flaky-ci": [(5, 15, 30), (3, 15, 55), (1, 14, 90)],
}
PROGRESS = {"billing-export": (5, 8), "auth-refactor": (2, 6), "flaky-ci": (4, 4)}


def build(root: Path, plugin: Path) -> tuple[McEnv, Path]:
    """A home under ``root`` with the demo week; returns it and the HTML report's path.

    Each block is prompts every 5 minutes: Claude works 3.5, you read and type 1.5."""
    env = make_env(root)
    now = time.time()
    today = time.localtime(now)
    for name, plan in WEEK.items():
        task = create_task(plugin, env, name)
        done, total = PROGRESS[name]
        items = "".join(
            f"- [{'x' if i < done else ' '}] {i + 1}. Step {i + 1}\n" for i in range(total)
        )
        (env.data_root / "active" / name / f"{name}-tasks.md").write_text("# Tasks\n\n" + items)
        for days_ago, hour, minutes in plan:
            day = (today.tm_year, today.tm_mon, today.tm_mday - days_ago)
            start = min(time.mktime((*day, hour, 0, 0, 0, 0, -1)), now - minutes * 60 - 60)
            turns = [(210.0, 90.0)] * max(1, minutes // 5)
            record_work(env.data_root / "tasks.db", task.id, start, turns)
    page = root / "report.html"
    done = env.bundled(plugin, "report", "--period", "week", "--format", "html", "-o", str(page))
    if done.returncode != 0:
        raise RuntimeError(f"report failed: {done.stderr.strip()}")
    return env, page


def find_chromium() -> str | None:
    """``$MISSIONCACHE_CHROMIUM``, else the first Chromium on PATH."""
    explicit = os.environ.get("MISSIONCACHE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    return next((found for name in names if (found := shutil.which(name))), None)


def _chromium(chromium: str, *args: str) -> subprocess.CompletedProcess:
    """Chromium headless, offline and isolated: its own throwaway profile, no sandbox
    (CI containers run as root), no network (``--host-resolver-rules`` maps every name
    to nowhere, so a page that tried to fetch anything would show it)."""
    with tempfile.TemporaryDirectory(prefix="mc-chromium-") as profile:
        argv = [
            *(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"),
            *("--no-first-run", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND"),
            f"--user-data-dir={profile}",
            *args,
        ]
        env = dict(os.environ, HOME=profile)
        return subprocess.run(argv, capture_output=True, timeout=120, env=env, check=False)


def _failed(done: subprocess.CompletedProcess, what: str) -> RuntimeError:
    return RuntimeError(f"chromium {what} (exit {done.returncode}): {done.stderr.decode()[-2000:]}")


def screenshot(chromium: str, page: Path, png: Path, width: int = 900, height: int = 640) -> None:
    """Render ``page`` (a local file) into ``png`` at ``width`` x ``height``."""
    png = png.resolve()
    png.unlink(missing_ok=True)
    size, uri = f"--window-size={width},{height}", page.resolve().as_uri()
    done = _chromium(chromium, size, f"--screenshot={png}", uri)
    if not png.is_file():
        raise _failed(done, "wrote no screenshot")


def dump_dom(chromium: str, page: Path) -> str:
    """The page's DOM after rendering, serialised (what ``--dump-dom`` prints)."""
    done = _chromium(chromium, "--dump-dom", page.resolve().as_uri())
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

"""Headless Chromium for the HTML report: render a page to a PNG and to its DOM text,
and read the PNG's pixels back (standard library only), for the browser test and for
the README picture (``scripts/report_picture.py``): both go through these functions.

WHY a real browser: the report is one self-contained file whose chart is inline SVG; only
a browser shows whether it really renders offline (no CDN, no script) and what a reader
sees. Debian's ``chromium`` is what ``.ci/run`` installs.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """``$MISSIONCACHE_CHROMIUM``, else the first Chromium on PATH."""
    explicit = os.environ.get("MISSIONCACHE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(chromium: str, args: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Chromium headless, offline and isolated: its own throwaway profile, no sandbox
    (CI containers run as root), no network (``--host-resolver-rules`` maps every name
    to nowhere, so a page that tried to fetch anything would show it)."""
    with tempfile.TemporaryDirectory(prefix="mc-chromium-") as profile:
        argv = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={profile}",
            *args,
        ]
        env = dict(os.environ, HOME=profile)
        return subprocess.run(argv, capture_output=True, timeout=timeout, env=env, check=False)


def screenshot(
    chromium: str, page: Path, png: Path, width: int = 900, height: int = 640, timeout: float = 120
) -> None:
    """Render ``page`` (a local file) into ``png`` at ``width`` x ``height``."""
    png = png.resolve()
    if png.exists():
        png.unlink()
    done = _run(
        chromium,
        [f"--window-size={width},{height}", f"--screenshot={png}", page.resolve().as_uri()],
        timeout,
    )
    if not png.is_file():
        raise RuntimeError(
            f"chromium wrote no screenshot (exit {done.returncode}): {done.stderr.decode()[-2000:]}"
        )


def dump_dom(chromium: str, page: Path, timeout: float = 120) -> str:
    """The page's DOM after rendering, serialised (what ``--dump-dom`` prints)."""
    done = _run(chromium, ["--dump-dom", page.resolve().as_uri()], timeout)
    if done.returncode != 0 or not done.stdout:
        raise RuntimeError(
            f"chromium --dump-dom failed (exit {done.returncode}): {done.stderr.decode()[-2000:]}"
        )
    return done.stdout.decode("utf-8", errors="replace")


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced RGB or RGBA PNG,
    which is what Chromium writes; unfiltered here so a test can look at the pixels."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise ValueError(f"{path} has no IHDR")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG layout: depth {depth}, colour type {color}")
    step = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * step
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, step)
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, up: bytearray, step: int) -> None:
    for i in range(len(line)):
        left = line[i - step] if i >= step else 0
        above = up[i]
        corner = up[i - step] if i >= step else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + above) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + above) // 2) & 0xFF
        elif kind == 4:
            p = left + above - corner
            pa, pb, pc = abs(p - left), abs(p - above), abs(p - corner)
            pred = left if pa <= pb and pa <= pc else above if pb <= pc else corner
            line[i] = (line[i] + pred) & 0xFF


def pixel_colors(path: Path) -> dict[tuple[int, int, int], int]:
    """How many pixels of each RGB colour the PNG has."""
    width, _height, rows = read_png(path)
    step = len(rows[0]) // width if rows else 3
    counts: dict[tuple[int, int, int], int] = {}
    for row in rows:
        for x in range(0, len(row), step):
            key = (row[x], row[x + 1], row[x + 2])
            counts[key] = counts.get(key, 0) + 1
    return counts

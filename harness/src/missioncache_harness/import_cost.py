"""The standard-library modules no hook may import on its normal path, for every package's
"hook path imports nothing heavy" test.

WHY one list: each is milliseconds of a ~11 ms interpreter start, paid on every prompt, and
the libraries are guarded one by one; a module dropped from one package's copy of the list
would quietly come back. Figures measured on the 2-core benchmark machine (Python 3.11):
``pathlib`` 4-8 ms with what it imports; ``json`` 4.6 ms because it imports ``re``, which
imports ``enum`` and ``functools``; ``typing``, ``tempfile``, ``subprocess``, ``argparse``
and ``dataclasses`` one to a few ms each; ``collections`` about 9 M instructions (callgrind)
on a 21 M interpreter start, ``functools`` 2 M more (the hooks open SQLite without either:
``missioncache_state.sqlite``; their named tuples come from ``missioncache_state.tuples``);
``os`` 5 M, 0.9 ms, most of it ``_collections_abc`` (the hooks use
``missioncache_state.lean_os``, which ``python3 -S`` starts without).
"""

from __future__ import annotations

HEAVY_ON_HOOK_PATH = (
    "argparse",
    "collections",
    "contextlib",
    "dataclasses",
    "enum",
    "functools",
    "json",
    "os",
    "pathlib",
    "re",
    "shutil",
    "subprocess",
    "tempfile",
    "typing",
)

_MARK = "missioncache-heavy-imports:"


def measuring(code: str, preload: str = "import os, sys") -> str:
    """``code`` wrapped to report, on its last stderr line, which modules of
    ``HEAVY_ON_HOOK_PATH`` it imported beyond ``preload`` (what a hook loads anyway, such
    as ``sqlite3``). Run the result with ``python -S -c`` and read it with ``heavy_from``."""
    return (
        f"{preload}\n"
        "import sys as _sys\n"
        "_before = set(_sys.modules)\n"
        f"{code}\n"
        f"_heavy = [m for m in {HEAVY_ON_HOOK_PATH!r} if m in _sys.modules and m not in _before]\n"
        f"_sys.stderr.write('\\n{_MARK}' + ' '.join(_heavy) + '\\n')\n"
    )


def heavy_from(stderr: str) -> list[str] | None:
    """The heavy modules a ``measuring`` run reported; None when it never got that far."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(_MARK):
            return line[len(_MARK) :].split()
    return None

"""The standard-library modules no hook may import on its normal path, for every package's
"hook path imports nothing heavy" test.

WHY one list: each is milliseconds of a ~11 ms interpreter start, paid on every prompt, and
the libraries are guarded one by one; a module dropped from one package's copy of the list
would quietly come back. Figures measured on the 2-core benchmark machine (Python 3.11):
``pathlib`` 4-8 ms with what it imports; ``json`` 4.6 ms because it imports ``re``, which
imports ``enum`` and ``functools``; ``typing``, ``tempfile``, ``subprocess``, ``argparse``
and ``dataclasses`` one to a few ms each. (``functools`` and ``collections`` are not listed:
``sqlite3`` imports both anyway.)
"""

from __future__ import annotations

HEAVY_ON_HOOK_PATH = (
    "argparse",
    "contextlib",
    "dataclasses",
    "enum",
    "json",
    "pathlib",
    "re",
    "shutil",
    "subprocess",
    "tempfile",
    "typing",
)

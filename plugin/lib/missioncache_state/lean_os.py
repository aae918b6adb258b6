"""``os`` for the hooks, without the cost of importing ``os``: ``from missioncache_state
import lean_os as os``, then the usual ``os.replace``, ``os.path.join``, ``os.environ``.

WHY: ``python3 -S`` starts without ``os``, and importing it costs about 5 M instructions
(0.9 ms here), a quarter of what a whole hook adds to the interpreter's start: most of it
is ``_collections_abc``, which ``os`` needs for ``os.environ``'s base class and nothing a
hook uses. The calls themselves live in the built-in ``posix`` module, which ``os``
re-exports; this module re-exports them the same way and adds the few pure-Python parts
of ``os`` and ``os.path`` the hooks call (``missioncache_state._lean_path``).

Where this module is exactly ``os``: on Windows, under a Python without a built-in
``posix``, and in any process that had already imported ``os`` when this module loaded
(tests, the command line, the servers). There it replaces itself with ``os`` in
``sys.modules``, so patching ``os`` in a test patches what the code calls. Anything a
hook reaches for that is not here is taken from ``os`` on first use (PEP 562), imported
then: slower, never different. A test imports every hook in a fresh interpreter and
holds each to running without ``os`` (``test_lean_os.py``).
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # type checkers read this module as ``os`` itself
    from os import *  # noqa: F403
    from os import (  # re-exported, as the type checkers want it spelled
        PathLike as PathLike,
    )
    from os import (
        _exit as _exit,
    )
    from os import (
        environ as environ,
    )
    from os import (
        fdopen as fdopen,
    )
    from os import (
        fsdecode as fsdecode,
    )
    from os import (
        fsencode as fsencode,
    )
    from os import (
        makedirs as makedirs,
    )
    from os import (
        path as path,
    )
    from os import (
        stat_result as stat_result,
    )
elif "os" in sys.modules or "posix" not in sys.builtin_module_names:
    sys.modules[__name__] = sys.modules.get("os") or __import__("os")
else:
    from posix import *  # noqa: F403
    from posix import _exit, stat_result  # noqa: F401  (_exit: * skips private names)

    from missioncache_state import _lean_path as path

    name = "posix"
    sep, altsep, extsep, pathsep = "/", None, ".", ":"
    curdir, pardir, devnull, linesep = ".", "..", "/dev/null", "\n"
    SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2

    environ = path._Environ()

    def getenv(key, default=None):
        return environ.get(key, default)

    fsdecode, fsencode = path.fsdecode, path.fsencode

    def fdopen(fd, mode="r", buffering=-1, encoding=None, *args, **kwargs):
        """``os.fdopen``: the built-in ``open`` (which ``posix.open`` hides here) on a
        descriptor."""
        if not isinstance(fd, int):
            raise TypeError(f"invalid fd type ({type(fd)}, expected integer)")
        import builtins

        return builtins.open(fd, mode, buffering, encoding, *args, **kwargs)

    def makedirs(name, mode=0o777, exist_ok=False):
        """``os.makedirs``: the missing parents first, then the folder itself."""
        head, tail = path.split(name)
        if not tail:
            head, tail = path.split(head)
        if head and tail and not path.exists(head):
            try:
                makedirs(head, exist_ok=exist_ok)
            except FileExistsError:
                pass  # made meanwhile by another process
            if tail == curdir:
                return
        try:
            mkdir(name, mode)  # noqa: F405
        except OSError:
            if not exist_ok or not path.isdir(name):
                raise

    def __getattr__(attribute):
        """The rest of ``os``, which costs its import on first use. Not for an ``O_``
        flag ``posix`` lacks, which ``os`` lacks too (``getattr(os, "O_BINARY", 0)``), nor
        a dunder the import system probes for (``__path__``)."""
        if attribute.startswith(("O_", "__")):
            raise AttributeError(f"module 'os' has no attribute {attribute!r}")
        import os

        return getattr(os, attribute)

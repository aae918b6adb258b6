"""MissionCache state store: where state lives and how it is written.

Submodules are imported on demand (``from missioncache_state.locations import data_root``) so
that a hook pays only for what it uses; this file imports nothing. It also holds
``lazy_exports``, the one way a library's ``__init__`` serves its API lazily: every
library imports this package anyway, so the helper costs no module of its own.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: "dict[str, str]"
) -> "tuple[Callable[[str], object], Callable[[], list[str]]]":
    """``(__getattr__, __dir__)`` for the ``__init__`` of ``package`` (PEP 562).

    ``exports`` maps each public name to the private module beside ``__init__`` that
    defines it (``{"TaskDB": "_db"}``). A name is imported on its first use and then kept
    in the package, so ``import missioncache_db`` costs one small file until a hook
    really touches the database. ``__import__``, not importlib: that package costs an
    import of its own on a path where every millisecond is paid on each prompt.
    """
    import sys  # built in: already loaded, no cost
    # No ``from __future__ import annotations`` in this file: that statement imports the
    # ``__future__`` module, which a hook that needs nothing else would pay for.

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        qualified = f"{package}.{module}"
        __import__(qualified)
        value = getattr(sys.modules[qualified], name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> "list[str]":
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__

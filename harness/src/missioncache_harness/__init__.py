"""Simulates Claude Code's hook contract for MissionCache tests and drives the real CLI.

Nothing of the product is imported: plugins are run as processes, as Claude Code runs them.
Convenient names are re-exported lazily (PEP 562) so that importing the pytest plugin stays cheap.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "plugin": ("Plugin", "HookSpec", "Problem", "load_plugin", "strict_check"),
    "runner": ("HookRun", "run_event"),
    "routing": ("EventResult", "Routed", "route"),
    "session": ("Session", "Turn", "Compaction", "fire"),
    "tools": ("Text", "Write", "Edit", "Tool"),
    "probes": ("probe_plugin", "write_plugin"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

"""Simulates Claude Code's hook contract for MissionCache tests and drives the real CLI.

Nothing of the product is imported: plugins are run as processes, as Claude Code runs them.
Convenient names are re-exported lazily (PEP 562) so that importing the pytest plugin stays cheap.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Plugin": "plugin",
    "HookSpec": "plugin",
    "Problem": "plugin",
    "load_plugin": "plugin",
    "strict_check": "plugin",
    "HookRun": "runner",
    "run_event": "runner",
    "EventResult": "routing",
    "Routed": "routing",
    "route": "routing",
    "fire": "session",
    "Session": "session",
    "Turn": "session",
    "Compaction": "session",
    "Text": "tools",
    "Write": "tools",
    "Edit": "tools",
    "Tool": "tools",
    "probe_plugin": "probes",
    "write_plugin": "probes",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

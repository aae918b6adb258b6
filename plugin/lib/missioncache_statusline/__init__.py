"""MissionCache's status line for Claude Code, and its settings.json install.

Claude Code runs the status line often (after every assistant message, on resize, on a
``refreshInterval``), so this file imports nothing: ``line`` is the entry, ``facts``
the slow path behind a cache, ``install`` the settings editor (never on the hot path).
"""

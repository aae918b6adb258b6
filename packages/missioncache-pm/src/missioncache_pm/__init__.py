"""MissionCache's ``pm`` MCP server, and the modules the slash commands share with it.

Modules: ``server`` (the MCP server; needs the ``mcp`` SDK), and standard-library-only
modules any ``python3`` can run: ``bootstrap`` (finds the plugin's bundled libraries),
``guard`` (which files a tool may edit), ``edits`` (tasks/context file updates),
``taskinfo`` (task lookup, creation, session binding), ``pending`` (the pre-compact
failure record) and ``errors`` (one-sentence messages), which the slash commands
(``missioncache_slash``) use too. This file imports nothing.
"""

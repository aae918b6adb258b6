"""MissionCache's ``pm`` MCP server and the helper behind the ``/missioncache:*`` commands.

Modules: ``server`` (the MCP server; needs the ``mcp`` SDK), and standard-library-only
modules any ``python3`` can run: ``bootstrap`` (finds the plugin's bundled libraries),
``guard`` (which files a tool may edit), ``edits`` (tasks/context file updates),
``taskinfo`` (task lookup, creation, session binding), ``pending`` (the pre-compact
failure record), ``errors`` (one-sentence messages) and ``slash`` (the slash commands'
shell helper). This file imports nothing.
"""

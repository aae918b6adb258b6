"""MissionCache's `pm` MCP server."""

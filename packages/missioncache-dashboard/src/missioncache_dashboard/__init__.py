"""MissionCache's dashboard: a local web app and the endpoints of Claude Code's http hooks.

Nothing is imported here: ``missioncache dashboard install`` imports ``install`` alone,
under the user's own Python, without Starlette."""

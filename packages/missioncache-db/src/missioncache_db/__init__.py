"""MissionCache task database: tasks, heartbeats, work sessions and time invested."""

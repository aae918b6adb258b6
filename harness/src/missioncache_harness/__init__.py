"""Simulates Claude Code's hook contract for MissionCache tests and drives the real CLI."""

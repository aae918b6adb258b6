"""Shared pytest fixtures (registered through the pytest11 entry point)."""

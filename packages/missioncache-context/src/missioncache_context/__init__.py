"""Fence-aware reading and lossless editing of MissionCache context and tasks files."""

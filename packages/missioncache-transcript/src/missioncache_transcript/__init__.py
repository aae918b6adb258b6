"""Reads Claude Code session transcripts from the end: current exchange, edits, recent turns."""

"""What every MissionCache hook shares: reading Claude Code's stdin payload safely, the
prompt rules both UserPromptSubmit hooks apply, and writing output for its audience.

Kept in one library so no hook carries its own copy of a parser (see docs/hooks.md).
Submodules: ``payload`` (input), ``prompts`` (skip rules), ``output`` (channels, run guard).
"""

"""``missioncache statusline install|uninstall``: put our status line into (and take it
out of) Claude Code's user ``settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``).

WHY it is careful: settings.json is the user's file, holding their permissions, hooks
and possibly a status line of their own. So:

- Every read and write goes through ``missioncache_state.settings_file``: a save another
  program makes while we work is never overwritten (compare before replace, retry), and a
  half-finished save (an empty file a moment ago full) is waited for, never taken as ``{}``.
- The file is written atomically (temp file + replace; through a symlink, to its target,
  so a dotfiles link stays a link), keeping every other key and their order; a backup of
  the previous bytes is written beside it first (``settings.json.missioncache-backup``).
- A status line the user already has is never lost: install refuses, naming it, unless
  ``--chain`` is given; then the launcher runs theirs first and ours below it.
- What install replaced is recorded (``<state>/statusline/install.json``). Uninstall puts
  back exactly the bytes that were there when the file is still as install left it;
  otherwise (edited since) it restores only the ``statusLine`` key and keeps the edits.
- Anything unexpected (settings.json is not a JSON object, our record is gone) stops with
  a clear message and changes nothing.
"""

from __future__ import annotations

import json
import os
import sys

from missioncache_state.atomic import atomic_write_bytes, read_json_object, remove_file
from missioncache_state.locations import claude_dir, state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from missioncache_state.settings_file import Change, Snapshot

BACKUP_SUFFIX = ".missioncache-backup"  # the same as settings_file.BACKUP_SUFFIX
LAUNCHER_NAME = "launcher.py"
_ABSENT = "absent"


class InstallError(Exception):
    """A reason not to touch settings.json, in words the user can act on."""


def settings_path() -> str:
    return os.path.join(claude_dir(), "settings.json")


def _folder() -> str:
    return os.path.join(state_dir(), "statusline")


def launcher_path() -> str:
    return os.path.join(_folder(), LAUNCHER_NAME)


def record_path() -> str:
    return os.path.join(_folder(), "install.json")


def command_for(launcher: str) -> str:
    """The settings.json command: ``python3 -S`` like the hooks, path in double quotes.

    On Windows ``python3`` is often the Microsoft Store's stub (or missing), so the
    command names the interpreter running this install, which is known to work, in
    UTF-8 mode, with forward slashes: Git Bash (where Claude Code runs commands) and
    cmd.exe both take them, while a backslash can be eaten by bash."""
    if sys.platform != "win32":
        return f'python3 -S "{launcher}"'
    python, script = (path.replace("\\", "/") for path in (sys.executable, launcher))
    return f'"{python}" -X utf8 -S "{script}"'


def is_ours(status_line: object) -> bool:
    """Whether the status line is the one install wrote. On Windows by its launcher:
    the interpreter named in it may since have moved (a Python upgrade)."""
    command = status_line.get("command") if isinstance(status_line, dict) else None
    if not isinstance(command, str):
        return False
    ours = command_for(launcher_path())
    if sys.platform == "win32":
        return command.endswith(ours[ours.index(' -X utf8 -S "') :])
    return command == ours


def find_plugin_root(start: str | None = None) -> str:
    """The plugin tree to run: ``$CLAUDE_PLUGIN_ROOT``, else the installed plugin this
    module was bundled in, else ``plugin/`` of the checkout it comes from."""
    here = os.path.dirname(os.path.realpath(start or __file__))
    candidates = [
        os.environ.get("CLAUDE_PLUGIN_ROOT") or "",
        os.path.dirname(os.path.dirname(here)),  # <root>/lib/missioncache_statusline
        os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here)))), "plugin"
        ),
    ]
    for root in candidates:
        if root and os.path.isfile(os.path.join(root, "statusline", "statusline.py")):
            return os.path.realpath(root)
    raise InstallError(
        "cannot find the MissionCache plugin (statusline/statusline.py); pass --plugin-root"
    )


def _read_settings(path: str) -> tuple[bytes | None, dict]:
    """settings.json once any save in progress has finished (settings_file.read_settings)."""
    from missioncache_state.settings_file import SettingsError, read_settings

    try:
        snapshot = read_settings(path)
    except SettingsError as error:
        raise InstallError(str(error)) from error
    return snapshot.data, snapshot.value


class _Plan:
    """What install does to one reading of settings.json (recomputed on every retry: the
    file may have changed since the last one)."""

    def __init__(self, settings: dict, chain: bool, path: str) -> None:
        current = settings.get("statusLine", _ABSENT)
        self.refresh = is_ours(current) and read_json_object(record_path()) is not None
        if is_ours(current):  # our line without its record (deleted by hand): start over
            current = _ABSENT
        self.current, self.chained = current, None
        self.updated: dict | None = None
        if self.refresh:
            return
        if current is not _ABSENT:
            command = current.get("command") if isinstance(current, dict) else None
            if not chain:
                shown = command if isinstance(command, str) else json.dumps(current)
                raise InstallError(
                    f"{path} already has a status line ({shown}); nothing was changed. Run "
                    "`missioncache statusline install --chain` to show MissionCache's line "
                    "below yours (uninstall puts yours back exactly)"
                )
            if not isinstance(command, str) or not command.strip():
                raise InstallError(f"cannot chain the status line in {path}: it has no command")
            self.chained = command
        new_line = {"type": "command", "command": command_for(launcher_path())}
        if self.chained is not None:  # keep their padding / refreshInterval
            new_line = dict(current, **new_line)
        self.updated = dict(settings)
        self.updated["statusLine"] = new_line


def install(chain: bool = False, plugin_root: str | None = None) -> str:
    """Install (or refresh) our status line; returns what was done, for the user."""
    from missioncache_state.settings_file import SettingsError, install_edit
    from missioncache_statusline.launcher import launcher_source

    root = os.path.realpath(plugin_root) if plugin_root else find_plugin_root()
    if not os.path.isfile(os.path.join(root, "statusline", "statusline.py")):
        raise InstallError(f"{root} is not a MissionCache plugin (no statusline/statusline.py)")
    path = settings_path()

    def write_launcher(snapshot: Snapshot, change: Change) -> None:
        plan = _Plan(snapshot.value, chain, path)
        atomic_write_bytes(launcher_path(), launcher_source(root, plan.chained).encode("utf-8"))

    def details(snapshot: Snapshot) -> dict:
        plan = _Plan(snapshot.value, chain, path)
        return {
            "previous": None if plan.current is _ABSENT else plan.current,
            "had_status_line": plan.current is not _ABSENT,
            "chained": plan.chained,
            "plugin_root": root,
        }

    try:
        snapshot, change = install_edit(
            path,
            lambda snapshot: _Plan(snapshot.value, chain, path).updated,
            record_path=record_path(),
            details=details,
            prepare=write_launcher,
        )
    except SettingsError as error:
        raise InstallError(str(error)) from error
    if change is None:  # already ours, with its record: only the launcher is refreshed
        record = read_json_object(record_path()) or {}
        chained = record.get("chained")
        atomic_write_bytes(launcher_path(), launcher_source(root, chained).encode("utf-8"))
        return f"the MissionCache status line is already installed in {path} (launcher refreshed)"
    how = " (after your own status line)" if _Plan(snapshot.value, chain, path).chained else ""
    return f"installed the MissionCache status line{how} in {path}; it shows from the next refresh"


def _without_ours(record: dict | None) -> Callable[[dict], dict | None]:
    """The fallback of uninstall: settings.json changed since install (or there is no
    record), so only our ``statusLine`` is taken out, the user's edits kept; None (leave
    the file) when the status line there is no longer ours."""

    def change(settings: dict) -> dict | None:
        if not is_ours(settings.get("statusLine", _ABSENT)):
            return None
        updated = dict(settings)
        if record is not None and record.get("had_status_line"):
            updated["statusLine"] = record.get("previous")
        else:
            del updated["statusLine"]
        return updated

    return change


def uninstall() -> str:
    """Take our status line out, putting back what install replaced."""
    from missioncache_state import settings_file as sf

    path = settings_path()
    record = read_json_object(record_path())
    try:
        if record is None:
            _snapshot, change = sf.edit_settings(
                path, lambda snapshot: _without_ours(None)(snapshot.value)
            )
            if change is None:
                return f"the MissionCache status line is not installed in {path}; nothing to do"
            _remove_ours()
            return f"removed the MissionCache status line from {path}"
        outcome = sf.uninstall_edit(path, record, _without_ours(record))
    except sf.SettingsError as error:
        raise InstallError(str(error)) from error
    _remove_ours()
    if outcome == sf.REMOVED:
        return f"removed {path} (install created it)"
    if outcome == sf.EXACT:
        return f"restored {path} exactly as it was before install"
    if outcome == sf.UNCHANGED:
        return f"{path} no longer uses the MissionCache status line; left it as it is"
    return f"restored the previous status line setting in {path} (your other edits kept)"


def _remove_ours() -> None:
    remove_file(launcher_path())
    remove_file(record_path())

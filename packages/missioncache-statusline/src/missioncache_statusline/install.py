"""``missioncache-db statusline install|uninstall``: put our status line into (and take it
out of) Claude Code's user ``settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``).

WHY it is careful: settings.json is the user's file, holding their permissions, hooks
and possibly a status line of their own. So:

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

import hashlib
import json
import os
import sys

from missioncache_state.atomic import atomic_write_bytes, read_json_object, remove_file
from missioncache_state.locations import claude_dir, state_dir

BACKUP_SUFFIX = ".missioncache-backup"
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
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None, {}
    try:
        value = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, ValueError) as error:
        raise InstallError(
            f"{path} is not valid JSON ({error}); fix it first, nothing was changed"
        ) from error
    if not isinstance(value, dict):
        raise InstallError(f"{path} does not hold a JSON object; nothing was changed")
    return data, value


def _encode(settings: dict) -> bytes:
    return (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _write(path: str, data: bytes) -> None:
    """Atomically, to the symlink's target when settings.json is a link, keeping its mode."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode & 0o777
    except OSError:
        mode = 0o600
    atomic_write_bytes(target, data, mode=mode)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def install(chain: bool = False, plugin_root: str | None = None) -> str:
    """Install (or refresh) our status line; returns what was done, for the user."""
    from missioncache_statusline.launcher import launcher_source

    root = os.path.realpath(plugin_root) if plugin_root else find_plugin_root()
    if not os.path.isfile(os.path.join(root, "statusline", "statusline.py")):
        raise InstallError(f"{root} is not a MissionCache plugin (no statusline/statusline.py)")
    path = settings_path()
    data, settings = _read_settings(path)
    current = settings.get("statusLine", _ABSENT)
    record = read_json_object(record_path())
    if is_ours(current) and record is not None:
        chained = record.get("chained")
        atomic_write_bytes(launcher_path(), launcher_source(root, chained).encode("utf-8"))
        return f"the MissionCache status line is already installed in {path} (launcher refreshed)"
    if is_ours(current):  # our line without its record (deleted by hand): start over
        current = _ABSENT
    chained = None
    if current is not _ABSENT:
        command = current.get("command") if isinstance(current, dict) else None
        if not chain:
            shown = command if isinstance(command, str) else json.dumps(current)
            raise InstallError(
                f"{path} already has a status line ({shown}); nothing was changed. Run "
                "`missioncache-db statusline install --chain` to show MissionCache's line "
                "below yours (uninstall puts yours back exactly)"
            )
        if not isinstance(command, str) or not command.strip():
            raise InstallError(f"cannot chain the status line in {path}: it has no command")
        chained = command
    new_line = {"type": "command", "command": command_for(launcher_path())}
    if chained is not None:  # keep their padding / refreshInterval
        new_line = dict(current, **new_line)
    updated = dict(settings)
    updated["statusLine"] = new_line
    new_data = _encode(updated)
    atomic_write_bytes(launcher_path(), launcher_source(root, chained).encode("utf-8"))
    if data is not None:
        atomic_write_bytes(path + BACKUP_SUFFIX, data, mode=0o600)
    record = {
        "settings": path,
        "had_file": data is not None,
        "previous": None if current is _ABSENT else current,
        "had_status_line": current is not _ABSENT,
        "chained": chained,
        "written_sha256": _digest(new_data),
        "backup": path + BACKUP_SUFFIX if data is not None else None,
        "plugin_root": root,
    }
    atomic_write_bytes(record_path(), _encode(record), mode=0o600)
    _write(path, new_data)
    how = " (after your own status line)" if chained else ""
    return f"installed the MissionCache status line{how} in {path}; it shows from the next refresh"


def uninstall() -> str:
    """Take our status line out, putting back what install replaced."""
    path = settings_path()
    record = read_json_object(record_path())
    data, settings = _read_settings(path)
    current = settings.get("statusLine", _ABSENT)
    if record is None:
        if not is_ours(current):
            return f"the MissionCache status line is not installed in {path}; nothing to do"
        updated = {k: v for k, v in settings.items() if k != "statusLine"}
        _write(path, _encode(updated))
        _remove_ours()
        return f"removed the MissionCache status line from {path}"
    if data is not None and _digest(data) == record.get("written_sha256"):
        if not record.get("had_file"):
            os.unlink(os.path.realpath(path))
            _remove_ours()
            return f"removed {path} (install created it)"
        backup = record.get("backup")
        try:
            with open(str(backup), "rb") as handle:
                previous = handle.read()
        except (OSError, TypeError) as error:
            raise InstallError(f"the backup {backup} is missing; nothing was changed") from error
        _write(path, previous)
        _remove_ours()
        remove_file(str(backup))  # settings.json is that copy again: leave no second one
        return f"restored {path} exactly as it was before install"
    if not is_ours(current):
        _remove_ours()
        return f"{path} no longer uses the MissionCache status line; left it as it is"
    updated = dict(settings)
    if record.get("had_status_line"):
        updated["statusLine"] = record.get("previous")
    else:
        del updated["statusLine"]
    _write(path, _encode(updated))
    _remove_ours()
    return f"restored the previous status line setting in {path} (your other edits kept)"


def _remove_ours() -> None:
    remove_file(launcher_path())
    remove_file(record_path())

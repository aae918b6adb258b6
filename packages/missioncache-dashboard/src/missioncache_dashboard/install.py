"""``missioncache dashboard install|uninstall``: the dashboard's http hooks in Claude Code's
user ``settings.json``, wired only while the dashboard runs.

WHY only while it runs: an http hook whose server is down shows ``PostToolUse:Write hook
failed / connect ECONNREFUSED`` under every edit (contract section 12). So ``install``
records the choice (``<state>/dashboard/install.json``) and wires the hooks; the dashboard
takes them out when it stops and puts them back when it starts (``wire``/``unwire``).

WHY careful, as the status line's install is (both go through
``missioncache_state.settings_file``: a save another program makes while we work is never
overwritten, and a half-finished save is waited for, never taken as ``{}``):

- Before each change the file's bytes are kept (``settings.json.missioncache-dashboard``).
  Taking the hooks out while the file is still exactly as we wrote it puts those bytes back.
- When someone edited the file meanwhile, only our entries go (the hooks whose URL is ours),
  and every key they wrote stays.

Standard library only, Python 3.9: the plugin's command line imports this module under the
user's own Python, without Starlette (``missioncache_dashboard/__init__`` imports nothing).
"""

from __future__ import annotations

import os

from missioncache_state import settings_file as sf
from missioncache_state.atomic import atomic_write_bytes, read_json_object, remove_file
from missioncache_state.dashboard_token import ENV_VAR, HEADER, ensure_token
from missioncache_state.locations import dashboard_dir
from missioncache_statusline.install import InstallError, settings_path

DEFAULT_PORT = 8787
# What settings_file.install_edit adds to the record: it describes one wiring only.
_WRITTEN_KEYS = ("written_sha256", "backup", "had_file", "settings")
BACKUP_SUFFIX = ".missioncache-dashboard"
EDIT_TOOLS_MATCHER = "Edit|Write|MultiEdit|NotebookEdit"
HOOK_TIMEOUT = 2  # seconds; the endpoints answer in milliseconds
# (event, matcher or None, endpoint): edits, the start and end of each turn, and the end
# of the session (its live row goes).
WIRING = (
    ("PostToolUse", EDIT_TOOLS_MATCHER, "edit-count"),
    ("UserPromptSubmit", None, "heartbeat"),
    ("Stop", None, "heartbeat"),
    ("SessionEnd", None, "session-end"),
)

__all__ = [
    "InstallError",
    "install",
    "is_installed",
    "read_settings",
    "uninstall",
    "unwire",
    "wire",
    "wired_port",
]


def record_path() -> str:
    return os.path.join(dashboard_dir(), "install.json")


def hook_url(port: int, endpoint: str) -> str:
    return f"http://127.0.0.1:{port}/api/hooks/{endpoint}"


def _is_our_hook(hook: object) -> bool:
    url = hook.get("url") if isinstance(hook, dict) else None
    return (
        isinstance(hook, dict)
        and hook.get("type") == "http"
        and isinstance(url, str)
        and url.startswith("http://127.0.0.1:")
        and "/api/hooks/" in url
        and url.rsplit("/", 1)[-1] in {e for _ev, _m, e in WIRING}
    )


def wired_port(settings: dict) -> int | None:
    """The port our hooks in ``settings`` point at, else None."""
    for groups in (
        (settings.get("hooks") or {}).values() if isinstance(settings.get("hooks"), dict) else ()
    ):
        for group in groups if isinstance(groups, list) else ():
            for hook in group.get("hooks", []) if isinstance(group, dict) else ():
                if _is_our_hook(hook):
                    port = hook["url"].split(":")[2].split("/")[0]
                    return int(port) if port.isdigit() else None
    return None


def read_settings() -> dict:
    """The user's settings.json as a dict ({} when there is none)."""
    try:
        return sf.read_settings(settings_path()).value
    except sf.SettingsError as error:
        raise InstallError(str(error)) from error


def http_hook(port: int, endpoint: str) -> dict:
    """One http hook: it sends the secret as a header, from the environment variable
    Claude Code interpolates only because ``allowedEnvVars`` names it."""
    return {
        "type": "http",
        "url": hook_url(port, endpoint),
        "timeout": HOOK_TIMEOUT,
        "headers": {HEADER: f"${ENV_VAR}"},
        "allowedEnvVars": [ENV_VAR],
    }


def with_hooks(settings: dict, port: int, token: str) -> dict:
    """``settings`` plus our hooks (one matcher group per event) and the secret in
    ``env`` (where Claude Code takes it from), every other key kept."""
    updated = dict(settings)
    hooks = dict(updated.get("hooks") or {})
    for event, matcher, endpoint in WIRING:
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [http_hook(port, endpoint)]
        existing = hooks.get(event)
        hooks[event] = [*(existing if isinstance(existing, list) else []), group]
    updated["hooks"] = hooks
    env = updated.get("env")
    updated["env"] = dict(env if isinstance(env, dict) else {}, **{ENV_VAR: token})
    return updated


def _without_secret(settings: dict) -> dict:
    env = settings.get("env")
    if not isinstance(env, dict) or ENV_VAR not in env:
        return settings
    rest = {k: v for k, v in env.items() if k != ENV_VAR}
    updated = dict(settings, env=rest)
    if not rest:
        del updated["env"]
    return updated


def without_hooks(settings: dict) -> dict:
    """``settings`` with our hooks taken out; a group, event or ``hooks`` key left empty by
    that goes too (one of ours only ever held our hooks)."""
    settings = _without_secret(settings)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return dict(settings)
    kept_hooks: dict = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_is_our_hook(h) for h in inner):
                kept_groups.append(group)
                continue
            rest = [h for h in inner if not _is_our_hook(h)]
            if rest:
                kept_groups.append(dict(group, hooks=rest))
        if kept_groups or not groups:
            kept_hooks[event] = kept_groups
    updated = dict(settings)
    if kept_hooks or not hooks:
        updated["hooks"] = kept_hooks
    else:
        del updated["hooks"]
    return updated


def is_installed() -> dict | None:
    """The install record (``{"port": N, ...}``) when the user chose the http hooks."""
    record = read_json_object(record_path())
    return record if record is not None and isinstance(record.get("port"), int) else None


def _save_record(record: dict) -> None:
    atomic_write_bytes(record_path(), sf.encode(record), mode=0o600)


def wire(port: int) -> str:
    """Put our hooks for ``port`` into settings.json (once); keeps the bytes it replaced.
    The file then holds the secret, so it is made readable by its owner only first."""
    path = settings_path()
    token = ensure_token()

    def add(snapshot: sf.Snapshot) -> dict | None:
        wired = wired_port(snapshot.value)
        if wired == port and (snapshot.value.get("env") or {}).get(ENV_VAR) == token:
            return None
        base = without_hooks(snapshot.value) if wired is not None else snapshot.value
        return with_hooks(base, port, token)

    _owner_only(path)

    kept = {k: v for k, v in (is_installed() or {}).items() if k not in _WRITTEN_KEYS}
    try:
        _snapshot, change = sf.install_edit(
            path,
            add,
            record_path=record_path(),
            details=lambda _snapshot: dict(kept, port=port),
            backup_suffix=BACKUP_SUFFIX,
        )
    except (sf.SettingsError, OSError) as error:
        _forget_unwritten()
        why = str(error) if isinstance(error, sf.SettingsError) else error.strerror or error
        raise InstallError(
            f"could not wire the dashboard's http hooks into {path}: {why}"
        ) from error
    if change is None:
        return f"the dashboard's http hooks are already in {path}"
    return f"wired the dashboard's http hooks (port {port}) into {path}"


def _owner_only(path: str) -> None:
    """settings.json is often world-readable (0644); with the secret in it, it must not
    be. Its other permission bits stay."""
    import stat

    try:
        target = os.path.realpath(path)
        mode = stat.S_IMODE(os.stat(target).st_mode)
        if mode & 0o077:
            os.chmod(target, mode & ~0o077)
    except FileNotFoundError:  # created by the edit, 0600
        pass
    except OSError as error:
        raise InstallError(
            f"cannot make {path} readable by you only ({error.strerror or error}); the "
            "dashboard's hooks were not wired, since the file would show its secret"
        ) from error


def unwire() -> str:
    """Take our hooks out of settings.json: the exact bytes from before ``wire`` when the
    file is still as it left it, else only our entries. The install record stays."""
    path = settings_path()
    record = read_json_object(record_path()) or {}

    def ours_out(settings: dict) -> dict | None:
        return without_hooks(settings) if wired_port(settings) is not None else None

    try:
        outcome = sf.uninstall_edit(path, record, ours_out)
    except sf.SettingsError as error:
        raise InstallError(str(error)) from error
    if record.get("backup"):
        remove_file(str(record["backup"]))
    _forget_written(record)
    if outcome == sf.UNCHANGED:
        return f"{path} holds none of the dashboard's http hooks"
    if outcome == sf.REMOVED:
        return f"removed {path} (the dashboard's wiring created it)"
    if outcome == sf.EXACT:
        return f"restored {path} exactly as it was before the dashboard's hooks"
    return f"took the dashboard's http hooks out of {path} (your other settings kept)"


def _forget_unwritten() -> None:
    """A wiring that failed (a read-only settings.json) is not described by the record:
    the hooks would otherwise think a dashboard died with its hooks in the file."""
    try:
        if wired_port(read_settings()) is not None:
            return
    except InstallError:
        pass
    _forget_written(read_json_object(record_path()) or {})


def _forget_written(record: dict) -> None:
    if not record:
        return
    for key in _WRITTEN_KEYS:
        record.pop(key, None)
    if os.path.isfile(record_path()):
        _save_record(record)


def install(port: int = DEFAULT_PORT) -> str:
    """Choose the http hooks for ``port``; wire them now only when a dashboard answers there.

    With nothing answering, a wired hook would show `hook failed ... ECONNREFUSED` under
    every prompt and edit, so settings.json is left as it is and the person is told how to
    start the dashboard, which wires the chosen hooks while it runs."""
    if not 0 < port < 65536:
        raise InstallError(f"invalid port {port}: use 1 to 65535")
    from missioncache_dashboard.running import answers
    from missioncache_state.command import missioncache_command

    read_settings()  # a settings.json we cannot read is said now, not at the next start
    record = is_installed() or {}
    record["port"] = port
    _save_record(record)
    start = f"`{missioncache_command()} dashboard start --port {port}`"
    if not answers(port):
        return (
            f"No dashboard answers on port {port}, so {settings_path()} is left as it is"
            " (a hook with nothing answering shows `hook failed` under every prompt and"
            f" edit). Start the dashboard with {start}: it puts its http hooks in while it"
            " runs and takes them out when it stops"
        )
    done = wire(port)
    return (
        f"{done}. They are taken out whenever the dashboard stops and put back when it starts"
        f" again ({start}); Claude Code notices the change in running sessions too"
    )


def uninstall() -> str:
    """Take the hooks out for good (exact bytes when untouched) and forget the choice."""
    path = settings_path()
    if is_installed() is None and wired_port(read_settings()) is None:
        return f"the dashboard's http hooks are not installed in {path}; nothing to do"
    done = unwire()
    remove_file(record_path())
    return done

"""The launcher ``statusline install`` writes to ``<state>/statusline/launcher.py``.

WHY a launcher instead of pointing settings.json at the plugin: a plugin cannot ship a
status line, so the command lives in the user's settings.json, with an absolute path
(Claude Code sets no ``CLAUDE_PLUGIN_ROOT`` for it), and a plugin update installs a new
version in a new directory. The launcher looks, on every run, for the newest installed
copy beside the one it was installed from (``<plugins>/cache/<marketplace>/<plugin>/
<version>/``), so updates need no reinstall and a removed old version breaks nothing.

When the user had a status line of their own and asked to chain it, the launcher runs
that command first with the same stdin and shows its output above ours.
"""

from __future__ import annotations

TEMPLATE = '''\
# MissionCache status line launcher: written by `missioncache statusline install`,
# removed by `missioncache statusline uninstall`. Do not edit: reinstall instead.
import os
import sys

PLUGIN_ROOT = {plugin_root!r}
CHAINED = {chained!r}  # the user's own status line command, shown first (or None)
ENTRY = os.path.join("statusline", "statusline.py")


def newest_root():
    """The installed copy to run: the newest version beside PLUGIN_ROOT when it sits in
    Claude Code's plugin cache, else PLUGIN_ROOT itself (a development checkout)."""
    roots = [PLUGIN_ROOT]
    parts = PLUGIN_ROOT.replace("\\\\", "/").split("/")
    if len(parts) > 4 and parts[-5:-3] == ["plugins", "cache"]:
        parent = os.path.dirname(PLUGIN_ROOT)
        try:
            roots += [os.path.join(parent, n) for n in os.listdir(parent)]
        except OSError:
            pass
    best, best_time = None, None
    for root in roots:
        try:
            stamp = os.stat(os.path.join(root, ENTRY)).st_mtime
        except OSError:
            continue
        if best is None or stamp > best_time:
            best, best_time = root, stamp
    return best


def enabled(raw):
    """Whether Claude Code still has this plugin enabled: `claude plugin uninstall` keeps
    the cache copy but takes `<plugin>@<marketplace>` out of `enabledPlugins`, and with
    it every hook, so a line would show time nobody records any more. A checkout run with
    --plugin-dir has no such entry and is always shown. As in Claude Code, a project's
    local settings come first, then the project's, then the user's: the first that names
    the plugin decides (a project may turn off what the user turned on)."""
    parts = PLUGIN_ROOT.replace("\\\\", "/").split("/")
    if not (len(parts) > 4 and parts[-5:-3] == ["plugins", "cache"]):
        return True
    from missioncache_state.json_codec import loads

    key = parts[-2] + "@" + parts[-3]
    home = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    folders = [home]
    try:
        payload = loads(raw.decode("utf-8"))
        project = (payload.get("workspace") or {{}}).get("project_dir") or payload.get("cwd")
        if isinstance(project, str) and project:
            folders.insert(0, os.path.join(project, ".claude"))
    except Exception:
        pass
    for folder in folders:
        for name in ("settings.local.json", "settings.json"):
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    plugins = loads(handle.read(1 << 20).decode("utf-8")).get("enabledPlugins")
            except Exception:
                continue
            if isinstance(plugins, dict) and isinstance(plugins.get(key), bool):
                return plugins[key]
    return False


def chained(raw):
    if not CHAINED:
        return b""
    import subprocess

    try:
        done = subprocess.run(
            CHAINED, shell=True, input=raw, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, timeout=10,
        )
    except Exception:
        return b""
    return done.stdout.rstrip(b"\\n") + b"\\n" if done.stdout.strip() else b""


def main():
    raw = sys.stdin.buffer.read(4 * 1024 * 1024)
    theirs = chained(raw)
    if theirs:
        sys.stdout.buffer.write(theirs)
        sys.stdout.buffer.flush()
    root = newest_root()
    if root is None:
        return
    sys.path.insert(0, os.path.join(root, "lib"))
    if not enabled(raw):
        return  # uninstalled or disabled: quiet, as docs/statusline.md says
    import io

    from missioncache_statusline.line import main as line_main

    line_main(stdin=io.BytesIO(raw))


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        pass
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os._exit(0)
'''


def launcher_source(plugin_root: str, chained: str | None) -> str:
    """The launcher's text for this plugin root and (optional) chained command."""
    return TEMPLATE.format(plugin_root=plugin_root, chained=chained)

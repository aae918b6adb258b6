"""Find the repository and plugins the harness works with.

WHY: the fixtures and the CLI build or fire at "our" plugin without being told where it is; the
harness is installed editable from the workspace, so the repository is found by walking up from
this file. Outside a checkout nothing is found and callers say so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

PLUGIN_NAME = "missioncache"


def repo_root() -> Path | None:
    """The workspace root (it holds ``harness/`` and ``packages/``), or None when installed."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "harness").is_dir() and (parent / "packages").is_dir():
            return parent
    return None


def build_script() -> Path | None:
    root = repo_root()
    script = root / "scripts" / "build_plugin.py" if root else None
    return script if script is not None and script.is_file() else None


def default_plugin(env: dict[str, str] | None = None) -> Path | None:
    """The repository's built ``plugin/``, else an installed copy under ``~/.claude/plugins``."""
    root = repo_root()
    if root is not None and (root / "plugin" / "hooks" / "hooks.json").is_file():
        return root / "plugin"
    return installed_plugin(env)


def installed_plugin(env: dict[str, str] | None = None) -> Path | None:
    """A marketplace-installed MissionCache plugin (newest manifest wins)."""
    environ = os.environ if env is None else env
    claude = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    plugins = Path(claude) / "plugins"
    if not plugins.is_dir():
        return None
    found = []
    for manifest in plugins.glob("**/.claude-plugin/plugin.json"):
        if "data" in manifest.relative_to(plugins).parts[:1]:
            continue
        try:
            name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            continue
        if name == PLUGIN_NAME and (manifest.parent.parent / "hooks").is_dir():
            found.append(manifest)
    if not found:
        return None
    return max(found, key=lambda m: m.stat().st_mtime).parent.parent

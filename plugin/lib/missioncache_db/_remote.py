"""A repository's identity across machines: its git remote, read without running git.

The same repository is cloned at different paths on a laptop and a desktop, so a task's
repository is matched by its ``origin`` remote when the path recorded on the other machine
does not exist here (docs/sync.md). Reading ``.git/config`` costs a file read; running git
would cost a process, and this is reached from SessionStart's task resolution.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

_CONFIG_LIMIT = 1 << 20


def git_remote(path: str) -> str | None:
    """The normalised ``origin`` URL of the repository at ``path`` (else its first remote),
    or None: no ``.git`` folder there, no remote, or an unreadable config."""
    config = os.path.join(path, ".git", "config")
    try:
        with open(config, "rb") as handle:
            text = handle.read(_CONFIG_LIMIT).decode("utf-8", "replace")
    except OSError:
        return None
    urls: dict[str, str] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section and section.startswith("[remote ") and line.startswith("url"):
            key, _, value = line.partition("=")
            if key.strip() == "url" and value.strip():
                urls.setdefault(section[len("[remote ") :].strip(' "]'), value.strip())
    url = urls.get("origin") or next(iter(urls.values()), None)
    return normalise(url) if url else None


def normalise(url: str) -> str:
    """``git@github.com:me/app.git``, ``https://me@github.com/me/app`` and
    ``ssh://git@github.com/me/app.git`` all become ``github.com/me/app``: one repository,
    whichever way each machine cloned it. A local path stays a path."""
    text = url.strip().rstrip("/")
    if text.endswith(".git"):
        text = text[:-4]
    _scheme, sep, rest = text.partition("://")
    if sep:
        text = rest
    elif ":" in text and not text.startswith("/") and "/" not in text.split(":", 1)[0]:
        host, _, path = text.partition(":")  # scp-like host:path
        text = f"{host}/{path}"
    if sep or not text.startswith("/"):
        host, _, path = text.partition("/")
        host = host.rpartition("@")[2].lower()
        text = f"{host}/{path}" if path else host
    return text

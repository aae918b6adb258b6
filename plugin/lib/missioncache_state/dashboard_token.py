"""The dashboard's per-install secret: ``<data root>/dashboard-token``, mode 0600.

WHY a secret on loopback: 127.0.0.1 is shared by every user of the machine. The Host and
Origin checks stop web pages, not another account, which could otherwise post heartbeats
(forging time) or read every task's notes. Every request to the dashboard must carry this
value (a header, or the cookie the page gets from the URL ``dashboard start`` prints), and
only the person can read the file. Standard library only, Python 3.9: the command line,
the hooks and the ``pm`` server read it too.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

HEADER = "X-MissionCache-Token"
ENV_VAR = "MISSIONCACHE_DASHBOARD_TOKEN"
COOKIE = "missioncache_token"
_LENGTH = 64  # hex characters: 256 random bits


def token_path() -> str:
    from missioncache_state.locations import data_root

    return os.path.join(data_root(), "dashboard-token")


def _valid(text: str) -> bool:
    return len(text) == _LENGTH and all(c in "0123456789abcdef" for c in text)


def read_token() -> str | None:
    """The secret, or None when there is none yet (or the file is not ours to trust)."""
    from missioncache_state.files import read_regular

    try:
        text = read_regular(token_path(), 4096).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _valid(text) else None


def ensure_token() -> str:
    """The secret, made on first use: created 0600 with ``O_EXCL`` (never through a link
    someone planted), so no other user can ever read it."""
    found = read_token()
    if found is not None:
        return found
    path = token_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    token = os.urandom(_LENGTH // 2).hex()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:  # another process made it, or a bad file sits there
        found = read_token()
        if found is not None:
            return found
        os.unlink(path)
        fd = os.open(path, flags, 0o600)
    try:
        os.write(fd, token.encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return token


def install_id(token: str) -> str:
    """What the dashboard's health answer names, so a caller knows the server on the port
    is this install's dashboard; a digest, so the answer never carries the secret."""
    import hashlib

    return hashlib.sha256(b"missioncache-dashboard:" + token.encode("ascii")).hexdigest()[:16]

"""``os.path`` for ``lean_os`` on POSIX systems: the functions the hooks call, with
``posixpath``'s results, written on the built-in ``posix`` module so that none of them
imports ``os``. Bytes paths, and every other function, are handed to ``posixpath``
itself (imported then). ``test_lean_os.py`` holds each function to ``posixpath``'s
answers, symbolic links included.
"""

import sys
from posix import environ as _bytes_environ
from posix import fspath, getcwd, lstat, putenv, readlink, stat, unsetenv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

try:  # Python 3.11 and later: posixpath.normpath's own C code
    from posix import _path_normpath as _c_normpath  # type: ignore[attr-defined]
except ImportError:
    _c_normpath = None

_DIR, _FILE, _LINK, _TYPE = 0o040000, 0o100000, 0o120000, 0o170000


def __getattr__(attribute: str) -> "Any":
    """The rest of ``os.path``, which costs the import of ``os`` on first use (not for
    a dunder the import system probes for)."""
    if attribute.startswith("__"):
        raise AttributeError(f"module 'posixpath' has no attribute {attribute!r}")
    import posixpath

    return getattr(posixpath, attribute)


def _posixpath() -> "Any":
    import posixpath

    return posixpath


def fsdecode(filename: "str | bytes | PathLike[Any]") -> str:
    filename = fspath(filename)
    if isinstance(filename, bytes):
        return filename.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
    return filename


def fsencode(filename: "str | bytes | PathLike[Any]") -> bytes:
    filename = fspath(filename)
    if isinstance(filename, str):
        return filename.encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
    return filename


def join(a: "str | PathLike[str]", *p: "str | PathLike[str]") -> str:
    a = fspath(a)
    parts = [fspath(b) for b in p]
    if not isinstance(a, str) or any(not isinstance(b, str) for b in parts):
        joined: str = _posixpath().join(a, *p)
        return joined
    path = a
    for b in parts:
        if b.startswith("/"):
            path = b
        elif not path or path.endswith("/"):
            path += b
        else:
            path += "/" + b
    return path


def split(p: "str | PathLike[str]") -> "tuple[str, str]":
    p = fspath(p)
    if not isinstance(p, str):
        return _posixpath().split(p)
    i = p.rfind("/") + 1
    head, tail = p[:i], p[i:]
    if head and head != "/" * len(head):
        head = head.rstrip("/")
    return head, tail


def dirname(p: "str | PathLike[str]") -> str:
    return split(p)[0]


def basename(p: "str | PathLike[str]") -> str:
    p = fspath(p)
    if not isinstance(p, str):
        return _posixpath().basename(p)
    return p[p.rfind("/") + 1 :]


def splitext(p: "str | PathLike[str]") -> "tuple[str, str]":
    p = fspath(p)
    if not isinstance(p, str):
        return _posixpath().splitext(p)
    slash, dot = p.rfind("/"), p.rfind(".")
    if dot > slash and p[slash + 1 : dot].strip("."):
        return p[:dot], p[dot:]  # a leading run of dots is part of the name
    return p, ""


def isabs(s: "str | PathLike[str]") -> bool:
    s = fspath(s)
    if not isinstance(s, str):
        return _posixpath().isabs(s)
    return s.startswith("/")


def normcase(s: "str | PathLike[str]") -> str:
    return fspath(s)


def normpath(path: "str | PathLike[str]") -> str:
    path = fspath(path)
    if not isinstance(path, str):
        return _posixpath().normpath(path)
    if _c_normpath is not None:
        return _c_normpath(path) or "."
    if not path:
        return "."
    # POSIX keeps exactly two leading slashes, and folds three or more into one.
    lead = "/" if path.startswith("/") else ""
    if path.startswith("//") and not path.startswith("///"):
        lead = "//"
    kept: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part != ".." or (not lead and not kept) or (kept and kept[-1] == ".."):
            kept.append(part)
        elif kept:
            kept.pop()
    return (lead + "/".join(kept)) or "."


def abspath(path: "str | PathLike[str]") -> str:
    path = fspath(path)
    if not isinstance(path, str):
        return _posixpath().abspath(path)
    if not path.startswith("/"):
        path = join(getcwd(), path)
    return normpath(path)


def relpath(path: "str | PathLike[str]", start: "str | PathLike[str] | None" = None) -> str:
    path = fspath(path)
    start = "." if start is None else fspath(start)
    if not isinstance(path, str) or not isinstance(start, str):
        relative: str = _posixpath().relpath(path, start)
        return relative
    if not path:
        raise ValueError("no path specified")
    there = [part for part in abspath(path).split("/") if part]
    here = [part for part in abspath(start).split("/") if part]
    shared = 0
    while shared < min(len(here), len(there)) and here[shared] == there[shared]:
        shared += 1
    steps = [".."] * (len(here) - shared) + there[shared:]
    return join(*steps) if steps else "."


def _mode(path: "str | PathLike[str]", follow: bool = True) -> "int | None":
    try:
        return (stat if follow else lstat)(path).st_mode & _TYPE
    except (OSError, ValueError):
        return None


def exists(path: "str | PathLike[str]") -> bool:
    return _mode(path) is not None


def lexists(path: "str | PathLike[str]") -> bool:
    return _mode(path, follow=False) is not None


def isdir(s: "str | PathLike[str]") -> bool:
    return _mode(s) == _DIR


def isfile(path: "str | PathLike[str]") -> bool:
    return _mode(path) == _FILE


def islink(path: "str | PathLike[str]") -> bool:
    return _mode(path, follow=False) == _LINK


def getsize(filename: "str | PathLike[str]") -> int:
    return stat(filename).st_size


def realpath(filename: "str | PathLike[str]", *, strict: bool = False) -> str:
    """The path with every symbolic link resolved, as ``posixpath.realpath`` (not
    strict: a missing part is kept as written; a loop of links stops where it loops)."""
    filename = fspath(filename)
    if strict:  # (Python 3.10 and later)
        strictly: str = _posixpath().realpath(filename, strict=True)
        return strictly
    if not isinstance(filename, str):
        real: str = _posixpath().realpath(filename)
        return real
    resolved, _ok = _resolve("", filename, {})
    return abspath(resolved)


def _resolve(base: str, rest: str, seen: "dict[str, str | None]") -> "tuple[str, bool]":
    """``(base/rest with its links resolved, whether it resolved without a loop)``.
    ``seen`` maps each link met to what it resolved to, or None while being resolved."""
    if rest.startswith("/"):
        base, rest = "/", rest[1:]
    parts = rest.split("/")
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            base = _parent(base)
            continue
        candidate = join(base, part)
        if _mode(candidate, follow=False) != _LINK:
            base = candidate
            continue
        if candidate in seen:
            known = seen[candidate]
            if known is None:  # a loop: stop resolving here, keep the rest as written
                return join(candidate, *parts), False
            base = known
            continue
        seen[candidate] = None
        base, ok = _resolve(base, readlink(candidate), seen)
        if not ok:
            return join(base, *parts), False
        seen[candidate] = base
    return base, True


def _parent(resolved: str) -> str:
    """The parent of a path that holds no link, cut from its text ("" is the cwd)."""
    if not resolved:
        return ".."
    head, last = split(resolved)
    return join(head, "..", "..") if last == ".." else head


class _Environ:
    """``os.environ`` for reading, over the same ``posix.environ`` that ``os.environ``
    wraps, so both always agree. A write also sets the process's environment."""

    def _decode(self, value: bytes) -> str:
        return value.decode(sys.getfilesystemencoding(), "surrogateescape")

    def _encode(self, value: object) -> bytes:
        if not isinstance(value, str):
            raise TypeError(f"str expected, not {type(value).__name__}")
        return value.encode(sys.getfilesystemencoding(), "surrogateescape")

    def __getitem__(self, key: str) -> str:
        try:
            return self._decode(_bytes_environ[self._encode(key)])
        except KeyError:
            raise KeyError(key) from None

    def get(self, key: str, default: "str | None" = None) -> "str | None":
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._encode(key) in _bytes_environ

    def __iter__(self) -> "Any":
        return iter([self._decode(key) for key in _bytes_environ])

    def __len__(self) -> int:
        return len(_bytes_environ)

    def keys(self) -> "list[str]":
        return list(self)

    def items(self) -> "list[tuple[str, str]]":
        return [(self._decode(k), self._decode(v)) for k, v in _bytes_environ.items()]

    def copy(self) -> "dict[str, str]":
        return dict(self.items())

    def __setitem__(self, key: str, value: str) -> None:
        name, text = self._encode(key), self._encode(value)
        putenv(name, text)
        _bytes_environ[name] = text

    def __delitem__(self, key: str) -> None:
        encoded = self._encode(key)
        unsetenv(encoded)
        try:
            del _bytes_environ[encoded]
        except KeyError:
            raise KeyError(key) from None

    def pop(self, key: str, *default: str) -> str:
        try:
            value = self[key]
        except KeyError:
            if default:
                return default[0]
            raise
        del self[key]
        return value

    def setdefault(self, key: str, value: str) -> str:
        if key not in self:
            self[key] = value
        return self[key]

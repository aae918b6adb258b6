"""The plugin's compiled modules in one file per Python, for hooks that start faster.

WHY: a hook or the status line imports 30 to 50 of the plugin's small modules, and
Python's path-based import looks each one up through its finders and reads its
``__pycache__`` file on its own: about 0.26 M instructions a module (callgrind), 2 to 4 M
of a hook's run. From the bundle, a module costs one ``stat`` of its source, one ``pread``
of its bytes and one ``marshal.loads``.

The bundle is ``<plugin>/lib/__pycache__/missioncache.<cache tag>[.opt-N].bundle``:
beside the code it is compiled from, like the ``.pyc`` files Python itself writes there,
and replaced with it when Claude Code installs a new version of the plugin. It holds every
module of ``lib/`` and the hook bodies (``hooks/_*.py``), each with its source's size and
mtime: a module whose source no longer matches is imported the usual way, so an edited or
updated plugin never runs old code. A bundle of another Python (magic number) or damaged
is ignored. Nothing here may break a hook: every failure means "import as usual".

Built off the hot path: a hook that found no bundle, or a stale one, starts
``python -S -m missioncache_state.bytecode <plugin>`` detached (``hookio.output``), at most
once every ``BUILD_DEBOUNCE`` seconds; the file is written whole and renamed into place
(``atomic.atomic_write_bytes``).
A plugin folder the user cannot write keeps no bundle, and nothing else changes.
"""

import marshal
import sys

# The interpreter's own os module, which importlib loaded at start (``posix``, or ``nt`` on
# Windows): the finder is put in place before any other module of ours is imported, so
# that they all come from the bundle, ``lean_os`` included. Building imports ``lean_os``.
_os = sys.modules["posix"] if "posix" in sys.modules else sys.modules["nt"]
_SEP = "/" if _os.__name__ == "posix" else "\\"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Callable

    # (kind, source mtime_ns, source size, offset in the file, length)
    Entry = tuple[int, int, int, int, int]

FORMAT = b"MCB2"
BUILD_DEBOUNCE = 300.0
_HEAD = 12  # FORMAT, the magic number, the index's length
# What a module is, which says where its source is.
MODULE, PACKAGE, HOOK_BODY = 0, 1, 2
_WIDTH = 12  # digits of an offset in the index: a bundle up to a terabyte


def _magic() -> bytes:
    """The magic number of this Python's byte code (it changes between versions)."""
    magic: bytes = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
    return magic


def bundle_path(plugin: str) -> str:
    """Where this Python's bundle of ``plugin`` lives (``-O`` levels apart, as ``.pyc``)."""
    level = sys.flags.optimize
    suffix = f".opt-{level}" if level else ""
    name = f"missioncache.{sys.implementation.cache_tag}{suffix}.bundle"
    return _SEP.join((plugin, "lib", "__pycache__", name))


def source_path(lib: str, hooks: str, name: str, kind: int) -> str:
    """The source file of module ``name`` of the given kind."""
    if kind == HOOK_BODY:
        return hooks + _SEP + name + ".py"
    path = _SEP.join((lib, *name.split(".")))
    return path + _SEP + "__init__.py" if kind == PACKAGE else path + ".py"


def _lookup(index: str, name: str) -> "Entry | None":
    """``name``'s entry in the index, a text of lines ``\\n<name> <kind> <mtime_ns>
    <size> <offset> <length>``. WHY text: a run looks up a few dozen of 160 names, and
    finding a line is cheaper than building a dict of them all on every start."""
    at = index.find("\n" + name + " ")
    if at < 0:
        return None
    end = index.find("\n", at + 1)
    fields = index[at + len(name) + 2 : end if end >= 0 else len(index)].split()
    if len(fields) != 5:
        return None
    kind, mtime_ns, size, offset, length = map(int, fields)
    return kind, mtime_ns, size, offset, length


class BundleFinder:
    """A ``sys.meta_path`` finder and loader serving the bundle's modules whose sources
    are unchanged; ``stale`` counts those it had to leave to the usual import."""

    def __init__(self, plugin: str, index: str, read: "Callable[[int, int], bytes]") -> None:
        self.lib = plugin + _SEP + "lib"
        self.hooks = plugin + _SEP + "hooks"
        self.index = index
        self.read = read
        self.stale = 0

    def find_spec(
        self, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        try:
            entry = _lookup(self.index, name)
        except ValueError:
            entry = None
        if entry is None:
            return None
        kind, mtime_ns, size = entry[:3]
        origin = source_path(self.lib, self.hooks, name, kind)
        try:
            info = _os.stat(origin)
        except OSError:
            info = None
        if info is None or info.st_mtime_ns != mtime_ns or info.st_size != size:
            self.stale += 1
            return None
        # ModuleSpec without importing importlib.machinery: sys's spec is one.
        spec: ModuleSpec = type(sys.__spec__)(name, self, origin=origin, is_package=kind == PACKAGE)  # type: ignore[arg-type]
        spec.has_location = True
        if kind == PACKAGE:
            spec.submodule_search_locations = [origin[: origin.rfind(_SEP)]]
        spec.loader_state = entry
        return spec

    def create_module(self, spec: "ModuleSpec") -> None:
        return None  # the default module object

    def exec_module(self, module: "ModuleType") -> None:
        spec = module.__spec__
        if spec is None or spec.origin is None:
            raise ImportError(f"{module.__name__} was not found in the bundle")
        offset, length = spec.loader_state[3:]
        try:
            code = marshal.loads(self.read(offset, length))
        except (OSError, EOFError, ValueError, TypeError):  # damaged: compile the source
            with open(spec.origin, "rb") as handle:
                code = compile(handle.read(), spec.origin, "exec", dont_inherit=True)
        exec(code, module.__dict__)


def active() -> "BundleFinder | None":
    """The installed finder, if any."""
    for finder in sys.meta_path:
        if isinstance(finder, BundleFinder):
            return finder
    return None


def install(plugin: str) -> bool:
    """Serve imports from ``plugin``'s bundle when it has one for this Python; whether
    it does. Never raises: without a bundle, imports work as they always did."""
    if active() is not None:
        return True
    try:
        fd = _os.open(bundle_path(plugin), _os.O_RDONLY | getattr(_os, "O_BINARY", 0))
    except (OSError, ValueError):
        return False
    try:
        index, read = _open_index(fd)
    except (OSError, ValueError):
        index = read = None
    if index is None or read is None:
        _os.close(fd)
        return False
    sys.meta_path.insert(0, BundleFinder(plugin, index, read))
    return True


def _open_index(fd: int) -> "tuple[str | None, Callable[[int, int], bytes] | None]":
    """The bundle's index and how to read a module's bytes, or Nones when it is not a
    whole bundle of this Python. WHY not read it whole: a run needs a few dozen of its
    160 modules, and every page of a 1.4 MB buffer is a page fault the kernel pays for
    (invisible to an instruction count, not to the clock). The descriptor stays open for
    ``os.pread`` (not inherited by children: Python's descriptors are close-on-exec);
    where there is no ``pread`` (Windows) the file is read whole and closed."""
    total = _os.fstat(fd).st_size
    head = _os.read(fd, 16384)
    if head[:4] != FORMAT or head[4:8] != _magic():
        return None, None
    size = int.from_bytes(head[8:_HEAD], "little")
    while len(head) < _HEAD + size:
        more = _os.read(fd, _HEAD + size - len(head))
        if not more:
            return None, None
        head += more
    index = head[_HEAD : _HEAD + size].decode("ascii")
    last = index[index.rfind("\n") + 1 :].split()
    if len(last) != 6 or int(last[4]) + int(last[5]) != total:
        return None, None  # cut short, or not ours: written whole, it ends with its last module
    if hasattr(_os, "pread"):
        return index, lambda offset, length: _os.pread(fd, length, offset)
    _os.lseek(fd, 0, 0)
    data = b"".join(iter(lambda: _os.read(fd, 1 << 20), b""))
    _os.close(fd)
    return index, lambda offset, length: data[offset : offset + length]


def needs_build() -> bool:
    """Whether this process imported without a bundle, or found part of it stale."""
    finder = active()
    return finder is None or finder.stale > 0


def _sources(plugin: str) -> "dict[str, int]":
    """Module name -> kind, for ``lib/`` and the hook bodies."""
    from missioncache_state import lean_os as os

    found: dict[str, int] = {}
    lib = os.path.join(plugin, "lib")
    for folder, dirs, files in os.walk(lib):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and _is_name(d))
        parts = os.path.relpath(folder, lib).split(os.sep)
        prefix = [] if parts == ["."] else parts
        for file in sorted(files):
            stem, ext = os.path.splitext(file)
            if ext != ".py" or not _is_name(stem):
                continue
            is_package = stem == "__init__"
            names = prefix if is_package else [*prefix, stem]
            if names:
                found[".".join(names)] = PACKAGE if is_package else MODULE
    hooks = os.path.join(plugin, "hooks")
    for file in sorted(os.listdir(hooks)) if os.path.isdir(hooks) else []:
        stem, ext = os.path.splitext(file)
        if ext == ".py" and stem.startswith("_") and _is_name(stem):
            found.setdefault(stem, HOOK_BODY)
    return found


def _is_name(part: str) -> bool:
    """Whether ``part`` can be a module name in the index (ASCII, which the index is)."""
    return part.isidentifier() and part.isascii()


def build(plugin: str) -> str:
    """Compile ``plugin``'s modules into this Python's bundle; returns its path. Each
    source's stamp is taken before it is read: one changed meanwhile fails the check at
    import, and is imported as usual. Raises OSError when the folder cannot be written."""
    from missioncache_state import lean_os as os
    from missioncache_state.atomic import atomic_write_bytes

    plugin = os.path.realpath(plugin)
    lib, hooks = os.path.join(plugin, "lib"), os.path.join(plugin, "hooks")
    entries: list[tuple[str, int, int, int, bytes]] = []
    for name, kind in sorted(_sources(plugin).items()):
        path = source_path(lib, hooks, name, kind)
        try:
            info = os.stat(path)
            with open(path, "rb") as handle:
                source = handle.read()
            code = _compile_without_future_imports(source, path)
        except (OSError, SyntaxError, ValueError):
            continue
        entries.append((name, kind, info.st_mtime_ns, info.st_size, marshal.dumps(code)))
    # Offsets count from the start of the file, which the index precedes: written with a
    # fixed width, the index's length is known before the offsets are.
    size = sum(len(f"\n{n} {k} {m} {s} {0:0{_WIDTH}d} {len(b)}") for n, k, m, s, b in entries)
    offset = _HEAD + size
    lines = []
    for name, kind, mtime_ns, source_size, blob in entries:
        lines.append(f"\n{name} {kind} {mtime_ns} {source_size} {offset:0{_WIDTH}d} {len(blob)}")
        offset += len(blob)
    index = "".join(lines).encode("ascii")
    target = bundle_path(plugin)
    head = FORMAT + _magic() + len(index).to_bytes(4, "little") + index
    # Not durable: a bundle lost to a power cut is just built again.
    atomic_write_bytes(target, head + b"".join(entry[4] for entry in entries), durable=False)
    return target


def _compile_without_future_imports(source: bytes, path: str) -> "CodeType":
    """``source`` compiled as written, but with its ``from __future__ import …`` turned
    into compiler flags: the statement also imports the ``__future__`` module at run
    time (about 0.2 ms of a hook), and the flags alone make the same code."""
    import __future__

    import ast

    tree = ast.parse(source, path)
    flags = 0
    body = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(__future__, alias.name).compiler_flag
        else:
            body.append(node)
    tree.body = body
    code: CodeType = compile(tree, path, "exec", flags=flags, dont_inherit=True)
    return code


def stamp_path(plugin: str) -> str:
    """The file whose mtime says when a build was last started (the debounce)."""
    return bundle_path(plugin) + ".started"


if __name__ == "__main__":
    try:
        build(sys.argv[1])
    except Exception:
        pass  # a folder we cannot write: the hooks import as usual

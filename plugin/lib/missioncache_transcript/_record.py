"""``namedtuple`` for this package's results, without importing ``collections``.

WHY: ``import collections`` costs about 9 M instructions (callgrind), over 40% of the
interpreter's own start, on every Stop and PreCompact run. WHY a copy of
``missioncache_state.tuples``: this package imports nothing of ours (docs/layout.md), so it
keeps its own, reduced to what its results need: positional construction, named read-only
fields, ``_fields`` and a readable ``repr``; equality and hashing are the tuple's. The type
checker sees ``collections.namedtuple`` itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import namedtuple as namedtuple
else:
    try:
        from _operator import itemgetter
    except ImportError:  # pragma: no cover - CPython always has it
        from operator import itemgetter

    def namedtuple(typename, field_names):
        """A tuple class named ``typename`` with the space-separated ``field_names``."""
        fields = tuple(field_names.split())

        def __new__(cls, *values):
            if len(values) != len(fields):
                raise TypeError(f"{typename}() takes {len(fields)} values, got {len(values)}")
            return tuple.__new__(cls, values)

        def __repr__(self):
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(fields, self))
            return f"{type(self).__name__}({shown})"

        namespace = {"__slots__": (), "_fields": fields, "__new__": __new__, "__repr__": __repr__}
        for index, name in enumerate(fields):
            namespace[name] = property(itemgetter(index), doc=f"Field {index}: {name}")
        return type(typename, (tuple,), namespace)

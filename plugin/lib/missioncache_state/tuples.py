"""``namedtuple`` for the hook path, without importing ``collections``.

WHY: ``import collections`` costs about 9 M instructions (callgrind), over 40% of the
interpreter's own start, and each ``collections.namedtuple`` class is built by compiling
generated source. The hooks' records need only what this gives: a tuple subclass with
named read-only fields, positional or keyword construction, defaults for the last fields,
``_fields``, ``_asdict``, ``_replace`` and a readable ``repr``. The type checker sees
``collections.namedtuple`` itself, so it checks every call and field as before.

Use: ``from missioncache_state.tuples import namedtuple`` and subclass the result.
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

    def namedtuple(typename, field_names, *, defaults=()):
        """A tuple class named ``typename`` with the fields ``field_names`` (a list, or
        one string of space-separated names); ``defaults`` fill the last fields."""
        fields = tuple(field_names.split() if isinstance(field_names, str) else field_names)
        filler = dict(zip(fields[len(fields) - len(defaults) :], defaults))

        def __new__(cls, *values, **named):
            if len(values) > len(fields):
                raise TypeError(f"{typename}() takes {len(fields)} values, got {len(values)}")
            rest = fields[len(values) :]
            try:
                values += tuple(named.pop(n) if n in named else filler[n] for n in rest)
            except KeyError as missing:
                raise TypeError(f"{typename}() is missing {missing}") from None
            if named:
                raise TypeError(f"{typename}() got unexpected {', '.join(named)}")
            return tuple.__new__(cls, values)

        def __repr__(self):
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(fields, self))
            return f"{type(self).__name__}({shown})"

        def _asdict(self):
            return dict(zip(fields, self))

        def _replace(self, **changes):
            values = [changes.pop(n, v) for n, v in zip(fields, self)]
            return type(self)(*values, **changes)  # a name left over is a TypeError

        def __getnewargs__(self):
            return tuple(self)

        namespace = {
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": filler,
            "__new__": __new__,
            "__repr__": __repr__,
            "__getnewargs__": __getnewargs__,
            "_asdict": _asdict,
            "_replace": _replace,
        }
        for index, name in enumerate(fields):
            namespace[name] = property(itemgetter(index), doc=f"Field {index}: {name}")
        return type(typename, (tuple,), namespace)


__all__ = ["namedtuple"]

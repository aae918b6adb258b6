"""missioncache_state.tuples: the hooks' named tuples behave as ``collections.namedtuple``'s
do, for everything the hooks use, without importing ``collections``."""

from __future__ import annotations

import collections
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from missioncache_state.tuples import namedtuple

SRC = Path(__file__).resolve().parents[1] / "src"
Light = namedtuple("Point", "x y label", defaults=("none",))
Real = collections.namedtuple("Point", "x y label", defaults=("none",))


class Point(Light):
    __slots__ = ()


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((1, 2), {}), ((1, 2, "a"), {}), ((1,), {"y": 2}), ((), {"y": 2, "x": 1, "label": "b"})],
)
def test_built_and_read_as_the_standard_named_tuple(args, kwargs):
    light, real = Point(*args, **kwargs), Real(*args, **kwargs)
    assert light == real and tuple(light) == tuple(real) and hash(light) == hash(real)
    assert (light.x, light.y, light.label) == (real.x, real.y, real.label)
    assert light._asdict() == real._asdict()
    assert light._replace(y=9) == real._replace(y=9) and isinstance(light._replace(), Point)
    assert repr(light) == repr(real)
    assert Point._fields == Real._fields and Point._field_defaults == Real._field_defaults


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((1, 2, 3, 4), {}), ((1, 2), {"z": 3}), ((1, 2), {"x": 1}), ((1,), {})],
)
def test_a_wrong_call_is_a_type_error_as_with_the_standard_one(args, kwargs):
    with pytest.raises(TypeError):
        Real(*args, **kwargs)
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_fields_are_read_only_and_instances_carry_no_dict():
    point = Point(1, 2)
    with pytest.raises(AttributeError):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 5  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        point._replace(nope=1)


def test_pickled_and_back():
    assert pickle.loads(pickle.dumps(Point(1, [2]))) == Point(1, [2])


def test_importing_it_loads_no_collections():
    code = "import sys\nimport missioncache_state.tuples\nprint('collections' in sys.modules)\n"
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"

"""The package's result tuples (``_record``) read, compare and print as the standard
``collections.namedtuple`` would."""

from __future__ import annotations

import collections

import pytest

from missioncache_transcript import Edit, Exchange

RealEdit = collections.namedtuple("Edit", "tool file_path")


def test_an_edit_is_the_tuple_the_standard_named_tuple_makes():
    edit, real = Edit("Write", "/p/a.py"), RealEdit("Write", "/p/a.py")
    assert edit == real and hash(edit) == hash(real) and repr(edit) == repr(real)
    assert (edit.tool, edit.file_path) == ("Write", "/p/a.py") and Edit._fields == real._fields
    tool, path = edit
    assert (tool, path) == ("Write", "/p/a.py")
    with pytest.raises(AttributeError):
        edit.tool = "Edit"  # type: ignore[misc]


@pytest.mark.parametrize("values", [(), (None,), (None, (), False, "extra")])
def test_a_wrong_number_of_values_is_a_type_error(values):
    with pytest.raises(TypeError):
        Exchange(*values)

import subprocess
import sys

import pytest

import missioncache_context


def test_every_export_resolves():
    for name in missioncache_context.__all__:
        assert getattr(missioncache_context, name) is not None
    with pytest.raises(AttributeError):
        missioncache_context.no_such_name  # noqa: B018


def test_digest_is_the_function_whatever_was_imported_first():
    code = (
        "import missioncache_context.context_digest\n"
        "from missioncache_context import digest\n"
        "assert callable(digest), digest\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_the_package_loads_no_submodule():
    code = (
        "import sys, missioncache_context\n"
        "print(sorted(m for m in sys.modules if m.startswith('missioncache')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "['missioncache_context']"

"""Shared pytest fixtures (registered through the ``pytest11`` entry point; opt in by name).

WHY shared: every package's tests need the same isolation (a private HOME, Claude dir and data
root) and the integration tests need the same built plugin and a task tied to a project. Building
them one way keeps tests honest: the plugin is built by the real build script and tasks are made by
the plugin's bundled library running as a process, exactly as a user's machine would.

- ``mc_env``: a temporary HOME with ``~/.claude`` and a data root; ``.env`` for subprocesses.
- ``mc_plugin``: the plugin tree built by ``scripts/build_plugin.py`` (once per test session).
- ``mc_repo``: a project directory (no git) for a task to be tied to.
- ``mc_task``: a task named ``demo-task`` tied to ``mc_repo``, created through the plugin.
- Hypothesis: every property test runs under the profiles of ``hypothesis_profiles``.
- ``MISSIONCACHE_HOOK_PYTHON=/path/to/python3.9``: hooks and bare ``python3`` children run
  under that interpreter (a ``python3`` link put first on PATH), the tests themselves do not.
- hook tests (``hook_fixtures``): ``hook`` runs the script a package names with ``mc_hook_script``;
  ``query``/``execute`` reach tasks.db directly; ``mc_cli`` runs the bundled command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.hook_fixtures import (  # noqa: F401 - re-exported fixtures
    mc_cli,
    mc_execute,
    mc_hook,
    mc_hook_script,
    mc_make_task,
    mc_python,
    mc_query,
    mc_task_dir,
)
from missioncache_harness.locate import build_script
from missioncache_harness.workspace import (
    McEnv,
    McTask,
    build_plugin,
    create_task,
    make_env,
    put_hook_python_first,
)

__all__ = ["McEnv", "McTask", "mc_env", "mc_plugin", "mc_repo", "mc_task"]


def pytest_configure(config: pytest.Config) -> None:
    import shutil
    import tempfile

    # The built plugin runs under $MISSIONCACHE_HOOK_PYTHON when set (docs/testing.md).
    shim_dir = Path(tempfile.mkdtemp(prefix="mc-hook-python-"))
    config.add_cleanup(lambda: shutil.rmtree(shim_dir, ignore_errors=True))
    put_hook_python_first(shim_dir)
    try:
        from missioncache_harness.hypothesis_profiles import register

        register()
    except ImportError:  # Hypothesis is a dev dependency; without it there is nothing to set
        pass


@pytest.fixture
def mc_env(tmp_path: Path) -> McEnv:
    """A temporary HOME with ``~/.claude`` and a data root (both env overrides set)."""
    return make_env(tmp_path)


@pytest.fixture(scope="session")
def mc_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin tree, built once per test session by ``scripts/build_plugin.py --out``."""
    if build_script() is None:
        pytest.skip("scripts/build_plugin.py is not in this checkout: no plugin to build")
    try:
        return build_plugin(tmp_path_factory.mktemp("built") / "plugin")
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def mc_repo(tmp_path: Path) -> Path:
    """A project directory without git, resolved (Claude Code reports real paths)."""
    repo = tmp_path / "work" / "tracked-repo"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("# tracked repo\n", encoding="utf-8")
    return repo.resolve()


@pytest.fixture
def mc_task(mc_plugin: Path, mc_env: McEnv, mc_repo: Path) -> McTask:
    """A task ``demo-task`` tied to ``mc_repo``, created through the built plugin."""
    return create_task(mc_plugin, mc_env, "demo-task", mc_repo)

"""Sync tests use the shared harness fixtures (``mc_plugin``); their two-machine helpers live
in ``sync_kit`` (importable because this directory is put on ``sys.path``: the workspace
runs pytest with ``--import-mode=importlib``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture
def roots(tmp_path, monkeypatch):
    """A private data root and Claude dir, the way every MissionCache test isolates state."""
    data = tmp_path / "mc"
    claude = tmp_path / "claude"
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(data))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    return data, claude

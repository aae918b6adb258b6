"""Property tests draw the same examples on every run unless asked to explore."""

from hypothesis import settings

from missioncache_harness import hypothesis_profiles


def test_the_suite_runs_deterministic_property_tests_by_default():
    current = settings()
    assert current.derandomize is True
    assert current.database is None
    assert current.deadline is None
    assert current.max_examples == 300


def test_explore_draws_fresh_and_many_more_examples(monkeypatch):
    monkeypatch.setenv(hypothesis_profiles.PROFILE_ENV, "explore")
    try:
        assert hypothesis_profiles.register() == "explore"
        assert settings().derandomize is False
        assert settings().max_examples > 300
    finally:
        monkeypatch.delenv(hypothesis_profiles.PROFILE_ENV)
        assert hypothesis_profiles.register() == hypothesis_profiles.DEFAULT
    assert settings().derandomize is True

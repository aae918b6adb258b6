"""One budget for a hook's text: least important parts give way first."""

from hypothesis import given
from hypothesis import strategies as st

from missioncache_hookio.budget import MIN_USEFUL, Part, cut_mark, fit


def test_everything_fits_unchanged_in_order():
    parts = [Part("a", "alpha", 1), Part("b", "", 9), Part("c", "gamma", 5)]
    assert fit(parts, 100) == "alpha\n\ngamma"


def test_least_important_part_is_cut_first_with_a_mark():
    banner = Part("banner", "B" * 1000, 100)
    summary = Part("summary", "\n".join(["line of summary"] * 600), 50)
    digest = Part("digest", "D" * 2000, 60)
    out = fit([banner, digest, summary], 5000)
    assert len(out) <= 5000
    assert out.startswith("B" * 1000 + "\n\n" + "D" * 2000 + "\n\n")
    assert out.endswith(cut_mark("summary"))
    kept = out[len("B" * 1000 + "D" * 2000) + 4 :]
    assert kept.split("\n")[-2] == "line of summary"  # cut at a line end, not mid-line


def test_a_part_with_too_little_left_is_dropped():
    out = fit([Part("keep", "K" * 900, 2), Part("drop", "x" * 2000, 1)], 900 + MIN_USEFUL)
    assert out == "K" * 900


def test_most_important_parts_too_long_still_bounded():
    assert len(fit([Part("huge", "h" * 50_000, 100)], 9000)) == 9000


@given(
    st.lists(
        st.tuples(st.text(max_size=3000), st.integers(0, 5)),
        max_size=6,
    ),
    st.integers(0, 6000),
)
def test_never_over_the_limit(raw, limit):
    parts = [Part(f"p{i}", text, prio) for i, (text, prio) in enumerate(raw)]
    assert len(fit(parts, limit)) <= limit

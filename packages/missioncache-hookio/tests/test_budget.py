"""One budget for a hook's text: least important parts give way first."""

from hypothesis import given
from hypothesis import strategies as st

from missioncache_hookio.budget import MIN_USEFUL, Part, cut_mark, fit, units


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


def _utf16(text: str) -> int:
    """What Claude Code's JavaScript ``length`` says (measured in the conformance tier)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def test_characters_above_the_bmp_count_twice():
    """Issue 20, defect 5: 9,000 emoji are 9,000 code points but 18,000 UTF-16 units, the
    unit Claude Code's 10,000 limit counts; the old budget let them all through."""
    emoji = "\U0001f600"
    out = fit([Part("banner", "B" * 500, 100), Part("summary", emoji * 9000, 50)], 9000)
    assert _utf16(out) <= 9000
    assert out.startswith("B" * 500) and emoji * 100 in out


def test_a_part_of_astral_characters_alone_is_bounded_in_units():
    out = fit([Part("huge", "\U0001d400" * 9000, 100)], 9000)
    assert _utf16(out) <= 9000 and out.startswith("\U0001d400" * 4000)
    assert out.endswith(cut_mark("huge"))


@given(
    st.lists(
        st.tuples(st.text(alphabet=st.characters(codec="utf-8"), max_size=3000), st.integers(0, 5)),
        max_size=6,
    ),
    st.integers(0, 6000),
)
def test_never_over_the_limit_in_utf16_units(raw, limit):
    parts = [Part(f"p{i}", text, prio) for i, (text, prio) in enumerate(raw)]
    assert _utf16(fit(parts, limit)) <= limit


@given(st.text())
def test_units_are_what_utf16_counts(text):
    assert units(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2


def test_units_count_a_lone_surrogate_once_and_an_emoji_twice():
    assert units("a\ud800b") == 3 and units("é🙂") == 3 and units("") == 0

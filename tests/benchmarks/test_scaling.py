"""The scaling curve: generated sessions, fits and growth exponent (no timed assertions)."""

import pytest

from benchmarks.scaling import generated_session, growth_exponent, linear_fit, scaling_curve


def test_generated_sessions_are_deterministic_and_alternate():
    turns = generated_session(20)
    assert turns == generated_session(20)
    assert [t.role for t in turns[:2]] == ["user", "assistant"]
    assert [t.position for t in turns] == list(range(20))


def test_linear_fit_recovers_a_line():
    slope, intercept, r2 = linear_fit([1, 2, 3, 4], [3, 5, 7, 9])
    assert (slope, intercept, r2) == (pytest.approx(2), pytest.approx(1), pytest.approx(1))


def test_scaling_curve_shape():
    curve = scaling_curve(sizes=(4, 8))
    assert [p["turns"] for p in curve["points"]] == [4, 8]
    assert {"ms", "ms_per_turn", "peak_kib"} <= set(curve["points"][0])
    assert {"exponent", "memory_exponent", "ms_per_turn", "r2", "memory_r2"} <= set(curve["fit"])


def test_growth_exponent_tells_linear_from_quadratic():
    xs = [50, 100, 500, 2000]
    assert growth_exponent(xs, [3 * x for x in xs]) == pytest.approx(1)
    assert growth_exponent(xs, [x * x for x in xs]) == pytest.approx(2)

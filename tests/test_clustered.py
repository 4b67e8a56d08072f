"""Intervals for rates over clustered games (durak_sim.clustered): known values, the deal
bootstrap's agreement, and coverage where seat-games are not independent."""
import numpy as np
import pytest
import scipy.stats

from durak_sim.clustered import (cluster_sums, normal_interval, per_deal_squares,
                                 ratio_variance, wilson_design)
from durak_sim.place_counts import poisson_weights
from durak_sim.stats import wilson_interval


def test_clusters_of_one_game_are_independent_trials():
    """One game a deal: the variance is the binomial one with D / (D - 1), so the
    effective sample size is n - 1 exactly, and the interval nearly scipy's Wilson."""
    x = np.array([1] * 30 + [0] * 70)
    s = cluster_sums(np.arange(100), x, 100)
    var = ratio_variance(30, 100, s[1], s[2], s[0], s[3])
    assert var == pytest.approx(0.3 * 0.7 / 99)
    assert wilson_design(30, 100, var) == pytest.approx(wilson_interval(0.3 * 99, 99))
    ci = scipy.stats.binomtest(30, 100).proportion_ci(method="wilson")
    assert wilson_design(30, 100, var) == pytest.approx((ci.low, ci.high), abs=0.003)


@pytest.mark.parametrize("hits", [0, 12])
def test_no_hit_or_every_hit_is_plain_wilson(hits):
    ci = scipy.stats.binomtest(hits, 12).proportion_ci(method="wilson")
    assert wilson_design(hits, 12, 0.0) == pytest.approx((ci.low, ci.high))
    assert wilson_design(hits, 12, np.nan) == pytest.approx((ci.low, ci.high))


def test_per_deal_squares_by_groups_equal_the_sums_of_each_group():
    di = np.array([0, 0, 1, 2, 2, 2])
    who = np.array([[0, 1], [1, 0], [0, 1], [0, 1], [1, 1], [0, 0]])
    x = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 1], [1, 0]])
    squares, (m, xs) = per_deal_squares(di, 3, who, 2, x)
    for g in (0, 1):
        rows, cols = np.nonzero(who == g)
        expect = cluster_sums(di[rows], x[rows, cols], 3)
        assert squares[g].tolist() == pytest.approx(expect[:3].tolist())
    assert m.sum() == who.size and xs.sum() == x.sum()


def test_the_variance_equals_the_deal_bootstraps():
    """A rate over deals of 2-6 games with a deal effect: the Poisson bootstrap over deals
    (durak_sim.place_counts) gives the same variance as the formula."""
    rng = np.random.default_rng(5)
    d = 6000
    m = rng.integers(2, 7, d)
    p = rng.beta(2, 5, d)                         # each deal's own chance
    x = rng.binomial(m, p).astype(float)
    var = ratio_variance(x.sum(), m.sum(), x @ x, x @ m, m @ m.astype(float), d)
    w = poisson_weights(9, np.arange(d)).astype(float)
    boot = (w @ x) / (w @ m)
    assert boot.var() == pytest.approx(var, rel=0.1)
    iid = x.sum() / m.sum() * (1 - x.sum() / m.sum()) / m.sum()
    assert var > 1.2 * iid                        # the deal effect: a design effect above 1


@pytest.mark.parametrize("rho_sign", [1, -1])
def test_coverage_where_the_games_of_a_deal_hang_together(rho_sign):
    """Deals of four seat-games: with a shared deal effect (positive correlation) the plain
    Wilson interval covers the true rate too seldom; with rotations that balance a deal
    (negative correlation: one hit per deal but for noise) it is far too wide. The
    design-effect interval covers about 95% in both."""
    rng = np.random.default_rng(11 if rho_sign > 0 else 12)
    reps, d, k = 2000, 150, 4
    if rho_sign > 0:
        p = rng.beta(1.5, 3.5, (reps, d, 1))                   # mean 0.3
        x = (rng.random((reps, d, k)) < p).sum(axis=2)
        truth = 0.3
    else:
        x = 1 + (rng.random((reps, d)) < 0.2) - (rng.random((reps, d)) < 0.2)
        truth = 0.25
    x = x.astype(float)
    n = d * k
    hits = x.sum(axis=1)
    var = ratio_variance(hits, n, (x * x).sum(axis=1), k * x.sum(axis=1), d * k * k, d)
    lo, hi = wilson_design(hits, np.full(reps, n), var)
    covered = np.mean((lo <= truth) & (truth <= hi))
    assert 0.93 <= covered <= 0.97
    plo, phi = wilson_interval(hits, np.full(reps, n))
    plain = np.mean((plo <= truth) & (truth <= phi))
    assert plain < 0.9 if rho_sign > 0 else plain > 0.99


def test_normal_interval():
    lo, hi = normal_interval(2.0, 0.01)
    assert (lo, hi) == pytest.approx((2.0 - 1.959964 * 0.1, 2.0 + 1.959964 * 0.1))


def test_no_hit_is_not_wider_than_one_hit():
    """150 deals of 12 seat-games: no hit at all must not give a wider interval than one hit
    (it gave [0, 2.5%] against one hit's [0.01%, 0.31%] when the deals were its sample);
    with the design effect taken as 1 it is Wilson's for 0 of 1,800, scaled for 149 degrees
    of freedom (Korn & Graubard 1998)."""
    from scipy.stats import t

    d, m = 150, 12
    deal = np.repeat(np.arange(d), m)
    bounds = []
    for hits in (0, 1):
        x = np.zeros(d * m)
        x[:hits] = 1
        s = cluster_sums(deal, x, d)
        var = ratio_variance(hits, d * m, s[1], s[2], s[0], s[3])
        bounds.append(wilson_design(hits, d * m, var, units=d))
    assert bounds[0][1] < bounds[1][1]
    n_eff = d * m * (t.ppf(0.975, d * m - 1) / t.ppf(0.975, d - 1)) ** 2
    assert bounds[0] == pytest.approx(wilson_interval(0, n_eff))


def test_few_deals_widen_the_interval_as_a_t_interval_would():
    """Korn & Graubard's degrees of freedom: the same variance from 2 deals gives a far wider
    interval than from 200 (t(1) = 12.71 against t(199) = 1.97), and from thousands of deals
    the interval is as without the correction."""
    var = 0.3 * 0.7 / 100
    wide = wilson_design(30, 100, var, units=2)
    narrow = wilson_design(30, 100, var, units=200)
    assert wide[1] - wide[0] > 3 * (narrow[1] - narrow[0])
    assert wilson_design(3000, 10000, 0.21 / 10000, units=5000) == pytest.approx(
        wilson_design(3000, 10000, 0.21 / 10000), rel=1e-3)

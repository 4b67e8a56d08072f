"""durak_sim.sprt: LLR against published values and an independent optimiser; the stopping
rule on simulated strategies; the post-stop estimate against an independent series and by
simulation."""
import itertools
import math

import numpy as np
import pytest
import scipy.optimize
from hypothesis import example, given, settings
from hypothesis import strategies as st

from durak_sim.sprt import (SPRT, exit_probability, llr_logistic, llr_normalized,
                            mle_given_score, mle_given_t, prob_right_of)
from durak_sim.stats import PAIR_SCORES, pair_score_stats, score_from_elo

A_95, B_95 = math.log(0.05 / 0.95), math.log(0.95 / 0.05)


# --------------------------------------------------------------------------------------
# LLR
# --------------------------------------------------------------------------------------
# Published LLRs (2 decimals) of the fastchess SPRT tests (Disservin/fastchess,
# tests/sprt_test.cpp), which implement fishtest's GSPRT. Their Stats(ll, ld, wl, dd, wd,
# ww) merge to the pentanomial [ll, ld, wl + dd, wd, ww].
PUBLISHED = [
    ("logistic", [223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, -3.07),
    ("logistic", [871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, -4.98),
    ("normalized", [365, 16618, 36029 + 200, 16974, 390], 0.0, 2.0, 2.25),
    ("normalized", [127, 4883, 10311 + 401, 5150, 104], -1.75, 0.25, 3.01),
    ("normalized", [0, 0, 0, 0, 5550], 0.0, 5.0, 111.82),
]


@pytest.mark.parametrize("model, pent, elo0, elo1, llr", PUBLISHED)
def test_llr_matches_published_values(model, pent, elo0, elo1, llr):
    fn = llr_logistic if model == "logistic" else llr_normalized
    assert fn(pent, elo0, elo1) == pytest.approx(llr, rel=0.01, abs=0.005)


def constrained_mle(counts, constraint):
    """Maximise sum n_i log p_i over the simplex under ``constraint(p) = 0`` with SLSQP:
    an optimiser that knows nothing of the tilt / secular-equation solution."""
    n = np.where(np.asarray(counts, float) == 0, 1e-3, counts)
    phat = n / n.sum()
    res = scipy.optimize.minimize(
        lambda p: -np.dot(phat, np.log(p)), phat, method="SLSQP",
        bounds=[(1e-12, 1)] * 5,
        constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1},
                     {"type": "eq", "fun": constraint}],
        options={"ftol": 1e-15, "maxiter": 1000})
    assert res.success
    return n.sum(), phat, res.x


def mean_is(s):
    return lambda p: p @ PAIR_SCORES - s


def t_value_is(t):
    def f(p):
        mu = p @ PAIR_SCORES
        return (mu - 0.5) - t * math.sqrt(p @ (PAIR_SCORES - mu) ** 2)
    return f


COUNTS = [[30, 110, 250, 140, 45], [5, 40, 300, 60, 12], [0, 17, 60, 23, 9]]


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize("elo0, elo1", [(0, 5), (-10, 10), (20, 60)])
def test_llr_logistic_equals_direct_constrained_maximum(counts, elo0, elo1):
    fits = [constrained_mle(counts, mean_is(score_from_elo(e))) for e in (elo0, elo1)]
    n, phat = fits[0][0], fits[0][1]
    expected = n * np.dot(phat, np.log(fits[1][2]) - np.log(fits[0][2]))
    assert llr_logistic(counts, elo0, elo1) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize("nelo0, nelo1", [(0, 5), (-10, 10), (20, 60)])
def test_llr_normalized_equals_direct_constrained_maximum(counts, nelo0, nelo1):
    t = [math.sqrt(2) * e / (800 / math.log(10)) for e in (nelo0, nelo1)]
    fits = [constrained_mle(counts, t_value_is(x)) for x in t]
    n, phat = fits[0][0], fits[0][1]
    expected = n * np.dot(phat, np.log(fits[1][2]) - np.log(fits[0][2]))
    assert llr_normalized(counts, nelo0, nelo1) == pytest.approx(expected, abs=1e-6)


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(counts=st.lists(st.integers(0, 500), min_size=5, max_size=5).filter(lambda c: sum(c) > 0),
       elo=st.floats(-300, 300), t=st.floats(-1.0, 1.0))
@example(counts=[0, 0, 1, 0, 0], elo=0.0, t=1.0)           # far from the data: needs the
@example(counts=[0, 0, 0, 0, 225], elo=0.0, t=0.85)        # continuation, not one fixed point
@example(counts=[7, 343, 500, 374, 374], elo=0.0, t=-0.6801935835218447)  # the continuation
#                                       stalls near t = -0.6702: maximised directly instead
def test_constrained_mles_satisfy_their_constraints(counts, elo, t):
    p = mle_given_score(counts, score_from_elo(elo))
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and (p > 0).all()
    assert p @ PAIR_SCORES == pytest.approx(score_from_elo(elo), abs=1e-9)
    q = mle_given_t(counts, t)
    mu = q @ PAIR_SCORES
    assert (mu - 0.5) / math.sqrt(q @ (PAIR_SCORES - mu) ** 2) == pytest.approx(t, abs=1e-8)


def test_llr_of_no_pairs_is_zero_and_bad_counts_are_refused():
    assert llr_logistic([0] * 5, 0, 5) == 0.0 == llr_normalized([0] * 5, 0, 5)
    with pytest.raises(ValueError):
        llr_logistic([1, 2, 3], 0, 5)
    with pytest.raises(ValueError):
        SPRT(0, 5).update([1, -1, 0, 0, 0])


# --------------------------------------------------------------------------------------
# The stopping rule
# --------------------------------------------------------------------------------------
BASE = np.array([0.08, 0.22, 0.40, 0.22, 0.08])   # a symmetric pair distribution (Elo 0)


def tilted(score):
    """``BASE`` exponentially tilted to the expected pair score ``score``."""
    def mean(theta):
        w = BASE * np.exp(theta * PAIR_SCORES)
        return w @ PAIR_SCORES / w.sum() - score
    theta = scipy.optimize.brentq(mean, -60, 60)
    w = BASE * np.exp(theta * PAIR_SCORES)
    return w / w.sum()


def run_sprt(sprt, probs, rng, chunk, max_pairs=200_000):
    while sprt.status() == "continue" and sprt.pairs < max_pairs:
        sprt.update(rng.multinomial(chunk, probs))
    return sprt.status()


def test_parameters_and_bounds():
    s = SPRT(0, 5, alpha=0.05, beta=0.1)
    assert s.bounds == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert (s.status(), s.llr, s.pairs) == ("continue", 0.0, 0)
    for bad in (dict(elo0=5, elo1=0), dict(elo0=0, elo1=5, alpha=0.6, beta=0.5),
                dict(elo0=0, elo1=5, model="bayes")):
        with pytest.raises(ValueError):
            SPRT(**bad)


def test_update_accumulates_and_llr_equals_the_function():
    s = SPRT(-2, 8)
    s.update([3, 10, 25, 12, 4])
    s.update(np.array([1, 0, 5, 2, 2]))
    assert s.counts.tolist() == [4, 10, 30, 14, 6] and s.pairs == 64
    assert s.llr == llr_logistic([4, 10, 30, 14, 6], -2, 8)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_stops_h1_on_a_clearly_stronger_strategy(model):
    rng = np.random.default_rng(2024)
    s = SPRT(0, 10, model=model)
    assert run_sprt(s, tilted(score_from_elo(40)), rng, chunk=50) == "H1"
    assert s.llr >= s.upper
    with pytest.raises(RuntimeError, match="already stopped"):
        s.update([1, 0, 0, 0, 0])


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_stops_h0_on_equal_strategies(model):
    rng = np.random.default_rng(7)
    outcomes = [run_sprt(SPRT(0, 10, model=model), BASE, rng, chunk=50) for _ in range(20)]
    # alpha = 0.05: five or more false H1 in 20 runs would have probability 0.003
    assert outcomes.count("H0") >= 16
    assert "continue" not in outcomes


# --------------------------------------------------------------------------------------
# Brownian probabilities behind the estimate
# --------------------------------------------------------------------------------------
def right_by_eigenfunctions(t, y, mu, sigma2, a, b, terms=4000):
    """P(outcome at least as good as (t, y)) from the eigenfunction expansion of the killed
    density (Cox & Miller 1965, ch. 5) -- a different series from the images in the module.

    P = h(x0) - (2/A) e^{g(z - x0) - mu^2 t / (2 sigma2)} sum_n sin(k x0) e^{-k^2 sigma2 t / 2}
        (g sin kz - k cos kz) / (g^2 + k^2), k = n pi / A, x0 = -a, z = y - a, g = mu / sigma2,
    with h the probability of leaving through b at all."""
    big_a, x0, z = b - a, -a, min(max(y, a), b) - a
    g = mu / sigma2
    h = x0 / big_a if g == 0 else math.expm1(-2 * g * x0) / math.expm1(-2 * g * big_a)
    k = np.arange(1, terms + 1) * np.pi / big_a
    series = (np.sin(k * x0) * np.exp(-k * k * sigma2 * t / 2)
              * (g * np.sin(k * z) - k * np.cos(k * z)) / (g * g + k * k))
    return h - 2 / big_a * math.exp(g * (z - x0) - mu * mu * t / (2 * sigma2)) * series.sum()


@pytest.mark.parametrize("mu, sigma2, t", list(itertools.product(
    [-0.02, 0.0, 0.004, 0.05], [0.01, 0.06], [40.0, 300.0, 4000.0])))
def test_prob_right_of_equals_the_eigenfunction_series(mu, sigma2, t):
    for y in (A_95, -1.3, 0.0, 2.1, B_95):
        assert prob_right_of(t, y, mu, sigma2, A_95, B_95) == pytest.approx(
            right_by_eigenfunctions(t, y, mu, sigma2, A_95, B_95), abs=1e-10)


@pytest.mark.parametrize("mu", [-0.01, 0.0, 0.003, 0.02])
def test_exit_probabilities_tend_to_gamblers_ruin(mu):
    sigma2, t = 0.02, 1e7
    g = mu / sigma2
    ruin_b = -A_95 / (B_95 - A_95) if g == 0 else (
        math.expm1(2 * g * A_95) / math.expm1(2 * g * (A_95 - B_95)))
    assert exit_probability("b", mu, sigma2, t, A_95, B_95) == pytest.approx(ruin_b, abs=1e-9)
    assert exit_probability("a", mu, sigma2, t, A_95, B_95) == pytest.approx(1 - ruin_b,
                                                                               abs=1e-9)


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(mu=st.floats(-0.05, 0.05), dmu=st.floats(1e-4, 0.05), t=st.floats(1.0, 1e4),
       y=st.floats(A_95, B_95))
def test_prob_right_of_increases_with_the_drift(mu, dmu, t, y):
    p, q = (prob_right_of(t, y, m, 0.03, A_95, B_95) for m in (mu, mu + dmu))
    assert 0.0 <= p <= q + 1e-12 <= 1.0 + 1e-12


# --------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------
def test_estimate_far_from_the_bounds_is_the_fixed_sample_one():
    """With bounds out of reach the stopping rule cannot bias anything: the estimate is the
    plain pair-score Elo and the interval the normal one of stats.pair_score_stats."""
    counts = [40, 130, 300, 170, 60]
    s = SPRT(0, 5, alpha=1e-12, beta=1e-12)
    assert s.update(counts) == "continue"
    est = s.estimate()
    ref = pair_score_stats(counts)
    assert est.elo == pytest.approx(ref["elo"][0], abs=1e-6)
    assert est.naive_elo == pytest.approx(ref["elo"][0], abs=1e-9)
    assert (est.lo, est.hi) == pytest.approx((ref["elo_lo"][0], ref["elo_hi"][0]), abs=1e-6)
    assert est.los == pytest.approx(ref["los"][0], abs=1e-9)
    assert est.nelo == pytest.approx(ref["nelo"][0], abs=1e-6)


def test_estimate_needs_pairs():
    with pytest.raises(ValueError, match="no pairs"):
        SPRT(0, 5).estimate()


def test_estimate_after_stopping_is_median_unbiased():
    """Simulated SPRTs that mostly stop for H1 at true Elo = elo1: the naive Elo runs high
    (early stops are lucky streaks); the median-unbiased one is above the truth half of
    the time and its 95% interval covers it."""
    rng = np.random.default_rng(11)
    probs = tilted(score_from_elo(30.0))
    ests = []
    for _ in range(160):
        s = SPRT(0, 30)
        run_sprt(s, probs, rng, chunk=10)
        ests.append(s.estimate())
    elo = np.array([e.elo for e in ests])
    naive = np.array([e.naive_elo for e in ests])
    covered = np.mean([e.lo < 30.0 < e.hi for e in ests])
    assert 0.38 < np.mean(elo > 30.0) < 0.62          # 0.5 ± 3 sd
    assert abs(np.median(elo) - 30.0) < abs(np.median(naive) - 30.0)
    assert np.mean(naive > 30.0) > np.mean(elo > 30.0)
    assert covered > 0.9
    assert all(e.lo < e.elo < e.hi and e.status in ("H0", "H1") for e in ests)

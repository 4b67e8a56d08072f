"""Intervals for rates and means counted over games that come in clusters: every seating of
a deal shares its cards, so the games of one deal are not independent trials, and a deal,
not a game, is the unit that repeats.

A rate ``r = X / M`` (Durak games over seat-games, say) is a ratio of per-deal sums
``x_d`` and ``m_d``. Its variance with the deals independent is the ratio estimator's
(Cochran, *Sampling Techniques*, 3rd ed., 1977, section 6.3; the cluster-robust variance
of a mean with its usual ``D / (D - 1)`` correction)::

    var(r) = D / (D - 1) * sum_d (x_d - r m_d)**2 / M**2

which needs only the streamable sums ``sum x_d**2``, ``sum x_d m_d`` and ``sum m_d**2``
(:func:`cluster_sums`). Where the deals are shared with other line-ups (a tournament's
strategy across its line-ups) the deal bootstrap's variance stands in for it.

A rate's interval is then Wilson's score interval at the *effective sample size*
``n_eff = r (1 - r) / var(r)``: the number of independent trials that would give the rate
that variance (the design effect ``deff = M / n_eff``; the Wilson interval for clustered
surveys, Kish 1965, and e.g. Dean & Pagano 2015, *Evaluating confidence interval methods for
binomial proportions in clustered surveys*). Seat rotations make the design effect of a
strong level smaller than 1 (its seats' luck cancels within a deal) and of a weak one larger
than 1, so an interval that treats seat-games as independent is too wide for the one and too
narrow for the other.

Two corrections follow Korn & Graubard (1998, *Confidence intervals for proportions with
small expected number of positive counts estimated from survey data*, Survey Methodology
24:193-201). With no hit or every hit the variance is 0 and says nothing of the design
effect: it is taken as 1, ``n_eff`` the games behind the ``M`` seat-games (the plain Wilson
interval when a group sits once a game; a team's partners, or the seats of a draw, go
alike), not wider than the interval of a single hit. And a variance estimated from ``D``
deals has ``D - 1`` degrees of freedom, so ``n_eff`` is scaled by ``(t(M - 1) / t(D - 1))**2`` (the ratio of the two
Student quantiles): a handful of deals widens the interval as a t interval would, and
thousands leave it as it was. With fewer than two deals there is no variance at all: the
interval then takes the deals as the sample (one deal: one trial).

>>> s = cluster_sums(np.array([0, 0, 1, 1, 2, 2]), np.array([1, 1, 0, 0, 1, 0]), 3)
>>> s.tolist()                     # deals 0, 1, 2: x = 2, 0, 1 of m = 2 each
[12.0, 5.0, 6.0, 3.0]
>>> var = ratio_variance(3, 6, s[1], s[2], s[0], s[3])
>>> round(var, 6), round(0.25 / 6, 6)    # twice the variance of six independent games
(0.083333, 0.041667)
>>> [round(b, 4) for b in wilson_design(3, 6, var)] == \\
...     [round(b, 4) for b in wilson_interval(1.5, 3)]
True
"""
from __future__ import annotations

import numpy as np

from .intervals import conf_z, wilson_interval


def cluster_sums(deal: np.ndarray, x: np.ndarray, n_deals: int) -> np.ndarray:
    """``[sum m_d**2, sum x_d**2, sum x_d m_d, D]`` of the games whose deal indices
    ``deal`` run over ``0 .. n_deals - 1`` (``x``: each game's value, ``m_d`` the deal's
    games); ``D`` the deals with a game."""
    m = np.bincount(deal, minlength=n_deals).astype(float)
    xs = np.bincount(deal, weights=np.asarray(x, float), minlength=n_deals)
    return np.array([m @ m, xs @ xs, xs @ m, float((m > 0).sum())])


def per_deal_squares(di: np.ndarray, n_d: int, who: np.ndarray, k: int, *values
                     ) -> tuple[np.ndarray, list]:
    """Games in clusters by groups: ``who`` (games, seats) each seat-game's group (0 ..
    ``k - 1``: a strategy, a seat), ``di`` each game's deal (0 .. ``n_d - 1``), ``values``
    arrays like ``who``. Returns per group ``[sum m_d**2, then sum x_d**2, sum x_d m_d of
    each value]`` (k, 1 + 2 len(values)), and the per-deal sums ``[m, x, ...]`` (n_d, k)."""
    deal_seat = np.repeat(di, who.shape[1]) * k + who.ravel()
    m = np.bincount(deal_seat, minlength=n_d * k).reshape(n_d, k).astype(float)
    sums = [np.bincount(deal_seat, weights=np.asarray(v, float).ravel(),
                        minlength=n_d * k).reshape(n_d, k) for v in values]
    cols = [(m * m).sum(axis=0)]
    for x in sums:
        cols += [(x * x).sum(axis=0), (x * m).sum(axis=0)]
    return np.stack(cols, axis=1), [m, *sums]


def ratio_variance(total, n, sxx, sxm, smm, deals):
    """The variance of ``total / n`` with the deals independent (module docstring), from
    the sums of :func:`cluster_sums`; NaN with fewer than two deals. Vectorised."""
    total, n, deals = (np.asarray(v, float) for v in (total, n, deals))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = total / n
        var = deals / (deals - 1) * (sxx - 2 * r * sxm + r * r * smm) / (n * n)
    var = np.where(deals >= 2, np.maximum(var, 0.0), np.nan)
    return float(var) if var.ndim == 0 else var


def wilson_design(hits, n, var, conf: float = 0.95, units=None, clusters=None, trials=None):
    """Wilson's interval for ``hits / n`` at the effective sample size of ``var`` (the
    rate's variance; module docstring), ``clusters`` the number of deals ``D`` behind it
    (``units`` when not given; neither: no degrees-of-freedom correction). Where the rate
    is 0 or 1 the sample size is ``trials`` (default ``n``): the games behind the ``n``
    trials, whose seats may go alike (a team's partners, the seats of a draw); where
    ``var`` is not finite (fewer than two deals) or 0 but for rounding while the rate is
    not, it is ``n``, or at most ``units`` when given: the number of independent units (deals) behind the ``n`` trials, which then may
    all have gone alike (the two partners of a team draw together). Vectorised like
    :func:`durak_sim.stats.wilson_interval`.

    >>> [round(float(b), 4) for b in wilson_design(0, 200, 0.0)]   # as Wilson's for 0 of 200
    [0.0, 0.0188]
    >>> [round(float(b), 4) for b in wilson_design(0, 200, 0.0, units=20)]   # in 20 deals
    [0.0, 0.0212]
    >>> [round(float(b), 4) for b in wilson_design(2, 6, 3e-33, units=1)]   # one deal
    [0.0253, 0.9058]
    """
    import scipy.stats

    hits, n, var = (np.asarray(v, float) for v in (hits, n, var))
    d = units if clusters is None else clusters
    with np.errstate(invalid="ignore", divide="ignore"):
        r = hits / n
        binom = r * (1 - r)
        # a variance that is 0 but for rounding (a bootstrap's sums of equal resamples) says
        # nothing either: no design effect divides the trials by a billion
        usable = np.isfinite(var) & (var * n * 1e9 > binom) & (binom > 0)
        edge = np.isfinite(var) & (binom == 0)         # no hit or every hit: design effect 1
        fallback = n if units is None else np.minimum(n, np.maximum(np.asarray(units, float),
                                                                    1.0))
        n_eff = np.where(usable, binom / np.where(usable, var, 1.0),
                         np.where(edge, n if trials is None else np.asarray(trials, float),
                                  fallback))
        if d is not None:
            d = np.asarray(d, float)
            q = 0.5 + 0.5 * conf
            ratio = scipy.stats.t.ppf(q, np.maximum(n - 1, 1)) / \
                scipy.stats.t.ppf(q, np.maximum(d - 1, 1))
            n_eff = np.where((usable | edge) & (d >= 2), n_eff * ratio * ratio, n_eff)
        k_eff = np.where(np.isfinite(r), r * n_eff, hits)
    return wilson_interval(k_eff, n_eff, conf)


def bounded_interval(mean, var, n, low: float, high: float, conf: float = 0.95,
                     units=None, clusters=None, trials=None):
    """The interval of a mean of ``n`` values within ``[low, high]`` (a mean place in 1..N,
    places ahead in -(N-1)..N-1): :func:`wilson_design` of the mean rescaled to 0..1, at the
    effective sample size of its variance ``var``, mapped back. It stays within the bounds,
    is about the normal interval when the sample is large, and is not of zero width when
    the values did not vary (it then takes ``n``, or ``units`` when fewer, as the sample
    size), nor undefined when the variance is (one deal: NaN).

    >>> lo, hi = bounded_interval(1.0, 0.0, 12, 1, 4)   # always first out, 12 seat-games
    >>> float(lo), round(float(hi), 4)    # 1 + 3 x Wilson's upper end for 0 of 12: 0.2425
    (1.0, 1.7275)
    """
    width = float(high - low)
    p = (np.asarray(mean, float) - low) / width
    lo, hi = wilson_design(p * np.asarray(n, float), n, np.asarray(var, float) / width ** 2,
                           conf, units, clusters, trials)
    return low + width * np.asarray(lo), low + width * np.asarray(hi)


def normal_interval(mean, var, conf: float = 0.95):
    """``mean -+ z sqrt(var)`` (NaN where ``var`` is NaN). Vectorised."""
    z = conf_z(conf)
    half = z * np.sqrt(np.asarray(var, float))
    return np.asarray(mean, float) - half, np.asarray(mean, float) + half


__all__ = ["bounded_interval", "cluster_sums", "normal_interval", "per_deal_squares", "ratio_variance",
           "wilson_design"]

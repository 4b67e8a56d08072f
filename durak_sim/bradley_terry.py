"""Bradley-Terry ratings of a two-player tournament's strategies, with deal-pair bootstrap
intervals (:func:`bradley_terry`; the report's ratings table)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.special

from .counts import GAME_SCORES, PAIR_COLUMNS, PAIR_SCORES, _example_games, _pairing_counts, \
    as_counts  # noqa: F401 - _example_games for the doctests
from .elo import ELO_PER_NAT, elo_from_score  # noqa: F401 - elo_from_score for the doctests


def _strongly_connected(i: np.ndarray, j: np.ndarray, n: np.ndarray, w: np.ndarray,
                        k: int) -> np.ndarray:
    """Ford's (1957) condition for a finite BT maximum, per row of ``w`` (R, P): the
    directed graph "x took points from y" must be strongly connected."""
    r = w.shape[0]
    reach = np.zeros((r, k, k), dtype=np.int64)
    reach[:, np.arange(k), np.arange(k)] = 1
    reach[:, i, j] |= (w > 0).astype(np.int64)
    reach[:, j, i] |= (w < n).astype(np.int64)
    for _ in range(max(1, int(np.ceil(np.log2(max(k, 2)))))):
        reach = np.minimum(reach @ reach, 1)
    return reach.all(axis=(1, 2))


def _bt_fit(i: np.ndarray, j: np.ndarray, n: np.ndarray, w: np.ndarray, k: int,
            tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from aggregated results, one fit per row.

    ``i, j`` (P,): the two players of each pairing; ``n`` (P,): games; ``w`` (R, P): points
    of ``i`` (draws count one half). Maximises the log-likelihood
    ``sum w log L(d) + (n - w) log L(-d)``, ``L`` the logistic function and
    ``d = theta_i - theta_j``, by Newton's method with step halving (where the likelihood
    would fall), vectorised over the rows, until the Newton step moves no log-strength by
    more than ``tol``: a few dozen steps even for ratings thousands of Elo apart, where
    Hunter's (2004) MM iteration needs hundreds of thousands. Rows that fail Ford's
    condition give NaN (:func:`bradley_terry`'s prior leaves only a field split into
    groups that never met)."""
    w = np.atleast_2d(np.asarray(w, dtype=float))
    n = np.asarray(n, dtype=float)
    r = w.shape[0]
    ok = _strongly_connected(i, j, n, w, k)
    out = np.full((r, k), np.nan)
    if not ok.any():
        return out
    w = w[ok]
    inc = np.zeros((len(i), k))                  # d = theta @ inc.T
    inc[np.arange(len(i)), i] = 1.0
    inc[np.arange(len(j)), j] -= 1.0
    outer = inc[:, :, None] * inc[:, None, :]    # (P, k, k)

    def loglik(theta, rows=slice(None)):
        # w log sigma(d) + (n - w) log sigma(-d): terms of one sign, no cancellation
        d = theta @ inc.T
        return -(w[rows] * np.logaddexp(0.0, -d) + (n - w[rows]) * np.logaddexp(0.0, d)).sum(axis=1)

    theta = np.zeros((w.shape[0], k))
    ll = loglik(theta)
    for _ in range(max_iter):
        d = theta @ inc.T
        p = scipy.special.expit(d)
        # w - n p, written so that no two large numbers cancel when p is near 0 or 1
        grad = np.where(d > 0, n * scipy.special.expit(-d) - (n - w), w - n * p) @ inc
        # minus the Hessian: a weighted graph Laplacian (null space: the constant vector,
        # removed by adding 1 1^T, which keeps every step at mean 0)
        hess = np.einsum("rp,pkl->rkl", n * p * (1.0 - p), outer) + 1.0
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        if np.abs(step).max() < tol:           # the likelihood no longer resolves a step
            theta = theta + step
            break
        t = np.ones(len(theta))
        new = theta + step
        new_ll = loglik(new)
        for _ in range(60):
            worse = new_ll < ll - 1e-10 * np.abs(ll)     # clearly worse, not rounding
            if not worse.any():
                break
            t[worse] *= 0.5
            new[worse] = theta[worse] + t[worse, None] * step[worse]
            new_ll[worse] = loglik(new[worse], worse)
        theta, ll = new, new_ll
    else:  # pragma: no cover - Newton converges quadratically once near the maximum
        raise RuntimeError("Bradley-Terry fit did not converge")
    out[ok] = ELO_PER_NAT * (theta - theta.mean(axis=1, keepdims=True))
    return out


def bradley_terry(games, n_boot: int = 1000, seed: int = 0,
                  conf: float = 0.95) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale with deal-pair bootstrap intervals.

    Model: strategy ``x`` scores against ``y`` with expectation
    ``pi_x / (pi_x + pi_y)``; a draw counts as half a win for each side (the plain BT
    likelihood on points, not the Davidson / Rao-Kupper draw model), so for two strategies
    the rating gap equals :func:`elo_from_score` of the score. Maximum likelihood by
    Newton's method (:func:`_bt_fit`; the same maximum as Hunter's MM algorithm, Hunter
    2004, Ann. Stat. 32:384, in far fewer steps). ``rating = 400 log10 pi``
    anchored so that the ratings average 0: only differences mean anything, and an interval
    is the uncertainty relative to the field average.

    Prior, only where the maximum is not finite (Ford 1957: a pairing that one side won
    outright, say): every pairing that played then gets one virtual drawn game (half a
    point each side) on top of its games, in the fit and in every resample, and finite
    ratings: for two strategies and ``n`` games the gap is ``400 log10(2n + 1)``
    (:func:`elo_limit` of ``n / 2`` pairs), the Elo of the score ``(n + 1/2) / (n + 1)``.
    Elsewhere it is left out, as it would move a pairing's score by ``(1/2 - s) / (n + 1)``:
    a third of the estimate's standard error for a pairing of 300 deal pairs at a score of
    0.99, which made the intervals miss the ratings of a 100,000-deal run in 7.5% of 400
    runs instead of 5% (benchmarks/RESULTS.md). A resample with no finite maximum takes the
    prior's bound. A field that splits into groups that never played each other has no
    relative ratings: ``ValueError``.

    Interval: percentile bootstrap (Efron) with ``n_boot`` resamples, seeded
    ``numpy.random.default_rng(seed)``. The resampled unit is the complete deal pair,
    independently within each pairing; a game without its twin is resampled on its own.
    A pairing that one side won outright is resampled with the virtual drawn game among its
    counts (half a pair in p2; a smoothed bootstrap), so that its interval has a width: its
    upper end is the sweep's rating, its lower end reflects how few drawn pairs the data
    rule out.
    Resampling pairs changes a pairing's result only through its points total, so each
    resample draws multinomial counts over the pentanomial (and L/D/W for unpaired games)
    categories and refits BT on the aggregated totals: the cost does not grow with the
    number of games. Mirror games are ignored. Columns ``strategy, rating, lo, hi, games``
    (games played, without the virtual ones); rows by rating, highest first, ties by name.

    >>> bt = bradley_terry(_example_games(), n_boot=200, seed=1)
    >>> bt[["strategy", "games"]].values.tolist()
    [['easy', 4], ['random', 4]]
    >>> gap = float(bt["rating"][0] - bt["rating"][1])     # easy scored 2.5 of 4 points
    >>> round(gap, 2) == round(elo_from_score(2.5 / 4), 2)
    True
    """
    from .errors import UserError
    from .intervals import conf_z

    conf_z(conf)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise UserError(f"n_boot must be a whole number of resamples >= 0, got {n_boot!r}")
    c = as_counts(games, None, PAIR_COLUMNS)
    names = c.names
    pa, pb, tri_all, pent, tri_paired = _pairing_counts(c)
    ranks = {name: i for i, name in enumerate(names)}
    k = len(names)
    if k < 2 or len(pa) == 0:
        raise ValueError("Bradley-Terry needs games between at least two strategies")
    i = np.array([ranks[x] for x in pa], dtype=np.int64)
    j = np.array([ranks[x] for x in pb], dtype=np.int64)
    single = tri_all - tri_paired                      # unpaired games, L/D/W for A
    n = 2 * pent.sum(axis=1) + single.sum(axis=1)
    pair_points = 2.0 * PAIR_SCORES                    # A's points in a pair of category i
    w = pent @ pair_points + single @ GAME_SCORES
    rating = _bt_fit(i, j, n, w[None, :], k)[0]
    prior = bool(np.isnan(rating).any())               # no finite maximum (Ford 1957)
    if prior:                                          # one virtual drawn game per pairing
        rating = _bt_fit(i, j, n + 1.0, w[None, :] + 0.5, k)[0]
    if np.isnan(rating).any():
        raise ValueError("no Bradley-Terry ratings: the strategies fall into groups that "
                         "never played each other")
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    if n_boot > 0:
        rng = np.random.default_rng(seed)
        w_boot = np.zeros((n_boot, len(pa)))
        for p in range(len(pa)):
            # a pairing one side won outright is resampled with the virtual drawn game in
            # its counts, so that its resamples vary (else every one would be that sweep)
            smooth = [pent[p].astype(float), single[p].astype(float)]
            if w[p] in (0, n[p]):
                if pent[p].any():
                    smooth[0][2] += 0.5
                else:
                    smooth[1][1] += 1.0
            for counts, prob, points in ((pent[p], smooth[0], pair_points),
                                         (single[p], smooth[1], GAME_SCORES)):
                total = int(counts.sum())
                if total:
                    draws = rng.multinomial(total, prob / prob.sum(), size=n_boot)
                    w_boot[:, p] += draws @ points
        boot = _bt_fit(i, j, n + prior, w_boot + 0.5 * prior, k)
        swept = np.isnan(boot).any(axis=1)   # a resample with no finite maximum: the bound
        if swept.any():
            boot[swept] = _bt_fit(i, j, n + 1.0, w_boot[swept] + 0.5, k)
        lo, hi = np.quantile(boot, [0.5 - 0.5 * conf, 0.5 + 0.5 * conf], axis=0)
    games_per = np.zeros(k, dtype=np.int64)
    np.add.at(games_per, i, n)
    np.add.at(games_per, j, n)
    frame = pd.DataFrame({"strategy": pd.Series(names, dtype=object), "rating": rating,
                          "lo": lo, "hi": hi, "games": games_per})
    idx = np.lexsort((np.arange(k), -rating))          # names are already sorted
    return frame.iloc[idx].reset_index(drop=True)

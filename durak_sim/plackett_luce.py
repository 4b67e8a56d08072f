"""The Plackett-Luce model of places: maximum-likelihood strengths by Newton's method.

**Plackett-Luce** (Luce 1959, Plackett 1975): strategy ``x`` has a strength
``pi_x = exp(theta_x)``; of the seats still in a game, the one that goes out next is seat
``s`` with probability ``pi_x(s) / sum of pi over the seats still in``. A game's places are
read as such choices, first out first, until a tie (the seats of a draw, or of the losing
team, share the last place: no order among them is told). A strategy twice at a table is
two seats of one strength: it counts twice in the sum. The log-likelihood of choices won
``W_x`` and choices made ``n_S`` from each multiset ``S`` (``m_Sx`` seats of ``x``) is
``sum_x W_x theta_x - sum_S n_S log(sum_x m_Sx exp(theta_x))``, concave; it is maximised by
Newton's method. At two players this is Bradley-Terry.

:mod:`durak_sim.place_stats` reads a tournament's places as such choices, adds its prior
and bootstraps the fits for intervals.

>>> import numpy as np
>>> sets = [(1, 1)]                                 # two strategies, one table of two
>>> theta = plackett_luce(np.array([[3.5, 1.5]]), np.array([[5.0]]), sets)[0]
>>> round(float(elo_of(theta)[0] - elo_of(theta)[1]), 2)   # = 400 log10(3.5 / 1.5)
147.19
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from .stats import ELO_PER_NAT


def elo_of(theta: np.ndarray) -> np.ndarray:
    """Log-strengths as ratings on the Elo scale, mean 0."""
    theta = np.asarray(theta, dtype=float)
    return ELO_PER_NAT * (theta - theta.mean(axis=-1, keepdims=True))


def _pl_parts(theta, w, n, m, want_hess: bool):
    """Log-likelihood, gradient and (``want_hess``) minus the Hessian, per row."""
    top = theta.max(axis=1, keepdims=True)
    e = np.exp(theta - top)                                    # (R, K)
    den = e @ m.T                                              # (R, S)
    ll = (w * theta).sum(axis=1) - (n * (np.log(den) + top)).sum(axis=1)
    if not want_hess:
        return ll, None, None
    q = m[None, :, :] * e[:, None, :] / den[:, :, None]        # (R, S, K): share of each
    nq = n[:, :, None] * q
    expected = nq.sum(axis=1)
    hess = np.einsum("rk,kl->rkl", expected, np.eye(theta.shape[1])) \
        - np.einsum("rsk,rsl->rkl", nq, q)
    return ll, w - expected, hess


def plackett_luce(wins: np.ndarray, set_n: np.ndarray, sets: Sequence[Sequence[int]],
                  tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    """Maximum-likelihood log-strengths (mean 0) of Plackett-Luce choices, one fit per row:
    ``wins`` (R, K) choices won per strategy, ``set_n`` (R, S) choices made from each
    multiset of ``sets`` (S count vectors over the K strategies). Newton's method with step
    halving where the likelihood would fall, vectorised over the rows, until no step moves
    a log-strength by more than ``tol``. The data must have a finite maximum (every
    strategy won and lost a choice against the others: the prior of
    :func:`durak_sim.place_stats.pl_ratings` sees to it)."""
    w = np.atleast_2d(np.asarray(wins, dtype=float))
    n = np.atleast_2d(np.asarray(set_n, dtype=float))
    m = np.asarray(sets, dtype=float).reshape(len(sets), -1)
    k = w.shape[1]
    theta = np.zeros_like(w)
    ll, _, _ = _pl_parts(theta, w, n, m, False)
    for _ in range(max_iter):
        _, grad, hess = _pl_parts(theta, w, n, m, True)
        # the gradient sums to 0 (every choice has one winner); its rounding does not, and
        # with millions of choices that alone would move the constant direction by more
        # than tol at every step
        grad -= grad.mean(axis=1, keepdims=True)
        # minus the Hessian is singular along the constant vector: adding 1 1^T keeps
        # every step at mean 0
        step = np.linalg.solve(hess + 1.0, grad[:, :, None])[:, :, 0]
        if np.abs(step).max() < tol:
            return theta + step
        t = np.ones(len(theta))
        new = theta + step
        new_ll, _, _ = _pl_parts(new, w, n, m, False)
        for _ in range(60):
            worse = new_ll < ll - 1e-10 * np.abs(ll)
            if not worse.any():
                break
            t[worse] *= 0.5
            new[worse] = theta[worse] + t[worse, None] * step[worse]
            new_ll[worse] = _pl_parts(new[worse], w[worse], n[worse], m, False)[0]
        theta, ll = new, new_ll
    raise RuntimeError(f"Plackett-Luce fit did not converge in {max_iter} steps of {k}")


def place_probabilities(theta: Sequence[float]) -> np.ndarray:
    """``P[s, p]``: the model's chance that seat ``s`` (log-strength ``theta[s]``) finishes
    in place ``p + 1``, every place told (no ties): the sum over the orders of going out
    (at most 720, for six seats) of their Plackett-Luce probabilities.

    >>> P = place_probabilities([np.log(3.0), 0.0])       # two seats: Bradley-Terry
    >>> P.round(3).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    >>> P = place_probabilities([0.0, 0.0, 0.0])          # equal strengths: every place 1/3
    >>> bool(np.allclose(P, 1 / 3))
    True
    """
    th = np.asarray(theta, dtype=float)
    w = np.exp(th - th.max())
    n = len(w)
    out = np.zeros((n, n))
    for order in itertools.permutations(range(n)):
        p, left = 1.0, w.sum()
        for s in order[:-1]:
            p *= w[s] / left
            left -= w[s]
        out[list(order), np.arange(n)] += p
    return out

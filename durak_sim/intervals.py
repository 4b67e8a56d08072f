"""Wilson's score interval for a binomial proportion: the one interval every other module
builds on (:mod:`durak_sim.stats` re-exports it; :mod:`durak_sim.clustered` widens it for
games that come in clusters)."""
from __future__ import annotations

import numpy as np
import scipy.special


def _scalar_or_array(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def conf_z(conf) -> float:
    """The normal quantile ``z`` of a two-sided level ``conf``, which must lie strictly
    between 0 and 1 (``UserError`` otherwise: a level of 2 gave intervals of NaN).

    >>> round(conf_z(0.95), 4)
    1.96
    >>> conf_z(2)
    Traceback (most recent call last):
    durak_sim.errors.UserError: conf is a confidence level strictly between 0 and 1, got 2
    """
    from .errors import UserError

    if isinstance(conf, bool) or not isinstance(conf, (int, float, np.integer, np.floating)) \
            or not 0 < conf < 1:
        raise UserError(f"conf is a confidence level strictly between 0 and 1, got {conf!r}")
    return float(scipy.special.ndtri(0.5 + 0.5 * conf))


def wilson_interval(k, n, conf: float = 0.95):
    """Wilson score interval for a binomial proportion ``k / n`` (Wilson 1927, JASA 22:209).

    ``centre = (k + z²/2) / (n + z²)``, ``half = z / (n + z²) * sqrt(k (n - k) / n + z²/4)``
    with ``z`` the ``(1 + conf) / 2`` normal quantile; the bounds are exactly 0 at ``k = 0``
    and 1 at ``k = n``, like ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    (which it equals). Vectorised: ``k`` and ``n`` broadcast as numpy arrays; ``n = 0`` gives
    NaN bounds.

    >>> lo, hi = wilson_interval(3, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.1078, 0.6032)
    >>> lo, hi = wilson_interval(np.array([0, 5]), np.array([5, 5]))
    >>> lo.round(4).tolist(), hi.round(4).tolist()
    ([0.0, 0.5655], [0.4345, 1.0])
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = conf_z(conf)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 2.0 * (n + z * z)
        centre = (2.0 * n * p + z * z) / denom
        half = z / denom * np.sqrt(4.0 * n * p * (1.0 - p) + z * z)
        lo = np.where(k == 0, 0.0, centre - half)
        hi = np.where(k == n, 1.0, centre + half)
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return _scalar_or_array(lo), _scalar_or_array(hi)

"""The logistic Elo scale: a score as an Elo difference and back, and the constants of
normalized Elo (:mod:`durak_sim.stats`, :mod:`durak_sim.sprt`)."""
import numpy as np
import scipy.special

from .intervals import _scalar_or_array

ELO_PER_NAT = 400.0 / np.log(10.0)   # elo = ELO_PER_NAT * logit(score)
NELO_PER_T = 800.0 / np.log(10.0)    # normalized Elo per unit of (score - 1/2) / sigma_game


def share_edge(meetings) -> float:
    """How far from 0 and 1 :func:`elo_of_share` holds a share of ``meetings``:
    ``1 / (4 m + 2)``, whose Elo is the bound ``400 log10(4 m + 1)`` (as a two-player
    sweep's paired Elo)."""
    return 1 / (4 * meetings + 2)


def elo_of_share(share, meetings) -> float:
    """The Elo difference of a share of ``meetings`` won (ties half), a share of 0 or 1
    held at :func:`share_edge` so that it is finite (a bound).

    >>> round(elo_of_share(0.75, 100), 2), round(elo_of_share(1.0, 100), 1)
    (190.85, 1041.3)
    """
    edge = share_edge(meetings)
    return float(elo_from_score(np.clip(share, edge, 1 - edge)))


def score_from_elo(e):
    """Expected score of a player ``e`` logistic Elo stronger: ``1 / (1 + 10**(-e / 400))``.

    Vectorised over numpy arrays (fishtest ``stat_util.L``).

    >>> round(score_from_elo(100.0), 4)
    0.6401
    >>> score_from_elo(np.array([-np.inf, 0.0, np.inf])).tolist()
    [0.0, 0.5, 1.0]
    """
    return _scalar_or_array(scipy.special.expit(np.asarray(e, dtype=float) / ELO_PER_NAT))


def elo_from_score(s):
    """Logistic Elo difference of an expected score ``s``: ``-400 log10(1/s - 1)``.

    Inverse of :func:`score_from_elo`; ``s = 0`` and ``s = 1`` give ``-inf`` and ``inf``
    (fishtest ``stat_util.elo``, without its clamp to [0.001, 0.999]).

    >>> round(elo_from_score(0.75), 2)
    190.85
    >>> elo_from_score(np.array([0.0, 0.5, 1.0])).tolist()
    [-inf, 0.0, inf]
    """
    with np.errstate(divide="ignore"):
        return _scalar_or_array(ELO_PER_NAT * scipy.special.logit(np.asarray(s, dtype=float)))

"""Sequential probability ratio test on deal pairs (pentanomial GSPRT, as in fishtest).

Two strategies play duplicate deal pairs; each pair scores 0, .25, .5, .75 or 1 for the
candidate (counts ``p0 .. p4``, see :mod:`durak_sim.stats`). :class:`SPRT` tests

* H0: the candidate is ``elo0`` stronger, against
* H1: it is ``elo1`` stronger,

with error rates ``alpha`` (accept H1 when H0 holds) and ``beta`` (accept H0 when H1
holds). Feed it pentanomial counts as chunks arrive; it stops at the first update whose
log-likelihood ratio leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` (Wald
1945). The LLR is the *generalized* one of fishtest (Van den Bergh, "A generalized SPRT",
cantate.be/Fishtest; fishtest ``server/fishtest/stats/LLRcalc.py``): no model of the pair
distribution is assumed; under each hypothesis the pentanomial probabilities are the
maximum-likelihood ones that satisfy it, and

    LLR = N * sum_i phat_i * log(p1_i / p0_i).

``model="logistic"``: the hypotheses fix the expected pair score ``s = 1 / (1 +
10**(-elo / 400))``; the constrained maximum is the empirical-likelihood tilt
``p_i = phat_i / (1 + x (a_i - s))`` with ``x`` the root of
``sum_i phat_i (a_i - s) / (1 + x (a_i - s)) = 0`` (Owen 2001, "Empirical likelihood", ch. 2;
Van den Bergh, "support_MLE_multinomial", Prop. 1.1).

``model="normalized"``: ``elo0``/``elo1`` are normalized Elo (Van den Bergh, "Normalized
Elo", cantate.be/Fishtest; fishtest ``LLR_normalized``), which fix the t-value
``(s - 1/2) / sigma_pair = sqrt(2) * nelo / (800 / ln 10)``; its constrained maximum is found
by the fixed-point iteration of that note (section 4.1), each step an empirical-likelihood
tilt like the one above.

Empty cells are replaced by 1e-3 pairs (fishtest ``LLRcalc.regularize``), which keeps every
log finite. An update after the test stopped raises: the decision belongs to the data it
was made on.

At the stop, :meth:`SPRT.estimate` gives the Elo estimate fishtest reports for finished
SPRTs (fishtest ``server/fishtest/stats/sprt.py``, ``sprt.analytics``): the plain maximum
likelihood estimate is biased after an SPRT (a test that stops early for H1 did so because
it ran hot), so it is replaced by the *median-unbiased* estimate of Siegmund (1978, Biometrika
65:341, "Estimation following sequential tests"): the LLR path is approximated by a Brownian
motion whose drift depends on the true score, outcomes are ordered (an earlier H0 is worse
than a later H0, which is worse than any continuation, which is worse than a later H1,
which is worse than an earlier H1), and the estimate is the Elo at which the observed
outcome is the median of that ordering; the ``conf`` interval takes the ``(1 -+ conf) / 2``
points instead. See :meth:`SPRT.estimate` for the exact model.

>>> sprt = SPRT(elo0=0, elo1=10)
>>> sprt.update([20, 60, 150, 70, 30])
'continue'
>>> round(sprt.llr, 3), [round(b, 3) for b in sprt.bounds]
(1.185, [-2.944, 2.944])
>>> sprt.update([40, 120, 300, 140, 60])
'H1'
>>> est = sprt.estimate()
>>> round(est.naive_elo, 1), round(est.elo, 1), (round(est.lo, 1), round(est.hi, 1))
(15.8, 14.1, (1.7, 26.4))
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import scipy.optimize
import scipy.special

from durak_sim.stats import NELO_PER_T, PAIR_SCORES, elo_from_score, score_from_elo

REGULARIZE = 1e-3   # pairs put into an empty pentanomial cell (fishtest LLRcalc.regularize)
STATUSES = ("H0", "H1", "continue")
#: the hypotheses' Elo lie within +-MAX_ELO (a score of 1 - 1e-5 at 2,000: far past any test)
MAX_ELO = 2000.0


# --------------------------------------------------------------------------------------
# Constrained maximum likelihood and the LLR
# --------------------------------------------------------------------------------------
def _counts(pentanomial) -> np.ndarray:
    c = np.asarray(pentanomial, dtype=float)
    if c.shape != (5,):
        raise ValueError(f"need 5 pentanomial counts p0..p4, got shape {c.shape}")
    if (c < 0).any() or not np.isfinite(c).all():
        raise ValueError(f"pentanomial counts must be finite and >= 0, got {c.tolist()}")
    return c


def _empirical(pentanomial) -> tuple[float, np.ndarray]:
    """``(N, phat)`` after regularization: N counts the added 1e-3 pairs, like fishtest."""
    c = _counts(pentanomial)
    c = np.where(c == 0, REGULARIZE, c)
    n = float(c.sum())
    return n, c / n


def _tilt(phat: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The distribution ``phat_i / (1 + x c_i)`` with ``sum_i phat_i c_i / (1 + x c_i) = 0``.

    This maximises ``sum phat_i log p_i`` over distributions with ``sum p_i c_i = 0`` (the
    empirical-likelihood dual; Owen 2001). ``c`` must take both signs. The root is bracketed
    between the poles ``-1 / max c`` and ``-1 / min c``, where the function is decreasing
    from +inf to -inf."""
    if not (c.min() < 0 < c.max()):
        raise ValueError("constraint unattainable on the pentanomial support")

    def f(x):
        return float(np.dot(phat, c / (1.0 + x * c)))

    lo_pole, hi_pole = -1.0 / c.max(), -1.0 / c.min()
    width = hi_pole - lo_pole
    for eps in (1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 0.0):
        lo = lo_pole + eps * width
        if eps == 0.0 or f(lo) > 0:
            break
    for eps in (1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 0.0):
        hi = hi_pole - eps * width
        if eps == 0.0 or f(hi) < 0:
            break
    x = scipy.optimize.brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    p = phat / (1.0 + x * c)
    return p / p.sum()


def mle_given_score(pentanomial, s: float) -> np.ndarray:
    """Maximum-likelihood pentanomial probabilities with expected pair score ``s``.

    Van den Bergh, "support_MLE_multinomial" Prop. 1.1 (fishtest ``LLRcalc.MLE_expected``).

    >>> mle_given_score([10, 20, 40, 20, 10], 0.5).round(3).tolist()
    [0.1, 0.2, 0.4, 0.2, 0.1]
    >>> round(float(mle_given_score([10, 20, 40, 20, 10], 0.6) @ PAIR_SCORES), 12)
    0.6
    """
    _, phat = _empirical(pentanomial)
    return _tilt(phat, PAIR_SCORES - s)


def _t_value(p: np.ndarray, ref: float) -> float:
    mu = p @ PAIR_SCORES
    return float((mu - ref) / np.sqrt(p @ (PAIR_SCORES - mu) ** 2))


def _t_fixed_point(phat: np.ndarray, p: np.ndarray, t: float, ref: float, tol: float,
                   max_iter: int = 100) -> np.ndarray | None:
    """Iterate ``p <- tilt of phat along c(mu_p, sigma_p)`` to a fixed point, or None."""
    for _ in range(max_iter):
        mu = p @ PAIR_SCORES
        sigma = np.sqrt(p @ (PAIR_SCORES - mu) ** 2)
        c = PAIR_SCORES - ref - t * sigma * (1.0 + ((PAIR_SCORES - mu) / sigma) ** 2) / 2.0
        try:
            new = _tilt(phat, c)
        except ValueError:
            return None
        if not np.isfinite(new).all():
            return None
        if np.abs(new - p).max() < tol:
            return new
        p = new
    return None


def mle_given_t(pentanomial, t: float, ref: float = 0.5, tol: float = 1e-13) -> np.ndarray:
    """Maximum-likelihood pentanomial probabilities with ``(mu - ref) / sigma = t``.

    ``mu`` and ``sigma`` are the mean and standard deviation of the pair score. The Lagrange
    condition (Van den Bergh, "Normalized Elo", section 4.1; fishtest
    ``LLRcalc.MLE_t_value``) says the maximum is the tilt of ``phat`` along
    ``c_i = a_i - ref - t sigma (1 + ((a_i - mu) / sigma)^2) / 2`` with its own ``mu, sigma``:
    a fixed point. fishtest iterates it from the uniform distribution; that can fail far
    from the data, so here it is followed by continuation from the empirical distribution
    (the maximum at its own t-value) towards ``t``, halving the step whenever the iteration
    does not settle.

    >>> p = mle_given_t([10, 20, 40, 20, 10], 0.2)
    >>> round(_t_value(p, 0.5), 12)
    0.2
    """
    _, phat = _empirical(pentanomial)
    p, t_now = phat, _t_value(phat, ref)
    step = t - t_now
    for _ in range(_MAX_STEPS):
        if t_now == t:
            return p
        target = t if abs(t - t_now) <= abs(step) else t_now + step
        q = _t_fixed_point(phat, p, target, ref, tol)
        if q is None:
            step /= 2.0
            if abs(step) < 1e-12:
                break
            continue
        p, t_now = q, target
        step *= 2.0
    # the fixed point stopped settling on the way (it can stall, creeping by tiny steps):
    # maximise the likelihood under the constraint directly, from the last point reached
    return _mle_given_t_direct(phat, p, t, ref)


#: continuation steps of :func:`mle_given_t` before it maximises directly
_MAX_STEPS = 100


def _mle_given_t_direct(phat: np.ndarray, last: np.ndarray, t: float, ref: float):
    """``mle_given_t`` by constrained maximisation (SLSQP over log-probabilities, so every
    probability stays positive), for where the fixed point does not settle: from the
    empirical distribution, the uniform one and the last point of the continuation, the
    most likely answer that meets the constraint."""
    def probs(y):
        e = np.exp(y - y.max())
        return e / e.sum()

    def constraint(y):
        q = probs(y)
        mu = q @ PAIR_SCORES
        return (mu - ref) - t * np.sqrt(q @ (PAIR_SCORES - mu) ** 2)

    best, best_ll = None, -np.inf
    for start in (phat, np.full(len(phat), 1.0 / len(phat)), last):
        res = scipy.optimize.minimize(lambda y: -float(phat @ np.log(probs(y))), np.log(start),
                                      method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
                                      constraints=[{"type": "eq", "fun": constraint}])
        q = probs(res.x)
        if res.success and abs(_t_value(q, ref) - t) <= 1e-9 and -res.fun > best_ll:
            best, best_ll = q, -res.fun
    if best is None:
        raise RuntimeError(f"normalized-Elo MLE did not converge for t={t}")
    return best


def llr_logistic(pentanomial, elo0: float, elo1: float) -> float:
    """Generalized LLR of "score = L(elo1)" against "score = L(elo0)" (logistic Elo).

    fishtest ``LLRcalc.LLR_logistic``; 0 when no pair has been played.

    >>> round(llr_logistic([223, 9863, 21279, 10037, 246], 0.5, 2.5), 2)
    -3.07
    """
    if _counts(pentanomial).sum() == 0:
        return 0.0
    n, phat = _empirical(pentanomial)
    p0, p1 = (_tilt(phat, PAIR_SCORES - score_from_elo(e)) for e in (elo0, elo1))
    return float(n * np.dot(phat, np.log(p1) - np.log(p0)))


def llr_normalized(pentanomial, nelo0: float, nelo1: float) -> float:
    """Generalized LLR of "normalized Elo = nelo1" against "= nelo0".

    Normalized Elo per game fixes the pair t-value ``sqrt(2) * nelo / (800 / ln 10)``
    (fishtest ``LLRcalc.LLR_normalized``); 0 when no pair has been played.

    >>> round(llr_normalized([365, 16618, 36229, 16974, 390], 0, 2), 2)
    2.25
    """
    if _counts(pentanomial).sum() == 0:
        return 0.0
    n, phat = _empirical(pentanomial)
    p0, p1 = (mle_given_t(pentanomial, np.sqrt(2.0) * e / NELO_PER_T) for e in (nelo0, nelo1))
    return float(n * np.dot(phat, np.log(p1) - np.log(p0)))


# --------------------------------------------------------------------------------------
# Brownian motion between two absorbing barriers
# --------------------------------------------------------------------------------------
def _log_norm_interval(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``log(Phi(hi) - Phi(lo))`` without cancellation in either tail (``lo <= hi``)."""
    log_ndtr = scipy.special.log_ndtr
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = log_ndtr(-lo) + np.log1p(-np.exp(log_ndtr(-hi) - log_ndtr(-lo)))
        lower = log_ndtr(hi) + np.log1p(-np.exp(log_ndtr(lo) - log_ndtr(hi)))
        middle = np.log(scipy.special.ndtr(hi) - scipy.special.ndtr(lo))
    return np.where(lo > 0, upper, np.where(hi < 0, lower, middle))


def _images(mu: float, sigma2: float, t: float, a: float, b: float) -> np.ndarray:
    """Offsets ``2 j (b - a)``, ``j = 0 .. J``, far enough that dropped terms are < 1e-30."""
    reach = abs(mu) * t + 12.0 * np.sqrt(sigma2 * t) + (b - a)
    return 2.0 * (b - a) * np.arange(int(np.ceil(reach / (2.0 * (b - a)))) + 2)


def _first_passage(level: float, dist: np.ndarray, mu: float, sigma2: float,
                   t: float) -> np.ndarray:
    """``P(the path covers unfolded distance dist by time t, ending at level)``.

    Driftless, the time to cover a distance ``D`` has the first-passage density of level
    ``D``; Girsanov's weight at that time is ``exp(g level - mu^2 tau / (2 sigma^2))``,
    ``g = mu / sigma^2``; integrating gives
    ``exp(g (level - D)) Phi((mu t - D) / s) + exp(g (level + D)) Phi(-(mu t + D) / s)``,
    ``s = sigma sqrt(t)``. Evaluated in logs: every term is a probability."""
    g = mu / sigma2
    s = np.sqrt(sigma2 * t)
    log_ndtr = scipy.special.log_ndtr
    return (np.exp(g * (level - dist) + log_ndtr((mu * t - dist) / s))
            + np.exp(g * (level + dist) + log_ndtr(-(mu * t + dist) / s)))


def exit_probability(level: str, mu: float, sigma2: float, t: float, a: float,
                     b: float) -> float:
    """P(Brownian motion from 0, drift ``mu``, variance ``sigma2`` per unit time, leaves
    ``(a, b)`` through ``level`` ("a" or "b") by time ``t``).

    Inclusion-exclusion over the orders in which the barriers are touched (method of
    images; Anderson 1960, Ann. Math. Stat. 31:165): exit through ``b`` = touch b, minus
    touch a then b, plus b-a-b, minus a-b-a-b, ...; the unfolded distances are
    ``b + 2jA`` (b, b-a-b, ...) and ``b - 2a + 2jA`` (a-b, a-b-a-b, ...), ``A = b - a``,
    each term by :func:`_first_passage` (mirrored for ``a``).

    >>> round(exit_probability("b", 0.0, 1.0, 1e6, -1.0, 1.0), 6)   # symmetric, certain exit
    0.5
    """
    if t <= 0:
        return 0.0
    offsets = _images(mu, sigma2, t, a, b)
    if level == "b":
        near, far = b + offsets, b - 2.0 * a + offsets
        end = b
    elif level == "a":
        near, far = -a + offsets, 2.0 * b - a + offsets
        end = a
    else:
        raise ValueError(f"level must be 'a' or 'b', got {level!r}")
    terms = _first_passage(end, near, mu, sigma2, t) - _first_passage(end, far, mu, sigma2, t)
    return float(np.clip(terms.sum(), 0.0, 1.0))


def alive_above(y: float, mu: float, sigma2: float, t: float, a: float, b: float) -> float:
    """P(the path has left neither barrier by ``t`` and ends above ``y``), ``a <= y <= b``.

    Killed density by images (Cox & Miller 1965, ch. 5): ``sum_k exp(2kA g) phi(w - 2kA - mu t)
    - exp(g (2b + 2kA)) phi(w - 2b - 2kA - mu t)`` over all integers ``k``, integrated over
    ``(y, b)`` in logs.

    >>> round(alive_above(-1.0, 0.0, 1.0, 1e-4, -1.0, 1.0), 6)   # too early to have left
    1.0
    """
    if t <= 0:
        return 1.0 if y < 0 else 0.0
    offsets = _images(mu, sigma2, t, a, b)
    k2a = np.concatenate([-offsets[:0:-1], offsets])             # 2kA for k = -J .. J
    g = mu / sigma2
    s = np.sqrt(sigma2 * t)
    total = 0.0
    for sign, centre, weight in ((1.0, k2a, g * k2a), (-1.0, 2.0 * b + k2a, g * (2.0 * b + k2a))):
        lo = (y - centre - mu * t) / s
        hi = (b - centre - mu * t) / s
        total += sign * np.exp(weight + _log_norm_interval(lo, hi)).sum()
    return float(np.clip(total, 0.0, 1.0))


def prob_right_of(t: float, y: float, mu: float, sigma2: float, a: float, b: float) -> float:
    """P(a path does at least as well as one observed at ``(t, y)``) in the stopping order.

    Order of outcomes (Siegmund 1978): exits through ``a`` at time ``u`` (later is better),
    then paths still inside, by their position, then exits through ``b`` (earlier is
    better). For an observation ``y = b`` at ``t`` this is P(exit at b by t); for ``y = a``,
    1 - P(exit at a before t); inside, P(exit at b by t) + P(inside at t and above y).
    Increasing in ``mu`` (pathwise coupling), so it can be inverted in the drift.

    >>> round(prob_right_of(1.0, 0.0, 0.0, 1e-6, -1.0, 1.0), 6)   # no time to move: a coin
    0.5
    """
    if y >= b:
        return exit_probability("b", mu, sigma2, t, a, b)
    if y <= a:
        return 1.0 - exit_probability("a", mu, sigma2, t, a, b)
    return min(1.0, exit_probability("b", mu, sigma2, t, a, b)
               + alive_above(y, mu, sigma2, t, a, b))


# --------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SPRTEstimate:
    """Elo estimate after (or during) an SPRT; see :meth:`SPRT.estimate`.

    ``elo, lo, hi``: median-unbiased logistic Elo and its ``conf`` interval; ``nelo,
    nelo_lo, nelo_hi``: the same in normalized Elo (using the observed pair sigma);
    ``los``: probability, at Elo 0, of an outcome no better than the observed one
    (fishtest's LOS); ``naive_elo``: plain maximum likelihood, biased after a stop."""
    status: str
    pairs: int
    llr: float
    elo: float
    lo: float
    hi: float
    conf: float
    nelo: float
    nelo_lo: float
    nelo_hi: float
    los: float
    naive_elo: float

    def as_dict(self) -> dict:
        return asdict(self)


class SPRT:
    """Pentanomial generalized SPRT of H0 ``elo = elo0`` against H1 ``elo = elo1``.

    ``model``: ``"logistic"`` (bounds in logistic Elo) or ``"normalized"`` (in normalized
    Elo, Van den Bergh); ``alpha``/``beta``: type I/II error rates. Call :meth:`update` with
    each new chunk of pentanomial counts ``[p0, p1, p2, p3, p4]``; :attr:`llr` is the
    generalized LLR of all pairs so far, :attr:`bounds` the Wald bounds
    ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``. The test stops at the first
    update whose LLR reaches a bound: below → "H0", above → "H1". Checking only at updates
    lets the LLR overshoot a bound, which makes the test slightly conservative.

    >>> sprt = SPRT(elo0=0, elo1=5, model="logistic")
    >>> sprt.status(), sprt.bounds == (np.log(0.05 / 0.95), np.log(0.95 / 0.05))
    ('continue', True)
    >>> sprt.update([0, 0, 10, 0, 0])
    'continue'
    """

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 model: str = "logistic"):
        if model not in ("logistic", "normalized"):
            raise ValueError(f"model must be 'logistic' or 'normalized', got {model!r}")
        if not elo0 < elo1:   # (nan compares false: it is no bound either)
            raise ValueError(f"need finite elo0 < elo1, got {elo0}, {elo1}")
        if not -MAX_ELO <= elo0 < elo1 <= MAX_ELO:
            # past it a score is 0 or 1 in floating point: no distribution has that mean
            raise ValueError(f"elo0 and elo1 must lie within -{MAX_ELO:g}..{MAX_ELO:g}, got "
                             f"{elo0}, {elo1}")
        if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")
        self.elo0, self.elo1 = float(elo0), float(elo1)
        self.alpha, self.beta = float(alpha), float(beta)
        self.model = model
        self.lower = float(np.log(beta / (1.0 - alpha)))
        self.upper = float(np.log((1.0 - beta) / alpha))
        self._counts = np.zeros(5, dtype=np.int64)
        self._llr = 0.0
        self._status = "continue"

    def __repr__(self) -> str:
        return (f"SPRT(elo0={self.elo0}, elo1={self.elo1}, alpha={self.alpha}, "
                f"beta={self.beta}, model={self.model!r}): {self._status}, "
                f"llr={self._llr:.3f}, pairs={self.pairs}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)`` LLR bounds."""
        return self.lower, self.upper

    @property
    def llr(self) -> float:
        """Generalized log-likelihood ratio of every pair fed so far."""
        return self._llr

    @property
    def counts(self) -> np.ndarray:
        """Pentanomial counts p0..p4 fed so far (a copy)."""
        return self._counts.copy()

    @property
    def pairs(self) -> int:
        return int(self._counts.sum())

    def status(self) -> str:
        """``"H0"``, ``"H1"`` or ``"continue"``."""
        return self._status

    def llr_of(self, pentanomial) -> float:
        """This test's LLR for the given cumulative counts (does not change the state)."""
        if self.model == "logistic":
            return llr_logistic(pentanomial, self.elo0, self.elo1)
        return llr_normalized(pentanomial, self.elo0, self.elo1)

    def update(self, pentanomial_counts) -> str:
        """Add a chunk of pentanomial counts ``[p0, p1, p2, p3, p4]``; return the status."""
        if self._status != "continue":
            raise RuntimeError(f"the test already stopped ({self._status}) at "
                               f"{self.pairs} pairs")
        chunk = _counts(pentanomial_counts)
        if (chunk != np.round(chunk)).any():
            raise ValueError("pentanomial counts must be whole numbers")
        self._counts += chunk.astype(np.int64)
        self._llr = self.llr_of(self._counts)
        if self._llr >= self.upper:
            self._status = "H1"
        elif self._llr <= self.lower:
            self._status = "H0"
        return self._status

    def estimate(self, conf: float = 0.95) -> SPRTEstimate:
        """Median-unbiased Elo with a ``conf`` interval, accounting for the stopping rule.

        Model (as fishtest ``sprt.py``, which uses Van den Bergh's Brownian approximation of
        the GSPRT, "GSPRT_approximation", cantate.be/Fishtest): with ``v`` the observed
        variance of the pair score (regularized counts), ``m = (s0 + s1) / 2`` and
        ``d = s1 - s0`` (``s0, s1`` the expected pair scores of H0, H1), the LLR after ``n``
        pairs behaves like a Brownian motion with drift ``d (s - m) / v`` and variance
        ``d^2 / v`` per pair when the true expected score is ``s``. Its observed position is
        ``y = n d (shat - m) / v``; if the test stopped, or ``y`` lies beyond a bound, the
        observation becomes "exit through that bound at ``T = bound / (y / n)``" (the time
        the approximate path reached it), else "inside at ``(n, y)``". For each ``s``,
        :func:`prob_right_of` gives the probability of an outcome at least as good as the
        observed one in Siegmund's (1978) ordering; the estimate is the ``s`` where it is
        1/2, the interval where it is ``(1 -+ conf) / 2``, and ``los`` is one minus its
        value at ``s = 1/2`` (fishtest ``sprt.analytics``: "elo", "ci", "LOS").

        Documented difference from fishtest: fishtest lets the variance follow ``s``
        (``v + (s - shat)^2``), which makes the probability non-monotone in ``s`` far from
        the data (fishtest issue #2571); here ``v`` is held at its observed value (the
        usual nuisance-parameter plug-in), so the probability is monotone and every root
        is unique. The two agree to second order near ``shat``. For the normalized model
        ``s0, s1`` come from ``elo0, elo1`` through the observed per-game sigma
        ``sqrt(2 v)``, as in fishtest.

        Elo values are logistic; ``±inf`` when a root lies at score 0 or 1.

        >>> sprt = SPRT(0, 10)
        >>> _ = sprt.update([150, 550, 1500, 750, 350])
        >>> est = sprt.estimate()
        >>> est.status, est.lo < est.elo < est.hi, est.elo < est.naive_elo
        ('H1', True, True)
        """
        if self.pairs == 0:
            raise ValueError("no pairs played yet")
        n_reg, phat = _empirical(self._counts)
        s_hat = float(phat @ PAIR_SCORES)
        v = float(phat @ (PAIR_SCORES - s_hat) ** 2)
        sigma_game = np.sqrt(2.0 * v)
        if self.model == "logistic":
            s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        else:
            s0, s1 = (0.5 + e / NELO_PER_T * sigma_game for e in (self.elo0, self.elo1))
        d, m = s1 - s0, (s0 + s1) / 2.0
        sigma2 = d * d / v

        def drift(s):
            return d * (s - m) / v

        n = float(self.pairs)
        y = n * drift(s_hat)
        slope = y / n
        t = n
        if self._status == "H1" or y >= self.upper:
            y = self.upper
            t = self.upper / slope if slope > 0 else n
        elif self._status == "H0" or y <= self.lower:
            y = self.lower
            t = self.lower / slope if slope < 0 else n

        def right(s):
            return prob_right_of(t, y, drift(s), sigma2, self.lower, self.upper)

        def solve(target):
            if right(0.0) >= target:
                return 0.0
            if right(1.0) <= target:
                return 1.0
            return scipy.optimize.brentq(lambda s: right(s) - target, 0.0, 1.0, xtol=1e-12)

        s_med = solve(0.5)
        s_lo, s_hi = solve(0.5 - 0.5 * conf), solve(0.5 + 0.5 * conf)

        def nelo(s):
            return float((s - 0.5) / sigma_game * NELO_PER_T)

        naive = float(self._counts @ PAIR_SCORES / self._counts.sum())
        return SPRTEstimate(
            status=self._status, pairs=self.pairs, llr=self._llr,
            elo=elo_from_score(s_med), lo=elo_from_score(s_lo), hi=elo_from_score(s_hi),
            conf=conf, nelo=nelo(s_med), nelo_lo=nelo(s_lo), nelo_hi=nelo(s_hi),
            los=float(1.0 - right(0.5)), naive_elo=elo_from_score(naive))


__all__ = ["SPRT", "SPRTEstimate", "STATUSES", "alive_above", "exit_probability",
           "llr_logistic", "llr_normalized", "mle_given_score", "mle_given_t",
           "prob_right_of"]

"""Tables, intervals and ratings from a tournament's games.

Input: a ``games`` frame, one row per game, or its :class:`GameCounts` (what every table
needs, counted once per pairing; :func:`game_counts`, :func:`count_games`), with columns

=================  ==========================================================
``seed``, ``deal``  master seed and deal index (int)
``swap``            0 = first game of the deal, 1 = the same deal, seats swapped
``seat0, seat1``    strategy names (str)
``outcome``         ``"durak"`` (seat ``durak`` lost) or ``"draw"``
``durak``           losing seat 0/1, -1 on a draw
``first_attacker``  seat that attacked first
``bouts``           bouts played (int)
``cards_left``      cards in the Durak's hand at the end (0 on a draw)
=================  ==========================================================

Conventions used by every function here:

* A game scores 1 for a win, 0.5 for a draw, 0 for the Durak.
* A *pairing* is an unordered pair of strategies {A, B}; A comes first in ``order``
  (alphabetical by default). A *deal pair* is the two games of one ``(seed, deal)`` in one
  pairing, ``swap`` 0 and 1. A's pair score is in {0, .25, .5, .75, 1}; its pentanomial
  index ``i = 4 * pair score`` counts into ``p0 .. p4`` (fishtest / cutechess game pairs).
  Games without their twin are *unpaired*: they count in W/D/L tables, not in pair statistics.
* Mirror games (a strategy against itself) say nothing about relative strength: they are left
  out of :func:`pairing_table` and :func:`bradley_terry`, kept everywhere else.
* Elo is logistic Elo, ``elo = 400 log10(s / (1 - s))`` for an expected score ``s``.
* Every function returns a new frame with a fixed column order and sorted rows, so the same
  input always gives a byte-identical CSV. Intervals are two-sided at level ``conf``.

>>> games = _example_games()
>>> pairing_table(games)[["a", "b", "pairs", "p1", "p4", "score"]]
      a       b  pairs  p1  p4  score
0  easy  random      2   1   1  0.625
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import scipy.special
import scipy.stats

GAME_COLUMNS = ("seed", "deal", "swap", "seat0", "seat1", "outcome", "durak",
                "first_attacker", "bouts", "cards_left")

ELO_PER_NAT = 400.0 / np.log(10.0)   # elo = ELO_PER_NAT * logit(score)
NELO_PER_T = 800.0 / np.log(10.0)    # normalized Elo per unit of (score - 1/2) / sigma_game
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])   # A's pair score of pentanomial p0..p4
GAME_SCORES = np.array([0.0, 0.5, 1.0])               # A's game score of L, D, W
ALL = "*"   # the a/b label of the row summing over every pairing

_SCORE_FRAME_COLUMNS = ["seed", "deal", "swap", "seat", "strategy", "opponent", "result",
                        "score"]


# --------------------------------------------------------------------------------------
# Elo and score
# --------------------------------------------------------------------------------------
def _scalar_or_array(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


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


# --------------------------------------------------------------------------------------
# Wilson score interval
# --------------------------------------------------------------------------------------
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
    z = scipy.special.ndtri(0.5 + 0.5 * conf)
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


# --------------------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------------------
def _example_games() -> pd.DataFrame:
    """Two deal pairs of "easy" against "random" (used by the examples).

    Deal 0: easy wins both games (pair score 1). Deal 1: a draw, then easy is the Durak
    (pair score 0.25)."""
    return pd.DataFrame({
        "seed": 7, "deal": [0, 0, 1, 1], "swap": [0, 1, 0, 1],
        "seat0": ["easy", "random", "easy", "random"],
        "seat1": ["random", "easy", "random", "easy"],
        "outcome": ["durak", "durak", "draw", "durak"], "durak": [1, 0, -1, 1],
        "first_attacker": [0, 0, 1, 1], "bouts": [9, 12, 20, 11], "cards_left": [4, 2, 0, 3],
    })


def _checked(games: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    missing = [c for c in columns if c not in games.columns]
    if missing:
        raise ValueError(f"games frame lacks column(s) {missing}")
    if "outcome" in columns:
        outcome = games["outcome"]
        bad = ~outcome.isin(["durak", "draw"])
        if bad.any():
            raise ValueError(f"unknown outcome(s) {sorted(outcome[bad].unique())}")
        if "durak" in columns:
            decisive = outcome.eq("durak").to_numpy(dtype=bool)
            if not np.isin(games["durak"].to_numpy()[decisive], [0, 1]).all():
                raise ValueError("a decisive game has a durak seat other than 0 or 1")
    return games


def _codes(games: pd.DataFrame, order: Sequence[str] | None):
    """``(names, r0, r1)``: the strategies (in ``order``, alphabetical by default) and per
    game the index in ``names`` of the seat-0 and the seat-1 strategy."""
    n = len(games)
    seats = pd.concat([games["seat0"], games["seat1"]], ignore_index=True)
    codes, uniques = pd.factorize(seats)       # hashing: much faster than sorting strings
    present = list(uniques)
    if order is None:
        names = sorted(present)
    else:
        names = list(order)
        unknown = sorted(set(present) - set(names))
        if unknown:
            raise ValueError(f"strategies {unknown} are not in order={names}")
    rank = {name: i for i, name in enumerate(names)}
    r = np.array([rank[u] for u in present], dtype=np.int64)[codes]
    return names, r[:n], r[n:]


def _seat_points2(games: pd.DataFrame) -> np.ndarray:
    """Twice seat 0's score per game: 0 (Durak), 1 (draw), 2 (win)."""
    draw = games["outcome"].eq("draw").to_numpy(dtype=bool)
    return np.where(draw, 1, np.where(games["durak"].to_numpy() == 1, 2, 0)).astype(np.int64)


# --------------------------------------------------------------------------------------
# Counts: what every table and plot needs, per pairing
# --------------------------------------------------------------------------------------
@dataclass
class GameCounts:
    """A set of games reduced to counts per pairing: every table here (and every plot of
    :mod:`durak_sim.plots`) is a function of these, so they are computed once, in one
    vectorised pass (:func:`game_counts`, :func:`count_games`), and the tables cost nothing
    that grows with the number of games (except the convergence curve, one byte per pair).

    ``names``: the strategies in order (A of a pairing is the one listed first);
    ``a, b`` (P,): the pairings present, as indices in ``names`` with ``a <= b`` (``a == b``:
    mirror games), sorted by ``(a, b)``. Per pairing, ``None`` where the columns needed were
    not given:

    * ``tri`` (P, 3): A's losses, draws and wins over all games (a mirror: seat 0's);
    * ``tri_paired`` (P, 3): the same over the games of complete deal pairs;
    * ``pent`` (P, 5): complete deal pairs in which A scored 0, 1/4, 1/2, 3/4, 1;
    * ``pair_points``: per pairing an int8 array, A's points (0..4, the pentanomial index)
      of each complete deal pair in ``(seed, deal)`` order (empty for mirrors);
    * ``seat0_wins``, ``first_wins`` (P,): decisive games won by seat 0, by the first
      attacker;
    * ``bouts`` (P, B): games per number of bouts ``0 .. B - 1``; ``cards_left`` (P, C):
      decisive games per number of cards left in the Durak's hand.

    A *complete deal pair* is a ``(seed, deal)`` of a non-mirror pairing with exactly two
    games, ``swap`` 0 and 1.

    >>> c = game_counts(_example_games())
    >>> c.names, c.pent.tolist(), c.tri.tolist(), c.pair_points[0].tolist()
    (['easy', 'random'], [[0, 1, 0, 0, 1]], [[1, 1, 2]], [4, 1])
    """
    names: list
    a: np.ndarray
    b: np.ndarray
    tri: np.ndarray | None = None
    tri_paired: np.ndarray | None = None
    pent: np.ndarray | None = None
    pair_points: list | None = None
    seat0_wins: np.ndarray | None = None
    first_wins: np.ndarray | None = None
    bouts: np.ndarray | None = None
    cards_left: np.ndarray | None = None

    @property
    def games(self) -> np.ndarray:
        """Games per pairing."""
        if self.tri is not None:
            return self.tri.sum(axis=1)
        if self.bouts is not None:
            return self.bouts.sum(axis=1)
        raise ValueError("these counts hold no per-game results")

    @property
    def decisive(self) -> np.ndarray:
        """Decisive games (not a draw) per pairing."""
        if self.tri is not None:
            return self.tri[:, 0] + self.tri[:, 2]
        if self.cards_left is not None:
            return self.cards_left.sum(axis=1)
        raise ValueError("these counts hold no outcomes")

    @property
    def present(self) -> list:
        """The strategies that played at least one game, in ``names`` order."""
        seen = set(self.a.tolist()) | set(self.b.tolist())
        return [n for i, n in enumerate(self.names) if i in seen]

    def labels(self) -> tuple[list, list]:
        """Names of every pairing's A and B."""
        return [self.names[i] for i in self.a], [self.names[i] for i in self.b]

    def require(self, *fields: str) -> "GameCounts":
        missing = [f for f in fields if getattr(self, f) is None]
        if missing:
            raise ValueError(f"these counts lack {missing} (a column was not counted)")
        return self

    def reordered(self, order: Sequence[str]) -> "GameCounts":
        """The same counts with the strategies in ``order`` (which must hold every strategy
        that played): pairings re-sorted, and turned round (A's counts mirrored) where the
        new order puts B first."""
        order = list(order)
        if order == list(self.names):
            return self
        rank = {n: i for i, n in enumerate(order)}
        unknown = sorted(set(self.present) - set(rank))
        if unknown:
            raise ValueError(f"strategies {unknown} are not in order={order}")
        m = np.array([rank.get(n, -1) for n in self.names], dtype=np.int64)
        na, nb = m[self.a], m[self.b]
        flip = na > nb
        lo, hi = np.minimum(na, nb), np.maximum(na, nb)
        o = np.argsort(lo * max(len(order), 1) + hi, kind="stable")

        def turned(x):
            return None if x is None else np.where(flip[:, None], x[:, ::-1], x)[o]

        def taken(x):
            return None if x is None else x[o]

        pp = None
        if self.pair_points is not None:
            pp = [(4 - self.pair_points[p]).astype(np.int8) if flip[p] else self.pair_points[p]
                  for p in o]
        return GameCounts(order, lo[o], hi[o], tri=turned(self.tri),
                          tri_paired=turned(self.tri_paired), pent=turned(self.pent),
                          pair_points=pp, seat0_wins=taken(self.seat0_wins),
                          first_wins=taken(self.first_wins), bouts=taken(self.bouts),
                          cards_left=taken(self.cards_left))


def merge_counts(parts: Sequence[GameCounts]) -> GameCounts:
    """The counts of several sets of games together (same ``names``), e.g. of a
    tournament's chunks: counts add up, histograms are widened to the widest, pair points
    are concatenated in the order of ``parts``. No deal pair may be split between two
    parts (a tournament chunk holds both games of each of its deals).

    >>> g = _example_games()
    >>> c = merge_counts([game_counts(g.iloc[:2]), game_counts(g.iloc[2:])])
    >>> c.pent.tolist(), c.pair_points[0].tolist(), c.bouts.shape
    ([[0, 1, 0, 0, 1]], [4, 1], (1, 21))
    """
    if not parts:
        raise ValueError("nothing to merge")
    names = list(parts[0].names)
    if any(list(p.names) != names for p in parts):
        raise ValueError("counts over different strategy lists")
    k = max(len(names), 1)
    keys = np.unique(np.concatenate([p.a * k + p.b for p in parts]))
    n_p = len(keys)
    where = [np.searchsorted(keys, p.a * k + p.b) for p in parts]
    out = GameCounts(names, keys // k, keys % k)
    for f in ("tri", "tri_paired", "pent", "seat0_wins", "first_wins", "bouts", "cards_left"):
        vals = [getattr(p, f) for p in parts]
        if any(v is None for v in vals):
            continue
        width = max(v.shape[1] for v in vals) if vals[0].ndim == 2 else None
        total = np.zeros((n_p, width) if width is not None else n_p, dtype=np.int64)
        for w, v in zip(where, vals):
            if width is not None:
                total[w, :v.shape[1]] += v
            else:
                total[w] += v
        setattr(out, f, total)
    if all(p.pair_points is not None for p in parts):
        lists = [[] for _ in range(n_p)]
        for w, p in zip(where, parts):
            for i, x in zip(w, p.pair_points):
                lists[i].append(x)
        out.pair_points = [np.concatenate(x) if x else np.zeros(0, np.int8) for x in lists]
    return out


def _sorted_by(*keys: np.ndarray) -> bool:
    """Whether the rows are already in ``np.lexsort(keys[::-1])`` order (primary key first)
    with ties kept: a stable sort would leave them as they are."""
    if len(keys[0]) < 2:
        return True
    tie = None                                   # rows equal on every key so far
    for k in keys:
        if k[0] == k[-1] and (k == k[0]).all():  # constant: decides nothing
            continue
        d = np.diff(k.astype(np.int64, copy=False))
        if tie is None:
            if (d < 0).any():
                return False
            tie = d == 0
        else:
            if (tie & (d < 0)).any():
                return False
            tie &= d == 0
    return True


def count_games(names: Sequence[str], r0, r1, *, draw=None, durak=None, seed=None, deal=None,
                swap=None, first_attacker=None, bouts=None, cards_left=None) -> GameCounts:
    """:class:`GameCounts` from per-game numpy columns: ``r0, r1`` the index in ``names``
    of the seat-0 and seat-1 strategy, ``draw`` (bool), the others as in the games frame.
    Parts whose columns are not given stay ``None`` (the pair counts need ``draw, durak,
    seed, deal, swap``). Inputs are trusted: :func:`game_counts` validates a frame.

    Games already in ``(pairing, seed, deal, swap)`` order (as a tournament stores them)
    are not sorted again."""
    names = list(names)
    k = max(len(names), 1)
    r0, r1 = np.asarray(r0), np.asarray(r1)
    lo = np.minimum(r0, r1).astype(np.int64)
    key = lo * k + np.maximum(r0, r1)
    used = np.flatnonzero(np.bincount(key, minlength=k * k))
    n_p = len(used)
    single = n_p == 1                # a tournament chunk: no per-game pairing codes needed
    pid = None
    if not single:
        lookup = np.zeros(k * k, dtype=np.int64)
        lookup[used] = np.arange(n_p)
        pid = lookup[key]
    out = GameCounts(names, used // k, used % k)

    def per(v, width, mask=None):
        """(P, width) counts of the values ``v`` (of the games in ``mask``) per pairing."""
        if single:
            return np.bincount(v, minlength=width).reshape(1, width).astype(np.int64)
        p = pid if mask is None else pid[mask]
        return (np.bincount(p * width + v, minlength=width * n_p).reshape(n_p, width)
                .astype(np.int64))

    def total(mask):
        return (np.array([np.count_nonzero(mask)], np.int64) if single
                else np.bincount(pid[mask], minlength=n_p).astype(np.int64))

    if bouts is not None:
        b = np.asarray(bouts)
        out.bouts = per(b, int(b.max(initial=0)) + 1)
    if draw is not None:
        draw = np.asarray(draw, dtype=bool)
        decisive = ~draw
        if cards_left is not None:
            c = np.asarray(cards_left)[decisive]
            out.cards_left = per(c, int(c.max(initial=0)) + 1, decisive)
        if durak is not None:
            durak = np.asarray(durak)
            seat0_won = decisive & (durak == 1)
            x0 = np.where(draw, np.int8(1), np.where(seat0_won, np.int8(2), np.int8(0)))
            x = np.where(r0 <= r1, x0, 2 - x0).astype(np.int8)      # A's points x 2
            out.tri = per(x, 3)
            out.seat0_wins = total(seat0_won)
            if first_attacker is not None:
                out.first_wins = total(decisive & (durak != np.asarray(first_attacker)))
            if seed is not None and deal is not None and swap is not None:
                _count_pairs(out, pid, r0 != r1, x, np.asarray(seed), np.asarray(deal),
                             np.asarray(swap))
    return out


def _count_pairs(out: GameCounts, pid, keep, x, seed, deal, swap) -> None:
    """The deal-pair counts of :class:`GameCounts` (non-mirror games only); ``pid``:
    every game's pairing, ``None`` when there is one."""
    n_p = len(out.a)
    if not keep.all():
        x, seed, deal, swap = x[keep], seed[keep], deal[keep], swap[keep]
        pid = pid[keep] if pid is not None else None
    keys = (seed, deal, swap) if pid is None else (pid, seed, deal, swap)
    if not _sorted_by(*keys):
        # the games of one (pairing, seed, deal) adjacent, swap 0 first
        o = np.lexsort(keys[::-1])
        x, seed, deal, swap = x[o], seed[o], deal[o], swap[o]
        pid = pid[o] if pid is not None else None
    n = len(x)
    start = np.ones(n + 1, dtype=bool)             # a new (pairing, seed, deal) starts here
    start[1:n] = (seed[1:] != seed[:-1]) | (deal[1:] != deal[:-1])
    if pid is not None:
        start[1:n] |= pid[1:] != pid[:-1]
    # groups of exactly two games, swap 0 then 1: complete deal pairs
    twin = np.flatnonzero(start[:n - 1] & ~start[1:n] & start[2:n + 1]) if n > 1 \
        else np.zeros(0, np.int64)
    twin = twin[(swap[twin] == 0) & (swap[twin + 1] == 1)]
    x1, x2 = x[twin], x[twin + 1]
    points = (x1 + x2).astype(np.int8)
    if pid is None:
        out.pent = np.bincount(points, minlength=5).reshape(1, 5).astype(np.int64)
        out.tri_paired = (np.bincount(x1, minlength=3)
                          + np.bincount(x2, minlength=3)).reshape(1, 3).astype(np.int64)
        out.pair_points = [points]
        return
    p = pid[twin]
    out.pent = np.bincount(p * 5 + points, minlength=5 * n_p).reshape(n_p, 5).astype(np.int64)
    out.tri_paired = (np.bincount(p * 3 + x1, minlength=3 * n_p)
                      + np.bincount(p * 3 + x2, minlength=3 * n_p)).reshape(n_p, 3)
    out.tri_paired = out.tri_paired.astype(np.int64)
    bounds = np.searchsorted(p, np.arange(n_p + 1))
    out.pair_points = [points[bounds[i]:bounds[i + 1]] for i in range(n_p)]


def game_counts(games: pd.DataFrame, order: Sequence[str] | None = None,
                columns: Sequence[str] | None = None) -> GameCounts:
    """:class:`GameCounts` of a games frame, strategies in ``order`` (alphabetical by
    default), from ``columns`` (default: every column of :data:`GAME_COLUMNS` the frame
    has; the given ones must exist and are validated)."""
    if columns is None:
        columns = [c for c in GAME_COLUMNS if c in games.columns]
    columns = list(columns)
    games = _checked(games, ["seat0", "seat1", *columns])
    names, r0, r1 = _codes(games, order)

    def col(c):
        return games[c].to_numpy() if c in columns else None

    draw = games["outcome"].eq("draw").to_numpy(dtype=bool) if "outcome" in columns else None
    return count_games(names, r0, r1, draw=draw, durak=col("durak"), seed=col("seed"),
                       deal=col("deal"), swap=col("swap"),
                       first_attacker=col("first_attacker"), bouts=col("bouts"),
                       cards_left=col("cards_left"))


def as_counts(games, order: Sequence[str] | None = None,
              columns: Sequence[str] | None = None) -> GameCounts:
    """``games`` as :class:`GameCounts` in ``order``: a games frame is counted (needing
    ``columns``), counts are reordered (``order=None``: alphabetical)."""
    if isinstance(games, GameCounts):
        return games.reordered(sorted(games.present) if order is None else order)
    return game_counts(games, order, columns)


# --------------------------------------------------------------------------------------
# Per game and per strategy
# --------------------------------------------------------------------------------------
def score_frame(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, strategy): who played, from which seat, and how it went.

    Columns: ``seed, deal, swap, seat, strategy, opponent, result`` (``"W"``, ``"D"`` or
    ``"L"``; L = the Durak), ``score`` (1, 0.5, 0). Rows sorted by
    ``seed, deal, swap, strategy, opponent, seat``.

    >>> score_frame(_example_games()).head(2)
       seed  deal  swap  seat strategy opponent result  score
    0     7     0     0     0     easy   random      W    1.0
    1     7     0     0     1   random     easy      L    0.0
    """
    games = _checked(games, ["seed", "deal", "swap", "seat0", "seat1", "outcome", "durak"])
    _, r0, r1 = _codes(games, None)
    x0 = _seat_points2(games)
    x = np.concatenate([x0, 2 - x0])
    me = np.concatenate([r0, r1])
    opp = np.concatenate([r1, r0])
    seat = np.repeat(np.array([0, 1], dtype=np.int64), len(games))
    cols = {c: np.tile(games[c].to_numpy(), 2) for c in ("seed", "deal", "swap")}
    idx = np.lexsort((seat, opp, me, cols["swap"], cols["deal"], cols["seed"]))
    both = pd.concat([games["seat0"], games["seat1"]], ignore_index=True)
    other = pd.concat([games["seat1"], games["seat0"]], ignore_index=True)
    results = pd.Series(["L", "D", "W"], dtype=games["seat0"].dtype)

    def take(series: pd.Series, rows: np.ndarray) -> pd.Series:
        return series.take(rows).reset_index(drop=True)

    return pd.DataFrame({
        "seed": cols["seed"][idx], "deal": cols["deal"][idx], "swap": cols["swap"][idx],
        "seat": seat[idx], "strategy": take(both, idx), "opponent": take(other, idx),
        "result": take(results, x[idx]), "score": x[idx] / 2.0,
    })


RESULT_COLUMNS = ("outcome", "durak")                 # what W/D/L counts need
PAIR_COLUMNS = ("seed", "deal", "swap", "outcome", "durak")   # ... and deal pairs


def strategy_table(games, conf: float = 0.95) -> pd.DataFrame:
    """Per strategy: games, wins, durak (losses), draws, their rates with Wilson intervals,
    and the mean score.

    ``games``: a games frame or its :class:`GameCounts`. Columns: ``strategy, games, wins,
    durak, draws, win_rate, win_lo, win_hi, durak_rate, durak_lo, durak_hi, draw_rate,
    draw_lo, draw_hi, score``; rows by strategy name. Each rate treats the strategy's games
    as independent trials (Wilson 1927); a mirror game counts once from each seat.

    >>> strategy_table(_example_games())[["strategy", "games", "wins", "durak", "draws", "score"]]
      strategy  games  wins  durak  draws  score
    0     easy      4     2      1      1  0.625
    1   random      4     1      2      1  0.375
    """
    c = as_counts(games, None, RESULT_COLUMNS).require("tri")
    k = len(c.names)
    counts = np.zeros((k, 3), dtype=np.int64)
    np.add.at(counts, c.a, c.tri)                      # A's L/D/W
    np.add.at(counts, c.b, c.tri[:, ::-1])             # B's: A's turned round
    n = counts.sum(axis=1)
    out = {"strategy": pd.Series(c.names, dtype=object), "games": n, "wins": counts[:, 2],
           "durak": counts[:, 0], "draws": counts[:, 1]}
    for name, hits in (("win", counts[:, 2]), ("durak", counts[:, 0]), ("draw", counts[:, 1])):
        lo, hi = wilson_interval(hits, n, conf)
        out[f"{name}_rate"] = hits / n
        out[f"{name}_lo"] = np.atleast_1d(lo)
        out[f"{name}_hi"] = np.atleast_1d(hi)
    out["score"] = (counts @ GAME_SCORES) / n
    return pd.DataFrame(out)


# --------------------------------------------------------------------------------------
# Pairings and deal pairs
# --------------------------------------------------------------------------------------
def pair_score_stats(pent, conf: float = 0.95) -> dict[str, np.ndarray]:
    """Elo, its interval, normalized Elo and LOS from pentanomial counts (rows of p0..p4).

    Following fishtest ``stat_util.get_elo``: ``s`` = mean pair score, ``v`` = variance of
    the pair score (population form, ``sum p_i (x_i - s)^2``), standard error
    ``se = sqrt(v / pairs)``; ``elo = -400 log10(1/s - 1)``; the interval maps the normal
    interval ``s ± z se`` (clipped to [0, 1]) through the same function, so it is asymmetric
    in Elo; ``los = Phi((s - 1/2) / se)``. Normalized Elo (Van den Bergh, "Normalized Elo",
    cantate.be/Fishtest; fishtest ``LLRcalc``) is ``(s - 1/2) / sigma * 800 / ln 10`` with
    the per-game sigma ``sqrt(2 v)``, its interval from the same ``s ± z se``. No
    regularization of empty cells (fishtest adds 1e-3): all-win data give ``elo = inf``.

    >>> st = pair_score_stats(np.array([[10, 20, 40, 20, 10]]))
    >>> float(st["elo"][0]), float(st["los"][0])
    (0.0, 0.5)
    """
    pent = np.atleast_2d(np.asarray(pent, dtype=float))
    pairs = pent.sum(axis=1)
    z = scipy.special.ndtri(0.5 + 0.5 * conf)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = pent @ PAIR_SCORES / pairs
        var = (pent * (PAIR_SCORES[None, :] - s[:, None]) ** 2).sum(axis=1) / pairs
        se = np.sqrt(var / pairs)
        s_lo = np.clip(s - z * se, 0.0, 1.0)
        s_hi = np.clip(s + z * se, 0.0, 1.0)
        sigma = np.sqrt(2.0 * var)
        los = np.where(se > 0, scipy.special.ndtr((s - 0.5) / se),
                       np.where(s > 0.5, 1.0, np.where(s < 0.5, 0.0, 0.5)))
        return {
            "pairs": pairs.astype(np.int64), "pair_score": s, "pair_var": var, "se": se,
            "elo": np.atleast_1d(elo_from_score(s)),
            "elo_lo": np.atleast_1d(elo_from_score(s_lo)),
            "elo_hi": np.atleast_1d(elo_from_score(s_hi)),
            "nelo": (s - 0.5) / sigma * NELO_PER_T,
            "nelo_lo": (s_lo - 0.5) / sigma * NELO_PER_T,
            "nelo_hi": (s_hi - 0.5) / sigma * NELO_PER_T,
            "los": np.where(pairs > 0, los, np.nan),
        }


def _pairing_counts(c: GameCounts):
    """Counts per non-mirror pairing: ``(a, b, tri_all, pent, tri_paired)``, the pairings'
    A and B (names), A's L/D/W counts over all games, the pentanomial counts p0..p4 of
    complete deal pairs, and A's L/D/W counts over the games of complete pairs."""
    c.require("tri", "pent", "tri_paired")
    real = c.a != c.b
    pa, pb = c.labels()
    return ([x for x, r in zip(pa, real) if r], [x for x, r in zip(pb, real) if r],
            c.tri[real], c.pent[real], c.tri_paired[real])


def pairing_table(games, order: Sequence[str] | None = None,
                  conf: float = 0.95) -> pd.DataFrame:
    """Head-to-head results per pairing, with paired (pentanomial) Elo statistics.

    ``games``: a games frame or its :class:`GameCounts`. Columns, A being the first of the two in ``order`` (alphabetical by default):

    * ``a, b``; ``games`` (all non-mirror games), ``pairs`` (complete deal pairs),
      ``unpaired`` (games without their twin: left out of every pair statistic);
    * ``a_wins, a_draws, a_losses, score``: A's results and mean score over all games;
    * ``p0 .. p4``: deal pairs in which A scored 0, .25, .5, .75, 1;
    * ``elo, elo_lo, elo_hi, nelo, nelo_lo, nelo_hi, los``: from the pair scores, see
      :func:`pair_score_stats` (fishtest ``stat_util.get_elo``);
    * ``var_ratio``: variance of the mean score estimated from pairs, ``v_pair / pairs``,
      over the variance the same games would give as independent trinomial games,
      ``v_game / (2 pairs)``, i.e. ``2 v_pair / v_game``. Below 1: the duplicate deals
      cancelled some of the luck of the deal.

    Rows by (A, B) in ``order``.

    >>> t = pairing_table(_example_games())
    >>> t[["a_wins", "a_draws", "a_losses", "unpaired"]].iloc[0].tolist()
    [2, 1, 1, 0]
    >>> round(float(t["elo"][0]), 1), round(float(t["los"][0]), 3)
    (88.7, 0.681)
    """
    pa, pb, tri_all, pent, tri_paired = _pairing_counts(as_counts(games, order, PAIR_COLUMNS))
    st = pair_score_stats(pent, conf)
    n_games = tri_all.sum(axis=1)
    pairs = st["pairs"]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = st["pair_score"]
        var_game = (tri_paired * (GAME_SCORES[None, :] - s[:, None]) ** 2).sum(axis=1)
        var_game = var_game / tri_paired.sum(axis=1)
        var_ratio = 2.0 * st["pair_var"] / var_game
        score = tri_all @ GAME_SCORES / n_games
    frame = pd.DataFrame({
        "a": pd.Series(pa, dtype=object), "b": pd.Series(pb, dtype=object),
        "games": n_games, "pairs": pairs, "unpaired": n_games - 2 * pairs,
        "a_wins": tri_all[:, 2], "a_draws": tri_all[:, 1], "a_losses": tri_all[:, 0],
        "score": score,
        **{f"p{i}": pent[:, i] for i in range(5)},
        **{c: st[c] for c in ("elo", "elo_lo", "elo_hi", "nelo", "nelo_lo", "nelo_hi", "los")},
        "var_ratio": var_ratio,
    })
    return frame


# --------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------
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
            tol: float = 1e-10, max_iter: int = 100_000) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from aggregated results, one fit per row.

    ``i, j`` (P,): the two players of each pairing; ``n`` (P,): games; ``w`` (R, P): points
    of ``i`` (draws count one half). Hunter's (2004) MM iteration
    ``pi_x <- W_x / sum_y n_xy / (pi_x + pi_y)``, renormalised to a geometric mean of 1,
    until no log-strength moves by more than ``tol``. Rows that fail Ford's condition give
    NaN."""
    w = np.atleast_2d(np.asarray(w, dtype=float))
    n = np.asarray(n, dtype=float)
    r = w.shape[0]
    ok = _strongly_connected(i, j, n, w, k)
    out = np.full((r, k), np.nan)
    if not ok.any():
        return out
    w = w[ok]
    inc_i = np.zeros((len(i), k))
    inc_i[np.arange(len(i)), i] = 1.0
    inc_j = np.zeros((len(j), k))
    inc_j[np.arange(len(j)), j] = 1.0
    inc = inc_i + inc_j
    log_wins = np.log(w @ inc_i + (n[None, :] - w) @ inc_j)
    log_pi = np.zeros((w.shape[0], k))
    for _ in range(max_iter):
        pi = np.exp(log_pi)
        denom = (n[None, :] / (pi[:, i] + pi[:, j])) @ inc
        new = log_wins - np.log(denom)
        new -= new.mean(axis=1, keepdims=True)
        step = np.abs(new - log_pi).max()
        log_pi = new
        if step < tol:
            break
    else:  # pragma: no cover - needs a pathological, nearly disconnected field
        raise RuntimeError("Bradley-Terry MM did not converge")
    out[ok] = ELO_PER_NAT * log_pi
    return out


def bradley_terry(games, n_boot: int = 1000, seed: int = 0,
                  conf: float = 0.95) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale with deal-pair bootstrap intervals.

    Model: strategy ``x`` scores against ``y`` with expectation
    ``pi_x / (pi_x + pi_y)``; a draw counts as half a win for each side (the plain BT
    likelihood on points, not the Davidson / Rao-Kupper draw model), so for two strategies
    the rating gap equals :func:`elo_from_score` of the score. Maximum likelihood by
    Hunter's MM algorithm (Hunter 2004, Ann. Stat. 32:384, eq. 3). ``rating = 400 log10 pi``
    anchored so that the ratings average 0: only differences mean anything, and an interval
    is the uncertainty relative to the field average. A finite maximum needs every split of
    the field to have points flowing both ways (Ford 1957); else ``ValueError``.

    Interval: percentile bootstrap (Efron) with ``n_boot`` resamples, seeded
    ``numpy.random.default_rng(seed)``. The resampled unit is the complete deal pair,
    independently within each pairing; a game without its twin is resampled on its own.
    Resampling pairs changes a pairing's result only through its points total, so each
    resample draws multinomial counts over the pentanomial (and L/D/W for unpaired games)
    categories and refits BT on the aggregated totals: the cost does not grow with the
    number of games. A resample that breaks Ford's condition is dropped (NaN). Mirror games
    are ignored. Columns ``strategy, rating, lo, hi, games`` (games used); rows by rating,
    highest first, ties by name.

    >>> bt = bradley_terry(_example_games(), n_boot=200, seed=1)
    >>> bt[["strategy", "games"]].values.tolist()
    [['easy', 4], ['random', 4]]
    >>> round(float(bt["rating"][0] - bt["rating"][1]), 2) == round(elo_from_score(0.625), 2)
    True
    """
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
    if np.isnan(rating).any():
        raise ValueError("no finite Bradley-Terry ratings: some group of strategies scored "
                         "every point (or none) against the rest (Ford 1957)")
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    if n_boot > 0:
        rng = np.random.default_rng(seed)
        w_boot = np.zeros((n_boot, len(pa)))
        for p in range(len(pa)):
            for counts, points in ((pent[p], pair_points), (single[p], GAME_SCORES)):
                total = int(counts.sum())
                if total:
                    draws = rng.multinomial(total, counts / total, size=n_boot)
                    w_boot[:, p] += draws @ points
        boot = _bt_fit(i, j, n, w_boot, k)
        if not np.isnan(boot).all():
            lo, hi = np.nanquantile(boot, [0.5 - 0.5 * conf, 0.5 + 0.5 * conf], axis=0)
    games_per = np.zeros(k, dtype=np.int64)
    np.add.at(games_per, i, n)
    np.add.at(games_per, j, n)
    frame = pd.DataFrame({"strategy": pd.Series(names, dtype=object), "rating": rating,
                          "lo": lo, "hi": hi, "games": games_per})
    idx = np.lexsort((np.arange(k), -rating))          # names are already sorted
    return frame.iloc[idx].reset_index(drop=True)


# --------------------------------------------------------------------------------------
# Seat, first attacker, game length
# --------------------------------------------------------------------------------------
def _advantage(c: GameCounts, wins: np.ndarray, conf) -> pd.DataFrame:
    pa, pb = c.labels()
    per = np.stack([c.games, c.decisive, wins], axis=1)
    t = np.vstack([per.sum(axis=0, keepdims=True), per]).astype(np.int64)
    frame = pd.DataFrame({"a": pd.Series([ALL] + pa, dtype=object),
                          "b": pd.Series([ALL] + pb, dtype=object),
                          "games": t[:, 0], "decisive": t[:, 1], "wins": t[:, 2]})
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rate"] = t[:, 2] / t[:, 1]
    lo, hi = wilson_interval(t[:, 2], t[:, 1], conf)
    frame["lo"], frame["hi"] = np.atleast_1d(lo), np.atleast_1d(hi)
    frame["p_value"] = [scipy.stats.binomtest(int(w), int(d)).pvalue if d else np.nan
                        for w, d in zip(t[:, 2], t[:, 1])]
    return frame


def first_attacker_advantage(games, order: Sequence[str] | None = None,
                             conf: float = 0.95) -> pd.DataFrame:
    """How often the first attacker wins a decisive game, overall and per pairing.

    ``games``: a games frame or its :class:`GameCounts`. Columns ``a, b, games, decisive,
    wins, rate, lo, hi, p_value``: ``wins`` = decisive games the first attacker won,
    ``rate = wins / decisive`` with its Wilson interval, ``p_value`` the two-sided exact
    binomial test of rate = 1/2 (``scipy.stats.binomtest``). The first row
    (``a = b = "*"``) is every game; then one row per pairing (mirror matches included).

    >>> first_attacker_advantage(_example_games())[["a", "b", "decisive", "wins"]]
          a       b  decisive  wins
    0     *       *         3     1
    1  easy  random         3     1
    """
    c = as_counts(games, order, ["outcome", "durak", "first_attacker"])
    return _advantage(c.require("tri", "first_wins"), c.first_wins, conf)


def seat_advantage(games, order: Sequence[str] | None = None,
                   conf: float = 0.95) -> pd.DataFrame:
    """How often seat 0 wins a decisive game, overall and per pairing.

    Same columns as :func:`first_attacker_advantage`, ``wins`` counting seat-0 wins.

    >>> seat_advantage(_example_games())[["a", "b", "decisive", "wins", "rate"]]
          a       b  decisive  wins      rate
    0     *       *         3     2  0.666667
    1  easy  random         3     2  0.666667
    """
    c = as_counts(games, order, ["outcome", "durak"])
    return _advantage(c.require("tri", "seat0_wins"), c.seat0_wins, conf)


def game_length(games, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Distribution of game length (bouts) and of the Durak's cards left, per pairing.

    ``games``: a games frame or its :class:`GameCounts`. Columns ``a, b, games,
    bouts_mean, bouts_sd, bouts_min, bouts_p25, bouts_median, bouts_p75, bouts_max,
    decisive, cards_left_mean, cards_left_sd, cards_left_median, cards_left_max`` (counts
    are int, the rest float). Quantiles interpolate linearly; sd has ``ddof=1``; the
    cards-left columns cover decisive games only (a draw leaves no Durak). First row
    ``a = b = "*"``: every game; then one row per pairing. Computed exactly from the
    histograms of :class:`GameCounts` (integer sums; one rounding per mean and variance).

    >>> game_length(_example_games())[["a", "games", "bouts_mean", "bouts_max", "cards_left_mean"]]
          a  games  bouts_mean  bouts_max  cards_left_mean
    0     *      4        13.0       20.0              3.0
    1  easy      4        13.0       20.0              3.0
    """
    c = as_counts(games, order, ["outcome", "bouts", "cards_left"])
    c.require("bouts", "cards_left")
    pa, pb = c.labels()
    rows = []
    for h_bouts, h_cards in [(c.bouts.sum(axis=0), c.cards_left.sum(axis=0)),
                             *zip(c.bouts, c.cards_left)]:
        b, d = _histogram_summary(h_bouts), _histogram_summary(h_cards)
        rows.append({"games": b["n"], "bouts_mean": b["mean"], "bouts_sd": b["sd"],
                     "bouts_min": b["min"], "bouts_p25": b["q"](0.25),
                     "bouts_median": b["q"](0.5), "bouts_p75": b["q"](0.75),
                     "bouts_max": b["max"], "decisive": d["n"], "cards_left_mean": d["mean"],
                     "cards_left_sd": d["sd"], "cards_left_median": d["q"](0.5),
                     "cards_left_max": d["max"]})
    t = pd.DataFrame(rows, columns=list(rows[0]))
    floats = [col for col in t.columns if col not in ("games", "decisive")]
    t = t.astype({"games": np.int64, "decisive": np.int64, **{f: float for f in floats}})
    t.insert(0, "b", pd.Series([ALL] + pb, dtype=object))
    t.insert(0, "a", pd.Series([ALL] + pa, dtype=object))
    return t


def _histogram_summary(h: np.ndarray) -> dict:
    """Count, mean, sd (``ddof=1``), min, max and linear-interpolation quantiles ``q(p)``
    (numpy's and pandas' default) of the values ``0, 1, ...`` counted by ``h``; NaN where
    undefined. Sums are exact integers, so each result is rounded once."""
    h = np.asarray(h, dtype=np.int64)
    n = int(h.sum())
    nan = float("nan")
    if n == 0:
        return {"n": 0, "mean": nan, "sd": nan, "min": nan, "max": nan, "q": lambda p: nan}
    v = np.arange(len(h), dtype=np.int64)
    s1 = int(h @ v)
    s2 = int(h @ (v * v))
    nz = np.flatnonzero(h)
    cum = np.cumsum(h)

    def value(rank: int) -> int:                  # the rank-th smallest value, 0-based
        return int(np.searchsorted(cum, rank, side="right"))

    def q(p: float) -> float:
        pos = (n - 1) * p
        lo = int(np.floor(pos))
        a = value(lo)
        if lo + 1 >= n:
            return float(a)
        return a + (value(lo + 1) - a) * (pos - lo)

    # exact: var = (n s2 - s1^2) / (n (n - 1)), one correctly rounded division
    sd = math.sqrt((n * s2 - s1 * s1) / (n * (n - 1))) if n > 1 else nan
    return {"n": n, "mean": s1 / n, "sd": sd, "min": float(nz[0]), "max": float(nz[-1]),
            "q": q}

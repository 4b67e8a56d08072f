"""Counting games: a games frame (or per-game numpy columns) reduced, in one vectorised
pass, to :class:`GameCounts`, what every table of :mod:`durak_sim.stats` and every plot of
:mod:`durak_sim.plots` needs per pairing. The games frame's columns are described in
:mod:`durak_sim.stats`.

>>> c = game_counts(_example_games())
>>> c.names, c.tri.tolist()
(['easy', 'random'], [[1, 1, 2]])
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

GAME_COLUMNS = ("seed", "deal", "swap", "seat0", "seat1", "outcome", "durak",
                "first_attacker", "bouts", "cards_left")
RESULT_COLUMNS = ("outcome", "durak")                 # what W/D/L counts need
PAIR_COLUMNS = ("seed", "deal", "swap", "outcome", "durak")   # ... and deal pairs
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])   # A's pair score of pentanomial p0..p4
GAME_SCORES = np.array([0.0, 0.5, 1.0])               # A's game score of L, D, W


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
    """A set of games reduced to counts per pairing: every table of :mod:`durak_sim.stats`
    (and every plot of :mod:`durak_sim.plots`) is a function of these, so they are computed
    once, in one vectorised pass (:func:`game_counts`, :func:`count_games`), and the tables
    cost nothing that grows with the number of games (except the convergence curve, one
    byte per pair).

    ``names``: the strategies in order (A of a pairing is the one listed first);
    ``a, b`` (P,): the pairings present, as indices in ``names`` with ``a <= b`` (``a == b``:
    mirror games), sorted by ``(a, b)``. Per pairing, ``None`` where the columns needed were
    not given:

    * ``tri`` (P, 3): A's losses, draws and wins over all games (a mirror: seat 0's);
    * ``tri_paired`` (P, 3): the same over the games of complete deal pairs;
    * ``pent`` (P, 5): complete deal pairs in which A scored 0, 1/4, 1/2, 3/4, 1;
    * ``pair_tri`` (P, 9): complete deal pairs by A's results in its two games, column
      ``3 x1 + x2`` for A's loss, draw or win ``x1`` (0, 1, 2) with swap 0 and ``x2`` with
      swap 1 (a deal pair's wins, draws and losses: the clusters of :func:`durak_sim.stats.
      strategy_table`'s rates);
    * ``pair_points``: per pairing an int8 array, A's points (0..4, the pentanomial index)
      of each complete deal pair in ``(seed, deal)`` order (empty for mirrors);
    * ``seat0_wins``, ``first_wins`` (P,): decisive games won by seat 0, by the first
      attacker; ``seat0_sums``, ``first_sums`` (P, 4): the same per deal (the games of one
      ``(seed, deal)``: a cluster), as ``[sum m_d**2, sum x_d**2, sum x_d m_d, D]`` with
      ``x_d`` its wins and ``m_d`` its decisive games (:mod:`durak_sim.clustered`);
    * ``deal_keys`` (K, 2), ``deal_counts`` (K, 3): every ``(seed, deal)`` played (sorted)
      and its decisive games, seat-0 wins and first-attacker wins over every pairing (the
      rows over all pairings cluster on these: a round robin deals the same cards to each);
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
    pair_tri: np.ndarray | None = None
    pair_points: list | None = None
    seat0_wins: np.ndarray | None = None
    first_wins: np.ndarray | None = None
    seat0_sums: np.ndarray | None = None
    first_sums: np.ndarray | None = None
    deal_keys: np.ndarray | None = None
    deal_counts: np.ndarray | None = None
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
                          pair_tri=turned(self.pair_tri), pair_points=pp,
                          seat0_wins=taken(self.seat0_wins),
                          first_wins=taken(self.first_wins), seat0_sums=taken(self.seat0_sums),
                          first_sums=taken(self.first_sums), deal_keys=self.deal_keys,
                          deal_counts=self.deal_counts, bouts=taken(self.bouts),
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
    for f in ("tri", "tri_paired", "pent", "pair_tri", "seat0_wins", "first_wins", "seat0_sums",
              "first_sums", "bouts", "cards_left"):
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
    if all(p.deal_keys is not None for p in parts):
        out.deal_keys, out.deal_counts = _per_deal(np.concatenate([p.deal_keys for p in parts]),
                                                   np.concatenate([p.deal_counts for p in parts]))
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
                swap=None, first_attacker=None, bouts=None, cards_left=None,
                pair_points: bool = True) -> GameCounts:
    """:class:`GameCounts` from per-game numpy columns: ``r0, r1`` the index in ``names``
    of the seat-0 and seat-1 strategy, ``draw`` (bool), the others as in the games frame.
    Parts whose columns are not given stay ``None`` (the pair counts need ``draw, durak,
    seed, deal, swap``), and so do the pair points without ``pair_points`` (the one part
    that grows with the games: counts without it stay the same size however many games
    are merged into them). Inputs are trusted: :func:`game_counts` validates a frame.

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
            # seat 0's points x 2 (draw 1, win 2), then A's; int8 all through: this runs
            # once per game of every chunk and match block
            x0 = draw.view(np.int8) + np.int8(2) * seat0_won.view(np.int8)
            flip = r0 > r1                                            # A sits in seat 1
            x = np.where(flip, np.int8(2) - x0, x0) if flip.any() else x0
            out.tri = per(x, 3)
            out.seat0_wins = total(seat0_won)
            first_won = None
            if first_attacker is not None:
                first_won = decisive & (durak != np.asarray(first_attacker))
                out.first_wins = total(first_won)
            if seed is not None and deal is not None:
                won = [decisive, seat0_won, decisive if first_won is None else first_won]
                out.deal_keys, out.deal_counts = _per_deal(
                    np.stack([np.asarray(seed), np.asarray(deal)], axis=1).astype(np.int64),
                    np.stack(won, axis=1).astype(np.int64))
                out.seat0_sums, out.first_sums = _deal_sums(
                    n_p, pid, np.asarray(seed), np.asarray(deal), decisive, seat0_won, first_won)
            if seed is not None and deal is not None and swap is not None:
                _count_pairs(out, pid, r0 != r1, x, np.asarray(seed), np.asarray(deal),
                             np.asarray(swap))
                if not pair_points:
                    out.pair_points = None
    return out


def _group_sums(keys: list, values: np.ndarray) -> tuple[list, np.ndarray]:
    """The rows of ``values`` (n, k) summed over the games of equal ``keys`` (arrays, the
    first the primary key): each group's keys and sums, in key order."""
    if not _sorted_by(*keys):
        o = np.lexsort(keys[::-1])
        keys, values = [k[o] for k in keys], values[o]
    start = np.zeros(len(values), dtype=bool)
    start[:1] = True
    for k in keys:
        start[1:] |= k[1:] != k[:-1]
    first = np.flatnonzero(start)
    return [k[first] for k in keys], (np.add.reduceat(values, first, axis=0) if len(first)
                                      else values)


def _pairing_counts(c: GameCounts):
    """Counts per non-mirror pairing: ``(a, b, tri_all, pent, tri_paired)``, the pairings'
    A and B (names), A's L/D/W counts over all games, the pentanomial counts p0..p4 of
    complete deal pairs, and A's L/D/W counts over the games of complete pairs."""
    c.require("tri", "pent", "tri_paired")
    real = c.a != c.b
    pa, pb = c.labels()
    return ([x for x, r in zip(pa, real) if r], [x for x, r in zip(pb, real) if r],
            c.tri[real], c.pent[real], c.tri_paired[real])


def _per_deal(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``counts`` summed per ``(seed, deal)`` row of ``keys``, keys sorted."""
    (seed, deal), sums = _group_sums([keys[:, 0], keys[:, 1]], counts)
    return np.stack([seed, deal], axis=1), sums


def _deal_sums(n_p: int, pid, seed, deal, decisive, *wins):
    """Per pairing, each of ``wins`` (a bool per game, or None) as the sums over its deals
    of :class:`GameCounts` ``seat0_sums``: ``(n_p, 4)`` int64 arrays (None for None)."""
    given = [w for w in wins if w is not None]
    keys = [seed, deal] if pid is None else [pid, seed, deal]
    got, sums = _group_sums(keys, np.stack([decisive, *given], axis=1).astype(np.int64))
    group = np.zeros(len(sums), np.int64) if pid is None else got[0]
    m = sums[:, 0]
    out = iter(np.stack([np.bincount(group, weights=v, minlength=n_p)
                         for v in (m * m, x * x, x * m, np.ones_like(m))],
                        axis=1).astype(np.int64) for x in sums.T[1:])
    return [None if w is None else next(out) for w in wins]


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
    combo = 3 * x1.astype(np.int64) + x2
    if pid is None:
        out.pent = np.bincount(points, minlength=5).reshape(1, 5).astype(np.int64)
        out.pair_tri = np.bincount(combo, minlength=9).reshape(1, 9).astype(np.int64)
        out.tri_paired = (np.bincount(x1, minlength=3)
                          + np.bincount(x2, minlength=3)).reshape(1, 3).astype(np.int64)
        out.pair_points = [points]
        return
    p = pid[twin]
    out.pent = np.bincount(p * 5 + points, minlength=5 * n_p).reshape(n_p, 5).astype(np.int64)
    out.pair_tri = np.bincount(p * 9 + combo, minlength=9 * n_p).reshape(n_p, 9).astype(np.int64)
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


def pentanomial_counts(cols: dict, rots: np.ndarray) -> np.ndarray:
    """A's pentanomial counts ``p0 .. p4`` from the result columns of duplicate deal pairs
    (games ``2k`` and ``2k + 1`` are one deal, A in seat 0 when ``rots`` is 0).

    >>> cols = {"outcome": np.array([0, 0, 1, 0]), "durak": np.array([1, 0, -1, 1])}
    >>> pentanomial_counts(cols, np.array([0, 1, 0, 1])).tolist()
    [0, 1, 0, 0, 1]
    """
    draw = np.asarray(cols["outcome"]) == 1
    x0 = np.where(draw, 1, np.where(np.asarray(cols["durak"]) == 1, 2, 0))
    x = np.where(np.asarray(rots) % 2 == 0, x0, 2 - x0)
    if len(x) % 2:
        raise ValueError("games must come in deal pairs")
    return np.bincount(x[0::2] + x[1::2], minlength=5).astype(np.int64)


def length_row(h_bouts: np.ndarray, h_cards: np.ndarray) -> dict:
    """One row of :func:`durak_sim.stats.game_length` from the histograms of bouts and of cards left."""
    b, d = _histogram_summary(h_bouts), _histogram_summary(h_cards)
    return {"games": b["n"], "bouts_mean": b["mean"], "bouts_sd": b["sd"],
            "bouts_min": b["min"], "bouts_p25": b["q"](0.25), "bouts_median": b["q"](0.5),
            "bouts_p75": b["q"](0.75), "bouts_max": b["max"], "decisive": d["n"],
            "cards_left_mean": d["mean"], "cards_left_sd": d["sd"],
            "cards_left_median": d["q"](0.5), "cards_left_max": d["max"]}


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

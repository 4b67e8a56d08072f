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
  out of :func:`pairing_table` and :func:`bradley_terry`, kept everywhere else (counted
  once each, with seat 0's result, in :func:`strategy_table`).
* Elo is logistic Elo, ``elo = 400 log10(s / (1 - s))`` for an expected score ``s``.
* Extremes: a pairing that one side won outright has no finite Elo. Where the ratings have
  no finite maximum (such a pairing with nothing else to place its two), they add one
  virtual drawn game to every pairing (a weak prior); the paired Elo of a sweep adds the
  same game and reads as a bound, ``± 400 log10(4 pairs + 1)`` (:func:`elo_limit`).
  No table holds ``inf``; NaN means undefined (no games of the kind, no variance).
* Every function returns a new frame with a fixed column order and sorted rows, so the same
  input always gives a byte-identical CSV. Intervals are two-sided at level ``conf``.

>>> games = _example_games()
>>> pairing_table(games)[["a", "b", "pairs", "p1", "p4", "score"]]
      a       b  pairs  p1  p4  score
0  easy  random      2   1   1  0.625
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import scipy.special
import scipy.stats

from .bradley_terry import _bt_fit, bradley_terry  # noqa: F401 - public here too
from .counts import (GAME_COLUMNS, GAME_SCORES, PAIR_COLUMNS, PAIR_SCORES,  # noqa: F401
                     RESULT_COLUMNS, GameCounts, _checked, _codes, _example_games,
                     _histogram_summary, _pairing_counts, _seat_points2, as_counts,
                     count_games, game_counts, length_row, merge_counts)
from .clustered import ratio_variance, wilson_design
from .elo import ELO_PER_NAT, NELO_PER_T, elo_from_score, score_from_elo  # noqa: F401
from .intervals import _scalar_or_array, conf_z, wilson_interval  # noqa: F401 - public here too

ALL = "*"   # the a/b label of the row summing over every pairing

_SCORE_FRAME_COLUMNS = ["seed", "deal", "swap", "seat", "strategy", "opponent", "result",
                        "score"]


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


def strategy_table(games, conf: float = 0.95) -> pd.DataFrame:
    """Per strategy: games, wins, durak (losses), draws, their rates with Wilson intervals,
    and the mean score.

    ``games``: a games frame or its :class:`GameCounts`. Columns: ``strategy, games, wins,
    durak, draws, win_rate, win_lo, win_hi, durak_rate, durak_lo, durak_hi, draw_rate,
    draw_lo, draw_hi, score``; rows by strategy name. Each rate's interval is Wilson's (1927)
    at the effective sample size of its variance (:mod:`durak_sim.clustered`), each pairing
    a stratum (the opponents are fixed by the design, not drawn) and in it each deal pair a
    cluster (a game without its twin, and a mirror game, a cluster of one): the two games
    of a deal pair are not independent, and a strategy's games against opponents of very
    different strength are not one binomial. (Taken as independent trials, easy's win
    rate in a field of random, easy and normal had an interval 1.5 times too wide, which
    covered the truth in 99.5% of 400 runs; benchmarks/RESULTS.md.) Without the deal pairs
    (a games frame without ``seed``, ``deal`` and ``swap``) the games are taken as
    independent trials. A mirror game (a strategy against itself) counts once, with seat
    0's result: the strategy both won and lost it, and counting both would count the game
    twice.

    >>> strategy_table(_example_games())[["strategy", "games", "wins", "durak", "draws", "score"]]
      strategy  games  wins  durak  draws  score
    0     easy      4     2      1      1  0.625
    1   random      4     1      2      1  0.375
    """
    paired = not isinstance(games, GameCounts) and set(PAIR_COLUMNS) <= set(games.columns)
    c = as_counts(games, None, PAIR_COLUMNS if paired else RESULT_COLUMNS).require("tri")
    k = len(c.names)
    counts = np.zeros((k, 3), dtype=np.int64)
    real = c.a != c.b
    np.add.at(counts, c.a, c.tri)                      # A's L/D/W (a mirror's: seat 0's)
    np.add.at(counts, c.b[real], c.tri[real, ::-1])    # B's: A's turned round
    n = counts.sum(axis=1)
    clusters = _strategy_clusters(c, n) if c.pair_tri is not None else None
    out = {"strategy": pd.Series(c.names, dtype=object), "games": n, "wins": counts[:, 2],
           "durak": counts[:, 0], "draws": counts[:, 1]}
    for code, name, hits in ((2, "win", counts[:, 2]), (0, "durak", counts[:, 0]),
                             (1, "draw", counts[:, 1])):
        if clusters is None:
            lo, hi = wilson_interval(hits, n, conf)
        else:
            var, d, strata = clusters
            lo, hi = wilson_design(hits, n, var[code], conf, units=d,
                                   clusters=np.maximum(d - strata + 1, 2))
        out[f"{name}_rate"] = hits / n
        out[f"{name}_lo"] = np.atleast_1d(lo)
        out[f"{name}_hi"] = np.atleast_1d(hi)
    out["score"] = (counts @ GAME_SCORES) / n
    return pd.DataFrame(out)


def _pairing_clusters(c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(var, n, d)`` per pairing (every row of ``c``): ``var`` (rows, 3) the variance of
    A's rate of each result code (0 Durak, 1 draw, 2 win) over its ``n`` games, a complete
    deal pair one cluster (``m = 2``, ``x`` its games with that result) and every other game
    (without its twin, a mirror game) one; ``d`` the clusters. NaN where ``d < 2``."""
    x1, x2 = np.divmod(np.arange(9), 3)               # A's results in pair_tri's columns
    single = (c.tri - c.tri_paired).astype(float)     # games without their twin, mirrors
    pt = c.pair_tri.astype(float)
    n = c.tri.sum(axis=1).astype(float)
    d = pt.sum(axis=1) + single.sum(axis=1)           # clusters per pairing
    smm = 4 * pt.sum(axis=1) + single.sum(axis=1)     # their sum of m^2
    var = np.empty((len(n), 3))
    for code in (0, 1, 2):
        h = (x1 == code).astype(float) + (x2 == code)  # hits of each pair kind
        hits1 = single[:, code]
        var[:, code] = ratio_variance(pt @ h + hits1, n, pt @ h ** 2 + hits1,
                                      pt @ (2 * h) + hits1, smm, d)
    return var, n, d


def _strategy_clusters(c, games: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray]:
    """``(var, clusters, strata)``: per result code (0 Durak, 1 draw, 2 win) the variance
    of each strategy's rate (``var[code]``, arrays over the strategies, which played
    ``games``) with every pairing a stratum (a round robin plays each opponent on fixed
    terms: how its rates differ is the design, not chance) and, within it, the clusters of
    :func:`_pairing_clusters`; the clusters behind each strategy's rates and its strata (the
    degrees of freedom are their difference). A stratum of one cluster adds no variance (it
    has none to measure: a pairing of a single deal)."""
    pvar, n, d = _pairing_clusters(c)
    k = len(games)
    # (the strategy, its pairings, whether its results are A's turned round)
    sides = ((c.a, np.ones(len(n), bool), False), (c.b, c.a != c.b, True))
    units, strata = np.zeros(k), np.zeros(k)
    for who, rows, _ in sides:
        np.add.at(units, who[rows], d[rows])
        np.add.at(strata, who[rows], d[rows] > 0)
    var = {}
    for code in (0, 1, 2):
        total = np.zeros(k)
        for who, rows, turned in sides:
            v = pvar[rows, 2 - code if turned else code]
            np.add.at(total, who[rows], np.nan_to_num(v * n[rows] ** 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            var[code] = np.where(units >= 2, total / games.astype(float) ** 2, np.nan)
    return var, units, strata


# --------------------------------------------------------------------------------------
# Pairings and deal pairs
# --------------------------------------------------------------------------------------
def elo_limit(pairs):
    """The largest Elo difference ``pairs`` deal pairs report: ``400 log10(4 pairs + 1)``,
    the Elo of a sweep (every game won) once one virtual drawn game is added (the prior of
    :func:`pair_score_stats` and :func:`bradley_terry`). One game short of a sweep reads
    ``400 log10(4 pairs - 1)``, just below it.

    >>> round(elo_limit(100_000), 1), round(elo_from_score(1 - 1 / 400_000), 1)
    (2240.8, 2240.8)
    """
    return _scalar_or_array(ELO_PER_NAT * np.log(4.0 * np.asarray(pairs, dtype=float) + 1.0))


def _score_interval(s, var, n, pairs, swept, z):
    """The standard error and normal interval (clipped to [0, 1]) of a mean pair score
    ``s`` with variance ``var`` over ``n`` pairs (``pairs`` real ones; a sweep, ``swept``,
    already holds its virtual drawn game). Pairs all alike but not a sweep (all split, say)
    have no spread to measure: the width is that of one more, virtual pair, half lost and
    half won."""
    alike = (pairs > 0) & ~swept & (var == 0)
    spread = np.where(alike, 0.5 * (s ** 2 + (1.0 - s) ** 2) / (n + 1), var)
    se = np.sqrt(spread / np.where(alike, n + 1, n))
    return se, np.clip(s - z * se, 0.0, 1.0), np.clip(s + z * se, 0.0, 1.0)


def running_score_interval(total, squares, pairs, conf: float = 0.95):
    """:func:`pair_score_stats`' interval of the mean pair score from running sums: the
    pair scores' ``total``, the sum of their ``squares`` and the ``pairs`` (arrays); a sweep
    (every pair won, or every pair lost) takes its virtual drawn game as there, so no band
    is ever a point. Returns ``(lo, hi)``.

    >>> lo, hi = running_score_interval([1.0, 3.0], [1.0, 3.0], [1, 3])   # sweeps
    >>> [round(float(x), 3) for x in lo], [float(x) for x in hi]
    ([0.456, 0.745], [1.0, 1.0])
    >>> round(float(elo_from_score(lo[1])), 6), round(float(pair_score_stats([[0, 0, 0, 0, 3]])
    ...                                                        ["elo_lo"][0]), 6)
    (186.495036, 186.495036)
    """
    total, squares = np.asarray(total, float), np.asarray(squares, float)
    pairs = np.asarray(pairs, float)
    swept = (pairs > 0) & ((total == pairs) | (total == 0))
    total = np.where(swept, total + 0.25, total)       # half a pair scored 1/2
    squares = np.where(swept, squares + 0.125, squares)
    n = np.where(swept, pairs + 0.5, pairs)
    z = conf_z(conf)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = total / n
        var = np.maximum(squares / n - s * s, 0.0)
        _, lo, hi = _score_interval(s, var, n, pairs, swept, z)
    return lo, hi


def pair_score_stats(pent, conf: float = 0.95) -> dict[str, np.ndarray]:
    """Elo, its interval, normalized Elo and LOS from pentanomial counts (rows of p0..p4).

    Following fishtest ``stat_util.get_elo``: ``s`` = mean pair score, ``v`` = variance of
    the pair score (population form, ``sum p_i (x_i - s)^2``), standard error
    ``se = sqrt(v / pairs)``; ``elo = -400 log10(1/s - 1)``; the interval maps the normal
    interval ``s ± z se`` (clipped to [0, 1]) through the same function, so it is asymmetric
    in Elo; ``los = Phi((s - 1/2) / se)``. Normalized Elo (Van den Bergh, "Normalized Elo",
    cantate.be/Fishtest; fishtest ``LLRcalc``) is ``t * 800 / ln 10`` with ``t = (s - 1/2)
    / sigma`` and the per-game sigma ``sqrt(2 v)``. Its interval is ``t ± z se_t`` by the
    delta method with sigma estimated too (``n se_t^2 = 1/2 + t^2 (m4 - v^2) / (4 v^2) -
    t m3 / (sqrt(2) v^1.5)``, ``m3``, ``m4`` the pair score's central moments), not
    ``s ± z se`` over a sigma taken as known: near a sweep sigma rests on a few pairs and
    that interval covered the truth in under 10% of 400 seeded runs, this one in 93-95%
    (benchmarks/RESULTS.md).

    Extremes, so that every Elo figure is finite: a *sweep* (every pair in p4, or every
    pair in p0) has no finite estimate, so its figures are computed with one virtual drawn
    game added (half a pair in p2; fishtest instead adds 1e-3 to every cell): ``elo`` is
    then ``±`` :func:`elo_limit` ``(pairs)``, a stated bound ("at least this"), not a
    measurement. Every Elo value is clipped to ``± elo_limit(pairs)`` (an interval end
    that the normal interval puts at a score of 0 or 1 is shown there). Other data are
    left as they are. Pairs all alike that are not a sweep (every pair split 1-1, say) have
    no spread to measure: their interval takes the width of one more, virtual pair, half
    lost and half won, rather than none (the estimate is theirs). ``nelo`` is NaN where the
    pair scores do not vary (``sigma = 0``: no scale); every figure is NaN without pairs.

    >>> st = pair_score_stats(np.array([[10, 20, 40, 20, 10]]))
    >>> float(st["elo"][0]), float(st["los"][0])
    (0.0, 0.5)
    >>> st = pair_score_stats(np.array([[0, 0, 0, 0, 1000]]))       # a sweep
    >>> [round(float(st[k][0]), 1) for k in ("elo", "elo_lo", "elo_hi", "los")]
    [1440.9, 1210.2, 1440.9, 1.0]
    >>> st = pair_score_stats(np.array([[9, 0, 1755, 0, 35000]]))   # nearly a sweep
    >>> [round(float(st[k][0]), 1) for k in ("nelo", "nelo_lo", "nelo_hi")]
    [1085.6, 1059.0, 1112.2]
    >>> st = pair_score_stats(np.array([[0, 0, 2000, 0, 0]]))       # every pair split
    >>> [round(float(st[k][0]), 2) for k in ("elo", "elo_lo", "elo_hi")]
    [0.0, -0.34, 0.34]
    """
    pent = np.atleast_2d(np.asarray(pent, dtype=float))
    pairs = pent.sum(axis=1)
    swept = (pairs > 0) & ((pent[:, 0] == pairs) | (pent[:, 4] == pairs))
    if swept.any():
        pent = pent.copy()
        pent[swept, 2] += 0.5                  # one virtual drawn game
    n = pent.sum(axis=1)                       # = pairs where nothing was added
    z = conf_z(conf)
    limit = np.where(pairs > 0, elo_limit(pairs), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = pent @ PAIR_SCORES / n
        var = (pent * (PAIR_SCORES[None, :] - s[:, None]) ** 2).sum(axis=1) / n
        se, s_lo, s_hi = _score_interval(s, var, n, pairs, swept, z)
        sigma = np.sqrt(2.0 * var)
        m3 = (pent * (PAIR_SCORES[None, :] - s[:, None]) ** 3).sum(axis=1) / n
        m4 = (pent * (PAIR_SCORES[None, :] - s[:, None]) ** 4).sum(axis=1) / n
        t = (s - 0.5) / sigma
        t_var = (0.5 + t ** 2 * (m4 - var ** 2) / (4 * var ** 2)
                 - t * m3 / (np.sqrt(2.0) * var ** 1.5)) / n
        t_half = z * np.sqrt(np.maximum(t_var, 0.0))
        los = np.where(se > 0, scipy.special.ndtr((s - 0.5) / se),
                       np.where(s > 0.5, 1.0, np.where(s < 0.5, 0.0, 0.5)))

        def elo(x):
            return np.clip(np.atleast_1d(elo_from_score(x)), -limit, limit)

        def nelo(x):
            return np.where(sigma > 0, x * NELO_PER_T, np.nan)

        return {
            "pairs": pairs.astype(np.int64), "pair_score": s, "pair_var": var, "se": se,
            "swept": swept, "elo": elo(s), "elo_lo": elo(s_lo), "elo_hi": elo(s_hi),
            # (the sign of nelo is that of s - 1/2: its interval keeps the score's sign)
            "nelo": nelo(t),
            "nelo_lo": nelo(np.where(s_lo > 0.5, np.maximum(t - t_half, 0.0), t - t_half)),
            "nelo_hi": nelo(np.where(s_hi < 0.5, np.minimum(t + t_half, 0.0), t + t_half)),
            "los": np.where(pairs > 0, los, np.nan),
        }


def pairing_table(games, order: Sequence[str] | None = None,
                  conf: float = 0.95) -> pd.DataFrame:
    """Head-to-head results per pairing, with paired (pentanomial) Elo statistics.

    ``games``: a games frame or its :class:`GameCounts`. Columns, A being the first of the
    two in ``order`` (alphabetical by default):

    * ``a, b``; ``games`` (all non-mirror games), ``pairs`` (complete deal pairs),
      ``unpaired`` (games without their twin: left out of every pair statistic);
    * ``a_wins, a_draws, a_losses, score``: A's results and mean score over all games;
    * ``p0 .. p4``: deal pairs in which A scored 0, .25, .5, .75, 1;
    * ``elo, elo_lo, elo_hi, nelo, nelo_lo, nelo_hi, los``: from the pair scores, see
      :func:`pair_score_stats` (fishtest ``stat_util.get_elo``);
    * ``a_win_lo, a_win_hi, a_draw_lo, a_draw_hi, a_loss_lo, a_loss_hi``: A's rates'
      95% intervals over all games (Wilson's at the effective sample size, each deal pair a
      cluster and every other game one: :func:`_pairing_clusters`; without the deal pairs,
      the games as independent trials);
    * ``var_ratio``: variance of the mean score estimated from pairs, ``v_pair / pairs``,
      over the variance the same games would give as independent trinomial games,
      ``v_game / (2 pairs)``, i.e. ``2 v_pair / v_game``. Below 1: the duplicate deals
      cancelled some of the luck of the deal. NaN (undefined) where the games' scores do
      not vary, and for a sweep (one side won every pair).

    Rows by (A, B) in ``order``. Every value is finite except those said to be NaN
    (undefined): no pairs, or no variance (see :func:`pair_score_stats` for sweeps).

    >>> t = pairing_table(_example_games())
    >>> t[["a_wins", "a_draws", "a_losses", "unpaired"]].iloc[0].tolist()
    [2, 1, 1, 0]
    >>> round(float(t["elo"][0]), 1), round(float(t["los"][0]), 3)
    (88.7, 0.681)
    """
    c = as_counts(games, order, PAIR_COLUMNS)
    pa, pb, tri_all, pent, tri_paired = _pairing_counts(c)
    st = pair_score_stats(pent, conf)
    n_games = tri_all.sum(axis=1)
    pairs = st["pairs"]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = st["pair_score"]
        var_game = (tri_paired * (GAME_SCORES[None, :] - s[:, None]) ** 2).sum(axis=1)
        var_game = var_game / tri_paired.sum(axis=1)
        var_ratio = np.where(st["swept"] | ~(var_game > 0), np.nan,
                             2.0 * st["pair_var"] / var_game)
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
    real = c.a != c.b
    if c.pair_tri is not None:
        pvar, _, d = _pairing_clusters(c)
    for code, name in ((2, "win"), (1, "draw"), (0, "loss")):
        hits = tri_all[:, code]
        if c.pair_tri is None:
            lo, hi = wilson_interval(hits, n_games, conf)
        else:
            lo, hi = wilson_design(hits, n_games, pvar[real, code], conf, units=d[real])
        frame.insert(len(frame.columns) - 1, f"a_{name}_lo", np.atleast_1d(lo))
        frame.insert(len(frame.columns) - 1, f"a_{name}_hi", np.atleast_1d(hi))
    return frame


# --------------------------------------------------------------------------------------
# Seat, first attacker, game length
# --------------------------------------------------------------------------------------
def _with_deals(games, columns: list) -> list:
    """``columns``, and a frame's ``seed`` and ``deal`` when it has them (the clusters)."""
    if isinstance(games, pd.DataFrame) and {"seed", "deal"} <= set(games.columns):
        return columns + ["seed", "deal"]
    return columns


def _advantage(c: GameCounts, wins: np.ndarray, sums, column: int, conf) -> pd.DataFrame:
    """The rows of :func:`first_attacker_advantage`: with the per-deal ``sums`` (the games of
    a deal are one cluster; over all pairings, ``deal_counts[:, column]`` the wins), the
    clustered interval and test; without them, Wilson's and the binomial test over games."""
    pa, pb = c.labels()
    per = np.stack([c.games, c.decisive, wins], axis=1)
    t = np.vstack([per.sum(axis=0, keepdims=True), per]).astype(np.int64)
    frame = pd.DataFrame({"a": pd.Series([ALL] + pa, dtype=object),
                          "b": pd.Series([ALL] + pb, dtype=object),
                          "games": t[:, 0], "decisive": t[:, 1], "wins": t[:, 2]})
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rate"] = t[:, 2] / t[:, 1]
    if sums is None:
        lo, hi = wilson_interval(t[:, 2], t[:, 1], conf)
        p = [scipy.stats.binomtest(int(w), int(d)).pvalue if d else np.nan
             for w, d in zip(t[:, 2], t[:, 1])]
    else:
        total = sums.sum(axis=0)
        if c.deal_counts is not None:   # over every pairing: a deal is one cluster of them all
            m, x = c.deal_counts[:, 0], c.deal_counts[:, column]
            total = np.array([m @ m, x @ x, x @ m, len(m)], np.int64)
        smm, sxx, sxm, deals = np.vstack([total, sums]).T
        var = ratio_variance(t[:, 2], t[:, 1], sxx, sxm, smm, deals)
        lo, hi = wilson_design(t[:, 2], t[:, 1], var, conf, units=deals, clusters=deals)
        # rate = 1/2 tested with the deals' variance about 1/2 (t with D - 1 df)
        with np.errstate(divide="ignore", invalid="ignore"):
            v0 = deals / (deals - 1) * (sxx - sxm + smm / 4) / (t[:, 1] ** 2.0)
            z = (t[:, 2] / t[:, 1] - 0.5) / np.sqrt(v0)
            p = np.where(v0 > 0, 2 * scipy.stats.t.sf(np.abs(z), np.maximum(deals - 1, 1)),
                         1.0)
        p = np.where((deals >= 2) & (t[:, 1] > 0), p, np.nan)
    frame["lo"], frame["hi"] = np.atleast_1d(lo), np.atleast_1d(hi)
    frame["p_value"] = p
    return frame


def first_attacker_advantage(games, order: Sequence[str] | None = None,
                             conf: float = 0.95) -> pd.DataFrame:
    """How often the first attacker wins a decisive game, overall and per pairing.

    ``games``: a games frame or its :class:`GameCounts`. Columns ``a, b, games, decisive,
    wins, rate, lo, hi, p_value``: ``wins`` = decisive games the first attacker won,
    ``rate = wins / decisive``. The games of a deal (its seat-swapped pair, and in a round
    robin its games in every pairing) share its cards, so the deal is the unit: ``lo, hi`` is Wilson's interval at the effective sample
    size of the rate's variance over deals, ``p_value`` the two-sided test of rate = 1/2
    with the deals' variance about 1/2 (Student's t, deals - 1 degrees of freedom;
    :mod:`durak_sim.clustered`). Counts without the deals (no ``seed``, ``deal``): Wilson's
    interval and the exact binomial test over games. The first row (``a = b = "*"``) is
    every game; then one row per pairing (mirror matches included).

    >>> first_attacker_advantage(_example_games())[["a", "b", "decisive", "wins"]]
          a       b  decisive  wins
    0     *       *         3     1
    1  easy  random         3     1
    """
    c = as_counts(games, order, _with_deals(games, ["outcome", "durak", "first_attacker"]))
    return _advantage(c.require("tri", "first_wins"), c.first_wins, c.first_sums, 2, conf)


def seat_advantage(games, order: Sequence[str] | None = None,
                   conf: float = 0.95) -> pd.DataFrame:
    """How often seat 0 wins a decisive game, overall and per pairing.

    Same columns as :func:`first_attacker_advantage`, ``wins`` counting seat-0 wins.

    >>> seat_advantage(_example_games())[["a", "b", "decisive", "wins", "rate"]]
          a       b  decisive  wins      rate
    0     *       *         3     2  0.666667
    1  easy  random         3     2  0.666667
    """
    c = as_counts(games, order, _with_deals(games, ["outcome", "durak"]))
    return _advantage(c.require("tri", "seat0_wins"), c.seat0_wins, c.seat0_sums, 1, conf)


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
    rows = [length_row(h_bouts, h_cards)
            for h_bouts, h_cards in [(c.bouts.sum(axis=0), c.cards_left.sum(axis=0)),
                                     *zip(c.bouts, c.cards_left)]]
    t = pd.DataFrame(rows, columns=list(rows[0]))
    floats = [col for col in t.columns if col not in ("games", "decisive")]
    t = t.astype({"games": np.int64, "decisive": np.int64, **{f: float for f in floats}})
    t.insert(0, "b", pd.Series([ALL] + pb, dtype=object))
    t.insert(0, "a", pd.Series([ALL] + pa, dtype=object))
    return t

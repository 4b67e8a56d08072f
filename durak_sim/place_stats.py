"""Statistics of tournaments at tables of three to six players, from a
:class:`durak_sim.place_counts.PlaceTally`: places, Durak, first-out and draw rates with
Wilson 95% intervals, the mean place with a deal-bootstrap interval, results by seat, by
position after the first attacker and by team, game length, and the Plackett-Luce ratings.

**Plackett-Luce** (:mod:`durak_sim.plackett_luce`): a game's places are read as choices of
the seat that goes out next, first out first, until a tie (the seats of a draw, or of the
losing team, share the last place). A strategy twice at a table is two seats of one
strength. At two players this is Bradley-Terry.

Prior: every two strategies that met at a table get one virtual choice between the two of
them that each won half of (always: with millions of choices it moves no rating measurably,
and the coverage of the intervals is right, benchmarks/RESULTS.md): a strategy that always
won still gets a finite rating. Ratings are
``400 log10 pi`` (the Elo scale), field mean 0; 95% intervals are percentiles of the fits
to the deal bootstrap's resamples (:mod:`durak_sim.place_counts`), the prior in each,
widened for few deals (:func:`_quantiles`). A
resample that drew no game (every deal weighted 0: likely only with a handful of deals)
holds no data, only the prior: it is left out of the intervals, not taken as a fit of 0.
A strategy seen in a single deal has no rating interval (every resample is that deal), nor
has a rating difference of two strategies that met in a single deal.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .plackett_luce import elo_of, place_probabilities, plackett_luce
from .stats import ELO_PER_NAT, wilson_interval

ALL = "*"


def _prior(tally) -> tuple[np.ndarray, np.ndarray]:
    """The virtual choices: per two strategies that met at a table, one choice between
    them that each won half of."""
    k = len(tally.names)
    wins, set_n = np.zeros(k), np.zeros(len(tally.sets))
    met = set()
    for li, codes in enumerate(tally.codes):
        if tally.games[li]:
            c = sorted(set(codes.tolist()))
            met |= {(a, b) for i, a in enumerate(c) for b in c[i + 1:]}
    for a, b in sorted(met):
        v = [0] * k
        v[a] = v[b] = 1
        wins[[a, b]] += 0.5
        set_n[tally.set_index[tuple(v)]] += 1.0
    return wins, set_n


def pl_ratings(tally, conf: float = 0.95, fits: dict | None = None) -> pd.DataFrame:
    """Plackett-Luce ratings of the strategies that played (module docstring): columns
    ``strategy, rating, lo, hi, games`` (seat-games), in ``tally.names`` order. ``fits``, a
    dict, receives the ratings of the tally and of each resample: ``fits[name]`` an array
    (1 + resamples,), for paired differences (:func:`head_to_head`). Fewer than two
    strategies: ``ValueError``."""
    present = np.flatnonzero(tally.place_hist.sum(axis=(0, 2)) > 0)
    if len(present) < 2:
        raise ValueError("a rating needs at least two strategies that played")
    group = {int(x): int(x) for x in present}           # strategies that met, joined

    def root(x: int) -> int:
        while group[x] != x:
            x = group[x]
        return x

    for li, codes in enumerate(tally.codes):
        if tally.games[li]:
            for x in codes[1:]:
                group[root(int(x))] = root(int(codes[0]))
    if len({root(int(x)) for x in present}) > 1:
        raise ValueError("the strategies fall into groups that never met at a table")
    k = len(tally.names)
    keep_sets = np.array([sum(s[i] for i in present) == sum(s) for s in tally.sets])
    m = np.asarray(tally.sets, dtype=float)[keep_sets][:, present]
    pw, pn = _prior(tally)
    wins = np.vstack([tally.wins + pw, tally.boot_pl[:, :k] + pw])[:, present]
    set_n = np.vstack([tally.set_n + pn, tally.boot_pl[:, k:] + pn])[:, keep_sets]
    elo = np.vstack([elo_of(plackett_luce(wins[i:i + 100], set_n[i:i + 100], m))
                     for i in range(0, len(wins), 100)])
    empty = tally.boot_pl[:, :k].sum(axis=1) == 0      # resamples that drew no game
    elo[1:][empty] = np.nan
    deals = np.array([_deals_of(tally, int(i)) for i in present])
    lo, hi = _quantiles(elo[1:], conf, deals)
    one = deals < 2
    lo[one] = hi[one] = np.nan   # resamples of a single deal are that deal: no interval
    if fits is not None:
        fits.update({tally.names[i]: elo[:, j] for j, i in enumerate(present)})
    return pd.DataFrame({"strategy": pd.Series([tally.names[i] for i in present], dtype=object),
                         "rating": elo[0], "lo": lo, "hi": hi,
                         "games": tally.place_hist.sum(axis=(0, 2))[present]})


def model_rates(tally, ratings: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The first-out and last-place rates of the strategies of ``ratings`` (its order) under
    the fitted model, to set beside the observed ones as a check of its fit: each seat's
    chances (:func:`~durak_sim.plackett_luce.place_probabilities`) in every line-up it
    played, weighted by the games, over its seat-games. Without teams the last place is the
    Durak's (a draw aside); with teams it is not a team's loss: the second is undefined."""
    theta = dict(zip(ratings["strategy"], ratings["rating"] / ELO_PER_NAT))
    k = len(tally.names)
    first, last, seats = np.zeros(k), np.zeros(k), np.zeros(k)
    for li, codes in enumerate(tally.codes):
        th = [theta.get(tally.names[c], np.nan) for c in codes]
        if tally.games[li] and np.isfinite(th).all():
            p = place_probabilities(th) * tally.games[li]
            np.add.at(first, codes, p[:, 0])
            np.add.at(last, codes, p[:, -1])
            np.add.at(seats, codes, tally.games[li])
    idx = [tally.names.index(x) for x in ratings["strategy"]]
    with np.errstate(invalid="ignore", divide="ignore"):
        mf, ml = first[idx] / seats[idx], last[idx] / seats[idx]
    return mf, np.full_like(ml, np.nan) if tally.teams else ml


def head_to_head(tally, order: Sequence[str], fits: dict | None = None,
                 conf: float = 0.95) -> pd.DataFrame:
    """Every two strategies that met at a table, ``a`` before ``b`` in ``order`` (the
    ratings' order): their meetings (two seats of one game; with teams, opponents only),
    ``a``'s games ahead of ``b``, ties and behind, ``a``'s ``score`` (ahead 1, tie 1/2), the
    places ``a`` finished ahead of ``b`` on average (``places``) and, from ``fits``
    (:func:`pl_ratings`), the rating difference ``elo``; each with a deal-bootstrap
    percentile interval. The same deals in every seating, compared within each resample:
    paired, so these intervals are much narrower than the gap between two strategies' own.

    >>> from durak_sim.place_counts import PlaceTally
    >>> t = PlaceTally(["a", "b"], 3, [("a", "b", "b")], False, 1, np.array([1]),
    ...                [[(0, 1, 2)]])
    >>> places = np.array([[1, 2, 3], [2, 1, 3], [3, 1, 2]])
    >>> t.add(("a", "b", "b"), np.array([0, 1, 2]), np.zeros(3, np.int64),
    ...       {**{f"place{s}": places[:, s] for s in range(3)}, "outcome": np.zeros(3),
    ...        "durak": places.argmax(axis=1), "durak_team": np.full(3, -1),
    ...        "first_attacker": np.zeros(3, np.int64), "bouts": np.ones(3, np.int64),
    ...        "cards_left": np.ones(3, np.int64)})
    >>> r = head_to_head(t, ["a", "b"]).iloc[0]
    >>> int(r.games), int(r.ahead), int(r.behind), float(r.score), float(r.places)
    (6, 3, 3, 0.5, 0.0)
    """
    idx = {x: i for i, x in enumerate(tally.names)}
    n_p = len(tally.h2h)
    fits = fits or {}
    rows, flat = [], []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            x, y = idx[a], idx[b]
            sign = 1 if x < y else -1
            c = tally.pair_index[min(x, y), max(x, y)]
            score2, games, ahead, ties = tally.h2h[c]
            if not games:
                continue
            boot = tally.boot_h2h[:, [c, n_p + c, 2 * n_p + c]]
            low_won = (score2 - ties) // 2               # games the lower code was ahead
            won, lost = (low_won, games - ties - low_won)[::sign]
            with np.errstate(invalid="ignore", divide="ignore"):
                s_boot = boot[:, 0] / (2 * boot[:, 1])
                p_boot = sign * boot[:, 2] / boot[:, 1]
            row = {"a": a, "b": b, "games": games, "ahead": won, "ties": ties, "behind": lost,
                   "score": (won + ties / 2) / games, "places": sign * ahead / games}
            intervals = {"score": s_boot if sign > 0 else 1 - s_boot, "places": p_boot}
            if a in fits and b in fits:
                diff = fits[a] - fits[b]
                row["elo"] = diff[0]
                intervals["elo"] = diff[1:]
            met = _deals_of(tally, x, y)
            ranges = {"score": (0, 1), "places": (1 - tally.players, tally.players - 1)}
            for name, v in intervals.items():
                lo, hi = _quantiles(v[:, None], conf, met, *ranges.get(name, (-np.inf, np.inf)))
                if name in ranges:
                    lo, hi = _not_degenerate(lo, hi, row[name], met, *ranges[name], conf)
                row[f"{name}_lo"], row[f"{name}_hi"] = float(lo[0]), float(hi[0])
            if "elo" in row and met < 2:   # one deal: its resamples are that deal
                row["elo_lo"] = row["elo_hi"] = np.nan
            elif "elo" in row and np.isfinite(row["elo"]) and _flat(row["elo_lo"], row["elo_hi"],
                                                                  row["elo"]):
                row["elo_lo"], row["elo_hi"] = _elo_of_score_interval(row, games)
                flat.append(f"{a} - {b}")
            rows.append(row)
    columns = ["a", "b", "games", "ahead", "ties", "behind", "score", "score_lo", "score_hi",
               "places", "places_lo", "places_hi", "elo", "elo_lo", "elo_hi"]
    out = pd.DataFrame(rows, columns=columns)
    out = out.astype({c: object for c in ("a", "b")} | {
        c: np.int64 for c in ("games", "ahead", "ties", "behind")} | {
        c: float for c in columns[6:]})
    out[columns[6:]] += 0.0   # -0.0 (a mirrored zero) as 0.0
    out.attrs["elo_from_score"] = flat     # the differences :func:`_elo_of_score_interval` gave
    return out


def _flat(lo, hi, est):
    """An interval of no width but for rounding (resamples alike to ~1e-14 when other
    strategies share the table). Vectorised."""
    with np.errstate(invalid="ignore"):
        return ~(np.asarray(hi) - lo > 1e-9 * np.maximum(1.0, np.abs(est)))


def _elo_of_score_interval(row: dict, games: int) -> tuple[float, float]:
    """A rating difference whose resamples were all alike (every deal came out the same for
    the two, as between two strategies that play alike): the score's interval (Wilson's on
    the deals, :func:`_not_degenerate`) as an Elo difference about the estimate, a share of
    0 or 1 held at ``1 / (4 m + 2)`` of the ``m`` meetings as the match's head-to-head
    does. So a few deals never make a rating difference certain either.

    >>> lo, hi = _elo_of_score_interval({"elo": 0.0, "score": 0.5, "score_lo": 0.3315,
    ...                                  "score_hi": 0.6685}, 180)
    >>> round(lo, 1), round(hi, 1)
    (-121.8, 121.8)
    """
    from .elo import elo_of_share

    e, lo, hi = (elo_of_share(row[k], games) for k in ("score", "score_lo", "score_hi"))
    return row["elo"] + lo - e, row["elo"] + hi - e


def widen_flat_ratings(ratings: pd.DataFrame, h2h: pd.DataFrame) -> list[str]:
    """Ratings whose resamples were all alike (a field whose every deal came out alike for
    each strategy: strategies that play alike, or a handful of deals) get, in place, an
    interval of the widest head-to-head difference of that strategy (its Elo fallback,
    :func:`_elo_of_score_interval`) times ``(k - 1) / k`` for ``k`` rated strategies, about
    the rating: a rating is the mean of its ``k - 1`` differences times that factor.
    Returns the strategies so widened."""
    k = int(np.isfinite(ratings["rating"]).sum())
    widened = []
    for i, x in ratings.iterrows():
        if not (np.isfinite(x["rating"]) and np.isfinite(x["lo"])) or \
                not _flat(x["lo"], x["hi"], x["rating"]):
            continue
        mine = h2h[(h2h["a"] == x["strategy"]) | (h2h["b"] == x["strategy"])]
        half = ((mine["elo_hi"] - mine["elo_lo"]) / 2).max()
        if np.isfinite(half) and half > 0:
            ratings.loc[i, ["lo", "hi"]] = x["rating"] - half * (k - 1) / k, \
                x["rating"] + half * (k - 1) / k
            widened.append(x["strategy"])
    return widened


# --------------------------------------------------------------------------------------
# Places, seats, teams
# --------------------------------------------------------------------------------------
def _rate(out: dict, name: str, hits, n, var=None, conf: float = 0.95, units=None,
          trials=None) -> None:
    """Columns ``name``, ``name_rate``, ``name_lo``, ``name_hi``: Wilson, at the effective
    sample size of the rate's variance ``var`` when given (:mod:`durak_sim.clustered`;
    ``units``: the deals behind the ``n`` games, ``trials`` the games)."""
    from .clustered import wilson_design

    hits, n = np.asarray(hits), np.asarray(n)
    lo, hi = wilson_interval(hits, n, conf) if var is None else \
        wilson_design(hits, n, var, conf, units, trials=trials)
    with np.errstate(invalid="ignore", divide="ignore"):
        out.update({name: hits, f"{name}_rate": hits / n, f"{name}_lo": np.atleast_1d(lo),
                    f"{name}_hi": np.atleast_1d(hi)})


def place_counts_of(tally):
    """The tally's totals as the :class:`durak_sim.table_match.PlaceCounts` of a match."""
    from .table_match import PlaceCounts

    n = tally.players
    # per partnership (line-up positions of one parity): a seating puts it on the seats of
    # the parity of the position on seat 0
    team_lost = np.zeros(2, np.int64)
    for li in range(len(tally.lineups)):
        for g, perm in enumerate(tally.seatings[li]):
            even, odd = tally.team[li, g, :2]
            team_lost += (even, odd) if perm[0] % 2 == 0 else (odd, even)
    return PlaceCounts(list(tally.names), n, tally.place_hist.sum(axis=(0, 2)),
                       tally.place_hist.sum(axis=0), tally.lost.sum(axis=0),
                       tally.drawn.sum(axis=0), tally.first.sum(axis=0), tally.seat[:, 0],
                       tally.seat[:, 1], tally.seat[:, 2], team_lost,
                       int(tally.team[:, :, 2].sum()), int(tally.deals.sum()))


def mean_place(tally, conf: float = 0.95) -> pd.DataFrame:
    """Per strategy (``tally.names`` order) its mean place with a deal-bootstrap percentile
    interval (widened for few deals: :func:`_quantiles`): ``strategy, mean_place,
    mean_place_lo, mean_place_hi``."""
    k = len(tally.names)
    g = tally.place_hist.sum(axis=(0, 2))
    total = (tally.place_hist * np.arange(1, tally.players + 1)).sum(axis=(0, 2))
    boot = tally.boot_place.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / g
        ratio = boot[:, :k] / boot[:, k:]
    deals = [_deals_of(tally, i) for i in range(k)]
    lo, hi = _quantiles(ratio, conf, deals, 1, tally.players)
    lo, hi = _not_degenerate(lo, hi, mean, deals, 1, tally.players, conf,
                             trials=[_games_of(tally, i) for i in range(k)])
    return pd.DataFrame({"strategy": pd.Series(tally.names, dtype=object), "mean_place": mean,
                         "mean_place_lo": lo, "mean_place_hi": hi})


def _over_lineups(per_lineup, tally, *codes: int) -> int:
    """The sum of ``per_lineup`` over the line-ups that seat every strategy of ``codes``."""
    return int(sum(per_lineup[li] for li, c in enumerate(tally.codes)
                   if all(x in c.tolist() for x in codes)))


def _deals_of(tally, *codes: int) -> int:
    """The deals behind the line-ups that seat every strategy of ``codes``: the clusters
    of their intervals. Every line-up plays the same deals (the seed contract) and the
    bootstrap resamples a deal in all of them at once, so this counts each deal once,
    however many of them played it (:meth:`PlaceTally.deals_in`)."""
    return tally.deals_in([li for li, c in enumerate(tally.codes)
                           if all(x in c.tolist() for x in codes)])


def _games_of(tally, code: int) -> int:
    """The games that seat strategy ``code`` (once or more)."""
    return _over_lineups(tally.games, tally, code)


def _not_degenerate(lo, hi, est, n_deals, low: float, high: float, conf: float,
                    trials=None):
    """The bootstrap's percentile interval, except where it has no width (every resample
    alike: one deal, or deals that all came out the same): there Wilson's interval on the
    range ``low..high`` with the deals as the sample (:func:`durak_sim.clustered.
    bounded_interval`), so that a handful of deals is never reported as certain. Given
    ``trials`` (the games behind a mean place), an estimate at an end of the range from two
    deals or more is taken as the rates are (:func:`durak_sim.clustered.wilson_design`):
    the games as the sample, with the deals' degrees of freedom, so that a strategy last in
    every game has a mean place and a Durak rate of the same certainty."""
    from .clustered import bounded_interval

    lo, hi = np.array(lo, float, ndmin=1), np.array(hi, float, ndmin=1)
    flat = _flat(lo, hi, est) & np.isfinite(np.asarray(est, float))
    if flat.any() and trials is not None:
        d = np.maximum(np.asarray(n_deals, float), 1)
        w_lo, w_hi = bounded_interval(est, np.where(d >= 2, 0.0, np.nan), trials, low, high,
                                      conf, units=d, clusters=d, trials=trials)
    elif flat.any():
        w_lo, w_hi = bounded_interval(est, np.nan, np.maximum(n_deals, 1), low, high, conf)
    if flat.any():
        lo = np.where(flat, np.broadcast_to(w_lo, lo.shape), lo)
        hi = np.where(flat, np.broadcast_to(w_hi, hi.shape), hi)
    return lo, hi


def _quantiles(x: np.ndarray, conf: float, deals=None, low: float = -np.inf,
               high: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column, over the finite values (NaN where none), widened
    about its midpoint for the few-deal case by ``sqrt(D / (D - 1)) t(D - 1) / z`` with
    ``D`` the column's deals (``deals``, a number or one per column): the factor by which a
    t interval on ``D`` deals is wider than the normal interval that the bootstrap's
    spread stands for (the bootstrap's variance of a mean is ``(D - 1) / D`` of the
    unbiased one; Hesterberg 2015, *What teachers should know about the bootstrap*, The
    American Statistician 69:371, on the percentile interval's narrowness in small
    samples). At 1,000 deals the factor is 1.0017, at 5,000 1.0003; at two deals, 9.2.
    Clipped to ``[low, high]``."""
    import scipy.stats

    lo = np.full(x.shape[1], np.nan)
    hi = np.full(x.shape[1], np.nan)
    for j in range(x.shape[1]):
        v = x[:, j][np.isfinite(x[:, j])]
        if len(v):
            lo[j], hi[j] = np.quantile(v, [0.5 - 0.5 * conf, 0.5 + 0.5 * conf])
    if deals is not None:
        d = np.broadcast_to(np.asarray(deals, float), lo.shape)
        q = 0.5 + 0.5 * conf
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(d >= 2, np.sqrt(d / (d - 1)) * scipy.stats.t.ppf(q, np.maximum(d - 1, 1))
                         / scipy.stats.norm.ppf(q), 1.0)
        mid = 0.5 * (lo + hi)
        lo = np.maximum(mid - f * (mid - lo), low)
        hi = np.minimum(mid + f * (hi - mid), high)
    return lo, hi


def _boot_var(hits: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Per column the deal-bootstrap variance of ``hits / games`` (resamples in rows)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(games > 0, hits / games, np.nan)
        ok = np.isfinite(r)
        count = ok.sum(axis=0)
        mean = np.where(ok, r, 0.0).sum(axis=0) / count
        var = np.where(ok, (r - mean) ** 2, 0.0).sum(axis=0) / count
    return np.where(count >= 2, var, np.nan)


def _rate_variances(tally) -> np.ndarray:
    """(K, 3): the variance of each strategy's Durak, first-out and draw rates, with the
    deals as clusters (:mod:`durak_sim.clustered`): from its line-up's sums of squares
    when it played in one line-up, else (its line-ups share deals) from the deal
    bootstrap."""
    k = len(tally.names)
    b = tally.boot_rates
    var = np.stack([_boot_var(b[:, j * k:(j + 1) * k], b[:, 3 * k:]) for j in range(3)],
                   axis=1)
    for x in range(k):
        used = np.flatnonzero(tally.place_hist[:, x].sum(axis=1))
        if len(used) == 1:
            li = used[0]
            var[x] = _lineup_variances(tally, np.array([li]), np.array([x]))[0]
    return var


def _lineup_variances(tally, li: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """(rows, 3): the clustered variance of the Durak, first-out and draw rates of strategy
    ``xi`` in line-up ``li`` (its deals independent)."""
    from .clustered import ratio_variance

    c = tally.clus[li, xi]                                          # (rows, 9)
    g = tally.place_hist[li, xi].sum(axis=1)
    deals = tally.deals[li]
    return np.stack([ratio_variance(hits[li, xi], g, c[:, 1 + 2 * j], c[:, 2 + 2 * j],
                                    c[:, 0], deals)
                     for j, hits in enumerate((tally.lost, tally.first, tally.drawn))], axis=1)


def strategy_table(tally, conf: float = 0.95) -> pd.DataFrame:
    """Per strategy that played: seat-games, first-out, Durak and draw counts and rates
    with Wilson intervals at the deals' effective sample size (:mod:`durak_sim.clustered`),
    the mean place with its deal-bootstrap interval, and the games in each place
    (``place1`` ..)."""
    from .clustered import wilson_design
    from .table_match import place_table

    t = place_table(place_counts_of(tally))
    if "score" in t.columns:
        t = t.drop(columns="score")
    rows = [tally.names.index(x) for x in t["strategy"]]
    var = _rate_variances(tally)[rows]
    deals = [_deals_of(tally, i) for i in rows]
    games = [_games_of(tally, i) for i in rows]
    for j, name in enumerate(("durak", "first", "draw")):
        lo, hi = wilson_design(t[name].to_numpy(), t["games"].to_numpy(), var[:, j], conf,
                               deals, trials=games)
        t[f"{name}_lo"], t[f"{name}_hi"] = np.atleast_1d(lo), np.atleast_1d(hi)
    mp = mean_place(tally, conf).set_index("strategy").loc[list(t["strategy"])]
    for c in ("mean_place", "mean_place_lo", "mean_place_hi"):
        t[c] = mp[c].to_numpy()
    return t


def _positions_table(counts: np.ndarray, label: str, boot: np.ndarray,
                     deals: int, conf: float = 0.95) -> pd.DataFrame:
    """Rows per seat (or position): games, Durak and first-out rates with Wilson intervals
    at the deals' effective sample size, the mean place with a deal-bootstrap interval (as
    :func:`mean_place`); ``counts`` (N, 4) games, lost, first out, place sum; ``boot``
    (B, 3N + 1) the resampled games lost, first out, games and place sums."""
    n = len(counts)
    out = {label: np.arange(n), "games": counts[:, 0]}
    games = boot[:, 2 * n:2 * n + 1]
    _rate(out, "durak", counts[:, 1], counts[:, 0], _boot_var(boot[:, :n], games), units=deals)
    _rate(out, "first", counts[:, 2], counts[:, 0], _boot_var(boot[:, n:2 * n], games),
          units=deals)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["mean_place"] = counts[:, 3] / counts[:, 0]
        ratio = boot[:, 2 * n + 1:] / games
    lo, hi = _quantiles(ratio, conf, deals, 1, n)
    out["mean_place_lo"], out["mean_place_hi"] = _not_degenerate(
        lo, hi, out["mean_place"], deals, 1, n, conf, trials=counts[:, 0])
    return pd.DataFrame(out)


def seat_table(tally) -> pd.DataFrame:
    """Durak, first-out rate and mean place by seat."""
    n = tally.players
    return _positions_table(tally.seat, "seat",
                            tally.boot_pos[:, np.r_[0:2 * n, 4 * n:5 * n + 1]],
                            _deals_of(tally))


def first_attacker_table(tally) -> pd.DataFrame:
    """The same by position after the first attacker: ``(seat - first attacker) mod N``
    (0: the first attacker, 1: its defender, ...)."""
    n = tally.players
    return _positions_table(tally.rel, "position",
                            tally.boot_pos[:, np.r_[2 * n:4 * n + 1, 5 * n + 1:6 * n + 1]],
                            _deals_of(tally))


def lineup_label(key: Sequence[str]) -> str:
    return ", ".join(key)


def lineup_table(tally, order: Sequence[str]) -> pd.DataFrame:
    """Per line-up and each strategy in it (``order``): deals, seat-games, mean place,
    Durak, first-out and draw rates with Wilson intervals at the deals' effective sample
    size (the line-up's deals independent: :mod:`durak_sim.clustered`; the mean place's is
    Wilson's on its range, :func:`durak_sim.clustered.bounded_interval`)."""
    from .clustered import bounded_interval, ratio_variance

    idx = {x: i for i, x in enumerate(tally.names)}
    rows = [(li, idx[x]) for li, key in enumerate(tally.lineups) if tally.games[li]
            for x in order if x in key]
    li, xi = (np.array([r[j] for r in rows], np.int64) for j in (0, 1))
    h = tally.place_hist[li, xi]                                   # (rows, places)
    g = h.sum(axis=1)
    place_sum = h @ np.arange(1, tally.players + 1)
    out = {"lineup": pd.Series([lineup_label(tally.lineups[i]) for i in li], dtype=object),
           "strategy": pd.Series([tally.names[i] for i in xi], dtype=object),
           "deals": tally.deals[li], "games": g,
           "mean_place": place_sum / g}
    c = tally.clus[li, xi]
    place_var = ratio_variance(place_sum, g, c[:, 7], c[:, 8], c[:, 0], tally.deals[li])
    out["mean_place_lo"], out["mean_place_hi"] = (np.atleast_1d(b) for b in bounded_interval(
        out["mean_place"], place_var, g, 1, tally.players, units=tally.deals[li],
        trials=tally.games[li]))
    var = _lineup_variances(tally, li, xi)
    for j, (name, hits) in enumerate((("durak", tally.lost), ("first", tally.first),
                                      ("draw", tally.drawn))):
        _rate(out, name, hits[li, xi], g, var[:, j], units=tally.deals[li],
              trials=tally.games[li])
    return pd.DataFrame(out)


def team_table(tally) -> pd.DataFrame:
    """With teams: per team (the strategies of one partnership) and opponents, the team's
    games, wins, losses and draws, with Wilson intervals for losses and draws at the deals'
    effective sample size (a row's games all come from one line-up). A team that met more
    than one pair of opponents (a field larger than the table) has one more row, opponents
    ``*``: all its games, the variances then from the deal bootstrap (its line-ups share
    the deals)."""
    from .clustered import ratio_variance
    from .place_counts import team_pair_keys

    acc: dict = {}
    played_in: dict = {}                              # per team the line-ups it played in
    for li, key in enumerate(tally.lineups):
        for g, perm in enumerate(tally.seatings[li]):
            even, odd, drawn = tally.team[li, g]
            pair_keys = team_pair_keys([key[p] for p in perm], tally.names)
            for q, (lost, won) in enumerate(((even, odd), (odd, even))):
                r = acc.setdefault(pair_keys[q], np.zeros(4, np.int64))
                r += (even + odd + drawn, won, lost, drawn)
                played_in.setdefault(pair_keys[q][0], set()).add(li)
    rows = sorted((k, v) for k, v in acc.items() if v[0])
    # team_clus: [m m, lost x x, lost x m, drawn x x, drawn x m, deals]
    c = np.array([tally.team_clus.get(k, np.full(6, np.nan)) for k, _ in rows]).reshape(-1, 6)
    var = {j: ratio_variance(np.array([v[j] for _, v in rows], np.int64),
                             np.array([v[0] for _, v in rows], np.int64),
                             c[:, xx], c[:, xx + 1], c[:, 0], c[:, 5])
           for j, xx in ((2, 1), (3, 3))}
    entries = [(k, v, {j: var[j][r] for j in var}, c[r, 5]) for r, (k, v) in enumerate(rows)]
    t_n = len(tally.team_names)
    b = tally.boot_team
    for team in sorted({k[0] for k, _ in rows}):
        mine = [(k, v) for k, v in rows if k[0] == team]
        if len(mine) < 2:
            continue
        i = tally.team_names.index(team)
        entries.append(((team, ALL), sum(v for _, v in mine),     # (each deal once)
                        {j: _boot_var(b[:, [q * t_n + i]], b[:, [2 * t_n + i]])[0]
                         for j, q in ((2, 0), (3, 1))},
                        tally.deals_in(played_in[team])))
    entries.sort(key=lambda e: (e[0][0], e[0][1] == ALL, e[0][1]))
    games = np.array([v[0] for _, v, _, _ in entries], np.int64)
    units = np.array([u for *_, u in entries], float)
    out = {"team": pd.Series([k[0] for k, *_ in entries], dtype=object),
           "opponents": pd.Series([k[1] for k, *_ in entries], dtype=object),
           "games": games, "won": np.array([v[1] for _, v, _, _ in entries], np.int64)}
    for name, j in (("lost", 2), ("draws", 3)):
        _rate(out, name, np.array([v[j] for _, v, _, _ in entries], np.int64), games,
              np.array([w[j] for _, _, w, _ in entries], float), units=units)
    return pd.DataFrame(out)


def game_length_table(tally) -> pd.DataFrame:
    """Bouts per game and the Durak's cards left (decisive games), over every game
    (``lineup`` ``*``) and per line-up (:func:`durak_sim.stats.length_row`)."""
    from .stats import length_row

    rows, labels = [], []
    for label, b, c in [(ALL, tally.bouts.sum(axis=0), tally.cards.sum(axis=0)),
                        *((lineup_label(k), tally.bouts[i], tally.cards[i])
                          for i, k in enumerate(tally.lineups))]:
        if b.sum():
            rows.append(length_row(b, c))
            labels.append(label)
    t = pd.DataFrame(rows, columns=list(rows[0]))
    t = t.astype({c: (np.int64 if c in ("games", "decisive") else float) for c in t.columns})
    t.insert(0, "lineup", pd.Series(labels, dtype=object))
    return t


def convergence(tally, order: Sequence[str], conf: float = 0.95) -> pd.DataFrame:
    """Mean place per strategy as the deals accumulate (at ``tally.marks``), with its
    deal-bootstrap band: ``strategy, deals, mean_place, lo, hi`` (``deals``: those stored
    before the mark, fewer than it in an incomplete tournament)."""
    k = len(tally.names)
    done = tally.bucket_place[:, :, 1].sum(axis=1) > 0
    cum = np.cumsum(tally.bucket_place, axis=0)
    boot = np.cumsum(tally.boot_place, axis=0)
    frames = []
    for x in order:
        i = tally.names.index(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = cum[:, i, 0] / cum[:, i, 1]
            ratio = boot[:, :, i] / boot[:, :, k + i]
        lo, hi = _quantiles(ratio.T, conf, tally.marks, 1, tally.players)
        lo, hi = _not_degenerate(lo, hi, mean, tally.marks, 1, tally.players, conf)
        keep = done & np.isfinite(mean)
        mine = [li for li, lineup in enumerate(tally.lineups) if x in lineup]
        deals = tally.deals_before(mine, tally.marks)
        frames.append(pd.DataFrame({"strategy": x, "deals": deals[keep],
                                    "mean_place": mean[keep], "lo": lo[keep], "hi": hi[keep]}))
    return pd.concat(frames, ignore_index=True)


__all__ = ["convergence", "elo_of", "first_attacker_table", "game_length_table",
           "head_to_head", "lineup_table", "mean_place", "pl_ratings", "place_counts_of",
           "plackett_luce", "seat_table", "strategy_table", "team_table"]

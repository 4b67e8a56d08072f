"""Matches at tables of more than two players (R7, R8.4) and series of deals (R9): places,
Durak and first-out rates per strategy with Wilson 95% intervals, results by seat and by
team, counted block by block (bounded memory, as a two-player match).

>>> s = run_table_match(["easy", "random", "random"], deals=60, seed=3,
...                     rules=Rules(players=3))
>>> s.table.loc[0, "strategy"], int(s.table.loc[0, "games"])
('easy', 180)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .clustered import cluster_sums, per_deal_squares
from .errors import NOTHING_FINISHED, Interrupted, UserError
from .formatting import num, pct_ci, print_whole, secs, wide_console
from .limits import MAX_SERIES_DEALS
from .rules import Rules

#: in a series match the rates' clusters are blocks of this many consecutive deals of a
#: series: its deals depend on one another only through who deals next (R9.1), so blocks
#: hold that dependence while a few long series still give many clusters (series of the
#: default ten deals are one block each)
SERIES_BLOCK = 10


@dataclass
class PlaceCounts:
    """Counts of a set of games at one table: per strategy (``names``) its seat-games, how
    often it finished in each place, was a Durak (with teams: its team lost), was among the
    seats of a draw; per seat the same; with teams per partnership (the line-up's positions
    0, 2, 4 and 1, 3, 5, wherever a seating puts them) its lost games, and the drawn ones;
    series scores."""

    names: list
    players: int
    games: np.ndarray          # (strategies,)
    places: np.ndarray         # (strategies, players): finishes in place 1..players
    durak: np.ndarray          # (strategies,)
    draws: np.ndarray          # (strategies,)
    first: np.ndarray          # (strategies,): went out first (not in a draw)
    seat_games: np.ndarray     # (players,)
    seat_durak: np.ndarray
    seat_first: np.ndarray
    team_lost: np.ndarray      # (2,): per partnership
    team_draws: int = 0
    deals: int = 0
    score: np.ndarray | None = None   # series score per strategy (R9.2): +1 first out, -1 Durak
    #: the games' clusters (deals; in a series match blocks of ``SERIES_BLOCK`` consecutive
    #: deals of a series): how many, and the per-cluster sums of squares per strategy (K,
    #: 11: ``place_counts.CLUSTER_COLUMNS`` and the series score's) and per seat (N, 5:
    #: games, lost, first out) of :mod:`durak_sim.clustered`; None: not counted
    clusters: int = 0
    clus: np.ndarray | None = None
    seat_clus: np.ndarray | None = None
    #: head to head per two strategies ``x < y`` (row ``x * K + y``, (K * K, 8)): twice
    #: ``x``'s score (ahead 2, tied 1), meetings, places ahead, then the per-deal sums of
    #: squares ``[m m, s s, s m, p p, p m]`` of score (ahead 1, tied 1/2) and places
    #: (:mod:`durak_sim.clustered`)
    h2h: np.ndarray | None = None
    #: the card deals behind the games: the deals of a match (its seatings share one), every
    #: deal of a series. When a rate's variance says nothing (no hit, every hit) its
    #: interval takes at most this many independent trials (clustered.wilson_design)
    decks: int = 0
    #: with teams, per partnership (rows 0, 1) the per-deal sums ``[m m, x x, x m]`` of its
    #: lost games (:func:`durak_sim.clustered.cluster_sums`); None: not counted
    team_clus: np.ndarray | None = None
    #: games that the cap on play ended (rules E12: a draw among the seats still playing)
    capped: int = 0
    #: played with teams (E11): every member of the losing team is a Durak
    teams: bool = False
    #: a series match: how many series, and per strategy the per-series sums ``[m m, s s,
    #: s m]`` of its seat-games and series score (the series independent: R9.2's unit)
    series: int = 0
    series_clus: np.ndarray | None = None

    def merge(self, other: "PlaceCounts") -> "PlaceCounts":
        def add(a, b):
            return None if a is None or b is None else a + b

        return PlaceCounts(self.names, self.players, add(self.games, other.games),
                           add(self.places, other.places), add(self.durak, other.durak),
                           add(self.draws, other.draws), add(self.first, other.first),
                           add(self.seat_games, other.seat_games),
                           add(self.seat_durak, other.seat_durak),
                           add(self.seat_first, other.seat_first),
                           add(self.team_lost, other.team_lost),
                           self.team_draws + other.team_draws, self.deals + other.deals,
                           add(self.score, other.score), self.clusters + other.clusters,
                           add(self.clus, other.clus), add(self.seat_clus, other.seat_clus),
                           add(self.h2h, other.h2h), self.decks + other.decks,
                           add(self.team_clus, other.team_clus), self.capped + other.capped,
                           self.teams, self.series + other.series,
                           add(self.series_clus, other.series_clus))


def count_places(batch, names: list) -> PlaceCounts:
    """The :class:`PlaceCounts` of a played batch, from the kernel's result rows."""
    from .place_counts import seat_results
    from .play import _layout
    from .storage import capped_rows

    E = _layout()
    n = batch.rules.players
    r = batch.results
    k = len(names)
    lineup = np.array([names.index(s.name) for s in batch.strategies], dtype=np.int64)
    seat = np.arange(n)
    who = lineup[(seat[None, :] + batch.rots[:, None]) % n]          # (games, seats)
    places = r[:, E.R_PLACES:E.R_PLACES + n]
    draw = r[:, E.R_OUTCOME] == 1
    lost, in_draw, first = seat_results(places, r[:, E.R_OUTCOME], r[:, E.R_DURAK],
                                        r[:, E.R_DURAK_TEAM], batch.rules.teams)
    flat = who.ravel()
    by = (lambda w: np.bincount(flat, weights=w.ravel().astype(np.float64),
                                minlength=k).astype(np.int64))
    place_counts = np.zeros((k, n), np.int64)
    np.add.at(place_counts, (flat, np.clip(places.ravel() - 1, 0, n - 1)), 1)
    # the losing partnership: seat s holds the line-up's position (s + rot) % n, and with
    # teams n is even, so the team of seats of parity t is the partnership (t + rot) % 2
    dt = r[:, E.R_DURAK_TEAM]
    lost_p = np.where(dt >= 0, (dt + batch.rots) % 2, -1)
    team_lost = np.bincount(lost_p[lost_p >= 0], minlength=2)
    # the clusters: a deal's games (every seating); in a series, blocks of consecutive deals
    series_deal = getattr(batch, "series_deal", None)
    si = np.unique(np.asarray(batch.deals), return_inverse=True)[1].ravel()
    n_s = int(si.max()) + 1 if len(si) else 0
    di, n_d = si, n_s
    if series_deal is not None:
        di = np.unique(si * (MAX_SERIES_DEALS // SERIES_BLOCK + 1)
                       + np.asarray(series_deal) // SERIES_BLOCK, return_inverse=True)[1].ravel()
        n_d = int(di.max()) + 1 if len(di) else 0
    # a match's seatings of a deal share its cards; each game of a series is a deal of its own
    decks = n_d if series_deal is None else len(batch)
    score = first.astype(np.int64) - lost.astype(np.int64)       # R9.2, per seat-game
    clus, _ = per_deal_squares(di, n_d, who, k, lost, first, in_draw, places, score)
    series_clus = None if series_deal is None else \
        per_deal_squares(si, n_s, who, k, score)[0]
    seat_clus, _ = per_deal_squares(di, n_d, np.broadcast_to(seat, who.shape), n, lost, first)
    team_clus = np.array([cluster_sums(di, lost_p == p, n_d)[:3] for p in (0, 1)])
    return PlaceCounts(
        names, n, np.bincount(flat, minlength=k).astype(np.int64), place_counts, by(lost),
        by(in_draw), by(first), np.full(n, len(batch), np.int64), lost.sum(axis=0).astype(np.int64),
        first.sum(axis=0).astype(np.int64), team_lost[:2].astype(np.int64),
        int((draw & batch.rules.teams).sum()), len(batch),
        by(score), n_d, clus, seat_clus,
        _head_to_head(di, n_d, who, places, k, batch.rules.teams), decks, team_clus,
        int(capped_rows(r).sum()), bool(batch.rules.teams),
        n_s if series_deal is not None else 0, series_clus)


def _head_to_head(di, n_d: int, who, places, k: int, teams: bool) -> np.ndarray:
    """The (K * K, 8) head-to-head counts of a batch (``PlaceCounts.h2h``): every two
    seats of a game that hold different strategies (with teams, opponents only)."""
    from .place_counts import meetings, seat_pairs

    out = np.zeros((k * k, 8))
    g, x, y, p_lo, p_hi = meetings(who, places, seat_pairs(who.shape[1], teams))
    row = x * k + y
    score = (p_lo < p_hi) + 0.5 * (p_lo == p_hi)
    ahead = p_hi - p_lo
    out[:, 0] = 2 * np.bincount(row, weights=score, minlength=k * k)
    out[:, 1] = np.bincount(row, minlength=k * k)
    out[:, 2] = np.bincount(row, weights=ahead, minlength=k * k)
    out[:, 3:], _ = per_deal_squares(di[g], n_d, row[:, None], k * k, score[:, None],
                                     ahead[:, None])
    return out


def head_to_head_rows(c: PlaceCounts, order: list) -> list[dict]:
    """One row per two strategies that met, the one first in ``order`` as ``a``: its
    ``score`` (its share of the meetings finished ahead, ties half), that share as an
    ``elo`` difference, and the ``places`` it finished ahead on average, with 95%
    intervals that take each deal's seatings as one cluster (paired: the same deals in
    every seating): Wilson's at the effective sample size for the share and, on their range,
    for the places (:func:`durak_sim.clustered.bounded_interval`), so both stay in range."""
    from .clustered import bounded_interval, ratio_variance, wilson_design
    from .elo import elo_of_share, share_edge

    if c.h2h is None:
        return []
    k = len(c.names)
    idx = {x: i for i, x in enumerate(c.names)}
    rows = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            x, y = idx[a], idx[b]
            h = c.h2h[min(x, y) * k + max(x, y)]
            meet = h[1]
            if meet == 0:
                continue
            games = min(meet, int(c.seat_games[0]))   # every seat plays every game of a match
            s_lo, s_hi = wilson_design(h[0] / 2, meet, ratio_variance(
                h[0] / 2, meet, h[4], h[5], h[3], c.clusters), units=c.decks,
                clusters=c.clusters, trials=games)
            p_lo, p_hi = bounded_interval(h[2] / meet, ratio_variance(
                h[2], meet, h[6], h[7], h[3], c.clusters), meet, 1 - c.players, c.players - 1,
                units=c.decks, clusters=c.clusters, trials=games)
            score, places = h[0] / 2 / meet, h[2] / meet
            if x > y:    # seen from a, the later of the two in the names
                score, s_lo, s_hi = 1 - score, 1 - s_hi, 1 - s_lo
                places, p_lo, p_hi = -places, -p_hi, -p_lo
            # a share of 0 or 1 has no finite Elo: it shows the bound 400 log10(4m + 1) of
            # m meetings (as a two-player sweep's paired Elo does), marked as a bound
            edge = share_edge(meet)
            e, e_lo, e_hi = (elo_of_share(v, meet) for v in (score, s_lo, s_hi))
            rows.append({"a": a, "b": b, "meetings": int(meet), "score": float(score),
                         "elo_bound": bool(score <= edge or score >= 1 - edge),
                         "score_lo": float(s_lo), "score_hi": float(s_hi), "elo": e,
                         "elo_lo": e_lo, "elo_hi": e_hi, "places": float(places),
                         "places_lo": float(p_lo), "places_hi": float(p_hi)})
    return rows


def head_to_head_line(r: dict) -> str:
    """``normal vs easy: score 61.20% [..] in 2,400 meetings (ahead 1, tie 1/2), +78.4 Elo
    [..], ...``."""
    return (f"{r['a']} vs {r['b']}: score {100 * r['score']:.2f}% [{100 * r['score_lo']:.2f}"
            f", {100 * r['score_hi']:.2f}] in {r['meetings']:,} meetings (ahead 1, tie 1/2), "
            f"{'≥ ' if r.get('elo_bound') and r['elo'] > 0 else '≤ ' if r.get('elo_bound') else ''}"
            f"{r['elo']:+.1f} Elo "
            f"[{r['elo_lo']:+.1f}, {r['elo_hi']:+.1f}], {r['places']:+.3f} places "
            f"[{r['places_lo']:+.3f}, {r['places_hi']:+.3f}]")


def place_table(c: PlaceCounts):
    """Per strategy: seat-games, first-out, Durak and draw rates with Wilson 95% intervals,
    the mean place with its interval (:func:`durak_sim.clustered.bounded_interval`), and the
    place counts. With the clusters
    counted (``c.clus``) the intervals take the games of a deal as one cluster
    (:mod:`durak_sim.clustered`), else each seat-game as a trial."""
    import pandas as pd

    from .clustered import bounded_interval, ratio_variance, wilson_design
    from .stats import wilson_interval

    rows = []
    for i, name in enumerate(c.names):
        g = int(c.games[i])
        if g == 0:
            continue
        row = {"strategy": name, "games": g}
        games = min(g, int(c.seat_games[0]))           # the games it sat in, at most all
        for j, key, k in ((1, "first", int(c.first[i])), (0, "durak", int(c.durak[i])),
                          (2, "draw", int(c.draws[i]))):      # (j: the clus columns' order)
            if c.clus is None:
                lo, hi = wilson_interval(k, g)
            else:
                q = c.clus[i]
                var = ratio_variance(k, g, q[1 + 2 * j], q[2 + 2 * j], q[0], c.clusters)
                lo, hi = wilson_design(k, g, var, units=c.decks, clusters=c.clusters,
                                       trials=games)
            row.update({key: k, f"{key}_rate": k / g, f"{key}_lo": float(lo),
                        f"{key}_hi": float(hi)})
        p = np.arange(1, c.players + 1)
        w = c.places[i] / g
        mean = float((p * w).sum())
        if c.clus is None:
            sd = float(np.sqrt(max(((p - mean) ** 2 * w).sum(), 0.0)))
            var = sd * sd / g
        else:
            q = c.clus[i]
            var = ratio_variance(mean * g, g, q[7], q[8], q[0], c.clusters)
        design = {} if c.clus is None else {"units": c.decks, "clusters": c.clusters,
                                            "trials": games}
        lo, hi = bounded_interval(mean, var, g, 1, c.players, **design)
        row.update({"mean_place": mean, "mean_place_lo": float(lo),
                    "mean_place_hi": float(hi)})
        for j in range(c.players):
            row[f"place{j + 1}"] = int(c.places[i, j])
        if c.score is not None:
            row["score"] = int(c.score[i])
            units, q = (c.series, c.series_clus[i]) if c.series_clus is not None else \
                (c.clusters, None if c.clus is None else c.clus[i][[0, 9, 10]])
            if q is not None and units:
                # the mean score a unit (a series: R9.2; outside a series a deal, its
                # seatings together), the units independent; each has the same seat-games
                # ``per``, so it is ``per`` times the score a seat-game. A deal scores a
                # strategy at most +1 (one seat is alone first) and at least -1 (one Durak),
                # or with teams -1 for each of its seats (every member of the losing team),
                # whatever seats it holds
                per = g / units
                deals = c.decks / units
                var_s = per * per * ratio_variance(c.score[i], g, q[1], q[2], q[0], units)
                mean_s = c.score[i] / units
                least = -per if c.teams else -min(per, deals)
                lo, hi = bounded_interval(mean_s, var_s, units, least, min(per, deals),
                                          clusters=units)
                row.update({"score_per_series": float(mean_s), "score_per_series_lo": float(lo),
                            "score_per_series_hi": float(hi)})
        rows.append(row)
    return pd.DataFrame(rows)


def _clustered_interval(c: PlaceCounts, k: int, g: int, q) -> tuple:
    """The 95% interval of the rate ``k / g`` whose per-deal sums are ``q`` (``[m m, x x,
    x m]``: the deals as clusters), Wilson's over the ``g`` trials when not counted."""
    from .clustered import ratio_variance, wilson_design
    from .stats import wilson_interval

    if q is None:
        return wilson_interval(k, g)
    return wilson_design(k, g, ratio_variance(k, g, q[1], q[2], q[0], c.clusters),
                         units=c.decks, clusters=c.clusters)


def team_interval(c: PlaceCounts, team: int):
    """The 95% interval of partnership ``team``'s loss rate over the games (the deals as
    clusters when counted, as every other rate)."""
    return _clustered_interval(c, int(c.team_lost[team]), int(c.deals),
                               None if c.team_clus is None else c.team_clus[team])


def seat_interval(c: PlaceCounts, s: int):
    """The 95% interval of seat ``s``'s Durak rate (the deals as clusters when counted)."""
    return _clustered_interval(c, int(c.seat_durak[s]), int(c.seat_games[s]),
                               None if c.seat_clus is None else c.seat_clus[s])


@dataclass
class TableSummary:
    names: list           # the line-up, seat order
    seed: int
    deals: int
    swap: bool
    rules: Rules
    counts: PlaceCounts
    table: "object"
    seconds: float
    compile_seconds: float
    decisions: int
    versions: dict = field(default_factory=dict)
    interrupted_of: int | None = None
    series_deals: int | None = None

    @property
    def games(self) -> int:
        return int(self.counts.deals)

    def head_to_head(self) -> list[dict]:
        """:func:`head_to_head_rows` in the table's order of mean place (the better first)."""
        order = list(self.table.sort_values("mean_place", kind="stable")["strategy"])
        return head_to_head_rows(self.counts, order)

    def _strategy_rows(self) -> list[dict]:
        """The table's rows; outside a series the R9.2 score's mean is per deal (its
        seatings together), and named so."""
        table = self.table
        if self.series_deals is None:
            table = table.rename(columns=lambda c: c.replace("score_per_series",
                                                             "score_per_deal"))
        return table.to_dict(orient="records")

    def to_dict(self) -> dict:
        from .match import _plain

        c = self.counts
        out = {"lineup": self.names, "seed": self.seed, "deals": self.deals, "swap": self.swap,
               "games": self.games, "rules": self.rules.to_dict(), "versions": self.versions,
               "strategies": self._strategy_rows(),
               "seats": [{"seat": s, "games": int(c.seat_games[s]),
                          "durak": int(c.seat_durak[s]), "first_out": int(c.seat_first[s]),
                          **dict(zip(("durak_lo", "durak_hi"),
                                     map(float, seat_interval(c, s))))}
                         for s in range(c.players)],
               "seconds": self.seconds, "compile_seconds": self.compile_seconds,
               "decisions_per_second": self.decisions / self.seconds if self.seconds > 0
               else None}
        out["head_to_head"] = self.head_to_head()
        out["capped"] = c.capped
        if self.rules.teams:
            bounds = [list(map(float, team_interval(c, t))) for t in (0, 1)]
            out["teams"] = {"partnerships": [self.names[0::2], self.names[1::2]],
                            "lost": c.team_lost.tolist(), "draws": c.team_draws,
                            "lost_lo": [b[0] for b in bounds], "lost_hi": [b[1] for b in bounds]}
        if self.series_deals is not None:   # as the options say: --series N of --deals K
            out["series"], out["deals"] = self.deals, self.series_deals
        if self.interrupted_of is not None:
            out["interrupted_of"] = self.interrupted_of
        return _plain(out)

    def print(self, console=None) -> None:
        from rich.table import Table

        if console is None:
            console = wide_console(180)
        c = self.counts
        what = f"{self.deals:,} series of {self.series_deals} deals" if self.series_deals \
            else f"{self.deals:,} deals" + (f" x {c.players} rotations" if self.swap else "")
        stopped = "" if self.interrupted_of is None else \
            f" (interrupted: {self.deals:,} of {self.interrupted_of:,})"
        t = Table(title=f"{' '.join(self.names)}: {what}, seed {self.seed}, "
                        f"{self.rules.tag}{stopped}", title_justify="left")
        cols = ["strategy", "seat-games", "first out %  [95% CI]", "Durak %  [95% CI]",
                "draw %  [95% CI]", "mean place  [95% CI]",
                "places " + "/".join(str(p) for p in range(1, c.players + 1))]
        if self.series_deals:
            cols.insert(2, "series score")
        for col in cols:
            t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
        for r in self.table.itertuples():
            cells = [r.strategy, f"{r.games:,}",
                     pct_ci(r.first_rate, r.first_lo, r.first_hi, spec="6.2f", gap="  "),
                     pct_ci(r.durak_rate, r.durak_lo, r.durak_hi, spec="6.2f", gap="  "),
                     pct_ci(r.draw_rate, r.draw_lo, r.draw_hi, spec="6.2f", gap="  "),
                     f"{num(r.mean_place, '.3f')}  [{num(r.mean_place_lo, '.3f')}, "
                     f"{num(r.mean_place_hi, '.3f')}]",
                     "/".join(f"{getattr(r, f'place{p}'):,}" for p in range(1, c.players + 1))]
            if self.series_deals:
                cells.insert(2, f"{r.score:+,}  ({r.score_per_series:+.2f} "
                                f"[{r.score_per_series_lo:+.2f}, {r.score_per_series_hi:+.2f}]"
                                f" a series)")
            t.add_row(*cells)
        print_whole(console, t)
        seats = []
        for s in range(c.players):
            lo, hi = seat_interval(c, s)
            seats.append(f"seat {s} {pct_ci(c.seat_durak[s] / max(c.seat_games[s], 1), lo, hi)}")
        console.print("Durak by seat: " + "; ".join(seats))
        for r in self.head_to_head():
            console.print("head to head: " + head_to_head_line(r))
        if self.rules.teams:
            n = self.games
            parts = []
            for team in (0, 1):
                lo, hi = team_interval(c, team)
                parts.append(f"{'+'.join(self.names[team::2])} (line-up positions "
                             f"{', '.join(str(s) for s in range(team, c.players, 2))}) lost "
                             f"{pct_ci(c.team_lost[team] / max(n, 1), lo, hi)}")
            console.print("partnerships: " + "; ".join(parts) + f"; draws {c.team_draws:,}")
        if c.capped:
            from .storage import capped_words

            console.print("the cap on play (rules E12): " + " ".join(capped_words(c.capped)))
        rate = self.games / self.seconds if self.seconds > 0 else float("nan")
        console.print(f"{rate:,.0f} games/s ({self.games:,} games in {secs(self.seconds)} s; "
                      f"compile/load {secs(self.compile_seconds)} s apart)")


def run_table_match(lineup: list[str], *, deals: int, seed: int = 1, rules: Rules,
                    threads: int | None = None, swap: bool = True,
                    records: Path | None = None, progress: bool = False,
                    interruptible: bool = False, series_deals: int | None = None
                    ) -> TableSummary:
    """Play ``deals`` deals (or, with ``series_deals``, that many series of ``series_deals``
    deals, R9) with ``lineup`` in seat order at a table of ``rules``; with ``swap`` each
    deal once per rotation of the line-up over the seats (not for series)."""
    import contextlib

    from .limits import MAX_DEALS
    from .play import (RECORD_BLOCK, check_seed, play_games, play_series, ready_lineup,
                       resolve_strategies)
    from .progress import Board, live
    from .records import dumps
    from .runner import BlockSizer
    from .stopping import StopFlag
    from .files import atomic_text_file

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    strats = resolve_strategies(lineup)
    names = list(dict.fromkeys(s.name for s in strats))
    per = series_deals or (rules.players if swap else 1)
    sizer = BlockSizer(per, most=max(1, RECORD_BLOCK // per) if records is not None else None)
    counts, seconds, decisions, played = None, 0.0, 0, 0
    check_seed(seed)   # (bad input is told before a compile)
    compile_s = ready_lineup(strats, rules, series=bool(series_deals))
    unit = "series" if series_deals else "deals"
    board = Board(f"{' '.join(s.name for s in strats)}: {deals:,} {unit}, seed {seed}",
                  unit=unit, games_per_unit=per)
    board.add("m", " ".join(s.name for s in strats), deals)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_text_file(records)) if records is not None else None
        stop = stack.enter_context(StopFlag()) if interruptible else None
        stack.enter_context(live(board, progress))
        while played < deals and not stop:
            n = min(sizer.size, deals - played)
            flag = None if stop is None else stop.kernel_flag
            if series_deals:
                batch = play_series(strats, seed=seed, series=range(played, played + n),
                                    deals=series_deals, rules=rules, threads=threads,
                                    record=out is not None, stop=flag)
            else:
                batch = play_games(strats, seed=seed, deals=range(played, played + n),
                                   swap=swap, threads=threads, rules=rules,
                                   record=out is not None, stop=flag)
            n = len(batch) // per
            if n == 0:
                break
            played += n
            seconds += batch.seconds
            compile_s += batch.compile_seconds
            decisions += batch.decisions
            sizer.played(n, batch.seconds)
            part = count_places(batch, names)
            counts = part if counts is None else counts.merge(part)
            board.advance("m", n, batch.seconds)
            if out is not None:
                out.writelines(dumps(r) + "\n" for r in batch.records())
        if counts is None:   # inside the with: the records file is left as it was
            raise Interrupted(NOTHING_FINISHED)
    return TableSummary(names=[s.name for s in strats], seed=seed, deals=played,
                        swap=swap and not series_deals, rules=rules, counts=counts,
                        table=place_table(counts), seconds=seconds, compile_seconds=compile_s,
                        decisions=decisions, versions={s.name: s.version for s in strats},
                        interrupted_of=deals if played < deals else None,
                        series_deals=series_deals)

"""Counting games at tables of three to six players: a tournament's chunks reduced, one
after the other, to a :class:`PlaceTally`, what every table and plot of an N-player report
needs (:mod:`durak_sim.place_stats`, :mod:`durak_sim.place_report`). Its size does not
grow with the games: counts per line-up, strategy, place and seat, the sufficient
statistics of the Plackett-Luce ratings, and the deal bootstrap's resampled sums.

**The deal bootstrap, streamed.** The games of one deal are not independent (every seating
of it shares its cards, and so does every line-up), so intervals resample whole deals. A
resample gives deal ``d`` the weight ``w(b, d)``, a Poisson(1) count (the Poisson bootstrap:
Hanley & MacGibbon 2006; Chamandy et al. 2012), drawn from a counter-based generator of
``(seed, d, b)`` alone: the same deal gets the same weight in every line-up and chunk,
whatever the chunking, threads or resumptions, and each resample's sums are exact integer
sums, so the tally is the same numbers in any order. Per chunk the weights of its deals are
a ``(resamples, deals)`` matrix ``W`` and the per-deal sums a ``(deals, columns)`` matrix
``D``; ``W @ D`` adds the chunk to every resample at once.

>>> w = poisson_weights(7, np.arange(20000))
>>> w.shape, round(float(w.mean()), 2), round(float(w.var()), 2)
((1000, 20000), 1.0, 1.0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

#: deal-bootstrap resamples (a multiple of 4: one 64-bit draw gives four weights)
BOOTSTRAP = 1000
#: points of the convergence curves (deals played, geometric from 1 to the tournament's)
CHECKPOINTS = 40
#: the bootstrap's stream of a deal (seeding.stream_start's ``k``): no game uses it
BOOT_STREAM = 0x5EED_B007_5EED_B007
#: deals per matrix product at most (the weights of a block: 1000 x 2048 float32, 8 MB)
BLOCK = 2048

#: the per-deal sums of squares ``clus`` keeps per line-up and strategy
#: (:mod:`durak_sim.clustered`): ``m`` seat-games, ``x`` lost, first out, drawn, place
CLUSTER_COLUMNS = ("mm", "lost_xx", "lost_xm", "first_xx", "first_xm", "drawn_xx",
                   "drawn_xm", "place_xx", "place_xm")

#: weights of the Poisson table at most (a partial sum of a block's products stays exact
#: in float32 below 2**24)
MAX_WEIGHT = 12


def _poisson_table() -> np.ndarray:
    """Poisson(1) by the inverse distribution function of a 16-bit uniform: 65,536 weights
    (0 .. ``MAX_WEIGHT``)."""
    from scipy.stats import poisson

    cut = np.round(poisson.cdf(np.arange(MAX_WEIGHT), 1.0) * 65536)
    return np.searchsorted(cut, np.arange(65536), side="right").astype(np.float32)


_TABLE: list = []


def poisson_weights(seed: int, deals: np.ndarray, resamples: int = BOOTSTRAP) -> np.ndarray:
    """``(resamples, deals)`` float32 Poisson(1) weights of the deal bootstrap, a function
    of ``(seed, deal, resample)`` only: the splitmix64 stream ``stream_start(seed, deal,
    BOOT_STREAM)`` of the seed contract (durak_sim.seeding), each 64-bit draw cut into four
    16-bit uniforms, low bits first, each turned into a weight by the inverse Poisson(1)
    distribution function (durak_sim.kernel.resample)."""
    from .kernel.resample import poisson_weights as fill

    if not _TABLE:
        _TABLE.append(_poisson_table())
    out = np.empty((len(deals), resamples), np.float32)
    fill(np.int64(seed), np.ascontiguousarray(deals, dtype=np.int64), np.int64(BOOT_STREAM),
         _TABLE[0], out)
    return out.T


def checkpoints(deals: int, points: int = CHECKPOINTS) -> np.ndarray:
    """The deal counts at which the convergence curves are shown; the last is ``deals``.

    >>> checkpoints(100, 8).tolist()
    [1, 2, 4, 7, 14, 27, 52, 100]
    """
    return np.unique(np.geomspace(1, deals, min(points, deals)).round().astype(np.int64))


def seat_results(places: np.ndarray, outcome: np.ndarray, durak: np.ndarray,
                 durak_team: np.ndarray | None, teams: bool):
    """Per game and seat (``places``: ``(games, seats)``, 1 first out): whether the seat
    lost (was the Durak; with teams: its team lost), drew (was among the seats of a draw,
    which share the last place; with teams: its team drew, as both do), went out first (not
    among the seats of a draw)."""
    seat = np.arange(places.shape[1])
    draw = np.asarray(outcome) == 1
    if teams:
        lost = (seat[None, :] & 1) == np.asarray(durak_team)[:, None]
    else:
        lost = seat[None, :] == np.asarray(durak)[:, None]
    in_draw = draw[:, None] & (places == places.max(axis=1)[:, None])
    first = (places == 1) & ~in_draw
    if teams:   # a team game is won, lost or drawn by the whole team (E11)
        in_draw = np.broadcast_to(draw[:, None], places.shape)
    return lost, in_draw, first


def subsets(lineup_codes: Sequence[int], k: int) -> set:
    """The multisets (count vectors over ``k`` strategies) of two or more seats of a
    line-up: the sets a Plackett-Luce choice is made from."""
    n = len(lineup_codes)
    out = set()
    for mask in range(1 << n):
        if bin(mask).count("1") >= 2:
            v = [0] * k
            for s in range(n):
                if mask >> s & 1:
                    v[lineup_codes[s]] += 1
            out.add(tuple(v))
    return out


@dataclass
class PlaceTally:
    """A tournament's games at one table size, counted (module docstring). Per line-up
    ``l`` (``lineups``) and strategy ``x`` (``names``): ``games`` (L,) and ``deals`` (L,),
    ``place_hist`` (L, K, N) seat-games in each place, ``lost``, ``drawn``, ``first``
    (L, K); per seat and per position after the first attacker (``(seat - first attacker)
    mod N``) ``seat``, ``rel`` (N, 4): games, lost, first out, place sum; ``team`` (L, S, 3):
    per seating the games lost by the team on the even seats, on the odd seats, drawn;
    ``bouts`` (L, B) games per number of bouts, ``cards`` (L, C) decisive games per cards
    left in the Durak's (the losing team's) hands.

    ``spans`` per line-up the deal ranges ``(first, end)`` of its chunks (a field's deals
    are their union: :meth:`deals_in`).

    Head to head: per two different strategies ``x < y`` (row ``pair_index[x, y]`` of
    ``h2h`` (P, 4), P = K (K - 1) / 2) over every two seats they held at one table (with
    teams, opponents only): twice ``x``'s score (ahead of ``y`` 2, tied 1), the meetings,
    the places ``x`` finished ahead of ``y`` (``y``'s place less ``x``'s) and the ties;
    ``boot_h2h`` (B, 3 P) the first three of these, resampled.

    Plackett-Luce: each game's places as successive choices of the next one out among the
    seats still in, up to a tie (a draw's, a losing team's): ``wins`` (K,) choices won per
    strategy, ``set_n`` choices made from each multiset of ``sets``. Bootstrap
    (``BOOTSTRAP`` resamples): ``boot_pl`` (B, K + len(sets)) the same, resampled;
    ``bucket_place`` (P, K, 2) place sums and seat-games per stretch of deals before each
    of ``marks`` (the checkpoints), ``boot_place`` (P, B, 2K) the same, resampled.

    Clustered rates (:mod:`durak_sim.clustered`): ``clus`` (L, K, 9) per line-up and
    strategy the per-deal sums of squares of ``CLUSTER_COLUMNS``; ``boot_rates`` (B, 4K)
    the games lost, first out, drawn and the seat-games of each strategy, resampled;
    ``boot_pos`` (B, 6N + 1) the games lost and first out per seat, then per position after
    the first attacker, the games, and the place sums per seat and per position, resampled;
    with teams ``team_clus`` per (team, opponents) row the per-deal sums of squares of its
    losses and draws, and its deals, and ``boot_team`` (B, 3T) the games lost, drawn and
    played of each team of ``team_names`` (over all its opponents), resampled."""

    names: list
    players: int
    lineups: list
    teams: bool
    seed: int
    marks: np.ndarray
    seatings: list
    sets: list = field(default_factory=list)

    def __post_init__(self):
        k, n, n_l = len(self.names), self.players, len(self.lineups)
        code = {x: i for i, x in enumerate(self.names)}
        self.codes = [np.array([code[x] for x in key], np.int64) for key in self.lineups]
        if not self.sets:
            found = set()
            for c in self.codes:
                found |= subsets(c.tolist(), k)
            self.sets = sorted(found)
        self.set_index = {s: i for i, s in enumerate(self.sets)}
        self._codes_cache: dict = {}
        s_max = max(len(s) for s in self.seatings)
        z = np.zeros
        self.games, self.deals = z(n_l, np.int64), z(n_l, np.int64)
        self.spans: list = [[] for _ in range(n_l)]   # per line-up its chunks' deal ranges
        self.place_hist = z((n_l, k, n), np.int64)
        self.lost, self.drawn, self.first = (z((n_l, k), np.int64) for _ in range(3))
        self.seat, self.rel = z((n, 4), np.int64), z((n, 4), np.int64)
        self.team = z((n_l, s_max, 3), np.int64)
        self.bouts, self.cards = z((n_l, 1), np.int64), z((n_l, 1), np.int64)
        self.wins, self.set_n = z(k), z(len(self.sets))
        p = len(self.marks)
        self.boot_pl = z((BOOTSTRAP, k + len(self.sets)))
        self.bucket_place = z((p, k, 2))
        self.boot_place = z((p, BOOTSTRAP, 2 * k))
        self.pair_index = np.full((k, k), -1, np.int64)
        self.pair_index[np.triu_indices(k, 1)] = np.arange(k * (k - 1) // 2)
        self.h2h = z((k * (k - 1) // 2, 4), np.int64)
        self.boot_h2h = z((BOOTSTRAP, 3 * len(self.h2h)))
        self.seat_pairs = seat_pairs(n, self.teams)
        self.clus = z((n_l, k, len(CLUSTER_COLUMNS)))
        self.team_clus: dict = {}
        self.team_names = sorted({t for li, key in enumerate(self.lineups)
                                  for perm in self.seatings[li]
                                  for t, _ in team_pair_keys([key[p] for p in perm],
                                                             self.names)}) if self.teams else []
        self.boot_team = z((BOOTSTRAP, 3 * len(self.team_names)))
        self.boot_rates = z((BOOTSTRAP, 4 * k))
        self.boot_pos = z((BOOTSTRAP, 6 * n + 1))

    @classmethod
    def of(cls, config) -> "PlaceTally":
        """An empty tally of a :class:`durak_sim.tournament_config.TournamentConfig`."""
        lineups = config.lineups()
        return cls(list(config.names), config.players, lineups, config.rules.teams,
                   config.seed, checkpoints(config.deals),
                   [config.seatings(key) for key in lineups])

    # -- counting ------------------------------------------------------------------------
    def add(self, key: tuple, deals: np.ndarray, seating: np.ndarray, cols: dict) -> None:
        """Count the games of one chunk of line-up ``key``: deals in order, every seating
        of each (``seating``: each game's), ``cols`` its result columns as stored."""
        li = self.lineups.index(tuple(key))
        n, k = self.players, len(self.names)
        perms = np.asarray(self.seatings[li], np.int64)
        s_count = len(perms)
        who = self.codes[li][perms[seating]]                           # (games, seats)
        places = np.stack([cols[f"place{s}"] for s in range(n)], axis=1).astype(np.int64)
        lost, in_draw, first = seat_results(places, cols["outcome"], cols["durak"],
                                            cols["durak_team"], self.teams)
        g = len(seating)
        self.games[li] += g
        self.deals[li] += g // s_count
        deals = np.asarray(deals)
        first_deal = int(deals[0]) if len(deals) else 0
        di = deals - first_deal                                        # deal of each game
        n_d = int(di[-1]) + 1 if len(di) else 0
        spans = self.spans[li]
        if spans and spans[-1][1] == first_deal:      # (chunks stored in order: one range)
            spans[-1] = (spans[-1][0], first_deal + n_d)
        else:
            spans.append((first_deal, first_deal + n_d))
        flat = who.ravel()

        def per_strategy(x):
            return np.bincount(flat, weights=x.ravel(), minlength=k).astype(np.int64)

        self.place_hist[li] += np.bincount(flat * n + places.ravel() - 1,
                                           minlength=k * n).reshape(k, n)
        self.lost[li] += per_strategy(lost)
        self.drawn[li] += per_strategy(in_draw)
        self.first[li] += per_strategy(first)
        rel = (np.arange(n)[None, :] - np.asarray(cols["first_attacker"])[:, None]) % n
        for table, pos in ((self.seat, np.broadcast_to(np.arange(n), (g, n))), (self.rel, rel)):
            for j, x in enumerate((np.ones_like(places), lost, first, places)):
                table[:, j] += np.bincount(pos.ravel(), weights=x.ravel(),
                                           minlength=n).astype(np.int64)
        team_d = np.zeros((n_d, 0))
        if self.teams:
            outcome = np.where(np.asarray(cols["outcome"]) == 1, 2,
                               np.asarray(cols["durak_team"])).astype(np.int64)
            self.team[li, :s_count] += np.bincount(seating * 3 + outcome,
                                                   minlength=3 * s_count).reshape(-1, 3)
            team_d = self._add_team_clusters(li, di, n_d, seating, outcome)
        self.bouts = _add_hist(self.bouts, li, np.asarray(cols["bouts"]))
        decisive = np.asarray(cols["outcome"]) != 1
        self.cards = _add_hist(self.cards, li, np.asarray(cols["cards_left"])[decisive])
        rates = self._add_clusters(li, di, n_d, who, lost, first, in_draw, places)
        def per_position(p, x):
            return np.bincount(np.repeat(di, n) * n + p.ravel(), weights=x.ravel(),
                               minlength=n_d * n).reshape(n_d, n)

        by_seat = np.broadcast_to(np.arange(n), (g, n))
        pos = np.hstack([per_position(p, x) for p in (by_seat, rel) for x in (lost, first)]
                        + [np.bincount(di, minlength=n_d)[:, None]]
                        + [per_position(p, places) for p in (by_seat, rel)])
        self._add_choices_and_bootstrap(li, first_deal, di, n_d, seating, who, places,
                                        np.hstack([rates, pos, team_d]))

    def _add_team_clusters(self, li: int, di: np.ndarray, n_d: int, seating: np.ndarray,
                           outcome: np.ndarray) -> np.ndarray:
        """Add the per-deal sums of squares of each (team, opponents) row's losses and
        draws (``team_clus``: ``[m m, lost x x, lost x m, drawn x x, drawn x m, deals]``);
        return per deal the games lost, drawn and played of each team of ``team_names``
        over its opponents, ``(n_d, 3T)`` (the partnership on the even seats loses at
        ``outcome`` 0, the odd one at 1; both draw at 2)."""
        from .clustered import per_deal_squares

        keys: list = []
        rows = np.empty((len(self.seatings[li]), 2), np.int64)
        for g, perm in enumerate(self.seatings[li]):
            for q, k in enumerate(team_pair_keys([self.lineups[li][p] for p in perm],
                                                 self.names)):
                if k not in keys:
                    keys.append(k)
                rows[g, q] = keys.index(k)
        lost = np.stack([outcome == 0, outcome == 1], axis=1)
        drawn = np.stack([outcome == 2, outcome == 2], axis=1)
        squares, (m, lost_d, drawn_d) = per_deal_squares(di, n_d, rows[seating], len(keys),
                                                          lost, drawn)
        for r, k in enumerate(keys):
            add = np.append(squares[r], n_d)
            self.team_clus[k] = self.team_clus[k] + add if k in self.team_clus else add
        team = np.zeros((len(keys), len(self.team_names)))   # each row's team
        team[np.arange(len(keys)), [self.team_names.index(k[0]) for k in keys]] = 1
        return np.hstack([lost_d @ team, drawn_d @ team, m @ team])

    def _add_clusters(self, li: int, di: np.ndarray, n_d: int, who: np.ndarray, *values
                      ) -> np.ndarray:
        """Add the per-deal sums of squares of line-up ``li`` (``clus``); return the
        per-deal sums of the first three ``values`` (lost, first out, drawn: seat-game
        arrays like ``who``) and the seat-games, ``(n_d, 4 K)``, for the bootstrap."""
        from .clustered import per_deal_squares

        squares, (m, *sums) = per_deal_squares(di, n_d, who, len(self.names), *values)
        self.clus[li] += squares
        return np.hstack([*sums[:3], m])

    def _choice_codes(self, li: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For line-up ``li``: ``local``, each position's strategy among the line-up's
        different ones; ``code_to_set``, from a multiset's code (the sum over its seats of
        ``(N + 1) ** local``) to its column among the line-up's sets; ``glob``, those
        columns' indices in ``sets``."""
        if li not in self._codes_cache:
            self._codes_cache.clear()   # (a chunk's line-up: the next is most often the same)
            key, n = self.codes[li], self.players
            local = np.unique(key, return_inverse=True)[1].astype(np.int64)
            table = np.full((n + 1) ** (int(local.max()) + 1), -1, np.int64)
            glob = []
            for mask in range(1 << n):
                seats = [s for s in range(n) if mask >> s & 1]
                if len(seats) < 2:
                    continue
                code = sum((n + 1) ** int(local[s]) for s in seats)
                if table[code] < 0:
                    v = [0] * len(self.names)
                    for s in seats:
                        v[key[s]] += 1
                    table[code] = len(glob)
                    glob.append(self.set_index[tuple(v)])
            self._codes_cache[li] = (local, table, np.array(glob, np.int64))
        return self._codes_cache[li]

    def _add_choices_and_bootstrap(self, li: int, first_deal: int, di: np.ndarray, n_d: int,
                                   seating: np.ndarray, who: np.ndarray, places: np.ndarray,
                                   extra: np.ndarray) -> None:
        """``di``: each game's deal counted from ``first_deal``, ``n_d`` deals; ``extra``
        (n_d, 4K + 6N + 1 + 3T): the per-deal sums ``boot_rates``, ``boot_pos`` and
        ``boot_team`` resample."""
        n, k = self.players, len(self.names)
        local, code_to_set, glob = self._choice_codes(li)
        perms = np.asarray(self.seatings[li], np.int64)
        seat_pow = ((n + 1) ** local)[perms][seating]              # (games, seats)
        # the choices: at step t the seat in place t (when it is alone there) is chosen
        # from the seats in place t or later
        wins, sets = [], []                            # (deal, strategy), (deal, set)
        for t in range(1, n):
            at = places == t
            rows = np.flatnonzero(at.sum(axis=1) == 1)
            if not len(rows):
                continue
            wins.append((di[rows], who[rows, at[rows].argmax(axis=1)]))
            code = ((places[rows] >= t) * seat_pow[rows]).sum(axis=1)
            sets.append((di[rows], code_to_set[code]))
        win_d = _per_deal(wins, n_d, k)
        set_d = _per_deal(sets, n_d, len(glob))
        self.wins += win_d.sum(axis=0)
        self.set_n[glob] += set_d.sum(axis=0)
        # per deal: place sums and seat-games of each strategy
        deal_seat = np.repeat(di, n) * k + who.ravel()
        place_d = np.hstack([
            np.bincount(deal_seat, weights=places.ravel(), minlength=n_d * k).reshape(n_d, k),
            np.bincount(deal_seat, minlength=n_d * k).reshape(n_d, k)])
        bucket = np.searchsorted(self.marks, first_deal + np.arange(n_d), side="right")
        inside = bucket < len(self.marks)
        np.add.at(self.bucket_place, bucket[inside],
                  place_d[inside].reshape(-1, 2, k).transpose(0, 2, 1))
        h2h_d, h2h_cols = self._head_to_head(li, di, n_d, who, places)
        # the bootstrap: every resample's sums, (resamples, deals) @ (deals, columns), in
        # float32: exact while a partial sum stays below 2**24
        d_all = np.hstack([win_d, set_d, place_d, h2h_d, extra]).astype(np.float32)
        c_pl = k + len(glob)
        c_h2h = c_pl + 2 * k
        c_extra = c_h2h + h2h_d.shape[1]
        c_pos = c_extra + self.boot_rates.shape[1]
        c_team = c_pos + self.boot_pos.shape[1]
        big = max(1.0, float(np.abs(d_all).max(initial=0.0)))
        block = int(max(1, min(BLOCK, (1 << 24) // (MAX_WEIGHT * big))))
        for lo in range(0, n_d, block):
            hi = min(n_d, lo + block)
            w = poisson_weights(self.seed, first_deal + np.arange(lo, hi))
            b = bucket[lo:hi]
            cuts = [0, *(np.flatnonzero(np.diff(b)) + 1), hi - lo]
            for s, e in zip(cuts[:-1], cuts[1:]):      # stretches of one checkpoint
                prod = w[:, s:e] @ d_all[lo + s:lo + e]
                self.boot_pl[:, :k] += prod[:, :k]
                self.boot_pl[:, k + glob] += prod[:, k:c_pl]
                self.boot_h2h[:, h2h_cols] += prod[:, c_h2h:c_extra]
                self.boot_rates += prod[:, c_extra:c_pos]
                self.boot_pos += prod[:, c_pos:c_team]
                self.boot_team += prod[:, c_team:]
                if b[s] < len(self.marks):
                    self.boot_place[b[s]] += prod[:, c_pl:c_h2h]

    def _head_to_head(self, li: int, di: np.ndarray, n_d: int, who: np.ndarray,
                      places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Add the games' head-to-head counts to ``h2h``; return them per deal for the
        ``u`` pairs of strategies in line-up ``li``, ``(n_d, 3 u)``: twice the score,
        meetings, places ahead (class docstring), and those columns' indices in
        ``boot_h2h``."""
        present = np.unique(self.codes[li])
        used = self.pair_index[np.ix_(present, present)][np.triu_indices(len(present), 1)]
        local = np.full(len(self.h2h), -1, np.int64)
        local[used] = np.arange(len(used))
        g, x, y, p_lo, p_hi = meetings(who, places, self.seat_pairs)
        d, pair = di[g], local[self.pair_index[x, y]]
        u = len(used)
        tie = p_lo == p_hi
        per = [np.bincount(d * u + pair, weights=w, minlength=n_d * u).reshape(n_d, u)
               for w in (2 * (p_lo < p_hi) + tie, np.ones(len(d)), p_hi - p_lo, tie)]
        self.h2h[used] += np.stack([c.sum(axis=0) for c in per], axis=1).astype(np.int64)
        n_p = len(self.h2h)
        return np.hstack(per[:3]), np.concatenate([used, n_p + used, 2 * n_p + used])

    def deals_in(self, lineups) -> int:
        """The deals that any of ``lineups`` (indices) played: the union of their chunks'
        deal ranges. Every line-up plays the same deals, so in a complete tournament this is
        each one's deals; an incomplete one stored out of order (dask) may hold different
        ranges per line-up.

        >>> t = PlaceTally(["a", "b"], 2, [("a", "b")], False, 1, np.array([4]), [[(0, 1)]])
        >>> t.spans = [[(0, 3), (5, 7), (2, 4)]]
        >>> t.deals_in([0]), t.deals_before([0], np.array([2, 6])).tolist()
        (6, [2, 5])
        """
        return int(sum(b - a for a, b in self._union(lineups)))

    def deals_before(self, lineups, marks: np.ndarray) -> np.ndarray:
        """Of :meth:`deals_in`, those before each of ``marks``."""
        spans = np.array(self._union(lineups), np.int64).reshape(-1, 2)
        ends = np.minimum(spans[None, :, 1], np.asarray(marks, np.int64)[:, None])
        return np.clip(ends - spans[None, :, 0], 0, None).sum(axis=1)

    def _union(self, lineups) -> list:
        """The deal ranges of ``lineups`` merged: disjoint, ascending."""
        out: list = []
        for a, b in sorted(r for li in lineups for r in self.spans[li]):
            if out and a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        return out

    def merge(self, other: "PlaceTally") -> "PlaceTally":
        """Add ``other`` (a tally of the same tournament) to this one."""
        for f in ("games", "deals", "place_hist", "lost", "drawn", "first", "seat", "rel",
                  "team", "wins", "set_n", "boot_pl", "bucket_place", "boot_place", "h2h",
                  "boot_h2h", "clus", "boot_rates", "boot_pos", "boot_team"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.spans = [a + b for a, b in zip(self.spans, other.spans)]
        for key, v in other.team_clus.items():
            self.team_clus[key] = self.team_clus[key] + v if key in self.team_clus else v
        for f in ("bouts", "cards"):
            a, b = getattr(self, f), getattr(other, f)
            width = max(a.shape[1], b.shape[1])
            total = np.zeros((a.shape[0], width), np.int64)
            total[:, :a.shape[1]] += a
            total[:, :b.shape[1]] += b
            setattr(self, f, total)
        return self


def seat_pairs(n: int, teams: bool) -> list[tuple[int, int]]:
    """Every two seats ``s < t`` of a table of ``n`` whose strategies meet as rivals (with
    teams: opponents only, the seats of different parity)."""
    return [(s, t) for s in range(n) for t in range(s + 1, n)
            if not (teams and (t - s) % 2 == 0)]


def meetings(who: np.ndarray, places: np.ndarray, pairs: list) -> tuple:
    """Every meeting of two different strategies in a batch of games: for each of the seat
    ``pairs`` (:func:`seat_pairs`) and each game in which they hold different strategies,
    the game's row, the lower strategy code ``x`` and the higher ``y`` (of ``who``,
    (games, seats)), and the places of ``x`` and ``y``; concatenated over the pairs."""
    parts = []
    for s, t in pairs:
        g = np.flatnonzero(who[:, s] != who[:, t])
        low = who[g, s] < who[g, t]
        parts.append((g, np.minimum(who[g, s], who[g, t]), np.maximum(who[g, s], who[g, t]),
                      np.where(low, places[g, s], places[g, t]),
                      np.where(low, places[g, t], places[g, s])))
    if not parts:
        return tuple(np.zeros(0, np.int64) for _ in range(5))
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(5))


def team_pair_keys(seat_names: Sequence[str], names: Sequence[str]) -> list[tuple[str, str]]:
    """The two ``(team, opponents)`` rows of a seating with teams (the seats' strategies in
    seat order): the partnership on the even seats, then on the odd ones, each named by its
    strategies in ``names`` order joined with ``+``."""
    teams = ["+".join(sorted(seat_names[q::2], key=list(names).index)) for q in (0, 1)]
    return [(teams[0], teams[1]), (teams[1], teams[0])]


def _per_deal(pairs: list, n_d: int, width: int) -> np.ndarray:
    """``(n_d, width)`` counts of the ``(deal, column)`` pairs of the arrays ``pairs``."""
    if not pairs or not width:
        return np.zeros((n_d, width))
    d = np.concatenate([p[0] for p in pairs])
    c = np.concatenate([p[1] for p in pairs])
    return np.bincount(d * width + c, minlength=n_d * width).reshape(n_d, width).astype(float)


def _add_hist(hist: np.ndarray, row: int, values: np.ndarray) -> np.ndarray:
    h = np.bincount(values.astype(np.int64), minlength=1)
    if len(h) > hist.shape[1]:
        hist = np.hstack([hist, np.zeros((hist.shape[0], len(h) - hist.shape[1]), np.int64)])
    hist[row, :len(h)] += h
    return hist


class LiveScore:
    """A line-up's running score for the live progress: each strategy's mean place and
    Durak rate over the blocks played so far."""

    def __init__(self, key: tuple, seatings: list, teams: bool):
        self.names = list(dict.fromkeys(key))
        pos = {x: i for i, x in enumerate(self.names)}
        self.who = np.array([[pos[key[p]] for p in perm] for perm in seatings], np.int64)
        self.teams = teams
        self.sums = np.zeros((len(self.names), 3))   # seat-games, place sum, lost

    def add(self, seating: np.ndarray, cols: dict) -> None:
        n = self.who.shape[1]
        places = np.stack([cols[f"place{s}"] for s in range(n)], axis=1).astype(np.int64)
        lost, _, _ = seat_results(places, cols["outcome"], cols["durak"], cols["durak_team"],
                                  self.teams)
        who = self.who[seating].ravel()
        for j, x in enumerate((np.ones(places.size), places.ravel(), lost.ravel())):
            self.sums[:, j] += np.bincount(who, weights=x, minlength=len(self.names))

    def text(self) -> str:
        """``hard 1.62 place, 9.8% Durak · easy 2.79, 30.1%``."""
        parts = []
        for i, (name, (g, p, lost)) in enumerate(zip(self.names, self.sums)):
            if g:
                unit = (" place", " Durak") if i == 0 else ("", "")
                parts.append(f"{name} {p / g:.2f}{unit[0]}, {100 * lost / g:.1f}%{unit[1]}")
        return " · ".join(parts)


__all__ = ["BOOTSTRAP", "LiveScore", "PlaceTally", "checkpoints", "meetings",
           "poisson_weights", "seat_pairs", "seat_results", "team_pair_keys"]

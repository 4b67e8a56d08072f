"""A match: strategy A against strategy B over seeded deals, with honest statistics.

The games are played in blocks of deals, each about two seconds of play
(:class:`durak_sim.runner.BlockSizer`), and each block is reduced to counts
(:func:`durak_sim.counts.count_games`, the counting the tournament's report uses) before
the next is played: memory does not grow with the number of deals, and the summary comes
from the merged counts. On a terminal the progress and the running score show on stderr;
with ``interruptible``, Ctrl-C ends the match (the kernel begins no further game) and the
summary (and the records) hold every deal finished.

>>> s = run_match("easy", "random", deals=200, seed=3)
>>> s.table.loc[0, "strategy"], s.games
('easy', 400)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import NOTHING_FINISHED, Interrupted, UserError
from .formatting import (elo_ci, is_sweep, num, p_value, pct_ci, print_whole, secs,
                         wide_console)
from .play import RECORD_BLOCK, check_seed, play_games, ready_lineup, resolve_strategies
from .rules import Rules, check_rules



@dataclass
class MatchSummary:
    a: str
    b: str
    seed: int
    deals: int
    swap: bool
    rules: Rules
    games: int
    table: "object"  # pandas DataFrame: per strategy W/D/L with Wilson 95% intervals
    #                  (self-play: one row, each game counted once with seat 0's result)
    seat: "object"  # seat-0 advantage
    first: "object"  # first-attacker advantage
    pairing: "object | None"  # paired statistics (Elo, LOS) when seats were swapped
    seconds: float
    compile_seconds: float
    decisions: int
    versions: dict = field(default_factory=dict)
    #: deal indices asked for, when Ctrl-C stopped the match after ``deals`` of them
    interrupted_of: int | None = None

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict:
        out = {
            "a": self.a, "b": self.b, "seed": self.seed, "deals": self.deals, "swap": self.swap,
            "games": self.games, "rules": self.rules.to_dict(), "versions": self.versions,
            "strategies": self.table.to_dict(orient="records"),
            "seat0_advantage": self.seat.iloc[0].to_dict(),
            "first_attacker_advantage": self.first.iloc[0].to_dict(),
            "seconds": self.seconds, "compile_seconds": self.compile_seconds,
            "deals_per_second": self.deals_per_second,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
            "decisions_per_second": self.decisions / self.seconds if self.seconds > 0 else None,
        }
        if self.pairing is not None:
            out["pairing"] = self.pairing.iloc[0].to_dict()
        if self.interrupted_of is not None:
            out["interrupted_of"] = self.interrupted_of
        return _plain(out)

    def print(self, console=None) -> None:
        from rich.table import Table

        if console is None:
            console = wide_console(150)
        stopped = "" if self.interrupted_of is None else \
            f" (interrupted: {self.deals:,} of {self.interrupted_of:,} deals)"
        t = Table(title=f"{self.a} vs {self.b}: {self.deals:,} deals"
                        f"{' x 2 seats' if self.swap else ''}, seed {self.seed}, "
                        f"{self.rules.tag}{stopped}", title_justify="left")
        for col in ("strategy", "games", "wins", "durak", "draws", "win %  [95% CI]",
                    "durak %  [95% CI]", "draw %  [95% CI]"):
            t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
        for r in self.table.itertuples():
            t.add_row(r.strategy, f"{r.games:,}", f"{r.wins:,}", f"{r.durak:,}", f"{r.draws:,}",
                      _pct(r.win_rate, r.win_lo, r.win_hi),
                      _pct(r.durak_rate, r.durak_lo, r.durak_hi),
                      _pct(r.draw_rate, r.draw_lo, r.draw_hi))
        print_whole(console, t)
        if self.a == self.b:
            console.print("self-play: each game counted once, with seat 0's result")
        s, f = self.seat.iloc[0], self.first.iloc[0]
        console.print(f"seat 0 wins {_pct(s.rate, s.lo, s.hi)} of {s.decisive:,} decisive games "
                      f"(p = {p_value(s.p_value)})")
        console.print(f"first attacker wins {_pct(f.rate, f.lo, f.hi)} of {f.decisive:,} "
                      f"decisive games (p = {p_value(f.p_value)})")
        if self.pairing is not None:
            p = self.pairing.iloc[0]
            console.print(f"paired: {p.a} scores {num(100 * p.score, '.2f')}% over {p.pairs:,} "
                          f"deal pairs, Elo {elo_ci(p.elo, p.elo_lo, p.elo_hi, is_sweep(p))}, "
                          f"LOS {num(100 * p.los, '.2f')}%, pairing variance ratio "
                          f"{num(p.var_ratio, '.3f')}"
                          + (" (a sweep: the Elo is a bound)" if is_sweep(p) else ""))
        games_per_s = self.games / self.seconds if self.seconds > 0 else float("nan")
        console.print(f"{self.deals_per_second:,.0f} deals/s, {games_per_s:,.0f} games/s "
                      f"({self.deals:,} deals, {self.games:,} games in {secs(self.seconds)} s; "
                      f"compile/load {secs(self.compile_seconds)} s apart)")


def _pct(rate, lo, hi) -> str:
    return pct_ci(rate, lo, hi, spec="6.2f", gap="  ")


def _plain(x):
    """``x`` as plain JSON values; an undefined number (NaN) is ``null``, never ``NaN``."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _block_counts(batch, names: list) -> "object":
    """The :class:`durak_sim.counts.GameCounts` of a played batch, straight from the
    kernel's result columns (no per-game frame), without the game-length histograms and
    the pair points (the summary needs neither; pair points grow with the games)."""
    from .counts import count_games
    from .play import _layout

    E = _layout()
    r = batch.results
    seat_of = np.array([names.index(s.name) for s in batch.strategies], dtype=np.int64)
    n, rot = len(seat_of), batch.rots
    return count_games(names, seat_of[rot % n], seat_of[(1 + rot) % n],
                       draw=r[:, E.R_OUTCOME] == 1, durak=r[:, E.R_DURAK],
                       seed=np.full(len(batch), batch.seed, np.int64), deal=batch.deals,
                       swap=rot, first_attacker=r[:, E.R_FIRST], pair_points=False)


def run_match(a: str, b: str, *, deals: int, seed: int = 1, threads: int | None = None,
              swap: bool = True, records: Path | None = None, rules: Rules = Rules(),
              progress: bool = False, interruptible: bool = False) -> MatchSummary:
    """Play deals ``0..deals-1`` between ``a`` and ``b``; write records if asked (all or
    nothing: ``files.atomic_text_file``; a file already at ``records`` is replaced, as
    ``pandas.DataFrame.to_csv`` would: the command's ``--force`` is its own).
    ``progress``: live progress on stderr when it is a terminal; ``interruptible``: Ctrl-C (in the main thread) ends the match after the
    block in play, with a summary of the deals finished (``interrupted_of`` set).

    Memory stays bounded: each block of deals is counted and dropped before the next."""
    import contextlib

    from . import stats
    from .counts import merge_counts
    from .limits import MAX_DEALS
    from .progress import Board, live
    from .records import dumps
    from .runner import BlockSizer
    from .stopping import StopFlag
    from .files import atomic_text_file

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    rules = check_rules(rules)
    strats = resolve_strategies([a, b])
    order = [s.name for s in strats]
    names = list(dict.fromkeys(order))
    sizer = BlockSizer(most=RECORD_BLOCK // 2 if records is not None else None)
    counts, seconds, decisions, played = None, 0.0, 0, 0
    check_seed(seed)   # (bad input is told before a compile)
    compile_s = ready_lineup(strats, rules)
    board = Board(f"match {a} vs {b}: {deals:,} deals{' x 2 seats' if swap else ''}, "
                  f"seed {seed}", unit="deals", games_per_unit=2 if swap else 1)
    board.add("m", f"{a} vs {b}", deals, a=a, b=b)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_text_file(records)) if records is not None else None
        stop = stack.enter_context(StopFlag()) if interruptible else None
        stack.enter_context(live(board, progress))
        while played < deals and not stop:
            n = min(sizer.size, deals - played)
            batch = play_games(strats, seed=seed, deals=range(played, played + n),
                               swap=swap, threads=threads, rules=rules, record=out is not None,
                               stop=None if stop is None else stop.kernel_flag)
            n = len(batch) // (2 if swap else 1)   # fewer when Ctrl-C came during the call
            if n == 0:
                break
            played += n
            seconds += batch.seconds
            compile_s += batch.compile_seconds
            decisions += batch.decisions
            sizer.played(n, batch.seconds)
            part = _block_counts(batch, names)
            counts = part if counts is None else merge_counts([counts, part])
            _advance(board, part, n, batch.seconds, a, b)
            if out is not None:  # writing records is not counted as engine time
                out.writelines(dumps(r) + "\n" for r in batch.records())
        if counts is None:   # inside the with: the records file is left as it was
            raise Interrupted(NOTHING_FINISHED)
    table = stats.strategy_table(counts)
    table = table.set_index("strategy").loc[names].reset_index()
    pairing = stats.pairing_table(counts, order=order) if swap and a != b else None
    return MatchSummary(a=strats[0].name, b=strats[1].name, seed=seed, deals=played, swap=swap,
                        rules=rules, games=int(counts.games.sum()), table=table,
                        seat=stats.seat_advantage(counts),
                        first=stats.first_attacker_advantage(counts), pairing=pairing,
                        seconds=seconds, compile_seconds=compile_s, decisions=decisions,
                        versions={s.name: s.version for s in strats},
                        interrupted_of=deals if played < deals else None)


def _advance(board, part, n: int, seconds: float, a: str, b: str) -> None:
    """The board's row after a block: deals, and ``a``'s W-D-L and pentanomial counts."""
    wdl = pent = None
    if a != b:
        i = [k for k in range(len(part.a))
             if {part.names[part.a[k]], part.names[part.b[k]]} == {a, b}]
        if i:
            k = i[0]
            tri = part.tri[k]            # L, D, W of the pairing's first-named side
            pent = part.pent[k] if part.pent is not None else None
            if part.names[part.a[k]] != a:
                tri, pent = tri[::-1], None if pent is None else pent[::-1]
            wdl = (int(tri[2]), int(tri[1]), int(tri[0]))
    board.advance("m", n, seconds, wdl=wdl, pent=pent)

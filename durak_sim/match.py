"""A match: strategy A against strategy B over seeded deals, with honest statistics.

>>> s = run_match("easy", "random", deals=200, seed=3)
>>> s.table.loc[0, "strategy"], s.games
('easy', 400)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import UserError
from .play import RECORD_BLOCK, play_games, resolve_strategies
from .rules import Rules

#: deal indices per kernel call when no records are kept (bounded memory, steady progress)
BLOCK_DEALS = 100_000


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
    seat: "object"  # seat-0 advantage
    first: "object"  # first-attacker advantage
    pairing: "object | None"  # paired statistics (Elo, LOS) when seats were swapped
    seconds: float
    compile_seconds: float
    decisions: int
    versions: dict = field(default_factory=dict)

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
        return _plain(out)

    def print(self, console=None) -> None:
        from rich.console import Console
        from rich.table import Table

        if console is None:
            console = Console()
            console = Console(width=max(console.width, 150))
        t = Table(title=f"{self.a} vs {self.b}: {self.deals:,} deals"
                        f"{' x 2 seats' if self.swap else ''}, seed {self.seed}, "
                        f"{self.rules.tag}", title_justify="left")
        for col in ("strategy", "games", "wins", "durak", "draws", "win %  [95% CI]",
                    "durak %  [95% CI]", "draw %  [95% CI]"):
            t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
        for r in self.table.itertuples():
            t.add_row(r.strategy, f"{r.games:,}", f"{r.wins:,}", f"{r.durak:,}", f"{r.draws:,}",
                      _pct(r.win_rate, r.win_lo, r.win_hi),
                      _pct(r.durak_rate, r.durak_lo, r.durak_hi),
                      _pct(r.draw_rate, r.draw_lo, r.draw_hi))
        console.print(t)
        s, f = self.seat.iloc[0], self.first.iloc[0]
        console.print(f"seat 0 wins {_pct(s.rate, s.lo, s.hi)} of {s.decisive:,} decisive games "
                      f"(p = {s.p_value:.3g})")
        console.print(f"first attacker wins {_pct(f.rate, f.lo, f.hi)} of {f.decisive:,} "
                      f"decisive games (p = {f.p_value:.3g})")
        if self.pairing is not None:
            p = self.pairing.iloc[0]
            console.print(f"paired: {p.a} scores {100 * p.score:.2f}% over {p.pairs:,} deal pairs, "
                          f"Elo {p.elo:+.1f} [{p.elo_lo:+.1f}, {p.elo_hi:+.1f}], "
                          f"LOS {100 * p.los:.2f}%, pairing variance ratio {p.var_ratio:.3f}")
        games_per_s = self.games / self.seconds if self.seconds > 0 else float("nan")
        console.print(f"{self.deals_per_second:,.0f} deals/s, {games_per_s:,.0f} games/s "
                      f"({self.deals:,} deals, {self.games:,} games in {self.seconds:.2f} s; "
                      f"compile/load {self.compile_seconds:.2f} s apart)")


def _pct(rate, lo, hi) -> str:
    return f"{100 * rate:6.2f}  [{100 * lo:.2f}, {100 * hi:.2f}]"


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def run_match(a: str, b: str, *, deals: int, seed: int = 1, threads: int | None = None,
              swap: bool = True, records: Path | None = None,
              rules: Rules = Rules()) -> MatchSummary:
    """Play deals ``0..deals-1`` between ``a`` and ``b``; write records if asked."""
    import pandas as pd

    from . import stats
    from .records import dumps

    if deals < 1:
        raise UserError(f"deals must be >= 1, got {deals}")
    strats = resolve_strategies([a, b])
    block = RECORD_BLOCK // 2 if records is not None else BLOCK_DEALS
    frames, seconds, compile_s, decisions = [], 0.0, 0.0, 0
    out = open(records, "w", encoding="utf-8") if records is not None else None
    try:
        for lo in range(0, deals, block):
            batch = play_games(strats, seed=seed, deals=range(lo, min(deals, lo + block)),
                               swap=swap, threads=threads, rules=rules, record=out is not None)
            seconds += batch.seconds
            compile_s += batch.compile_seconds
            decisions += batch.decisions
            frames.append(batch.frame())
            if out is not None:  # writing records is not counted as engine time
                out.writelines(dumps(r) + "\n" for r in batch.records())
    finally:
        if out is not None:
            out.close()
    games = pd.concat(frames, ignore_index=True)
    order = [s.name for s in strats]
    table = stats.strategy_table(games)
    table = table.set_index("strategy").loc[list(dict.fromkeys(order))].reset_index()
    pairing = stats.pairing_table(games, order=order) if swap and a != b else None
    return MatchSummary(a=strats[0].name, b=strats[1].name, seed=seed, deals=deals, swap=swap,
                        rules=rules, games=len(games), table=table,
                        seat=stats.seat_advantage(games), first=stats.first_attacker_advantage(games),
                        pairing=pairing, seconds=seconds, compile_seconds=compile_s,
                        decisions=decisions, versions={s.name: s.version for s in strats})

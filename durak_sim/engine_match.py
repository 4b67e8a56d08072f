"""Matches with external engines (``durak-sim match engine:PATH ...``), and forfeits.

A line-up with an ``engine:`` strategy plays on the reference engine, one game at a time
(the games are the same as any match's: the seed contract, the same seat inputs as
``reference.play_game``). An engine that fails (crashes, hangs past ``--engine-timeout``,
closes its output, prints garbage, plays an illegal action) stops the match with one line
naming it, its seat, the seed and the deal (:class:`EngineFailure`, exit code 2), its
process killed. With ``forfeit``, that game is scored as a loss of the failing seat instead
(:func:`forfeit_result`) and the match goes on; the engine is started afresh for its next
game. The summary is the usual one (:mod:`durak_sim.match`, :mod:`durak_sim.table_match`),
plus the engines' thinking time and the forfeits.

:func:`play_schedule_forfeit` is the block player a tournament needs to do the same: the
drop-in for ``durak_sim.play.play_schedule`` that scores an engine's failure as its loss.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import NOTHING_FINISHED, Interrupted, UserError, game_at
from .external import EngineFailure, EngineStopped
from .rules import Rules

#: deal indices per block (counted, recorded and checked for Ctrl-C between blocks)
BLOCK_DEALS = 64


@dataclass
class Forfeit:
    """One game scored as a loss of the engine that failed in it."""

    seed: int
    deal: int
    seat: int
    strategy: str
    kind: str
    detail: str
    game: int = -1     # its index in the batch that played it


    def line(self) -> str:
        return (f"engine '{self.strategy}' (seat {self.seat}) {self.detail} "
                f"{game_at(self.seed, self.deal)}")

    def to_dict(self) -> dict:
        return {"seed": self.seed, "deal": self.deal, "seat": self.seat,
                "strategy": self.strategy, "kind": self.kind, "detail": self.detail}


def play_one(seed: int, deal: int, seated: list, rules: Rules):
    """Play one deal on the reference engine exactly as ``reference.play_game`` does (the
    same seat inputs, forced actions played by the engine, E1); return ``(game, decisions,
    failure)`` where ``failure`` is the :class:`EngineFailure` that stopped it, else None.
    Any other failure of a strategy raises as in every match."""
    from .errors import StrategyFailure, describe_failure
    from .reference import (IllegalActionError, ReferenceGame, decisions, hist_for_strategy,
                            legal_array, seat_inputs)

    game = ReferenceGame.new(seed, deal, rules)
    rngs, mems = seat_inputs(seed, deal, seated)
    asked = 0
    for seat, codes in decisions(game):
        strat = seated[seat]
        where = f"strategy {strat.name!r} (seat {seat})"
        at = game_at(seed, deal)
        try:
            code = strat.decide(game.observation(seat), legal_array(codes),
                                hist_for_strategy(game), rngs[seat], mems[seat])
        except EngineFailure as exc:
            return game, asked, exc
        except (Exception, SystemExit) as exc:
            raise StrategyFailure(f"{where} {describe_failure(exc)} {at}") from None
        asked += 1
        if isinstance(code, (bool, float)) or not isinstance(code, (int, np.integer)):
            raise StrategyFailure(f"{where} returned {code!r}, not an action code {at}")
        if int(code) not in codes:
            raise IllegalActionError(f"{where} returned illegal action {int(code)} {at}")
        game.apply(int(code))
    return game, asked, None


def forfeit_result(game, seat: int) -> dict:
    """The result of a game ``seat`` forfeited: it is the Durak (with teams its team
    loses); the seats already out keep their places, the others still playing go out after
    them in seat order from the seat after ``seat``."""
    from .observation import O_PLACES

    rules = game.rules
    n = rules.players
    obs = game.observation(seat)
    placed = sorted((int(obs[O_PLACES + s]), s) for s in range(n) if int(obs[O_PLACES + s]))
    out = [s for _, s in placed]
    order = [(seat + k) % n for k in range(1, n)]
    if rules.teams:
        team = seat & 1
        winners = [s for s in order if s & 1 != team and s not in out]
        out_order = out + winners
        places = [0] * n
        for k, s in enumerate(out_order):
            places[s] = k + 1
        for s in range(n):
            if places[s] == 0:
                places[s] = len(out_order) + 1
        return {"outcome": "durak", "durak": None, "out_order": out_order,
                "bouts": _bouts(game),
                "places": places, "durak_team": team}
    out_order = out + [s for s in order if s not in out]
    res = {"outcome": "durak", "durak": seat, "out_order": out_order,
           "bouts": _bouts(game)}
    if n > 2:
        places = [0] * n
        for k, s in enumerate(out_order):
            places[s] = k + 1
        places[seat] = n
        res["places"] = places
    return res


def _bouts(game) -> int:
    from .observation import O_BOUTS

    return int(game.observation(0)[O_BOUTS])


def _record(game, seed: int, deal: int, seats: list[str], result: dict,
            forfeit: Forfeit | None) -> dict:
    from .records import make_record

    rec = make_record(game.rules, seed, deal, seats, game.hands_dealt, game.stock_dealt,
                      game.first_attacker, game.history, result, trump=game.face_up,
                      dealer=game.dealer)
    if forfeit is not None:
        rec["forfeit"] = {"seat": forfeit.seat, "kind": forfeit.kind, "detail": forfeit.detail}
    return rec


def play_schedule_forfeit(strategies, seed: int, deals, rots, *, rules: Rules = Rules(),
                          forfeit: bool = False, stop=None, records: list | None = None,
                          forfeits: list | None = None):
    """The games ``(deals[g], rots[g])`` as a ``GameBatch`` (like
    ``durak_sim.play.play_schedule`` on the slow path), an engine's failure scored as its
    loss when ``forfeit`` (appended to ``forfeits``), else raised as one line
    (:class:`EngineFailure` with the seed and deal in its message). ``records``: a list to
    append each game's record to. ``stop``: a one-element array; once set no further game
    begins, and the game under way is dropped if an engine's answer is still awaited
    ``external.STOP_GRACE`` s after that (seen within ``external.EXIT_CHECK`` s)."""
    from . import external
    from .kernel import layout as E
    from .play import GameBatch, resolve_strategies
    from .slow_path import _fill_row

    strats = [s.for_rules(rules) for s in resolve_strategies(strategies)]
    n = rules.players
    results = np.zeros((len(deals), E.R_COLS), np.int64)
    t = time.perf_counter()
    done = len(deals)
    for g, (deal, rot) in enumerate(zip(deals, rots)):
        if stop is not None and stop[0]:
            done = g
            break
        deal, rot = int(deal), int(rot)
        seated = [strats[(s + rot) % n] for s in range(n)]
        try:
            with external.stopping_with(stop):
                game, asked, failure = play_one(seed, deal, seated, rules)
        except EngineStopped:
            done = g
            break
        lost = None
        if failure is not None:
            if not forfeit:   # one line: the engine, its seat, the seed and the deal
                failure.args = (failure.one_line("", game_at(seed, deal)),)
                raise failure
            lost = Forfeit(seed, deal, failure.seat, failure.spec, failure.kind, failure.detail,
                           g)
            if forfeits is not None:
                forfeits.append(lost)
            res = forfeit_result(game, failure.seat)
        else:
            res = game.result()
        _fill_row(results[g], game, res)
        results[g, E.R_DECISIONS] = asked
        if records is not None:
            records.append(_record(game, seed, deal, [s.name for s in seated], res, lost))
    batch = GameBatch(seed, rules, list(strats), np.asarray(deals, np.int64),
                      np.asarray(rots, np.int64), results, None, None,
                      time.perf_counter() - t, 0.0, {"backend": "reference"})
    return batch.head(done) if done < len(deals) else batch


@dataclass
class EngineMatch:
    """A finished (or interrupted) match with engines: ``summary`` (a ``MatchSummary`` or,
    with more than two players, a ``TableSummary``), the forfeits, the thinking times."""

    summary: object
    forfeits: list = field(default_factory=list)
    thinking: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = self.summary.to_dict()
        out["thinking"] = self.thinking
        out["forfeits"] = [f.to_dict() for f in self.forfeits]
        return out

    def print(self) -> None:
        self.summary.print()
        for name, t in self.thinking.items():
            print(f"thinking time: {name} {t['seconds']:.3f} s over {t['decisions']:,} "
                  f"decisions, {t['mean_ms']:.3f} ms each on average (longest "
                  f"{t['max_ms']:.1f} ms)")
        if self.forfeits:
            print(f"forfeits: {len(self.forfeits):,} games scored as losses of the engine that "
                  f"failed in them")
            for f in self.forfeits[:10]:
                print(f"  {f.line()}")
            if len(self.forfeits) > 10:
                print(f"  ... and {len(self.forfeits) - 10:,} more (--json lists them all)")


def run_engine_match(names: list[str], *, deals: int, seed: int = 1, rules: Rules,
                     swap: bool = True, records: Path | None = None, forfeit: bool = False,
                     progress: bool = False, interruptible: bool = False) -> EngineMatch:
    """Play deals ``0..deals-1`` with the line-up ``names`` (seat order; each deal once per
    rotation with ``swap``) and summarise it as ``durak-sim match`` does."""
    import contextlib

    from . import external
    from .limits import MAX_DEALS
    from .play import game_schedule, resolve_strategies
    from .progress import Board, live
    from .records import dumps
    from .stopping import StopFlag
    from .files import atomic_text_file

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    strats = resolve_strategies(names)
    uniq = list(dict.fromkeys(s.name for s in strats))
    per = rules.players if swap else 1
    forfeits: list = []
    parts, played, seconds, decisions = [], 0, 0.0, 0
    external.reset_thinking()
    board = Board(f"match {' '.join(names)}: {deals:,} deals, seed {seed}", unit="deals",
                  games_per_unit=per)
    board.add("m", " vs ".join(names), deals)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_text_file(records)) if records is not None else None
        stop = stack.enter_context(StopFlag()) if interruptible else None
        stack.enter_context(live(board, progress))
        while played < deals and not stop:
            n = min(BLOCK_DEALS, deals - played)
            d, r = game_schedule(range(played, played + n), rules.players, swap)
            recs = [] if out is not None else None
            batch = play_schedule_forfeit(strats, seed, d, r, rules=rules, forfeit=forfeit,
                                          stop=None if stop is None else stop.kernel_flag,
                                          records=recs, forfeits=forfeits)
            k = len(batch) // per
            if k < len(batch) / per:   # keep whole deals (every rotation) only
                batch = batch.head(k * per)
                if recs is not None:
                    del recs[k * per:]
            if k == 0:
                break
            played += k
            seconds += batch.seconds
            decisions += batch.decisions
            parts.append(batch)
            board.advance("m", k, batch.seconds)
            if out is not None:
                out.writelines(dumps(rec) + "\n" for rec in recs)
        if not parts:   # inside the with: the records file is left as it was
            raise Interrupted(NOTHING_FINISHED)
    forfeits = [f for f in forfeits if f.deal < played]   # those of whole deals kept
    interrupted = deals if played < deals else None
    summary = _summary(parts, strats, uniq, rules, seed, played, swap, seconds, decisions,
                       interrupted)
    return EngineMatch(summary, forfeits, external.thinking_times())


def _summary(parts, strats, names, rules, seed, played, swap, seconds, decisions,
             interrupted):
    versions = {s.name: s.version for s in strats}
    if rules.players > 2:
        from .table_match import TableSummary, count_places, place_table

        counts = None
        for b in parts:
            c = count_places(b, names)
            counts = c if counts is None else counts.merge(c)
        return TableSummary(names=[s.name for s in strats], seed=seed, deals=played, swap=swap,
                            rules=rules, counts=counts, table=place_table(counts),
                            seconds=seconds, compile_seconds=0.0, decisions=decisions,
                            versions=versions, interrupted_of=interrupted)
    from . import stats
    from .counts import merge_counts
    from .match import MatchSummary, _block_counts

    counts = merge_counts([_block_counts(b, names) for b in parts])
    order = [s.name for s in strats]
    table = stats.strategy_table(counts).set_index("strategy").loc[names].reset_index()
    a, b = order
    pairing = stats.pairing_table(counts, order=order) if swap and a != b else None
    return MatchSummary(a=a, b=b, seed=seed, deals=played, swap=swap, rules=rules,
                        games=int(counts.games.sum()), table=table,
                        seat=stats.seat_advantage(counts),
                        first=stats.first_attacker_advantage(counts), pairing=pairing,
                        seconds=seconds, compile_seconds=0.0, decisions=decisions,
                        versions=versions, interrupted_of=interrupted)

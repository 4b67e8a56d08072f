"""Play seeded games between strategies: the public, numba-free face of the kernel.

>>> batch = play_games(["easy", "random"], seed=1, deals=range(10))
>>> len(batch), batch.frame().columns[:4].tolist()
(20, ['seed', 'deal', 'swap', 'seat0'])

Game ``g`` of a batch is deal ``deals[g // 2]`` with the seats swapped when ``g`` is odd
(duplicate play), or deal ``deals[g]`` as listed with ``swap=False``. Every game depends only
on (seed, deal index, strategies in their seats): not on threads, chunking or blocks.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

import numpy as np

from .errors import StrategyFailure, UserError, describe_failure
from .registry import Strategy, get_strategy
from .rules import Rules
from .seeding import MAX_SEED

#: games per kernel call when records are kept (their action buffers are large)
RECORD_BLOCK = 1024


class IllegalStrategyAction(StrategyFailure):
    """A strategy returned an action that was not legal."""


def _kernel():
    # imported lazily: importing numba costs half a second that listing strategies must not pay
    from .kernel import engine

    return engine


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def resolve_strategies(names: Sequence[str | Strategy]) -> list[Strategy]:
    return [n if isinstance(n, Strategy) else get_strategy(n) for n in names]


#: about how long a cold compile of the game kernel takes on a 2-core machine (the notice)
KERNEL_COMPILE_SECONDS = 12
_kernel_ready = False


def prepare(strategies: Sequence[Strategy], kernel: bool = True, notice=None) -> float:
    """Compile (or load from numba's cache) the numba strategies among ``strategies`` and,
    with ``kernel``, the game kernel; return the seconds it took.

    When any of it is not in the cache, one line on stderr (or ``notice(text)``) says first
    what is being compiled and about how long it takes, since a cold compile can take a
    minute or more. Listing strategies never gets here: it compiles nothing."""
    import sys
    import time

    from . import registry
    from .kernel import cache

    global _kernel_ready
    todo = [s for s in dict.fromkeys(strategies)
            if s.compiled and s.name not in registry._READY]
    if not todo and (_kernel_ready or not kernel):
        return 0.0
    t = time.perf_counter()
    cold = [s for s in todo if cache.is_cached(s.fn) is False]
    what = [f"strategy {s.name!r}" for s in cold]
    estimate = sum(s.compile_seconds or 0 for s in cold)
    if kernel and not _kernel_ready and cache.any_cached(_kernel().play_batch) is False:
        what.insert(0, "the game kernel")
        estimate += KERNEL_COMPILE_SECONDS
    if what:
        names = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
        about = f" (about {estimate:.0f} s)" if estimate >= 1 else ""
        text = (f"durak-sim: compiling {names} for first use{about}; later runs load "
                f"{'it' if len(what) == 1 else 'them'} from the cache")
        if notice is not None:
            notice(text)
        else:
            print(text, file=sys.stderr, flush=True)
    for s in todo:
        try:
            cache.compile_strategy(s.fn)
        except Exception as exc:  # a plugin that numba cannot compile for the kernel
            raise StrategyFailure(f"strategy {s.name!r} does not compile for the kernel: "
                                  f"{describe_failure(exc)}") from None
        registry._READY.add(s.name)
    if kernel:
        _kernel_ready = True   # _warm compiles it on the first batch (or loads it)
    return time.perf_counter() - t


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise UserError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    return int(seed)


@dataclass
class GameBatch:
    """Results of a batch of games; ``results`` holds the kernel's R_* columns per game."""

    seed: int
    rules: Rules
    strategies: list[Strategy]
    deals: np.ndarray  # deal index per game
    rots: np.ndarray  # seat s of game g is played by strategies[(s + rots[g]) % players]
    results: np.ndarray
    actions: np.ndarray | None = None  # packed histories per game when recorded
    decks: np.ndarray | None = None
    seconds: float = 0.0
    compile_seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.deals)

    def head(self, k: int) -> "GameBatch":
        """The batch of its first ``k`` games."""
        cut = (lambda a: None if a is None else a[:k])
        return GameBatch(self.seed, self.rules, self.strategies, self.deals[:k], self.rots[:k],
                         self.results[:k], cut(self.actions), cut(self.decks), self.seconds,
                         self.compile_seconds, self.meta)

    def seat_names(self, g: int) -> list[str]:
        n = len(self.strategies)
        return [self.strategies[(s + int(self.rots[g])) % n].name for s in range(n)]

    @property
    def decisions(self) -> int:
        return int(self.results[:, _kernel().R_DECISIONS].sum())

    def frame(self):
        """One row per game (the columns ``durak_sim.stats`` expects)."""
        import pandas as pd

        E = _kernel()
        r = self.results
        names = np.array([s.name for s in self.strategies], dtype=object)
        n = len(names)
        rot = self.rots
        return pd.DataFrame({
            "seed": np.full(len(self), self.seed, np.int64),
            "deal": self.deals.astype(np.int64),
            "swap": rot.astype(np.int64),
            "seat0": names[rot % n],
            "seat1": names[(1 + rot) % n],
            "outcome": np.where(r[:, E.R_OUTCOME] == 1, "draw", "durak"),
            "durak": r[:, E.R_DURAK],
            "first_attacker": r[:, E.R_FIRST],
            "bouts": r[:, E.R_BOUTS],
            "cards_left": r[:, E.R_CARDS_LEFT],
        })

    def records(self) -> Iterator[dict]:
        """Game records (``durak-sim/record/1``) of a recorded batch, in game order."""
        from .actions import unpack_history
        from .records import make_record

        if self.actions is None:
            raise ValueError("this batch was played without records")
        E = _kernel()
        players, hs = self.rules.players, self.rules.hand_size
        for g in range(len(self)):
            row = self.results[g]
            deck = [int(c) for c in self.decks[g]]
            n = players * hs
            hands = [deck[s:n:players] for s in range(players)]
            stock = deck[n + 1:] + [deck[n]]
            acts = [unpack_history(int(e)) for e in self.actions[g, :row[E.R_N_ACTIONS]]]
            durak = int(row[E.R_DURAK])
            result = {"outcome": "draw" if durak < 0 else "durak",
                      "durak": None if durak < 0 else durak,
                      "out_order": [int(x) for x in row[E.R_OUT:E.R_OUT + row[E.R_N_OUT]]],
                      "bouts": int(row[E.R_BOUTS])}
            yield make_record(self.rules, self.seed, int(self.deals[g]), self.seat_names(g),
                              hands, stock, int(row[E.R_FIRST]), acts, result)


def game_schedule(deals: Iterable[int], players: int, swap: bool) -> tuple[np.ndarray, np.ndarray]:
    """(deal per game, rotation per game): with ``swap`` every deal is played once per seat
    rotation, rotations of one deal next to each other."""
    try:
        d = np.asarray(list(deals) if not isinstance(deals, np.ndarray) else deals,
                       dtype=np.int64)
    except OverflowError:
        raise UserError("deal indices must be at most 2**63 - 1") from None
    if d.size and d.min() < 0:
        raise UserError("deal indices must be >= 0")
    if not swap:
        return d, np.zeros(len(d), np.int64)
    return np.repeat(d, players), np.tile(np.arange(players, dtype=np.int64), len(d))


def _set_threads(threads: int | None) -> int:
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    t = cpu_count() if threads is None else int(threads)
    if not 1 <= t <= limit:
        raise UserError(f"threads must be in 1..{limit}, got {threads}")
    numba.set_num_threads(t)
    return t


def play_schedule(strategies: Sequence[str | Strategy], seed: int, deals: np.ndarray,
                  rots: np.ndarray, *, rules: Rules = Rules(), threads: int | None = None,
                  record: bool = False, stop: np.ndarray | None = None) -> GameBatch:
    """Play the games ``(deals[g], rots[g])`` and return their batch.

    ``stop``: an ``int64`` array of one element that another thread may set (Ctrl-C,
    :class:`durak_sim.runner.StopFlag`); the kernel then begins no further game, and the
    batch holds the games played before the first one not played (``len(batch)`` may be
    less than ``len(deals)``)."""
    import time

    strats = resolve_strategies(strategies)
    seed = check_seed(seed)
    if len(strats) != rules.players:
        raise UserError(f"{rules.players} players need {rules.players} strategies, got {len(strats)}")
    if not all(s.compiled for s in strats):
        return _play_reference(strats, seed, deals, rots, rules, record, stop)
    E = _kernel()
    n_threads = _set_threads(threads)
    prepare_s = prepare(strats)
    fns = tuple(s.fn for s in strats)
    mem_size = np.int64(max(s.memory for s in strats))
    resets = np.array([s.reset for s in strats], np.int64)
    n = len(deals)
    results = np.zeros((n, E.R_COLS), np.int64)
    actions = decks = None
    compile_s = prepare_s + _warm(E, fns, rules, mem_size, resets)
    flag = np.zeros(1, np.int64) if stop is None else stop
    t1 = time.perf_counter()
    try:
        if record:
            actions = np.zeros((n, E.MAX_ACTIONS), np.int64)
            decks = np.zeros((n, 36), np.int64)
            for lo in range(0, n, RECORD_BLOCK):
                hi = min(n, lo + RECORD_BLOCK)
                _run(E, seed, deals[lo:hi], rots[lo:hi], fns, rules, mem_size, resets,
                     n_threads, results[lo:hi], actions[lo:hi], decks[lo:hi], flag)
        else:
            _run(E, seed, deals, rots, fns, rules, mem_size, resets, n_threads, results, None,
                 None, flag)
    except Exception as exc:   # a strategy raised inside the kernel (numba: SystemError)
        raise _failure(E, strats, seed, deals, rots, rules, fns, mem_size, resets, exc) \
            from None
    seconds = time.perf_counter() - t1
    if flag[0]:   # stopped: keep the games before the first one not played
        cut = np.flatnonzero(results[:, E.R_ERROR] == E.ERR_STOPPED)
        k = int(cut[0]) if len(cut) else n
        deals, rots, results = deals[:k], rots[:k], results[:k]
        if record:
            actions, decks = actions[:k], decks[:k]
    batch = GameBatch(seed, rules, strats, deals, rots, results, actions, decks, seconds,
                      compile_s, {"backend": "kernel", "threads": n_threads})
    _check_errors(batch)
    return batch


_warmed: set = set()


def _warm(E, fns, rules, mem_size, resets) -> float:
    """Compile (or load from the cache) the kernel for these strategies; seconds taken."""
    import time

    key = (fns, rules)
    if key in _warmed:
        return 0.0
    t = time.perf_counter()
    one = np.zeros(1, np.int64)
    res = np.zeros((1, E.R_COLS), np.int64)
    dummy = np.zeros((1, 1), np.int64)
    try:
        E.play_batch(np.int64(0), one, one, fns, np.int64(rules.players),
                     np.int64(rules.hand_size), mem_size, resets, np.int64(1), res, False,
                     dummy, dummy, np.zeros(1, np.int64))
    except Exception:  # noqa: BLE001 - compiled; a strategy failing in this game fails again
        pass           # in the real games, where it is told with their seed and deal
    _warmed.add(key)
    return time.perf_counter() - t


def _run(E, seed, deals, rots, fns, rules, mem_size, resets, n_threads, results, actions, decks,
         stop):
    n = len(deals)
    if n == 0:
        return
    record = actions is not None
    if not record:
        actions = decks = np.zeros((1, 1), np.int64)
    # enough chunks to balance uneven game lengths; results do not depend on the count
    n_chunks = max(1, min(n, 16 * n_threads))
    E.play_batch(np.int64(seed), np.ascontiguousarray(deals), np.ascontiguousarray(rots), fns,
                 np.int64(rules.players), np.int64(rules.hand_size), mem_size, resets,
                 np.int64(n_chunks), results, record, actions, decks, stop)


def _failure(E, strats, seed, deals, rots, rules, fns, mem_size, resets, exc) -> Exception:
    """The error of a kernel call that a strategy broke: the first failing game found by
    halving the batch (the games are the same whatever the batch), then told by the
    reference engine, which calls the same ``decide`` from Python and sees its exception."""
    import numba

    from .reference import play_game

    # one thread: an exception raised in a worker thread of a parallel call can be seen
    # again by that thread's next call, which would make the search below point elsewhere
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return _find_failure(E, strats, seed, deals, rots, rules, fns, mem_size, resets, exc,
                             play_game)
    finally:
        numba.set_num_threads(threads)


def _find_failure(E, strats, seed, deals, rots, rules, fns, mem_size, resets, exc,
                  play_game) -> Exception:
    def fails(lo: int, hi: int) -> bool:
        res = np.zeros((hi - lo, E.R_COLS), np.int64)
        try:
            _run(E, seed, deals[lo:hi], rots[lo:hi], fns, rules, mem_size, resets, 1, res,
                 None, None, np.zeros(1, np.int64))
        except Exception:  # noqa: BLE001 - what is being looked for
            return True
        return False

    lo, hi = 0, len(deals)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(lo, mid):
            hi = mid
        else:
            lo = mid
    n = rules.players
    seated = [strats[(s + int(rots[lo])) % n] for s in range(n)]
    try:
        play_game(seed, int(deals[lo]), seated, rules)
    except StrategyFailure as found:
        return found
    names = ", ".join(s.name for s in seated)
    return StrategyFailure(f"a strategy failed in the kernel at seed {seed} deal "
                           f"{int(deals[lo])} (seats: {names}): {describe_failure(exc)}")


def _check_errors(batch: GameBatch) -> None:
    E = _kernel()
    bad = np.flatnonzero(batch.results[:, E.R_ERROR])
    if not len(bad):
        return
    g = int(bad[0])
    row = batch.results[g]
    seat = int(row[E.R_ERROR_SEAT])
    name = batch.seat_names(g)[seat]
    if row[E.R_ERROR] == E.ERR_ILLEGAL:
        raise IllegalStrategyAction(
            f"strategy {name!r} (seat {seat}) returned illegal action {int(row[E.R_ERROR_ACTION])} "
            f"at seed {batch.seed} deal {int(batch.deals[g])}")
    raise IllegalStrategyAction(f"game too long (> {E.MAX_ACTIONS} actions) at seed {batch.seed} "
                                f"deal {int(batch.deals[g])}")


def _play_reference(strats, seed, deals, rots, rules, record, stop=None) -> GameBatch:
    """The slow path: any strategy written in plain Python plays on the reference engine."""
    import time

    from .actions import pack_history
    from .reference import IllegalActionError, play_game

    E = _kernel()
    compile_s = prepare(strats, kernel=False)
    n = len(deals)
    players = rules.players
    results = np.zeros((n, E.R_COLS), np.int64)
    actions = np.zeros((n, E.MAX_ACTIONS), np.int64) if record else None
    decks = np.zeros((n, 36), np.int64) if record else None
    t = time.perf_counter()
    for g in range(n):
        if stop is not None and stop[0]:   # stopped: the games played before this one
            n = g
            deals, rots, results = deals[:g], rots[:g], results[:g]
            if record:
                actions, decks = actions[:g], decks[:g]
            break
        rot = int(rots[g])
        seated = [strats[(s + rot) % players] for s in range(players)]
        try:
            game = play_game(seed, int(deals[g]), seated, rules)
        except IllegalActionError as exc:
            raise IllegalStrategyAction(str(exc)) from None
        except StrategyFailure as exc:
            raise StrategyFailure(str(exc)) from None   # one line: the cause is in it
        res = game.result()
        durak = -1 if res["durak"] is None else res["durak"]
        row = results[g]
        row[E.R_OUTCOME] = int(durak < 0)
        row[E.R_DURAK] = durak
        row[E.R_FIRST] = game.first_attacker
        row[E.R_BOUTS] = res["bouts"]
        row[E.R_CARDS_LEFT] = bin(game.hands[durak]).count("1") if durak >= 0 else 0
        row[E.R_N_ACTIONS] = len(game.history)
        row[E.R_N_OUT] = len(res["out_order"])
        row[E.R_OUT:E.R_OUT + 6] = -1
        row[E.R_OUT:E.R_OUT + len(res["out_order"])] = res["out_order"]
        if record:
            for k, (code, seat, target) in enumerate(game.history):
                actions[g, k] = pack_history(code, seat, target)
            n_cards = players * rules.hand_size
            for s in range(players):
                decks[g, s:n_cards:players] = game.hands_dealt[s]
            decks[g, n_cards] = game.stock_dealt[-1]
            decks[g, n_cards + 1:] = game.stock_dealt[:-1]
    return GameBatch(seed, rules, list(strats), deals, rots, results, actions, decks,
                     time.perf_counter() - t, compile_s, {"backend": "reference"})


def play_games(strategies: Sequence[str | Strategy], *, seed: int, deals: Iterable[int],
               swap: bool = True, rules: Rules = Rules(), threads: int | None = None,
               record: bool = False, stop: np.ndarray | None = None) -> GameBatch:
    """Play every deal of ``deals`` between ``strategies`` (seat order), each deal once per
    seat rotation when ``swap`` (duplicate play). ``stop`` as for :func:`play_schedule`; a
    stopped batch keeps whole deals only (every rotation of each)."""
    d, rots = game_schedule(deals, rules.players, swap)
    batch = play_schedule(strategies, seed, d, rots, rules=rules, threads=threads,
                          record=record, stop=stop)
    per = rules.players if swap else 1
    if len(batch) % per:
        batch = batch.head(len(batch) - len(batch) % per)
    return batch

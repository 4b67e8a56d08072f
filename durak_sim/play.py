"""Play seeded games between strategies: the public, numba-free face of the kernel.

>>> batch = play_games(["random", "easy"], seed=1, deals=range(10))
>>> len(batch), batch.frame().columns[:4].tolist()
(20, ['seed', 'deal', 'swap', 'seat0'])

Game ``g`` of a batch is deal ``deals[g // 2]`` with the seats swapped when ``g`` is odd
(duplicate play), or deal ``deals[g]`` as listed with ``swap=False``. Every game depends only
on (seed, deal index, strategies in their seats): not on threads, chunking or blocks.
"""
from __future__ import annotations

import os
import reprlib
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

import numpy as np

from .errors import StrategyFailure, UserError, describe_compile_failure, option
from .registry import Strategy, get_strategy
from .rules import Rules, check_rules
from .seeding import MAX_SEED

#: games per kernel call when records are kept (their action buffers are large)
RECORD_BLOCK = 1024


class IllegalStrategyAction(StrategyFailure):
    """A strategy returned an action that was not legal."""


def _kernel():
    """The kernel's batch player (numba: imported lazily, it costs half a second that listing
    strategies must not pay)."""
    from .kernel import batch

    return batch


def _layout():
    """The kernel's state and result-row layout (plain constants, no numba)."""
    from .kernel import layout

    return layout


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def default_threads() -> int:
    """The kernel threads a run uses when not told: every core this process may use, at
    most ``NUMBA_NUM_THREADS`` (numba's own limit, which a user may have set lower)."""
    from .kernel.threads import thread_limit

    return max(1, min(cpu_count(), thread_limit()))


def resolve_strategies(names: Sequence[str | Strategy]) -> list[Strategy]:
    from .registry import name_list

    return [n if isinstance(n, Strategy) else get_strategy(n)
            for n in name_list(names, "strategies")]


#: the kernels (table size, series) compiled or loaded in this process
_kernel_ready: set = set()


def prepare(strategies: Sequence[Strategy], kernel: bool = True, notice=None,
            seats: int | None = None, series: bool = False) -> float:
    """Compile (or load from numba's cache) the numba strategies among ``strategies`` and,
    with ``kernel``, the game kernel for ``seats`` seats (default: one per strategy) and
    deals or series of deals; return the seconds it took.

    When any of it is not in the cache, one line on stderr (or ``notice(text)``) says first
    what is being compiled and about how long it takes, since a cold compile can take a
    minute or more. Listing strategies never gets here: it compiles nothing."""
    import sys
    import time

    from . import registry
    from .kernel import cache

    # plain-Python strategies (or all of them under NUMBA_DISABLE_JIT) play on the slow path
    kernel = kernel and all(s.compiled for s in strategies)
    shape = (len(strategies) if seats is None else seats, bool(series))
    todo = [s for s in dict.fromkeys(strategies)
            if s.compiled and s.ready_key not in registry._READY]
    if not todo and (shape in _kernel_ready or not kernel):
        return 0.0
    from . import warm

    t = time.perf_counter()
    cold = [s for s in todo if cache.is_cached(s.fn) is False]
    # the searches the cold strategies link (those not in the cache) and a cold kernel: on
    # other cores (durak_sim.warm), beside the strategies' own code
    parts = [p for p in dict.fromkeys(p for s in cold for p in s.parts)
             if warm.part_cached(p) is not True]
    # (a strategy with a faster decide of its own for the two-player default game compiles
    # its general one for every other table: say so, as the first run compiled the other)
    what = [f"strategy {s.name!r}" + (" for the other tables" if s.classic is not None
                                      else "") for s in cold]
    if kernel and shape not in _kernel_ready and kernel_cached(*shape) is False:
        what.insert(0, f"the game kernel for {shape[0]} seats" + (" (series)" if shape[1]
                                                                   else ""))
        parts.append(warm.kernel_part(*shape))
    own = {s.name: (s.compile_seconds or 0) - sum(warm.cost(p) for p in s.parts) for s in cold}
    before = sum(own[s.name] for s in cold if not s.parts)
    theirs, mine = warm.plan(parts, cpu_count(), before)
    estimate = warm.estimate(theirs, mine, before, sum(own[s.name] for s in cold if s.parts),
                             cpu_count()) * warm.load_factor(len(theirs) + 1, cpu_count())
    if what:
        names = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
        about = f" (about {estimate:.0f} s)" if estimate >= 1 else ""
        text = (f"durak-sim: compiling {names} for first use{about}; later runs load "
                f"{'it' if len(what) == 1 else 'them'} from the cache")
        if notice is not None:
            notice(text)
        else:
            print(text, file=sys.stderr, flush=True)
    helpers = warm.start(theirs)
    try:
        for part in mine:
            _interruptible(warm.compile_part, part)
        for s in todo:
            if not s.parts:
                _interruptible(_compile, s)
        warm.finish(helpers)
        for s in todo:
            if s.parts:
                _interruptible(_compile, s)
        if kernel and shape not in _kernel_ready:
            # into this process: from the cache (a helper's), or here if that failed
            _interruptible(warm_kernel, *shape)
            _kernel_ready.add(shape)
    finally:
        warm.finish(helpers, wait=False)
    return time.perf_counter() - t


def _interruptible(compile_step, *args) -> None:
    """``compile_step(*args)`` (a numba compile) in a thread while this one waits for it: a
    compile spends seconds inside LLVM, whose callbacks swallow a KeyboardInterrupt, so in
    this thread Ctrl-C could be lost; waiting, this thread takes it at once (the compile,
    a daemon thread, ends with the process)."""
    import threading

    failed = []
    done = threading.Event()   # (not Thread.join: a join that Ctrl-C interrupts can mark
                               # a running thread as ended, Python 3.11)

    def run():
        try:
            compile_step(*args)
        except BaseException as exc:  # noqa: BLE001 - raised again in the waiting thread
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="durak-sim compile", daemon=True).start()
    while not done.wait(0.05):
        pass
    if failed:
        raise failed[0]


def _random_call(seats: int, series: bool) -> "Call":
    """A kernel call of random play at ``seats`` seats: its argument types are those of
    every line-up of that size (strategies are first-class functions of one signature)."""
    from . import registry

    rnd = get_strategy("random")
    if rnd.ready_key not in registry._READY:
        _compile(rnd)
    return Call(0, (rnd.fn,) * seats, Rules(players=seats), np.int64(rnd.memory),
                np.zeros(seats, np.int64), 1 if series else None)


def _kernel_types(seats: int, series: bool) -> tuple:
    """The game kernel's function for ``seats`` seats and its argument types."""
    fn, args = _random_call(seats, series).target(*_NO_GAMES)
    return fn, tuple(fn.typeof_pyval(a) for a in args)


def kernel_cached(seats: int, series: bool = False) -> bool | None:
    """Whether numba loads the game kernel for ``seats`` seats from its cache (None: cannot
    be told)."""
    from .kernel import cache

    try:
        fn, types = _kernel_types(seats, series)
    except Exception:  # noqa: BLE001 - numba internals, or no such table: unknown
        return None
    return cache.args_cached(fn, types)


def warm_kernel(seats: int, series: bool = False) -> None:
    """Compile (or load) the game kernel for ``seats`` seats in this process (compiled for
    its argument types, not run)."""
    fn, types = _kernel_types(seats, series)
    fn.compile(types)


def _compile(s: Strategy) -> None:
    from . import registry
    from .kernel import cache

    try:
        cache.compile_strategy(s.fn)
    except Exception as exc:  # a plugin that numba cannot compile for the kernel
        raise StrategyFailure(f"strategy {s.name!r} does not compile for the kernel: "
                              f"{describe_compile_failure(exc)}") from None
    registry._READY.add(s.ready_key)


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise UserError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    return int(seed)


@dataclass
class GameBatch:
    """Results of a batch of games; ``results`` holds the kernel's R_* columns per game
    (:mod:`durak_sim.kernel.layout`). In a batch of series (R9), ``deals`` holds each row's
    series index and ``series_deal`` its deal in the series."""

    seed: int
    rules: Rules
    strategies: list[Strategy]
    deals: np.ndarray  # deal index per game (a series batch: the series)
    rots: np.ndarray  # seat s of game g is played by strategies[(s + rots[g]) % players]
    results: np.ndarray
    actions: np.ndarray | None = None  # packed histories per game when recorded
    decks: np.ndarray | None = None
    seconds: float = 0.0
    compile_seconds: float = 0.0
    meta: dict = field(default_factory=dict)
    series_deal: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.deals)

    def head(self, k: int) -> "GameBatch":
        """The batch of its first ``k`` games."""
        cut = (lambda a: None if a is None else a[:k])
        return GameBatch(self.seed, self.rules, self.strategies, self.deals[:k], self.rots[:k],
                         self.results[:k], cut(self.actions), cut(self.decks), self.seconds,
                         self.compile_seconds, self.meta, cut(self.series_deal))

    def seat_names(self, g: int) -> list[str]:
        n = len(self.strategies)
        return [self.strategies[(s + int(self.rots[g])) % n].name for s in range(n)]

    @property
    def decisions(self) -> int:
        return int(self.results[:, _layout().R_DECISIONS].sum())

    def places(self) -> np.ndarray:
        """``(games, players)``: each seat's place (1 first out; the Durak last)."""
        L = _layout()
        return self.results[:, L.R_PLACES:L.R_PLACES + self.rules.players]

    def frame(self):
        """One row per game: at two players the columns ``durak_sim.stats`` expects
        (``seed, deal, swap, seat0, seat1, outcome, durak, first_attacker, bouts,
        cards_left``); at three to six, ``rotation`` (the line-up turned by so many seats)
        for ``swap``, ``seat0`` .. and ``place0`` .. (1 first out) per seat, and
        ``durak_team`` (-1 on a draw or without teams) after ``durak``. A batch of series
        has ``series_deal`` after ``deal`` (which is then the series).

        >>> from durak_sim.rules import Rules
        >>> b = play_games(["random", "easy", "random"], seed=1, deals=[0], rules=Rules(players=3))
        >>> f = b.frame()
        >>> f.columns.tolist()[2:9]
        ['rotation', 'seat0', 'seat1', 'seat2', 'place0', 'place1', 'place2']
        >>> f[["seat0", "seat1", "seat2"]].values.tolist()[1], len(f)
        (['easy', 'random', 'random'], 3)
        """
        import pandas as pd

        E = _layout()
        r = self.results
        names = np.array([s.name for s in self.strategies], dtype=object)
        n = len(names)
        rot = self.rots
        cols = {"seed": np.full(len(self), self.seed, np.int64),
                "deal": self.deals.astype(np.int64)}
        if self.series_deal is not None:   # a batch of series: ``deal`` is the series
            cols["series_deal"] = self.series_deal.astype(np.int64)
        cols["swap" if n == 2 else "rotation"] = rot.astype(np.int64)
        for s in range(n):
            cols[f"seat{s}"] = names[(s + rot) % n]
        if n > 2:
            for s in range(n):
                cols[f"place{s}"] = r[:, E.R_PLACES + s]
        cols["outcome"] = np.where(r[:, E.R_OUTCOME] == 1, "draw", "durak")
        cols["durak"] = r[:, E.R_DURAK]
        if n > 2:
            cols["durak_team"] = r[:, E.R_DURAK_TEAM]
        cols.update(first_attacker=r[:, E.R_FIRST], bouts=r[:, E.R_BOUTS],
                    cards_left=r[:, E.R_CARDS_LEFT])
        return pd.DataFrame(cols)

    def result_of(self, g: int) -> dict:
        """Game ``g``'s result in the record's form (docs/game-record.md)."""
        E = _layout()
        row = self.results[g]
        durak = int(row[E.R_DURAK])
        team = int(row[E.R_DURAK_TEAM])
        res = {"outcome": "draw" if row[E.R_OUTCOME] == 1 else "durak",
               "durak": None if durak < 0 else durak,
               "out_order": [int(x) for x in row[E.R_OUT:E.R_OUT + row[E.R_N_OUT]]],
               "bouts": int(row[E.R_BOUTS])}
        if self.rules.players > 2:
            res["places"] = [int(p) for p in row[E.R_PLACES:E.R_PLACES + self.rules.players]]
        if self.rules.teams:
            res["durak_team"] = None if team < 0 else team
        if row[E.R_CAPPED]:
            res["capped"] = True
        return res

    def records(self) -> Iterator[dict]:
        """Game records (``durak-sim/record/1``) of a recorded batch, in game order."""
        from .actions import unpack_history
        from .records import make_record
        from .seeding import deal_table

        if self.actions is None:
            raise ValueError("this batch was played without records")
        E = _layout()
        players, hs = self.rules.players, self.rules.hand_size
        for g in range(len(self)):
            row = self.results[g]
            dealer = int(row[E.R_DEALER])
            hands, stock, face_up = deal_table([int(c) for c in self.decks[g]], players, hs,
                                               dealer)
            acts = [unpack_history(int(e)) for e in self.actions[g, :row[E.R_N_ACTIONS]]]
            series = None
            if self.series_deal is not None:
                series = {"series": int(self.deals[g]), "deal": int(self.series_deal[g])}
            yield make_record(self.rules, self.seed, int(self.deals[g]), self.seat_names(g),
                              hands, stock, int(row[E.R_FIRST]), acts, self.result_of(g),
                              trump=face_up, dealer=dealer, series=series)


def _is_index(x) -> bool:
    """An integer that is not a bool (numpy's included)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _deal_array(deals, what: str = "deals") -> np.ndarray:
    """``deals`` as int64, whole numbers only (1.5 is refused, not played as deal 1): numpy
    checks an array's type at once, elements one by one only in an array of objects.
    ``what``: the argument's name, for the message when it is no iterable of indices.

    >>> _deal_array(1000)
    Traceback (most recent call last):
    durak_sim.errors.UserError: deals takes indices, an iterable such as range(1000), not 1000
    """
    from collections.abc import Iterable
    from itertools import islice

    from .limits import MAX_BATCH_GAMES

    if not isinstance(deals, Iterable) or isinstance(deals, (str, bytes)) or \
            getattr(deals, "ndim", 1) == 0:
        example = f"range({int(deals)})" if _is_index(deals) and deals > 0 else "range(1000)"
        raise UserError(f"{what} takes indices, an iterable such as {example}, not "
                        f"{reprlib.repr(deals)}")
    noun = {"deals": "deal indices", "series": "series indices"}.get(what, what)
    sized = isinstance(deals, (range, list, tuple)) or hasattr(deals, "__array__")
    seq = deals if sized else list(islice(deals, MAX_BATCH_GAMES + 1))
    if len(seq) > MAX_BATCH_GAMES:   # (before numpy holds them)
        _check_batch_size(len(seq), False, f"{len(seq):,} deals" if sized else
                          f"more than {MAX_BATCH_GAMES:,} deals")
    a = np.asarray(seq)
    mixed = a.dtype.kind in "iu" and isinstance(seq, (list, tuple)) and \
        any(isinstance(x, (bool, np.bool_)) for x in seq)   # numpy reads [1, True] as [1, 1]
    if (a.dtype.kind not in "iu" or mixed) and a.size:
        items = seq if isinstance(seq, (list, tuple)) else a.flat
        bad = [x for x in items if not _is_index(x)][:1]
        if bad:
            x = bad[0].item() if isinstance(bad[0], np.generic) else bad[0]
            raise UserError(f"{noun} must be whole numbers, not {x!r}")
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise UserError(f"{noun} must be at most 2**63 - 1")
    try:
        return a.astype(np.int64) if a.dtype.kind != "O" else np.array(a.tolist(), np.int64)
    except OverflowError:
        raise UserError(f"{noun} must be at most 2**63 - 1") from None


def game_schedule(deals: Iterable[int], players: int, swap: bool,
                  what: str = "deals") -> tuple[np.ndarray, np.ndarray]:
    """(deal per game, rotation per game): with ``swap`` every deal is played once per seat
    rotation, rotations of one deal next to each other."""
    d = _deal_array(deals, what)
    if d.size and d.min() < 0:
        raise UserError("deal indices must be >= 0")
    _check_batch_size(len(d) * (players if swap else 1), False)   # (before the repeat)
    if not swap:
        return d, np.zeros(len(d), np.int64)
    return np.repeat(d, players), np.tile(np.arange(players, dtype=np.int64), len(d))


def _thread_count(threads: int | None) -> int:
    """``threads``, or the default, checked against numba's limit (also on the slow path)."""
    from .kernel.threads import thread_limit

    limit = thread_limit()
    t = default_threads() if threads is None else threads
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= limit:
        raise UserError(f"{option('--threads', 'threads')} must be in 1..{limit}, got "
                        f"{threads!r}")
    return int(t)


def _set_threads(threads: int | None) -> int:
    from .kernel.threads import set_threads

    t = _thread_count(threads)
    set_threads(t)
    return t


def ready_lineup(strategies: Sequence[str | Strategy], rules: Rules,
                 series: bool = False) -> float:
    """Check that the line-up can sit at ``rules``' table, then compile (or load) what its
    games need (:func:`prepare`); the seconds that took. Commands call it before they take
    Ctrl-C as a flag (:class:`durak_sim.stopping.StopFlag`), so that a Ctrl-C during a cold
    compile ends them at once."""
    strats = resolve_strategies(strategies)
    if len(strats) != rules.players:
        hint = (f" (for a table of {len(strats)}: rules=Rules(players={len(strats)}))"
                if 2 <= len(strats) <= 6 else "")
        raise UserError(f"{rules.players} players need {rules.players} strategies, got "
                        f"{len(strats)}{hint}")
    check_supported(strats, rules)
    if not all(s.compiled for s in strats):
        return 0.0   # (the slow path compiles what it uses, Ctrl-C or not)
    return prepare([s.for_rules(rules) for s in strats], seats=rules.players, series=series)


def check_supported(strats: Sequence[Strategy], rules: Rules) -> None:
    """One line (UserError) when a strategy does not play ``rules`` (rulesets.md)."""
    for s in strats:
        if not s.supports(rules):
            what = "every ruleset" if s.plays == "all" else \
                "only the two-player default game (podkidnoy, 2 players; a strategy written " \
                "for every table registers with plays=\"all\")"
            raise UserError(f"strategy {s.name!r} does not play {rules.describe()}; it plays "
                            f"{what}")


def play_schedule(strategies: Sequence[str | Strategy], seed: int, deals: np.ndarray,
                  rots: np.ndarray, *, rules: Rules = Rules(), threads: int | None = None,
                  record: bool = False, stop: np.ndarray | None = None) -> GameBatch:
    """Play the games ``(deals[g], rots[g])`` and return their batch.

    ``stop``: an ``int64`` array of one element that another thread may set (Ctrl-C,
    :class:`durak_sim.stopping.StopFlag`); the kernel then begins no further game, and the
    batch holds the games played before the first one not played (``len(batch)`` may be
    less than ``len(deals)``). ``rots[g]``: the seat rotation of game ``g``, 0 to
    ``players - 1`` (the line-up's position ``p`` sits in seat ``(p + rots[g]) % players``).

    >>> play_schedule(["easy", "random"], 1, [0, 1], [0])
    Traceback (most recent call last):
    durak_sim.errors.UserError: rots must hold one seat rotation a game: 1 for 2 deals
    """
    rules = check_rules(rules)
    deals, _ = game_schedule(deals, rules.players, False)
    rots = _deal_array(rots, "rots")
    if len(rots) != len(deals):
        raise UserError(f"rots must hold one seat rotation a game: {len(rots)} for "
                        f"{len(deals)} deals")
    if rots.size and not 0 <= rots.min() <= rots.max() < rules.players:
        raise UserError(f"rots are seat rotations 0..{rules.players - 1}, got "
                        f"{int(rots.min() if rots.min() < 0 else rots.max())}")
    return _play(strategies, seed, deals, rots, None, rules, threads, record, stop)


def play_series(strategies: Sequence[str | Strategy], *, seed: int, series: Iterable[int],
                deals: int, rules: Rules = Rules(), threads: int | None = None,
                record: bool = False, stop: np.ndarray | None = None) -> GameBatch:
    """Play series ``series`` (indices) of ``deals`` deals each at one table, the line-up in
    seat order (R9, rules E13): row ``j * deals + k`` is deal ``k`` of the ``j``-th series
    listed. A stopped batch keeps whole series only.

    >>> b = play_series(["random", "easy", "random"], seed=1, series=range(2), deals=3,
    ...                 rules=Rules(players=3))
    >>> len(b), b.series_deal.tolist()
    (6, [0, 1, 2, 0, 1, 2])
    """
    from .limits import MAX_SERIES_DEALS

    rules = check_rules(rules)
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or \
            not 1 <= deals <= MAX_SERIES_DEALS:
        raise UserError(f"a series has 1..{MAX_SERIES_DEALS:,} deals, got {deals!r}")
    ids, _ = game_schedule(series, 1, False, "series")
    return _play(strategies, seed, ids, np.zeros(len(ids), np.int64), int(deals), rules,
                 threads, record, stop)


def _check_batch_size(games: int, record: bool, got: str | None = None) -> None:
    """A batch's games fit in memory (:mod:`durak_sim.limits`); ``got`` says what was
    asked (default: the games)."""
    from .limits import MAX_BATCH_GAMES, MAX_RECORD_BATCH_GAMES

    most = MAX_RECORD_BATCH_GAMES if record else MAX_BATCH_GAMES
    if games > most:
        what = " with record=True (each holds its actions)" if record else ""
        raise UserError(f"a batch holds its games in memory: at most {most:,} games a call"
                        f"{what}, got {got or f'{games:,}'}; play them in several calls, "
                        f"or run a tournament, which stores them as it goes")


def _play(strategies, seed, deals, rots, n_series_deals, rules, threads, record, stop):
    import time

    if stop is not None and not (isinstance(stop, np.ndarray) and stop.dtype == np.int64
                                 and stop.shape == (1,)):
        raise UserError("stop must be None or an int64 numpy array of one element (a "
                        "StopFlag's kernel_flag: durak_sim.stopping)")
    _check_batch_size(len(deals) * (1 if n_series_deals is None else n_series_deals), record)
    # (the decide each plays at this table: hard's classic one in the default game)
    strats = [s.for_rules(rules) for s in resolve_strategies(strategies)]
    seed = check_seed(seed)
    prepare_s = ready_lineup(strats, rules, series=n_series_deals is not None)
    if not all(s.compiled for s in strats):
        from .slow_path import play_reference

        _thread_count(threads)
        return play_reference(strats, seed, deals, rots, n_series_deals, rules, record, stop)
    L = _layout()
    n_threads = _set_threads(threads)
    fns = tuple(s.fn for s in strats)
    mem_size = np.int64(max(s.memory for s in strats))
    resets = np.array([s.reset for s in strats], np.int64)
    per = 1 if n_series_deals is None else n_series_deals
    n = len(deals) * per
    results = np.zeros((n, L.R_COLS), np.int64)
    actions = decks = None
    flag = np.zeros(1, np.int64) if stop is None else stop
    call = Call(seed, fns, rules, mem_size, resets, n_series_deals)
    if record:   # (a MemoryError here is the machine's, not a strategy's)
        actions = np.zeros((n, L.MAX_ACTIONS), np.int64)
        decks = np.zeros((n, 36), np.int64)
    t1 = time.perf_counter()
    try:
        if record:
            step = max(1, RECORD_BLOCK // per)
            for lo in range(0, len(deals), step):
                hi = min(len(deals), lo + step)
                call.run(deals[lo:hi], rots[lo:hi], n_threads, results[lo * per:hi * per],
                         actions[lo * per:hi * per], decks[lo * per:hi * per], flag)
        else:
            call.run(deals, rots, n_threads, results, None, None, flag)
    except Exception as exc:   # a strategy raised inside the kernel (numba: SystemError)
        from .slow_path import find_failure

        raise find_failure(call, strats, deals, rots, exc) from None
    seconds = time.perf_counter() - t1
    series_deal = None if n_series_deals is None else \
        np.tile(np.arange(per, dtype=np.int64), len(deals))
    game_deals = deals if n_series_deals is None else np.repeat(deals, per)
    game_rots = rots if n_series_deals is None else np.repeat(rots, per)
    batch = GameBatch(seed, rules, strats, game_deals, game_rots, results, actions, decks,
                      seconds, prepare_s, {"backend": "kernel", "threads": n_threads},
                      series_deal)
    from .slow_path import check_errors

    if flag[0]:   # stopped: keep the games (whole series) before the first one not played
        cut = np.flatnonzero(results[:, L.R_ERROR] == L.ERR_STOPPED)
        k = int(cut[0]) if len(cut) else n
        check_errors(batch.head(k))   # (a failure in the series cut off is still told)
        batch = batch.head(k - k % per)

    check_errors(batch)
    return batch


@dataclass
class Call:
    """One kind of kernel call: the strategies, ruleset and buffers' shape of a batch."""

    seed: int
    fns: tuple
    rules: Rules
    mem_size: np.int64
    resets: np.ndarray
    series_deals: int | None = None

    def target(self, deals, rots, n_threads, results, actions, decks, stop) -> tuple:
        """The kernel's function and its arguments for these games."""
        B = _kernel()
        record = actions is not None
        if not record:
            actions = decks = np.zeros((1, 1), np.int64)
        r = self.rules
        table = (np.int64(r.players), np.int64(r.hand_size), np.int64(r.flags))
        # enough chunks to balance uneven game lengths; results do not depend on the count
        n_chunks = np.int64(max(1, min(len(deals), 16 * n_threads)))
        deals = np.ascontiguousarray(deals, dtype=np.int64)
        rots = np.ascontiguousarray(rots, dtype=np.int64)
        kinds = np.array([B.INLINED.get(getattr(f, "__module__", ""), B.KIND_CALL)
                          for f in self.fns], np.int64)
        if self.series_deals is None:
            return B.play_batch, (np.int64(self.seed), deals, rots, self.fns, kinds, *table,
                                  self.mem_size, self.resets, n_chunks, results, record,
                                  actions, decks, stop)
        return B.play_series_batch, (np.int64(self.seed), deals, rots,
                                     np.int64(self.series_deals), self.fns, kinds, *table,
                                     self.mem_size, self.resets, n_chunks, results, record,
                                     actions, decks, stop)

    def run(self, deals, rots, n_threads, results, actions, decks, stop) -> None:
        if len(deals):
            fn, args = self.target(deals, rots, n_threads, results, actions, decks, stop)
            fn(*args)


#: arguments of a call that plays no game (the stop flag is up): the kernel's types
_NO_GAMES = (np.zeros(1, np.int64), np.zeros(1, np.int64), 1, np.zeros((1, 1), np.int64),
             None, None, np.ones(1, np.int64))


def play_games(strategies: Sequence[str | Strategy], *, seed: int, deals: Iterable[int],
               swap: bool = True, rules: Rules = Rules(), threads: int | None = None,
               record: bool = False, stop: np.ndarray | None = None) -> GameBatch:
    """Play every deal of ``deals`` between ``strategies`` (seat order), each deal once per
    seat rotation when ``swap`` (duplicate play). ``stop`` as for :func:`play_schedule`; a
    stopped batch keeps whole deals only (every rotation of each)."""
    rules = check_rules(rules)
    d, rots = game_schedule(deals, rules.players, swap)
    batch = play_schedule(strategies, seed, d, rots, rules=rules, threads=threads,
                          record=record, stop=stop)
    per = rules.players if swap else 1
    if len(batch) % per:
        batch = batch.head(len(batch) - len(batch) % per)
    return batch

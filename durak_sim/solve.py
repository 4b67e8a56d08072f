"""Solve two-player endgames exactly: the public face of ``durak_sim.kernel.solver`` (and of
``durak_sim.kernel.vsolver`` for the transfer game and multi-card leads).

A ``Position`` (every card known, the stock in a fixed order) is a game of perfect
information. ``solve`` returns its value from seat 0's view (``1`` seat 0 goes out, ``0`` draw,
``-1`` seat 0 is the Durak) and every optimal action for the seat to act, in record notation,
best first: the mover prefers winning in fewer plies and losing in more (a draw has no length;
ties by action code). See the kernel's docstring for the exact definitions.

>>> from durak_sim.position import Position
>>> p = Position.from_dict({"format": "durak-sim/position/1", "trump": "D",
...                         "hands": [["6S"], ["TS", "7D"]], "stock": [], "attacker": 0})
>>> r = solve(p)
>>> r.value, r.best_actions, r.exact
(1, ['attack 6S'], True)

Budgets. ``node_cap`` stops the value search after about that many nodes, ``time_limit`` the
whole solve after that many seconds, and Ctrl-C stops it at once (``SolveInterrupted`` carries
the partial answer). The search runs in a worker thread (the kernel releases the GIL) while
the calling thread watches it: it reads the node count for ``progress`` and stops the search
by lowering the kernel's node cap, so the caller stays free to receive SIGINT. A stopped
search reports the bounds on the value it proved (``bounds``, seat 0's view) and, for each
root action it searched, the bounds proved for it (``action_bounds``): they are sound, the
answer is only not complete. The variant search (transfers, multi-card leads) keeps every
budget the same way: it reads the node cap at every node and has no inner budget of its own.

Positions of a ruleset or a larger table (``Position.rules``; two seats left): the value is
from the view of the first of the two seats left (``Position.seats[0]``), and the variant
search plays the transfer game and multi-card leads.

>>> r = solve(p, node_cap=1)
>>> r.exact, r.stopped_by, r.bounds
(False, 'nodes', (-1, 1))
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from .actions import action_str
from .position import Position
from .rules import Rules

#: log2 of the transposition table's entries (2**16 entries: 2.2 MB)
TABLE_LOG2 = 16

#: what stopped a search (``SolveResult.stopped_by``)
STOP_NODES = "nodes"              # the value search's node cap (--max-nodes)
STOP_TIME = "time"                # the time limit
STOP_INTERRUPT = "interrupt"      # Ctrl-C
STOP_ORDER = "order_nodes"        # the preference order's budget: value and actions exact
STOP_DEPTH = "depth"              # a line deeper than the kernel's ply limit

#: a root move's lower bound before the kernel sets it (values are -1..1)
_UNSET = 2
#: seconds between the watcher's looks at the search; once stopping, between its writes
_POLL = 0.05
_STOP_POLL = 0.005
#: seconds between ``progress`` calls
PROGRESS_EVERY = 1.0


def kernel_position(p) -> tuple:
    """The kernel's position arguments (the first ten of ``solve_root`` and
    ``solve_value``: hands, trump, stock and its length, attacker, bout table and its length,
    taking, bout limit) of a :class:`Position`, or of anything with its attributes (a
    reference game)."""
    stock = np.zeros(max(1, len(p.stock)), np.int64)
    stock[:len(p.stock)] = p.stock
    table = np.full(2 * max(1, len(p.table)), -1, np.int64)
    for i, (a, d) in enumerate(p.table):
        table[2 * i] = a
        table[2 * i + 1] = d
    i64 = np.int64
    return (i64(p.hands[0]), i64(p.hands[1]), i64(p.trump_suit), stock, i64(len(p.stock)),
            i64(p.attacker), table, i64(len(p.table)), i64(int(p.taking)),
            i64((p.bout_limit or 0) if p.table else 0))


@dataclass
class SolveResult:
    """``value``: seat 0's view. ``best_actions``: optimal actions of the seat to act, best
    first (empty when the deal is over). ``nodes``: positions searched. ``exact``: False when
    a budget stopped the search (then ``value`` is only a guess within ``bounds`` and
    ``best_actions`` one legal action, the best the search proved; when ``bounds`` is one
    value, the value is proven and the action optimal, but the set is not complete).
    ``order_exact``: False when a budget cut the preference order short (value and the set of
    actions still exact). ``stopped_by``: what stopped it (``STOP_*``), None when nothing did.
    ``bounds``: the proven ``(lo, hi)`` of the value. ``action_bounds``: when not exact, the
    proven bounds of each root action searched (seat 0's view; the solver skips defences
    equal to a lower one and openings lost at once, module docstring of the kernel)."""

    value: int
    best_actions: list[str]
    nodes: int
    seconds: float
    exact: bool = True
    order_exact: bool = True
    stats: dict = field(default_factory=dict, repr=False)
    stopped_by: str | None = None
    bounds: tuple[int, int] | None = None
    action_bounds: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.bounds is None:
            self.bounds = (self.value, self.value)

    def to_dict(self) -> dict:
        """The ``--json`` form (docs/position.md): value, best_actions, nodes, seconds; and
        when a budget stopped the search ``"exact": false``, ``"stopped_by"``, ``"bounds"``
        and ``"action_bounds"`` (when it cut the order short, ``"order_exact": false`` and
        ``"stopped_by"``): an exact answer has exactly the spec's keys."""
        d = {"value": self.value, "best_actions": list(self.best_actions),
             "nodes": self.nodes, "seconds": round(self.seconds, 6)}
        if not self.exact:
            d["exact"] = False
            d["stopped_by"] = self.stopped_by
            d["bounds"] = list(self.bounds)
            d["action_bounds"] = {a: list(b) for a, b in self.action_bounds.items()}
        elif not self.order_exact:
            d["order_exact"] = False
            d["stopped_by"] = self.stopped_by
        return d


@dataclass(frozen=True)
class SolveProgress:
    """What a running search has done, for ``progress`` callbacks: ``nodes`` so far,
    ``seconds`` since it started, ``phase`` (``"value"``: the value search; ``"set"``: the
    value is proven, the optimal actions are being collected; ``"order"``: their preference
    order), ``bounds`` proven so far (seat 0's view), the budgets."""

    nodes: int
    seconds: float
    phase: str
    bounds: tuple[int, int]
    node_cap: int
    time_limit: float


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a solve; ``result`` is what it had proved (``stopped_by`` interrupt)."""

    def __init__(self, result: SolveResult):
        super().__init__()
        self.result = result


class _Control:
    """Shared by the worker (which searches) and the watcher (which stops it)."""

    def __init__(self, mover: int):
        self.mover = mover
        self.reason: str | None = None
        self.phase = "value"
        self.base_nodes = 0  # nodes of the finished kernel calls
        self.value = 0


def root_bounds(moves, mover: int) -> tuple[int, int]:
    """The value's bounds (seat 0's view) from its root moves' ``(code, lo, hi)``: the
    mover takes the best move, so both ends are the best of the moves' ends.

    >>> root_bounds([(5, 0, 1), (9, -1, -1)], mover=0), root_bounds([(5, 0, 1), (9, -1, 0)], 1)
    ((0, 1), (-1, 0))
    """
    if not moves:
        return -1, 1
    pick = max if mover == 0 else min
    return pick(m[1] for m in moves), pick(m[2] for m in moves)


class _Solver:
    """One transposition table and the kernel's buffers, reused across positions."""

    def __init__(self, log2_entries: int = TABLE_LOG2):
        from .kernel import solver as k
        from .kernel import vsolver

        self.plain = self.k = k
        self.variants = None  # the variant search, loaded with the first position of its own
        self.tt = vsolver.new_table(log2_entries)  # a work area for either search
        self.out = np.zeros(256, np.int64)  # the larger of the two searches' out sizes
        self.stats = np.zeros(k.STATS_SIZE, np.int64)
        self.stamp = 0
        self.solved = -1   # the stamp of the last position solved (not a warm-up's)
        # load (or compile) the kernel now, so that ``seconds`` measures the search alone
        # (in this thread: a Ctrl-C now is no solve's to report)
        self._warm_up(Position(0, (1, 2)))

    def _warm_up(self, position: Position) -> None:
        from . import warm

        notice = warm.search_notice(bool(position.variant))
        if notice is not None:   # a cold compile: say so before it
            print(f"durak-sim: {notice}", file=sys.stderr, flush=True)
        self.stamp += 1
        self._search(position, 0, 0, _Control(position.to_move), time.perf_counter())

    def _kernel(self, position: Position):
        """The search module that plays ``position`` (loaded and warmed up on first use)."""
        if not position.variant:
            return self.plain
        if self.variants is None:
            from .kernel import vsolver

            self.variants = vsolver
            self._warm_up(Position(0, (1, 2), rules=Rules(variant="perevodnoy")))
        return self.variants

    def solve(self, position: Position, node_cap: int = 0, order_nodes: int = 0,
              time_limit: float = 0, progress: Callable[[SolveProgress], None] | None = None,
              same_deal: bool = False) -> SolveResult:
        """``same_deal``: ``position`` is of the same deal as the previous one solved (the
        same stock order, the same search), whose table entries it may then use."""
        position = _checked(position, node_cap, order_nodes, time_limit)
        kernel, stamp = self.k, self.stamp
        self.k = self._kernel(position)
        # (not after a warm-up's search, which takes a stamp, nor on the other search's table)
        same_deal = same_deal and self.k is kernel and self.stamp == stamp == self.solved
        t0 = time.perf_counter()
        if position.is_over():
            return SolveResult(position.result(), [], 0, time.perf_counter() - t0)
        if not same_deal:
            self.stamp += 1  # positions of different deals never share table entries
        self.solved = self.stamp
        ctl = _Control(position.to_move)
        box: dict = {}
        # the worker's end is an Event, not ``Thread.join``: a join that Ctrl-C interrupts
        # can mark a running thread as ended (Python 3.11)
        done = threading.Event()

        def work():
            try:
                box["result"] = self._search(position, node_cap, order_nodes, ctl, t0)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                box["error"] = e
            finally:
                done.set()

        worker = threading.Thread(target=work, name="durak-sim solve", daemon=True)
        try:
            worker.start()
            self._watch(done, ctl, t0, node_cap, time_limit, progress)
        except BaseException as e:
            # Ctrl-C, or an error in ``progress``: the search must not outlive the call
            ctl.reason = STOP_INTERRUPT
            self._stop(done, worker)
            if isinstance(e, KeyboardInterrupt) and "result" in box:
                raise SolveInterrupted(box["result"]) from None
            raise
        if "error" in box:
            raise box["error"]
        return box["result"]

    # ---- the watcher (the caller's thread) ------------------------------------------------
    def _watch(self, done, ctl, t0, node_cap, time_limit, progress) -> None:
        deadline = t0 + time_limit if time_limit > 0 else None
        report_at = t0 + PROGRESS_EVERY
        while True:
            wait = _STOP_POLL if ctl.reason else _POLL
            if deadline is not None and ctl.reason is None:
                wait = max(0.0, min(wait, deadline - time.perf_counter()))
            if done.wait(wait):
                return
            now = time.perf_counter()
            if deadline is not None and now >= deadline and ctl.reason is None:
                ctl.reason = STOP_TIME
            if ctl.reason:
                self._lower_cap()
            if progress is not None and now >= report_at:
                report_at = now + PROGRESS_EVERY
                progress(self._snapshot(ctl, now - t0, node_cap, time_limit))

    def _lower_cap(self) -> None:
        # the kernel saves and restores its cap around its inner budgets (alpha-beta before
        # the proof-number search, and at its new bout starts) and sets it at every call, so
        # one write can be undone: the watcher repeats it until the worker is done
        self.tt[self.k.C_CAP] = 0

    def _stop(self, done, worker) -> None:
        """Stop the search and wait for the worker (about a millisecond); a second Ctrl-C
        must not leave it running against the table. (A worker that Ctrl-C kept from
        starting gets a second to show up.)"""
        give_up = time.perf_counter() + 1.0
        while not done.is_set():
            try:
                if not worker.is_alive() and time.perf_counter() > give_up:
                    return
                self._lower_cap()
                done.wait(_STOP_POLL)
            except KeyboardInterrupt:
                pass

    def _snapshot(self, ctl, seconds, node_cap, time_limit) -> SolveProgress:
        nodes = ctl.base_nodes + int(self.tt[self.k.C_NODES])
        if ctl.phase == "order":
            phase, bounds = "order", (ctl.value, ctl.value)
        else:
            bounds = root_bounds(self._root_moves(), ctl.mover)
            phase = "set" if bounds[0] == bounds[1] else "value"
        return SolveProgress(nodes, seconds, phase, bounds, node_cap, time_limit)

    def _root_moves(self) -> list[tuple[int, int, int]]:
        """``(code, lo, hi)`` of the root moves the value search holds (``tt[C_MV + i]``,
        ``tt[C_LO + i]``, ``tt[C_HI + i]``, search order), as far as it set them up. While
        it runs each move's bounds only tighten, so any reading is sound."""
        k = self.k
        width = k.C_HI - k.C_LO
        lo = self.tt[k.C_LO:k.C_LO + width].copy()
        hi = self.tt[k.C_HI:k.C_HI + width].copy()
        codes = self.tt[k.C_MV:k.C_MV + width].copy()
        n = int(np.argmax(lo == _UNSET)) if (lo == _UNSET).any() else width
        return [(int(codes[i]), int(lo[i]), int(hi[i])) for i in range(n)]

    # ---- the search (the worker's thread) -------------------------------------------------
    def _search(self, position, node_cap, order_nodes, ctl, t0) -> SolveResult:
        k = self.k = self.variants if position.variant else self.plain
        tt = self.tt
        args = kernel_position(position)
        i64 = np.int64
        if position.variant:
            args += (i64(position.rules.flags), i64(int(position.lead)))
            entry = k.solve_variant
        else:
            entry = k.solve_root

        def call(mode, cap):
            v = entry(*args, tt, i64(self.stamp), i64(max(0, cap)), i64(mode), self.out,
                      self.stats)
            return int(v), [int(c) for c in self.out[1:self.out[0] + 1]], self.stats.copy()

        # the kernel sets the bounds of the moves it searches: the rest stay unset (the
        # upper bounds at their trivial 1, so that a reading during its set-up is sound)
        tt[k.C_LO:k.C_HI] = _UNSET
        tt[k.C_HI:k.C_HI + (k.C_HI - k.C_LO)] = 1
        # the value and the optimal set, then (same stamp: the table still holds the first
        # search) their order, with a budget of its own
        value, codes, s = call(k.MODE_SET, node_cap)
        moves = self._root_moves()
        nodes = int(s[0])
        exact = not s[1]
        order_exact = exact
        order_nodes_used = 0
        stopped_by = None
        if not exact:
            stopped_by = ctl.reason or (STOP_NODES if 0 < node_cap < nodes else STOP_DEPTH)
        elif len(codes) > 1 and value != 0:
            if ctl.reason:
                order_exact = False
            else:
                ctl.value, ctl.phase = value, "order"
                tt[k.C_NODES] = 0
                ctl.base_nodes = nodes
                v2, ordered, s2 = call(k.MODE_ORDERED, order_nodes)
                nodes += int(s2[0])
                order_nodes_used = int(s2[5])
                if not s2[1] and v2 == value and sorted(ordered) == codes:
                    codes = ordered
                    order_exact = not s2[2]
                else:
                    order_exact = False
            if not order_exact:
                stopped_by = ctl.reason or (STOP_ORDER if order_nodes > 0 else STOP_DEPTH)
        seconds = time.perf_counter() - t0
        target = position.unbeaten
        stats = {"value_nodes": int(s[3]), "set_nodes": int(s[4]),
                 "order_nodes": order_nodes_used, "table_cuts": int(s[6]),
                 "rule_cuts": int(s[7])}
        bounds = (value, value)
        action_bounds = {}
        if not exact:
            bounds = root_bounds(moves, ctl.mover)
            value = min(max(value, bounds[0]), bounds[1])
            action_bounds = {action_str(c, target): (lo, hi) for c, lo, hi in sorted(moves)}
        return SolveResult(value, [action_str(c, target) for c in codes], nodes, seconds,
                           exact=exact, order_exact=order_exact, stats=stats,
                           stopped_by=stopped_by, bounds=bounds, action_bounds=action_bounds)


def _checked(position, node_cap, order_nodes, time_limit) -> Position:
    """The position (a dict in the position format is read as ``durak-sim solve`` reads
    it) once the budgets are checked; UserError in one line otherwise.

    >>> _checked(Position(0, (1, 2)), -5, 0, 0)
    Traceback (most recent call last):
    durak_sim.errors.UserError: node_cap must be a whole number in 0..4611686018427387904, not -5
    """
    import math

    from .errors import UserError
    from .limits import MAX_NODES

    for name, v in (("node_cap", node_cap), ("order_nodes", order_nodes)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or \
                not 0 <= v <= MAX_NODES:
            raise UserError(f"{name} must be a whole number in 0..{MAX_NODES}, not {v!r}")
    if isinstance(time_limit, bool) or \
            not isinstance(time_limit, (int, float, np.integer, np.floating)) or \
            not math.isfinite(time_limit) or time_limit < 0:
        raise UserError(f"time_limit must be a number of seconds >= 0, not {time_limit!r}")
    if isinstance(position, dict):
        return Position.from_dict(position)
    if not isinstance(position, Position):
        raise UserError(f"solve takes a Position (or its dict), not {type(position).__name__}")
    return position


def solve(position: Position, node_cap: int = 0, order_nodes: int = 0, time_limit: float = 0,
          progress: Callable[[SolveProgress], None] | None = None) -> SolveResult:
    """Value and optimal actions of ``position`` (module docstring). ``node_cap``: stop the
    value search after about that many nodes (0: no limit; the answer is then not exact).
    ``position``: a :class:`Position`, or its dict (docs/position.md).
    ``order_nodes``: the same for ordering the optimal actions, which can cost far more than
    the value (the actions then keep code order past the cut; ``order_exact`` says so).
    ``time_limit``: stop the whole solve after that many seconds (0: none). ``progress``: called
    about once a second with a :class:`SolveProgress`. Ctrl-C raises :class:`SolveInterrupted`
    with what the search had proved."""
    return _Solver().solve(position, node_cap, order_nodes, time_limit, progress)


def solve_many(positions: Iterable[Position], node_cap: int = 0, order_nodes: int = 0,
               time_limit: float = 0,
               progress: Callable[[int, SolveProgress], None] | None = None,
               table_log2: int = TABLE_LOG2) -> Iterator[SolveResult]:
    """``solve`` of each position in turn, sharing one table of ``2**table_log2`` entries
    (allocated once per call; 32 bytes an entry, bigger tables help huge searches); the
    budgets apply to each position, ``progress`` gets the position's index too."""
    from .errors import UserError

    if isinstance(table_log2, bool) or not isinstance(table_log2, int) or \
            not 10 <= table_log2 <= 27:   # (checked at the call, not at the first position)
        raise UserError(f"table_log2 must be a whole number in 10..27 (2**27 entries: 4 GB), "
                        f"got {table_log2!r}")
    return _solve_each(positions, node_cap, order_nodes, time_limit, progress, table_log2)


def _solve_each(positions, node_cap, order_nodes, time_limit, progress, table_log2):
    solver = None
    for i, p in enumerate(positions):
        if solver is None:
            solver = _Solver(table_log2)
        report = None if progress is None else (lambda snap, i=i: progress(i, snap))
        yield solver.solve(p, node_cap, order_nodes, time_limit, report)

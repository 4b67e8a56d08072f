"""Solve two-player endgames exactly: the public face of ``durak_sim.kernel.solver``.

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
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

from .actions import action_str
from .position import Position

#: log2 of the transposition table's entries (2**16 entries: 2.2 MB)
TABLE_LOG2 = 16


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
    ``node_cap`` stopped the search (then ``value`` and ``best_actions`` are only a guess: one
    legal action). ``order_exact``: False when the cap cut the preference order short (value
    and the set of actions still exact)."""

    value: int
    best_actions: list[str]
    nodes: int
    seconds: float
    exact: bool = True
    order_exact: bool = True
    stats: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        """The ``--json`` form (spec/position.md): value, best_actions, nodes, seconds; and
        ``"exact": false`` (``"order_exact": false``) when a cap stopped the search (cut the
        order short): an exact answer has exactly the spec's keys."""
        d = {"value": self.value, "best_actions": list(self.best_actions),
             "nodes": self.nodes, "seconds": round(self.seconds, 6)}
        if not self.exact:
            d["exact"] = False
        elif not self.order_exact:
            d["order_exact"] = False
        return d


class _Solver:
    """One transposition table and the kernel's buffers, reused across positions."""

    def __init__(self, log2_entries: int = TABLE_LOG2):
        from .kernel import solver as k

        self.k = k
        self.tt = k.new_table(log2_entries)
        self.out = np.zeros(k.OUT_SIZE, np.int64)
        self.stats = np.zeros(k.STATS_SIZE, np.int64)
        self.stamp = 0
        # load (or compile) the kernel now, so that ``seconds`` measures the search alone
        self.solve(Position(0, (1, 2)))

    def solve(self, position: Position, node_cap: int = 0, order_nodes: int = 0) -> SolveResult:
        k = self.k
        t0 = time.perf_counter()
        if position.is_over():
            return SolveResult(position.result(), [], 0, time.perf_counter() - t0)
        self.stamp += 1  # positions of different deals never share table entries
        args = kernel_position(position)
        i64 = np.int64

        def call(mode, cap):
            v = k.solve_root(*args, self.tt, i64(self.stamp), i64(max(0, cap)), i64(mode),
                             self.out, self.stats)
            return int(v), [int(c) for c in self.out[1:self.out[0] + 1]], self.stats.copy()

        # the value and the optimal set, then (same stamp: the table still holds the first
        # search) their order, with a budget of its own
        value, codes, s = call(k.MODE_SET, node_cap)
        nodes = int(s[0])
        exact = not s[1]
        order_exact = exact
        order_nodes_used = 0
        if exact and len(codes) > 1 and value != 0:
            v2, ordered, s2 = call(k.MODE_ORDERED, order_nodes)
            nodes += int(s2[0])
            order_nodes_used = int(s2[5])
            if not s2[1] and v2 == value and sorted(ordered) == codes:
                codes = ordered
                order_exact = not s2[2]
            else:
                order_exact = False
        seconds = time.perf_counter() - t0
        target = position.unbeaten
        stats = {"value_nodes": int(s[3]), "set_nodes": int(s[4]),
                 "order_nodes": order_nodes_used, "table_cuts": int(s[6]),
                 "rule_cuts": int(s[7])}
        return SolveResult(value, [action_str(c, target) for c in codes], nodes, seconds,
                           exact=exact, order_exact=order_exact, stats=stats)


def solve(position: Position, node_cap: int = 0, order_nodes: int = 0) -> SolveResult:
    """Value and optimal actions of ``position`` (module docstring). ``node_cap``: stop the
    value search after about that many nodes (0: no limit; the answer is then not exact).
    ``order_nodes``: the same for ordering the optimal actions, which can cost far more than
    the value (the actions then keep code order past the cut; ``order_exact`` says so)."""
    return _Solver().solve(position, node_cap, order_nodes)


def solve_many(positions: Iterable[Position], node_cap: int = 0,
               order_nodes: int = 0) -> Iterator[SolveResult]:
    """``solve`` of each position in turn, sharing one table (allocated once per call)."""
    solver = None
    for p in positions:
        if solver is None:
            solver = _Solver()
        yield solver.solve(p, node_cap, order_nodes)

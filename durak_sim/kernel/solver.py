"""Exact endgame solver: two-player Podkidnoy with every card known (docs/rules.md R1-R6).

All cards are known and the stock's order is fixed, so the deal is a finite two-player game
of perfect information. Its value from seat 0's view is ``1`` (seat 0 goes out, seat 1 is the
Durak), ``0`` (draw) or ``-1``. The search is a null-window alpha-beta (value tests "seat 0
wins?" and "seat 0 does not lose?", the likelier first) over a transposition table, written as
module-level njit functions (``cache=True``, type-stable recursion).

Entry point (njit, callable from other njit code; every scalar int64, every array int64)
------------------------------------------------------------------------------------------
``solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
bout_limit, tt, stamp, node_cap, mode, out, stats) -> value`` (seat 0's view)

* ``hand0``, ``hand1``: card masks of seat 0 and seat 1 (``durak_sim.cards``).
* ``trump``: the trump suit 0..3.
* ``stock[0:stock_n]``: the cards still in the stock, in draw order (the face-up trump last).
* ``attacker``: the seat attacking in the current bout.
* ``table[0:2*n_table]``: the bout's pairs in play order, ``table[2i]`` the i-th attack card,
  ``table[2i+1]`` the card that beat it or -1 (the layout of ``observation.O_TABLE``).
  ``n_table == 0``: the bout has not started, the attacker must open.
* ``taking``: 1 once the defender has said take (R3.5).
* ``bout_limit``: the bout's attack limit (R3.4); ignored when ``n_table == 0`` (it is fixed
  when the attacker opens: ``min(6, defender's hand)``).
* ``tt``: the caller's work array, one per thread: ``new_table(log2)`` or any zeroed int64
  array of ``table_words(log2)`` words (a ``WORK``-word scratch area, then ``2**log2`` entries
  of 4 words in buckets of two). ``log2 = 16`` (2.4 MB) suits the hard AI; 17-18 halve the
  nodes of the rare huge searches.
* ``stamp``: int64 > 0, different for every deal. Entries written under another stamp are
  ignored, so a new stamp is an O(1) clear and answers never depend on other deals. Within one
  stamp every call must describe the same deal (same stock order): entries then carry over
  from decision to decision, which makes later calls cheap. Values, optimal sets and the
  ``MODE_ORDERED`` order never depend on what the table holds; ``MODE_ONE``'s pick among
  optimal actions may (it follows the search order, which puts the table's remembered move
  first), so it is a function of the deal's earlier calls: deterministic.
* ``node_cap``: stop after about this many nodes (0: no cap); ``stats[1]`` then says so, and
  the action is the best one the finished tests proved (``_best_known``).
* ``mode``: ``MODE_VALUE`` (0) the value only; ``MODE_ONE`` (1) the value and one action in
  ``out[1]``; ``MODE_SET`` (2) every optimal action, codes ascending; ``MODE_ORDERED`` (3)
  every optimal action, best first (below).
* ``out``: int64[``OUT_SIZE``]: ``out[0] = n``, ``out[1..n]`` action codes
  (``durak_sim.actions``: attack c = c, defend c = 36 + c, take 72, stop 73).
* ``stats``: int64[``STATS_SIZE``]: ``[0]`` nodes, ``[1]`` 1 when the answer is not exact (the
  node cap, or a line deeper than ``MAX_PLY`` plies): the value is then a guess and ``out``
  holds one legal action (the best one proved before the stop; the proof-number search stops
  the same way deeper than ``PN_PLIES``), ``[2]`` 1 when the cap cut
  the ``MODE_ORDERED`` order short (value
  and set still exact; the preference phase has a budget of another ``node_cap`` nodes),
  ``[3]`` value-search nodes, ``[4]`` optimal-set nodes, ``[5]`` preference nodes, ``[6]``
  table cut-offs, ``[7]`` rule cut-offs.

``solve_value(...)`` is ``solve_root`` in ``MODE_VALUE`` without ``mode`` and ``out``.

Which action
------------
``MODE_ORDERED``: every position has a score ``s`` from seat 0's view: ``BIG - p`` when seat 0
wins in ``p`` plies, ``-(BIG - p)`` when it loses in ``p`` plies, ``0`` for a draw, under play
where seat 0 maximises ``s`` and seat 1 minimises it: both sides win as quickly and lose as
slowly as they can, and a draw has no length. Every decision is a ply, forced ones included.
The optimal actions are ordered by the score of the position each leads to, best for the mover
first, ties by action code. This is exact and can cost 10-100 times the value search.

``MODE_ONE`` (the hard AI's call, no search beyond the value's): when the mover can win (or at
best draw), the first action that the value search proved winning (drawing), in search order;
when every action loses, the one whose refutation took the most nodes in this call ("the most
resistant", a cheap stand-in for losing slowly), the first such in search order. Search order:
the table's remembered move, then (open) non-trumps before trumps, a rank single in the hand
first, low first; (defend) non-trumps before trumps, each: beaters of a rank the attacker
lacks, then of a rank he holds once, then the rest, low first; take last; (throw in)
non-trumps first, low first, stop last.

Scores and values share the table: entries hold bounds on ``s``; the value tests are ``s >= 1``
and ``s >= 0``, and since no deal lasts ``BIG`` plies they need no depth.


Modules
-------
This module is the entry point and the root of the search (the value tests, the optimal set,
the preference order). The search itself: ``solver_base`` (constants, the work area, mask
helpers, the canonical key), ``solver_rules`` (the state after an action, the shortcuts
S1-S11, the move lists), ``solver_ab`` (alpha-beta ``_vs`` and the table), ``solver_pn`` (the
proof-number fallback). Every name the callers use is importable from here. How each
version's search compares with the one before: benchmarks/RESULTS.md.
"""
import numba
import numpy as np

from .bits import lowest, popcount
from .config import JIT
from .solver_ab import _vs
from .solver_base import *  # noqa: F401,F403 - the constants callers import from here
from .solver_base import (AB_BUDGET, BIG, C_CAP, C_CAPPED, C_EFFORT, C_HI, C_LEGAL, C_LO,
                          C_MV, C_NODES, C_PN_LEAF, C_STATIC, C_TT_CUTS, MODE_ONE,
                          MODE_ORDERED, MODE_SET, MODE_VALUE, PH_DEFEND, PN_LEAF_AB,
                          STATS_SIZE, _phase, _setup, _sort_by_score)
from .solver_pn import _pn_test
from .solver_rules import _child, _legal, _moves, _static  # noqa: F401 - tests

#: bump with every change of the search (its answers or its speed) and set SOLVER_LINKED in
#: strategies/hard.py to match: numba's cache keys hard's compiled ``decide``, which links
#: this module's code, on hard.py's text alone
SOLVER_VERSION = 9
# (the proof-number search's leaf and store, and the bound it records for alpha-beta, are
# compiled apart rather than inlined: they run rarely, and inlining them cost a cold compile
# of this search about 12 s of its 43 s, benchmarks/RESULTS.md)


@numba.njit(**JIT)
def _strength(h, trump):
    s = 0
    m = h
    while m:
        c = lowest(m)
        m &= m - 1
        s += (c >> 2) + (9 if (c & 3) == trump else 0)
    return s


@numba.njit(**JIT)
def _guess_seat0_wins(h0, h1, trump):
    """Which value test runs first: seat 0 is guessed to win when its cards are stronger on
    average (rank, +9 for a trump): right in about 85% of benchmark endgames."""
    return _strength(h0, trump) * popcount(h1) >= _strength(h1, trump) * popcount(h0)


@numba.njit(**JIT)
def _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, t, tt):
    """Score test of a state at the root's children (ply 1, fresh throw-in order)."""
    return _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, sp - sp, t, sp - sp + 1, tt)


@numba.njit(**JIT)
def _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
    """Whether the seat that wins (``v``: 1 seat 0, -1 seat 1) wins within ``p`` plies."""
    if v > 0:
        return _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, BIG - p, tt) != 0
    return _score_ge(h0, h1, tab, unb, natt, lim, tk, att, sp, p - BIG + 1, tt) == 0


@numba.njit(**JIT)
def _exact_score(h0, h1, tab, unb, natt, lim, tk, att, sp, v, horizon, tt):
    """Score of a child state of known value ``v`` (seat 0's view) with its length capped:
    ``v * (BIG - min(p, horizon + 1))`` for a deal that ends in ``p`` plies."""
    if v == 0:
        return v - v
    # smallest p <= horizon with a win within p plies: doubling steps, then bisection
    lo = 1
    hi = horizon + 1
    p = 1
    while p <= horizon:
        if _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
            hi = p
            break
        if tt[C_CAPPED] != 0:
            return v * (BIG - lo)
        lo = p + 1
        p = min(2 * p, horizon) if p < horizon else horizon + 1
    while lo < hi:
        p = (lo + hi) // 2
        if _win_within(h0, h1, tab, unb, natt, lim, tk, att, sp, v, p, tt):
            hi = p
        else:
            lo = p + 1
        if tt[C_CAPPED] != 0:
            break
    return v * (BIG - lo)


@numba.njit(**JIT)
def _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, use_pn, tt):
    """``_vs`` at the root (value tests only), with the nodes spent under each move added up
    in tt[C_EFFORT + i] and what each test proved kept as bounds on the move's value
    (tt[C_LO + i], tt[C_HI + i]): a move whose bounds already answer the test is not searched
    again. Returns (result, the move that decided it or -1); when the node cap stops it
    (tt[C_CAPPED]) the result means nothing."""
    z = h0 - h0
    maxnode = mover == 0
    for i in range(cnt):
        a = tt[C_MV + i]
        if tt[C_LO + i] >= t:
            r = 1
        elif tt[C_HI + i] < t:
            r = 0
        else:
            c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
                h0, h1, tab, unb, natt, lim, tk, att, z, z, a, tt)
            if term != 2:
                r = 1 if term * BIG >= t else 0
            else:
                before = tt[C_NODES]
                if use_pn:
                    r = _pn_test(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, z, t, z + 1,
                                 tt)
                else:
                    r = _vs(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, z, t, z + 1, tt)
                tt[C_EFFORT + i] += tt[C_NODES] - before
                if tt[C_CAPPED] != 0:
                    return 0, -1
            if r != 0:
                tt[C_LO + i] = max(tt[C_LO + i], t)
            else:
                tt[C_HI + i] = min(tt[C_HI + i], t - 1)
        if maxnode and r != 0:
            return 1, a
        if not maxnode and r == 0:
            return 0, a
    return (0 if maxnode else 1), -1


@numba.njit(**JIT)
def _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, ab_budget, tt):
    """``_root_test`` by alpha-beta for ``ab_budget`` nodes, then (when that did not finish
    and the node cap is not reached) by the proof-number search (module docstring)."""
    cap = tt[C_CAP]
    if ab_budget > 0:
        tt[C_CAP] = min(cap, tt[C_NODES] + ab_budget)
        r, cut = _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, False, tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0 or tt[C_NODES] > cap:
            return r, cut
        tt[C_CAPPED] = 0
    return _root_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, t, True, tt)


@numba.njit(**JIT)
def _best_known(mover, cnt, tt):
    """The node cap stopped the value search: the root move with the best value the
    finished tests proved for the mover (its lower bound), then the best it may still have
    (upper bound), the first such in search order. A move proven to lose is never preferred
    to one that may not, nor a possible win thrown for a proven draw."""
    bi = 0
    blo = -2
    bhi = -2
    for i in range(cnt):
        lo = tt[C_LO + i] if mover == 0 else -tt[C_HI + i]
        hi = tt[C_HI + i] if mover == 0 else -tt[C_LO + i]
        if lo > blo or (lo == blo and hi > bhi):
            bi = i
            blo = lo
            bhi = hi
    return tt[C_MV + bi]


@numba.njit(**JIT)
def _root_value(h0, h1, tab, unb, natt, lim, tk, att, mover, trump, ab_budget, tt):
    """The value (seat 0's view) by at most two null-window tests, the likelier outcome
    first; and a move for the mover: an optimal one when the mover does not lose, else the
    one whose refutation took the most nodes (the first such in search order). When the node
    cap stops the search, the value is a guess and the move ``_best_known``."""
    z = h0 - h0
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, z, z, _phase(tab, unb, tk), z - 1,
                 z + C_MV, tt)
    for i in range(cnt):
        tt[C_EFFORT + i] = 0
        tt[C_LO + i] = -1
        tt[C_HI + i] = 1
    first = 1 if _guess_seat0_wins(h0, h1, trump) else 0
    r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z + first,
                          ab_budget, tt)
    if tt[C_CAPPED] != 0:
        return z + first * 2 - 1, _best_known(mover, cnt, tt)
    good = -1
    if first == 1:
        if r != 0:
            v = 1
            if mover == 0:
                good = cut
        else:
            if mover == 1:
                good = cut
            r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z, ab_budget,
                                  tt)
            if tt[C_CAPPED] != 0:
                return z, _best_known(mover, cnt, tt)
            if r != 0:
                v = 0
                if mover == 0:
                    good = cut
            else:
                v = -1
                if mover == 1:
                    good = cut
    else:
        if r == 0:
            v = -1
            if mover == 1:
                good = cut
        else:
            if mover == 0:
                good = cut
            r, cut = _value_test(h0, h1, tab, unb, natt, lim, tk, att, mover, cnt, z + 1,
                                  ab_budget, tt)
            if tt[C_CAPPED] != 0:
                return z, _best_known(mover, cnt, tt)
            if r != 0:
                v = 1
                if mover == 0:
                    good = cut
            else:
                v = 0
                if mover == 1:
                    good = cut
    if good < 0 and cnt > 0:
        # the mover loses whatever he does: the most resistant move
        bi = 0
        for i in range(1, cnt):
            if tt[C_EFFORT + i] > tt[C_EFFORT + bi]:
                bi = i
        good = tt[C_MV + bi]
    return v, good


@numba.njit(**JIT)
def _optimal_set(h0, h1, tab, unb, natt, lim, tk, att, mover, v, out, tt):
    """Every optimal action (value ``v``), codes ascending, into out[1..]; returns the count."""
    z = h0 - h0
    nl = _legal(h0, h1, tab, unb, natt, lim, tk, att, tt, tt, z + C_LEGAL)
    k = 0
    for i in range(1, nl + 1):
        a = tt[C_LEGAL + i]
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, z, z, a, tt)
        if term != 2:
            opt = term == v
        elif mover == 0:
            # seat 0 moves: a child is optimal when it reaches v (none exceeds it)
            opt = v == -1 or _score_ge(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v,
                                       tt) != 0
        else:
            opt = v == 1 or _score_ge(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v + 1,
                                      tt) == 0
        if tt[C_CAPPED] != 0:
            return k
        if opt:
            k += 1
            out[k] = a
    return k


@numba.njit(**JIT)
def _order(h0, h1, tab, unb, natt, lim, tk, att, mover, v, k, out, tt):
    """Sort out[1..k] (optimal actions of a won or lost position) by preference: the exact
    score of the position each leads to, best for the mover first, ties by action code.
    Returns 0 when the node cap cut it short (the rest keep code order), else 1."""
    z = h0 - h0
    scores = np.empty(k, np.int64)
    done = 1
    for j in range(k):
        if done == 0:
            scores[j] = -BIG if mover == 0 else BIG
            continue
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, z, z, out[j + 1], tt)
        if term != 2:
            scores[j] = term * BIG
        else:
            scores[j] = _exact_score(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, v,
                                     z + BIG - 2, tt)
        if tt[C_CAPPED] != 0:
            done = 0
            scores[j] = -BIG if mover == 0 else BIG
    _sort_by_score(out, scores, k, mover)
    return done


@numba.njit(**JIT)
def solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
               bout_limit, tt, stamp, node_cap, mode, out, stats):
    """Value (seat 0's view) of the position; actions into ``out`` (module docstring)."""
    return solve_budgets(hand0, hand1, trump, stock, stock_n, attacker, table, n_table,
                         taking, bout_limit, tt, stamp, node_cap, mode, out, stats,
                         stamp - stamp + AB_BUDGET, stamp - stamp + PN_LEAF_AB)


@numba.njit(**JIT)
def solve_budgets(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                  bout_limit, tt, stamp, node_cap, mode, out, stats, ab_budget, leaf_budget):
    """``solve_root`` with the proof-number search's budgets (``AB_BUDGET``, ``PN_LEAF_AB``;
    0 and 0: the proof-number search alone, which the tests check on small deals; an
    ``ab_budget`` of at least ``node_cap`` (> 0): alpha-beta alone, the search before
    solver version 5, which the hard AI used up to its version 3)."""
    _setup(trump, stock, stock_n, tt, stamp, node_cap)
    tt[C_PN_LEAF] = leaf_budget
    for i in range(STATS_SIZE):
        stats[i] = 0
    out[0] = 0
    h0 = hand0
    h1 = hand1
    tab = h0 - h0
    unb = tab - 1
    for i in range(n_table):
        tab |= 1 << table[2 * i]
        if table[2 * i + 1] >= 0:
            tab |= 1 << table[2 * i + 1]
        elif taking == 0:
            unb = table[2 * i]
    natt = n_table
    lim = bout_limit if n_table > 0 else tab
    tk = tab - tab + (1 if taking != 0 else 0)
    att = attacker
    if tab == 0 and stock_n == 0 and (h0 == 0 or h1 == 0):
        # the deal is over (R5.2)
        return 0 if h0 == 0 and h1 == 0 else (1 if h0 == 0 else -1)
    mover = 1 - att if _phase(tab, unb, tk) == PH_DEFEND else att

    v, good = _root_value(h0, h1, tab, unb, natt, lim, tk, att, mover, trump, ab_budget,
                          tt)
    stats[3] = tt[C_NODES]
    if tt[C_CAPPED] == 0 and mode >= MODE_SET:
        k = _optimal_set(h0, h1, tab, unb, natt, lim, tk, att, mover, v, out, tt)
        out[0] = k
        stats[4] = tt[C_NODES] - stats[3]
        if tt[C_CAPPED] == 0 and mode == MODE_ORDERED and k > 1 and v != 0:
            # the preference phase gets a node budget of its own
            if node_cap > 0:
                tt[C_CAP] = tt[C_NODES] + node_cap
            if _order(h0, h1, tab, unb, natt, lim, tk, att, mover, v, k, out, tt) == 0:
                stats[2] = 1
                tt[C_CAPPED] = 0
            stats[5] = tt[C_NODES] - stats[3] - stats[4]
    if tt[C_CAPPED] != 0:
        # not exact: a legal action, the best guess there is
        stats[1] = 1
        if mode != MODE_VALUE:
            out[0] = 1
            out[1] = good if good >= 0 else tt[C_MV]
    elif mode == MODE_ONE:
        out[0] = 1
        out[1] = good
    stats[0] = tt[C_NODES]
    stats[6] = tt[C_TT_CUTS]
    stats[7] = tt[C_STATIC]
    return v


@numba.njit(**JIT)
def solve_value(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                bout_limit, tt, stamp, node_cap, stats):
    """``solve_root`` in ``MODE_VALUE``: the value only (seat 0's view)."""
    out = np.empty(1, np.int64)
    return solve_root(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                      bout_limit, tt, stamp, node_cap, stamp - stamp, out, stats)

"""Exact endgame search of the variants: two players (or two seats left at a larger table),
every card known, with transfers (perevodnoy, R8.2), multi-card leads (R8.1) or both.

The plain solver (``durak_sim.kernel.solver``) is tuned for one-card leads without
transfers (its shortcuts S1-S11 assume them) and stays the search of plain podkidnoy. This
search plays the variants move for move as the engines do (rules E4-E6): a lead is laid one
card at a time and ended with ``done``, several unbeaten cards are beaten one at a time, each
defence naming its target (``DEFEND_AT + 36 t + c``; ``DEFEND + c`` while one card is
unbeaten), a transfer (``TRANSFER + c``) passes the attack back to the previous attacker with
the bout limit ``min(6, his hand)``. Its legal actions are the engines' legal action codes
(``vsolver_rules._vlegal``, tested against the reference engine). Values, scores and modes
are the plain solver's (its module docstring): value from seat 0's view, ``MODE_VALUE``,
``MODE_ONE`` (the same choice rule: the first proven winning or drawing move in search
order, else the most resistant), ``MODE_SET`` (every optimal legal code, ascending),
``MODE_ORDERED`` (by the score of the position each leads to).

Entry point (njit; every scalar int64, every array int64)
---------------------------------------------------------
``solve_variant(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
bout_limit, flags, lead, tt, stamp, node_cap, mode, out, stats) -> value``

The plain solver's arguments (``solve_root``), with ``flags`` the ruleset's
``durak_sim.rules.FLAG_*`` bits (``FLAG_LEAD_MULTIPLE``, ``FLAG_TRANSFER``; others are
ignored: with two seats left nobody else throws in, teams and the swap change nothing) and
``lead`` 1 while the main attacker is laying his lead (E4). ``table`` holds every attack card
with its defence or -1 (several may be unbeaten). ``tt``: this module's ``new_table`` (a
larger work area than the plain solver's: lines of the transfer game run up to
``V_MAX_PLY`` plies); ``out`` needs ``OUT_SIZE`` (256) words. ``stats`` as the plain
solver's (``[4]``, ``[5]``: the set's and the order's nodes; no proof-number search).

The search is the plain solver's null-window alpha-beta (``vsolver_ab._vvs``) over the
variants' state and moves (``vsolver_rules``: the reductions that keep the value, and the
shortcuts that hold under each ruleset). The root searches the reduced moves for the value
and ``MODE_ONE``'s action, and every legal code for the optimal set.
"""
import numba
import numpy as np

from .config import JIT
from .solver import _guess_seat0_wins
from .solver_base import (BIG, C_CAP, C_CAPPED, C_NODES, C_PN_LEAF, C_STATIC, C_TT_CUTS,
                          C_TT_MASK, MODE_ONE, MODE_ORDERED, MODE_SET, MODE_VALUE, PH_DEFEND,
                          STATS_SIZE, TT_WORDS, WORK, _setup, _sort_by_score)
from .vsolver_ab import _vvs
from .vsolver_pn import _vpn_test
from .vsolver_rules import (C_FLAGS, C_NSTART, C_REP, F_LEAD, F_TRANSFER, V_MAX_PLY, V_PATH,
                            V_WORK, X_LEAD, _vchild, _vlegal, _vmoves, _vphase)

#: bump with every change of the search (its answers or its speed) and set VARIANT_LINKED in
#: strategies/hard.py to match (numba's cache keys hard's ``decide`` on hard.py's text)
VSOLVER_VERSION = 3
# (its helpers are left to LLVM to inline: numba's own inlining, ``inline="always"``, of
# this search's helpers cost hard's cold compile about 160 s of CPU, benchmarks/RESULTS.md)

OUT_SIZE = 256
#: the value tests run alpha-beta for this many nodes, then the proof-number search, which
#: tries alpha-beta for ``PN_LEAF_AB`` nodes at a bout start it meets first
AB_BUDGET = 400_000
PN_LEAF_AB = 1000
#: the root's legal codes, each root move's nodes, its proven bounds (seat 0's view), then
#: the stack of move lists (the root's first). The names ``C_MV``, ``C_LO``, ``C_HI`` match
#: the plain solver's, which ``durak_sim.solve`` reads while a search runs
V_LEGAL = V_PATH + 4 * V_MAX_PLY
V_EFFORT = V_LEGAL + 256
C_LO = V_EFFORT + 256
C_HI = C_LO + 256
C_MV = C_HI + 256
V_CHILD = C_MV + 256


def table_words(log2_entries=16):
    """Length of a work array for this search with ``2**log2_entries`` entries; it serves
    the plain solver too (its table is then the same ``2**log2_entries`` entries)."""
    return V_WORK + (TT_WORDS << log2_entries)


def new_table(log2_entries=16):
    """A zeroed work array (``table_words``)."""
    return np.zeros(table_words(log2_entries), np.int64)


assert V_WORK - WORK < TT_WORDS << 16  # the plain solver finds 2**log2 entries in it too


@numba.njit(**JIT)
def _vscore_ge(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, tt):
    """Score test of a child of the root: the lead's and the take's floors, the round of
    defences and the line's bout starts (repetitions) start afresh, so the test is of the
    state itself."""
    tt[C_NSTART] = 0
    tt[C_REP] = V_MAX_PLY + 1  # (NO_REP)
    return _vvs(h0, h1, tab, ub, natt, lim, tk, att, sp, x & X_LEAD, t, sp - sp + 1,
                sp - sp + V_CHILD, tt)


@numba.njit(**JIT)
def _vwin_within(h0, h1, tab, ub, natt, lim, tk, att, sp, x, v, p, tt):
    if v > 0:
        return _vscore_ge(h0, h1, tab, ub, natt, lim, tk, att, sp, x, BIG - p, tt) != 0
    return _vscore_ge(h0, h1, tab, ub, natt, lim, tk, att, sp, x, p - BIG + 1, tt) == 0


@numba.njit(**JIT)
def _vexact_score(h0, h1, tab, ub, natt, lim, tk, att, sp, x, v, horizon, tt):
    """The plain solver's ``_exact_score``: ``v * (BIG - min(p, horizon + 1))``."""
    if v == 0:
        return v - v
    lo = 1
    hi = horizon + 1
    p = 1
    while p <= horizon:
        if _vwin_within(h0, h1, tab, ub, natt, lim, tk, att, sp, x, v, p, tt):
            hi = p
            break
        if tt[C_CAPPED] != 0:
            return v * (BIG - lo)
        lo = p + 1
        p = min(2 * p, horizon) if p < horizon else horizon + 1
    while lo < hi:
        p = (lo + hi) // 2
        if _vwin_within(h0, h1, tab, ub, natt, lim, tk, att, sp, x, v, p, tt):
            hi = p
        else:
            lo = p + 1
        if tt[C_CAPPED] != 0:
            break
    return v * (BIG - lo)


@numba.njit(**JIT)
def _vroot_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, t, use_pn, tt):
    """The plain solver's ``_root_test``: each root move's test by alpha-beta or by the
    proof-number search, its nodes and proven bounds kept per move."""
    z = h0 - h0
    maxnode = mover == 0
    for i in range(cnt):
        a = tt[C_MV + i]
        if tt[C_LO + i] >= t:
            r = 1
        elif tt[C_HI + i] < t:
            r = 0
        else:
            c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
                h0, h1, tab, ub, natt, lim, tk, att, z, x, a, tt)
            if term != 2:
                r = 1 if term * BIG >= t else 0
            else:
                before = tt[C_NODES]
                if use_pn:
                    tt[C_NSTART] = 0
                    r = _vpn_test(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx & X_LEAD,
                                  t, z + 1, z + V_CHILD, tt)
                else:
                    r = _vscore_ge(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, t, tt)
                tt[V_EFFORT + i] += tt[C_NODES] - before
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
def _vvalue_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, t, ab_budget, tt):
    """``_vroot_test`` by alpha-beta for ``ab_budget`` nodes, then (when that did not finish
    and the node cap is not reached) by the proof-number search."""
    cap = tt[C_CAP]
    if ab_budget > 0:
        tt[C_CAP] = min(cap, tt[C_NODES] + ab_budget)
        r, cut = _vroot_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, t, False,
                             tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0 or tt[C_NODES] > cap:
            return r, cut
        tt[C_CAPPED] = 0
    return _vroot_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, t, True, tt)


@numba.njit(**JIT)
def _vbest_known(mover, cnt, tt):
    """The plain solver's ``_best_known``."""
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
def _vroot_value(h0, h1, tab, ub, natt, lim, tk, att, x, mover, trump, ab_budget, tt):
    """The plain solver's ``_root_value``: the value by at most two null-window tests and a
    move for the mover."""
    z = h0 - h0
    cnt = _vmoves(h0, h1, tab, ub, natt, lim, tk, att, z, x, _vphase(tab, ub, tk, x), False,
                  z - 1, z + C_MV, tt)
    for i in range(cnt):
        tt[V_EFFORT + i] = 0
        tt[C_LO + i] = -1
        tt[C_HI + i] = 1
    first = 1 if _guess_seat0_wins(h0, h1, trump) else 0
    r, cut = _vvalue_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, z + first,
                          ab_budget, tt)
    if tt[C_CAPPED] != 0:
        return z + first * 2 - 1, _vbest_known(mover, cnt, tt)
    good = -1
    if first == 1:
        if r != 0:
            v = 1
            if mover == 0:
                good = cut
        else:
            if mover == 1:
                good = cut
            r, cut = _vvalue_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, z,
                                  ab_budget, tt)
            if tt[C_CAPPED] != 0:
                return z, _vbest_known(mover, cnt, tt)
            if r != 0:
                v = 1 - 1
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
            r, cut = _vvalue_test(h0, h1, tab, ub, natt, lim, tk, att, x, mover, cnt, z + 1,
                                  ab_budget, tt)
            if tt[C_CAPPED] != 0:
                return z, _vbest_known(mover, cnt, tt)
            if r != 0:
                v = 1
                if mover == 0:
                    good = cut
            else:
                v = 1 - 1
                if mover == 1:
                    good = cut
    if good < 0 and cnt > 0:
        bi = 0
        for i in range(1, cnt):
            if tt[V_EFFORT + i] > tt[V_EFFORT + bi]:
                bi = i
        good = tt[C_MV + bi]
    return v, good


@numba.njit(**JIT)
def _voptimal_set(h0, h1, tab, ub, natt, lim, tk, att, x, mover, v, out, tt):
    """Every optimal legal action (value ``v``), codes ascending, into out[1..]."""
    z = h0 - h0
    nl = _vlegal(h0, h1, tab, ub, natt, lim, tk, att, x, tt, tt, z + V_LEGAL)
    k = 0
    for i in range(1, nl + 1):
        a = tt[V_LEGAL + i]
        c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
            h0, h1, tab, ub, natt, lim, tk, att, z, x, a, tt)
        if term != 2:
            opt = term == v
        elif mover == 0:
            opt = v == -1 or _vscore_ge(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx,
                                        v, tt) != 0
        else:
            opt = v == 1 or _vscore_ge(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx,
                                       v + 1, tt) == 0
        if tt[C_CAPPED] != 0:
            return k
        if opt:
            k += 1
            out[k] = a
    return k


@numba.njit(**JIT)
def _vorder(h0, h1, tab, ub, natt, lim, tk, att, x, mover, v, k, out, tt):
    """The plain solver's ``_order``: out[1..k] by the exact score of the position each leads
    to, best for the mover first, ties by code. 0 when the node cap cut it short."""
    z = h0 - h0
    scores = np.empty(k, np.int64)
    done = 1
    for j in range(k):
        if done == 0:
            scores[j] = -BIG if mover == 0 else BIG
            continue
        c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
            h0, h1, tab, ub, natt, lim, tk, att, z, x, out[j + 1], tt)
        if term != 2:
            scores[j] = term * BIG
        else:
            scores[j] = _vexact_score(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, v,
                                      z + BIG - 2, tt)
        if tt[C_CAPPED] != 0:
            done = 0
            scores[j] = -BIG if mover == 0 else BIG
    _sort_by_score(out, scores, k, mover)
    return done


@numba.njit(**JIT)
def solve_variant(hand0, hand1, trump, stock, stock_n, attacker, table, n_table, taking,
                  bout_limit, flags, lead, tt, stamp, node_cap, mode, out, stats):
    """Value (seat 0's view) of the position; actions into ``out`` (module docstring)."""
    return solve_variant_budgets(hand0, hand1, trump, stock, stock_n, attacker, table,
                                 n_table, taking, bout_limit, flags, lead, tt, stamp, node_cap,
                                 mode, out, stats, stamp - stamp + AB_BUDGET,
                                 stamp - stamp + PN_LEAF_AB)


@numba.njit(**JIT)
def solve_variant_budgets(hand0, hand1, trump, stock, stock_n, attacker, table, n_table,
                          taking, bout_limit, flags, lead, tt, stamp, node_cap, mode, out,
                          stats, ab_budget, leaf_budget):
    """``solve_variant`` with the proof-number search's budgets (the plain solver's
    ``solve_budgets``: 0 and 0 the proof-number search alone; an ``ab_budget`` of at least
    ``node_cap`` alpha-beta alone)."""
    _setup(trump, stock, stock_n, tt, stamp, node_cap)
    tt[C_PN_LEAF] = leaf_budget
    entries = (tt.shape[0] - V_WORK) // TT_WORDS
    p = 2
    while p * 2 <= entries:
        p *= 2
    tt[C_TT_MASK] = p - 1
    tt[C_FLAGS] = flags & (F_LEAD | F_TRANSFER)
    for i in range(STATS_SIZE):
        stats[i] = 0
    out[0] = 0
    h0 = hand0
    h1 = hand1
    tab = h0 - h0
    ub = tab
    for i in range(n_table):
        tab |= 1 << table[2 * i]
        if table[2 * i + 1] >= 0:
            tab |= 1 << table[2 * i + 1]
        elif taking == 0:
            ub |= 1 << table[2 * i]
    natt = n_table
    lim = bout_limit if n_table > 0 else tab - tab
    tk = tab - tab + (1 if taking != 0 else 0)
    att = attacker
    x = tab - tab + (X_LEAD if lead != 0 and n_table > 0 else 0)
    if tab == 0 and stock_n == 0 and (h0 == 0 or h1 == 0):
        return 0 if h0 == 0 and h1 == 0 else (1 if h0 == 0 else -1)
    mover = 1 - att if _vphase(tab, ub, tk, x) == PH_DEFEND else att

    v, good = _vroot_value(h0, h1, tab, ub, natt, lim, tk, att, x, mover, trump, ab_budget,
                           tt)
    stats[3] = tt[C_NODES]
    if tt[C_CAPPED] == 0 and mode >= MODE_SET:
        k = _voptimal_set(h0, h1, tab, ub, natt, lim, tk, att, x, mover, v, out, tt)
        out[0] = k
        stats[4] = tt[C_NODES] - stats[3]
        if tt[C_CAPPED] == 0 and mode == MODE_ORDERED and k > 1 and v != 0:
            if node_cap > 0:
                tt[C_CAP] = tt[C_NODES] + node_cap
            if _vorder(h0, h1, tab, ub, natt, lim, tk, att, x, mover, v, k, out, tt) == 0:
                stats[2] = 1
                tt[C_CAPPED] = 0
            stats[5] = tt[C_NODES] - stats[3] - stats[4]
    if tt[C_CAPPED] != 0:
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

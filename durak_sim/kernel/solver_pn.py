"""The endgame solver's proof-number search (df-pn), the fallback of the value tests.

Proof-number fallback (lopsided endgames)
-----------------------------------------
With many cards against few (11 v 5, 14 v 2) alpha-beta must refute every choice of the big
hand, and its fixed move order often proves the small side's win by a line that leaves the big
hand the most replies: such tests took millions of nodes. So each root value test runs
alpha-beta for ``AB_BUDGET`` nodes, and if that does not settle it (and the node cap is not
reached), the tests of the root moves still open run as a depth-first proof-number search
(df-pn, ``_mid``): it expands the move whose proof (or disproof) looks cheapest, so it finds
the lines where the big hand has few replies. It is exact: a proof number becomes 0 (or a
disproof number 0) only from exact facts (deal ends, the rules S1-S5 and S7-S11, alpha-beta tests
that finished, entries settled so), and it searches the same moves as ``_vs`` (with S6 and the
equal-value reduction). Details: a new child's numbers are 1 and the number of its mover's
moves (the proof number of an AND node, the disproof number of an OR node: "df-pn+" style);
the 1 + 1/4 threshold trick; at a bout start met for the first time, alpha-beta runs first
for ``PN_LEAF_AB`` nodes (small subtrees are far cheaper by alpha-beta). The proof search
shares the table: its entries hold proof and disproof numbers of any state (bout nodes too;
keys: both hands, the table, attacks left, the unbeaten card or the throw-in floor ``mn``,
attacker, stock left; empty-stock bout starts canonical as above) under the tag
``-(4 * stamp + t + 2)``, which no value-search probe matches. A settled bout start is written
as a bound of the value search's entry instead, and ``_vs`` also reads settled proof entries
of the bout nodes it stores (near the root), so the deal's next calls reuse what it proved.
On 92 hard-vs-normal endgames that hit the 1M-node cap it solves 44 within 1M nodes and 86
within 20M (alpha-beta alone: none and 70); replaying 48,847 endgame decisions of 4,000 deals
in order, the cap hits fell from 76 to 45 and the nodes by 8%. Alpha-beta stays first because
it is faster on ordinary positions and because its proofs follow its move order, which often
matches the opponent's play: the deal's next calls then find their answers in the table.
In play (``benchmarks/bench_hard_endgame.py --deals 10000``, hard against normal) it cut the
cap hits from 334 to 241 of about 123,000 endgame decisions (0.27% to 0.20%) with no loss of
deals per second (979 on one thread against 900-940); against easy (300 deals) from 7.3% to
5.3%, with the mean decision 6.4 ms to 4.2 ms. ``durak-sim solve`` and the hard AI (from its
version 4) use it.
"""
import numba

from .bits import popcount
from .config import JIT
from .solver_base import (BIG, C_BEAT, C_CAP, C_CAPPED, C_MV, C_NODES, C_PN, C_PN_LEAF,
                          C_STAMP, C_STOCK_N, C_TT_MASK, M28, M32, MOVES_PER_PLY,
                          PH_DEFEND, PN_INF, PN_PLIES, TT_WORDS, WORK, _hash, _phase,
                          _ranks_mask)
from .solver_ab import _ab_bound, _bounds, _entry_work, _pn_key, _pn_probe, _vs
from .solver_rules import _child, _moves, _static


@numba.njit(_nrt=False, **JIT)   # (not inlined: solver.SOLVER_VERSION)
def _pn_store(k1, k2, tag, pn, dn, work, tt):
    """Store a state's proof and disproof numbers (replacing a stale entry, else the one of
    either search that took fewer nodes)."""
    bucket = WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        slot = bucket
    elif tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        slot = bucket + 4
    else:
        slot = bucket if _entry_work(bucket, tt) <= _entry_work(bucket + 4, tt) else bucket + 4
    b = 0
    while work > 0:
        work >>= 1
        b += 1
    tt[slot] = k1
    tt[slot + 1] = k2
    tt[slot + 2] = tag
    tt[slot + 3] = pn | (dn << 28) | (b << 56)


@numba.njit(_nrt=False, **JIT)   # (not inlined: solver.SOLVER_VERSION)
def _pn_leaf(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, term, t, tag, tt):
    """Proof and disproof numbers of a child as far as known without expanding it: the
    deal's end, a rule S1-S5/S7-S11, the proof search's entry, the value search's bounds of a
    bout start; else 1, 1."""
    if term != 2:
        return (0, PN_INF) if term * BIG >= t else (PN_INF, 0)
    n = tt[C_STOCK_N]
    if sp == n:
        ph = _phase(tab, unb, tk)
        if att == 0:
            v = _static(h0, h1, tab, unb, natt, lim, att, mn, ph, tt)
        else:
            v = _static(h1, h0, tab, unb, natt, lim, att, mn, ph, tt)
        if v != 2:
            return (0, PN_INF) if v >= t else (PN_INF, 0)
    k1, k2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
    slot = _pn_probe(k1, k2, tag, tt)
    if slot >= 0:
        d = tt[slot + 3]
        return d & M28, (d >> 28) & M28
    if tab == 0:
        lo, hi = _bounds(h0, h1, att, sp, tt)
        if lo >= t:
            return 0, PN_INF
        if hi < t:
            return PN_INF, 0
    # not known: the mover's number of moves estimates the disproof (proof) number of an
    # OR (AND) node
    if tab == 0:
        m = popcount(h0 if att == 0 else h1)
        mover = att
    elif tk == 0 and unb >= 0:
        m = popcount((h1 if att == 0 else h0) & tt[C_BEAT + unb]) + 1
        mover = 1 - att
    else:
        m = 1
        if natt < lim:
            cand = (h0 if att == 0 else h1) & _ranks_mask(tab)
            if tk != 0:
                cand &= ~((1 << mn) - 1)
            m += popcount(cand)
        mover = att
    return (1, m) if mover == 0 else (m, 1)


@numba.njit(_nrt=False, **JIT)
def _mid(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, thpn, thdn, ply, tag, tt):
    """Depth-first proof-number search (df-pn) of the value test ``s >= t`` (t 0 or 1): expand
    the state until its proof number reaches ``thpn`` or its disproof number ``thdn``; returns
    both. Proof number 0: the test holds; disproof number 0: it fails. Only exact facts make a
    number 0 or ``PN_INF`` (deal ends, rules S1-S5/S7-S11, finished alpha-beta tests, entries
    settled so); every other number is a heuristic that steers the search only."""
    tt[C_NODES] += 1
    if tt[C_CAPPED] != 0:
        return 1, 1
    if tt[C_NODES] > tt[C_CAP] or ply >= PN_PLIES:
        tt[C_CAPPED] = 1
        return 1, 1
    n = tt[C_STOCK_N]
    k1, k2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
    start = tt[C_NODES]
    if tab == 0 and tt[C_PN_LEAF] > 0 and _pn_probe(k1, k2, tag, tt) < 0:
        # a bout start met for the first time: alpha-beta first, with a small budget
        cap = tt[C_CAP]
        tt[C_CAP] = min(cap, start + tt[C_PN_LEAF])
        r = _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0:
            # settled (``_vs`` stored it: a bout start)
            pn = 0 if r != 0 else PN_INF
            return pn, PN_INF - pn
        if tt[C_NODES] > cap:
            return 1, 1
        tt[C_CAPPED] = 0
    phase = _phase(tab, unb, tk)
    mover = 1 - att if phase == PH_DEFEND else att
    maxnode = mover == 0
    base = C_MV + ply * MOVES_PER_PLY
    nb = C_PN + ply * MOVES_PER_PLY
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, -1, base, tt)
    for i in range(cnt):
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, tt[base + i], tt)
        cp, cd = _pn_leaf(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term, t, tag,
                          tt)
        tt[nb + i] = cp | (cd << 32)
    pn = 1
    dn = 1
    while True:
        # OR node (seat 0 moves): pn the least child pn, dn the sum; AND node the reverse
        b1 = PN_INF + 1
        b2 = PN_INF + 1
        bi = 0
        other = 0
        tot = 0
        for i in range(cnt):
            x = tt[nb + i]
            cp = x & M32
            cd = x >> 32
            if maxnode:
                mine = cp
                oth = cd
            else:
                mine = cd
                oth = cp
            if mine < b1:
                b2 = b1
                b1 = mine
                bi = i
                other = oth
            elif mine < b2:
                b2 = mine
            if tot < PN_INF:
                tot = PN_INF if oth >= PN_INF else min(tot + oth, PN_INF - 1)
        if b1 > PN_INF:
            b1 = PN_INF
        if maxnode:
            pn = b1
            dn = tot
        else:
            pn = tot
            dn = b1
        if pn >= thpn or dn >= thdn:
            break
        # the child's thresholds (1 + 1/4 trick against thrashing between siblings)
        if b2 > PN_INF:
            b2 = PN_INF
        near = min(PN_INF, b2 + (b2 >> 2) + 1)
        if maxnode:
            cthpn = min(thpn, near)
            cthdn = PN_INF if thdn >= PN_INF else thdn - dn + other
        else:
            cthdn = min(thdn, near)
            cthpn = PN_INF if thpn >= PN_INF else thpn - pn + other
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, tt[base + bi], tt)
        cp, cd = _mid(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, t, cthpn, cthdn,
                      ply + 1, tag, tt)
        if tt[C_CAPPED] != 0:
            return 1, 1
        tt[nb + bi] = cp | (cd << 32)
    if tab == 0 and (pn == 0 or dn == 0):
        # a bout start settled: the value search's entry keeps it (later calls of the deal)
        _ab_bound(h0, h1, att, sp, t, 1 if pn == 0 else 0, tt[C_NODES] - start + 1, tt)
    else:
        _pn_store(k1, k2, tag, pn, dn, tt[C_NODES] - start + 1, tt)
    return pn, dn


@numba.njit(**JIT)
def _pn_test(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt):
    """``_vs`` by the proof-number search: 1 when ``s >= t`` (t 0 or 1), else 0; meaningless
    when tt[C_CAPPED]."""
    tag = -(tt[C_STAMP] * 4 + t + 2)
    inf = t - t + PN_INF  # typed: every call of the recursion has the same types
    pn, dn = _mid(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, inf, inf, ply, tag, tt)
    return 1 if pn == 0 else 0

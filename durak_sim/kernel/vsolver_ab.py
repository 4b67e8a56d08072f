"""The variant search's alpha-beta: the null-window score test ``_vvs`` over the
transposition table (the plain solver's ``_vs`` with the variants' state and moves,
``vsolver_rules``).

The table stores bout starts (keyed as the plain solver keys them: both hands, the attacker
and the stock left; with an empty stock canonical, ranks without a live card squeezed out and
the non-trump suits sorted, which keeps every beat, rank match, transfer and lead) and bout
nodes outside a lead, a take and a round of several defences: within ``TT_SHALLOW`` plies of
the root (the next calls' roots), and after two defences or more (orders of defending a lead
or a transfer that end in the same cards). A bout node's key holds both hands, the table,
the attacker, the stock left, the attacks left (``lim - natt``) and the unbeaten cards (none,
one, or all of the table when nothing is beaten: then ``natt`` is the table's size). Entries
hold bounds on the score and the move that decided (its code: 11 bits) as the plain
solver's do.

The move lists are a stack: a node's moves go at ``base`` and its children's after them, so a
node may have as many moves as the engines allow (up to 255); a line that would overrun the
work area stops the search as a line deeper than ``V_MAX_PLY`` does (``stats[1]``).
"""
import numba

from .bits import nth_nibble, popcount
from .config import JIT
from .solver_base import (BIG, C_CAP, C_CAPPED, C_NODES, C_STAMP, C_STATIC, C_STOCK_N,
                          C_TRUMP, C_TT_CUTS, C_TT_MASK, M20, PH_ATTACK, PH_DEFEND,
                          PH_OPEN, SMASK, TT_SHALLOW, TT_WORDS, _hash, _ranks_mask,
                          _squeeze)
from .vsolver_rules import (C_FLAGS, C_NSTART, C_REP, F_TRANSFER, V_MAX_PLY, V_PATH,
                            V_WORK, X_LEAD, X_MD, _vchild, _vmoves, _vphase, _vstatic)

#: the stack of move lists ends here (the rest of the work area is a margin for one node)
V_STACK_END = V_WORK - 320
#: ``C_REP`` when no repetition decided a result
NO_REP = V_MAX_PLY + 1
#: an entry's node count saturates here (the move code takes 11 bits of the data word)
V_WORK_MAX = (1 << 18) - 1
M11 = (1 << 11) - 1


@numba.njit(**JIT)
def _node_key(h0, h1, tab, ub, natt, lim, att, sp, n):
    """A bout node's key, (0, 0) when the node is not stored (several unbeaten cards after a
    defence)."""
    if ub == 0:
        code = 0
    elif ub == tab:
        code = 37
    elif (ub & (ub - 1)) == 0:
        code = 1
        m = ub
        while (m & 1) == 0:
            m >>= 1
            code += 1
    else:
        return tab - tab, tab - tab
    k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
    k2 = h1 | ((tab >> 20) << 36) | ((lim - natt) << 52) | (code << 55) | (1 << 61)
    return k1, k2


@numba.njit(_nrt=False, **JIT)
def _vvs(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, ply, base, tt):
    """1 when the score ``s`` of the state is >= t, else 0 (the plain solver's ``_vs``:
    ``t`` 1 / 0 the value tests, other thresholds distances). ``base``: where this node's
    moves go in ``tt``. Leaves in ``tt[C_REP]`` the ply of the earliest bout start whose
    repetition the result rests on (``NO_REP``: none)."""
    tt[C_NODES] += 1
    tt[C_REP] = NO_REP
    if tt[C_CAPPED] != 0:
        return 0
    if tt[C_NODES] > tt[C_CAP] or ply >= V_MAX_PLY or base > V_STACK_END:
        tt[C_CAPPED] = 1
        return 0
    if t >= BIG:
        return 0
    if t <= 1 - BIG:
        return 1
    n = tt[C_STOCK_N]
    if att == 0:
        ha = h0
        hd = h1
    else:
        ha = h1
        hd = h0
    phase = _vphase(tab, ub, tk, x)
    mover = 1 - att if phase == PH_DEFEND else att
    dist = t >= 2 or t <= -1

    if sp == n:
        v = _vstatic(ha, hd, tab, ub, natt, lim, att, x, phase, tt)
        if v != 2:
            if v == 0 or (v > 0 and t <= 1) or (v < 0 and t >= 0):
                tt[C_STATIC] += 1
                return 1 if v * BIG >= t else 0
            if phase == PH_OPEN and (ha & (ha - 1)) == 0:
                tt[C_STATIC] += 1
                return 1 if v * (BIG - 3) >= t else 0

    # a bout start met again on this line (transfers only: module docstring)
    pushed = False
    if phase == PH_OPEN and sp == n and (tt[C_FLAGS] & F_TRANSFER) != 0:
        k0 = h0 | (att << 36)
        live = popcount(h0 | h1)
        i = tt[C_NSTART] - 1
        while i >= 0:
            e = V_PATH + 4 * i
            if tt[e + 3] != live:
                break
            if tt[e] == k0 and tt[e + 1] == h1:
                tt[C_REP] = tt[e + 2]
                return 1 if 0 >= t else 0
            i -= 1
        i = tt[C_NSTART]
        if i >= V_MAX_PLY:
            tt[C_CAPPED] = 1
            return 0
        e = V_PATH + 4 * i
        tt[e] = k0
        tt[e + 1] = h1
        tt[e + 2] = ply
        tt[e + 3] = live
        tt[C_NSTART] = i + 1
        pushed = True

    use_tt = phase == PH_OPEN
    if not use_tt and tk == 0 and (x & (X_LEAD | X_MD)) == 0:
        use_tt = ply <= TT_SHALLOW or (phase == PH_ATTACK and popcount(tab) - natt >= 2)
    best = -1
    slot = 0
    k1 = tab - tab
    key1 = h1
    lo = -BIG
    hi = BIG
    bucket = 0
    start = 0
    rmap = 0
    if use_tt:
        if phase != PH_OPEN:
            k1, key1 = _node_key(h0, h1, tab, ub, natt, lim, att, sp, n)
            if key1 == 0:
                use_tt = False
        elif sp == n:
            k1, key1, rmap = _squeeze(h0, h1, tt[C_TRUMP])
            k1 |= att << 36
        else:
            k1 = h0 | (att << 36) | ((n - sp) << 37)
    if use_tt:
        bucket = V_WORK + (_hash(k1, key1) & tt[C_TT_MASK] & ~1) * TT_WORDS
        slot = -1
        stamp = tt[C_STAMP]
        if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
            slot = bucket
        elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
            slot = bucket + 4
        start = tt[C_NODES]
        if slot >= 0:
            d = tt[slot + 3]
            lo = (d & SMASK) - BIG
            hi = ((d >> 17) & SMASK) - BIG
            if lo >= t or hi < t:
                tt[C_TT_CUTS] += 1
                if pushed:
                    tt[C_NSTART] -= 1
                return 1 if lo >= t else 0
            best = ((d >> 34) & M11) - 1
            if best >= 0 and sp == n and phase == PH_OPEN:
                best = nth_nibble(best >> 2, _ranks_mask(h0 | h1)) \
                    | ((rmap >> (36 + 2 * (best & 3))) & 3)

    cnt = _vmoves(h0, h1, tab, ub, natt, lim, tk, att, sp, x, phase, dist, best, base, tt)

    if t >= 2:
        ct = t + 1
    elif t <= -1:
        ct = t - 1
    else:
        ct = t
    maxnode = mover == 0
    result = 0 if maxnode else 1
    cut = -1
    rep_all = NO_REP
    rep_cut = NO_REP
    for i in range(cnt):
        a = tt[base + i]
        c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
            h0, h1, tab, ub, natt, lim, tk, att, sp, x, a, tt)
        if term != 2:
            r = 1 if term * BIG >= ct else 0
            crep = NO_REP
        else:
            r = _vvs(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, ct, ply + 1,
                     base + cnt, tt)
            crep = tt[C_REP]
        rep_all = min(rep_all, crep)
        if maxnode:
            if r != 0:
                result = 1
                cut = a
                rep_cut = crep
                break
        else:
            if r == 0:
                result = 0
                cut = a
                rep_cut = crep
                break
    if pushed:
        tt[C_NSTART] -= 1
    # the repetitions the result rests on: none when it is the side for whom a repetition
    # fails (a proof never goes through one), else those of the deciding move (or of all)
    if (t >= 1) == (result != 0):
        mine = NO_REP
    elif cut >= 0:
        mine = rep_cut
    else:
        mine = rep_all
    tt[C_REP] = mine
    if tt[C_CAPPED] != 0:
        return result
    if use_tt and mine >= ply:
        # (a result that a repetition of an earlier bout start decided holds on this line
        # only: not stored)
        if result != 0:
            if t > lo:
                lo = t
        else:
            if t - 1 < hi:
                hi = t - 1
        if cut < 0:
            cut = best
        if cut >= 0 and sp == n and phase == PH_OPEN:
            cs = cut & 3
            for u in range(4):
                if ((rmap >> (36 + 2 * u)) & 3) == cs:
                    cs = u
                    break
            cut = (popcount(_ranks_mask(h0 | h1) & ((1 << (cut & ~3)) - 1)) >> 2 << 2) | cs
        work = min(tt[C_NODES] - start, V_WORK_MAX)
        if slot < 0:
            stamp = tt[C_STAMP]
            w0 = (tt[bucket + 3] >> 45) if tt[bucket + 2] == stamp else -1
            w1 = (tt[bucket + 7] >> 45) if tt[bucket + 6] == stamp else -1
            slot = bucket if w0 <= w1 else bucket + 4
        else:
            work = max(work, tt[slot + 3] >> 45)
        tt[slot] = k1
        tt[slot + 1] = key1
        tt[slot + 2] = tt[C_STAMP]
        tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 45)
    return result

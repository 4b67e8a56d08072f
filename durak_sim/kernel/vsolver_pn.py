"""The variant search's proof-number fallback: the plain solver's df-pn (``solver_pn``) over
the variants' state and moves, for the value tests alpha-beta has not settled within its
budget (lopsided endgames: a big hand against a small one).

As in the plain solver it is exact: a proof or disproof number becomes 0 only from exact
facts (deal ends, the shortcuts, finished alpha-beta tests, settled entries), it searches the
moves ``_vvs`` searches, runs alpha-beta first (``PN_LEAF_AB`` nodes) at a bout start it meets
for the first time, and keeps its numbers in the table under the tag
``-(4 * stamp + t + 2)``; a settled bout start goes into the value search's entry instead.
Its keys are the alpha-beta bout-node keys (``vsolver_ab._node_key``) widened to takes and
leads (the floor in the key), and nodes inside a round of several defences are not stored.

Repetitions (the transfer game): a bout start on the current line counts as a draw, as in
``_vvs``; a node whose proof or disproof rests on such a draw (the direction in which a
draw answers the test: a disproof of ``s >= 1``, a proof of ``s >= 0``) holds on this line
only, so it is returned but stored only as unsettled numbers.
"""
import numba

from .bits import popcount
from .config import JIT
from .solver_base import (BIG, C_CAP, C_CAPPED, C_NODES, C_PN_LEAF, C_STAMP,
                          C_STOCK_N, C_TRUMP, C_TT_MASK, M20, M28, M32, PH_DEFEND, PH_OPEN,
                          PN_INF, SMASK, TT_WORDS, _hash, _ranks_mask, _squeeze)
from .vsolver_ab import NO_REP, V_STACK_END, _node_key, _vvs
from .vsolver_rules import (C_FLAGS, C_NSTART, C_REP, F_TRANSFER, V_MAX_PLY, V_PATH, V_WORK,
                            X_FLOOR, X_LEAD, X_MD, _vchild, _vmoves, _vphase, _vstatic)


@numba.njit(**JIT)
def _vpn_key(h0, h1, tab, ub, natt, lim, tk, att, sp, x, n, tt):
    """The proof search's key of a state, (0, 0) when it is not stored (inside a round of
    several defences)."""
    if tab == 0:
        if sp == n:
            k1, k2, rmap = _squeeze(h0, h1, tt[C_TRUMP])
            return k1 | (att << 36), k2
        return h0 | (att << 36) | ((n - sp) << 37), h1
    if (x & X_MD) != 0:
        return tab - tab, tab - tab
    if tk != 0 or (x & X_LEAD) != 0:
        code = (38 if tk != 0 else 75) + (x & X_FLOOR)
        k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
        k2 = h1 | ((tab >> 20) << 36) | ((lim - natt) << 52) | (code << 55) | (1 << 62)
        return k1, k2
    return _node_key(h0, h1, tab, ub, natt, lim, att, sp, n)


@numba.njit(**JIT)
def _vprobe(k1, k2, tag, tt):
    bucket = V_WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        return bucket
    if tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        return bucket + 4
    return -1


@numba.njit(**JIT)
def _ventry_work(slot, tt):
    """log2 of a live entry's node count (either search), -1 for a stale one."""
    w = tt[slot + 2]
    if w == tt[C_STAMP]:
        x = tt[slot + 3] >> 45
        b = 0
        while x > 0:
            x >>= 1
            b += 1
        return b
    if w == -(tt[C_STAMP] * 4 + 2) or w == -(tt[C_STAMP] * 4 + 3):
        return (tt[slot + 3] >> 56) & 63
    return -1


@numba.njit(**JIT)
def _vpn_store(k1, k2, tag, pn, dn, work, tt):
    bucket = V_WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        slot = bucket
    elif tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        slot = bucket + 4
    else:
        slot = bucket if _ventry_work(bucket, tt) <= _ventry_work(bucket + 4, tt) \
            else bucket + 4
    b = 0
    while work > 0:
        work >>= 1
        b += 1
    tt[slot] = k1
    tt[slot + 1] = k2
    tt[slot + 2] = tag
    tt[slot + 3] = pn | (dn << 28) | (b << 56)


@numba.njit(**JIT)
def _vstart_slot(h0, h1, att, sp, tt):
    """The value search's key and slot (or -1) of a bout start, and its bucket."""
    n = tt[C_STOCK_N]
    if sp == n:
        k1, k2, rmap = _squeeze(h0, h1, tt[C_TRUMP])
        k1 |= att << 36
    else:
        k1 = h0 | (att << 36) | ((n - sp) << 37)
        k2 = h1
    bucket = V_WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    stamp = tt[C_STAMP]
    slot = -1
    if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == k2:
        slot = bucket
    elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        slot = bucket + 4
    return k1, k2, slot, bucket


@numba.njit(**JIT)
def _vab_bound(h0, h1, att, sp, t, r, work, tt):
    """Record in the value search's entry of a bout start what the proof search proved."""
    k1, k2, slot, bucket = _vstart_slot(h0, h1, att, sp, tt)
    lo = -BIG
    hi = BIG
    cut = -1
    if slot >= 0:
        d = tt[slot + 3]
        lo = (d & SMASK) - BIG
        hi = ((d >> 17) & SMASK) - BIG
        cut = ((d >> 34) & 2047) - 1
        work = max(work, d >> 45)
    else:
        slot = bucket if _ventry_work(bucket, tt) <= _ventry_work(bucket + 4, tt) \
            else bucket + 4
    if r != 0:
        lo = max(lo, t)
    else:
        hi = min(hi, t - 1)
    work = min(work, (1 << 18) - 1)
    tt[slot] = k1
    tt[slot + 1] = k2
    tt[slot + 2] = tt[C_STAMP]
    tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 45)


@numba.njit(**JIT)
def _on_line(h0, h1, att, tt):
    """The ply of the bout start on the current line with these hands and attacker, or -1
    (the repetition check of ``_vvs``)."""
    k0 = h0 | (att << 36)
    live = popcount(h0 | h1)
    i = tt[C_NSTART] - 1
    while i >= 0:
        e = V_PATH + 4 * i
        if tt[e + 3] != live:
            break
        if tt[e] == k0 and tt[e + 1] == h1:
            return tt[e + 2]
        i -= 1
    return -1


@numba.njit(**JIT)
def _vpn_leaf(h0, h1, tab, ub, natt, lim, tk, att, sp, x, term, t, tag, tt):
    """A child's numbers as far as known without expanding it (the plain solver's
    ``_pn_leaf``), and the ply of the repetition they rest on (``NO_REP``: none)."""
    if term != 2:
        return ((0, PN_INF) if term * BIG >= t else (PN_INF, 0)), NO_REP
    n = tt[C_STOCK_N]
    if sp == n:
        if tab == 0 and (tt[C_FLAGS] & F_TRANSFER) != 0:
            q = _on_line(h0, h1, att, tt)
            if q >= 0:
                return ((0, PN_INF) if 0 >= t else (PN_INF, 0)), q
        ph = _vphase(tab, ub, tk, x)
        if att == 0:
            v = _vstatic(h0, h1, tab, ub, natt, lim, att, x, ph, tt)
        else:
            v = _vstatic(h1, h0, tab, ub, natt, lim, att, x, ph, tt)
        if v != 2:
            return ((0, PN_INF) if v >= t else (PN_INF, 0)), NO_REP
    k1, k2 = _vpn_key(h0, h1, tab, ub, natt, lim, tk, att, sp, x, n, tt)
    if k2 != 0:
        slot = _vprobe(k1, k2, tag, tt)
        if slot >= 0:
            d = tt[slot + 3]
            return (d & M28, (d >> 28) & M28), NO_REP
    if tab == 0:
        k1, k2, slot, bucket = _vstart_slot(h0, h1, att, sp, tt)
        if slot >= 0:
            d = tt[slot + 3]
            if (d & SMASK) - BIG >= t:
                return (0, PN_INF), NO_REP
            if ((d >> 17) & SMASK) - BIG < t:
                return (PN_INF, 0), NO_REP
    ph = _vphase(tab, ub, tk, x)
    if ph == PH_OPEN:
        m = popcount(h0 if att == 0 else h1)
    elif ph == PH_DEFEND:
        m = popcount(h1 if att == 0 else h0) + 1
    else:
        m = 1
        if natt < lim:
            m += popcount((h0 if att == 0 else h1) & _ranks_mask(tab))
    mover = 1 - att if ph == PH_DEFEND else att
    return ((1, m) if mover == 0 else (m, 1)), NO_REP


@numba.njit(_nrt=False, **JIT)
def _vmid(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, thpn, thdn, ply, base, tag, tt):
    """df-pn of the value test ``s >= t`` (t 0 or 1), the plain solver's ``_mid``; returns
    the numbers and leaves in ``tt[C_REP]`` the ply of the repetition a proof or disproof
    rests on (``NO_REP``: none)."""
    tt[C_NODES] += 1
    tt[C_REP] = NO_REP
    if tt[C_CAPPED] != 0:
        return 1, 1
    if tt[C_NODES] > tt[C_CAP] or ply >= V_MAX_PLY or base > V_STACK_END:
        tt[C_CAPPED] = 1
        return 1, 1
    n = tt[C_STOCK_N]
    k1, k2 = _vpn_key(h0, h1, tab, ub, natt, lim, tk, att, sp, x, n, tt)
    start = tt[C_NODES]
    if tab == 0 and tt[C_PN_LEAF] > 0 and _vprobe(k1, k2, tag, tt) < 0:
        # a bout start met for the first time: alpha-beta first, with a small budget
        cap = tt[C_CAP]
        tt[C_CAP] = min(cap, start + tt[C_PN_LEAF])
        r = _vvs(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, ply, base, tt)
        tt[C_CAP] = cap
        if tt[C_CAPPED] == 0:
            pn = 0 if r != 0 else PN_INF
            return pn, PN_INF - pn   # (``_vvs`` left its repetition in tt[C_REP])
        if tt[C_NODES] > cap:
            return 1, 1
        tt[C_CAPPED] = 0
        tt[C_REP] = NO_REP
    pushed = False
    if tab == 0 and sp == n and (tt[C_FLAGS] & F_TRANSFER) != 0:
        i = tt[C_NSTART]
        if i >= V_MAX_PLY:
            tt[C_CAPPED] = 1
            return 1, 1
        e = V_PATH + 4 * i
        tt[e] = h0 | (att << 36)
        tt[e + 1] = h1
        tt[e + 2] = ply
        tt[e + 3] = popcount(h0 | h1)
        tt[C_NSTART] = i + 1
        pushed = True
    phase = _vphase(tab, ub, tk, x)
    mover = 1 - att if phase == PH_DEFEND else att
    maxnode = mover == 0
    cnt = _vmoves(h0, h1, tab, ub, natt, lim, tk, att, sp, x, phase, False, -1, base, tt)
    nb = base + cnt          # the children's numbers
    rb = nb + cnt            # the repetitions they rest on
    child_base = rb + cnt
    for i in range(cnt):
        c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
            h0, h1, tab, ub, natt, lim, tk, att, sp, x, tt[base + i], tt)
        nums, q = _vpn_leaf(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term, t,
                            tag, tt)
        tt[nb + i] = nums[0] | (nums[1] << 32)
        tt[rb + i] = q
    pn = 1
    dn = 1
    while True:
        b1 = PN_INF + 1
        b2 = PN_INF + 1
        bi = 0
        other = 0
        tot = 0
        for i in range(cnt):
            v = tt[nb + i]
            cp = v & M32
            cd = v >> 32
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
        if b2 > PN_INF:
            b2 = PN_INF
        near = min(PN_INF, b2 + (b2 >> 2) + 1)
        if maxnode:
            cthpn = min(thpn, near)
            cthdn = PN_INF if thdn >= PN_INF else thdn - dn + other
        else:
            cthdn = min(thdn, near)
            cthpn = PN_INF if thpn >= PN_INF else thpn - pn + other
        c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term = _vchild(
            h0, h1, tab, ub, natt, lim, tk, att, sp, x, tt[base + bi], tt)
        cp, cd = _vmid(c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, t, cthpn, cthdn,
                       ply + 1, child_base, tag, tt)
        if tt[C_CAPPED] != 0:
            if pushed:
                tt[C_NSTART] -= 1
            return 1, 1
        tt[nb + bi] = cp | (cd << 32)
        tt[rb + bi] = tt[C_REP]
    if pushed:
        tt[C_NSTART] -= 1
    # the repetition a settled result rests on: a draw answers s >= t with "no" for t 1
    # (a disproof rests on it) and with "yes" for t 0 (a proof does)
    rep = NO_REP
    if (t >= 1 and dn == 0) or (t <= 0 and pn == 0):
        for i in range(cnt):
            v = tt[nb + i]
            if (t >= 1 and (v >> 32) == 0) or (t <= 0 and (v & M32) == 0):
                rep = min(rep, tt[rb + i])
    work = tt[C_NODES] - start + 1
    if rep < ply:
        # settled on this line only: stored unsettled (its numbers steer, never decide)
        if k2 != 0:
            _vpn_store(k1, k2, tag, tag - tag + 1, tag - tag + 1, work, tt)
    elif tab == 0 and (pn == 0 or dn == 0):
        _vab_bound(h0, h1, att, sp, t, 1 if pn == 0 else 0, work, tt)
    elif k2 != 0:
        _vpn_store(k1, k2, tag, pn, dn, work, tt)
    tt[C_REP] = rep
    return pn, dn


@numba.njit(**JIT)
def _vpn_test(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, ply, base, tt):
    """``_vvs`` by the proof-number search: 1 when ``s >= t`` (t 0 or 1), else 0;
    meaningless when tt[C_CAPPED]."""
    tag = -(tt[C_STAMP] * 4 + t + 2)
    inf = t - t + PN_INF
    pn, dn = _vmid(h0, h1, tab, ub, natt, lim, tk, att, sp, x, t, inf, inf, ply, base, tag,
                   tt)
    return 1 if pn == 0 else 0

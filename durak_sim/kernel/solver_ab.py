"""The endgame solver's alpha-beta: the null-window score test ``_vs`` over the transposition
table, and the table's keys and entries, which the proof-number search (``solver_pn``) shares.

Inside the search
-----------------
State: ``h0, h1`` hands, ``tab`` every card on the table (attacks and defences), ``unb`` the
unbeaten attack card or -1, ``natt`` attacks so far, ``lim`` the limit, ``tk`` taking, ``att``
attacker, ``sp`` cards drawn from ``stock``, ``mn`` while taking: the lowest card that may still
be thrown in (throw-ins during a take are searched in increasing card order, so each set of
thrown cards is searched once; such nodes are never stored). The table stores bout starts
(keyed on both hands, the attacker and the cards left in the stock) and, within
``TT_SHALLOW`` plies of the root, bout nodes too (the whole state): they are the roots of the
deal's next calls. Deeper bout nodes transpose too rarely to pay for a probe. With an empty
stock a bout start's key is canonical: ranks holding no card of either hand are squeezed out
and the three non-trump suits sorted by their pattern, which renames cards without changing
any beat or rank match, so such positions are the same game (stored moves are renamed too).


Distance tests (``t >= 2``, ``t <= -1``) end at once when the threshold is past the deal's
end: a deal not over lasts at least one more ply, so ``t >= BIG`` fails and ``t <= 1 - BIG``
holds; this bounds the search of "wins within p plies" to depth p.


``_vs`` is compiled without numba's reference counting (``_nrt=False``): it allocates nothing,
and the count updates of the array argument at every call cost about half its time.
"""
import numba

from .bits import nth_nibble, popcount
from .config import JIT
from .solver_base import (BIG, C_CAP, C_CAPPED, C_MV, C_NODES, C_STAMP, C_STATIC,
                          C_STOCK_N, C_TRUMP, C_TT_CUTS, C_TT_MASK, M20, M28, MAX_PLY,
                          MOVES_PER_PLY, PH_ATTACK, PH_DEFEND, PH_OPEN, PH_TAKING, SMASK,
                          TT_SHALLOW, TT_WORDS, WORK, WORK_MAX, _hash, _ranks_mask,
                          _squeeze)
from .solver_rules import _child, _moves, _static


@numba.njit(inline="always", **JIT)
def _start_key(h0, h1, att, sp, tt):
    """The value search's keys of a bout start and its bucket (as ``_vs`` computes them)."""
    n = tt[C_STOCK_N]
    if sp == n:
        k1, key1, rmap = _squeeze(h0, h1, tt[C_TRUMP])
        k1 |= att << 36
    else:
        k1 = h0 | (att << 36) | ((n - sp) << 37)
        key1 = h1
    return k1, key1, WORK + (_hash(k1, key1) & tt[C_TT_MASK] & ~1) * TT_WORDS


@numba.njit(inline="always", **JIT)
def _bounds(h0, h1, att, sp, tt):
    """The bounds (lo, hi) on the score that the table holds for a bout start."""
    k1, key1, bucket = _start_key(h0, h1, att, sp, tt)
    stamp = tt[C_STAMP]
    d = -1
    if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
        d = tt[bucket + 3]
    elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
        d = tt[bucket + 7]
    if d < 0:
        return -BIG, BIG
    return (d & SMASK) - BIG, ((d >> 17) & SMASK) - BIG


@numba.njit(inline="always", **JIT)
def _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt):
    """The proof search's key of any state: both hands, the table, the attacks left
    (``lim - natt``: the limit matters only through it), the unbeaten card or, while taking,
    the lowest card that may still be thrown in, the attacker and the cards left in the stock."""
    if tab == 0 and sp == n:
        # an empty-stock bout start: the value search's canonical form (module docstring)
        k1, k2, rmap = _squeeze(h0, h1, tt[C_TRUMP])
        return k1 | (att << 36), k2
    x = unb + 1 if tk == 0 else 37 + mn
    rem = lim - natt if tab != 0 else 0
    k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
    k2 = h1 | ((tab >> 20) << 36) | (rem << 52) | (x << 55)
    return k1, k2


@numba.njit(inline="always", **JIT)
def _pn_probe(k1, k2, tag, tt):
    """The entry's slot (or -1) for key (k1, k2) under the proof search's tag."""
    bucket = WORK + (_hash(k1, k2) & tt[C_TT_MASK] & ~1) * TT_WORDS
    if tt[bucket + 2] == tag and tt[bucket] == k1 and tt[bucket + 1] == k2:
        return bucket
    if tt[bucket + 6] == tag and tt[bucket + 4] == k1 and tt[bucket + 5] == k2:
        return bucket + 4
    return -1


@numba.njit(inline="always", **JIT)
def _entry_work(slot, tt):
    """How much an entry is worth keeping: log2 of its node count for a live entry of either
    search, -1 for a stale one."""
    w = tt[slot + 2]
    if w == tt[C_STAMP]:
        x = tt[slot + 3] >> 41
        b = 0
        while x > 0:
            x >>= 1
            b += 1
        return b
    if w == -(tt[C_STAMP] * 4 + 2) or w == -(tt[C_STAMP] * 4 + 3):
        return (tt[slot + 3] >> 56) & 63
    return -1


@numba.njit(_nrt=False, **JIT)
def _vs(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, t, ply, tt):
    """1 when the score ``s`` of the state (module docstring) is >= t, else 0.

    ``t`` 1 / 0 are the value tests (seat 0 wins / does not lose); other thresholds test
    distances (``t >= 2``: seat 0 wins within ``BIG - t`` plies; ``t <= -1``: seat 0 does not
    lose within ``BIG + t - 1`` plies)."""
    tt[C_NODES] += 1
    if tt[C_CAPPED] != 0:
        return 0
    if tt[C_NODES] > tt[C_CAP] or ply >= MAX_PLY:
        tt[C_CAPPED] = 1
        return 0
    # distance tests: a deal not over yet lasts at least one more ply
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
    if tab == 0:
        phase = PH_OPEN
        mover = att
    elif tk != 0:
        phase = PH_TAKING
        mover = att
    elif unb >= 0:
        phase = PH_DEFEND
        mover = 1 - att
    else:
        phase = PH_ATTACK
        mover = att

    if sp == n:
        v = _static(ha, hd, tab, unb, natt, lim, att, mn, phase, tt)
        if v != 2:
            # a settled value gives the score's sign; S1 also its length (3 plies)
            if v == 0 or (v > 0 and t <= 1) or (v < 0 and t >= 0):
                tt[C_STATIC] += 1
                return 1 if v * BIG >= t else 0
            if phase == PH_OPEN and (ha & (ha - 1)) == 0:
                tt[C_STATIC] += 1
                return 1 if v * (BIG - 3) >= t else 0

    # transposition table: bout starts, and bout nodes near the root (module docstring)
    use_tt = phase == PH_OPEN or (phase != PH_TAKING and ply <= TT_SHALLOW)
    best = -1
    slot = 0
    k1 = 0
    lo = -BIG
    hi = BIG
    bucket = 0
    start = 0
    rmap = 0
    key1 = h1
    if use_tt:
        # with an empty stock, ranks with no live card are squeezed out of the key: positions
        # that differ only there are the same game up to renaming ranks (every beat and every
        # rank match is kept), so they share an entry; moves are stored squeezed too
        if phase != PH_OPEN:
            # inside a bout (near the root only): the whole state; lim >= 1 sets key1 apart
            k1 = h0 | ((tab & M20) << 36) | (att << 56) | ((n - sp) << 57)
            key1 = h1 | ((tab >> 20) << 36) | (lim << 52) | ((unb + 1) << 55)
        elif sp == n:
            k1, key1, rmap = _squeeze(h0, h1, tt[C_TRUMP])
            k1 |= att << 36
        else:
            k1 = h0 | (att << 36) | ((n - sp) << 37)
        bucket = WORK + (_hash(k1, key1) & tt[C_TT_MASK] & ~1) * TT_WORDS
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
            if lo >= t:
                tt[C_TT_CUTS] += 1
                return 1
            if hi < t:
                tt[C_TT_CUTS] += 1
                return 0
            best = ((d >> 34) & 127) - 1
            if best >= 0 and sp == n and phase == PH_OPEN:
                best = nth_nibble(best >> 2, _ranks_mask(h0 | h1)) \
                    | ((rmap >> (36 + 2 * (best & 3))) & 3)
        elif phase != PH_OPEN and (t == 0 or t == 1):
            # a bout node the proof-number search settled (an earlier call of the deal)
            p1, p2 = _pn_key(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, n, tt)
            ps = _pn_probe(p1, p2, -(tt[C_STAMP] * 4 + t + 2), tt)
            if ps >= 0:
                d = tt[ps + 3]
                if (d & M28) == 0:
                    tt[C_TT_CUTS] += 1
                    return 1
                if ((d >> 28) & M28) == 0:
                    tt[C_TT_CUTS] += 1
                    return 0

    base = C_MV + ply * MOVES_PER_PLY
    cnt = _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, best, base, tt)

    # ---- search; children test the threshold that makes this node's test succeed
    if t >= 2:
        ct = t + 1
    elif t <= -1:
        ct = t - 1
    else:
        ct = t
    maxnode = mover == 0
    result = 0 if maxnode else 1
    cut = -1
    for i in range(cnt):
        a = tt[base + i]
        c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term = _child(
            h0, h1, tab, unb, natt, lim, tk, att, sp, mn, a, tt)
        if term != 2:
            r = 1 if term * BIG >= ct else 0
        else:
            r = _vs(c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, ct, ply + 1, tt)
        if maxnode:
            if r != 0:
                result = 1
                cut = a
                break
        else:
            if r == 0:
                result = 0
                cut = a
                break
    if tt[C_CAPPED] != 0:
        return result
    if use_tt:
        if result != 0:
            if t > lo:
                lo = t
        else:
            if t - 1 < hi:
                hi = t - 1
        if cut < 0:
            cut = best
        if cut >= 0 and sp == n and phase == PH_OPEN:
            # the canonical card: its rank's index among the live ranks, its suit's slot
            cs = cut & 3
            for u in range(4):
                if ((rmap >> (36 + 2 * u)) & 3) == cs:
                    cs = u
                    break
            cut = (popcount(_ranks_mask(h0 | h1) & ((1 << (cut & ~3)) - 1)) >> 2 << 2) | cs
        work = min(tt[C_NODES] - start, WORK_MAX)
        if slot < 0:
            # replace a stale entry, else the one that took fewer nodes
            stamp = tt[C_STAMP]
            w0 = (tt[bucket + 3] >> 41) if tt[bucket + 2] == stamp else -1
            w1 = (tt[bucket + 7] >> 41) if tt[bucket + 6] == stamp else -1
            slot = bucket if w0 <= w1 else bucket + 4
        else:
            work = max(work, tt[slot + 3] >> 41)
        tt[slot] = k1
        tt[slot + 1] = key1
        tt[slot + 2] = tt[C_STAMP]
        tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 41)
    return result


@numba.njit(_nrt=False, **JIT)   # (not inlined: solver.SOLVER_VERSION)
def _ab_bound(h0, h1, att, sp, t, r, work, tt):
    """Record in the value search's entry of a bout start what a proof-number search proved
    about it: ``s >= t`` (r 1) or ``s < t`` (r 0)."""
    k1, key1, bucket = _start_key(h0, h1, att, sp, tt)
    stamp = tt[C_STAMP]
    lo = -BIG
    hi = BIG
    cut = -1
    if tt[bucket + 2] == stamp and tt[bucket] == k1 and tt[bucket + 1] == key1:
        slot = bucket
    elif tt[bucket + 6] == stamp and tt[bucket + 4] == k1 and tt[bucket + 5] == key1:
        slot = bucket + 4
    else:
        slot = -1
    if slot >= 0:
        d = tt[slot + 3]
        lo = (d & SMASK) - BIG
        hi = ((d >> 17) & SMASK) - BIG
        cut = ((d >> 34) & 127) - 1
        work = max(work, d >> 41)
    else:
        slot = bucket if _entry_work(bucket, tt) <= _entry_work(bucket + 4, tt) else bucket + 4
    if r != 0:
        lo = max(lo, t)
    else:
        hi = min(hi, t - 1)
    work = min(work, WORK_MAX)
    tt[slot] = k1
    tt[slot + 1] = key1
    tt[slot + 2] = stamp
    tt[slot + 3] = (lo + BIG) | ((hi + BIG) << 17) | ((cut + 1) << 34) | (work << 41)

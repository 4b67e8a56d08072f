"""The endgame solver's rules: the state after an action, the exact shortcuts, the move
lists in search order, the legal actions (``durak_sim.kernel.solver`` documents the search;
the state is ``solver_ab``'s).

Exact shortcuts (empty stock; each follows from R3-R5):
(S1) the attacker opens with his last card: he has no card to throw in, so the bout ends
after the defender's answer. He wins unless the defender beats it with the defender's own last
card (draw). Three plies. (S2) the defender holds one card that beats every attacker card:
the limit is 1, so he beats the opening card, the bout ends, he is out and the attacker is not.
(S3) the attacker holds a single rank, no more cards than the limit, and the defender more
cards than that: the attacker plays every card this bout (each matches the opening card's rank,
whatever the defender does), the defender cannot go out. (S4) while taking, every card the
attacker still holds may be thrown in: he throws them all and goes out; the taker holds cards.
(S5) the defender holds one card, it beats the unbeaten card, and no throw-in could follow it
(limit reached or no matching rank): he beats it and goes out (draw if the attacker has none).
(S6) against a defender's last card, an opening that card beats loses in three plies, the
quickest any line can end: such openings are not searched when another opening exists.
(S7) at a bout start no card of the defender beats any card of the attacker: the attacker
wins. He opens his non-trumps, then his trumps, each suit low to high, one card a bout; the
defender can never beat (a card he took is lower than or off-suit from every later one, and
no trump comes before the last non-trump), so he takes every bout, the attacker keeps the
attack and is out first. The next rules extend S7 (bout starts; the defender may beat the
cards the rules call "beatable"; "unbeatable": no card of his beats it):
(S8) at most one attacker card is beatable: he plays the others as in S7, the beatable one
last: the defender, who took at least one card, still holds a card when the attacker is out.
(S9) the beatable cards are all of one rank, no more of them than the limit of the last bout
(``min(6, nd + unbeatable)``), and fewer than the defender's cards then: the unbeatable ones
as in S7, then S3 with the rest (each matches the opening card's rank).
(S10) S8 or S9 after throwing in, in the bouts of S7 (the defender takes each), beatable cards
of an unbeatable card's rank that beat no unbeatable card (room ``min(6, nd) - 1`` a bout,
counted per rank): the defender can never beat a later card with them.
(S11) every defender card beats every attacker card and the attacker holds more cards than
the limit: the defender beats every attack (any card does); then either he is out and the
attacker is not, or he attacks with cards the attacker cannot beat (S7).

Equal-value reduction: two cards of one suit in the defender's hand with no live card (hands,
table, stock) between them, each the only live card of its rank, are interchangeable as a
defence: whatever follows is the same up to renaming the two cards (the one on the table is
either picked up with the other or discarded). Only the lower one is searched. The same is
not true of attacks (after a take the two cards are in different hands and one beats the
other), so attacks are never reduced; nor of cards whose rank has another live card (the rank
decides throw-ins). The optimal set is always taken over every legal action, unreduced.
"""
import numba

from .bits import lowest, popcount
from .config import JIT
from .solver_base import (A_DEFEND, A_STOP, A_TAKE, CARDS, C_BEAT, C_STOCK, C_STOCK_N,
                          C_SUFFIX, C_TRUMP, C_TRUMP_MASK, NIB0, PH_DEFEND, PH_OPEN,
                          PH_TAKING, SUIT0, _above, _below, _rank_counts, _ranks_mask)


@numba.njit(inline="always", **JIT)
def _refill(ha, hd, sp, ctx, n):
    """R4: the attacker draws up to six first, then the defender."""
    while sp < n and popcount(ha) < 6:
        ha |= 1 << ctx[C_STOCK + sp]
        sp += 1
    while sp < n and popcount(hd) < 6:
        hd |= 1 << ctx[C_STOCK + sp]
        sp += 1
    return ha, hd, sp


@numba.njit(inline="always", **JIT)
def _child(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, a, ctx):
    """The state after action ``a``; ``term`` is the deal's value if it ends there, else 2."""
    c0 = h0
    c1 = h1
    ctab = tab
    cunb = unb
    cnatt = natt
    clim = lim
    ctk = tk
    catt = att
    csp = sp
    cmn = mn
    term = 2
    if a < A_DEFEND:
        b = 1 << a
        if att == 0:
            c0 = h0 ^ b
        else:
            c1 = h1 ^ b
        ctab = tab | b
        cnatt = natt + 1
        if tab == 0:
            # opening (R3.1): the bout's limit is fixed now (R3.4)
            clim = min(6, popcount(h1 if att == 0 else h0))
            cunb = a
        elif tk == 0:
            cunb = a
        else:
            cmn = a + 1
    elif a < A_TAKE:
        b = 1 << (a - A_DEFEND)
        if att == 0:
            c1 = h1 ^ b
        else:
            c0 = h0 ^ b
        ctab = tab | b
        cunb = -1
    elif a == A_TAKE:
        ctk = 1
        cunb = -1
        cmn = 0
    else:
        # stop: the bout ends (R3.6 / R3.7), refill (R4), end check (R5)
        n = ctx[C_STOCK_N]
        ha = h0 if att == 0 else h1
        hd = h1 if att == 0 else h0
        if tk != 0:
            hd = hd | tab
        ha, hd, csp = _refill(ha, hd, sp, ctx, n)
        if att == 0:
            c0 = ha
            c1 = hd
        else:
            c0 = hd
            c1 = ha
        if tk == 0:
            catt = 1 - att
        ctab = 0
        cunb = -1
        cnatt = 0
        clim = 0
        ctk = 0
        cmn = 0
        if csp == n and (c0 == 0 or c1 == 0):
            if c0 == 0 and c1 == 0:
                term = 0
            elif c0 == 0:
                term = 1
            else:
                term = -1
    return c0, c1, ctab, cunb, cnatt, clim, ctk, catt, csp, cmn, term


@numba.njit(inline="always", **JIT)
def _static(ha, hd, tab, unb, natt, lim, att, mn, phase, ctx):
    """Exact value (seat 0's view) of a state with an empty stock when one of the rules
    S1-S5 or S7-S11 (module docstring) settles it, else 2."""
    win = 1 if att == 0 else -1  # the attacker wins
    if phase == PH_OPEN:
        nd = popcount(hd)
        na = popcount(ha)
        if na == 1:
            if nd == 1 and (hd & ctx[C_BEAT + lowest(ha)]) != 0:
                return 0
            return win                                               # S1
        trumps = ctx[C_TRUMP_MASK]
        # the attacker cards the defender can beat: below his top card of their suit, or
        # any non-trump when he holds a trump
        bt = ha & (_below(hd) | ((~trumps & CARDS) if (hd & trumps) != 0 else 0))
        if nd == 1 and bt == ha:
            return -win                                              # S2
        if (ha & ~(15 << (lowest(ha) & ~3))) == 0 and na <= min(6, nd) and nd > na:
            return win                                               # S3
        if na > min(6, nd) and bt == ha:
            # S11: does every defender card beat every attacker card?
            m = ha
            while m and (hd & ~ctx[C_BEAT + lowest(m)]) == 0:
                m &= m - 1
            if m == 0:
                return -win                                          # S11
        if (bt & (bt - 1)) == 0:
            return win                                               # S7, S8
        if (bt & ~(15 << (lowest(bt) & ~3))) == 0:
            nb = popcount(bt)
            nd2 = nd + na - nb
            if nb <= min(6, nd2) and nd2 > nb:
                return win                                           # S9
        # S10: S9 after throwing in, during the takes of the unbeatable cards, beatable
        # cards of their ranks that beat none of them
        un = ha & ~bt
        if un != 0 and nd > 1:
            # the cards that beat an unbeatable card
            bu = _above(un) | (trumps if (un & ~trumps) != 0 else 0)
            cand = bt & _ranks_mask(un) & ~bu
            room = min(6, nd) - 1
            dumped = 0
            while cand:
                rm = 15 << (lowest(cand) & ~3)
                if popcount(cand & rm) <= popcount(un & rm) * room:
                    dumped |= cand & rm
                cand &= ~rm
            rest = bt & ~dumped
            if (rest & (rest - 1)) == 0:
                return win                                           # S10
            if (rest & ~(15 << (lowest(rest) & ~3))) == 0:
                nb = popcount(rest)
                nd2 = nd + na - nb
                if nb <= min(6, nd2) and nd2 > nb:
                    return win                                       # S10
    elif phase == PH_TAKING:
        if natt + popcount(ha) <= lim and (ha & ~(_ranks_mask(tab) & ~((1 << mn) - 1))) == 0:
            return win                                               # S4
    elif phase == PH_DEFEND:
        if hd != 0 and (hd & (hd - 1)) == 0 and (hd & ctx[C_BEAT + unb]) != 0:
            if natt >= lim or (ha & _ranks_mask(tab | hd)) == 0:
                return 0 if ha == 0 else -win                        # S5
    return 2


@numba.njit(inline="always", **JIT)
def _emit(m, best, base, cnt, tt):
    """Append the cards of ``m``, low first, but ``best``; returns the new count."""
    while m:
        c = lowest(m)
        m &= m - 1
        if c != best:
            tt[base + cnt] = c
            cnt += 1
    return cnt


@numba.njit(inline="always", **JIT)
def _emit_defences(m, live, best, base, cnt, tt):
    """Append the defences with the cards of ``m``, low first, with the equal-value reduction
    (module docstring), but ``best``; returns the new count."""
    prev = -1
    prev_single = False
    while m:
        c = lowest(m)
        m &= m - 1
        single = (live & (15 << (c & ~3))) == (1 << c)
        if single and prev_single and \
                (live & ((1 << c) - (1 << (prev + 1)))) & (SUIT0 << (c & 3)) == 0:
            prev = c
            continue
        prev = c
        prev_single = single
        if A_DEFEND + c != best:
            tt[base + cnt] = A_DEFEND + c
            cnt += 1
    return cnt


@numba.njit(inline="always", **JIT)
def _moves(h0, h1, tab, unb, natt, lim, tk, att, sp, mn, phase, best, base, tt):
    """The moves to search, in search order, into tt[base:base+cnt]; returns cnt. ``best``
    (or -1) goes first. Includes the equal-value reduction of defences."""
    if att == 0:
        ha = h0
        hd = h1
    else:
        ha = h1
        hd = h0
    cnt = 0
    trumps = tt[C_TRUMP_MASK]
    if best >= 0:
        tt[base] = best
        cnt = 1
    if phase == PH_OPEN:
        hopen = ha
        if sp == tt[C_STOCK_N] and hd != 0 and (hd & (hd - 1)) == 0:
            # (S6) against a last card, an opening it beats loses at once (limit 1): skip those
            d = lowest(hd)
            beaten = (SUIT0 << (d & 3)) & ((1 << d) - 1)
            if (d & 3) == tt[C_TRUMP]:
                beaten |= ~trumps & CARDS
            if (ha & ~beaten) != 0:
                hopen = ha & ~beaten
        # non-trumps before trumps, low first; a card whose rank is single in the hand first
        for g in range(4):
            m = hopen & ~trumps if g < 2 else hopen & trumps
            while m:
                c = lowest(m)
                m &= m - 1
                if ((ha & (15 << (c & ~3))) == (1 << c)) == ((g & 1) == 0) and c != best:
                    tt[base + cnt] = c
                    cnt += 1
    elif phase == PH_DEFEND:
        # non-trumps before trumps, each: beaters of a rank the attacker lacks, then of a rank
        # he holds once, then the rest; low first; take last
        bt = hd & tt[C_BEAT + unb]
        live = h0 | h1 | tab | tt[C_SUFFIX + sp]
        rk = _ranks_mask(ha)
        # ranks of which the attacker holds two cards or more
        p1 = _rank_counts(ha)
        rk2 = (((p1 >> 1) | (p1 >> 2)) & NIB0) * 15
        nt = bt & ~trumps
        tr = bt & trumps
        cnt = _emit_defences(nt & ~rk, live, best, base, cnt, tt)
        cnt = _emit_defences(nt & rk & ~rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(nt & rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & ~rk, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & rk & ~rk2, live, best, base, cnt, tt)
        cnt = _emit_defences(tr & rk2, live, best, base, cnt, tt)
        if best != A_TAKE:
            tt[base + cnt] = A_TAKE
            cnt += 1
    else:
        # throw-ins (non-trumps first, low first), then stop
        if natt < lim:
            cand = ha & _ranks_mask(tab)
            if phase == PH_TAKING:
                cand &= ~((1 << mn) - 1)
        else:
            cand = 0
        cnt = _emit(cand & ~trumps, best, base, cnt, tt)
        cnt = _emit(cand & trumps, best, base, cnt, tt)
        if best != A_STOP:
            tt[base + cnt] = A_STOP
            cnt += 1

    return cnt


@numba.njit(**JIT)
def _legal(h0, h1, tab, unb, natt, lim, tk, att, ctx, out, o):
    """Every legal action, codes ascending, into out[o+1..]; the count into out[o]."""
    ha = h0 if att == 0 else h1
    hd = h1 if att == 0 else h0
    cnt = 0
    if tab == 0:
        m = ha
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = c
    elif tk == 0 and unb >= 0:
        m = hd & ctx[C_BEAT + unb]
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = A_DEFEND + c
        cnt += 1
        out[o + cnt] = A_TAKE
    else:
        m = ha & _ranks_mask(tab) if natt < lim else 0
        while m:
            c = lowest(m)
            m &= m - 1
            cnt += 1
            out[o + cnt] = c
        cnt += 1
        out[o + cnt] = A_STOP
    out[o] = cnt
    return cnt

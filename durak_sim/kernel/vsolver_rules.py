"""The variant search's rules: two-player endgames with transfers (R8.2) and multi-card leads
(R8.1), played exactly as the engines play them (rules E4-E6).

State (every value an int64; ``durak_sim.kernel.vsolver`` documents the search):
``h0, h1`` the hands; ``tab`` every card on the table; ``ub`` the unbeaten attack cards (a
mask, 0 while taking); ``natt`` attack cards so far (transfers included); ``lim`` the bout
limit; ``tk`` taking; ``att`` the main attacker (after a transfer, the transferring seat);
``sp`` cards drawn from the stock; ``x`` three small fields: ``x & X_FLOOR`` the lowest card
that may still join the lead or be thrown in while taking, ``X_LEAD`` the main attacker is
laying his lead (phase *lead*, E4), ``X_MD`` the defender is inside a round of several
unbeaten cards and has beaten at least one of them. The deal's rules are ``ctx[C_FLAGS]``
(``F_LEAD``, ``F_TRANSFER``: ``durak_sim.rules.FLAG_*``).

``_vchild`` is the engines' ``apply`` and ``_vlegal`` their legal list, code for code (the
tests compare them with the reference engine). ``_vmoves`` is what the search tries, a subset
that keeps the value of every state (``_vvs`` with a value test) and, with ``dist`` (the
distance tests of the preference order), the score (wins sooner, losses later) too:

* a lead is a set of cards of one rank: it is laid lowest card first (``X_FLOOR``), so each
  set is searched once; throw-ins during a take likewise (as the plain solver does).
* several unbeaten cards (a lead, a transfer): a full defence of them is a set of defence
  cards, whatever the order it was laid in, so the value search beats them in one fixed order
  (the target with the fewest beaters first). A take after some of them are beaten is never
  better for the defender than the take before the first (the same cards come back to him and
  the attacker may throw in more ranks), so inside the round (``X_MD``) the value search does
  not try it. The distance tests try every target and the take at each step (a take after a
  defence lasts longer).
* equal-value defences (the plain solver's reduction): of two cards of one suit with no live
  card between them, each the only live card of its rank, only the lower one.
* an opening that a defender's last card beats loses in three plies (the plain solver's S6).

Exact shortcuts (empty stock; ``_vstatic``): with multi-card leads and no transfer, every
rule of the plain solver (S1-S5, S7-S11): its wins for the attacker are strategies of single
cards, which the attacker still has, against a defender with no new option, and its wins for
the defender (S2, S11) face leads he beats card by card. With transfers S1, S2, S4 and S5;
the others (S3, S7-S11) let the defender take or beat where he might transfer, but S7 and S8
hold when he never can (S7', S8'): at most one attacker card is beatable, the others are of
ranks that differ from each other and from every card of the defender. He takes them one a
bout (nothing of his, nor any card he took, matches a later one's rank), and the beatable
card comes last, when the attacker holds no card to defend a transfer with.
"""
import numba

from .bits import lowest, popcount
from .config import JIT
from .solver_base import (A_DEFEND, A_STOP, A_TAKE, C_BEAT, C_STOCK, C_STOCK_N, C_SUFFIX,
                          C_TRUMP_MASK, CARDS, NIB0, PH_ATTACK, PH_DEFEND, PH_OPEN, PH_TAKING,
                          SUIT0, _below, _rank_counts, _ranks_mask)
from .solver_rules import _emit, _moves, _refill, _static

A_TRANSFER = 74
A_DONE = 110
A_DEFEND_AT = 256

#: the ruleset's bits in ``ctx[C_FLAGS]`` (``durak_sim.rules.FLAG_*``)
F_LEAD = 1
F_TRANSFER = 2
C_FLAGS = 11
#: the repetition check (transfers): the lowest ply a repetition in the subtree went back
#: to, and the number of bout starts on the line (``V_PATH``: 4 words each)
C_REP = 12
C_NSTART = 13
V_PATH = C_STOCK + 36
#: lines of the transfer game can be long (takes passing cards back and forth): the
#: search's depth limit, and its work area (the table's entries follow it)
V_MAX_PLY = 2000
V_WORK = 1 << 17

PH_LEAD = 4

X_FLOOR = 63
X_LEAD = 64
X_MD = 128

MAX_BOUT = 6


@numba.njit(**JIT)
def _vphase(tab, ub, tk, x):
    if tab == 0:
        return PH_OPEN
    if x & X_LEAD:
        return PH_LEAD
    if tk != 0:
        return PH_TAKING
    if ub != 0:
        return PH_DEFEND
    return PH_ATTACK


@numba.njit(**JIT)
def _transfers(ha, hd, tab, ub, natt, tk, ctx):
    """The cards the defender may transfer with (R8.2, E6): nothing of the bout beaten, not
    taking, one more attack card within six and the new defender's (the attacker's) hand."""
    if (ctx[C_FLAGS] & F_TRANSFER) == 0 or tk != 0 or ub != tab or natt + 1 > MAX_BOUT \
            or popcount(ha) < natt + 1:
        return tab - tab
    return hd & _ranks_mask(tab)


@numba.njit(**JIT)
def _vchild(h0, h1, tab, ub, natt, lim, tk, att, sp, x, a, ctx):
    """The state after action ``a`` (any legal code); ``term`` is the deal's value if it
    ends there, else 2."""
    ha = h0 if att == 0 else h1
    hd = h1 if att == 0 else h0
    ctab = tab
    cub = ub
    cnatt = natt
    clim = lim
    ctk = tk
    catt = att
    csp = sp
    cx = x - x
    term = 2
    if a < A_DEFEND:
        # an attack card: the opening, a card added to the lead, a throw-in
        b = 1 << a
        ha ^= b
        ctab = tab | b
        cnatt = natt + 1
        if tab == 0 or (x & X_LEAD) != 0:
            if tab == 0:
                clim = min(MAX_BOUT, popcount(hd))  # R3.4
            if (ctx[C_FLAGS] & F_LEAD) != 0 and cnatt < clim and \
                    (ha & (15 << (a & ~3))) != 0:
                cx = X_LEAD | (a + 1)  # E4: the lead may grow
            else:
                cub = ctab  # the lead ends by itself: every card of it is unbeaten
        elif tk == 0:
            cub = b
        else:
            cx = a + 1
    elif a < A_TAKE or a >= A_DEFEND_AT:
        if a < A_TAKE:
            c = a - A_DEFEND
            cub = 0
        else:
            tg = (a - A_DEFEND_AT) // 36
            c = a - A_DEFEND_AT - 36 * tg
            cub = ub & ~(1 << tg)
        b = 1 << c
        hd ^= b
        ctab = tab | b
        if cub != 0:
            cx = X_MD
    elif a == A_TAKE:
        ctk = 1
        cub = 0
    elif a == A_DONE:
        cub = tab
    elif a != A_STOP:
        # a transfer: the card joins the attack, the defender attacks, the attacker defends
        b = 1 << (a - A_TRANSFER)
        hd ^= b
        ctab = tab | b
        cnatt = natt + 1
        cub = ub | b
        catt = 1 - att
        clim = min(MAX_BOUT, popcount(ha))
    else:
        # stop: the bout ends (R3.6 / R3.7), the attacker draws first (R4), outs (R5, R7.5)
        n = ctx[C_STOCK_N]
        if tk != 0:
            hd |= tab
        ha, hd, csp = _refill(ha, hd, sp, ctx, n)
        if tk == 0:
            catt = 1 - att
        ctab = 0
        cub = 0
        cnatt = 0
        clim = 0
        ctk = 0
        if csp == n and (ha == 0 or hd == 0):
            if ha == 0 and hd == 0:
                term = 0
            elif ha == 0:
                term = 1 if att == 0 else -1
            else:
                term = -1 if att == 0 else 1
    if att == 0:
        c0 = ha
        c1 = hd
    else:
        c0 = hd
        c1 = ha
    return c0, c1, ctab, cub, cnatt, clim, ctk, catt, csp, cx, term


@numba.njit(**JIT)
def _put(m, code_base, out, cnt):
    while m:
        cnt += 1
        out[cnt] = code_base + lowest(m)
        m &= m - 1
    return cnt


@numba.njit(**JIT)
def _vlegal(h0, h1, tab, ub, natt, lim, tk, att, x, ctx, out, o):
    """Every legal action, codes ascending as the engines list them, into out[o+1..]; the
    count into out[o]."""
    ha = h0 if att == 0 else h1
    hd = h1 if att == 0 else h0
    phase = _vphase(tab, ub, tk, x)
    cnt = o
    if phase == PH_OPEN:
        cnt = _put(ha, 0, out, cnt)
    elif phase == PH_LEAD:
        if natt < lim:
            cnt = _put(ha & _ranks_mask(tab), 0, out, cnt)
        cnt += 1
        out[cnt] = A_DONE
    elif phase == PH_DEFEND:
        if (ub & (ub - 1)) == 0:
            cnt = _put(hd & ctx[C_BEAT + lowest(ub)], A_DEFEND, out, cnt)
        cnt += 1
        out[cnt] = A_TAKE
        cnt = _put(_transfers(ha, hd, tab, ub, natt, tk, ctx), A_TRANSFER, out, cnt)
        if (ub & (ub - 1)) != 0:
            m = ub
            while m:
                tg = lowest(m)
                m &= m - 1
                cnt = _put(hd & ctx[C_BEAT + tg], A_DEFEND_AT + 36 * tg, out, cnt)
    else:
        if natt < lim:
            cnt = _put(ha & _ranks_mask(tab), 0, out, cnt)
        cnt += 1
        out[cnt] = A_STOP
    out[o] = cnt - o
    return cnt - o


@numba.njit(**JIT)
def _vemit_defences(m, live, code, best, base, cnt, tt):
    """Append the defences ``code + c`` for the cards c of ``m``, low first, with the
    equal-value reduction, but ``best``; returns the new count."""
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
        if code + c != best:
            tt[base + cnt] = code + c
            cnt += 1
    return cnt


@numba.njit(**JIT)
def _vemit_target(hd, ha, tg, live, code, best, base, cnt, tt):
    """The defences of target ``tg`` in the plain solver's order: non-trumps before trumps,
    each: beaters of a rank the attacker lacks, then of a rank he holds once, then the rest."""
    trumps = tt[C_TRUMP_MASK]
    bt = hd & tt[C_BEAT + tg]
    rk = _ranks_mask(ha)
    p1 = _rank_counts(ha)
    rk2 = (((p1 >> 1) | (p1 >> 2)) & NIB0) * 15
    nt = bt & ~trumps
    tr = bt & trumps
    cnt = _vemit_defences(nt & ~rk, live, code, best, base, cnt, tt)
    cnt = _vemit_defences(nt & rk & ~rk2, live, code, best, base, cnt, tt)
    cnt = _vemit_defences(nt & rk2, live, code, best, base, cnt, tt)
    cnt = _vemit_defences(tr & ~rk, live, code, best, base, cnt, tt)
    cnt = _vemit_defences(tr & rk & ~rk2, live, code, best, base, cnt, tt)
    cnt = _vemit_defences(tr & rk2, live, code, best, base, cnt, tt)
    return cnt


@numba.njit(**JIT)
def _vmoves(h0, h1, tab, ub, natt, lim, tk, att, sp, x, phase, dist, best, base, tt):
    """The moves to search, in search order, into tt[base:base+cnt]; returns cnt. ``best``
    (or -1) goes first. ``dist``: for a distance test (module docstring)."""
    if phase == PH_OPEN or phase == PH_ATTACK or phase == PH_TAKING:
        return _moves(h0, h1, tab, -1, natt, lim, tk, att, sp, x & X_FLOOR, phase, best, base,
                      tt)
    ha = h0 if att == 0 else h1
    hd = h1 if att == 0 else h0
    cnt = 0
    if best >= 0:
        tt[base] = best
        cnt = 1
    if phase == PH_LEAD:
        # grow the lead (cards above the floor, low first), then end it
        if natt < lim:
            cand = ha & _ranks_mask(tab) & ~((1 << (x & X_FLOOR)) - 1)
            cnt = _emit(cand, best, base, cnt, tt)
        if best != A_DONE:
            tt[base + cnt] = A_DONE
            cnt += 1
        return cnt
    # defend
    live = h0 | h1 | tab | tt[C_SUFFIX + sp]
    if (ub & (ub - 1)) == 0:
        cnt = _vemit_target(hd, ha, lowest(ub), live, A_DEFEND, best, base, cnt, tt)
    elif dist:
        m = ub
        while m:
            tg = lowest(m)
            m &= m - 1
            cnt = _vemit_target(hd, ha, tg, live, A_DEFEND_AT + 36 * tg, best, base, cnt, tt)
    else:
        # one target: the one with the fewest beaters
        bt_n = 99
        tg = 0
        m = ub
        while m:
            u = lowest(m)
            m &= m - 1
            k = popcount(hd & tt[C_BEAT + u])
            if k < bt_n:
                bt_n = k
                tg = u
        cnt = _vemit_target(hd, ha, tg, live, A_DEFEND_AT + 36 * tg, best, base, cnt, tt)
    tr = _transfers(ha, hd, tab, ub, natt, tk, tt)
    while tr:
        c = lowest(tr)
        tr &= tr - 1
        if A_TRANSFER + c != best:
            tt[base + cnt] = A_TRANSFER + c
            cnt += 1
    if (dist or (x & X_MD) == 0) and best != A_TAKE:
        tt[base + cnt] = A_TAKE
        cnt += 1
    return cnt


@numba.njit(**JIT)
def _vstatic(ha, hd, tab, ub, natt, lim, att, x, phase, ctx):
    """Exact value (seat 0's view) of an empty-stock state when a shortcut settles it (module
    docstring), else 2."""
    if phase == PH_OPEN:
        if (ctx[C_FLAGS] & F_TRANSFER) == 0:
            return _static(ha, hd, tab, -1, natt, lim, att, 0, PH_OPEN, ctx)
        win = 1 if att == 0 else -1
        if (ha & (ha - 1)) == 0:
            if (hd & (hd - 1)) == 0 and (hd & ctx[C_BEAT + lowest(ha)]) != 0:
                return 0
            return win                                                   # S1
        trumps = ctx[C_TRUMP_MASK]
        bt = ha & (_below(hd) | ((~trumps & CARDS) if (hd & trumps) != 0 else 0))
        if (hd & (hd - 1)) == 0 and bt == ha:
            return -win                                                  # S2
        if (bt & (bt - 1)) == 0:
            un = ha & ~bt
            if (_rank_counts(un) & (NIB0 * 6)) == 0 and (hd & _ranks_mask(un)) == 0:
                return win                                               # S7', S8'
    elif phase == PH_TAKING:
        return _static(ha, hd, tab, -1, natt, lim, att, x & X_FLOOR, PH_TAKING, ctx)
    elif phase == PH_DEFEND and (ub & (ub - 1)) == 0:
        return _static(ha, hd, tab, lowest(ub), natt, lim, att, 0, PH_DEFEND, ctx)
    return 2

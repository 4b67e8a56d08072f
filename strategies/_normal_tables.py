"""``normal`` at every table but the two-player default game (strategies/normal.py's
docstring says what it does there): the general path ``_general``, inlined into
``normal.decide`` by numba.

numba caches ``normal.decide`` on normal.py's text alone: after an edit here, bump
``NORMAL_VERSION`` in normal.py (hard links it too).
"""

import numba

from durak_sim.actions import DEFEND, DEFEND_AT, DONE, STOP, SWAP, TAKE, TRANSFER
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.rng import rng_below
from durak_sim.observation import (O_BOUTS, O_BOUT_LIMIT, O_DEFENDER, O_DISCARD, O_ELIGIBLE,
                                   O_HAND, O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_N_HIST,
                                   O_N_UNBEATEN, O_PHASE, O_PLACES, O_PLAYERS, O_RULES, O_SEAT,
                                   O_STOCK, O_TABLE, O_TABLE_ATTACKS, O_TABLE_DEFENCES,
                                   O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN,
                                   PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP)
from durak_sim.rules import FLAG_PROSTOY, FLAG_TEAMS, FLAG_TRANSFER

from durak_sim.strategies._normal_core import *  # noqa: F401,F403 - weights, helpers


# ---- the general path: every table but the two-player default game ---------------------
@numba.njit(**INLINE)
def _cheapest_v(cards, ts, tpen):
    """The card of ``cards`` with the lowest value (ties: the lowest card); -1 if empty."""
    best = -1
    best_v = 1 << 30
    m = cards
    while m != 0:
        c = lowest(m)
        m &= m - 1
        v = _value(c, ts, tpen)
        if v < best_v:
            best_v = v
            best = c
    return best


@numba.njit(**INLINE)
def _hardest(cards, ts, tpen):
    """The card of ``cards`` with the highest value (ties: the highest card); -1 if empty."""
    best = -1
    best_v = -1
    m = cards
    while m != 0:
        c = lowest(m)
        m &= m - 1
        v = _value(c, ts, tpen)
        if v >= best_v:
            best_v = v
            best = c
    return best


@numba.njit(**INLINE)
def _plan(targets, hand, ts, tpen, gap_lim):
    """Beat several unbeaten cards (E5): the hardest target first, each with the cheapest
    free card that beats it. Returns ``(t, b, ta, ba, ok, worst, used)``: the first pair of
    the plan, the first pair whose beater costs less than ``gap_lim`` more than its target
    (-1 when none), whether every target is beaten, the largest such cost, the beaters."""
    t0 = -1
    b0 = -1
    ta = -1
    ba = -1
    ok = True
    worst = -(1 << 20)
    used = 0
    free = hand
    m = targets
    while m != 0:
        t = _hardest(m, ts, tpen)
        m &= ~(1 << t)
        b = _cheapest(free & _beaters(t, ts), ts)
        if b < 0:
            ok = False
            continue
        free &= ~(1 << b)
        used |= 1 << b
        gap = _value(b, ts, tpen) - _value(t, ts, tpen)
        if gap > worst:
            worst = gap
        if t0 < 0:
            t0 = t
            b0 = b
        if ta < 0 and gap < gap_lim:
            ta = t
            ba = b
    return t0, b0, ta, ba, ok, worst, used


@numba.njit(**INLINE)
def _defend_g(defences, hand, table, pool, unbeaten, n_attacks, limit, stock, take_min,
              forecast, ts, tpen):
    """``_defend`` with the throw-ins of every attacker (``pool``), forecast only when their
    cards are known exactly."""
    tr = _rank_fill(table)
    holds_any = False
    best = -1
    best_s = 1 << 30
    m = defences
    while m != 0:
        b = lowest(m)
        m &= m - 1
        s = 4 * _value(b, ts, tpen)
        if (tr >> b) & 1 == 0:
            s += NEWRANK_W * popcount(pool & (0xF << (b & ~3)))
        if forecast and _defence_holds(hand & ~(1 << b), pool, _rank_fill(table | (1 << b)),
                                       n_attacks, limit, ts):
            holds_any = True
            s -= 4 * SIM_W
        if s < best_s:
            best_s = s
            best = b
    if forecast:
        if not holds_any:
            return TAKE
    elif stock >= take_min:
        if (_value(best, ts, tpen) - _value(unbeaten, ts, tpen) >= TAKE_GAP
                and popcount(table) <= TAKE_TABLE):
            return TAKE
    return DEFEND + best


@numba.njit(**INLINE)
def _throw_in_g(attacks, opp_cards, taking, late, thr_take, ts, tpen):
    """``_throw_in`` with the threshold for a taker given."""
    if late:
        thr = 1 << 20
    elif taking:
        thr = thr_take
    else:
        thr = THROW_EARLY
    best = STOP
    best_s = 1 << 30
    m = attacks
    while m != 0:
        c = lowest(m)
        m &= m - 1
        v = _value(c, ts, tpen)
        if v <= thr:
            s = 4 * v
            if not taking and (_beaters(c, ts) & opp_cards) == 0:
                s -= 4 * NOBEAT_W
            if s < best_s:
                best_s = s
                best = c
    return best


@numba.njit(**INLINE)
def _prostoy_lead(hand, limit, thr, ts, tpen):
    """The best lead of three or five cards (R8.3) of ``hand`` whose cards are worth at most
    ``thr`` each: five (two pairs, or four of a rank, and the cheapest fifth) before three (a
    pair and the cheapest third), the cheapest pairs first. 0 when there is none."""
    cheap = 0
    m = hand
    while m != 0:
        c = lowest(m)
        m &= m - 1
        if _value(c, ts, tpen) <= thr:
            cheap |= 1 << c
    if limit < 3 or popcount(cheap) < 3:
        return 0
    # the two cheapest pairs: one pair per rank, a rank of four gives two
    p1 = 0
    p2 = 0
    v1 = 1 << 20
    v2 = 1 << 20
    for r in range(9):
        rm = cheap & (0xF << (4 * r))
        if popcount(rm) < 2:
            continue
        a = _cheapest_v(rm, ts, tpen)
        b = _cheapest_v(rm & ~(1 << a), ts, tpen)
        pair = (1 << a) | (1 << b)
        v = _value(a, ts, tpen) + _value(b, ts, tpen)
        if v < v1:
            p2 = p1
            v2 = v1
            p1 = pair
            v1 = v
        elif v < v2:
            p2 = pair
            v2 = v
        if popcount(rm) == 4:
            rest = rm & ~pair
            v = _value(lowest(rest), ts, tpen) + _value(lowest(rest & (rest - 1)), ts, tpen)
            if v < v2:
                p2 = rest
                v2 = v
                if v2 < v1:
                    p1, p2 = p2, p1
                    v1, v2 = v2, v1
    if p1 == 0:
        return 0
    if limit >= 5 and p2 != 0:
        fifth = _cheapest_v(cheap & ~p1 & ~p2, ts, tpen)
        if fifth >= 0:
            return p1 | p2 | (1 << fifth)
    third = _cheapest_v(cheap & ~p1, ts, tpen)
    return p1 | (1 << third)


@numba.njit(**INLINE)
def _open_g(hand, opp_cards, limit, exact, risk_w, ts, tpen):
    """``_open`` with the bout limit given and a cost of ``risk_w`` quarter-ranks for each
    card of its rank the defender may hold (it could transfer)."""
    best = -1
    best_s = 1 << 30
    m = hand
    while m != 0:
        c = lowest(m)
        m &= m - 1
        s = 4 * _value(c, ts, tpen)
        if (_beaters(c, ts) & opp_cards) == 0:
            s -= 4 * NOBEAT_W
        if risk_w != 0:
            s += risk_w * popcount(opp_cards & (0xF << (c & ~3)))
        if exact and _attack_wins(c, hand, opp_cards, limit, ts):
            s -= 4 * SIM_W
        if s < best_s:
            best_s = s
            best = c
    return best


@numba.njit(inline="always", **JIT)
def _general(obs, legal, hist, rng, mem):
    """normal at every table but the two-player default game (module docstring). Inlined
    into ``decide`` by numba (IR level): a call taking the arrays would cost the default game
    about 12% of its speed in reference counting around it."""
    me = obs[O_SEAT]
    ts = obs[O_TRUMP_SUIT]
    stock = obs[O_STOCK]
    nh = obs[O_N_HIST]
    players = obs[O_PLAYERS]
    rules = obs[O_RULES]
    prostoy = (rules & FLAG_PROSTOY) != 0
    teams = (rules & FLAG_TEAMS) != 0
    stale = DRAWN_MAX * players // 2  # cards drawn by all seats after which a lack is stale
    # -- the new history entries: what each seat seems not to hold --
    i = mem[M_POS]
    if i < nh:
        unb = mem[M_UNB]
        tk = mem[M_TK]
        pend = mem[M_PEND]
        while i < nh:
            e = hist[i]
            code = e & 0xFF
            s = (e >> 8) & 0xF
            add = 0
            if code < DEFEND:
                if tk != 0:
                    pend |= 1 << code  # a throw-in to a taker, or the next bout's lead
                else:
                    unb |= 1 << code
            elif code < TAKE:
                if tk != 0:  # the bout after a take: its lead came after the last stop
                    tk = 0
                    unb = pend
                    pend = 0
                t = (e >> 12) - 1
                if t >= 0:
                    unb &= ~(1 << t)
                    b = code - DEFEND
                    if b & 3 == t & 3:
                        add = (_NIB << (t & 3)) & ((1 << b) - 1) & ~((2 << t) - 1)
                    else:
                        add = (_NIB << (t & 3)) & ~((2 << t) - 1)
            elif code == TAKE:
                if tk != 0:
                    unb = pend
                if popcount(unb) == 1:  # nothing it held beat that card
                    add = _beaters(lowest(unb), ts)
                unb = 0
                pend = 0
                tk = 0 if prostoy else 1  # prostoy's take ends the bout (E7)
            elif code == STOP:
                pend = 0
            elif TRANSFER <= code < DONE:
                if tk != 0:
                    tk = 0
                    unb = pend
                    pend = 0
                unb |= 1 << (code - TRANSFER)
            if add != 0 and s != me:
                if mem[M_LACKS + s] == 0 or mem[M_LSTK + s] - stock > stale:
                    mem[M_LACKS + s] = 0
                    mem[M_LSTK + s] = stock
                mem[M_LACKS + s] |= add
            i += 1
        mem[M_UNB] = unb
        mem[M_TK] = tk
        mem[M_PEND] = pend
        mem[M_POS] = nh

    # -- what every other seat may hold --
    hand = obs[O_HAND]
    atk = obs[O_TABLE_ATTACKS]
    table = atk | obs[O_TABLE_DEFENCES]
    known_all = 0
    hid = 0  # seats holding cards it cannot name
    for s in range(players):
        if s != me:
            k = obs[O_KNOWN + s]
            known_all |= k
            if obs[O_HAND_SIZES + s] > popcount(k):
                hid |= 1 << s
    unseen = _FULL & ~hand & ~obs[O_DISCARD] & ~table & ~known_all
    if stock > 0 and obs[O_TRUMP_CARD] >= 0:
        unseen &= ~(1 << obs[O_TRUMP_CARD])
    solo = stock == 0 and popcount(hid) <= 1  # every hand is known exactly
    for s in range(players):
        k = obs[O_KNOWN + s]
        if s == me:
            p = 0
        elif (hid >> s) & 1 == 0:
            p = k
        elif solo:
            p = k | unseen
        elif mem[M_LSTK + s] - stock <= stale:
            p = k | (unseen & ~mem[M_LACKS + s])
        else:
            p = k | unseen
        mem[M_POSS + s] = p

    n_active = 0
    for s in range(players):
        if obs[O_PLACES + s] == 0:
            n_active += 1
    late = stock <= LATE_STOCK
    tpen = TRUMP_EARLY
    if late:
        tpen = TRUMP_LATE if n_active <= 2 else TRUMP_LATE_N
    attacks = 0
    defences = 0
    transfers = 0
    can_done = False
    can_swap = False
    n = legal[0]
    for k in range(1, n + 1):
        a = legal[k]
        if a < DEFEND:
            attacks |= 1 << a
        elif a < TAKE:
            defences |= 1 << (a - DEFEND)
        elif TRANSFER <= a < DONE:
            transfers |= 1 << (a - TRANSFER)
        elif a == DONE:
            can_done = True
        elif a == SWAP:
            can_swap = True

    d = obs[O_DEFENDER]
    phase = obs[O_PHASE]
    long_deal = obs[O_BOUTS] >= LONG_BOUTS
    if phase == PHASE_SWAP:
        act = SWAP if can_swap else legal[n]  # the higher trump (R8.5)
    elif phase == PHASE_DEFEND:
        elig = obs[O_ELIGIBLE] & ~(1 << me)
        pool = 0
        pool_known = 0
        for s in range(players):
            if (elig >> s) & 1:
                pool |= mem[M_POSS + s]
                pool_known |= obs[O_KNOWN + s]
        exact = stock == 0 and (hid & ~elig) == 0 and not long_deal
        if exact:
            pool = pool_known | unseen  # exactly the attackers' cards
        targets = 0
        for j in range(6):
            a = obs[O_TABLE + 2 * j]
            if a >= 0 and obs[O_TABLE + 2 * j + 1] < 0:
                targets |= 1 << a
        n_unb = obs[O_N_UNBEATEN]
        take_min = TAKE_MINSTOCK if n_active <= 2 else TAKE_MINSTOCK_N
        if prostoy:  # beat what is worth beating, take the rest (R8.3, E7)
            gap_lim = TAKE_GAP if stock >= take_min else 1 << 20
            t0, b0, ta, ba, ok, worst, used = _plan(targets, hand, ts, tpen, gap_lim)
            if ta < 0:
                act = TAKE
            elif n_unb > 1:
                act = DEFEND_AT + 36 * ta + ba
            else:
                act = DEFEND + ba
        elif n_unb <= 1:
            if defences != 0 and long_deal:
                act = DEFEND + _cheapest(defences, ts)
            elif defences == 0:
                act = TAKE
            else:
                act = _defend_g(defences, hand, table, pool, obs[O_UNBEATEN], obs[O_N_ATTACKS],
                                obs[O_BOUT_LIMIT], stock, take_min, exact, ts, tpen)
        else:
            t0, b0, ta, ba, ok, worst, used = _plan(targets, hand, ts, tpen, 1 << 20)
            if not ok:
                act = TAKE
            elif exact and not _defence_holds(hand & ~used, pool, _rank_fill(table | used),
                                              obs[O_N_ATTACKS], obs[O_BOUT_LIMIT], ts):
                act = TAKE
            elif (not long_deal and stock >= take_min and worst >= TAKE_GAP
                  and popcount(table) <= TAKE_TABLE_N):
                act = TAKE
            else:
                act = DEFEND_AT + 36 * t0 + b0
        # R8.2: pass the attack on with a plain card of the rank; with a trump only late in a
        # team game, where the attack goes on to an opponent (elsewhere it is kept to beat)
        plain_tr = transfers & ~(_NIB << ts)
        if plain_tr != 0:
            act = TRANSFER + _cheapest_v(plain_tr, ts, tpen)
        elif transfers != 0 and late and teams:
            act = TRANSFER + _cheapest_v(transfers, ts, tpen)
    elif phase == PHASE_OPEN:
        dn = obs[O_HAND_SIZES + d]
        limit = obs[O_BOUT_LIMIT]
        plan = 0
        if prostoy:  # R8.3: five cards, else three, of cheap cards
            plan = _prostoy_lead(attacks, limit, 1 << 20 if late else THROW_EARLY, ts, tpen)
        mem[M_PLAN] = plan
        if plan != 0:
            act = _cheapest_v(plan, ts, tpen)
        elif long_deal:  # break a cycle of takes between deterministic players
            j = rng_below(rng, popcount(attacks))
            m = attacks
            for _ in range(j):
                m &= m - 1
            act = lowest(m)
        else:
            dexact = (hid >> d) & 1 == 0 or solo
            risk = 0
            if (rules & FLAG_TRANSFER) != 0:  # where would a transfer land (R8.2)?
                nx = d
                for _ in range(players):
                    nx = nx + 1 if nx + 1 < players else 0
                    if obs[O_PLACES + nx] == 0 and (not teams or (nx & 1) != (d & 1)):
                        break
                if nx == me:
                    risk = TRISK_W
                elif teams and (nx & 1) == (me & 1):
                    risk = TRISK_TEAM_W
            act = _open_g(attacks, mem[M_POSS + d], limit if limit < dn else dn,
                          dexact and not prostoy, risk, ts, tpen)
    elif phase == PHASE_LEAD:
        act = -1
        plan = mem[M_PLAN]
        if prostoy:
            if plan != 0 and (plan & atk) == atk:
                nxt = plan & ~atk & attacks
                if nxt != 0:
                    act = _cheapest_v(nxt, ts, tpen)
        else:  # R8.1: more cards of the lead's rank while they are cheap
            c = _cheapest_v(attacks, ts, tpen)
            thr = 1 << 20 if late else LEAD_EARLY
            if c >= 0 and _value(c, ts, tpen) <= thr:
                act = c
        if act < 0:
            act = DONE if can_done else _cheapest_v(attacks, ts, tpen)
    elif attacks == 0:
        act = legal[n]  # stop
    else:
        act = _throw_in_g(attacks, mem[M_POSS + d], obs[O_TAKING] != 0, late,
                          THROWT_EARLY if n_active <= 2 else THROWT_N, ts, tpen)
    _hold(obs)
    _hold(legal)
    _hold(hist)
    _hold(rng)
    _hold(mem)
    return act

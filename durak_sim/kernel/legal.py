"""Legal actions of the kernel's state (docs/rules.md R3, R8, E2-E8): the leads of several
cards (R8.1, R8.3, E4) and the legal action lists.

``legal_set`` states the moves of the common phases as ``(mask, base, tail)`` (the codes
``base + c`` for every card ``c`` of ``mask``, then ``tail``), so that the batch player can
tell a forced action (E1) and pass the legal list without a general fill; the rarer phases
(a lead being laid, several unbeaten cards, transfers, the swap) go through
``fill_general``.
"""
import numba
import numpy as np

from ..actions import DEFEND, DEFEND_AT, DONE, KEEP, STOP, SWAP, TAKE, TRANSFER
from ..cards import N_CARDS, beaters_mask
from ..observation import PHASE_ATTACK, PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP
from ..rules import FLAG_PROSTOY, FLAG_TRANSFER
from .bits import lowest, popcount
from .config import JIT
from .intrinsics import hold
from .layout import *  # noqa: F401,F403 - the state layout is this module's vocabulary
from .seats import INLINE, _defender_of, _rank_cards

#: BEATERS[trump * 36 + card]: mask of the cards that beat ``card`` (R1.3)
BEATERS = np.array([beaters_mask(c, t) for t in range(4) for c in range(N_CARDS)], np.int64)
PROSTOY_LEAD = 5  # R8.3: leads of at most five cards

# --------------------------------------------------------------------------------------
# Leads of several cards (R8.1, R8.3, E4)
# --------------------------------------------------------------------------------------
@numba.njit(**JIT)
def _prostoy_reachable(lead, rest, most):
    """Whether ``lead`` plus cards of ``rest`` can make a prostoy pattern (R8.3: one card;
    three holding a pair; five holding two pairs, or four of a rank) of at most ``most``
    cards: ``(reachable, lead is already one)``."""
    k = popcount(lead)
    n_rest = popcount(rest)
    reach = False
    done = k == 1
    for size in (3, 5):
        if size < k or size > most:
            continue
        add = size - k
        if n_rest < add:
            continue
        best1 = 99   # the two smallest numbers of cards that make a pair of some rank
        best2 = 99
        four = False
        for r in range(9):
            m = np.int64(0xF) << (4 * r)
            ct = popcount(lead & m)
            cr = popcount(rest & m)
            need = max(0, 2 - ct)
            if need <= cr:
                if need < best1:
                    best2 = best1
                    best1 = need
                elif need < best2:
                    best2 = need
            need4 = max(0, 4 - ct)
            if need4 <= min(add, cr):
                four = True
        if size == 3:
            ok = best1 <= add
        else:
            ok = best1 + best2 <= add or four
        if ok:
            reach = True
            if add == 0:
                done = True
    return reach, done


@numba.njit(**JIT)
def lead_options(st):
    """``(cards the main attacker may add to the lead, whether it may end now)`` (E4)."""
    att = st[S_ATTACKER]
    hand = st[S_HANDS + att]
    lead = st[S_TATT]
    n_att = st[S_N_ATT]
    if st[S_FLAGS] & FLAG_PROSTOY:
        most = st[S_LIMIT]
        adds = np.int64(0)
        pool = hand & ~lead
        if n_att < most:
            c_mask = pool
            while c_mask:
                c = lowest(c_mask)
                c_mask &= c_mask - 1
                bit = np.int64(1) << c
                reach, _ = _prostoy_reachable(lead | bit, pool & ~bit, most)
                if reach:
                    adds |= bit
        _, done = _prostoy_reachable(lead, np.int64(0), n_att)
        hold(st)
        return adds, done
    adds = np.int64(0)
    if n_att < st[S_LIMIT]:
        adds = hand & _rank_cards(st[S_TABLE])
    hold(st)
    return adds, True


# --------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------
@numba.njit(**INLINE)
def _transfer_cards(st):
    """The cards the defender may transfer with now (R8.2, E6), as a mask."""
    if st[S_FLAGS] & FLAG_TRANSFER and st[S_TDEF] == 0 and st[S_TAKING] == 0:
        dfd = st[S_DEFENDER]
        new = _defender_of(st, dfd)
        n = st[S_N_ATT] + 1
        if n <= MAX_BOUT and st[S_HAND_SIZES + new] >= n:
            hold(st)
            return st[S_HANDS + dfd] & _rank_cards(st[S_TABLE])
    hold(st)
    return np.int64(0)


@numba.njit(**INLINE)
def legal_set(st):
    """The legal actions of the common phases as ``(mask, base, tail, general)``:
    ``base + c`` for every card ``c`` of ``mask`` (ascending), then ``tail`` unless -1;
    ``general`` when the phase needs ``fill_general`` instead."""
    phase = st[S_PHASE]
    general = False
    mask = np.int64(0)
    base = 0
    tail = -1
    if phase == PHASE_DEFEND:
        if st[S_N_UNBEATEN] == 1 and (st[S_FLAGS] & FLAG_TRANSFER) == 0:
            # R3.2: beat the one unbeaten card, or take
            mask = st[S_HANDS + st[S_DEFENDER]] & \
                BEATERS[st[S_TRUMP_SUIT] * N_CARDS + st[S_UNBEATEN]]
            base = DEFEND
            tail = TAKE
        else:
            general = True
    elif phase == PHASE_ATTACK:  # R3.3, R3.5, E2: the asked seat throws in or stops
        if st[S_N_ATT] < st[S_LIMIT]:
            mask = st[S_HANDS + st[S_TO_MOVE]] & st[S_TRANKS]
        tail = STOP
    elif phase == PHASE_OPEN:  # R3.1: any card
        mask = st[S_HANDS + st[S_ATTACKER]]
    else:
        general = True
    hold(st)
    return mask, base, tail, general


@numba.njit(**INLINE)
def _put_mask(legal, n, mask, base):
    while mask != 0:
        n += 1
        legal[n] = base + lowest(mask)
        mask &= mask - 1
    hold(legal)
    return n


@numba.njit(**JIT)
def fill_general(st, legal):
    """Write the legal actions of any phase into ``legal``; return their number."""
    phase = st[S_PHASE]
    n = 0
    if phase == PHASE_SWAP:  # E8
        legal[1] = SWAP
        legal[2] = KEEP
        n = 2
    elif phase == PHASE_LEAD:  # E4
        adds, done = lead_options(st)
        n = _put_mask(legal, 0, adds, 0)
        if done:
            n += 1
            legal[n] = DONE
    elif phase == PHASE_DEFEND:
        dfd = st[S_DEFENDER]
        hand = st[S_HANDS + dfd]
        trump = st[S_TRUMP_SUIT]
        if st[S_N_UNBEATEN] == 1:
            n = _put_mask(legal, 0, hand & BEATERS[trump * N_CARDS + st[S_UNBEATEN]], DEFEND)
        n += 1
        legal[n] = TAKE
        n = _put_mask(legal, n, _transfer_cards(st), TRANSFER)
        if st[S_N_UNBEATEN] > 1:  # E5: each defence names its target
            targets = st[S_UNBEATEN_MASK]
            while targets != 0:
                t = lowest(targets)
                targets &= targets - 1
                n = _put_mask(legal, n, hand & BEATERS[trump * N_CARDS + t],
                              DEFEND_AT + 36 * t)
    else:
        mask, base, tail, _ = legal_set(st)
        n = _put_mask(legal, 0, mask, base)
        if tail >= 0:
            n += 1
            legal[n] = tail
    legal[0] = n
    hold(st)
    hold(legal)
    return n


@numba.njit(**INLINE)
def fill_legal(legal, mask, base, tail):
    """Write the list form of a ``legal_set`` into ``legal``; return n."""
    n = popcount(mask)
    # the first 8 without a data-dependent branch (entries past n are scratch)
    for i in range(1, 9):
        legal[i] = base + lowest(mask)
        mask &= mask - 1
    i = 9
    while mask != 0:
        legal[i] = base + lowest(mask)
        mask &= mask - 1
        i += 1
    legal[n + 1] = tail
    if tail >= 0:
        n += 1
    legal[0] = n
    hold(legal)
    return n


@numba.njit(**INLINE)
def in_legal_set(code, mask, base, tail):
    c = code - base
    in_mask = (c >= 0) & (c < N_CARDS) & (((mask >> (c & 63)) & 1) != 0)
    return in_mask | ((tail >= 0) & (code == tail))


@numba.njit(**JIT)
def in_list(code, legal):
    for i in range(1, legal[0] + 1):
        if legal[i] == code:
            return True
    return False


@numba.njit(**JIT)
def generate_legal(st, legal):
    """Fill ``legal`` (``legal[0]`` = n, then codes ascending); return n."""
    mask, base, tail, general = legal_set(st)
    if general:
        return fill_general(st, legal)
    return fill_legal(legal, mask, base, tail)



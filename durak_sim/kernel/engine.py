"""The numba game kernel: the rules of docs/rules.md (R1-R9, E1-E13) on one ``int64`` state
array (layout in :mod:`durak_sim.kernel.layout`), for every table: two to six players,
teams, transfers, multi-card leads, prostoy, the trump-six swap, series dealers.

One implementation for every table: the table size and the ruleset's ``FLAG_*`` bits are
in the state, and the two-player default game takes the same code path as any other (its
common steps are the first branch of each test, so it pays little for the others).

Here: bouts, refills and the end of a deal; ``apply_action`` plays one action, ``deal_into``
deals and ``observe`` builds a seat's observation. Who is next, who defends and who may
throw in are :mod:`durak_sim.kernel.seats`; the legal actions (re-exported here) are
:mod:`durak_sim.kernel.legal`; the batch player is :mod:`durak_sim.kernel.batch`.

Speed: the helpers of the hot loop are ``forceinline`` (LLVM inlines them into it), and each
calls ``_hold`` on its array arguments at every exit so that numba's reference counting of
them (an atomic increment on entry and decrement after the last use) is pruned away instead
of costing two atomic operations per array per call.
"""
import numba
import numpy as np

from ..actions import (DEFEND, DEFEND_AT, DONE, HIST_SEAT_SHIFT, HIST_TARGET_SHIFT, STOP,
                       SWAP, TAKE, TRANSFER)
from ..cards import N_CARDS, SUIT_MASKS
from ..observation import (O_HAND, O_SEAT, O_TEAM, OBS_SIZE, PHASE_ATTACK, PHASE_DEFEND,
                           PHASE_LEAD, PHASE_OPEN, PHASE_SWAP)
from ..rules import FLAG_LEAD_MULTIPLE, FLAG_PROSTOY, FLAG_SWAP, FLAG_TEAMS
from .bits import lowest, popcount
from .config import JIT
from .intrinsics import copy_obs, hold
from .layout import *  # noqa: F401,F403 - the state layout is this module's vocabulary
from .legal import (BEATERS, PROSTOY_LEAD, fill_general, fill_legal, generate_legal,  # noqa: F401
                    in_legal_set, in_list, lead_options, legal_set)
from .rng import rng_below, stream_start
from .seats import (INLINE, TEAM_SEATS, _after, _defender_of, _eligible,  # noqa: F401
                    _next_asked, _next_of, _rank_cards)

TRUMP_MASKS = np.array(SUIT_MASKS, np.int64)


@numba.njit(**JIT)
def new_state():
    return np.zeros(S_SIZE, np.int64)


# --------------------------------------------------------------------------------------
# Bouts
# --------------------------------------------------------------------------------------
@numba.njit(**INLINE)
def _clear_table(st):
    """No bout under way: an empty table (phase open)."""
    st[S_PHASE] = PHASE_OPEN
    st[S_TAKING] = 0
    st[S_N_ATT] = 0
    st[S_TATT] = 0
    st[S_TDEF] = 0
    st[S_TRANKS] = 0
    st[S_UNBEATEN] = -1
    st[S_UNBEATEN_MASK] = 0
    st[S_N_UNBEATEN] = 0
    for i in range(2 * MAX_BOUT):
        st[S_TABLE + i] = -1
    hold(st)


@numba.njit(**INLINE)
def _start_bout(st, att, dfd):
    st[S_ATTACKER] = att
    st[S_DEFENDER] = dfd
    _clear_table(st)
    st[S_TO_MOVE] = att
    most = PROSTOY_LEAD if st[S_FLAGS] & FLAG_PROSTOY else MAX_BOUT
    st[S_LIMIT] = min(most, st[S_HAND_SIZES + dfd])  # R3.4, R8.3
    st[S_ELIGIBLE] = _eligible(st, att, dfd)
    hold(st)


@numba.njit(**INLINE)
def _draw(st, seat, top, stock_n):
    """Seat ``seat`` draws up to the hand target (R4.1, R4.2); returns ``(top, stock_n)``."""
    need = st[S_HAND_TARGET] - st[S_HAND_SIZES + seat]
    h = st[S_HANDS + seat]
    while need > 0 and stock_n > 0:
        c = st[S_STOCK + top]
        top += 1
        stock_n -= 1
        h |= np.int64(1) << c
        need -= 1
        st[S_HAND_SIZES + seat] += 1
        if stock_n == 0:   # the face-up trump, drawn last: public (R2.2, E9)
            st[S_KNOWN + seat] |= np.int64(1) << c
    st[S_HANDS + seat] = h
    hold(st)
    return top, stock_n


@numba.njit(**INLINE)
def _go_out(st, seat):
    n = st[S_N_OUT]
    st[S_OUT + n] = seat
    st[S_N_OUT] = n + 1
    st[S_PLACES + seat] = n + 1
    st[S_ACTIVE] &= ~(np.int64(1) << seat)
    hold(st)


@numba.njit(**JIT)
def _finish(st, first_out_now):
    """Whether the deal is over after the outs of a bout (E11); if so, its result is set.
    ``first_out_now``: index in the out list of the first seat out after this bout."""
    active = st[S_ACTIVE]
    players = st[S_PLAYERS]
    n_out = st[S_N_OUT]
    over = False
    if st[S_FLAGS] & FLAG_TEAMS:
        left0 = active & TEAM_SEATS[0]
        left1 = active & TEAM_SEATS[1]
        if left0 == 0 or left1 == 0:
            over = True
            if left0 == 0 and left1 == 0:
                st[S_DURAK_TEAM] = -1
            else:
                st[S_DURAK_TEAM] = 1 if left0 == 0 else 0
                for s in range(players):   # the losing team's members share the last place
                    if (active >> s) & 1:
                        st[S_PLACES + s] = n_out + 1
    else:
        left = popcount(active)
        if left <= 1:
            over = True
            if left == 1:
                durak = lowest(active)
                st[S_DURAK] = durak
                st[S_PLACES + durak] = n_out + 1
    if over and st[S_DURAK] < 0 and st[S_DURAK_TEAM] < 0 and first_out_now < n_out:
        place = st[S_PLACES + st[S_OUT + first_out_now]]   # a draw: they share a place
        for k in range(first_out_now, n_out):
            st[S_PLACES + st[S_OUT + k]] = place
    hold(st)
    return over


@numba.njit(**JIT)
def _cap_draw(st):
    """E12: the deal ends as a draw; the seats still active share the next place."""
    st[S_CAPPED] = 1
    st[S_DURAK] = -1
    st[S_DURAK_TEAM] = -1
    place = st[S_N_OUT] + 1
    for s in range(st[S_PLAYERS]):
        if (st[S_ACTIVE] >> s) & 1:
            st[S_PLACES + s] = place
    hold(st)


@numba.njit(**INLINE)
def _next_bout(st, candidate):
    """Start the next bout from the seat that should attack (E10)."""
    if (st[S_ACTIVE] >> candidate) & 1:
        att = candidate
        dfd = _defender_of(st, att)
    elif st[S_FLAGS] & FLAG_TEAMS:   # its next active partner, from the out seat's place
        att = _next_of(st, candidate, candidate & 1)
        dfd = _next_of(st, candidate, 2 + (att & 1))
    else:
        att = _next_of(st, candidate, -1)
        dfd = _next_of(st, att, -1)
    _start_bout(st, att, dfd)
    hold(st)


@numba.njit(**INLINE)
def _end_bout(st):
    att = st[S_ATTACKER]
    dfd = st[S_DEFENDER]
    players = st[S_PLAYERS]
    table = st[S_TATT] | st[S_TDEF]
    if st[S_TAKING]:
        # R3.7: the defender picks up the bout; in prostoy only its unbeaten cards (E7)
        picked = st[S_UNBEATEN_MASK] if st[S_FLAGS] & FLAG_PROSTOY else table
        st[S_HANDS + dfd] |= picked
        st[S_KNOWN + dfd] |= picked
        st[S_HAND_SIZES + dfd] += popcount(picked)
        st[S_DISCARD] |= table & ~picked
        candidate = _after(dfd, players)   # R7.4: the defender is skipped
    else:  # R3.6: discard, the defender attacks next
        st[S_DISCARD] |= table
        candidate = dfd
    top = st[S_STOCK_TOP]
    stock_n = st[S_STOCK_N]
    if stock_n > 0:  # E9: the main attacker, the others from him on, the defender last
        top, stock_n = _draw(st, att, top, stock_n)
        k = _after(att, players)
        while k != att:
            if k != dfd and (st[S_ACTIVE] >> k) & 1:
                top, stock_n = _draw(st, k, top, stock_n)
            k = _after(k, players)
        top, stock_n = _draw(st, dfd, top, stock_n)
        st[S_STOCK_TOP] = top
        st[S_STOCK_N] = stock_n
    st[S_BOUTS] += 1
    over = False
    if stock_n == 0:  # R5.1, R7.5: empty hands go out, in seat order from the attacker
        first_now = st[S_N_OUT]
        k = att
        for _ in range(players):
            if (st[S_ACTIVE] >> k) & 1 and st[S_HANDS + k] == 0:
                _go_out(st, k)
            k = _after(k, players)
        if st[S_N_OUT] > first_now:
            over = _finish(st, first_now)
    if not over and st[S_NHIST] >= PLAY_CAP:   # E12: a draw among the seats still active
        over = True
        _cap_draw(st)
    if over:   # the table's cards are in the discard or a hand now; the last bout's
        st[S_OVER] = 1   # attacker, defender, limit and eligible seats stay
        st[S_TO_MOVE] = -1
        _clear_table(st)
    else:
        _next_bout(st, candidate)
    hold(st)


# --------------------------------------------------------------------------------------
# Playing an action
# --------------------------------------------------------------------------------------
@numba.njit(**INLINE)
def _lay(st, seat, card):
    """Card ``card`` leaves ``seat``'s hand for the table (public from now on)."""
    bit = np.int64(1) << card
    st[S_HANDS + seat] &= ~bit
    st[S_KNOWN + seat] &= ~bit
    st[S_HAND_SIZES + seat] -= 1
    st[S_SEEN] |= bit
    st[S_TRANKS] |= _rank_cards(card)
    hold(st)


@numba.njit(**INLINE)
def _attack_card(st, seat, card):
    _lay(st, seat, card)
    i = st[S_N_ATT]
    st[S_TABLE + 2 * i] = card
    st[S_N_ATT] = i + 1
    st[S_TATT] |= np.int64(1) << card
    # every attack card is unbeaten when laid: lead cards, throw-ins after a take too
    # (O_N_UNBEATEN counts the unbeaten attack cards on the table, docs/observation.md)
    st[S_UNBEATEN_MASK] |= np.int64(1) << card
    st[S_N_UNBEATEN] += 1
    hold(st)


@numba.njit(**INLINE)
def _to_defence(st):
    """The defender answers the unbeaten cards (``S_UNBEATEN_MASK``, set by the caller):
    the first of them in play order is ``S_UNBEATEN``."""
    st[S_PHASE] = PHASE_DEFEND
    st[S_TO_MOVE] = st[S_DEFENDER]
    unbeaten = st[S_UNBEATEN_MASK]
    for i in range(MAX_BOUT):
        c = st[S_TABLE + 2 * i]
        if c >= 0 and (unbeaten >> c) & 1:
            st[S_UNBEATEN] = c
            break
    hold(st)


@numba.njit(**INLINE)
def _after_lead_card(st):
    """After the opening card or a card added to the lead (E4): the lead goes on, or waits
    for the defender."""
    if st[S_FLAGS] & (FLAG_LEAD_MULTIPLE | FLAG_PROSTOY):
        adds, _ = lead_options(st)
        if adds != 0:
            st[S_PHASE] = PHASE_LEAD
            hold(st)
            return
    n = st[S_N_ATT]
    st[S_N_UNBEATEN] = n
    if n == 1:
        c = st[S_TABLE]
        st[S_UNBEATEN_MASK] = np.int64(1) << c
        st[S_UNBEATEN] = c
        st[S_PHASE] = PHASE_DEFEND
        st[S_TO_MOVE] = st[S_DEFENDER]
    else:
        st[S_UNBEATEN_MASK] = st[S_TATT]
        _to_defence(st)
    hold(st)


@numba.njit(**INLINE)
def _beat(st, card, target):
    """The defender beats ``target`` with ``card`` (R3.2, E5)."""
    _lay(st, st[S_DEFENDER], card)
    i = st[S_N_ATT] - 1
    if st[S_TABLE + 2 * i] != target:
        for j in range(MAX_BOUT):
            if st[S_TABLE + 2 * j] == target:
                i = j
    st[S_TABLE + 2 * i + 1] = card
    st[S_TDEF] |= np.int64(1) << card
    st[S_UNBEATEN_MASK] &= ~(np.int64(1) << target)
    left = st[S_N_UNBEATEN] - 1
    st[S_N_UNBEATEN] = left
    if left > 0:
        _to_defence(st)
    elif st[S_FLAGS] & FLAG_PROSTOY:  # E7: every card beaten ends the bout
        st[S_UNBEATEN] = -1
        _end_bout(st)
    else:  # E2: the attackers are asked, the main attacker first
        st[S_UNBEATEN] = -1
        st[S_PHASE] = PHASE_ATTACK
        st[S_TO_MOVE] = st[S_ATTACKER]
    hold(st)


@numba.njit(**JIT)
def _transfer(st, card):
    """The defender transfers with ``card`` (R8.2, E6)."""
    dfd = st[S_DEFENDER]
    new = _defender_of(st, dfd)
    _attack_card(st, dfd, card)
    st[S_ATTACKER] = dfd
    st[S_DEFENDER] = new
    st[S_LIMIT] = min(MAX_BOUT, st[S_HAND_SIZES + new])
    st[S_ELIGIBLE] = _eligible(st, dfd, new)
    _to_defence(st)
    hold(st)


@numba.njit(**JIT)
def _swap(st, code):
    """The trump six's holder swaps it for the face-up card, or keeps it (R8.5, E8)."""
    if code == SWAP:
        seat = st[S_TO_MOVE]
        six = st[S_TRUMP_SUIT]   # rank 0 of the trump suit
        up = st[S_TRUMP_CARD]
        st[S_HANDS + seat] ^= (np.int64(1) << six) | (np.int64(1) << up)
        st[S_KNOWN + seat] |= np.int64(1) << up
        st[S_STOCK + st[S_STOCK_TOP] + st[S_STOCK_N] - 1] = six
        st[S_TRUMP_CARD] = six
        st[S_SEEN] |= np.int64(1) << six
    st[S_PHASE] = PHASE_OPEN
    st[S_TO_MOVE] = st[S_ATTACKER]
    hold(st)


@numba.njit(**INLINE)
def apply_action(st, code, hist):
    """Play ``code`` (assumed legal) by the seat to move and append it to ``hist``."""
    nh = st[S_NHIST]
    seat = st[S_TO_MOVE]
    st[S_NHIST] = nh + 1
    entry = code | seat << HIST_SEAT_SHIFT
    if code < DEFEND:  # attack: open (R3.1), add to the lead (E4), throw in (R3.3, E2)
        phase = st[S_PHASE]
        _attack_card(st, seat, code)
        if phase == PHASE_ATTACK:
            if st[S_TAKING]:   # R3.5: not answered; a new round of asking
                st[S_TO_MOVE] = st[S_ATTACKER]
            else:
                st[S_UNBEATEN] = code
                st[S_UNBEATEN_MASK] = np.int64(1) << code
                st[S_N_UNBEATEN] = 1
                st[S_PHASE] = PHASE_DEFEND
                st[S_TO_MOVE] = st[S_DEFENDER]
        else:
            _after_lead_card(st)
    elif code < TAKE:  # defend the one unbeaten card (R3.2)
        target = st[S_UNBEATEN]
        entry |= (target + 1) << HIST_TARGET_SHIFT
        _beat(st, code - DEFEND, target)
    elif code == TAKE:  # R3.5; in prostoy the bout ends (E7)
        st[S_TAKING] = 1
        st[S_UNBEATEN] = -1
        if st[S_FLAGS] & FLAG_PROSTOY:
            _end_bout(st)
        else:
            st[S_PHASE] = PHASE_ATTACK
            st[S_TO_MOVE] = st[S_ATTACKER]
    elif code == STOP:  # E2: the next eligible seat is asked; the bout ends after the last
        nxt = _next_asked(st, seat)
        if nxt < 0:
            _end_bout(st)
        else:
            st[S_TO_MOVE] = nxt
    elif code < DONE:
        _transfer(st, code - TRANSFER)
    elif code == DONE:
        st[S_N_UNBEATEN] = st[S_N_ATT]
        st[S_UNBEATEN_MASK] = st[S_TATT]
        _to_defence(st)
    elif code < DEFEND_AT:
        _swap(st, code)
    else:  # E5: a defence that names its target
        target = (code - DEFEND_AT) // 36
        card = code - DEFEND_AT - 36 * target
        entry = (DEFEND + card) | seat << HIST_SEAT_SHIFT | (target + 1) << HIST_TARGET_SHIFT
        _beat(st, card, target)
    hist[nh] = entry
    hold(st)
    hold(hist)


# --------------------------------------------------------------------------------------
# The deal and the observation
# --------------------------------------------------------------------------------------
@numba.njit(**INLINE)
def deal_into(st, seed, deal_index, deck_stream, players, hand_target, flags, dealer,
              first_deal, rng):
    """Shuffle and deal into ``st`` (R2, R9.1, the seed contract): the deck of stream
    ``deck_stream`` of (``seed``, ``deal_index``), dealt from the seat after ``dealer``;
    a ``first_deal`` settles its first attacker by R2.3 (and may start with the swap, E8),
    a later deal of a series by R9.1."""
    for i in range(S_SIZE):
        st[i] = 0
    rng[0] = stream_start(seed, deal_index, deck_stream)
    for i in range(N_CARDS):
        st[S_DECK + i] = i
    for j in range(N_CARDS - 1, 0, -1):  # Fisher-Yates, seeding.py
        r = rng_below(rng, j + 1)
        t = st[S_DECK + j]
        st[S_DECK + j] = st[S_DECK + r]
        st[S_DECK + r] = t
    n = hand_target * players
    s = _after(dealer, players)
    for k in range(n):  # R2.1: one at a time, from the seat after the dealer
        st[S_HANDS + s] |= np.int64(1) << st[S_DECK + k]
        s = _after(s, players)
    if n < N_CARDS:  # R2.2: the next card face up, drawn last
        face_up = st[S_DECK + n]
        k = 0
        for i in range(n + 1, N_CARDS):
            st[S_STOCK + k] = st[S_DECK + i]
            k += 1
        st[S_STOCK + k] = face_up
        st[S_STOCK_N] = k + 1
    else:  # R2.2: six of six: the last card dealt, in the dealer's hand, is known
        face_up = st[S_DECK + N_CARDS - 1]
        st[S_KNOWN + dealer] = np.int64(1) << face_up
    for s in range(players):
        st[S_HAND_SIZES + s] = hand_target
    st[S_PLAYERS] = players
    st[S_HAND_TARGET] = hand_target
    st[S_FLAGS] = flags
    st[S_DEALER] = dealer
    st[S_TRUMP_CARD] = face_up
    st[S_FACE_UP] = face_up
    trump = face_up & 3
    st[S_TRUMP_SUIT] = trump
    st[S_SEEN] = np.int64(1) << face_up
    st[S_ACTIVE] = (np.int64(1) << players) - 1
    st[S_DURAK] = -1
    st[S_DURAK_TEAM] = -1
    st[S_SWAPPER] = -1
    if first_deal:  # R2.3: the lowest trump in a hand attacks first, else seat 0
        all_trumps = np.int64(0)
        for s in range(players):
            all_trumps |= st[S_HANDS + s]
        all_trumps &= TRUMP_MASKS[trump]
        first = 0
        if all_trumps != 0:
            low = np.int64(1) << lowest(all_trumps)
            for s in range(players):
                if st[S_HANDS + s] & low:
                    first = s
    else:
        first = _after(dealer, players)
    st[S_FIRST] = first
    _start_bout(st, first, _defender_of(st, first))
    if first_deal and flags & FLAG_SWAP and st[S_STOCK_N] > 0 and face_up >> 2 != 0:
        six = np.int64(1) << trump   # E8: the trump six's holder decides first
        for s in range(players):
            if st[S_HANDS + s] & six:
                st[S_SWAPPER] = s
                st[S_PHASE] = PHASE_SWAP
                st[S_TO_MOVE] = s
    hold(st)
    hold(rng)


@numba.njit(**JIT)
def deal(st, seed, deal_index, deck_stream, players, hand_target, flags, dealer, first_deal):
    """``deal_into`` with a random stream of its own (tests, replay)."""
    deal_into(st, seed, deal_index, deck_stream, players, hand_target, flags, dealer,
              first_deal, np.empty(1, np.uint64))


@numba.njit(**INLINE)
def to_move(st):
    """The seat that acts next, -1 when the deal is over."""
    return st[S_TO_MOVE]


@numba.njit(**INLINE)
def observe(st, seat, obs):
    """Fill ``obs`` with what ``seat`` may see (R6); see ``durak_sim.observation``."""
    copy_obs(obs, st)  # the public fields, kept at the same indices in st
    obs[O_SEAT] = seat
    obs[O_HAND] = st[S_HANDS + seat]
    obs[19] = 0
    obs[O_TEAM] = seat & 1 if st[S_FLAGS] & FLAG_TEAMS else -1
    hold(st)
    hold(obs)


assert OBS_SIZE == 64

"""The numba game kernel: plays whole deals of RULES.md R1-R6 between compiled strategies.

A game's whole state is one ``int64`` array ``st`` of ``S_SIZE`` entries (layout below), so
that the same functions serve the batch player, single-step tests, perft and replay.
Cards and masks as in ``durak_sim.cards`` (card = rank * 4 + suit, int64 masks).

State layout (``st[...]``):

=================  ===========================================================
``S_PLAYERS``      number of seats (2 today; the layout holds up to 6)
``S_HAND_SIZE``    cards per hand after dealing and refills (R2.1, R4.1)
``S_TRUMP_SUIT``   trump suit; ``S_TRUMP_CARD`` the face-up trump card (R2.2)
``S_ATTACKER``     attacking seat of the current bout; ``S_DEFENDER`` its defender
``S_PHASE``        PHASE_OPEN / PHASE_ATTACK / PHASE_DEFEND (``durak_sim.observation``)
``S_TAKING``       1 once the defender has said take (R3.5)
``S_N_ATT``        attack cards played this bout; ``S_LIMIT`` the bout limit (R3.4)
``S_TATT/S_TDEF``  masks of attack / defence cards on the table
``S_TRANKS``       mask of every card whose rank is on the table (throw-in candidates, R3.3)
``S_UNBEATEN``     the attack card the defender must answer (PHASE_DEFEND), else -1
``S_DISCARD``      discard pile; ``S_SEEN`` every card ever open (table, face-up trump)
``S_BOUTS``        completed bouts; ``S_NHIST`` actions played
``S_OVER``         1 when the deal has ended; ``S_DURAK`` the Durak seat or -1 (draw)
``S_FIRST``        first attacker (R2.3); ``S_N_OUT``/``S_OUT+k`` seats that went out
``S_STOCK_TOP``    index of the next card to draw in ``S_STOCK``; ``S_STOCK_END`` its end
``S_HANDS+s``      hand of seat s; ``S_KNOWN+s`` cards s took up and has not played since,
                   plus the face-up trump once s drew it (public knowledge, R6.1)
``S_TABLE+2i``     i-th attack card of the bout, ``S_TABLE+2i+1`` the card beating it (-1)
``S_STOCK+k``      the stock in draw order, face-up trump last (R2.2, R4.1)
``S_DECK+k``       the shuffled deck as dealt (kept for records)
=================  ===========================================================
"""
import numba
import numpy as np

from ..actions import DEFEND, HIST_SEAT_SHIFT, HIST_TARGET_SHIFT, STOP, TAKE
from ..cards import N_CARDS, SUIT_MASKS, beaters_mask
from ..observation import (MAX_SEATS, O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEFENDER,
                           O_DISCARD, O_HAND, O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_N_HIST,
                           O_PHASE, O_PLAYERS, O_SEAT, O_SEEN, O_STOCK, O_TABLE,
                           O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD,
                           O_TRUMP_SUIT, O_UNBEATEN, OBS_SIZE, PHASE_ATTACK, PHASE_DEFEND,
                           PHASE_OPEN)
from .bits import lowest, popcount
from .config import JIT
from .rng import rng_below, stream_start

S_PLAYERS = 0
S_HAND_SIZE = 1
S_TRUMP_SUIT = 2
S_TRUMP_CARD = 3
S_ATTACKER = 4
S_DEFENDER = 5
S_PHASE = 6
S_TAKING = 7
S_N_ATT = 8
S_LIMIT = 9
S_TATT = 10
S_TDEF = 11
S_TRANKS = 12
S_UNBEATEN = 13
S_DISCARD = 14
S_SEEN = 15
S_BOUTS = 16
S_NHIST = 17
S_OVER = 18
S_DURAK = 19
S_FIRST = 20
S_N_OUT = 21
S_OUT = 22  # .. 27
S_STOCK_TOP = 28
S_STOCK_END = 29
S_HANDS = 32  # .. 37
S_KNOWN = S_HANDS + MAX_SEATS  # 38 .. 43
S_TABLE = S_KNOWN + MAX_SEATS  # 44 .. 55
S_STOCK = S_TABLE + 12  # 56 .. 91
S_DECK = S_STOCK + N_CARDS  # 92 .. 127
S_SIZE = S_DECK + N_CARDS  # 128

MAX_BOUT = 6  # R3.4

#: BEATERS[trump * 36 + card]: mask of the cards that beat ``card`` (R1.3)
BEATERS = np.array([beaters_mask(c, t) for t in range(4) for c in range(N_CARDS)], np.int64)
TRUMP_MASKS = np.array(SUIT_MASKS, np.int64)

# batch result columns (one row per game)
R_OUTCOME = 0  # 0 a Durak, 1 a draw
R_DURAK = 1  # Durak seat or -1
R_FIRST = 2  # first attacker
R_BOUTS = 3
R_CARDS_LEFT = 4  # cards in the Durak's hand at the end (0 on a draw)
R_N_ACTIONS = 5
R_DECISIONS = 6  # strategy calls (forced actions are not asked)
R_ERROR = 7  # 0 fine, ERR_ILLEGAL, ERR_TOO_LONG
R_ERROR_SEAT = 8
R_ERROR_ACTION = 9
R_N_OUT = 10
R_OUT = 11  # .. 16
R_COLS = 17

ERR_ILLEGAL = 1
ERR_TOO_LONG = 2

#: capacity of the action history of one game; no game of these rules comes near it
MAX_ACTIONS = 4096


@numba.njit(**JIT)
def new_state():
    return np.full(S_SIZE, -1, np.int64)


@numba.njit(**JIT)
def _start_bout(st, attacker, defender):
    st[S_ATTACKER] = attacker
    st[S_DEFENDER] = defender
    st[S_PHASE] = PHASE_OPEN
    st[S_TAKING] = 0
    st[S_N_ATT] = 0
    st[S_TATT] = 0
    st[S_TDEF] = 0
    st[S_TRANKS] = 0
    st[S_UNBEATEN] = -1
    st[S_LIMIT] = min(MAX_BOUT, popcount(st[S_HANDS + defender]))  # R3.4
    for i in range(2 * MAX_BOUT):
        st[S_TABLE + i] = -1


@numba.njit(**JIT)
def deal(st, seed, deal_index, players, hand_size):
    """Shuffle and deal deal ``deal_index`` of ``seed`` into ``st`` (R2, seed contract)."""
    for i in range(S_SIZE):
        st[i] = 0
    rng = np.empty(1, np.uint64)
    rng[0] = stream_start(seed, deal_index, np.int64(0))
    for i in range(N_CARDS):
        st[S_DECK + i] = i
    for j in range(N_CARDS - 1, 0, -1):  # Fisher-Yates, seeding.py
        r = rng_below(rng, j + 1)
        t = st[S_DECK + j]
        st[S_DECK + j] = st[S_DECK + r]
        st[S_DECK + r] = t
    n = hand_size * players
    for k in range(n):  # R2.1: one at a time, in seat order
        st[S_HANDS + k % players] |= np.int64(1) << st[S_DECK + k]
    face_up = st[S_DECK + n]  # R2.2
    k = 0
    for i in range(n + 1, N_CARDS):
        st[S_STOCK + k] = st[S_DECK + i]
        k += 1
    st[S_STOCK + k] = face_up
    st[S_STOCK_TOP] = 0
    st[S_STOCK_END] = k + 1
    st[S_PLAYERS] = players
    st[S_HAND_SIZE] = hand_size
    st[S_TRUMP_CARD] = face_up
    trump = face_up & 3
    st[S_TRUMP_SUIT] = trump
    st[S_SEEN] = np.int64(1) << face_up
    st[S_DURAK] = -1
    # R2.3: the holder of the lowest trump attacks first, else seat 0
    all_trumps = 0
    for s in range(players):
        all_trumps |= st[S_HANDS + s]
    all_trumps &= TRUMP_MASKS[trump]
    first = 0
    if all_trumps != 0:
        low = np.int64(1) << lowest(all_trumps)
        for s in range(players):
            if st[S_HANDS + s] & low:
                first = s
    st[S_FIRST] = first
    _start_bout(st, first, (first + 1) % players)  # R2.4


@numba.njit(**JIT)
def to_move(st):
    """The seat that acts next, -1 when the deal is over."""
    if st[S_OVER]:
        return -1
    if st[S_PHASE] == PHASE_DEFEND:
        return st[S_DEFENDER]
    return st[S_ATTACKER]


@numba.njit(**JIT)
def _push_bits(legal, n, mask, base):
    while mask != 0:
        c = lowest(mask)
        n += 1
        legal[n] = base + c
        mask &= mask - 1
    return n


@numba.njit(**JIT)
def generate_legal(st, legal):
    """Fill ``legal`` (``legal[0]`` = n, then codes ascending); return n."""
    phase = st[S_PHASE]
    n = 0
    if phase == PHASE_OPEN:  # R3.1: any card, opening is compulsory
        n = _push_bits(legal, n, st[S_HANDS + st[S_ATTACKER]], 0)
    elif phase == PHASE_DEFEND:  # R3.2: beat the one unbeaten card, or take
        beat = st[S_HANDS + st[S_DEFENDER]] & BEATERS[st[S_TRUMP_SUIT] * N_CARDS + st[S_UNBEATEN]]
        n = _push_bits(legal, n, beat, DEFEND)
        n += 1
        legal[n] = TAKE
    else:  # R3.3 / R3.5: throw in a matching rank within the limit (R3.4), or stop
        if st[S_N_ATT] < st[S_LIMIT]:
            n = _push_bits(legal, n, st[S_HANDS + st[S_ATTACKER]] & st[S_TRANKS], 0)
        n += 1
        legal[n] = STOP
    legal[0] = n
    return n


@numba.njit(**JIT)
def _rank_cards(card):
    return np.int64(0xF) << (4 * (card >> 2))


@numba.njit(**JIT)
def _end_bout(st):
    att = st[S_ATTACKER]
    dfd = st[S_DEFENDER]
    players = st[S_PLAYERS]
    table = st[S_TATT] | st[S_TDEF]
    if st[S_TAKING]:  # R3.7: the defender picks everything up and skips the next attack
        st[S_HANDS + dfd] |= table
        st[S_KNOWN + dfd] |= table
        next_att = att
    else:  # R3.6: discard, the defender attacks next
        st[S_DISCARD] |= table
        next_att = dfd
    # R4.1/R4.2: attacker draws first, then the defender, the face-up trump last
    top = st[S_STOCK_TOP]
    end = st[S_STOCK_END]
    hand_size = st[S_HAND_SIZE]
    for k in range(2):
        s = att if k == 0 else dfd
        h = st[S_HANDS + s]
        need = hand_size - popcount(h)
        while need > 0 and top < end:
            c = st[S_STOCK + top]
            top += 1
            h |= np.int64(1) << c
            need -= 1
            if top == end:  # the face-up trump: everyone saw who drew it
                st[S_KNOWN + s] |= np.int64(1) << c
        st[S_HANDS + s] = h
    st[S_STOCK_TOP] = top
    st[S_BOUTS] += 1
    over = False
    if top == end:  # R5.1: only after a whole bout and its refill, only with no stock
        empty_att = st[S_HANDS + att] == 0
        empty_def = st[S_HANDS + dfd] == 0
        if empty_att or empty_def:
            over = True
            n_out = 0
            if empty_att:  # out order: in seat order from the bout's attacker
                st[S_OUT + n_out] = att
                n_out += 1
            if empty_def:
                st[S_OUT + n_out] = dfd
                n_out += 1
            st[S_N_OUT] = n_out
            if empty_att and empty_def:  # R5.2: both out in the same bout, a draw
                st[S_DURAK] = -1
            elif empty_att:
                st[S_DURAK] = dfd
            else:
                st[S_DURAK] = att
    _start_bout(st, next_att, (next_att + 1) % players)
    if over:
        st[S_OVER] = 1


@numba.njit(**JIT)
def apply_action(st, code, hist):
    """Play ``code`` (assumed legal) and append it to ``hist``."""
    nh = st[S_NHIST]
    if code < DEFEND:  # attack: open (R3.1) or throw in (R3.3, R3.5)
        att = st[S_ATTACKER]
        bit = np.int64(1) << code
        st[S_HANDS + att] &= ~bit
        st[S_KNOWN + att] &= ~bit
        i = st[S_N_ATT]
        st[S_TABLE + 2 * i] = code
        st[S_N_ATT] = i + 1
        st[S_TATT] |= bit
        st[S_TRANKS] |= _rank_cards(code)
        st[S_SEEN] |= bit
        if st[S_TAKING] == 0:
            st[S_PHASE] = PHASE_DEFEND
            st[S_UNBEATEN] = code
        else:
            st[S_PHASE] = PHASE_ATTACK
        hist[nh] = code | att << HIST_SEAT_SHIFT
    elif code < TAKE:  # defend the unbeaten card (R3.2)
        dfd = st[S_DEFENDER]
        card = code - DEFEND
        bit = np.int64(1) << card
        st[S_HANDS + dfd] &= ~bit
        st[S_KNOWN + dfd] &= ~bit
        st[S_TABLE + 2 * st[S_N_ATT] - 1] = card
        st[S_TDEF] |= bit
        st[S_TRANKS] |= _rank_cards(card)
        st[S_SEEN] |= bit
        hist[nh] = code | dfd << HIST_SEAT_SHIFT | (st[S_UNBEATEN] + 1) << HIST_TARGET_SHIFT
        st[S_UNBEATEN] = -1
        st[S_PHASE] = PHASE_ATTACK
    elif code == TAKE:  # R3.5: the attacker may still throw in
        hist[nh] = code | st[S_DEFENDER] << HIST_SEAT_SHIFT
        st[S_TAKING] = 1
        st[S_UNBEATEN] = -1
        st[S_PHASE] = PHASE_ATTACK
    else:  # STOP ends the bout
        hist[nh] = code | st[S_ATTACKER] << HIST_SEAT_SHIFT
        st[S_NHIST] = nh + 1
        _end_bout(st)
        return
    st[S_NHIST] = nh + 1


@numba.njit(**JIT)
def observe(st, seat, obs):
    """Fill ``obs`` with what ``seat`` may see (R6); see ``durak_sim.observation``."""
    players = st[S_PLAYERS]
    obs[O_SEAT] = seat
    obs[O_PLAYERS] = players
    obs[O_TRUMP_SUIT] = st[S_TRUMP_SUIT]
    obs[O_TRUMP_CARD] = st[S_TRUMP_CARD]
    obs[O_HAND] = st[S_HANDS + seat]
    obs[O_ATTACKER] = st[S_ATTACKER]
    obs[O_DEFENDER] = st[S_DEFENDER]
    obs[O_PHASE] = st[S_PHASE]
    obs[O_TABLE_ATTACKS] = st[S_TATT]
    obs[O_TABLE_DEFENCES] = st[S_TDEF]
    obs[O_UNBEATEN] = st[S_UNBEATEN]
    obs[O_N_ATTACKS] = st[S_N_ATT]
    obs[O_BOUT_LIMIT] = st[S_LIMIT]
    obs[O_TAKING] = st[S_TAKING]
    obs[O_STOCK] = st[S_STOCK_END] - st[S_STOCK_TOP]
    obs[O_DISCARD] = st[S_DISCARD]
    obs[O_SEEN] = st[S_SEEN]
    obs[O_BOUTS] = st[S_BOUTS]
    obs[O_N_HIST] = st[S_NHIST]
    obs[19] = 0
    for s in range(MAX_SEATS):
        if s < players:
            obs[O_HAND_SIZES + s] = popcount(st[S_HANDS + s])
            obs[O_KNOWN + s] = st[S_KNOWN + s]
        else:
            obs[O_HAND_SIZES + s] = 0
            obs[O_KNOWN + s] = 0
    for i in range(2 * MAX_BOUT):
        obs[O_TABLE + i] = st[S_TABLE + i]


@numba.njit(**JIT)
def _is_legal(legal, code):
    for k in range(1, legal[0] + 1):
        if legal[k] == code:
            return True
    return False


@numba.njit(**JIT)
def play_one(st, seed, deal_index, players, hand_size, fns, rot, resets,
             obs, legal, hist, rngs, mems, row):
    """Play one whole game; write its result into ``row`` (R_* columns).

    Seat ``s`` is played by ``fns[(s + rot) % players]``; its random stream is
    ``(seed, deal_index, s)`` and its workspace ``mems[s]``.
    """
    deal(st, seed, deal_index, players, hand_size)
    for s in range(players):
        rngs[s, 0] = stream_start(seed, deal_index, np.int64(1 + s))
        mem = mems[s]
        mem[0] += 1  # a new game stamp (observation.py contract)
        for i in range(1, resets[(s + rot) % players]):
            mem[i] = 0
    decisions = 0
    err = 0
    err_seat = -1
    err_action = -1
    while st[S_OVER] == 0:
        n = generate_legal(st, legal)
        seat = to_move(st)
        if n == 1:  # forced: the strategy is not asked (actions.py contract)
            code = legal[1]
        else:
            observe(st, seat, obs)
            code = fns[(seat + rot) % players](obs, legal, hist, rngs[seat], mems[seat])
            decisions += 1
            if not _is_legal(legal, code):
                err = ERR_ILLEGAL
                err_seat = seat
                err_action = code
                break
        if st[S_NHIST] >= hist.shape[0]:
            err = ERR_TOO_LONG
            err_seat = seat
            break
        apply_action(st, code, hist)
    durak = st[S_DURAK]
    row[R_OUTCOME] = 1 if durak < 0 else 0
    row[R_DURAK] = durak
    row[R_FIRST] = st[S_FIRST]
    row[R_BOUTS] = st[S_BOUTS]
    row[R_CARDS_LEFT] = popcount(st[S_HANDS + durak]) if durak >= 0 else 0
    row[R_N_ACTIONS] = st[S_NHIST]
    row[R_DECISIONS] = decisions
    row[R_ERROR] = err
    row[R_ERROR_SEAT] = err_seat
    row[R_ERROR_ACTION] = err_action
    row[R_N_OUT] = st[S_N_OUT]
    for k in range(MAX_SEATS):
        row[R_OUT + k] = st[S_OUT + k] if k < st[S_N_OUT] else -1


@numba.njit(**JIT)
def play_range(seed, deals, rots, fns, players, hand_size, mem_size, resets, lo, hi,
               results, record, rec_actions, rec_decks):
    """Play games ``lo..hi-1`` of a batch serially with buffers of its own.

    With ``record`` each game's history is copied to ``rec_actions[g]`` and its deck to
    ``rec_decks[g]`` (both with one row per game; ignored otherwise).
    """
    st = np.empty(S_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    legal = np.zeros(64, np.int64)
    hist = np.zeros(MAX_ACTIONS, np.int64)
    rngs = np.zeros((players, 1), np.uint64)
    mems = np.zeros((players, mem_size), np.int64)
    for g in range(lo, hi):
        play_one(st, seed, deals[g], players, hand_size, fns, rots[g], resets,
                 obs, legal, hist, rngs, mems, results[g])
        if record:
            n = min(st[S_NHIST], rec_actions.shape[1])
            for k in range(n):
                rec_actions[g, k] = hist[k]
            for k in range(N_CARDS):
                rec_decks[g, k] = st[S_DECK + k]


@numba.njit(parallel=True, **JIT)
def play_batch(seed, deals, rots, fns, players, hand_size, mem_size, resets, n_chunks,
               results, record, rec_actions, rec_decks):
    """Play every game of a batch, ``n_chunks`` chunks in parallel. Game ``g`` is deal
    ``deals[g]`` with rotation ``rots[g]``; its results land in ``results[g]`` whatever the
    chunking or the thread count, so the output is the same for any of them."""
    n = deals.shape[0]
    for c in numba.prange(n_chunks):
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        play_range(seed, deals, rots, fns, players, hand_size, mem_size, resets, lo, hi,
                   results, record, rec_actions, rec_decks)

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

``st[:OBS_SIZE]`` mirrors the observation: every entry the observation copies as it is sits at
the index of its ``O_*`` name, so ``observe`` is one block copy plus the acting seat's own
fields, which overwrite the slots that hold other state (``S_HAND_SIZE``, ``S_TRANKS``,
``S_STOCK_TOP``, ``S_STOCK_END`` and ``S_OVER`` .. ``S_N_OUT``). Seats past ``S_PLAYERS`` hold
no cards and know none (``deal`` zeroes the state).

Speed (``play_range`` runs ~100 actions per deal): the helpers of the hot loop are
``forceinline`` (LLVM inlines them into it), and each calls ``_hold`` on its array arguments
at every exit so that numba's reference counting of them (an atomic increment on entry and
decrement after the last use) is pruned away instead of costing two atomic operations per
array per call.
"""
import os

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

if os.environ.get("NUMBA_DISABLE_JIT", "0") == "1":  # pragma: no cover - exercised in a CI job

    def _hold(a):
        pass

    def _copy_obs(dst, src):
        dst[:OBS_SIZE] = src[:OBS_SIZE]

    def _fetch_add(counter, value):
        old = counter[0]
        counter[0] += value
        return old

else:
    from llvmlite import ir
    from numba.core import types as nbtypes
    from numba.extending import intrinsic

    @intrinsic
    def _hold(typingctx, a):
        """No code: keeps the array ``a`` alive up to here. A helper calls it on its array
        arguments at every exit, so that numba's reference counting of them (an incref on
        entry, a decref after the last use, atomic operations both) is one pair that its
        refcount pruning removes, and not a pair per call in the hot loop."""
        sig = nbtypes.void(a)

        def codegen(context, builder, signature, args):
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def _copy_obs(typingctx, dst, src):
        """``dst[:OBS_SIZE] = src[:OBS_SIZE]`` as 4-word vector moves (the arrays may alias
        as far as LLVM knows, so a loop would copy word by word)."""
        sig = nbtypes.void(dst, src)

        def codegen(context, builder, signature, args):
            d = context.make_array(signature.args[0])(context, builder, args[0])
            s = context.make_array(signature.args[1])(context, builder, args[1])
            vp = ir.VectorType(ir.IntType(64), 4).as_pointer()
            for k in range(0, OBS_SIZE, 4):
                at = [ir.Constant(ir.IntType(64), k)]
                v = builder.load(builder.bitcast(builder.gep(s.data, at), vp), align=8)
                builder.store(v, builder.bitcast(builder.gep(d.data, at), vp), align=8)
            return context.get_dummy_value()

        return sig, codegen

    assert OBS_SIZE % 4 == 0

    @intrinsic
    def _fetch_add(typingctx, counter, value):
        """Atomically add ``value`` to ``counter[0]``; return the value before."""
        sig = nbtypes.int64(counter, nbtypes.int64)

        def codegen(context, builder, signature, args):
            c = context.make_array(signature.args[0])(context, builder, args[0])
            return builder.atomic_rmw("add", c.data, args[1], "monotonic")

        return sig, codegen


# st[:OBS_SIZE] mirrors the observation (module docstring)
S_HAND_SIZE = O_SEAT  # 0
S_PLAYERS = O_PLAYERS  # 1
S_TRUMP_SUIT = O_TRUMP_SUIT  # 2
S_TRUMP_CARD = O_TRUMP_CARD  # 3
S_TRANKS = O_HAND  # 4
S_ATTACKER = O_ATTACKER  # 5
S_DEFENDER = O_DEFENDER  # 6
S_PHASE = O_PHASE  # 7
S_TATT = O_TABLE_ATTACKS  # 8
S_TDEF = O_TABLE_DEFENCES  # 9
S_UNBEATEN = O_UNBEATEN  # 10
S_N_ATT = O_N_ATTACKS  # 11
S_LIMIT = O_BOUT_LIMIT  # 12
S_TAKING = O_TAKING  # 13
S_STOCK_TOP = O_STOCK  # 14
S_DISCARD = O_DISCARD  # 15
S_SEEN = O_SEEN  # 16
S_BOUTS = O_BOUTS  # 17
S_NHIST = O_N_HIST  # 18
S_STOCK_END = 19
S_OVER = O_HAND_SIZES  # 20
S_DURAK = O_HAND_SIZES + 1  # 21
S_FIRST = O_HAND_SIZES + 2  # 22
S_N_OUT = O_HAND_SIZES + 3  # 23
S_KNOWN = O_KNOWN  # 26 .. 31
S_TABLE = O_TABLE  # 32 .. 43
S_HANDS = OBS_SIZE  # 44 .. 49
S_OUT = S_HANDS + MAX_SEATS  # 50 .. 55
S_STOCK = S_OUT + MAX_SEATS  # 56 .. 91
S_DECK = S_STOCK + N_CARDS  # 92 .. 127
S_SIZE = S_DECK + N_CARDS  # 128
assert O_HAND_SIZES + 4 <= O_KNOWN and S_DECK + N_CARDS == S_SIZE

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
R_ERROR = 7  # 0 fine, ERR_ILLEGAL, ERR_TOO_LONG, ERR_STOPPED
R_ERROR_SEAT = 8
R_ERROR_ACTION = 9
R_N_OUT = 10
R_OUT = 11  # .. 16
R_COLS = 17

ERR_ILLEGAL = 1
ERR_TOO_LONG = 2
ERR_STOPPED = 3  # not played: the stop flag was set before the game began

#: capacity of the action history of one game; no game of these rules comes near it
MAX_ACTIONS = 4096

#: helpers of the hot loop: LLVM inlines them into it (a separate call costs a status check
#: and keeps state in memory); see the module docstring for ``_hold``
INLINE = dict(JIT, forceinline=True)


@numba.njit(**JIT)
def new_state():
    return np.full(S_SIZE, -1, np.int64)


@numba.njit(**INLINE)
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
    _hold(st)


@numba.njit(**INLINE)
def _next_seat(seat, players):
    seat += 1
    return 0 if seat == players else seat


@numba.njit(**INLINE)
def _deal(st, seed, deal_index, players, hand_size, rng):
    for i in range(S_SIZE):
        st[i] = 0
    rng[0] = stream_start(seed, deal_index, np.int64(0))
    for i in range(N_CARDS):
        st[S_DECK + i] = i
    for j in range(N_CARDS - 1, 0, -1):  # Fisher-Yates, seeding.py
        r = rng_below(rng, j + 1)
        t = st[S_DECK + j]
        st[S_DECK + j] = st[S_DECK + r]
        st[S_DECK + r] = t
    n = hand_size * players
    s = 0
    for k in range(n):  # R2.1: one at a time, in seat order
        st[S_HANDS + s] |= np.int64(1) << st[S_DECK + k]
        s = _next_seat(s, players)
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
    _start_bout(st, first, _next_seat(first, players))  # R2.4
    _hold(st)
    _hold(rng)


@numba.njit(**JIT)
def deal(st, seed, deal_index, players, hand_size):
    """Shuffle and deal deal ``deal_index`` of ``seed`` into ``st`` (R2, seed contract)."""
    _deal(st, seed, deal_index, players, hand_size, np.empty(1, np.uint64))


@numba.njit(**INLINE)
def to_move(st):
    """The seat that acts next, -1 when the deal is over."""
    seat = st[S_ATTACKER]
    if st[S_PHASE] == PHASE_DEFEND:
        seat = st[S_DEFENDER]
    if st[S_OVER]:
        seat = -1
    _hold(st)
    return seat


@numba.njit(**INLINE)
def _legal_set(st):
    """The legal actions as ``(mask, base, tail)``: ``base + c`` for every card ``c`` of
    ``mask`` (ascending), then ``tail`` unless it is -1. The one statement of R3's moves."""
    phase = st[S_PHASE]
    if phase == PHASE_OPEN:  # R3.1: any card, opening is compulsory
        mask = st[S_HANDS + st[S_ATTACKER]]
        base = 0
        tail = -1
    elif phase == PHASE_DEFEND:  # R3.2: beat the one unbeaten card, or take
        mask = st[S_HANDS + st[S_DEFENDER]] & BEATERS[st[S_TRUMP_SUIT] * N_CARDS + st[S_UNBEATEN]]
        base = DEFEND
        tail = TAKE
    else:  # R3.3 / R3.5: throw in a matching rank within the limit (R3.4), or stop
        mask = st[S_HANDS + st[S_ATTACKER]] & st[S_TRANKS]
        if st[S_N_ATT] >= st[S_LIMIT]:
            mask = 0
        base = 0
        tail = STOP
    _hold(st)
    return mask, base, tail


@numba.njit(**INLINE)
def _fill_legal(legal, mask, base, tail):
    """Write the list form of ``_legal_set`` into ``legal``; return n."""
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
    _hold(legal)
    return n


@numba.njit(**INLINE)
def _in_legal_set(code, mask, base, tail):
    c = code - base
    in_mask = (c >= 0) & (c < N_CARDS) & (((mask >> (c & 63)) & 1) != 0)
    return in_mask | ((tail >= 0) & (code == tail))


@numba.njit(**INLINE)
def generate_legal(st, legal):
    """Fill ``legal`` (``legal[0]`` = n, then codes ascending); return n."""
    mask, base, tail = _legal_set(st)
    n = _fill_legal(legal, mask, base, tail)
    _hold(st)
    _hold(legal)
    return n


@numba.njit(**INLINE)
def _rank_cards(card):
    return np.int64(0xF) << (4 * (card >> 2))


@numba.njit(**INLINE)
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
    _start_bout(st, next_att, _next_seat(next_att, players))
    if over:
        st[S_OVER] = 1
    _hold(st)


@numba.njit(**INLINE)
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
    if code < STOP:
        st[S_NHIST] = nh + 1
    _hold(st)
    _hold(hist)


@numba.njit(**INLINE)
def observe(st, seat, obs):
    """Fill ``obs`` with what ``seat`` may see (R6); see ``durak_sim.observation``."""
    _copy_obs(obs, st)  # the public fields, at the same indices in st
    obs[O_SEAT] = seat
    obs[O_HAND] = st[S_HANDS + seat]
    obs[O_STOCK] = st[S_STOCK_END] - st[S_STOCK_TOP]
    obs[19] = 0
    for s in range(MAX_SEATS):  # seats past ``players`` hold no cards (and their known: 0)
        obs[O_HAND_SIZES + s] = popcount(st[S_HANDS + s])
    _hold(st)
    _hold(obs)


@numba.njit(**INLINE)
def _new_game(st, seed, deal_index, players, hand_size, rot, resets, rngs, mems):
    deal_index = np.int64(deal_index)
    _deal(st, seed, deal_index, players, hand_size, rngs[0])
    k = rot
    for s in range(players):
        rngs[s, 0] = stream_start(seed, deal_index, np.int64(1 + s))
        mems[s, 0] += 1  # a new game stamp (observation.py contract)
        for i in range(1, resets[k]):
            mems[s, i] = 0
        k = _next_seat(k, players)
    _hold(st)
    _hold(resets)
    _hold(rngs)
    _hold(mems)


@numba.njit(**INLINE)
def _result(st, decisions, err, err_seat, err_action, results, g):
    durak = st[S_DURAK]
    results[g, R_OUTCOME] = 1 if durak < 0 else 0
    results[g, R_DURAK] = durak
    results[g, R_FIRST] = st[S_FIRST]
    results[g, R_BOUTS] = st[S_BOUTS]
    results[g, R_CARDS_LEFT] = popcount(st[S_HANDS + durak]) if durak >= 0 else 0
    results[g, R_N_ACTIONS] = st[S_NHIST]
    results[g, R_DECISIONS] = decisions
    results[g, R_ERROR] = err
    results[g, R_ERROR_SEAT] = err_seat
    results[g, R_ERROR_ACTION] = err_action
    results[g, R_N_OUT] = st[S_N_OUT]
    for k in range(MAX_SEATS):
        results[g, R_OUT + k] = st[S_OUT + k] if k < st[S_N_OUT] else -1
    _hold(st)
    _hold(results)


@numba.njit(**JIT)
def play_range(seed, deals, rots, fns, players, hand_size, mem_size, resets, lo, hi,
               results, record, rec_actions, rec_decks, stop):
    """Play games ``lo..hi-1`` of a batch serially with buffers of its own; write game
    ``g``'s result into ``results[g]`` (R_* columns). A game that would begin once
    ``stop[0]`` is set (by another thread: Ctrl-C) is not played: its ``R_ERROR`` is
    ``ERR_STOPPED``, so that a call ends within one game of a stop.

    Seat ``s`` of game ``g`` is played by ``fns[(s + rots[g]) % players]``; its random stream
    is ``(seed, deals[g], s)`` and its workspace ``mems[s]``. With ``record`` each game's
    history is copied to ``rec_actions[g]`` and its deck to ``rec_decks[g]`` (both with one
    row per game; ignored otherwise).
    """
    st = np.zeros(S_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    legal = np.zeros(64, np.int64)
    hist = np.zeros(MAX_ACTIONS, np.int64)
    rngs = np.zeros((max(players, 2), 1), np.uint64)
    mems = np.zeros((max(players, 2), mem_size), np.int64)
    # seats 0 and 1 get views made once (a view per decision costs two atomic refcounts)
    rng0 = rngs[0]
    rng1 = rngs[1]
    mem0 = mems[0]
    mem1 = mems[1]
    cap = hist.shape[0]
    for g in range(lo, hi):
        if stop[0] != 0:
            results[g, R_ERROR] = ERR_STOPPED
            continue
        rot = rots[g]
        _new_game(st, seed, deals[g], players, hand_size, rot, resets, rngs, mems)
        f0 = rot % players  # strategy of seat 0; seat s plays fns[(f0 + s) % players]
        decide0 = fns[f0]
        decide1 = fns[_next_seat(f0, players)]
        decisions = 0
        err = 0
        err_seat = -1
        err_action = -1
        while st[S_OVER] == 0:
            mask, base, tail = _legal_set(st)
            seat = to_move(st)
            if popcount(mask) + (tail >= 0) == 1:  # forced: the strategy is not asked
                code = base + lowest(mask) if mask != 0 else tail
            else:
                _fill_legal(legal, mask, base, tail)
                observe(st, seat, obs)
                if seat == 0:
                    code = decide0(obs, legal, hist, rng0, mem0)
                elif seat == 1:
                    code = decide1(obs, legal, hist, rng1, mem1)
                else:
                    code = fns[(f0 + seat) % players](obs, legal, hist, rngs[seat], mems[seat])
                decisions += 1
                if not _in_legal_set(code, mask, base, tail):
                    err = ERR_ILLEGAL
                    err_seat = seat
                    err_action = code
                    break
            if st[S_NHIST] >= cap:
                err = ERR_TOO_LONG
                err_seat = seat
                break
            apply_action(st, code, hist)
        _result(st, decisions, err, err_seat, err_action, results, g)
        if record:
            n = min(st[S_NHIST], rec_actions.shape[1])
            for k in range(n):
                rec_actions[g, k] = hist[k]
            for k in range(N_CARDS):
                rec_decks[g, k] = st[S_DECK + k]


@numba.njit(parallel=True, **JIT)
def play_batch(seed, deals, rots, fns, players, hand_size, mem_size, resets, n_chunks,
               results, record, rec_actions, rec_decks, stop):
    """Play every game of a batch, ``n_chunks`` chunks in parallel. Game ``g`` is deal
    ``deals[g]`` with rotation ``rots[g]``; its results land in ``results[g]`` whatever the
    chunking or the thread count, so the output is the same for any of them."""
    n = deals.shape[0]
    # chunks are claimed dynamically: the first iteration a thread runs plays chunks until
    # none is left, so a thread slowed by other load does not hold up the batch (prange
    # splits its iterations between the threads up front); the iterations after it find
    # nothing left to do
    next_chunk = np.zeros(1, np.int64)
    for _ in numba.prange(n_chunks):
        c = _fetch_add(next_chunk, np.int64(1))
        while c < n_chunks:
            lo = c * n // n_chunks
            hi = (c + 1) * n // n_chunks
            play_range(seed, deals, rots, fns, players, hand_size, mem_size, resets, lo, hi,
                       results, record, rec_actions, rec_decks, stop)
            c = _fetch_add(next_chunk, np.int64(1))

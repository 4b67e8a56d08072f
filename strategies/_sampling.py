"""Card memory, an opponent model and determinization for the two-player default game
(``expert``, strategies/expert.py).

A seat's *unseen* cards (not in its hand, the discard pile, on the table, among the
opponent's known cards ``O_KNOWN``, and not the face-up trump while it lies in the stock) are
exactly the opponent's hidden cards plus the stock but its face-up last card (R6,
docs/observation.md). A *determinization* deals them out again: the opponent's hidden hand
and the stock's draw order. ``sample_deal`` draws one from the seat's own random stream; it
reads only the observation and the seat's memory, never the state (tests/test_expert.py
checks that a sample does not depend on where the hidden cards really lie).

What the memory knows (``track``, read incrementally from the public history; every bout of
the two-player game ends with a ``stop``, after which the attacker, then the defender, draw
up to six):

* the hand sizes, the stock, the bout's limit, and how many cards each seat has drawn;
* the opponent's known cards (the observation's ``O_KNOWN``, replayed: picked up and not
  played since, the face-up trump once drawn), so that its past actions can be checked;
* what the opponent seemed not to hold (normal's ``lack`` reading, strategies/normal.py): it
  took a card (nothing it held beat it), it trumped a plain card (nothing higher of the
  suit), it beat in suit (nothing of the suit in between). Such a fact is true of the hand
  it held *then*, and every card drawn since may be one of them: each fact is kept with the
  opponent's draw count at the time (an *epoch*; facts of the same count merge), and a
  sample obeys ``|hidden & lack_e| <= draws now - draws at e`` for every epoch ``e``. These
  facts are exact for a lowest-card player (easy, R10.2) and often false for normal and
  hard, which take and beat on purpose (they keep trumps early, they avoid new ranks): in
  hard-against-hard games a third of the bounds fail;
* the evidence for an opponent model (``opponent_is_easy``): the opponent's actions that a
  lowest-card player never takes (by its known cards, it passed over a lower card, a lower
  beater or a possible throw-in, or took while holding a beater) and those normal and hard
  never take (a trump thrown in, or a card above a jack thrown in to a taker, with more than
  ``LATE_STOCK`` cards in the stock; a plain card trumped with ``TAKE_MINSTOCK`` cards or
  more in the stock and at most ``TAKE_TABLE`` cards on the table: normal takes there).

All functions are module-level ``njit``; the memory is a caller's ``int64`` slice of
``K_SIZE`` words, zero at the start of each game (observation.py's reset contract).
"""
import numba
import numpy as np

from durak_sim.actions import DEFEND, STOP, TAKE
from durak_sim.cards import FULL_DECK
from durak_sim.observation import (O_DISCARD, O_HAND, O_HAND_SIZES, O_KNOWN, O_N_HIST,
                                   O_PLAYERS, O_SEAT, O_STOCK, O_TABLE_ATTACKS,
                                   O_TABLE_DEFENCES, O_TRUMP_CARD, O_TRUMP_SUIT)
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.rng import rng_below
from durak_sim.strategies._normal_core import (LATE_STOCK, TAKE_MINSTOCK, TAKE_TABLE, THROWT_EARLY,
                                               _rank_fill)

#: bump with every change of this module's answers or speed, and set SAMPLING_LINKED in
#: strategies/expert.py to match (numba's cache keys expert's code on expert.py's text)
SAMPLING_VERSION = 1

_FULL = FULL_DECK
_NIB = 0x111111111  # the cards of suit 0
HAND = 6            # the default game's hand target
STOCK0 = 24         # and its stock after the deal (36 - 2 * 6, the face-up trump included)
#: normal throws in to a taker early only cards up to this rank (its ``THROWT_EARLY``)
THROWT_RANK = THROWT_EARLY

# ---- the memory's layout (K_SIZE words, zeroed each game) ----
K_POS = 0           # history entries read
K_INIT = 1          # 1 once set up this game
K_SIZE0 = 2         # 2 words: hand sizes replayed from the history
K_STOCK = 4         # the stock replayed
K_BOUT = 5          # cards laid in the bout under way
K_TAKEN = 6         # 1 when its defender has taken
K_ATT = 7           # its attacker (the seat of its first card)
K_DRAWN0 = 8        # 2 words: cards each seat has drawn from the stock
K_NE = 10           # epochs in use
N_EPOCHS = 8
K_EMASK = 11        # N_EPOCHS words: the cards the opponent seemed not to hold ...
K_EDRAWN = K_EMASK + N_EPOCHS   # ... and its draw count when it seemed so
K_LIMIT = K_EDRAWN + N_EPOCHS   # the bout's limit
K_NATT = K_LIMIT + 1            # its attack cards so far
K_BMASK = K_NATT + 1            # its cards
K_OKNOWN = K_BMASK + 1          # the opponent's known cards (O_KNOWN), replayed
K_NOT_EASY = K_OKNOWN + 1       # actions of the opponent a lowest-card player never takes
K_NOT_NORMAL = K_NOT_EASY + 1   # ... and that normal (and hard) never take
K_SIZE = K_NOT_NORMAL + 1


@numba.njit(**JIT)
def beaters(c, ts):
    """Mask of every card that beats ``c`` (R1.3) with ``ts`` trumps."""
    m = (np.int64(_NIB) << (c & 3)) & ~((np.int64(2) << c) - 1)
    if c & 3 != ts:
        m |= np.int64(_NIB) << ts
    return m


@numba.njit(**JIT)
def unseen_cards(obs):
    """The cards this seat has not seen: the other seats' hidden cards and the stock but its
    face-up last card (not in its hand, the discard pile, on the table, among any seat's
    known cards, nor the face-up trump while it lies in the stock; at any table)."""
    seen = obs[O_HAND] | obs[O_DISCARD] | obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES]
    for s in range(obs[O_PLAYERS]):
        seen |= obs[O_KNOWN + s]
    if obs[O_STOCK] > 0 and obs[O_TRUMP_CARD] >= 0:
        seen |= np.int64(1) << obs[O_TRUMP_CARD]
    return np.int64(_FULL) & ~seen


@numba.njit(**JIT)
def _note(km, add, drawn):
    ne = km[K_NE]
    if ne > 0 and km[K_EDRAWN + ne - 1] == drawn:
        km[K_EMASK + ne - 1] |= add
        return
    if ne == N_EPOCHS:  # drop the oldest fact: looser, still true
        for e in range(1, N_EPOCHS):
            km[K_EMASK + e - 1] = km[K_EMASK + e]
            km[K_EDRAWN + e - 1] = km[K_EDRAWN + e]
        ne -= 1
    km[K_EMASK + ne] = add
    km[K_EDRAWN + ne] = drawn
    km[K_NE] = ne + 1


@numba.njit(**JIT)
def _preferred(x, c, ts):
    """Whether a lowest-card player (easy, R10.2) plays ``x`` before ``c``: plain cards
    before trumps, lower first."""
    xt = x & 3 == ts
    ct = c & 3 == ts
    if xt != ct:
        return ct
    return x < c


@numba.njit(**JIT)
def _prefers_any(m, c, ts):
    """Whether a lowest-card player holding the cards ``m`` (and ``c``) plays one of ``m``
    before ``c``."""
    while m != 0:
        x = lowest(m)
        m &= m - 1
        if x != c and _preferred(x, c, ts):
            return True
    return False


@numba.njit(**JIT)
def track(obs, hist, km):
    """Read the history entries not read yet into the memory ``km`` (module docstring)."""
    me = obs[O_SEAT]
    opp = 1 - me
    ts = obs[O_TRUMP_SUIT]
    trumps = np.int64(_NIB) << ts
    if km[K_INIT] == 0:
        km[K_INIT] = 1
        km[K_SIZE0] = HAND
        km[K_SIZE0 + 1] = HAND
        km[K_STOCK] = STOCK0
        km[K_ATT] = -1
    nh = obs[O_N_HIST]
    i = km[K_POS]
    while i < nh:
        e = hist[i]
        code = e & 0xFF
        s = (e >> 8) & 0xF
        known = km[K_OKNOWN]  # the opponent's known cards before this entry
        if code < TAKE:  # a card laid: an attack, a throw-in or a defence
            bit = np.int64(1) << (code if code < DEFEND else code - DEFEND)
            if km[K_BOUT] == 0:  # the opening: the bout's limit is fixed now (R3.4)
                km[K_ATT] = s
                km[K_LIMIT] = min(HAND, km[K_SIZE0 + 1 - s])
                km[K_NATT] = 0
            if code < DEFEND:
                if s == opp:
                    if km[K_BOUT] == 0:
                        if _prefers_any(known, code, ts):
                            km[K_NOT_EASY] += 1  # easy opens with its lowest card
                    else:
                        if _prefers_any(known & _rank_fill(km[K_BMASK]), code, ts):
                            km[K_NOT_EASY] += 1  # easy throws in its lowest matching card
                        if km[K_STOCK] > LATE_STOCK and (bit & trumps != 0 or (
                                km[K_TAKEN] != 0 and code >> 2 > THROWT_RANK)):
                            km[K_NOT_NORMAL] += 1  # normal keeps these early
                km[K_NATT] += 1
            elif s == opp:
                t = (e >> 12) - 1
                b = code - DEFEND
                if t >= 0:
                    if _prefers_any(known & beaters(t, ts), b, ts):
                        km[K_NOT_EASY] += 1  # easy beats with its lowest beater
                    if (bit & trumps != 0 and t & 3 != ts and km[K_STOCK] >= TAKE_MINSTOCK
                            and km[K_BOUT] <= TAKE_TABLE):
                        km[K_NOT_NORMAL] += 1  # normal takes rather than trump here
                    if b & 3 == t & 3:  # beaten in suit: nothing of the suit in between
                        add = (np.int64(_NIB) << (t & 3)) & ((np.int64(1) << b) - 1) \
                            & ~((np.int64(2) << t) - 1)
                    else:  # trumped: nothing higher of the suit
                        add = (np.int64(_NIB) << (t & 3)) & ~((np.int64(2) << t) - 1)
                    if add != 0:
                        _note(km, add, km[K_DRAWN0 + opp])
            km[K_SIZE0 + s] -= 1
            km[K_BOUT] += 1
            km[K_BMASK] |= bit
            if s == opp:
                km[K_OKNOWN] &= ~bit
        elif code == TAKE:
            km[K_TAKEN] = 1
            if s == opp and i > 0:  # nothing it held beat the card just laid
                add = beaters(hist[i - 1] & 0xFF, ts)
                if known & add != 0:
                    km[K_NOT_EASY] += 1  # easy beats when it can
                _note(km, add, km[K_DRAWN0 + opp])
        elif code == STOP:  # the bout ends (two players: the attacker stops)
            a = km[K_ATT]
            if a < 0:
                a = s
            d = 1 - a
            if (s == opp and km[K_NATT] < km[K_LIMIT]
                    and known & _rank_fill(km[K_BMASK]) != 0):
                km[K_NOT_EASY] += 1  # easy throws in whenever it can
            if km[K_TAKEN] != 0:
                km[K_SIZE0 + d] += km[K_BOUT]
                if d == opp:
                    km[K_OKNOWN] |= km[K_BMASK]
            for k in range(2):
                x = a if k == 0 else d
                need = HAND - km[K_SIZE0 + x]
                if need > km[K_STOCK]:
                    need = km[K_STOCK]
                if need > 0:
                    km[K_SIZE0 + x] += need
                    km[K_STOCK] -= need
                    km[K_DRAWN0 + x] += need
                    if km[K_STOCK] == 0 and x == opp:  # the face-up trump, drawn last
                        km[K_OKNOWN] |= np.int64(1) << obs[O_TRUMP_CARD]
            km[K_BOUT] = 0
            km[K_BMASK] = 0
            km[K_TAKEN] = 0
            km[K_ATT] = -1
        i += 1
    km[K_POS] = nh


@numba.njit(**JIT)
def opponent_is_easy(km):
    """Whether the opponent has played like a lowest-card player (easy, R10.2) and never
    otherwise: some action normal and hard never take (a trump thrown in early, a high card
    thrown in to a taker early, a plain card trumped early on a small table), and none that
    easy never takes (its known cards say it passed over a lower card, a beater or a
    throw-in)."""
    return km[K_NOT_NORMAL] > 0 and km[K_NOT_EASY] == 0


@numba.njit(**JIT)
def sample_deal(obs, km, rng, stock_out, use_facts):
    """One determinization (module docstring): the opponent's hidden cards as a mask, the
    stock in draw order into ``stock_out[0:obs[O_STOCK]]`` (the face-up trump last). Draws
    from ``rng`` only: the unseen cards in a random order (Fisher-Yates), the first ones that
    fit go to the opponent's hand, the rest to the stock in that order. ``use_facts``: 0 deals
    the unseen cards uniformly; else every epoch's bound is kept (a card that would break
    one is passed over while others are left; when the bounds cannot all hold, the cards
    passed over fill the hand). Returns -1 when the observation cannot be dealt (never in a
    consistent game)."""
    me = obs[O_SEAT]
    opp = 1 - me
    pool = unseen_cards(obs)
    stock = obs[O_STOCK]
    hidden = obs[O_HAND_SIZES + opp] - popcount(obs[O_KNOWN + opp])
    n_stock = stock - 1 if stock > 0 else 0
    n = popcount(pool)
    if hidden < 0 or n != hidden + n_stock:
        return np.int64(-1)
    # the pool in a random order (Fisher-Yates on the seat's stream)
    cards = np.empty(36, np.int64)
    k = 0
    m = pool
    while m != 0:
        cards[k] = lowest(m)
        m &= m - 1
        k += 1
    for j in range(n - 1, 0, -1):
        r = rng_below(rng, j + 1)
        t = cards[j]
        cards[j] = cards[r]
        cards[r] = t
    # the opponent's hidden cards: the first ones in that order that keep every bound
    ne = km[K_NE] if use_facts != 0 else 0
    room = np.empty(N_EPOCHS, np.int64)
    drawn = km[K_DRAWN0 + opp]
    for e in range(ne):
        room[e] = drawn - km[K_EDRAWN + e]
    h = np.int64(0)
    got = 0
    rest = 0
    for j in range(n):
        c = cards[j]
        bit = np.int64(1) << c
        ok = got < hidden
        if ok:
            for e in range(ne):
                if km[K_EMASK + e] & bit and room[e] <= 0:
                    ok = False
                    break
        if ok:
            h |= bit
            got += 1
            for e in range(ne):
                if km[K_EMASK + e] & bit:
                    room[e] -= 1
        else:
            cards[rest] = c  # the stock, in the shuffled order
            rest += 1
    if got < hidden:  # the bounds cannot all hold (a deliberate take): fill up in order
        j = 0
        while got < hidden:
            h |= np.int64(1) << cards[j]
            got += 1
            j += 1
        for q in range(j, rest):
            cards[q - j] = cards[q]
        rest -= j
    for q in range(rest):
        stock_out[q] = cards[q]
    if stock > 0:
        stock_out[stock - 1] = obs[O_TRUMP_CARD]
    return h

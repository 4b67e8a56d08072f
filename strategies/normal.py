"""``normal`` (RULES.md R10.3): saves trumps and high cards while the stock lasts, throws in
what the defender seems unable to beat, weighs taking against spending a trump, and plays
differently as the stock runs out. It sees only its observation and the public history (R6).

Card value
    ``rank`` (0..8) plus a trump penalty: ``TRUMP_EARLY`` (25) while more than ``LATE_STOCK``
    (2) cards are in the stock, so every plain card is cheaper than any trump; then
    ``TRUMP_LATE`` (8), so high plain cards and low trumps overlap. "Cheapest" means lowest
    value everywhere below.

What it knows about the opponent (all public, R6.1)
    * ``known``: the cards the opponent picked up and still holds (``O_KNOWN``).
    * ``unseen``: the cards that are not in its own hand, the discard pile, on the table or
      among ``known``, and not the face-up trump while the stock lasts. With an empty stock
      the opponent holds exactly ``known | unseen``. The same is true when every card the
      opponent holds is ``known``. In both cases play is "exact".
    * ``lack``: cards the opponent seems not to hold, read from the public history. A take
      means nothing it held beat the card just played. Trumping a plain card means it held
      nothing higher of that suit. Beating in suit means it held nothing of the suit in
      between. While the stock lasts, new history entries are read incrementally
      (``mem``). Once more than ``DRAWN_MAX`` (2) cards have been drawn from the stock since
      the mask was started, the mask is ignored, and the next inference starts a fresh one.
      Until then the opponent may hold ``known | (unseen & ~lack)``.

Opening a bout
    The cheapest card. A card the opponent cannot beat, as far as it can tell, gets a bonus
    of ``NOBEAT_W`` ranks. In exact play it forecasts the bout for each card: the defender
    beats with its cheapest beater, and it throws in its own cheapest card of a table rank
    within the bout limit. A card whose forecast ends in a take gets a bonus of ``SIM_W``
    ranks, which outweighs everything else.

Throwing in
    The cheapest card that qualifies, with unbeatable cards first while the defender still
    defends. Early, a plain card qualifies while the defender defends; for a defender who
    takes, only junk qualifies (plain cards up to a jack), since it hands the opponent those
    cards. Late and with an empty stock, every card qualifies: shedding is then what wins.
    It stops when no card qualifies.

Defending
    The beater with the lowest value. A beater whose rank is not yet on the table costs
    ``NEWRANK_W`` quarter-ranks for each card of that rank the opponent may hold, since the
    opponent could throw those in. It takes instead when all three of these hold:
    * the stock still holds at least ``TAKE_MINSTOCK`` (8) cards;
    * the cheapest beater is worth at least ``TAKE_GAP`` (10) more than the attack card (in
      effect, only a trump beats a plain card);
    * at most ``TAKE_TABLE`` (5) cards would be picked up.
    With an empty stock it forecasts the rest of the bout for each beater: the attacker
    throws in its cheapest card of a table rank while it may, and it answers each with its
    cheapest beater. Beaters that hold the bout are preferred. If none holds, it takes at
    once, before more ranks reach the table.

The weights were tuned against ``easy``, with seeded duplicate matches of 20,000 deal pairs
per trial. ``normal`` assumes the default two-player game. It is deterministic and draws
nothing from ``rng``. ``mem`` (4 words) is zeroed every game. A decision allocates nothing
and makes no calls: every helper is inlined, and the history is read inside ``decide``.
"""
import os

import numba
from numba import types
from numba.extending import intrinsic

from durak_sim.actions import DEFEND, STOP, TAKE
from durak_sim.cards import FULL_DECK
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DEFENDER, O_DISCARD, O_HAND,
                                   O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_N_HIST, O_PHASE,
                                   O_SEAT, O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING,
                                   O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN, PHASE_DEFEND,
                                   PHASE_OPEN)
from durak_sim.registry import register_strategy

_FULL = FULL_DECK
_NIB = 0x111111111  # the lowest card of every rank nibble = the cards of suit 0
INLINE = dict(JIT, forceinline=True)

# ---- weights (ranks; scores are kept in quarter-ranks) ----
TRUMP_EARLY = 25     # trump penalty while the stock is large
TRUMP_LATE = 8       # ... once it is nearly or fully drawn
LATE_STOCK = 2       # "late" means at most this many cards in the stock
NOBEAT_W = 4         # bonus for an attack card the defender seems unable to beat
SIM_W = 20           # bonus for a forecast that wins the bout (exact play)
NEWRANK_W = 20       # quarter-ranks per opponent card of a defence's new rank
THROW_EARLY = 8      # throw in (defender defending) cards of value <= this, stock large
THROWT_EARLY = 5     # throw in to a taker cards of value <= this, stock large
TAKE_GAP = 10        # take rather than beat when beater - attack value >= this ...
TAKE_MINSTOCK = 8    # ... the stock holds at least this many cards ...
TAKE_TABLE = 5       # ... and at most this many cards are on the table
DRAWN_MAX = 2        # cards drawn from the stock after which the lack mask is stale

# ---- mem layout: every word is zeroed at the start of a game (reset = M_SIZE) ----
M_POS = 1         # history entries read
M_LACK = 2        # cards the opponent seems not to hold
M_LACK_STOCK = 3  # stock size when the lack mask was started
M_SIZE = 4

if os.environ.get("NUMBA_DISABLE_JIT", "0") == "1":  # pragma: no cover - pure-Python twin

    def _hold(a):
        pass

else:

    @intrinsic
    def _hold(typingctx, a):
        """No code: keeps the array ``a`` alive up to here. ``decide`` calls it on every
        argument at its one exit, so numba's reference counting of the arrays (calls doing
        atomic operations) pairs up across the call and is pruned, not paid per decision."""
        sig = types.void(a)

        def codegen(context, builder, signature, args):
            return context.get_dummy_value()

        return sig, codegen


@numba.njit(**INLINE)
def _beaters(c, ts):
    """Mask of every card that beats ``c`` (R1.3)."""
    m = (_NIB << (c & 3)) & ~((2 << c) - 1)
    if c & 3 != ts:
        m |= (_NIB << ts)
    return m


@numba.njit(**INLINE)
def _rank_fill(m):
    """Every card of every rank present in ``m``."""
    return ((m | m >> 1 | m >> 2 | m >> 3) & _NIB) * 15


@numba.njit(**INLINE)
def _value(c, ts, tpen):
    v = c >> 2
    if c & 3 == ts:
        v += tpen
    return v


@numba.njit(**INLINE)
def _cheapest(cards, ts):
    """Lowest non-trump of ``cards``, else the lowest trump; -1 if empty."""
    if cards == 0:
        return -1
    plain = cards & ~(_NIB << ts)
    return lowest(plain) if plain != 0 else lowest(cards)


@numba.njit(**INLINE)
def _defence_holds(mine, theirs, ranks, n_att, limit, ts):
    """Exact forecast of the rest of a bout after a defence: the attacker throws in its
    cheapest card of a table rank while it may, the defender beats each with its cheapest
    beater. True when the defender beats everything."""
    while n_att < limit:
        x = _cheapest(theirs & ranks, ts)
        if x < 0:
            return True
        theirs &= ~(1 << x)
        n_att += 1
        b = _cheapest(mine & _beaters(x, ts), ts)
        if b < 0:
            return False
        mine &= ~(1 << b)
        ranks |= 0xF << (b & ~3)
    return True


@numba.njit(**INLINE)
def _attack_wins(c, mine, theirs, limit, ts):
    """Exact forecast of a bout opened with ``c``: the defender beats with its cheapest
    beater, the attacker throws in its cheapest matching card while it may. True when the
    defender ends up taking."""
    mine &= ~(1 << c)
    ranks = 0xF << (c & ~3)
    n_att = 1
    while True:
        b = _cheapest(theirs & _beaters(c, ts), ts)
        if b < 0:
            return True
        theirs &= ~(1 << b)
        ranks |= 0xF << (b & ~3)
        if n_att >= limit or theirs == 0:
            return False
        c = _cheapest(mine & ranks, ts)
        if c < 0:
            return False
        mine &= ~(1 << c)
        n_att += 1


@numba.njit(**INLINE)
def _defend(defences, hand, table, opp_cards, unbeaten, n_attacks, limit, stock, ts, tpen):
    """Defence code, or TAKE."""
    tr = _rank_fill(table)
    forecast = stock == 0
    holds_any = False
    best = -1
    best_s = 1 << 30
    m = defences
    while m != 0:
        b = lowest(m)
        m &= m - 1
        s = 4 * _value(b, ts, tpen)
        if (tr >> b) & 1 == 0:  # a new rank the attacker may throw in
            s += NEWRANK_W * popcount(opp_cards & (0xF << (b & ~3)))
        if forecast and _defence_holds(hand & ~(1 << b), opp_cards, _rank_fill(table | (1 << b)),
                                       n_attacks, limit, ts):
            holds_any = True
            s -= 4 * SIM_W
        if s < best_s:
            best_s = s
            best = b
    if forecast:
        if not holds_any:
            return TAKE  # it cannot hold: pick up before more ranks reach the table
    elif stock >= TAKE_MINSTOCK:
        if (_value(best, ts, tpen) - _value(unbeaten, ts, tpen) >= TAKE_GAP
                and popcount(table) <= TAKE_TABLE):
            return TAKE  # cheaper than spending a trump this early
    return DEFEND + best


@numba.njit(**INLINE)
def _throw_in(attacks, opp_cards, taking, late, ts, tpen):
    """Throw-in card, or STOP."""
    if late:
        thr = 1 << 20  # shed anything
    elif taking:
        thr = THROWT_EARLY
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
def _open(hand, opp_cards, opp_n, exact, ts, tpen):
    """Opening card (``hand`` is not empty)."""
    limit = opp_n if opp_n < 6 else 6
    best = -1
    best_s = 1 << 30
    m = hand
    while m != 0:
        c = lowest(m)
        m &= m - 1
        s = 4 * _value(c, ts, tpen)
        if (_beaters(c, ts) & opp_cards) == 0:
            s -= 4 * NOBEAT_W
        if exact and _attack_wins(c, hand, opp_cards, limit, ts):
            s -= 4 * SIM_W
        if s < best_s:
            best_s = s
            best = c
    return best


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    # everything that touches an array stays in here: an inlined helper taking arrays would
    # bring back numba's reference counting calls
    me = obs[O_SEAT]
    ts = obs[O_TRUMP_SUIT]
    stock = obs[O_STOCK]
    nh = obs[O_N_HIST]
    i = mem[M_POS]
    if stock == 0:
        mem[M_POS] = nh  # the opponent's hand is known exactly: nothing to infer
    elif i < nh:  # read the new history entries: what the opponent seems not to hold
        add = 0
        while i < nh:
            e = hist[i]
            code = e & 0xFF
            if DEFEND <= code <= TAKE and (e >> 8) & 0xF != me:
                if code == TAKE:  # nothing beat the card played just before
                    add |= _beaters(hist[i - 1] & 0xFF, ts)
                elif e >> 12 > 0:  # a defence, with its target
                    b = code - DEFEND
                    t = (e >> 12) - 1
                    if b & 3 == t & 3:  # beaten in suit: nothing of the suit in between
                        add |= (_NIB << (t & 3)) & ((1 << b) - 1) & ~((2 << t) - 1)
                    else:  # trumped: nothing higher of the suit
                        add |= (_NIB << (t & 3)) & ~((2 << t) - 1)
            i += 1
        mem[M_POS] = nh
        if add != 0:
            if mem[M_LACK] == 0 or mem[M_LACK_STOCK] - stock > DRAWN_MAX:
                mem[M_LACK] = 0  # stale: start afresh
                mem[M_LACK_STOCK] = stock
            mem[M_LACK] |= add

    attacks = 0
    defences = 0
    n = legal[0]
    for k in range(1, n + 1):
        a = legal[k]
        if a < DEFEND:
            attacks |= 1 << a
        elif a < TAKE:
            defences |= 1 << (a - DEFEND)

    opp = obs[O_DEFENDER] if me == obs[O_ATTACKER] else obs[O_ATTACKER]
    hand = obs[O_HAND]
    table = obs[O_TABLE_ATTACKS] | obs[O_TABLE_DEFENCES]
    known = obs[O_KNOWN + opp]
    opp_n = obs[O_HAND_SIZES + opp]
    unseen = _FULL & ~hand & ~obs[O_DISCARD] & ~table & ~known
    if stock > 0 and obs[O_TRUMP_CARD] >= 0:
        unseen &= ~(1 << obs[O_TRUMP_CARD])  # the face-up trump is the last card of the stock
    hidden = opp_n - popcount(known)  # opponent cards it cannot name
    exact = stock == 0 or hidden <= 0
    if stock == 0:
        opp_cards = known | unseen  # exactly the opponent's hand
    elif hidden <= 0:
        opp_cards = known
    elif mem[M_LACK_STOCK] - stock <= DRAWN_MAX:
        opp_cards = known | (unseen & ~mem[M_LACK])
    else:
        opp_cards = known | unseen
    late = stock <= LATE_STOCK
    tpen = TRUMP_LATE if late else TRUMP_EARLY

    phase = obs[O_PHASE]
    if phase == PHASE_DEFEND:
        if defences == 0:
            act = legal[n]  # take
        else:
            act = _defend(defences, hand, table, opp_cards, obs[O_UNBEATEN], obs[O_N_ATTACKS],
                          obs[O_BOUT_LIMIT], stock, ts, tpen)
    elif attacks == 0:
        act = legal[n]  # stop
    elif phase == PHASE_OPEN:
        act = _open(attacks, opp_cards, opp_n, exact, ts, tpen)
    else:
        act = _throw_in(attacks, opp_cards, obs[O_TAKING] != 0, late, ts, tpen)
    _hold(obs)
    _hold(legal)
    _hold(hist)
    _hold(rng)
    _hold(mem)
    return act


register_strategy("normal", decide, version=1, memory=M_SIZE, reset=M_SIZE,
                  description="saves trumps, throws in what the defender cannot beat, "
                              "weighs taking, plays the empty-stock ending exactly (R10.3)",
                  compile_seconds=5)

"""The parts of ``normal`` (strategies/normal.py) both its paths share: its weights, the
layout of its workspace, and the card helpers of the two-player default game.

numba caches ``normal.decide`` on normal.py's text alone: after an edit here, bump
``NORMAL_VERSION`` in normal.py (hard links it too).
"""
import os

import numba
from numba import types
from numba.extending import intrinsic

from durak_sim.actions import DEFEND, DEFEND_AT, DONE, STOP, SWAP, TAKE, TRANSFER
from durak_sim.cards import FULL_DECK
from durak_sim.kernel.bits import lowest, popcount
from durak_sim.kernel.config import JIT
from durak_sim.kernel.rng import rng_below
from durak_sim.observation import (O_ATTACKER, O_BOUTS, O_BOUT_LIMIT, O_DEFENDER, O_DISCARD,
                                   O_ELIGIBLE, O_HAND, O_HAND_SIZES, O_KNOWN, O_N_ATTACKS,
                                   O_N_HIST, O_N_UNBEATEN, O_PHASE, O_PLACES, O_PLAYERS,
                                   O_RULES, O_SEAT, O_STOCK, O_TABLE, O_TABLE_ATTACKS,
                                   O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT,
                                   O_UNBEATEN, PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP)
from durak_sim.rules import FLAG_PROSTOY, FLAG_TEAMS, FLAG_TRANSFER
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

# ---- every other table (the general path; module docstring) ----
TRUMP_LATE_N = 25    # trump penalty once late while three or more seats play
THROWT_N = 8         # throw in to a taker, stock large, three or more seats playing
TAKE_MINSTOCK_N = 6  # TAKE_MINSTOCK while three or more seats play
LEAD_EARLY = 8       # a multi-card lead (R8.1) grows by cards worth at most this, stock large
TAKE_TABLE_N = 5     # several unbeaten cards: take early (a trump on a plain card) up to this
TRISK_W = 12         # opening in the transfer game: quarter-ranks per card of its rank the
                     # defender may hold, when a transfer would come back to this seat ...
TRISK_TEAM_W = 20    # ... or would land on its partner
LONG_BOUTS = 60      # a deal this long may be a cycle of takes: beat when it can, open at random

# ---- mem layout: every word is zeroed at the start of a game (reset = M_SIZE) ----
M_POS = 1         # history entries read
M_LACK = 2        # cards the opponent seems not to hold (two-player default game)
M_LACK_STOCK = 3  # stock size when the lack mask was started
M_LACKS = 4       # 6 words: cards seat s seems not to hold (the general path)
M_LSTK = 10       # 6 words: the stock size when seat s's lack mask was started
M_UNB = 16        # the history read so far: unbeaten attack cards of the bout
M_TK = 17         # ... 1 while the bout's defender has taken
M_PEND = 18       # ... attack cards since the last stop after a take (a new bout's lead)
M_POSS = 19       # 6 words: the cards seat s may hold (scratch of one decision)
M_PLAN = 25       # prostoy: the lead being laid (cards), 0 for none
M_SIZE = 26

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


__all__ = [
    "_FULL", "_NIB", "INLINE", "TRUMP_EARLY", "TRUMP_LATE", "LATE_STOCK", "NOBEAT_W",
    "SIM_W", "NEWRANK_W", "THROW_EARLY", "THROWT_EARLY", "TAKE_GAP", "TAKE_MINSTOCK",
    "TAKE_TABLE", "DRAWN_MAX", "TRUMP_LATE_N", "THROWT_N", "TAKE_MINSTOCK_N", "LEAD_EARLY",
    "TAKE_TABLE_N", "TRISK_W", "TRISK_TEAM_W", "LONG_BOUTS", "M_POS",
    "M_LACK", "M_LACK_STOCK", "M_LACKS", "M_LSTK", "M_UNB", "M_TK", "M_PEND", "M_POSS",
    "M_PLAN", "M_SIZE", "_hold", "_beaters", "_rank_fill", "_value", "_cheapest",
    "_defence_holds", "_attack_wins", "_defend", "_throw_in", "_open", "types",
    "intrinsic", "DEFEND", "DEFEND_AT", "DONE", "STOP", "SWAP", "TAKE", "TRANSFER",
    "FULL_DECK", "lowest", "popcount", "JIT", "rng_below", "O_ATTACKER", "O_BOUTS",
    "O_BOUT_LIMIT", "O_DEFENDER", "O_DISCARD", "O_ELIGIBLE", "O_HAND", "O_HAND_SIZES",
    "O_KNOWN", "O_N_ATTACKS", "O_N_HIST", "O_N_UNBEATEN", "O_PHASE", "O_PLACES",
    "O_PLAYERS", "O_RULES", "O_SEAT", "O_STOCK", "O_TABLE", "O_TABLE_ATTACKS",
    "O_TABLE_DEFENCES", "O_TAKING", "O_TRUMP_CARD", "O_TRUMP_SUIT", "O_UNBEATEN",
    "PHASE_DEFEND", "PHASE_LEAD", "PHASE_OPEN", "PHASE_SWAP", "FLAG_PROSTOY", "FLAG_TEAMS",
    "FLAG_TRANSFER", "register_strategy",
]

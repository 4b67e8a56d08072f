"""``normal`` (docs/rules.md R10.3): saves trumps and high cards while the stock lasts, throws
in what the defender seems unable to beat, weighs taking against spending a trump, and plays
differently as the stock runs out. It plays every table (2-6 players, teams, the transfer game,
multi-card leads, prostoy, the trump-six swap) and sees only its observation and the public
history (R6).

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
per trial. Everything above is the two-player default game (``O_RULES == 0``, two seats),
played exactly as it always was; every other table takes the general path below.

At every other table (R7, R8)
    The same character: cheap cards first, trumps saved while the stock lasts, throw-ins of
    what the defender seems unable to beat, takes weighed against spending a trump, exact
    forecasts once the cards are known. What the variants add:

    * Opponents, per seat. ``known``, ``unseen`` and ``lack`` are kept for every other seat
      (``mem``: a lack mask and its starting stock per seat; it goes stale after
      ``DRAWN_MAX * players / 2`` cards drawn by all seats). The history reader follows the
      bout's unbeaten cards through several attackers, multi-card leads and transfers, so a
      take teaches something only when exactly one card was unbeaten. A seat holds exactly
      ``known | unseen`` once the stock is empty and it is the only seat holding cards it
      cannot name.
    * Value. Late (stock at most ``LATE_STOCK``) the trump penalty is ``TRUMP_LATE`` only
      while two seats play; with three or more it stays ``TRUMP_LATE_N`` (25): among many
      hidden hands a trump is still the defence that saves a take.
    * Attacking. Only the current defender can be attacked; the opening and the throw-ins
      read that seat's cards. Throw-ins come in the asking order of E2 like anyone's: early
      any plain card to a defender who defends and, with three or more seats playing, any
      plain card to a taker too (``THROWT_N``; two seats: junk only, as in the default game);
      late everything (shedding is what places).
    * Defending against several attackers: the new-rank cost and the empty-stock forecast
      count the cards of every seat that may throw in (``O_ELIGIBLE``); the forecast, and
      the take at once when no beater holds, only when those cards are known exactly. With
      three or more seats playing it takes rather than trump early while the stock holds at
      least ``TAKE_MINSTOCK_N`` (6) cards.
    * Several unbeaten cards (E5): a plan beats the hardest target first, each with the
      cheapest free card that beats it, and plays its first pair (``DEFEND_AT``). It takes
      when some target cannot be beaten, when the forecast says the bout cannot be held, or
      early when the plan spends a trump on a plain card with at most ``TAKE_TABLE_N`` cards
      on the table.
    * Transfer (R8.2). It transfers with its cheapest plain card of the rank, whatever the
      defence would have been. A trump is kept for defence, late as well as early (late,
      beating often wins where a trump transfer gives the deal away), except late in a team
      game: there the transfer goes to an opponent (the rules say so), and passing the
      attack on with a trump does better than beating. When it opens a bout in the transfer
      game and a transfer would come back onto itself (two seats playing) or land on its
      partner (teams), each card of the rank the defender may hold costs ``TRISK_W`` (or
      ``TRISK_TEAM_W``) quarter-ranks.
    * Multi-card leads (R8.1). It opens as above and adds cards of the rank while they are
      worth at most ``LEAD_EARLY`` (plain cards) or late; then ``done`` (E4).
    * Prostoy (R8.3). It leads five cheap cards when it can (two pairs, or four of a rank,
      and the cheapest fifth), else three (a pair and the cheapest third), else one card as
      above, within the bout limit; cheap means plain early, anything late. The lead is kept
      in ``mem`` while it is laid. Defending, it beats each target the plan can beat without
      spending a trump on a plain card early, and takes the rest (only unbeaten cards are
      picked up).
    * Teams (R8.4). Partners never attack each other, and a transfer never lands on the
      partner, by the rules. Beyond the transfer-risk opening above it plays as at any table:
      piling on more (throwing in low trumps early) was measured and helped one table while
      hurting another.
    * The trump six (R8.5): it always swaps for the face-up trump.
    * A deal of ``LONG_BOUTS`` (60) bouts or more may be a cycle of takes among deterministic
      players: then it beats whenever it can, and opens with a random card (its only use of
      ``rng``; below that length it is deterministic).

``mem`` (``M_SIZE`` words) is zeroed every game. A decision allocates nothing and makes no
calls: every helper is inlined (the general path ``_general`` by numba, at its IR level), and
the history is read inside ``decide``.
"""

import numba

from durak_sim.actions import DEFEND, TAKE
from durak_sim.kernel.bits import popcount
from durak_sim.kernel.config import JIT
from durak_sim.observation import (O_ATTACKER, O_BOUT_LIMIT, O_DEFENDER, O_DISCARD, O_HAND,
                                   O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_N_HIST, O_PHASE,
                                   O_PLAYERS, O_RULES, O_SEAT, O_STOCK, O_TABLE_ATTACKS,
                                   O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT,
                                   O_UNBEATEN, PHASE_DEFEND, PHASE_OPEN)
from durak_sim.registry import register_strategy

from durak_sim.strategies._normal_core import *  # noqa: F401,F403 - weights, helpers
from durak_sim.strategies._normal_tables import _general

#: bump when normal's play changes (numba's cache does not see edits in imported modules:
#: strategies/hard.py inlines ``decide``)
NORMAL_VERSION = 3


@numba.njit(**JIT)  # compiled for the kernel on first use (durak_sim.registry)
def decide(obs, legal, hist, rng, mem):
    # everything that touches an array stays in here: an inlined helper taking arrays would
    # bring back numba's reference counting calls
    if obs[O_RULES] != 0 or obs[O_PLAYERS] != 2:
        act = _general(obs, legal, hist, rng, mem)
    else:  # the two-player default game
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


register_strategy("normal", decide, version=NORMAL_VERSION, memory=M_SIZE, reset=M_SIZE,
                  description="saves trumps, throws in what the defender cannot beat, "
                              "weighs taking, forecasts the empty-stock ending (R10.3)",
                  compile_seconds=5, plays="all")

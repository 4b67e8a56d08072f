"""What a strategy sees (docs/rules.md R6): the observation array and the strategy call.

The engine builds, for the acting seat only, an ``int64`` array ``obs`` of ``OBS_SIZE``
entries. Everything in it is public or the seat's own (R6.1); nothing of the stock order or
of another seat's unrevealed cards is in it (R6.2). Masks are card masks (see ``cards``).

======================  ==============================================================
index                   content
======================  ==============================================================
``O_SEAT``              the acting seat
``O_PLAYERS``           number of seats
``O_TRUMP_SUIT``        trump suit 0..3
``O_TRUMP_CARD``        the face-up trump card (public, R2.2; the six after a swap, R8.5)
``O_HAND``              the acting seat's hand (mask)
``O_ATTACKER``          seat of the main attacker of the current bout
``O_DEFENDER``          seat of the defender
``O_PHASE``             ``PHASE_OPEN`` the main attacker must open, ``PHASE_ATTACK`` the
                        asked attacker may throw in or stop, ``PHASE_DEFEND`` the defender
                        beats, takes (or transfers), ``PHASE_LEAD`` the main attacker adds
                        a card to the lead or ends it, ``PHASE_SWAP`` the trump six's
                        holder swaps or keeps (docs/rules.md E2, E4, E8)
``O_TABLE_ATTACKS``     attack cards on the table (mask)
``O_TABLE_DEFENCES``    defence cards on the table (mask)
``O_UNBEATEN``          in ``PHASE_DEFEND`` the first unbeaten attack card (play order),
                        else -1
``O_N_ATTACKS``         attack cards played this bout
``O_BOUT_LIMIT``        attack limit of this bout (R3.4, R8.2, R8.3)
``O_TAKING``            1 once the defender has said take (R3.5)
``O_STOCK``             cards left in the stock, the face-up trump included
``O_DISCARD``           the discard pile (mask; every card in it was public)
``O_SEEN``              every card ever open: table, discard, the face-up trump (mask)
``O_BOUTS``             bouts completed so far
``O_N_HIST``            entries in the public history array
``O_HAND_SIZES + s``    hand size of seat s (s < 6)
``O_KNOWN + s``         cards seat s is known to hold (mask): picked up by taking and not
                        played since, the face-up trump once drawn, the card taken in a
                        swap, the face-up card of the six-by-six deal
``O_TABLE + 2i``        i-th attack card of the bout (play order), -1 past the end
``O_TABLE + 2i + 1``    the card that beat it, or -1
``O_TO_MOVE``           the seat to act (the acting seat: ``O_SEAT``)
``O_RULES``             the ruleset's ``FLAG_*`` bits (``durak_sim.rules``): multi-card
                        leads, transfer, prostoy, teams, trump-six swap, throw-in by
                        neighbours only
``O_TEAM``              the acting seat's team (0: seats 0, 2, 4; 1: seats 1, 3, 5), -1
                        without teams
``O_N_UNBEATEN``        unbeaten attack cards on the table
``O_N_OUT``             seats out so far
``O_FIRST``             the deal's first attacker
``O_DEALER``            the deal's dealer (the last seat, except in a series, R9.1)
``O_HAND_TARGET``       cards a hand is filled to (6; 5 in prostoy)
``O_PLACES + s``        seat s's place (1 first out ...) once out, else 0
``O_ELIGIBLE``          mask of the seats that may throw in this bout (bit s: seat s)
======================  ==============================================================

Entries 19 and 59..63 are 0 (reserved). A strategy written for two players reads the
same entries as before with the same meaning; the entries from ``O_TO_MOVE`` on are new.

A strategy is a function (numba-compiled for the kernel; the reference engine also calls
plain Python functions with the same arguments)::

    decide(obs, legal, hist, rng, mem) -> action code

* ``legal``: ``legal[0] = n``, ``legal[1..n]`` legal action codes ascending (``actions``).
* ``hist``: public action history, ``obs[O_N_HIST]`` entries (``actions.pack_history``).
* ``rng``: ``uint64[1]``, this seat's own random stream state for this game, derived from
  (master seed, deal index, seat) only; draw with ``durak_sim.kernel.rng.rng_below``.
* ``mem``: ``int64`` workspace private to the seat, of the size the strategy registered.
  At the start of every game the engine adds 1 to ``mem[0]`` (a game stamp, unique within the
  buffer) and zeroes ``mem[1:reset]`` (``reset`` registered too). Strategies must not let
  results depend on anything left from another game but through that contract.
"""
from __future__ import annotations

MAX_SEATS = 6
MAX_TABLE = 6

O_SEAT = 0
O_PLAYERS = 1
O_TRUMP_SUIT = 2
O_TRUMP_CARD = 3
O_HAND = 4
O_ATTACKER = 5
O_DEFENDER = 6
O_PHASE = 7
O_TABLE_ATTACKS = 8
O_TABLE_DEFENCES = 9
O_UNBEATEN = 10
O_N_ATTACKS = 11
O_BOUT_LIMIT = 12
O_TAKING = 13
O_STOCK = 14
O_DISCARD = 15
O_SEEN = 16
O_BOUTS = 17
O_N_HIST = 18
O_HAND_SIZES = 20
O_KNOWN = O_HAND_SIZES + MAX_SEATS  # 26
O_TABLE = O_KNOWN + MAX_SEATS  # 32
O_TO_MOVE = O_TABLE + 2 * MAX_TABLE  # 44
O_RULES = 45
O_TEAM = 46
O_N_UNBEATEN = 47
O_N_OUT = 48
O_FIRST = 49
O_DEALER = 50
O_HAND_TARGET = 51
O_PLACES = 52  # .. 57
O_ELIGIBLE = O_PLACES + MAX_SEATS  # 58
OBS_SIZE = 64

PHASE_OPEN = 0
PHASE_ATTACK = 1
PHASE_DEFEND = 2
PHASE_LEAD = 3
PHASE_SWAP = 4

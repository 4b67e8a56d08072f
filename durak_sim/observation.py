"""What a strategy sees (RULES.md R6): the observation array and the strategy call.

The engine builds, for the acting seat only, an ``int64`` array ``obs`` of ``OBS_SIZE``
entries. Everything in it is public or the seat's own (R6.1); nothing of the stock order or
of another seat's unrevealed cards is in it (R6.2). Masks are card masks (see ``cards``).

======================  ==============================================================
index                   content
======================  ==============================================================
``O_SEAT``              the acting seat
``O_PLAYERS``           number of seats
``O_TRUMP_SUIT``        trump suit 0..3
``O_TRUMP_CARD``        the face-up trump card (public, R2.2)
``O_HAND``              the acting seat's hand (mask)
``O_ATTACKER``          seat of the (main) attacker of the current bout
``O_DEFENDER``          seat of the defender
``O_PHASE``             ``PHASE_OPEN`` attacker must open, ``PHASE_ATTACK`` attacker may
                        throw in or stop, ``PHASE_DEFEND`` defender beats or takes
``O_TABLE_ATTACKS``     attack cards on the table (mask)
``O_TABLE_DEFENCES``    defence cards on the table (mask)
``O_UNBEATEN``          the unbeaten attack card, or -1
``O_N_ATTACKS``         attack cards played this bout
``O_BOUT_LIMIT``        attack limit of this bout (R3.4)
``O_TAKING``            1 once the defender has said take (R3.5)
``O_STOCK``             cards left in the stock, the face-up trump included
``O_DISCARD``           the discard pile (mask; every card in it was public)
``O_SEEN``              every card ever open: table, discard, the face-up trump (mask)
``O_BOUTS``             bouts completed so far
``O_N_HIST``            entries in the public history array
``O_HAND_SIZES + s``    hand size of seat s (s < 6)
``O_KNOWN + s``         cards seat s picked up by taking and has not played since (mask)
``O_TABLE + 2i``        i-th attack card of the bout (play order), -1 past the end
``O_TABLE + 2i + 1``    the card that beat it, or -1
======================  ==============================================================

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
OBS_SIZE = O_TABLE + 2 * MAX_TABLE  # 44

PHASE_OPEN = 0
PHASE_ATTACK = 1
PHASE_DEFEND = 2

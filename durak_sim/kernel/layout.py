"""The kernel's game state: one ``int64`` array ``st`` of ``S_SIZE`` entries, and the layout
of the result rows. Plain constants (no numba), so that Python code can read a state too.

``st[:OBS_SIZE]`` mirrors the observation (``durak_sim.observation``): every entry the
observation shows as it is sits at the index of its ``O_*`` name and is kept up to date as
the game goes (hand sizes, places, the seat to move ...), so that ``observe`` is one block
copy plus the acting seat's own fields. Four slots of that block hold other state, which
``observe`` overwrites: ``S_OVER`` (at ``O_SEAT``), ``S_UNBEATEN_MASK`` (``O_HAND``),
``S_STOCK_TOP`` (entry 19, shown as 0) and ``S_TRANKS`` (``O_TEAM``).

=====================  ========================================================
``S_PLAYERS``          seats; ``S_HAND_TARGET`` cards a hand is filled to
``S_TRUMP_SUIT``       trump suit; ``S_TRUMP_CARD`` the face-up card (R2.2, R8.5)
``S_ATTACKER``         the bout's main attacker; ``S_DEFENDER`` its defender
``S_PHASE``            PHASE_* (observation.py); ``S_TO_MOVE`` the seat to act
``S_TAKING``           1 once the defender has said take (R3.5)
``S_N_ATT``            attack cards this bout; ``S_LIMIT`` the bout limit (R3.4)
``S_TATT/S_TDEF``      masks of attack / defence cards on the table
``S_TRANKS``           mask of every card whose rank is on the table (R3.3)
``S_UNBEATEN``         first unbeaten attack card (play order) while defending, else -1
``S_UNBEATEN_MASK``    every unbeaten attack card; ``S_N_UNBEATEN`` how many
``S_STOCK_N``          cards left in the stock; ``S_STOCK_TOP`` the next one's index
``S_DISCARD``          discard pile; ``S_SEEN`` every card ever open
``S_BOUTS``            bouts completed; ``S_NHIST`` actions played
``S_HAND_SIZES+s``     hand size of seat s; ``S_KNOWN+s`` cards s is known to hold
``S_TABLE+2i``         i-th attack card of the bout, ``S_TABLE+2i+1`` the card beating it
``S_FLAGS``            the ruleset's FLAG_* bits (durak_sim.rules)
``S_N_OUT``            seats out; ``S_PLACES+s`` seat s's place once out, else 0
``S_FIRST``            first attacker (R2.3, R9.1); ``S_DEALER`` the dealer
``S_ELIGIBLE``         seats that may throw in this bout (mask, rules E3)
``S_OVER``             1 when the deal has ended
``S_HANDS+s``          hand of seat s
``S_ACTIVE``           mask of the seats not out
``S_DURAK``            the Durak seat, -1 on a draw or with teams; ``S_DURAK_TEAM``
``S_OUT+k``            the k-th seat out
``S_FACE_UP``          the face-up card as dealt; ``S_SWAPPER`` the trump six's holder
``S_STOCK+k``          the stock in draw order, face-up trump last
``S_DECK+k``           the shuffled deck as dealt (kept for records)
``S_CAPPED``           1 when the deal was ended by the cap on play (rules E12)
=====================  ========================================================
"""
from ..cards import N_CARDS
from ..observation import (MAX_SEATS, O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEALER,
                           O_DEFENDER, O_DISCARD, O_ELIGIBLE, O_FIRST, O_HAND, O_HAND_SIZES,
                           O_HAND_TARGET, O_KNOWN, O_N_ATTACKS, O_N_HIST, O_N_OUT,
                           O_N_UNBEATEN, O_PHASE, O_PLACES, O_PLAYERS, O_RULES, O_SEAT,
                           O_SEEN, O_STOCK, O_TABLE, O_TABLE_ATTACKS, O_TABLE_DEFENCES,
                           O_TAKING, O_TEAM, O_TO_MOVE, O_TRUMP_CARD, O_TRUMP_SUIT,
                           O_UNBEATEN, OBS_SIZE)

S_OVER = O_SEAT
S_PLAYERS = O_PLAYERS
S_TRUMP_SUIT = O_TRUMP_SUIT
S_TRUMP_CARD = O_TRUMP_CARD
S_UNBEATEN_MASK = O_HAND
S_ATTACKER = O_ATTACKER
S_DEFENDER = O_DEFENDER
S_PHASE = O_PHASE
S_TATT = O_TABLE_ATTACKS
S_TDEF = O_TABLE_DEFENCES
S_UNBEATEN = O_UNBEATEN
S_N_ATT = O_N_ATTACKS
S_LIMIT = O_BOUT_LIMIT
S_TAKING = O_TAKING
S_STOCK_N = O_STOCK
S_DISCARD = O_DISCARD
S_SEEN = O_SEEN
S_BOUTS = O_BOUTS
S_NHIST = O_N_HIST
S_STOCK_TOP = 19
S_HAND_SIZES = O_HAND_SIZES
S_KNOWN = O_KNOWN
S_TABLE = O_TABLE
S_TO_MOVE = O_TO_MOVE
S_FLAGS = O_RULES
S_TRANKS = O_TEAM
S_N_UNBEATEN = O_N_UNBEATEN
S_N_OUT = O_N_OUT
S_FIRST = O_FIRST
S_DEALER = O_DEALER
S_HAND_TARGET = O_HAND_TARGET
S_PLACES = O_PLACES
S_ELIGIBLE = O_ELIGIBLE
S_HANDS = OBS_SIZE                       # 64 .. 69
S_ACTIVE = S_HANDS + MAX_SEATS           # 70
S_DURAK = S_ACTIVE + 1
S_DURAK_TEAM = S_ACTIVE + 2
S_FACE_UP = S_ACTIVE + 3
S_SWAPPER = S_ACTIVE + 4
S_OUT = S_ACTIVE + 5                     # 75 .. 80
S_STOCK = 84                             # 84 .. 119
S_DECK = S_STOCK + N_CARDS               # 120 .. 155
S_CAPPED = S_DECK + N_CARDS              # 156
S_SIZE = S_DECK + N_CARDS + 4            # 160
assert S_OUT + MAX_SEATS <= S_STOCK and OBS_SIZE % 4 == 0

#: the observation entries the block copy must show as 0 (``observe``): 19 and 59..63
ZERO_SLOTS = (19, 59, 60, 61, 62, 63)

MAX_BOUT = 6  # R3.4
#: capacity of the action history of one game (rules E12)
MAX_ACTIONS = 4096
#: rules E12: a bout that ends with at least this many actions played ends the deal, a
#: draw among the seats still active (a bout has fewer than 100 actions, so the history
#: never fills)
PLAY_CAP = 3000

# result rows of the batch player (one row per game)
R_OUTCOME = 0      # 0 a Durak (or a losing team), 1 a draw
R_DURAK = 1        # Durak seat, -1 on a draw and with teams
R_FIRST = 2        # first attacker
R_BOUTS = 3
R_CARDS_LEFT = 4   # cards left in the Durak's hand (the losing team's hands) at the end
R_N_ACTIONS = 5
R_DECISIONS = 6    # strategy calls (forced actions are not asked)
R_ERROR = 7        # 0 fine, ERR_ILLEGAL, ERR_TOO_LONG, ERR_STOPPED
R_ERROR_SEAT = 8
R_ERROR_ACTION = 9
R_N_OUT = 10
R_OUT = 11         # .. 16: the seats out in order, -1 past R_N_OUT
R_PLACES = 17      # .. 22: each seat's place (1 first out), 0 past the players
R_DURAK_TEAM = 23  # the losing team, -1 on a draw or without teams
R_DEALER = 24
R_CAPPED = 25      # 1 when the cap on play ended the deal (rules E12)
R_COLS = 26

ERR_ILLEGAL = 1
ERR_TOO_LONG = 2
ERR_STOPPED = 3  # not played: the stop flag was set before the game began

__all__ = [n for n in dir() if n.isupper()]

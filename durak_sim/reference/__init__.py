"""The pure-Python reference engine: every table of docs/rules.md (R1-R9, E1-E13).

Small and slow on purpose. It is written from docs/rules.md alone and is what the numba
kernel is checked against (cross-check deal by deal, perft counts, record replays). Every
rule step cites its id. Cards are ints ``0..35`` and hands int masks (``durak_sim.cards``);
action codes are ``durak_sim.actions``'; the observation is ``durak_sim.observation``'s.

Modules: ``core`` (errors, the seats of a table, prostoy's patterns), ``game``
(``ReferenceGame``), ``positions`` (``parse_position``), ``playing`` (strategies in the
seats, records, series, replay, perft). None imports ``durak_sim.records`` at load time
(records imports ``RecordError`` from here).

A deal (R2, R9.1, E8): dealt from the seat after the dealer (the last seat in a first
deal); the first attacker is the lowest trump's holder (R2.3) in a first deal, the seat after
the dealer in a later one; the defender is the next active seat after the attacker (with
teams the next active opponent, R8.4). In a first deal with ``trump_six_swap`` the trump
six's holder is first asked ``swap`` / ``keep`` (phase SWAP, E8).

State machine of a bout (``phase`` is ``observation.PHASE_*``; "asked" is the seat asked in
ATTACK, E2)::

    SWAP    the trump six's holder: swap or keep (E8)                        -> OPEN
    OPEN    the main attacker opens with any card (R3.1)                 -> LEAD / DEFEND
    LEAD    while a card may join the lead (E4: lead_multiple, its rank within the bout
            limit; prostoy, towards a legal pattern) the main attacker adds one or says
            done (prostoy: only on a finished pattern); when none may, the lead ends by
            itself                                                      -> LEAD / DEFEND
    DEFEND  the defender beats an unbeaten card (R3.2; several unbeaten: naming the
            target, E5), takes, or (perevodnoy, nothing beaten yet) transfers (R8.2,
            E6: the next active seat (opponent) defends every card, the transferrer is
            the main attacker, the bout limit and who may throw in are settled anew)
              still unbeaten cards / a transfer                          -> DEFEND
              all beaten, or a take (not prostoy): a round of asking
              starts at the main attacker                                -> ATTACK
              prostoy: all beaten or a take ends the bout (E7)           -> end
    ATTACK  the asked seat (eligible, E3) throws in a card whose rank is on the table
            (R3.3, R3.4, R3.8) or stops (forced when it cannot, E1, E2)
              a throw-in: the defender answers it                        -> DEFEND
              a throw-in after a take: nobody answers (R3.5); the next
              round starts at the main attacker                          -> ATTACK
              stop: the next eligible seat in asking order is asked      -> ATTACK
              stop by the last eligible seat: the bout ends              -> end
    end     a successful defence discards the table (R3.6); a take gives the defender
            every card (R3.7; prostoy: the unbeaten ones, the beaten pairs discarded);
            drawing: the main attacker, the other active seats after him, the defender
            last (R4, E9); with an empty stock the empty hands go out, in seat order from
            the main attacker (R7.5, E11) and the deal may end (E11); else the next bout
            (E10: after a defence the defender attacks, after a take the seat after him; a
            seat out passes the turn on, with teams to its next active partner)  -> OPEN

With two players this is R3 exactly: the other seat defends, the attacker alone is asked.

>>> from durak_sim.actions import action_str
>>> g = ReferenceGame.new(42, 7)
>>> g.to_move() == g.first_attacker, len(g.legal_actions())
(True, 6)
>>> result = play(42, 7, ["easy", "easy"])["result"]
>>> sorted(result)
['bouts', 'durak', 'out_order', 'outcome']
>>> sorted(play(1, 2, ["easy"] * 4, Rules(variant="teams"))["result"])
['bouts', 'durak', 'durak_team', 'out_order', 'outcome', 'places']
"""
from __future__ import annotations

from ..rules import Rules
from .core import EngineError, IllegalActionError, RecordError, first_attacker_of
from .game import ReferenceGame
from .playing import (
    decisions, divide, hist_for_strategy, legal_array, next_dealer, perft, play, play_game,
    play_series, replay, seat_inputs,
)
from .positions import POSITION_FORMAT, endgame_position, parse_position

MAX_BOUT = 6  # R3.4: at most six attack cards in a bout

__all__ = [
    "IllegalActionError", "RecordError", "EngineError", "ReferenceGame", "parse_position",
    "endgame_position",
    "play", "play_game", "play_series", "replay", "perft", "divide", "first_attacker_of",
    "legal_array", "hist_for_strategy", "seat_inputs", "decisions", "next_dealer",
    "POSITION_FORMAT", "MAX_BOUT", "Rules",
]

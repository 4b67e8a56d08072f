"""The observation in readable form: card strings, table pairs, phase names.

Used by the external-engine protocol (docs/engine-protocol.md: the ``view`` of every
``decide`` message) and by the terminal game (``durak-sim play``). Everything here is read
from the 64-entry observation alone (docs/observation.md), so it shows exactly what the seat
may know (R6.1).

>>> from durak_sim.reference import ReferenceGame
>>> g = ReferenceGame.new(42, 7)
>>> v = observation_view(g.observation())
>>> v["phase"], v["trump"], len(v["hand"]), v["table"]
('open', '9C', 6, [])
>>> legal_texts(g.observation(), g.legal_actions())[:2]
['attack 7H', 'attack 9D']
"""
from __future__ import annotations

from .actions import (DEFEND, DEFEND_AT, N_ACTIONS, TAKE, action_card, action_str,
                      defence_target)
from .cards import SUITS, card_str
from .observation import (
    MAX_TABLE, O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEALER, O_DEFENDER, O_DISCARD,
    O_ELIGIBLE, O_FIRST, O_HAND, O_HAND_SIZES, O_HAND_TARGET, O_KNOWN, O_N_OUT, O_PHASE,
    O_PLACES, O_PLAYERS, O_RULES, O_SEAT, O_SEEN, O_STOCK, O_TABLE, O_TAKING, O_TEAM,
    O_TO_MOVE, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN,
)

#: ``O_PHASE`` values by name (PHASE_OPEN, PHASE_ATTACK, PHASE_DEFEND, PHASE_LEAD, PHASE_SWAP)
PHASES = ("open", "attack", "defend", "lead", "swap")


_CARD_STR = [card_str(c) for c in range(36)]


def _cards(mask) -> list[str]:
    m = int(mask)
    out = []
    while m:
        low = m & -m
        out.append(_CARD_STR[low.bit_length() - 1])
        m ^= low
    return out


def table_pairs(obs) -> list[tuple[int, int]]:
    """The bout's ``(attack, defence or -1)`` pairs in play order."""
    out = []
    for i in range(MAX_TABLE):
        a = int(obs[O_TABLE + 2 * i])
        if a < 0:
            break
        out.append((a, int(obs[O_TABLE + 2 * i + 1])))
    return out


def unbeaten_cards(obs) -> list[int]:
    """The attack cards not beaten yet, in play order (none once the defender took)."""
    if int(obs[O_TAKING]):
        return []
    return [a for a, d in table_pairs(obs) if d < 0]


def observation_view(obs) -> dict:
    """Every entry of ``obs`` in readable form (cards as ``TS``, masks as lists of cards,
    lowest card id first; seats as ints)."""
    n = int(obs[O_PLAYERS])
    phase = int(obs[O_PHASE])
    trump = int(obs[O_TRUMP_CARD])
    team = int(obs[O_TEAM])
    to_move = int(obs[O_TO_MOVE])
    return {
        "seat": int(obs[O_SEAT]),
        "players": n,
        "phase": PHASES[phase] if 0 <= phase < len(PHASES) else str(phase),
        "trump": card_str(trump) if trump >= 0 else None,
        "trump_suit": SUITS[int(obs[O_TRUMP_SUIT])],
        "hand": _cards(obs[O_HAND]),
        "attacker": int(obs[O_ATTACKER]),
        "defender": int(obs[O_DEFENDER]),
        "to_move": None if to_move < 0 else to_move,
        "table": [[card_str(a), card_str(d) if d >= 0 else None] for a, d in table_pairs(obs)],
        "unbeaten": [card_str(c) for c in unbeaten_cards(obs)],
        "first_unbeaten": card_str(int(obs[O_UNBEATEN])) if int(obs[O_UNBEATEN]) >= 0 else None,
        "taking": bool(obs[O_TAKING]),
        "bout_limit": int(obs[O_BOUT_LIMIT]),
        "stock": int(obs[O_STOCK]),
        "discard": _cards(obs[O_DISCARD]),
        "seen": _cards(obs[O_SEEN]),
        "bouts": int(obs[O_BOUTS]),
        "hand_sizes": [int(obs[O_HAND_SIZES + s]) for s in range(n)],
        "known": [_cards(obs[O_KNOWN + s]) for s in range(n)],
        "places": [int(obs[O_PLACES + s]) for s in range(n)],
        "out": int(obs[O_N_OUT]),
        "team": None if team < 0 else team,
        "eligible": [s for s in range(n) if int(obs[O_ELIGIBLE]) >> s & 1],
        "first_attacker": int(obs[O_FIRST]),
        "dealer": int(obs[O_DEALER]),
        "hand_target": int(obs[O_HAND_TARGET]),
        "rules_flags": int(obs[O_RULES]),
    }


def action_target(obs, code: int) -> int:
    """The attack card a defence code beats (its named target, or the one unbeaten card),
    -1 for any other action."""
    if DEFEND_AT <= code < N_ACTIONS:
        return defence_target(code)
    if DEFEND <= code < TAKE:
        return int(obs[O_UNBEATEN])
    return -1


def action_text(obs, code: int) -> str:
    """Record notation of a legal action, a defence with its target: ``defend 9D 7D``."""
    return action_str(code if not DEFEND_AT <= code < N_ACTIONS else DEFEND + action_card(code),
                      action_target(obs, code))


def legal_texts(obs, codes) -> list[str]:
    """Record notation of each legal action code (``action_text``)."""
    return [action_text(obs, int(c)) for c in codes]

"""Action codes shared by the kernel, the reference engine and every strategy.

An action is a small int:

==============  ======================  =============================================
code            meaning                 record form (docs/game-record.md)
==============  ======================  =============================================
``0..35``       attack with card c      ``{"act": "attack", "card": c}``
``36..71``      defend with card c      ``{"act": "defend", "card": c, "target": t}``
``72``          take                    ``{"act": "take"}``
``73``          stop                    ``{"act": "stop"}``
``74..109``     transfer with card c    ``{"act": "transfer", "card": c}`` (R8.2)
``110``         end the lead            ``{"act": "done"}`` (R8.1, R8.3; rules E4)
``111``         swap the trump six      ``{"act": "swap"}`` (R8.5; rules E8)
``112``         keep it                 ``{"act": "keep"}``
``256 + 36t+c`` defend c against t      ``{"act": "defend", "card": c, "target": t}``
==============  ======================  =============================================

Attack covers the opening card (R3.1), a card added to a lead (E4) and a throw-in (R3.3,
R3.5). While exactly one attack card is unbeaten a defence covers it (code ``36 + c``, its
target implied); while several are (E5), each defence code names its target
(``DEFEND_AT + 36 * t + c``). The history and the records carry the target of every
defence either way, with the code ``36 + c``.

History entries (the public action history a strategy sees, R6.1) pack the acting seat and
the defence target with the code: ``entry = code | seat << 8 | (target + 1) << 12``
(``target + 1 == 0`` when the action has no target; the code is always below 256).

Legal action lists are int64 arrays: ``legal[0]`` is the count ``n`` and ``legal[1..n]`` the
codes in ascending order (at most ``LEGAL_SIZE - 1`` of them). When only one action is legal
the engine plays it without asking the strategy (both engines do this, so strategy
randomness is consumed identically).

>>> action_str(ATTACK + 16), action_str(DEFEND + 17, target=16), action_str(TAKE)
('attack TS', 'defend TC TS', 'take')
"""
from __future__ import annotations

from .cards import card_str, parse_card

ATTACK = 0
DEFEND = 36
TAKE = 72
STOP = 73
TRANSFER = 74
DONE = 110
SWAP = 111
KEEP = 112
DEFEND_AT = 256
N_ACTIONS = DEFEND_AT + 36 * 36
#: legal[0] count + up to 255 actions: at most 6 targets x 30 cards + 4 transfers + take
LEGAL_SIZE = 256

HIST_SEAT_SHIFT = 8
HIST_TARGET_SHIFT = 12


def defend_at(card: int, target: int) -> int:
    """The code of beating ``target`` with ``card`` while several attack cards are unbeaten."""
    return DEFEND_AT + 36 * target + card


def is_attack(code: int) -> bool:
    return 0 <= code < DEFEND


def is_defend(code: int) -> bool:
    return DEFEND <= code < TAKE or DEFEND_AT <= code < N_ACTIONS


def defence_target(code: int) -> int:
    """The target a ``DEFEND_AT`` code names, -1 for any other code."""
    return (code - DEFEND_AT) // 36 if DEFEND_AT <= code < N_ACTIONS else -1


def action_card(code: int) -> int:
    """Card of an attack/defend/transfer code, -1 for take and stop."""
    if code < DEFEND:
        return code
    if code < TAKE:
        return code - DEFEND
    if TRANSFER <= code < DONE:
        return code - TRANSFER
    if DEFEND_AT <= code < N_ACTIONS:
        return (code - DEFEND_AT) % 36
    return -1


def action_str(code: int, target: int = -1) -> str:
    """Record notation of an action: ``attack 7D``, ``defend 9D 7D``, ``take``, ``stop``."""
    if code == TAKE:
        return "take"
    if code == STOP:
        return "stop"
    if code in NAMED:
        return NAMED[code]
    if DEFEND_AT <= code < N_ACTIONS:
        return f"defend {card_str(action_card(code))} {card_str(defence_target(code))}"
    if is_attack(code):
        return f"attack {card_str(code)}"
    if is_defend(code):
        s = f"defend {card_str(code - DEFEND)}"
        return s + (f" {card_str(target)}" if target >= 0 else "")
    if TRANSFER <= code < DONE:
        return f"transfer {card_str(code - TRANSFER)}"
    raise ValueError(f"not an action code: {code}")


NAMED = {DONE: "done", SWAP: "swap", KEEP: "keep"}


def parse_action(text: str) -> tuple[int, int]:
    """``(code, target)`` from record notation; target is -1 unless it is a defence."""
    parts = text.split()
    if parts == ["take"]:
        return TAKE, -1
    if parts == ["stop"]:
        return STOP, -1
    for code, word in NAMED.items():
        if parts == [word]:
            return code, -1
    if len(parts) == 2 and parts[0] == "attack":
        return ATTACK + parse_card(parts[1]), -1
    if len(parts) == 2 and parts[0] == "transfer":
        return TRANSFER + parse_card(parts[1]), -1
    if len(parts) in (2, 3) and parts[0] == "defend":
        target = parse_card(parts[2]) if len(parts) == 3 else -1
        return DEFEND + parse_card(parts[1]), target
    raise ValueError(f"unknown action {text!r}")


def pack_history(code: int, seat: int, target: int = -1) -> int:
    return code | seat << HIST_SEAT_SHIFT | (target + 1) << HIST_TARGET_SHIFT


def unpack_history(entry: int) -> tuple[int, int, int]:
    """``(code, seat, target)`` of a history entry."""
    return entry & 0xFF, (entry >> HIST_SEAT_SHIFT) & 0xF, (entry >> HIST_TARGET_SHIFT) - 1

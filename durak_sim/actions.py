"""Action codes shared by the kernel, the reference engine and every strategy.

An action is a small int:

=============  ====================  ======================================
code           meaning               record form (spec/game-record.md)
=============  ====================  ======================================
``0..35``      attack with card c    ``{"act": "attack", "card": c}``
``36..71``     defend with card c    ``{"act": "defend", "card": c, "target": t}``
``72``         take                  ``{"act": "take"}``
``73``         stop                  ``{"act": "stop"}``
``74..109``    transfer with card c  ``{"act": "transfer", "card": c}`` (R8.2, variants)
=============  ====================  ======================================

Attack covers both the opening card (R3.1) and a throw-in (R3.3, R3.5). A defence always
covers the one unbeaten attack card (R3.2), so its target is implied by the position; the
history and the records carry it anyway.

History entries (the public action history a strategy sees, R6.1) pack the acting seat and
the defence target with the code: ``entry = code | seat << 8 | (target + 1) << 12``
(``target + 1 == 0`` when the action has no target).

Legal action lists are int64 arrays: ``legal[0]`` is the count ``n`` and ``legal[1..n]`` the
codes in ascending order. When only one action is legal the engine plays it without asking
the strategy (both engines do this, so strategy randomness is consumed identically).

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
N_ACTIONS = 110
LEGAL_SIZE = 64  # legal[0] count + up to 63 actions (36 cards + take + stop, transfers later)

HIST_SEAT_SHIFT = 8
HIST_TARGET_SHIFT = 12


def is_attack(code: int) -> bool:
    return 0 <= code < DEFEND


def is_defend(code: int) -> bool:
    return DEFEND <= code < TAKE


def action_card(code: int) -> int:
    """Card of an attack/defend/transfer code, -1 for take and stop."""
    if code < DEFEND:
        return code
    if code < TAKE:
        return code - DEFEND
    if code >= TRANSFER:
        return code - TRANSFER
    return -1


def action_str(code: int, target: int = -1) -> str:
    """Record notation of an action: ``attack 7D``, ``defend 9D 7D``, ``take``, ``stop``."""
    if code == TAKE:
        return "take"
    if code == STOP:
        return "stop"
    if is_attack(code):
        return f"attack {card_str(code)}"
    if is_defend(code):
        s = f"defend {card_str(code - DEFEND)}"
        return s + (f" {card_str(target)}" if target >= 0 else "")
    if TRANSFER <= code < N_ACTIONS:
        return f"transfer {card_str(code - TRANSFER)}"
    raise ValueError(f"not an action code: {code}")


def parse_action(text: str) -> tuple[int, int]:
    """``(code, target)`` from record notation; target is -1 unless it is a defence."""
    parts = text.split()
    if parts == ["take"]:
        return TAKE, -1
    if parts == ["stop"]:
        return STOP, -1
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

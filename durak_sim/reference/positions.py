"""``parse_position``: a ``durak-sim/position/1`` dict (docs/position.md), any table, read and
checked against the rules (one-line ValueError naming what is wrong).

>>> p = parse_position({"trump": "D", "hands": [["6S"], ["7S"]], "stock": [], "attacker": 0})
>>> p["phase"], p["defender"], p["bout_limit"], p["rules"]
(0, 1, 1, None)
>>> p = parse_position({"trump": "QD", "hands": [["6S"], [], ["7S", "TS"]], "stock": [],
...                     "attacker": 2, "out": [1], "table": [["8S", "9S"]],
...                     "rules": {"players": 3, "hand_size": 6, "variant": "podkidnoy"}})
>>> p["phase"], p["defender"], p["asked"], p["out"]
(1, 0, 2, [1])
"""
from __future__ import annotations

import json

from ..cards import beats, card_rank, card_str, card_suit, mask_cards, parse_card, parse_suit
from ..observation import PHASE_ATTACK, PHASE_DEFEND, PHASE_LEAD, PHASE_OPEN, PHASE_SWAP
from ..rules import Rules
from .core import (
    MAX_BOUT, MAX_PROSTOY, ask_order, defender_of, eligible_mask, is_prostoy_pattern,
)

POSITION_FORMAT = "durak-sim/position/1"


def endgame_position(game) -> dict:
    """The position of a reference game in which at most two seats still play, as
    ``durak-sim solve`` reads it (docs/position.md): the ruleset, the seats out, the defender
    and the lead only when they are not the default game's."""
    d = {"format": POSITION_FORMAT, "trump": "SCDH"[game.trump_suit],
         "hands": [[card_str(c) for c in mask_cards(h)] for h in game.hands],
         "stock": [card_str(c) for c in game.stock], "attacker": game.attacker,
         "table": [[card_str(a), card_str(b) if b >= 0 else None] for a, b in game.table],
         "taking": bool(game.taking), "bout_limit": game.bout_limit if game.table else None}
    if not game.rules.is_default:
        d["rules"] = game.rules.to_dict()
        if game.out:
            d["out"] = list(game.out)
            d["defender"] = game.defender
        if game.phase == PHASE_LEAD:
            d["lead"] = True
    return d


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _seat(value, name: str, n: int) -> int:
    if not _is_int(value) or not 0 <= value < n:
        raise ValueError(f"{name} must be a seat 0..{n - 1}, got {value!r}")
    return value


def _flag(pos: dict, name: str) -> bool:
    value = pos.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def parse_position(pos: dict, finished_ok: bool = False) -> dict:
    """Parse and validate a position dict (docs/position.md), of any table.

    Returns card ids: ``hands`` (lists), ``stock``, ``trump_suit``, ``trump_card`` (-1 if
    unknown), ``attacker``, ``table`` ([attack, defence or None] pairs), ``taking``,
    ``bout_limit``, the derived ``phase`` (``observation.PHASE_*``), and ``rules`` (a Rules,
    None for the default game), ``out`` (seats in the order they went out), ``defender``,
    ``asked`` (the seat asked now; the main attacker outside the asking), ``known`` (per seat,
    card-id lists), ``first_attacker``, ``dealer`` and ``swapper`` (the trump six's holder
    when ``swap``, else None). Raises ValueError with a one-line message. ``finished_ok``
    takes a finished deal of two seats (an empty hand at the start of a bout, the stock
    empty), which a game cannot go on from but the solver answers with its result.
    """
    if isinstance(pos, str):
        pos = json.loads(pos)
    if not isinstance(pos, dict):
        raise ValueError("a position must be a JSON object")
    fmt = pos.get("format", POSITION_FORMAT)
    if fmt != POSITION_FORMAT:
        raise ValueError(f"unknown position format {fmt!r} (expected {POSITION_FORMAT!r})")
    for key in ("trump", "hands", "stock", "attacker"):
        if key not in pos:
            raise ValueError(f"position lacks {key!r}")
    rules = None
    if pos.get("rules") is not None:
        try:
            rules = Rules.from_dict(pos["rules"])
        except ValueError as exc:
            raise ValueError(f"position rules: {exc}") from None
    r = rules or Rules()
    n = r.players
    placed: dict[int, str] = {}

    def place(text, where: str) -> int:
        try:
            card = parse_card(text)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if card in placed:
            raise ValueError(f"card {card_str(card)} appears twice ({placed[card]} and {where})")
        placed[card] = where
        return card

    hands_in = pos["hands"]
    if not isinstance(hands_in, list) or len(hands_in) != n:
        got = len(hands_in) if isinstance(hands_in, list) else "no"
        raise ValueError(f"a position needs exactly {n} hands ({n} players), got {got}")
    hands = []
    for s, h in enumerate(hands_in):
        if not isinstance(h, list):
            raise ValueError(f"hand {s} must be a list of cards")
        hands.append([place(c, f"hand {s}") for c in h])
    if not isinstance(pos["stock"], list):
        raise ValueError("stock must be a list of cards")
    stock = [place(c, "stock") for c in pos["stock"]]

    trump = pos["trump"]
    try:
        trump_suit = parse_suit(trump)
        trump_card = parse_card(trump) if isinstance(trump, str) and len(trump) == 2 else -1
    except ValueError:
        raise ValueError(f"bad trump {trump!r} (a suit letter S C D H or a card)") from None
    if stock:  # R2.2: the face-up trump is the stock's last card
        if trump_card >= 0 and trump_card != stock[-1]:
            raise ValueError(f"trump card {card_str(trump_card)} must be the last stock card "
                             f"(face up, R2.2), not {card_str(stock[-1])}")
        if card_suit(stock[-1]) != trump_suit:
            raise ValueError(f"the last stock card {card_str(stock[-1])} is face up and must be "
                             f"of the trump suit (R2.2)")
        trump_card = stock[-1]

    # R7.5: who is out already, in the order they went out
    out_in = pos.get("out") or []
    if not isinstance(out_in, list):
        raise ValueError("out must be a list of seats")
    out = [_seat(s, "a seat out", n) for s in out_in]
    if len(set(out)) != len(out):
        raise ValueError("a seat is out twice")
    for s in out:
        if hands[s]:
            raise ValueError(f"seat {s} is out but holds cards (R7.5)")
    if out and stock:
        raise ValueError("a seat is out while the stock is not empty (R5.1, R7.5)")
    active = [s not in out for s in range(n)]
    if sum(active) < 2 or (r.teams and not all(any(active[s] for s in range(t, n, 2))
                                               for t in (0, 1))):
        raise ValueError("the deal is over: too few seats are still playing (E11)")

    attacker = pos["attacker"]
    if not _is_int(attacker) or not 0 <= attacker < n:
        raise ValueError(f"attacker must be a seat 0..{n - 1}, got {attacker!r}")
    if not active[attacker]:
        raise ValueError(f"the attacker, seat {attacker}, is out")
    defender = pos.get("defender")
    if defender is None:  # R2.4, R7.1, R8.4
        defender = defender_of(attacker, active, r.teams)
    else:
        _seat(defender, "defender", n)
        if defender == attacker or not active[defender]:
            raise ValueError(f"defender {defender} must be an active seat other than the "
                             f"attacker")
        if r.teams and defender & 1 == attacker & 1:
            raise ValueError(f"defender {defender} is the attacker's partner (R8.4)")
    taking = _flag(pos, "taking")
    lead = _flag(pos, "lead")
    swap = _flag(pos, "swap")

    table, phase = _table(pos, r, place, trump_suit, taking, lead)
    n_def = sum(d is not None for _, d in table)
    cap = MAX_PROSTOY if r.prostoy else MAX_BOUT
    limit = pos.get("bout_limit")
    if limit is None:  # R3.4: the defender's hand when the bout opened (E6: give it)
        limit = min(cap, len(hands[defender]) + n_def)
    elif not _is_int(limit) or not 1 <= limit <= cap:
        raise ValueError(f"bout_limit must be 1..{cap} or null, got {limit!r}")
    if len(table) > limit:
        raise ValueError(f"{len(table)} attacks exceed the bout limit {limit} (R3.4)")

    over = finished_ok and not stock and not (hands[attacker] and hands[defender])
    if not table and not over:
        if not hands[attacker]:
            raise ValueError("the attacker has no card to open the bout with (R3.1)")
        if not hands[defender]:
            raise ValueError("the defender has no cards at the start of a bout (R5.1)")

    swapper = None
    if swap:  # E8, R8.5
        six = trump_suit
        swapper = next((s for s in range(n) if six in hands[s]), None)
        if not r.trump_six_swap or table or not stock or stock[-1] == six or swapper is None:
            raise ValueError("swap needs the trump-six swap rule, an empty table, a stock and "
                             "the trump six in a hand (R8.5, E8)")
        phase = PHASE_SWAP

    eligible = eligible_mask(attacker, defender, active, r.teams, r.throw_in_scope, r.prostoy)
    asked = pos.get("asked")
    if asked is None:
        asked = attacker
    else:
        _seat(asked, "asked", n)
        if phase != PHASE_ATTACK and asked != attacker:
            raise ValueError("asked is a seat only while the attackers are asked (E2)")
        if asked not in ask_order(attacker, defender, eligible, n):
            raise ValueError(f"seat {asked} may not throw in this bout (E3)")

    known_in = pos.get("known") or [[] for _ in range(n)]
    if not isinstance(known_in, list) or len(known_in) != n:
        raise ValueError(f"known must be a list of {n} card lists (one per seat)")
    known = []
    for s, cards in enumerate(known_in):
        if not isinstance(cards, list):
            raise ValueError(f"known {s} must be a list of cards")
        ids = [parse_card(c) for c in cards]
        if not set(ids) <= set(hands[s]):
            raise ValueError(f"known cards of seat {s} must be in its hand (R6.1)")
        known.append(ids)
    first = _seat(pos.get("first_attacker", attacker), "first_attacker", n)
    dealer = _seat(pos.get("dealer", n - 1), "dealer", n)
    return {"hands": hands, "stock": stock, "trump_suit": trump_suit, "trump_card": trump_card,
            "attacker": attacker, "table": table, "taking": taking, "bout_limit": limit,
            "phase": phase, "rules": rules, "out": out, "defender": defender, "asked": asked,
            "known": known, "first_attacker": first, "dealer": dealer, "swapper": swapper}


def _table(pos: dict, r: Rules, place, trump_suit: int, taking: bool, lead: bool):
    """The bout's pairs, checked (R1.3, R3.3, E4, E5, R8.3), and the phase they make."""
    table_in = pos.get("table") or []
    if not isinstance(table_in, list):
        raise ValueError("table must be a list of [attack, defence-or-null] pairs")
    several = r.lead_multiple or r.transfer or r.prostoy  # E5: several unbeaten at once
    table: list[tuple[int, int | None]] = []
    ranks: set[int] = set()
    unbeaten = 0
    for i, pair in enumerate(table_in):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"table pair {i} must be [attack, defence-or-null]")
        a = place(pair[0], f"table pair {i}")
        if i > 0 and card_rank(a) not in ranks and not r.prostoy:
            raise ValueError(f"table pair {i}: {card_str(a)} matches no rank on the table (R3.3)")
        d = None
        if pair[1] is not None:
            d = place(pair[1], f"table pair {i}")
            if unbeaten and not several:
                raise ValueError(f"table pair {i}: a defence after an unbeaten attack")
            if not beats(d, a, trump_suit):
                raise ValueError(f"table pair {i}: {card_str(d)} does not beat {card_str(a)} "
                                 f"(R1.3)")
            ranks.add(card_rank(d))
        else:
            unbeaten += 1
        ranks.add(card_rank(a))
        table.append((a, d))
    if unbeaten > 1 and not taking and not several:
        raise ValueError(f"{unbeaten} unbeaten attacks while not taking (R3.2)")
    if taking and not unbeaten:
        raise ValueError("taking needs an unbeaten attack on the table")
    if taking and r.prostoy:
        raise ValueError("in prostoy a take ends the bout at once (E7): taking cannot be true")
    if lead:
        if not table or unbeaten != len(table) or taking or not (r.lead_multiple or r.prostoy):
            raise ValueError("lead needs multi-card leads or prostoy and a table of unbeaten "
                             "lead cards (E4)")
        if r.lead_multiple and len({card_rank(a) for a, _ in table}) > 1:
            raise ValueError("a lead holds cards of one rank (R8.1)")
        return table, PHASE_LEAD
    if r.prostoy and table:
        if not is_prostoy_pattern([a for a, _ in table]):
            raise ValueError("the attack cards are not a prostoy lead (R8.3)")
        if not unbeaten:
            raise ValueError("in prostoy a bout ends when every card is beaten (E7)")
    if not table:
        return table, PHASE_OPEN
    if unbeaten and not taking:
        return table, PHASE_DEFEND
    return table, PHASE_ATTACK

"""Fully specified two-player positions, the ``durak-sim/position/1`` format (docs/position.md).

Every card's place is known and the stock's order is fixed, so a position is a game of perfect
information (see ``durak_sim.solve``). Cards are ints and hands are masks (``durak_sim.cards``).

Besides the two-player default game, a position may name its ruleset (``rules``): the
transfer game and multi-card leads (a lead still being laid: ``lead``), and a larger table
where exactly two seats still play (the others in ``out``; ``defender`` and the other table
fields as docs/position.md says). Such a position is read by the reference engine's parser
(``durak_sim.reference.parse_position``, which checks it against the rules) and kept as the
two seats left: ``hands`` are theirs, lower seat first, ``seats`` their seats at the table,
``attacker`` 0 or 1 among them. Prostoy, the trump-six swap and three seats or more are
refused, each in one line naming why.

>>> p = Position.from_json('{"format": "durak-sim/position/1", "trump": "D", "stock": [], '
...                        '"hands": [["6S", "KD", "9H"], ["TS", "7D"]], "attacker": 0}')
>>> p.to_move, p.phase, p.defender
(0, 'open', 1)
>>> Position.from_dict(p.to_dict()) == p
True
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .cards import (
    N_CARDS, SUITS, beats, card_rank, card_str, card_suit, mask_cards, parse_card,
)
from .errors import UserError, option
from .position_play import check_play, reopened
from .rules import Rules

POSITION_FORMAT = "durak-sim/position/1"
MAX_BOUT = 6  # R3.4
REQUIRED_KEYS = ("format", "trump", "hands", "stock", "attacker")
OPTIONAL_KEYS = ("table", "taking", "bout_limit")
#: fields of positions of the larger tables (docs/position.md), which the solver does not take
TABLE_KEYS = ("rules", "out", "defender", "asked", "lead", "swap", "known", "first_attacker",
              "dealer")


@dataclass(frozen=True)
class Position:
    """A two-player position (docs/position.md).

    ``hands``: the two seats' card masks. ``stock``: card ids in draw order (the face-up trump
    last). ``table``: the bout's ``(attack, defence or -1)`` pairs in play order, empty at the
    start of a bout. ``bout_limit``: the bout's attack limit (R3.4), ``None`` at the start of a
    bout (it is fixed when the attacker opens); mid-bout it must be ``min(6, the defender's
    cards when the bout opened)``, his hand plus his defences on the table. Construction
    validates everything and raises ``UserError`` with a one-line message.
    """

    trump_suit: int
    hands: tuple[int, int]
    stock: tuple[int, ...] = ()
    attacker: int = 0
    table: tuple[tuple[int, int], ...] = ()
    taking: bool = False
    bout_limit: int | None = None
    #: the ruleset (None: the two-player default game), the lead being laid (E4), the
    #: table's seats of ``hands[0]`` and ``hands[1]``, the seats out in order (R7.5)
    rules: Rules | None = None
    lead: bool = False
    seats: tuple[int, int] = (0, 1)
    out: tuple[int, ...] = ()
    #: per seat of the table, the card ids known to be in its hand (R6.1), or empty: the
    #: search does not need them (every card is known to it); expert's advice does
    known: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self):
        _validate(self)

    @property
    def variant(self) -> bool:
        """Whether the variant search plays it (transfers or multi-card leads)."""
        return self.rules is not None and (self.rules.transfer or self.rules.lead_multiple)

    # ---- reading and writing ------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Any, reachable: bool = True) -> "Position":
        """A position from its JSON object (a dict); ``UserError`` on anything malformed, or
        (``reachable``) on a bout no play of a deal leads to (``position_play``). Tests of the
        search take small endgames with a stock, which no deal reaches, with ``False``."""
        p = cls._from_dict(d)
        if reachable:
            try:
                check_play(p)
            except UserError as e:
                how = option("solve --any-position", "Position.from_dict(d, reachable=False)")
                raise UserError(f"{e}; no deal reaches it ({how} reads it all the same)"
                                ) from None
        return p

    @classmethod
    def _from_dict(cls, d: Any) -> "Position":
        if not isinstance(d, dict):
            raise UserError(f"a position must be a JSON object, not {_kind(d)}")
        missing = [k for k in REQUIRED_KEYS if k not in d]
        if missing:
            raise UserError(f"position: missing key(s): {', '.join(missing)}")
        rules = None
        if d.get("rules") is not None:
            from .rules import RulesError

            try:
                rules = Rules.from_dict(d["rules"])
            except RulesError as exc:
                raise UserError(f"position: rules: {exc}") from None
            if rules.prostoy:
                raise UserError(f"the solver does not play prostoy ({rules.describe()}): its "
                                f"endgames are not searched")
        if (rules is not None and not rules.is_default) or \
                any(_given(d.get(k)) for k in TABLE_KEYS if k != "rules"):
            return _from_table_dict(d, rules or Rules())
        d = {k: v for k, v in d.items() if k not in TABLE_KEYS}
        unknown = sorted(set(d) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
        if unknown:
            raise UserError(f"position: unknown key(s): {', '.join(map(str, unknown))}")
        if d["format"] != POSITION_FORMAT:
            raise UserError(f"position: format must be {POSITION_FORMAT!r}, not {d['format']!r}")
        trump_suit = _parse_trump(d["trump"])
        trump_card = None if len(d["trump"]) == 1 else parse_card(d["trump"])

        hands = d["hands"]
        if not isinstance(hands, list) or len(hands) != 2:
            raise UserError("position: hands must be a list of two lists of cards")
        seen = _Seen()
        masks = []
        for seat, hand in enumerate(hands):
            m = 0
            for c in _card_list(hand, f"hands[{seat}]"):
                seen.add(c, f"hands[{seat}]")
                m |= 1 << c
            masks.append(m)
        stock = tuple(_card_list(d["stock"], "stock"))
        for c in stock:
            seen.add(c, "stock")

        attacker = d["attacker"]
        if type(attacker) is not int or attacker not in (0, 1):
            raise UserError(f"position: attacker must be 0 or 1, not {attacker!r}")

        table_in = d.get("table", [])
        if table_in is None:
            table_in = []
        if not isinstance(table_in, list):
            raise UserError("position: table must be a list of [attack, defence or null] pairs")
        table = []
        for i, pair in enumerate(table_in):
            if not isinstance(pair, list) or len(pair) != 2:
                raise UserError(f"position: table[{i}] must be a pair [attack, defence or null]")
            a = _card(pair[0], f"table[{i}]")
            seen.add(a, "table")
            if pair[1] is None:
                dfc = -1
            else:
                dfc = _card(pair[1], f"table[{i}]")
                seen.add(dfc, "table")
            table.append((a, dfc))

        taking = d.get("taking", False)
        if taking is None:
            taking = False
        if not isinstance(taking, bool):
            raise UserError(f"position: taking must be true or false, not {taking!r}")
        limit = d.get("bout_limit")
        if limit is not None and (type(limit) is not int):
            raise UserError(f"position: bout_limit must be an integer or null, not {limit!r}")
        if limit is None and table:
            limit = min(MAX_BOUT, _held_at_open(masks[1 - attacker], table))
        if trump_card is not None and stock and stock[-1] != trump_card:
            raise UserError(f"position: the trump card {card_str(trump_card)} must be the last "
                            f"card of the stock (it is drawn last, R2.2), not "
                            f"{card_str(stock[-1])}")
        return cls(trump_suit, (masks[0], masks[1]), stock, attacker, tuple(table), taking,
                   limit)

    @classmethod
    def from_json(cls, text: str) -> "Position":
        from .records import loads

        try:
            d = loads(text, unique_keys=True)
        except ValueError as e:
            raise UserError(f"invalid JSON: {e}") from None
        return cls.from_dict(d)

    def to_dict(self) -> dict:
        """The JSON object of the position (docs/position.md); hands listed lowest card first."""
        if self.rules is not None:
            return self._table_dict()
        return {
            "format": POSITION_FORMAT,
            "trump": SUITS[self.trump_suit],
            "hands": [[card_str(c) for c in mask_cards(h)] for h in self.hands],
            "stock": [card_str(c) for c in self.stock],
            "attacker": self.attacker,
            "table": [[card_str(a), card_str(d) if d >= 0 else None] for a, d in self.table],
            "taking": self.taking,
            "bout_limit": self.bout_limit,
        }

    def _table_dict(self) -> dict:
        hands = [[] for _ in range(self.rules.players)]
        for seat, h in zip(self.seats, self.hands):
            hands[seat] = [card_str(c) for c in mask_cards(h)]
        d = {"format": POSITION_FORMAT, "trump": SUITS[self.trump_suit], "hands": hands,
             "stock": [card_str(c) for c in self.stock],
             "attacker": self.seats[self.attacker],
             "table": [[card_str(a), card_str(x) if x >= 0 else None] for a, x in self.table],
             "taking": self.taking, "bout_limit": self.bout_limit,
             "rules": self.rules.to_dict()}
        if self.out:
            d["out"] = list(self.out)
            d["defender"] = self.seats[self.defender]
        if self.lead:
            d["lead"] = True
        if self.known:
            d["known"] = [[card_str(c) for c in sorted(k)] for k in self.known]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def seat_name(self, s: int) -> str:
        """``seat N`` of the table for the solver's seat ``s`` (0 or 1)."""
        return f"seat {self.seats[s]}"

    # ---- questions ------------------------------------------------------------------------
    @property
    def defender(self) -> int:
        return 1 - self.attacker

    @property
    def unbeaten(self) -> int:
        """The attack card the defender must answer, or -1 (none, or taking)."""
        if self.taking:
            return -1
        for a, d in self.table:
            if d < 0:
                return a
        return -1

    @property
    def phase(self) -> str:
        """``open`` (the attacker must open), ``lead`` (he is laying a lead of several cards,
        E4), ``defend`` (beat, take or transfer) or ``attack`` (throw in or stop, also while
        the defender is taking)."""
        if not self.table:
            return "open"
        if self.lead:
            return "lead"
        return "defend" if self.unbeaten >= 0 else "attack"

    @property
    def to_move(self) -> int | None:
        """The seat to act, ``None`` when the deal is over."""
        if self.is_over():
            return None
        return self.defender if self.phase == "defend" else self.attacker

    def is_over(self) -> bool:
        """At the start of a bout with an empty stock and an empty hand (R5.1)."""
        return not self.table and not self.stock and (self.hands[0] == 0 or self.hands[1] == 0)

    def result(self) -> int | None:
        """The value of a finished deal (seat 0's view: 1, 0, -1), else ``None``."""
        if not self.is_over():
            return None
        h0, h1 = self.hands
        return 0 if h0 == 0 and h1 == 0 else (1 if h0 == 0 else -1)


# ---- validation -----------------------------------------------------------------------------
class _Seen:
    def __init__(self):
        self.where: dict[int, str] = {}

    def add(self, card: int, where: str) -> None:
        if card in self.where:
            w = self.where[card]
            place = f"{w} and {where}" if w != where else f"{where} twice"
            raise UserError(f"position: card {card_str(card)} appears twice ({place})")
        self.where[card] = where


def _given(x: Any) -> bool:
    """Whether a table field holds a value: not null, false or ``[]`` (a seat 0 is one)."""
    return not (x is None or x is False or isinstance(x, list) and not x)


def _kind(x: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "a boolean", type(None): "null"}.get(type(x), type(x).__name__)


def _parse_trump(t: Any) -> int:
    if isinstance(t, str) and len(t) == 1 and t.upper() in SUITS:
        return SUITS.index(t.upper())
    if isinstance(t, str) and len(t) == 2:
        try:
            return card_suit(parse_card(t))
        except ValueError:
            pass
    raise UserError(f"position: trump must be a suit letter (S C D H) or a card like 'QD', "
                    f"not {t!r}")


def _card(x: Any, where: str) -> int:
    if not isinstance(x, str):
        raise UserError(f"position: {where}: a card must be a string like 'TS', not {x!r}")
    try:
        return parse_card(x)
    except ValueError:
        raise UserError(f"position: {where}: unknown card {x!r} (ranks 6789TJQKA, suits SCDH)") \
            from None


def _card_list(x: Any, where: str) -> list[int]:
    if not isinstance(x, list):
        raise UserError(f"position: {where} must be a list of cards, not {_kind(x)}")
    return [_card(c, where) for c in x]


def _validate(p: Position) -> None:
    """Types, then every rule a reachable position keeps (R1-R5; for a ruleset's position the
    reference parser checked the rest, and the bout limit is checked here)."""
    if type(p.trump_suit) is not int or not 0 <= p.trump_suit < 4:
        raise UserError(f"position: trump suit must be 0..3, not {p.trump_suit!r}")
    if not isinstance(p.hands, tuple) or len(p.hands) != 2:
        raise UserError("position: hands must be two card masks")
    for seat, h in enumerate(p.hands):
        if type(h) is not int or not 0 <= h < 1 << N_CARDS:
            raise UserError(f"position: hands[{seat}] is not a card mask: {h!r}")
    if p.attacker not in (0, 1) or type(p.attacker) is not int:
        raise UserError(f"position: attacker must be 0 or 1, not {p.attacker!r}")
    if not isinstance(p.taking, bool):
        raise UserError(f"position: taking must be a bool, not {p.taking!r}")
    if p.rules is not None and not isinstance(p.rules, Rules):
        raise UserError(f"position: rules must be a Rules or None, not {p.rules!r}")
    if not isinstance(p.lead, bool):
        raise UserError(f"position: lead must be a bool, not {p.lead!r}")
    players = 2 if p.rules is None else p.rules.players
    if not (isinstance(p.seats, tuple) and len(p.seats) == 2 and len(set(p.seats)) == 2
            and all(type(s) is int and 0 <= s < players for s in p.seats)):
        raise UserError(f"position: seats must be two different seats 0..{players - 1}, not "
                        f"{p.seats!r}")
    if not (isinstance(p.out, tuple) and len(set(p.out)) == len(p.out)
            and all(type(s) is int and 0 <= s < players and s not in p.seats for s in p.out)):
        raise UserError(f"position: out must be seats 0..{players - 1} that went out (not "
                        f"{p.seats[0]} or {p.seats[1]}), not {p.out!r}")
    seen = _Seen()
    for seat, h in enumerate(p.hands):
        for c in mask_cards(h):
            seen.add(c, f"hands[{seat}]")
    for c in p.stock:
        if type(c) is not int or not 0 <= c < N_CARDS:
            raise UserError(f"position: unknown card in the stock: {c!r}")
        seen.add(c, "stock")
    for pair in p.table:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise UserError("position: table entries must be (attack, defence or -1) pairs")
        a, d = pair
        if type(a) is not int or not 0 <= a < N_CARDS:
            raise UserError(f"position: unknown attack card on the table: {a!r}")
        if type(d) is not int or not -1 <= d < N_CARDS:
            raise UserError(f"position: unknown defence card on the table: {d!r}")
        seen.add(a, "table")
        if d >= 0:
            seen.add(d, "table")

    for seat, cards in enumerate(p.known):
        seen_known = _Seen()
        for c in cards:
            seen_known.add(c, f"known[{seat}]")
    if p.stock and card_suit(p.stock[-1]) != p.trump_suit:
        raise UserError(f"position: the last stock card {card_str(p.stock[-1])} is the face-up "
                        f"trump (R2.2), so the trump suit must be {SUITS[card_suit(p.stock[-1])]}")
    if p.rules is not None and not p.table and p.lead:
        raise UserError("position: lead is true but the table is empty")
    if not p.table:
        if p.taking:
            raise UserError("position: taking is true but the table is empty")
        if p.bout_limit is not None:
            raise UserError("position: bout_limit must be null at the start of a bout (it is "
                            "fixed when the attacker opens, R3.4)")
    else:
        _validate_table(p)


def _validate_table(p: Position) -> None:
    t = p.trump_suit
    if _held_at_open(p.hands[p.defender], p.table) == 0:
        raise UserError("position: the defender has no cards and no defence on the table, so "
                        "he held none when the bout opened: no bout opens against an empty "
                        "hand (R3.4, R4, R5)")
    if type(p.bout_limit) is not int or not 1 <= p.bout_limit <= MAX_BOUT:
        raise UserError(f"position: bout_limit must be 1..{MAX_BOUT}, not {p.bout_limit!r}")
    _check_bout_limit(p)
    # a lead of several cards or a transfer leaves several unbeaten, beaten in any order (E5)
    several = p.variant
    ranks: set[int] = set()
    first_unbeaten = -1
    for i, (a, d) in enumerate(p.table):
        if i > 0 and card_rank(a) not in ranks:
            raise UserError(f"position: table[{i}]: {card_str(a)} matches no rank already on "
                            f"the table (R3.3)")
        ranks.add(card_rank(a))
        if d >= 0:
            if not beats(d, a, t):
                raise UserError(f"position: table[{i}]: {card_str(d)} does not beat "
                                f"{card_str(a)} (R1.3)")
            if first_unbeaten >= 0 and not several:
                raise UserError(f"position: table[{i}]: a defence while "
                                f"{card_str(p.table[first_unbeaten][0])} is still unbeaten "
                                f"(R3.2)")
            ranks.add(card_rank(d))
        elif first_unbeaten < 0:
            first_unbeaten = i
        elif not p.taking and not several:
            raise UserError(f"position: table[{i}]: a second unbeaten attack card while the "
                            f"defender is not taking (R3.2)")
    if p.taking and first_unbeaten < 0:
        raise UserError("position: taking is true but every attack card is beaten (R3.5)")


def _held_at_open(defender_hand: int, table) -> int:
    """The defender's cards when the bout opened: he has played only his defences since (two
    players: nobody else plays to him), one per beaten pair."""
    return bin(defender_hand).count("1") + sum(1 for _, d in table if d >= 0)


def _n_cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _check_bout_limit(p: Position) -> None:
    """R3.4 in both directions: no more attacks than the limit, and a limit the defender's
    hand fixed (two players: nobody else changes it). The table's attacks are checked against
    the limit the hand implies, so an explicit ``bout_limit`` cannot hide a table the defender
    could never have faced."""
    held = _held_at_open(p.hands[p.defender], p.table)
    limit = min(MAX_BOUT, held)
    when = "when the bout opened" if p.rules is None or not p.rules.transfer else \
        "when the bout opened or at the last transfer"
    why = f"min({MAX_BOUT}, the {_n_cards(held)} the defender held {when})"
    n_att = len(p.table)
    if n_att > limit:
        raise UserError(f"position: {n_att} attack cards on the table, more than the bout "
                        f"limit {limit} = {why} (R3.4)")
    if p.bout_limit != limit:
        raise UserError(f"position: bout_limit {p.bout_limit} is impossible: the limit is "
                        f"{limit} = {why} (R3.4)")


def _from_table_dict(d: dict, rules: Rules) -> Position:
    """A position of a ruleset or a larger table (module docstring), checked by the reference
    engine's parser, as the two seats left."""
    from .observation import PHASE_LEAD, PHASE_SWAP
    from .reference import parse_position

    unknown = sorted(set(d) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS) - set(TABLE_KEYS))
    if unknown:
        raise UserError(f"position: unknown key(s): {', '.join(map(str, unknown))}")
    if d.get("format") != POSITION_FORMAT:
        raise UserError(f"position: format must be {POSITION_FORMAT!r}, not "
                        f"{d.get('format')!r}")
    try:
        p = parse_position(reopened(d, rules), finished_ok=True)
    except (ValueError, TypeError, AttributeError) as exc:
        raise UserError(f"position: {exc}") from None
    if p["phase"] == PHASE_SWAP:
        raise UserError("the solver does not play the trump-six swap: decide it first (swap "
                        "is true)")
    active = [s for s in range(rules.players) if s not in p["out"]]
    if len(active) != 2:
        raise UserError(f"{len(active)} seats still play: the solver plays two-player endgames "
                        f"(a larger table once exactly two seats are left, the others in "
                        f"'out'); with more seats the hands are not a two-player game")
    lo, hi = active
    hands = (cards_mask_list(p["hands"][lo]), cards_mask_list(p["hands"][hi]))
    table = tuple((a, -1 if x is None else x) for a, x in p["table"])
    return Position(p["trump_suit"], hands, tuple(p["stock"]), 0 if p["attacker"] == lo else 1,
                    table, bool(p["taking"]), p["bout_limit"] if table else None, rules,
                    p["phase"] == PHASE_LEAD, (lo, hi), tuple(p["out"]),
                    tuple(tuple(sorted(k)) for k in p["known"]) if any(p["known"]) else ())


def cards_mask_list(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m

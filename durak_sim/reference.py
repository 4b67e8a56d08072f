"""The pure-Python reference engine: two-player Podkidnoy Durak, RULES.md R1-R6.

Small and slow on purpose. It is written from RULES.md alone and is what the numba kernel is
checked against (cross-check, perft counts, record replays). Every rule it implements cites
its id. Cards are ints ``0..35`` and hands are int masks (``durak_sim.cards``); action codes
are those of ``durak_sim.actions``; the observation is ``durak_sim.observation``'s layout.

State machine of a bout (``phase`` is ``observation.PHASE_*``)::

    OPEN    attacker must open with any card (R3.1)                      -> DEFEND
    DEFEND  defender beats the one unbeaten card (R3.2) or takes          -> ATTACK
    ATTACK  attacker throws in a matching card (R3.3-R3.5, R3.8) or stops  -> DEFEND / ATTACK
            (after a take every throw-in stays in ATTACK: nobody answers it)
    stop    ends the bout (R3.6 / R3.7), refill (R4), end check (R5), next bout OPEN

>>> from durak_sim.actions import action_str
>>> g = ReferenceGame.new(42, 7)
>>> g.to_move() == g.first_attacker, len(g.legal_actions())
(True, 6)
>>> result = play(42, 7, ["easy", "easy"])["result"]
>>> sorted(result)
['bouts', 'durak', 'out_order', 'outcome']
"""
from __future__ import annotations

import json
import random

import numpy as np

from . import seeding
from .actions import (
    ATTACK, DEFEND, LEGAL_SIZE, STOP, TAKE, action_card, action_str, is_attack, is_defend,
    pack_history,
)
from .cards import (
    FULL_DECK, N_CARDS, SUIT_MASKS, beats, card_rank, card_str, card_suit, cards_mask,
    mask_cards, parse_card, parse_suit,
)
from .errors import StrategyFailure, describe_failure
from .observation import (
    MAX_TABLE, O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEFENDER, O_DISCARD, O_HAND,
    O_HAND_SIZES, O_KNOWN, O_N_ATTACKS, O_N_HIST, O_PHASE, O_PLAYERS, O_SEAT, O_SEEN, O_STOCK,
    O_TABLE, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_CARD, O_TRUMP_SUIT,
    O_UNBEATEN, OBS_SIZE, PHASE_ATTACK, PHASE_DEFEND, PHASE_OPEN,
)
from .rules import Rules

POSITION_FORMAT = "durak-sim/position/1"
MAX_BOUT = 6  # R3.4: at most six attack cards in a bout


class IllegalActionError(ValueError):
    """An action that is not legal in the position (names strategy, seed, deal when known)."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay (one-line message)."""


def _bit(card: int) -> int:
    return 1 << card


def first_attacker_of(hands: list[int], trump_suit: int) -> int:
    """R2.3: the seat holding the lowest trump across the hands, else seat 0.

    >>> first_attacker_of([cards_mask(["6S"]), cards_mask(["7S", "AD"])], 0)
    0
    """
    best_seat, best_card = 0, N_CARDS
    for seat, hand in enumerate(hands):
        trumps = hand & SUIT_MASKS[trump_suit]
        if trumps:
            low = (trumps & -trumps).bit_length() - 1  # rank-major ids: lowest bit = lowest rank
            if low < best_card:
                best_seat, best_card = seat, low
    return best_seat


class ReferenceGame:
    """One two-player deal in progress. Build with ``new``, ``from_deal`` or ``from_position``.

    >>> g = ReferenceGame.from_position({"trump": "D", "hands": [["6S"], ["7S"]], "stock": [],
    ...                                  "attacker": 0})
    >>> [action_str(a) for a in g.legal_actions()]
    ['attack 6S']
    """

    def __init__(self):
        # only the from_* constructors fill a game in; see _setup
        self.rules = Rules()
        self.seed: int | None = None
        self.deal: int | None = None
        self.hands: list[int] = [0, 0]          # masks
        self.stock: list[int] = []              # draw order, face-up trump last (R2.2)
        self.trump_suit = 0
        self.trump_card = -1                    # -1: unknown (positions with an empty stock)
        self.attacker = 0
        self.defender = 1
        self.phase = PHASE_OPEN
        self.table: list[list[int]] = []        # [attack, defence or -1] in play order
        self.taking = False
        self.bout_limit = 0
        self.discard = 0
        self.seen = 0
        self.known: list[int] = [0, 0]
        self.bouts = 0
        self.history: list[tuple[int, int, int]] = []
        self.over = False
        self._result: dict | None = None
        self.first_attacker = 0
        self.hands_dealt: list[list[int]] = [[], []]
        self.stock_dealt: list[int] = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, seed: int, deal: int, rules: Rules = Rules()) -> "ReferenceGame":
        """Deal ``deal`` of master seed ``seed`` (R2.1, R2.2 via ``seeding.deal_cards``)."""
        hands, stock = seeding.deal_cards(seed, deal, rules.players, rules.hand_size)
        return cls.from_deal(hands, stock, rules, seed=seed, deal=deal)

    @classmethod
    def from_deal(cls, hands: list[list[int]], stock: list[int], rules: Rules = Rules(),
                  seed: int | None = None, deal: int | None = None) -> "ReferenceGame":
        """A game at its first bout from dealt hands and the stock in draw order."""
        if len(hands) != 2:
            raise ValueError(f"expected 2 hands, got {len(hands)}")
        all_cards = [c for h in hands for c in h] + list(stock)
        if sorted(all_cards) != list(range(N_CARDS)):
            raise ValueError("hands and stock must hold the 36 cards once each (R1.1)")
        g = cls()
        g.rules, g.seed, g.deal = rules, seed, deal
        g.hands = [cards_mask(h) for h in hands]
        g.stock = list(stock)
        g.trump_card = g.stock[-1]                    # R2.2: face-up, drawn last
        g.trump_suit = card_suit(g.trump_card)
        g.seen = _bit(g.trump_card)                   # R2.2: its identity is public
        g.first_attacker = first_attacker_of(g.hands, g.trump_suit)  # R2.3
        g.hands_dealt = [list(h) for h in hands]
        g.stock_dealt = list(stock)
        g._start_bout(g.first_attacker)               # R2.4: the other seat defends
        return g

    @classmethod
    def from_position(cls, pos: dict) -> "ReferenceGame":
        """A game from a ``durak-sim/position/1`` dict (spec/position.md, two players).

        Cards named nowhere are in the discard pile; the discard, the table and the face-up
        trump are seen; no seat has known (taken) cards. Raises ValueError (one line) on an
        invalid or impossible position.
        """
        p = parse_position(pos)
        g = cls()
        g.hands = [cards_mask(h) for h in p["hands"]]
        g.stock = list(p["stock"])
        g.trump_suit, g.trump_card = p["trump_suit"], p["trump_card"]
        g.attacker, g.defender = p["attacker"], 1 - p["attacker"]
        g.table = [[a, -1 if d is None else d] for a, d in p["table"]]
        g.taking = p["taking"]
        g.bout_limit = p["bout_limit"]
        g.phase = p["phase"]
        on_table = g._table_mask()
        g.discard = FULL_DECK & ~(g.hands[0] | g.hands[1] | cards_mask(g.stock) | on_table)
        g.seen = g.discard | on_table | (_bit(g.trump_card) if g.trump_card >= 0 else 0)
        g.first_attacker = g.attacker
        g.hands_dealt = [list(h) for h in p["hands"]]
        g.stock_dealt = list(g.stock)
        return g

    def copy(self) -> "ReferenceGame":
        """An independent copy (the game is mutable: ``apply`` changes it in place)."""
        g = type(self).__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.hands = list(self.hands)
        g.stock = list(self.stock)
        g.table = [list(pair) for pair in self.table]
        g.known = list(self.known)
        g.history = list(self.history)
        g._result = dict(self._result) if self._result else None
        return g

    clone = copy

    def permute_hidden(self, seat: int, rng: random.Random) -> "ReferenceGame":
        """A copy in which the cards ``seat`` cannot see (R6.2) are shuffled between the other
        hand and the stock: sizes stay, and the other seat's known cards and the face-up trump
        stay where they are. ``observation(seat)`` must not change (R6 tests)."""
        g = self.copy()
        other = 1 - seat
        fixed = self.hands[other] & self.known[other]
        hidden_hand = mask_cards(self.hands[other] & ~fixed)
        face_up = self.stock[-1:]                       # R2.2: public, always last
        pool = sorted(hidden_hand + self.stock[:-1])
        rng.shuffle(pool)
        k = len(hidden_hand)
        g.hands[other] = fixed | cards_mask(pool[:k])
        g.stock = pool[k:] + face_up
        return g

    # ------------------------------------------------------------------ queries
    def is_over(self) -> bool:
        return self.over

    def to_move(self) -> int | None:
        """Seat to act, ``None`` when the deal is over."""
        if self.over:
            return None
        return self.defender if self.phase == PHASE_DEFEND else self.attacker

    def legal_actions(self) -> list[int]:
        """Legal action codes, ascending (attack < defend < take < stop)."""
        if self.over:
            return []
        if self.phase == PHASE_OPEN:
            return [ATTACK + c for c in mask_cards(self.hands[self.attacker])]  # R3.1
        if self.phase == PHASE_DEFEND:
            target = self.table[-1][0]  # R3.2: the one unbeaten card
            hand = mask_cards(self.hands[self.defender])
            return [DEFEND + c for c in hand if beats(c, target, self.trump_suit)] + [TAKE]
        out = []
        if len(self.table) < self.bout_limit:  # R3.4 (also after a take, R3.5)
            ranks = {card_rank(c) for pair in self.table for c in pair if c >= 0}
            # R3.3 rank rule; R3.8: an empty hand yields nothing, leaving only stop
            out = [ATTACK + c for c in mask_cards(self.hands[self.attacker])
                   if card_rank(c) in ranks]
        return out + [STOP]

    def result(self) -> dict:
        """``{"outcome", "durak", "out_order", "bouts"}`` of a finished deal (R5.2)."""
        if not self.over:
            raise ValueError("the deal is not over")
        return dict(self._result, out_order=list(self._result["out_order"]))

    def history_array(self) -> np.ndarray:
        """The public history as packed int64 entries (``actions.pack_history``)."""
        return np.array([pack_history(c, s, t) for c, s, t in self.history], dtype=np.int64)

    def observation(self, seat: int | None = None) -> np.ndarray:
        """What ``seat`` (default: the seat to move) may see (R6.1), as ``int64[OBS_SIZE]``."""
        if seat is None:
            seat = self.to_move()
            if seat is None:
                raise ValueError("the deal is over: pass the seat")
        obs = np.zeros(OBS_SIZE, dtype=np.int64)
        obs[O_SEAT] = seat
        obs[O_PLAYERS] = 2
        obs[O_TRUMP_SUIT] = self.trump_suit
        obs[O_TRUMP_CARD] = self.trump_card
        obs[O_HAND] = self.hands[seat]
        obs[O_ATTACKER] = self.attacker
        obs[O_DEFENDER] = self.defender
        obs[O_PHASE] = self.phase
        obs[O_TABLE_ATTACKS] = cards_mask(a for a, _ in self.table)
        obs[O_TABLE_DEFENCES] = cards_mask(d for _, d in self.table if d >= 0)
        obs[O_UNBEATEN] = self.table[-1][0] if self.phase == PHASE_DEFEND else -1
        obs[O_N_ATTACKS] = len(self.table)
        obs[O_BOUT_LIMIT] = self.bout_limit
        obs[O_TAKING] = int(self.taking)
        obs[O_STOCK] = len(self.stock)  # a count: the stock's cards are hidden (R6.2)
        obs[O_DISCARD] = self.discard
        obs[O_SEEN] = self.seen
        obs[O_BOUTS] = self.bouts
        obs[O_N_HIST] = len(self.history)
        for s in range(2):
            obs[O_HAND_SIZES + s] = self.hands[s].bit_count()
            obs[O_KNOWN + s] = self.known[s]
        obs[O_TABLE:O_TABLE + 2 * MAX_TABLE] = -1
        for i, (a, d) in enumerate(self.table):
            obs[O_TABLE + 2 * i] = a
            obs[O_TABLE + 2 * i + 1] = d
        return obs

    # ------------------------------------------------------------------ moves
    def apply(self, code: int) -> None:
        """Play one action; raises IllegalActionError if it is not legal."""
        code = int(code)
        if code not in self.legal_actions():
            raise IllegalActionError(self._illegal_message(code))
        seat = self.to_move()
        if is_attack(code):  # R3.1 open / R3.3, R3.5 throw in
            self._play_card(seat, code)
            self.table.append([code, -1])
            self.history.append((code, seat, -1))
            self.phase = PHASE_ATTACK if self.taking else PHASE_DEFEND  # R3.5: not answered
        elif is_defend(code):  # R3.2
            card = action_card(code)
            target = self.table[-1][0]
            self._play_card(seat, card)
            self.table[-1][1] = card
            self.history.append((code, seat, target))
            self.phase = PHASE_ATTACK  # R3.3
        elif code == TAKE:  # R3.2 / R3.5
            self.taking = True
            self.history.append((code, seat, -1))
            self.phase = PHASE_ATTACK
        else:  # STOP
            self.history.append((code, seat, -1))
            self._end_bout()

    def _illegal_message(self, code: int) -> str:
        try:
            name = action_str(code)
        except ValueError:
            name = "not an action"
        where = f" at seed {self.seed} deal {self.deal}" if self.seed is not None else ""
        legal = ", ".join(action_str(a) for a in self.legal_actions())
        if self.over:
            return f"illegal action {code} ({name}){where}: the deal is over"
        return (f"illegal action {code} ({name}) for seat {self.to_move()}{where}; "
                f"legal: {legal}")

    def _play_card(self, seat: int, card: int) -> None:
        self.hands[seat] &= ~_bit(card)
        self.known[seat] &= ~_bit(card)  # R6.1: "has not played since"
        self.seen |= _bit(card)          # R6.1: every card ever on the table

    def _table_mask(self) -> int:
        return cards_mask(c for pair in self.table for c in pair if c >= 0)

    def _start_bout(self, attacker: int) -> None:
        self.attacker, self.defender = attacker, 1 - attacker  # R2.4
        self.phase = PHASE_OPEN
        self.table = []
        self.taking = False
        # R3.4: the limit is fixed by the defender's hand when the bout opens
        self.bout_limit = min(MAX_BOUT, self.hands[self.defender].bit_count())

    def _end_bout(self) -> None:
        att, dfd = self.attacker, self.defender
        cards = self._table_mask()
        if self.taking:  # R3.7: the defender picks up everything and is skipped
            self.hands[dfd] |= cards
            self.known[dfd] |= cards  # R6.1: public which cards were picked up
            next_attacker = att
        else:  # R3.6: successful defence, the defender attacks next
            self.discard |= cards
            next_attacker = dfd
        self.table = []
        for seat in (att, dfd):  # R4.1: the attacker draws first, then the defender
            while self.hands[seat].bit_count() < self.rules.hand_size and self.stock:  # R4.2
                card = self.stock.pop(0)
                self.hands[seat] |= _bit(card)
                if not self.stock:  # the face-up trump is the last card and is public (R2.2)
                    self.known[seat] |= _bit(card)
        self.bouts += 1
        self._start_bout(next_attacker)
        if self.stock:  # R5.1: only with an empty stock is the deal checked for its end
            return
        empty = [s for s in (att, dfd) if self.hands[s] == 0]  # seat order from the attacker
        if len(empty) == 2:  # R5.2: both out in one bout: draw
            self._finish({"outcome": "draw", "durak": None, "out_order": empty})
        elif len(empty) == 1:  # R5.2: the other player is the Durak
            self._finish({"outcome": "durak", "durak": 1 - empty[0], "out_order": empty})

    def _finish(self, res: dict) -> None:
        self.over = True
        self._result = dict(res, bouts=self.bouts)  # R5.3: no card points

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(card_str(c) for c in mask_cards(h)) for h in self.hands)
        table = " ".join(card_str(a) + ("/" + card_str(d) if d >= 0 else "")
                         for a, d in self.table)
        return (f"<ReferenceGame trump={'SCDH'[self.trump_suit]} hands=[{hands}] "
                f"stock={len(self.stock)} att={self.attacker} table=[{table}]"
                f"{' taking' if self.taking else ''}{' over' if self.over else ''}>")


# ---------------------------------------------------------------------- positions
def parse_position(pos: dict) -> dict:
    """Parse and validate a two-player position dict (spec/position.md).

    Returns card ids: ``hands`` (lists), ``stock``, ``trump_suit``, ``trump_card`` (-1 if
    unknown), ``attacker``, ``table`` ([attack, defence or None] pairs), ``taking``,
    ``bout_limit`` and the derived ``phase``. Raises ValueError with a one-line message.
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
    if not isinstance(hands_in, list) or len(hands_in) != 2:
        n = len(hands_in) if isinstance(hands_in, list) else "no"
        raise ValueError(f"a position needs exactly 2 hands (2 players), got {n}")
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

    attacker = pos["attacker"]
    if attacker not in (0, 1) or isinstance(attacker, bool):
        raise ValueError(f"attacker must be 0 or 1, got {attacker!r}")
    defender = 1 - attacker
    taking = pos.get("taking", False)
    if not isinstance(taking, bool):
        raise ValueError(f"taking must be true or false, got {taking!r}")

    table_in = pos.get("table", [])
    if not isinstance(table_in, list):
        raise ValueError("table must be a list of [attack, defence-or-null] pairs")
    table: list[tuple[int, int | None]] = []
    ranks: set[int] = set()
    unbeaten = 0
    for i, pair in enumerate(table_in):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"table pair {i} must be [attack, defence-or-null]")
        a = place(pair[0], f"table pair {i}")
        if i > 0 and card_rank(a) not in ranks:
            raise ValueError(f"table pair {i}: {card_str(a)} matches no rank on the table (R3.3)")
        d = None
        if pair[1] is not None:
            d = place(pair[1], f"table pair {i}")
            if unbeaten:
                raise ValueError(f"table pair {i}: a defence after an unbeaten attack")
            if not beats(d, a, trump_suit):
                raise ValueError(f"table pair {i}: {card_str(d)} does not beat {card_str(a)} "
                                 f"(R1.3)")
            ranks.add(card_rank(d))
        else:
            unbeaten += 1
        ranks.add(card_rank(a))
        table.append((a, d))
    if unbeaten > 1 and not taking:
        raise ValueError(f"{unbeaten} unbeaten attacks while not taking (R3.2)")
    if taking and not unbeaten:
        raise ValueError("taking needs an unbeaten attack on the table")

    n_def = sum(d is not None for _, d in table)
    limit = pos.get("bout_limit")
    if limit is None:
        limit = min(MAX_BOUT, len(hands[defender]) + n_def)  # spec default (R3.4)
    elif isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_BOUT:
        raise ValueError(f"bout_limit must be 1..{MAX_BOUT} or null, got {limit!r}")
    if len(table) > limit:
        raise ValueError(f"{len(table)} attacks exceed the bout limit {limit} (R3.4)")

    if not table:
        if not hands[attacker]:
            raise ValueError("the attacker has no card to open the bout with (R3.1)")
        if not hands[defender]:
            raise ValueError("the defender has no cards at the start of a bout (R5.1)")
        phase = PHASE_OPEN
    elif table[-1][1] is None and not taking:
        phase = PHASE_DEFEND
    else:
        phase = PHASE_ATTACK
    return {"hands": hands, "stock": stock, "trump_suit": trump_suit, "trump_card": trump_card,
            "attacker": attacker, "table": table, "taking": taking, "bout_limit": limit,
            "phase": phase}


# ---------------------------------------------------------------------- playing
def _resolve(strategy):
    if isinstance(strategy, str):
        from .registry import get_strategy
        return get_strategy(strategy)
    return strategy


def hist_for_strategy(game) -> np.ndarray:
    """The history array a strategy gets: never empty (a zero entry when nothing happened)."""
    hist = np.ascontiguousarray(game.history_array(), dtype=np.int64)
    return hist if len(hist) else np.zeros(1, dtype=np.int64)


def legal_array(codes: list[int]) -> np.ndarray:
    """``int64[LEGAL_SIZE]``: ``[n, codes..., 0...]`` (``durak_sim.actions``)."""
    legal = np.zeros(LEGAL_SIZE, dtype=np.int64)
    legal[0] = len(codes)
    legal[1:1 + len(codes)] = codes
    return legal


def seat_inputs(seed: int, deal: int, strategies: list, stamp: int = 1) -> tuple[list, list]:
    """Each seat's random stream (from (seed, deal, seat) only) and zeroed workspace with the
    game ``stamp`` in word 0 (observation.py contract), as the kernel hands them over."""
    rngs = [np.array([seeding.stream_start(seed, deal, 1 + s)], dtype=np.uint64)
            for s in range(len(strategies))]
    mems = []
    for strat in strategies:
        mem = np.zeros(strat.memory, dtype=np.int64)
        mem[0] = stamp
        mems.append(mem)
    return rngs, mems


def decisions(game):
    """The deal's decision points: plays each forced action (the only legal one) itself, as
    the engine does (actions.py contract), and yields ``(seat, codes)`` whenever the seat to
    move has a choice. The caller applies one of ``codes`` before asking for the next."""
    while not game.is_over():
        codes = game.legal_actions()
        if len(codes) == 1:
            game.apply(codes[0])
            continue
        yield game.to_move(), codes


def play_game(seed: int, deal: int, strategies: list, rules: Rules = Rules()) -> "ReferenceGame":
    """Play deal ``deal`` of ``seed`` with one strategy per seat; return the finished game.

    ``strategies``: registry ``Strategy`` objects (or names, or anything with ``name``,
    ``decide``, ``memory``, ``reset``). A single legal action is played without asking.
    """
    strats = [_resolve(s) for s in strategies]
    if len(strats) != rules.players:
        raise ValueError(f"need {rules.players} strategies, got {len(strats)}")
    game = ReferenceGame.new(seed, deal, rules)
    rngs, mems = seat_inputs(seed, deal, strats)
    for seat, codes in decisions(game):
        strat = strats[seat]
        where = f"strategy {strat.name!r} (seat {seat})"
        at = f"at seed {seed} deal {deal}"
        try:
            code = strat.decide(game.observation(seat), legal_array(codes),
                                hist_for_strategy(game), rngs[seat], mems[seat])
        except (Exception, SystemExit) as exc:   # a plugin's error is its own, told in one line
            raise StrategyFailure(f"{where} {describe_failure(exc)} {at}") from exc
        if isinstance(code, (bool, float)) or not isinstance(code, (int, np.integer)):
            raise StrategyFailure(f"{where} returned {code!r}, not an action code {at}")
        code = int(code)
        if code not in codes:
            raise IllegalActionError(f"{where} returned illegal action {code} {at}")
        game.apply(code)
    game.seat_names = [s.name for s in strats]
    return game


def play(seed: int, deal: int, strategies: list, rules: Rules = Rules()) -> dict:
    """Play deal ``deal`` of ``seed`` (see ``play_game``); return its game record.

    >>> rec = play(1, 0, ["random", "easy"])
    >>> rec["seats"], replay(rec) == rec["result"]
    (['random', 'easy'], True)
    """
    from .records import make_record

    game = play_game(seed, deal, strategies, rules)
    return make_record(game.rules, seed, deal, game.seat_names, game.hands_dealt,
                       game.stock_dealt, game.first_attacker, game.history, game.result())


def replay(record: dict) -> dict:
    """Replay a game record card by card from its hands and stock; return its result.

    Checks the deal (36 cards once, face-up trump last, first attacker by R2.3), that every
    action is the right seat's and legal, and that the result matches. Raises RecordError.
    """
    from .records import actions_from_record, validate_record

    rec = validate_record(record)
    try:
        rules = Rules.from_dict(rec["rules"])
    except ValueError as exc:
        raise RecordError(f"record rules: {exc}") from None
    hands = [[parse_card(c) for c in h] for h in rec["hands"]]
    stock = [parse_card(c) for c in rec["stock"]]
    if len(hands) != rules.players:
        raise RecordError(f"record has {len(hands)} hands for {rules.players} players")
    if sorted([c for h in hands for c in h] + stock) != list(range(N_CARDS)):
        raise RecordError("hands and stock do not hold the 36 cards once each (R1.1)")
    if any(len(h) != rules.hand_size for h in hands):
        raise RecordError(f"every hand must be dealt {rules.hand_size} cards (R2.1)")
    if card_str(stock[-1]) != rec["trump"]:
        raise RecordError(f"trump {rec['trump']} is not the last stock card {card_str(stock[-1])}"
                          f" (R2.2)")
    game = ReferenceGame.from_deal(hands, stock, rules)
    if rec["first_attacker"] != game.first_attacker:
        raise RecordError(f"first_attacker {rec['first_attacker']} but R2.3 gives seat "
                          f"{game.first_attacker}")
    for i, (code, seat, target) in enumerate(actions_from_record(rec)):
        what = action_str(code, target)
        if game.is_over():
            raise RecordError(f"action {i} ({what}): the deal is already over")
        if seat != game.to_move():
            raise RecordError(f"action {i} ({what}): seat {seat} acted but seat "
                              f"{game.to_move()} is to move")
        if code not in game.legal_actions():
            raise RecordError(f"action {i} ({what}) by seat {seat} is illegal")
        if is_defend(code) and target != game.table[-1][0]:
            raise RecordError(f"action {i} ({what}): the unbeaten card is "
                              f"{card_str(game.table[-1][0])}")
        game.apply(code)
    if not game.is_over():
        raise RecordError(f"the actions end before the deal does (after {len(rec['actions'])})")
    result = game.result()
    if result != rec["result"]:
        raise RecordError(f"record result {json.dumps(rec['result'])} but the replay gives "
                          f"{json.dumps(result)}")
    return result


# ---------------------------------------------------------------------- perft
def perft(game, depth: int) -> int:
    """Leaf nodes exactly ``depth`` plies below ``game`` (every decision is a ply, forced ones
    too; a deal that ends sooner contributes 0, as in chess perft). Works on any engine with
    ``copy``, ``legal_actions``, ``apply``, ``is_over``.

    >>> perft(ReferenceGame.new(42, 7), 1)
    6
    """
    if depth == 0:
        return 1
    if game.is_over():
        return 0
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for code in actions:
        child = game.copy()
        child.apply(code)
        total += perft(child, depth - 1)
    return total


def divide(game, depth: int) -> dict[str, int]:
    """``perft(child, depth - 1)`` per root action, keyed by record notation
    (``attack 7D``, ``defend 9D 7D``, ``take``, ``stop``)."""
    out = {}
    if depth < 1 or game.is_over():
        return out
    target = int(game.observation()[O_UNBEATEN])
    for code in game.legal_actions():
        child = game.copy()
        child.apply(code)
        out[action_str(code, target if is_defend(code) else -1)] = perft(child, depth - 1)
    return out


__all__ = [
    "IllegalActionError", "RecordError", "ReferenceGame", "parse_position", "play", "replay",
    "perft", "divide", "first_attacker_of", "legal_array", "hist_for_strategy",
]

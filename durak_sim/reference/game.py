"""``ReferenceGame``: one deal of any table (docs/rules.md R1-R9, E1-E13), in plain Python.

The bout's state machine is told in the package docstring (``durak_sim.reference``). Cards
are ints ``0..35``, hands int masks (``durak_sim.cards``); action codes are
``durak_sim.actions``'; the observation is ``durak_sim.observation``'s layout.

>>> from durak_sim.actions import action_str
>>> g = ReferenceGame.from_position({"trump": "D", "hands": [["6S"], ["7S"]], "stock": [],
...                                  "attacker": 0})
>>> [action_str(a) for a in g.legal_actions()]
['attack 6S']
>>> g = ReferenceGame.new(5, 0, Rules(players=6))
>>> known_to_all = int(g.observation(0)[O_KNOWN + 5]) == 1 << g.trump_card  # R2.2
>>> g.stock, g.trump_card == g.hands_dealt[5][-1], known_to_all
([], True, True)
"""
from __future__ import annotations

import random

import numpy as np

from .. import seeding
from ..actions import (
    ATTACK, DEFEND, DEFEND_AT, DONE, KEEP, STOP, SWAP, TAKE, TRANSFER, action_card,
    action_str, defence_target, is_defend, pack_history,
)
from ..cards import FULL_DECK, N_CARDS, beats, card_rank, card_str, card_suit, cards_mask, \
    mask_cards
from ..observation import (
    MAX_TABLE, O_ATTACKER, O_BOUT_LIMIT, O_BOUTS, O_DEALER, O_DEFENDER,
    O_DISCARD, O_ELIGIBLE, O_FIRST, O_HAND, O_HAND_SIZES, O_HAND_TARGET, O_KNOWN,
    O_N_ATTACKS, O_N_HIST, O_N_OUT, O_N_UNBEATEN, O_PHASE, O_PLACES, O_PLAYERS, O_RULES,
    O_SEAT, O_SEEN, O_STOCK, O_TABLE, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TEAM,
    O_TO_MOVE, O_TRUMP_CARD, O_TRUMP_SUIT, O_UNBEATEN, OBS_SIZE, PHASE_ATTACK, PHASE_DEFEND,
    PHASE_LEAD, PHASE_OPEN, PHASE_SWAP,
)
from ..rules import Rules
from .core import (
    MAX_ACTIONS, MAX_BOUT, MAX_PROSTOY, PLAY_CAP, EngineError, IllegalActionError, ask_order, bit,
    defender_of, draw_order, eligible_mask, first_attacker_of, is_prostoy_pattern,
    next_active, next_opponent, next_partner, prostoy_can_grow,
)


class ReferenceGame:
    """One deal in progress. Build with ``new``, ``from_deal`` or ``from_position``."""

    def __init__(self):
        # only the constructors below fill a game in
        self.rules = Rules()
        self.n = 2
        self.seed: int | None = None
        self.deal: int | None = None
        self.hands: list[int] = [0, 0]          # masks
        self.stock: list[int] = []              # draw order, face-up trump last (R2.2)
        self.trump_suit = 0
        self.trump_card = -1                    # the face-up card; -1 unknown (positions)
        self.attacker = 0                       # the bout's main attacker
        self.defender = 1
        self.phase = PHASE_OPEN
        self.table: list[list[int]] = []        # [attack, defence or -1] in play order
        self.taking = False
        self.bout_limit = 0
        self.eligible = 0                       # E3: mask of the seats that may throw in
        self.asked = 0                          # E2: the seat asked now (phase ATTACK)
        self.swapper = -1                       # E8: the trump six's holder (phase SWAP)
        self.discard = 0
        self.seen = 0
        self.known: list[int] = [0, 0]
        self.out: list[int] = []                # seats out, in the order they went (R7.5)
        self.places: list[int] = [0, 0]         # 1 = first out; 0 while playing
        self.bouts = 0
        self.history: list[tuple[int, int, int]] = []
        self.over = False
        self._result: dict | None = None
        self.first_attacker = 0
        self.dealer = 1
        self.face_up = -1                       # the face-up card as dealt (records)
        self.hands_dealt: list[list[int]] = [[], []]
        self.stock_dealt: list[int] = []

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, seed: int, deal: int, rules: Rules = Rules(), *, stream: int = 0,
            dealer: int | None = None) -> "ReferenceGame":
        """Deal ``deal`` of master seed ``seed`` from deck stream ``stream`` (R2.1, R2.2,
        ``seeding``). ``dealer=None``: a first deal (the last seat deals, R2.3, E8); a seat:
        a later deal of a series, dealt by that seat (R9.1)."""
        deck = seeding.deal_deck(seed, deal, stream)
        hands, stock, face_up = seeding.deal_table(deck, rules.players, rules.hand_size, dealer)
        return cls.from_deal(hands, stock, rules, seed=seed, deal=deal, face_up=face_up,
                             dealer=dealer)

    @classmethod
    def from_deal(cls, hands: list[list[int]], stock: list[int], rules: Rules = Rules(),
                  seed: int | None = None, deal: int | None = None, *,
                  face_up: int | None = None, dealer: int | None = None) -> "ReferenceGame":
        """A game at its start from the dealt hands (dealing order) and the stock (draw
        order). ``face_up``: the face-up card (default the stock's last card; the six-by-six
        deal has no stock and its face-up card is the dealer's last card, R2.2). ``dealer``
        as in ``new``."""
        n = rules.players
        if len(hands) != n:
            raise ValueError(f"expected {n} hands, got {len(hands)}")
        if sorted([c for h in hands for c in h] + list(stock)) != list(range(N_CARDS)):
            raise ValueError("hands and stock must hold the 36 cards once each (R1.1)")
        g = cls()
        g.rules, g.n, g.seed, g.deal = rules, n, seed, deal
        g.dealer = n - 1 if dealer is None else dealer               # R2.1, R9.1
        g.hands = [cards_mask(h) for h in hands]
        g.stock = list(stock)
        g.known, g.places = [0] * n, [0] * n
        if stock:
            if face_up is not None and face_up != stock[-1]:
                raise ValueError(f"the face-up card {card_str(face_up)} must be the stock's "
                                 f"last card (R2.2)")
            face_up = stock[-1]                                      # R2.2: drawn last
        else:  # R2.2: six players of six: the last card dealt, in the dealer's hand
            if face_up is None:
                face_up = hands[g.dealer][-1]
            if not g.hands[g.dealer] >> face_up & 1:
                raise ValueError(f"without a stock the face-up card {card_str(face_up)} is "
                                 f"the dealer's last card (R2.2)")
            g.known[g.dealer] = bit(face_up)                         # R2.2, R6.1
        g.face_up = g.trump_card = face_up
        g.trump_suit = card_suit(face_up)
        g.seen = bit(face_up)                                        # R2.2: public
        g.hands_dealt = [list(h) for h in hands]
        g.stock_dealt = list(stock)
        active = [True] * n
        if dealer is None:
            g.first_attacker = first_attacker_of(g.hands, g.trump_suit)   # R2.3
        else:
            g.first_attacker = (dealer + 1) % n                      # R9.1: seat after dealer
        g._start_bout(g.first_attacker, defender_of(g.first_attacker, active, rules.teams))
        six = g.trump_suit  # the trump six: rank 0 of the trump suit
        holder = next((s for s in range(n) if g.hands[s] >> six & 1), -1)
        if (rules.trump_six_swap and dealer is None and g.stock and face_up != six
                and holder >= 0):  # E8, R8.5: a first deal only
            g.swapper, g.phase = holder, PHASE_SWAP
        return g

    @classmethod
    def from_position(cls, pos: dict) -> "ReferenceGame":
        """A game from a ``durak-sim/position/1`` dict (docs/position.md), any table.

        Cards named nowhere are in the discard pile; the discard, the table and the face-up
        trump are seen; ``known`` as given. Raises ValueError (one line) on an invalid or
        impossible position.
        """
        from .positions import parse_position

        p = parse_position(pos)
        rules = p.get("rules") or Rules()
        n = rules.players
        g = cls()
        g.rules, g.n = rules, n
        g.hands = [cards_mask(h) for h in p["hands"]]
        g.stock = list(p["stock"])
        g.trump_suit, g.trump_card = p["trump_suit"], p["trump_card"]
        g.face_up = g.trump_card
        g.out = list(p.get("out", []))
        g.places = [0] * n
        for k, s in enumerate(g.out):
            g.places[s] = k + 1                                      # R7.5, R7.6
        g.attacker, g.defender = p["attacker"], p["defender"]
        g.table = [[a, -1 if d is None else d] for a, d in p["table"]]
        g.taking, g.bout_limit, g.phase = p["taking"], p["bout_limit"], p["phase"]
        g.eligible = g._eligible()
        g.asked = p["asked"]
        g.swapper = p["swapper"] if p.get("swapper") is not None else -1
        g.known = [cards_mask(k) for k in p["known"]]
        on_table = g._table_mask()
        held = 0
        for h in g.hands:
            held |= h
        g.discard = FULL_DECK & ~(held | cards_mask(g.stock) | on_table)
        g.seen = g.discard | on_table | (bit(g.trump_card) if g.trump_card >= 0 else 0)
        g.first_attacker, g.dealer = p["first_attacker"], p["dealer"]
        g.hands_dealt = [list(h) for h in p["hands"]]
        g.stock_dealt = list(g.stock)
        return g

    def copy(self) -> "ReferenceGame":
        """An independent copy (the game is mutable: ``apply`` changes it in place)."""
        g = type(self).__new__(type(self))
        g.__dict__.update(self.__dict__)
        for name in ("hands", "stock", "known", "history", "out", "places"):
            setattr(g, name, list(getattr(self, name)))
        g.table = [list(pair) for pair in self.table]
        g._result = dict(self._result) if self._result else None
        return g

    clone = copy

    def permute_hidden(self, seat: int, rng: random.Random) -> "ReferenceGame":
        """A copy in which every card ``seat`` cannot see (R6.2) is shuffled among the places
        that hide it: the other seats' cards not known (R6.1) and the stock but its face-up
        last card. Sizes stay; ``observation(seat)`` must not change (R6 tests)."""
        g = self.copy()
        others = [s for s in range(self.n) if s != seat]
        hidden = {s: mask_cards(self.hands[s] & ~self.known[s]) for s in others}
        face_up = self.stock[-1:]                       # R2.2: public, always last
        pool = sorted([c for s in others for c in hidden[s]] + self.stock[:-1])
        rng.shuffle(pool)
        k = 0
        for s in others:
            m = len(hidden[s])
            g.hands[s] = (self.hands[s] & self.known[s]) | cards_mask(pool[k:k + m])
            k += m
        g.stock = pool[k:] + face_up
        return g

    # ------------------------------------------------------------------ queries
    def is_over(self) -> bool:
        return self.over

    def to_move(self) -> int | None:
        """Seat to act, ``None`` when the deal is over."""
        if self.over:
            return None
        if self.phase == PHASE_SWAP:
            return self.swapper                      # E8
        if self.phase == PHASE_DEFEND:
            return self.defender                     # R3.2, E5
        if self.phase == PHASE_ATTACK:
            return self.asked                        # E2
        return self.attacker                         # R3.1, E4

    def unbeaten(self) -> list[int]:
        """The attack cards on the table nobody has beaten, in play order."""
        return [a for a, d in self.table if d < 0]

    def legal_actions(self) -> list[int]:
        """Legal action codes, ascending."""
        if self.over:
            return []
        if self.phase == PHASE_SWAP:
            return [SWAP, KEEP]                      # E8
        hand = mask_cards(self.hands[self.to_move()])
        if self.phase == PHASE_OPEN:
            return [ATTACK + c for c in hand]        # R3.1: any card, compulsory
        if self.phase == PHASE_LEAD:
            return self._lead_actions(hand)          # E4
        if self.phase == PHASE_DEFEND:
            return self._defend_actions(hand)        # R3.2, E5, E6
        out = []                                     # PHASE_ATTACK: the asked seat (E2)
        if len(self.table) < self.bout_limit:        # R3.4 (also after a take, R3.5)
            ranks = {card_rank(c) for pair in self.table for c in pair if c >= 0}
            # R3.3 rank rule; R3.8: an empty hand yields nothing, leaving only stop
            out = [ATTACK + c for c in hand if card_rank(c) in ranks]
        return out + [STOP]

    def _lead_actions(self, hand: list[int]) -> list[int]:
        out = [ATTACK + c for c in self._lead_cards(hand)]
        lead = [a for a, _ in self.table]
        if not self.rules.prostoy or is_prostoy_pattern(lead):
            out.append(DONE)  # E4: always with lead_multiple; prostoy: a finished pattern
        return out

    def _lead_cards(self, hand: list[int]) -> list[int]:
        """E4: the cards the main attacker may add to the lead being laid."""
        lead = [a for a, _ in self.table]
        if self.rules.prostoy:  # R8.3: only towards a legal pattern within the limit
            return [c for c in hand if prostoy_can_grow(lead, c, hand, self.bout_limit)]
        if self.rules.lead_multiple and len(lead) < self.bout_limit:  # R8.1, R3.4
            return [c for c in hand if card_rank(c) == card_rank(lead[0])]
        return []

    def _defend_actions(self, hand: list[int]) -> list[int]:
        targets = self.unbeaten()
        if len(targets) == 1:  # R3.2: beat the one unbeaten card
            out = [DEFEND + c for c in hand if beats(c, targets[0], self.trump_suit)]
        else:  # E5: each defence names its target
            out = [DEFEND_AT + 36 * t + c for t in targets for c in hand
                   if beats(c, t, self.trump_suit)]
        out.append(TAKE)
        new_defender = self._transfer_to()
        if new_defender >= 0:  # R8.2, E6: a card of the rank on the table
            rank = card_rank(self.table[0][0])
            out += [TRANSFER + c for c in hand if card_rank(c) == rank]
        return sorted(out)

    def _transfer_to(self) -> int:
        """R8.2, E6: the seat a transfer would pass the attack to, -1 when none is allowed
        (no transfer game, a card already beaten, too many cards for the new defender)."""
        if not self.rules.transfer or self.taking or any(d >= 0 for _, d in self.table):
            return -1
        active = self._active()
        new = next_opponent(self.defender, active) if self.rules.teams else \
            next_active(self.defender, active)
        cards = len(self.table) + 1
        if cards > MAX_BOUT or self.hands[new].bit_count() < cards:
            return -1
        return new

    def result(self) -> dict:
        """The result of a finished deal (R5.2, R7.5, R8.4, E11): ``outcome``, ``durak``,
        ``out_order``, ``bouts``; ``places`` with more than two players; ``durak_team``
        with teams."""
        if not self.over:
            raise ValueError("the deal is not over")
        res = dict(self._result, out_order=list(self._result["out_order"]))
        if "places" in res:
            res["places"] = list(res["places"])
        return res

    def history_array(self) -> np.ndarray:
        """The public history as packed int64 entries (``actions.pack_history``)."""
        return np.array([pack_history(c, s, t) for c, s, t in self.history], dtype=np.int64)

    def observation(self, seat: int | None = None) -> np.ndarray:
        """What ``seat`` (default: the seat to move) may see (R6.1), as ``int64[OBS_SIZE]``
        (docs/observation.md)."""
        if seat is None:
            seat = self.to_move()
            if seat is None:
                raise ValueError("the deal is over: pass the seat")
        obs = np.zeros(OBS_SIZE, dtype=np.int64)
        obs[O_SEAT] = seat
        obs[O_PLAYERS] = self.n
        obs[O_TRUMP_SUIT] = self.trump_suit
        obs[O_TRUMP_CARD] = self.trump_card
        obs[O_HAND] = self.hands[seat]
        obs[O_ATTACKER] = self.attacker
        obs[O_DEFENDER] = self.defender
        obs[O_PHASE] = self.phase
        obs[O_TABLE_ATTACKS] = cards_mask(a for a, _ in self.table)
        obs[O_TABLE_DEFENCES] = cards_mask(d for _, d in self.table if d >= 0)
        unbeaten = self.unbeaten()
        obs[O_UNBEATEN] = unbeaten[0] if self.phase == PHASE_DEFEND and not self.over else -1
        obs[O_N_ATTACKS] = len(self.table)
        obs[O_BOUT_LIMIT] = self.bout_limit
        obs[O_TAKING] = int(self.taking)
        obs[O_STOCK] = len(self.stock)  # a count: the stock's cards are hidden (R6.2)
        obs[O_DISCARD] = self.discard
        obs[O_SEEN] = self.seen
        obs[O_BOUTS] = self.bouts
        obs[O_N_HIST] = len(self.history)
        for s in range(self.n):
            obs[O_HAND_SIZES + s] = self.hands[s].bit_count()
            obs[O_KNOWN + s] = self.known[s]
            obs[O_PLACES + s] = self.places[s]
        obs[O_TABLE:O_TABLE + 2 * MAX_TABLE] = -1
        for i, (a, d) in enumerate(self.table):
            obs[O_TABLE + 2 * i] = a
            obs[O_TABLE + 2 * i + 1] = d
        to_move = self.to_move()
        obs[O_TO_MOVE] = -1 if to_move is None else to_move
        obs[O_RULES] = self.rules.flags
        obs[O_TEAM] = seat & 1 if self.rules.teams else -1
        obs[O_N_UNBEATEN] = len(unbeaten)
        obs[O_N_OUT] = len(self.out)
        obs[O_FIRST] = self.first_attacker
        obs[O_DEALER] = self.dealer
        obs[O_HAND_TARGET] = self.rules.hand_size
        obs[O_ELIGIBLE] = self.eligible
        return obs

    # ------------------------------------------------------------------ moves
    def apply(self, code: int) -> None:
        """Play one action; raises IllegalActionError if it is not legal."""
        code = int(code)
        if code not in self.legal_actions():
            raise IllegalActionError(self._illegal_message(code))
        if len(self.history) >= MAX_ACTIONS:  # E12: a bug, never a hang
            raise EngineError(f"the deal reached {MAX_ACTIONS} actions at seed {self.seed} "
                              f"deal {self.deal}: an engine error, please report it")
        seat = self.to_move()
        if self.phase == PHASE_SWAP:
            self._record(code, seat)
            if code == SWAP:
                self._swap(seat)
            self.phase = PHASE_OPEN                  # E8: then the first attack
        elif self.phase in (PHASE_OPEN, PHASE_LEAD):
            self._record(code, seat)
            if code != DONE:                         # R3.1 open, E4 a card added to the lead
                self._play_card(seat, code)
                self.table.append([code, -1])
            # E4: the lead goes on while a card may be added, else it ends by itself
            grows = code != DONE and self._lead_cards(mask_cards(self.hands[seat]))
            self.phase = PHASE_LEAD if grows else PHASE_DEFEND
        elif self.phase == PHASE_DEFEND:
            self._defend(seat, code)
        elif code == STOP:                           # E2: the next eligible seat is asked
            self._record(code, seat)
            order = ask_order(self.attacker, self.defender, self.eligible, self.n)
            later = order[order.index(seat) + 1:]
            if later:
                self.asked = later[0]
            else:                                    # E2: every eligible seat stopped
                self._end_bout()
        else:                                        # R3.3, R3.5: a throw-in ends the round
            self._record(code, seat)
            self._play_card(seat, code)
            self.table.append([code, -1])
            if self.taking:                          # R3.5: nobody answers it; E2 next round
                self.asked = self.attacker
            else:
                self.phase = PHASE_DEFEND

    def _defend(self, seat: int, code: int) -> None:
        if is_defend(code):                          # R3.2, E5
            card = action_card(code)
            target = defence_target(code)
            if target < 0:
                target = self.unbeaten()[0]
            self._record(DEFEND + card, seat, target)  # the history names every target
            self._play_card(seat, card)
            next(p for p in self.table if p[0] == target)[1] = card
            if self.unbeaten():
                return                               # E5: more to beat
            if self.rules.prostoy:                   # E7: all beaten ends the bout at once
                self._end_bout()
            else:                                    # E2: the asking starts at the main attacker
                self.phase, self.asked = PHASE_ATTACK, self.attacker
        elif code == TAKE:
            self._record(code, seat)
            self.taking = True
            if self.rules.prostoy:                   # E7: a take ends the bout
                self._end_bout()
            else:                                    # R3.5, E2: throw-ins still asked for
                self.phase, self.asked = PHASE_ATTACK, self.attacker
        else:                                        # R8.2, E6: transfer
            new_defender = self._transfer_to()
            self._record(code, seat)
            card = code - TRANSFER
            self._play_card(seat, card)
            self.table.append([card, -1])
            self.attacker, self.defender = seat, new_defender   # R8.2: a new main attacker
            self.bout_limit = min(MAX_BOUT, self.hands[new_defender].bit_count())  # E6
            self.eligible = self._eligible()         # R8.2: settled anew

    def _swap(self, seat: int) -> None:
        """R8.5, E8: the trump six for the face-up card, which is then known in the hand."""
        six, up = self.trump_suit, self.stock[-1]
        self.hands[seat] = self.hands[seat] & ~bit(six) | bit(up)
        self.known[seat] = self.known[seat] & ~bit(six) | bit(up)
        self.stock[-1] = self.trump_card = six
        self.seen |= bit(six)

    def _record(self, code: int, seat: int, target: int = -1) -> None:
        self.history.append((code, seat, target))

    def _illegal_message(self, code: int) -> str:
        try:
            name = action_str(code)
        except ValueError:
            name = "not an action"
        where = f" at seed {self.seed} deal {self.deal}" if self.seed is not None else ""
        if self.over:
            return f"illegal action {code} ({name}){where}: the deal is over"
        legal = ", ".join(action_str(a) for a in self.legal_actions())
        return (f"illegal action {code} ({name}) for seat {self.to_move()}{where}; "
                f"legal: {legal}")

    def _play_card(self, seat: int, card: int) -> None:
        self.hands[seat] &= ~bit(card)
        self.known[seat] &= ~bit(card)  # R6.1: "has not played since"
        self.seen |= bit(card)          # R6.1: every card ever on the table

    def _table_mask(self) -> int:
        return cards_mask(c for pair in self.table for c in pair if c >= 0)

    def _active(self) -> list[bool]:
        return [s not in self.out for s in range(self.n)]  # E3: active = not out (R7.5)

    def _eligible(self) -> int:
        return eligible_mask(self.attacker, self.defender, self._active(), self.rules.teams,
                             self.rules.throw_in_scope, self.rules.prostoy)

    def _start_bout(self, attacker: int, defender: int) -> None:
        self.attacker, self.defender = attacker, defender
        self.phase = PHASE_OPEN
        self.table = []
        self.taking = False
        # R3.4: the limit is fixed by the defender's hand when the bout opens (R8.3: five)
        cap = MAX_PROSTOY if self.rules.prostoy else MAX_BOUT
        self.bout_limit = min(cap, self.hands[defender].bit_count())
        self.eligible = self._eligible()
        self.asked = attacker

    def _end_bout(self) -> None:
        att, dfd, n = self.attacker, self.defender, self.n
        if self.taking and self.rules.prostoy:  # E7: beaten pairs discarded, the rest taken
            picked = cards_mask(a for a, d in self.table if d < 0)
            self.discard |= self._table_mask() & ~picked
        elif self.taking:  # R3.7: the defender picks up every card of the bout
            picked = self._table_mask()
        else:              # R3.6: a successful defence, the table is discarded
            picked = 0
            self.discard |= self._table_mask()
        self.hands[dfd] |= picked
        self.known[dfd] |= picked  # R6.1: which cards were picked up is public
        self.table = []
        active = self._active()
        for seat in draw_order(att, dfd, active):  # R4.1, E9
            while self.hands[seat].bit_count() < self.rules.hand_size and self.stock:  # R4.2
                card = self.stock.pop(0)
                self.hands[seat] |= bit(card)
                if not self.stock:  # E9: the face-up trump, drawn last, is public
                    self.known[seat] |= bit(card)
        self.bouts += 1
        if not self.stock:  # R5.1, E11: only with an empty stock do hands go out
            gone = [s for s in [att] + [(att + k) % n for k in range(1, n)]
                    if active[s] and self.hands[s] == 0]   # seat order from the main attacker
            for s in gone:
                self.out.append(s)
                self.places[s] = len(self.out)  # R7.5: the next place
            if self._check_end(gone):
                # over: no bout under way (an empty table, nobody to move); the attacker,
                # defender, bout limit and eligible seats stay those of the last bout
                self.phase, self.taking = PHASE_OPEN, False
                return
        if len(self.history) >= PLAY_CAP:  # E12: too long a deal ends as a draw
            self._cap_draw()
            self.phase, self.taking = PHASE_OPEN, False
            return
        self._next_bout(dfd if not self.taking else (dfd + 1) % n)

    def _next_bout(self, should: int) -> None:
        """E10 (R3.6, R3.7, R7.4, R8.4): ``should`` is the seat that should attack (the
        defender after a successful defence, the seat after him after a take)."""
        active, teams = self._active(), self.rules.teams
        if active[should]:
            attacker = should
            defender = defender_of(attacker, active, teams)
        elif teams:  # R8.4: the out seat's next active partner, from the out seat's place
            attacker = next_partner(should, active)
            defender = next_opponent(should, active)
        else:        # R7.4: the next active seat after it
            attacker = next_active(should, active)
            defender = defender_of(attacker, active, teams)
        self._start_bout(attacker, defender)

    def _cap_draw(self) -> None:
        """E12: a draw among the seats still active, which share the next place."""
        for s in range(self.n):
            if s not in self.out:
                self.places[s] = len(self.out) + 1
        res = {"outcome": "draw", "durak": None, "out_order": list(self.out),
               "bouts": self.bouts}
        if self.n > 2:
            res["places"] = list(self.places)
        if self.rules.teams:
            res["durak_team"] = None
        res["capped"] = True
        self.over = True
        self._result = res

    def _check_end(self, gone: list[int]) -> bool:
        """E11 (R5.2, R7.5, R8.4): is the deal over after this bout? Finishes it if so."""
        active = self._active()
        n = self.n
        if self.rules.teams:
            team_out = [not any(active[s] for s in range(t, n, 2)) for t in (0, 1)]
            if not any(team_out):
                return False
            loser = None if all(team_out) else team_out.index(False)
        else:
            left = [s for s in range(n) if active[s]]
            if len(left) > 1:
                return False
            loser = left[0] if left else None
        if loser is None:  # E11: the seats out after the last bout share its place
            for s in gone:
                self.places[s] = len(self.out) - len(gone) + 1
        elif self.rules.teams:  # E11: the losing team's members still holding cards share
            for s in range(loser, n, 2):  # the last place (R7.6: the others keep theirs)
                if active[s]:
                    self.places[s] = len(self.out) + 1
        else:                   # R7.5: the Durak has the last place
            self.places[loser] = len(self.out) + 1
        res = {"outcome": "draw" if loser is None else "durak",
               "durak": None if self.rules.teams else loser,
               "out_order": list(self.out), "bouts": self.bouts}  # R5.3: no card points
        if n > 2:
            res["places"] = list(self.places)
        if self.rules.teams:
            res["durak_team"] = loser
        self.over = True
        self._result = res
        return True

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(card_str(c) for c in mask_cards(h)) for h in self.hands)
        table = " ".join(card_str(a) + ("/" + card_str(d) if d >= 0 else "")
                         for a, d in self.table)
        return (f"<ReferenceGame trump={'SCDH'[self.trump_suit]} hands=[{hands}] "
                f"stock={len(self.stock)} att={self.attacker} def={self.defender} "
                f"table=[{table}]{' taking' if self.taking else ''}"
                f"{' over' if self.over else ''}>")


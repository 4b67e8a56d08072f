"""``KernelGame``: one game on the numba kernel's state array, step by step.

The same interface as ``durak_sim.reference.ReferenceGame`` so that the rule tests, perft and
the R6 test run on both engines. The batch player does not use this class: it is for tests,
replay and analysis, where one Python call per action is fine.
"""
from __future__ import annotations

import random

import numpy as np

from ..actions import LEGAL_SIZE, unpack_history
from ..observation import OBS_SIZE, PHASE_DEFEND
from ..rules import Rules
from . import engine as E


class KernelGame:
    """A game held in the kernel's ``int64`` state array ``st``."""

    def __init__(self, st: np.ndarray, hist: np.ndarray, seed=None, deal=None):
        self.st = st
        self.hist = hist
        self.seed = seed
        self.deal = deal
        self._legal = np.zeros(LEGAL_SIZE, np.int64)

    # -- constructors --------------------------------------------------------------------
    @classmethod
    def new(cls, seed: int, deal: int, rules: Rules = Rules()) -> "KernelGame":
        st = np.zeros(E.S_SIZE, np.int64)
        E.deal(st, np.int64(seed), np.int64(deal), np.int64(rules.players),
               np.int64(rules.hand_size))
        return cls(st, np.zeros(E.MAX_ACTIONS, np.int64), seed, deal)

    @classmethod
    def from_position(cls, pos: dict) -> "KernelGame":
        """A game from a ``durak-sim/position/1`` dict (validated by the reference parser)."""
        from ..reference import parse_position

        p = parse_position(pos)
        st = np.zeros(E.S_SIZE, np.int64)
        st[E.S_PLAYERS] = 2
        st[E.S_HAND_SIZE] = 6
        st[E.S_TRUMP_SUIT] = p["trump_suit"]
        st[E.S_TRUMP_CARD] = p["trump_card"]
        st[E.S_DURAK] = -1
        named = 0
        for s, hand in enumerate(p["hands"]):
            for c in hand:
                st[E.S_HANDS + s] |= 1 << c
            named |= int(st[E.S_HANDS + s])
        for k, c in enumerate(p["stock"]):
            st[E.S_STOCK + k] = c
            named |= 1 << c
        st[E.S_STOCK_TOP] = 0
        st[E.S_STOCK_END] = len(p["stock"])
        att = p["attacker"]
        E._start_bout(st, np.int64(att), np.int64(1 - att))
        for i, (a, d) in enumerate(p["table"]):
            st[E.S_TABLE + 2 * i] = a
            st[E.S_TATT] |= 1 << a
            st[E.S_TRANKS] |= 0xF << (4 * (a >> 2))
            if d is not None:
                st[E.S_TABLE + 2 * i + 1] = d
                st[E.S_TDEF] |= 1 << d
                st[E.S_TRANKS] |= 0xF << (4 * (d >> 2))
            else:
                st[E.S_UNBEATEN] = a
        table_mask = int(st[E.S_TATT] | st[E.S_TDEF])
        st[E.S_N_ATT] = len(p["table"])
        st[E.S_LIMIT] = p["bout_limit"]
        st[E.S_TAKING] = int(p["taking"])
        st[E.S_PHASE] = p["phase"]  # PHASE_* as derived by the reference parser
        if st[E.S_PHASE] != PHASE_DEFEND:
            st[E.S_UNBEATEN] = -1
        discard = ((1 << 36) - 1) & ~(named | table_mask)
        st[E.S_DISCARD] = discard
        seen = discard | table_mask
        if p["trump_card"] >= 0:
            seen |= 1 << p["trump_card"]
        st[E.S_SEEN] = seen
        return cls(st, np.zeros(E.MAX_ACTIONS, np.int64))

    def copy(self) -> "KernelGame":
        return KernelGame(self.st.copy(), self.hist.copy(), self.seed, self.deal)

    clone = copy

    def permute_hidden(self, seat: int, rng: random.Random) -> "KernelGame":
        """A copy where the cards ``seat`` cannot see (the other hand's unknown cards and the
        stock but its face-up last card) are shuffled among those places (R6 tests)."""
        g = self.copy()
        st = g.st
        other = 1 - seat
        known = int(st[E.S_KNOWN + other])
        hidden_hand = [c for c in range(36) if st[E.S_HANDS + other] >> c & 1 and not known >> c & 1]
        top, end = int(st[E.S_STOCK_TOP]), int(st[E.S_STOCK_END])
        stock_slots = list(range(top, end - 1))
        pool = hidden_hand + [int(st[E.S_STOCK + k]) for k in stock_slots]
        rng.shuffle(pool)
        hand = int(st[E.S_HANDS + other])
        for c in hidden_hand:
            hand &= ~(1 << c)
        for c in pool[:len(hidden_hand)]:
            hand |= 1 << c
        st[E.S_HANDS + other] = hand
        for k, c in zip(stock_slots, pool[len(hidden_hand):]):
            st[E.S_STOCK + k] = c
        return g

    # -- queries --------------------------------------------------------------------------
    @property
    def first_attacker(self) -> int:
        return int(self.st[E.S_FIRST])

    @property
    def hands_dealt(self) -> list[list[int]]:
        players, hs = int(self.st[E.S_PLAYERS]), int(self.st[E.S_HAND_SIZE])
        deck = [int(c) for c in self.st[E.S_DECK:E.S_DECK + 36]]
        return [deck[s:players * hs:players] for s in range(players)]

    @property
    def stock_dealt(self) -> list[int]:
        players, hs = int(self.st[E.S_PLAYERS]), int(self.st[E.S_HAND_SIZE])
        deck = [int(c) for c in self.st[E.S_DECK:E.S_DECK + 36]]
        n = players * hs
        return deck[n + 1:] + [deck[n]]

    @property
    def history(self) -> list[tuple[int, int, int]]:
        return [unpack_history(int(e)) for e in self.hist[:self.st[E.S_NHIST]]]

    def is_over(self) -> bool:
        return bool(self.st[E.S_OVER])

    def to_move(self) -> int | None:
        s = int(E.to_move(self.st))
        return None if s < 0 else s

    def legal_actions(self) -> list[int]:
        if self.is_over():
            return []
        n = int(E.generate_legal(self.st, self._legal))
        return [int(a) for a in self._legal[1:n + 1]]

    def apply(self, code: int) -> None:
        from ..reference import IllegalActionError

        if code not in self.legal_actions():
            raise IllegalActionError(f"illegal action {code} (legal: {self.legal_actions()})")
        E.apply_action(self.st, np.int64(code), self.hist)

    def observation(self, seat: int | None = None) -> np.ndarray:
        if seat is None:
            seat = self.to_move()
            if seat is None:
                raise ValueError("the game is over: name the seat to observe")
        obs = np.zeros(OBS_SIZE, np.int64)
        E.observe(self.st, np.int64(seat), obs)
        return obs

    def history_array(self) -> np.ndarray:
        return self.hist[:self.st[E.S_NHIST]].copy()

    def result(self) -> dict:
        if not self.is_over():
            raise ValueError("the game is not over")
        durak = int(self.st[E.S_DURAK])
        n_out = int(self.st[E.S_N_OUT])
        return {"outcome": "draw" if durak < 0 else "durak",
                "durak": None if durak < 0 else durak,
                "out_order": [int(x) for x in self.st[E.S_OUT:E.S_OUT + n_out]],
                "bouts": int(self.st[E.S_BOUTS])}

    def __repr__(self) -> str:
        return f"KernelGame(to_move={self.to_move()}, over={self.is_over()})"



"""``KernelGame``: one game on the numba kernel's state array, step by step.

The same interface as ``durak_sim.reference.ReferenceGame`` so that the rule tests, perft and
the R6 test run on both engines. The batch player does not use this class: it is for tests,
replay and analysis, where one Python call per action is fine.
"""
from __future__ import annotations

import random

import numpy as np

from ..actions import LEGAL_SIZE, unpack_history
from ..observation import OBS_SIZE, PHASE_ATTACK, PHASE_LEAD, PHASE_SWAP
from ..rules import Rules
from . import engine as E
from . import layout as L


class KernelGame:
    """A game held in the kernel's ``int64`` state array ``st``."""

    def __init__(self, st: np.ndarray, hist: np.ndarray, rules: Rules, seed=None, deal=None):
        self.st = st
        self.hist = hist
        self.rules = rules
        self.seed = seed
        self.deal = deal
        self._legal = np.zeros(LEGAL_SIZE, np.int64)

    # -- constructors --------------------------------------------------------------------
    @classmethod
    def new(cls, seed: int, deal: int, rules: Rules = Rules(), *, stream: int = 0,
            dealer: int | None = None) -> "KernelGame":
        """Deal ``deal`` of ``seed`` (deck stream ``stream``); ``dealer=None`` is a first
        deal (R2.1, R2.3, the swap), an int a later deal of a series (R9.1)."""
        st = np.zeros(L.S_SIZE, np.int64)
        first = dealer is None
        E.deal(st, np.int64(seed), np.int64(deal), np.int64(_signed(stream)),
               np.int64(rules.players), np.int64(rules.hand_size), np.int64(rules.flags),
               np.int64(rules.players - 1 if first else dealer), first)
        return cls(st, np.zeros(L.MAX_ACTIONS, np.int64), rules, seed, deal)

    @classmethod
    def from_position(cls, pos: dict) -> "KernelGame":
        """A game from a ``durak-sim/position/1`` dict (validated by the shared parser)."""
        from ..reference import parse_position

        p = parse_position(pos)
        rules = p.get("rules") or Rules()
        n = rules.players
        st = np.zeros(L.S_SIZE, np.int64)
        st[L.S_PLAYERS] = n
        st[L.S_HAND_TARGET] = rules.hand_size
        st[L.S_FLAGS] = rules.flags
        st[L.S_TRUMP_SUIT] = p["trump_suit"]
        st[L.S_TRUMP_CARD] = p["trump_card"]
        st[L.S_FACE_UP] = p["trump_card"]
        st[L.S_DURAK] = -1
        st[L.S_DURAK_TEAM] = -1
        st[L.S_SWAPPER] = -1
        st[L.S_DEALER] = p.get("dealer", n - 1)
        named = 0
        for s, hand in enumerate(p["hands"]):
            for c in hand:
                st[L.S_HANDS + s] |= 1 << c
            st[L.S_HAND_SIZES + s] = len(hand)
            named |= int(st[L.S_HANDS + s])
        for s, known in enumerate(p.get("known") or []):
            for c in known:
                st[L.S_KNOWN + s] |= 1 << c
        for k, c in enumerate(p["stock"]):
            st[L.S_STOCK + k] = c
            named |= 1 << c
        st[L.S_STOCK_TOP] = 0
        st[L.S_STOCK_N] = len(p["stock"])
        st[L.S_ACTIVE] = (1 << n) - 1
        for k, seat in enumerate(p.get("out") or []):
            E._go_out(st, np.int64(seat))
        att = p["attacker"]
        dfd = p.get("defender")
        if dfd is None:
            dfd = int(E._defender_of(st, np.int64(att)))
        st[L.S_FIRST] = p.get("first_attacker", att)
        E._start_bout(st, np.int64(att), np.int64(dfd))
        unbeaten = 0
        for i, (a, d) in enumerate(p["table"]):
            st[L.S_TABLE + 2 * i] = a
            st[L.S_TATT] |= 1 << a
            st[L.S_TRANKS] |= 0xF << (4 * (a >> 2))
            if d is not None:
                st[L.S_TABLE + 2 * i + 1] = d
                st[L.S_TDEF] |= 1 << d
                st[L.S_TRANKS] |= 0xF << (4 * (d >> 2))
            else:
                unbeaten |= 1 << a
        table_mask = int(st[L.S_TATT] | st[L.S_TDEF])
        st[L.S_N_ATT] = len(p["table"])
        st[L.S_LIMIT] = p["bout_limit"]
        st[L.S_TAKING] = int(p["taking"])
        st[L.S_UNBEATEN_MASK] = unbeaten
        st[L.S_N_UNBEATEN] = bin(unbeaten).count("1")
        phase = p["phase"]   # PHASE_* as the parser derives it
        st[L.S_PHASE] = phase
        st[L.S_UNBEATEN] = -1
        if phase == PHASE_SWAP:
            st[L.S_TO_MOVE] = p["swapper"]
            st[L.S_SWAPPER] = p["swapper"]
        elif phase == PHASE_ATTACK:
            st[L.S_TO_MOVE] = p.get("asked", att)
        elif phase == PHASE_LEAD:
            st[L.S_TO_MOVE] = att
        elif unbeaten:
            E._to_defence(st)
        discard = ((1 << 36) - 1) & ~(named | table_mask)
        st[L.S_DISCARD] = discard
        seen = discard | table_mask
        if p["trump_card"] >= 0:
            seen |= 1 << p["trump_card"]
        st[L.S_SEEN] = seen
        return cls(st, np.zeros(L.MAX_ACTIONS, np.int64), rules)

    def copy(self) -> "KernelGame":
        return KernelGame(self.st.copy(), self.hist.copy(), self.rules, self.seed, self.deal)

    clone = copy

    def permute_hidden(self, seat: int, rng: random.Random) -> "KernelGame":
        """A copy where the cards ``seat`` cannot see (the other hands' unknown cards and the
        stock but its face-up last card) are shuffled among those places (R6 tests)."""
        g = self.copy()
        st = g.st
        n = int(st[L.S_PLAYERS])
        others = [s for s in range(n) if s != seat]
        hidden = {}
        pool = []
        for s in others:
            known = int(st[L.S_KNOWN + s])
            hidden[s] = [c for c in range(36) if st[L.S_HANDS + s] >> c & 1 and not known >> c & 1]
            pool += hidden[s]
        top, left = int(st[L.S_STOCK_TOP]), int(st[L.S_STOCK_N])
        stock_slots = list(range(top, top + left - 1))   # the face-up last card stays
        pool += [int(st[L.S_STOCK + k]) for k in stock_slots]
        rng.shuffle(pool)
        i = 0
        for s in others:
            hand = int(st[L.S_HANDS + s])
            for c in hidden[s]:
                hand &= ~(1 << c)
            for c in pool[i:i + len(hidden[s])]:
                hand |= 1 << c
            i += len(hidden[s])
            st[L.S_HANDS + s] = hand
        for k, c in zip(stock_slots, pool[i:]):
            st[L.S_STOCK + k] = c
        return g

    # -- queries --------------------------------------------------------------------------
    @property
    def first_attacker(self) -> int:
        return int(self.st[L.S_FIRST])

    @property
    def dealer(self) -> int:
        return int(self.st[L.S_DEALER])

    @property
    def face_up(self) -> int:
        return int(self.st[L.S_FACE_UP])

    @property
    def hands(self) -> list[int]:
        return [int(self.st[L.S_HANDS + s]) for s in range(int(self.st[L.S_PLAYERS]))]

    def _dealt(self):
        from ..seeding import deal_table

        deck = [int(c) for c in self.st[L.S_DECK:L.S_DECK + 36]]
        return deal_table(deck, self.rules.players, self.rules.hand_size, self.dealer)

    @property
    def hands_dealt(self) -> list[list[int]]:
        return self._dealt()[0]

    @property
    def stock_dealt(self) -> list[int]:
        return self._dealt()[1]

    @property
    def history(self) -> list[tuple[int, int, int]]:
        return [unpack_history(int(e)) for e in self.hist[:self.st[L.S_NHIST]]]

    def is_over(self) -> bool:
        return bool(self.st[L.S_OVER])

    def to_move(self) -> int | None:
        if self.is_over():
            return None
        return int(self.st[L.S_TO_MOVE])

    def legal_actions(self) -> list[int]:
        if self.is_over():
            return []
        n = int(E.generate_legal(self.st, self._legal))
        return [int(a) for a in self._legal[1:n + 1]]

    def apply(self, code: int) -> None:
        from ..reference import IllegalActionError

        if self.is_over() or code not in self.legal_actions():
            raise IllegalActionError(f"illegal action {code} (legal: {self.legal_actions()})")
        if self.st[L.S_NHIST] >= L.MAX_ACTIONS:
            raise IllegalActionError(f"more than {L.MAX_ACTIONS} actions at seed {self.seed} "
                                     f"deal {self.deal}: an engine error")
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
        return self.hist[:self.st[L.S_NHIST]].copy()

    def result(self) -> dict:
        if not self.is_over():
            raise ValueError("the game is not over")
        st = self.st
        durak = int(st[L.S_DURAK])
        n_out = int(st[L.S_N_OUT])
        team = int(st[L.S_DURAK_TEAM])
        draw = durak < 0 and team < 0
        res = {"outcome": "draw" if draw else "durak",
               "durak": None if durak < 0 else durak,
               "out_order": [int(x) for x in st[L.S_OUT:L.S_OUT + n_out]],
               "bouts": int(st[L.S_BOUTS])}
        if self.rules.players > 2:
            res["places"] = [int(x) for x in st[L.S_PLACES:L.S_PLACES + self.rules.players]]
        if self.rules.teams:
            res["durak_team"] = None if team < 0 else team
        if st[L.S_CAPPED]:
            res["capped"] = True
        return res

    def __repr__(self) -> str:
        return f"KernelGame(to_move={self.to_move()}, over={self.is_over()})"


def _signed(stream: int) -> int:
    """A stream number as the kernel's int64 (streams are taken mod 2**64)."""
    stream &= (1 << 64) - 1
    return stream - (1 << 64) if stream >= 1 << 63 else stream

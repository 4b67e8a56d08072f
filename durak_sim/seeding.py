"""The seed contract, in plain Python: which deck and which random streams a deal gets.

Deal *i* of master seed *S* (``0 <= S < 2**63``, ``0 <= i < 2**63``) is fully determined by
``(S, i)``; the random stream of the strategy in seat *s* by ``(S, i, s)`` only. Nothing
depends on strategy pairing, thread count, chunking, backend or resumption.

Generator: splitmix64, all arithmetic modulo 2**64::

    G = 0x9E3779B97F4A7C15
    mix(z):  z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9
             z = (z ^ z >> 27) * 0x94D049BB133111EB
             return z ^ z >> 31
    next(state):  state += G; return mix(state)
    stream(S, i, k) = mix(mix(mix(S + G) + i + G) + k + G)    # initial state
    below(n) = (next() >> 32) * n >> 32                        # uniform-ish in 0..n-1

``k = 0`` is the deck stream, ``k = 1 + s`` the stream of seat ``s``.

Shuffle (Fisher-Yates on the deck stream): ``deck = [0..35]``; for ``j`` from 35 down to 1:
``r = below(j + 1)``, swap ``deck[j]`` and ``deck[r]``. Deal (R2.1): card ``k`` of the deck,
for ``k < hand_size * players``, goes to seat ``k % players``. The next card
``deck[hand_size * players]`` is the face-up trump (R2.2); the stock's draw order is the rest
of the deck, then the face-up trump last.

>>> hands, stock = deal_cards(42, 7)
>>> len(stock), stock[-1] == deal_deck(42, 7)[12]
(24, True)
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAX_SEED = (1 << 63) - 1


def mix(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_start(seed: int, deal: int, k: int) -> int:
    """Initial splitmix64 state of stream ``k`` of deal ``deal`` under master seed ``seed``."""
    return mix(mix(mix(seed + GOLDEN) + deal + GOLDEN) + k + GOLDEN)


class Stream:
    """A splitmix64 stream; ``state`` is the whole of it."""

    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & MASK64

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix(self.state)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32


def deal_deck(seed: int, deal: int) -> list[int]:
    """The shuffled deck of a deal, in dealing order (card ids)."""
    rng = Stream(stream_start(seed, deal, 0))
    deck = list(range(36))
    for j in range(35, 0, -1):
        r = rng.below(j + 1)
        deck[j], deck[r] = deck[r], deck[j]
    return deck


def deal_cards(seed: int, deal: int, players: int = 2, hand_size: int = 6):
    """``(hands, stock)``: the dealt hands (card id lists, seat order) and the stock in draw
    order, face-up trump last (R2.1, R2.2)."""
    deck = deal_deck(seed, deal)
    n = hand_size * players
    hands = [[deck[k] for k in range(s, n, players)] for s in range(players)]
    stock = deck[n + 1:] + [deck[n]]
    return hands, stock

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

``k = 0`` is the deck stream, ``k = 1 + s`` the stream of seat ``s``. Deal *k* of series *j*
(docs/rules.md E13) uses deal index *j* with the deck stream ``-8 (k + 1)`` and seat streams
``-8 (k + 1) - 1 - s`` (mod 2**64): no stream of a single deal. The hints of
``durak-sim play`` (which play no part in the deal) draw from stream ``HINT_STREAM + n``,
``n`` the actions played so far, so that a position always gets the same hint.

Shuffle (Fisher-Yates on the deck stream): ``deck = [0..35]``; for ``j`` from 35 down to 1:
``r = below(j + 1)``, swap ``deck[j]`` and ``deck[r]``. Deal (R2.1, R9.1): card ``k`` of the
deck, for ``k < n = hand_size * players``, goes to seat ``(dealer + 1 + k) % players``
(the dealer is the last seat unless a series moves it, so card ``k`` goes to seat
``k % players``). The next card ``deck[n]`` is the face-up trump (R2.2); the stock's draw
order is the rest of the deck, then the face-up trump last. When ``n == 36`` (six players of
six) the stock is empty and the face-up card is the last one dealt, ``deck[35]``, in the
dealer's hand.

>>> hands, stock = deal_cards(42, 7)
>>> len(stock), stock[-1] == deal_deck(42, 7)[12]
(24, True)
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAX_SEED = (1 << 63) - 1
#: the first stream of ``durak-sim play``'s hints (far from the seats' and the series')
HINT_STREAM = 1 << 32


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


def series_streams(k: int) -> tuple[int, int]:
    """``(deck stream, stream of seat 0)`` of deal ``k`` of a series; seat ``s``'s is the
    latter minus ``s`` (mod 2**64)."""
    return (-8 * (k + 1)) & MASK64, (-8 * (k + 1) - 1) & MASK64


def deal_deck(seed: int, deal: int, stream: int = 0) -> list[int]:
    """The shuffled deck of a deal, in dealing order (card ids); ``stream`` the deck stream
    (0, or a series deal's)."""
    rng = Stream(stream_start(seed, deal, stream))
    deck = list(range(36))
    for j in range(35, 0, -1):
        r = rng.below(j + 1)
        deck[j], deck[r] = deck[r], deck[j]
    return deck


def deal_table(deck: list[int], players: int = 2, hand_size: int = 6,
               dealer: int | None = None) -> tuple[list[list[int]], list[int], int]:
    """``(hands, stock, face_up)`` of a shuffled deck: each seat's cards in the order dealt,
    the stock in draw order (face-up trump last), and the face-up card (R2.1, R2.2, R9.1).

    >>> hands, stock, up = deal_table(list(range(36)), 6, 6)
    >>> stock, up, hands[5][-1]
    ([], 35, 35)
    >>> deal_table(list(range(36)), 3, 6, dealer=0)[0][1][:2]
    [0, 3]
    """
    if dealer is None:
        dealer = players - 1
    n = hand_size * players
    hands: list[list[int]] = [[] for _ in range(players)]
    for k in range(n):
        hands[(dealer + 1 + k) % players].append(deck[k])
    if n == len(deck):
        return hands, [], deck[n - 1]
    return hands, deck[n + 1:] + [deck[n]], deck[n]


def deal_cards(seed: int, deal: int, players: int = 2, hand_size: int = 6):
    """``(hands, stock)``: the dealt hands (card id lists, seat order) and the stock in draw
    order, face-up trump last (R2.1, R2.2)."""
    hands, stock, _ = deal_table(deal_deck(seed, deal), players, hand_size)
    return hands, stock

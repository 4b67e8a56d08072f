"""Cards, suits, ranks and hands (docs/rules.md R1).

Encoding, fixed for the whole project (kernel, reference engine, strategies, solver):

* A card is an int ``0..35``: ``card = rank * 4 + suit``.
  ``rank`` is ``0..8`` for ``6 7 8 9 T J Q K A`` (R1.1), ``suit`` is ``0..3`` for ``S C D H``.
  Rank-major order means that the lowest set bit of a hand is its lowest-ranked card, and
  that the four cards of one rank are one nibble (``0xF << 4 * rank``).
* A hand (or any set of cards) is a mask in a Python int / numba ``int64``: bit ``card`` set
  means the card is in the set. Only 36 bits are used, so ``int64`` never overflows.
* Text notation (R1.2): rank letter then suit letter, ``"TS"``, ``"6H"``, ``"AD"``.

>>> parse_card("TS"), card_str(16)
(16, 'TS')
>>> mask_str(cards_mask(["6S", "AD"]))
'6S AD'
"""
from __future__ import annotations

from typing import Iterable

N_CARDS = 36
N_RANKS = 9
N_SUITS = 4
RANKS = "6789TJQKA"
SUITS = "SCDH"
SUIT_SYMBOLS = "♠♣♦♥"
RANK_DISPLAY = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
FULL_DECK = (1 << N_CARDS) - 1

#: mask of the 9 cards of each suit
SUIT_MASKS = tuple(sum(1 << (r * 4 + s) for r in range(N_RANKS)) for s in range(N_SUITS))
#: mask of the 4 cards of each rank
RANK_MASKS = tuple(0xF << (4 * r) for r in range(N_RANKS))


def card_rank(card: int) -> int:
    return card >> 2


def card_suit(card: int) -> int:
    return card & 3


def make_card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def card_str(card: int) -> str:
    """Two-letter file notation of a card id (R1.2)."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card id out of range: {card}")
    return RANKS[card >> 2] + SUITS[card & 3]


def card_display(card: int) -> str:
    """Human display form, e.g. ``10♠``."""
    return RANK_DISPLAY[card >> 2] + SUIT_SYMBOLS[card & 3]


def parse_card(text: str) -> int:
    """Card id from the two-letter notation; raises ValueError on anything else."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(f"unknown card {text!r} (expected two letters like 'TS' or '6H')")
    r = RANKS.find(text[0].upper())
    s = SUITS.find(text[1].upper())
    if r < 0 or s < 0:
        raise ValueError(f"unknown card {text!r} (ranks {RANKS}, suits {SUITS})")
    return r * 4 + s


def parse_suit(text: str) -> int:
    """Suit id from a suit letter, or from a card (its suit)."""
    if isinstance(text, str) and len(text) == 1 and text.upper() in SUITS:
        return SUITS.index(text.upper())
    return card_suit(parse_card(text))


def cards_mask(cards: Iterable[int | str]) -> int:
    """Mask of an iterable of card ids or card strings. Duplicates raise ValueError."""
    mask = 0
    for c in cards:
        cid = parse_card(c) if isinstance(c, str) else int(c)
        if not 0 <= cid < N_CARDS:
            raise ValueError(f"card id out of range: {cid}")
        if mask >> cid & 1:
            raise ValueError(f"card {card_str(cid)} appears twice")
        mask |= 1 << cid
    return mask


def mask_cards(mask: int) -> list[int]:
    """Card ids of a mask, lowest first."""
    out = []
    m = int(mask)
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def mask_str(mask: int, sep: str = " ") -> str:
    return sep.join(card_str(c) for c in mask_cards(mask))


def beats(card: int, other: int, trump_suit: int) -> bool:
    """True when ``card`` beats ``other`` (R1.3)."""
    if card & 3 == other & 3:
        return card >> 2 > other >> 2
    return card & 3 == trump_suit


def beaters_mask(card: int, trump_suit: int) -> int:
    """Mask of every card that beats ``card`` (R1.3)."""
    return sum(1 << c for c in range(N_CARDS) if beats(c, card, trump_suit))

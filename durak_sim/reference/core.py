"""What the reference engine's modules share: its errors, the seats of a table (who defends,
who may throw in, in which order they are asked) and prostoy's lead patterns. Plain functions
of plain values, each citing the rule it implements (docs/rules.md).

Seats: ``active`` is a list of bools, one per seat (not out, R7.5). Teams (R8.4): seat *s*
plays for team ``s & 1`` (0: seats 0, 2, 4; 1: seats 1, 3, 5).

>>> next_active(1, [True, False, True, True])
2
>>> defender_of(0, [True] * 4, teams=True), ask_order(0, 1, 0b1101, 4)
(1, [0, 2, 3])
>>> is_prostoy_pattern([0, 1, 8]), is_prostoy_pattern([0, 4, 8])
(True, False)
"""
from __future__ import annotations

from ..cards import N_CARDS, SUIT_MASKS, card_rank

MAX_BOUT = 6        # R3.4: at most six attack cards in a bout
MAX_PROSTOY = 5     # R8.3: a prostoy lead holds at most five cards (E4)
MAX_ACTIONS = 4096  # E12: reaching it is an engine error (PLAY_CAP ends a deal long before)
#: E12: a bout that ends with at least this many actions of the deal played ends the deal,
#: a draw among the seats still active
PLAY_CAP = 3000


class IllegalActionError(ValueError):
    """An action that is not legal in the position (names strategy, seed, deal when known)."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay (one-line message)."""


class EngineError(RuntimeError):
    """The engine broke its own contract (E12: a deal reached 4,096 actions)."""


def bit(card: int) -> int:
    return 1 << card


def first_attacker_of(hands: list[int], trump_suit: int) -> int:
    """R2.3: the seat holding the lowest trump across the hands (masks), else seat 0.

    >>> from durak_sim.cards import cards_mask
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


# ---------------------------------------------------------------------- seats
def clockwise(seat: int, n: int) -> list[int]:
    """The other seats in seat order after ``seat`` (R7.1: seats go clockwise)."""
    return [(seat + k) % n for k in range(1, n)]


def next_active(seat: int, active: list[bool]) -> int:
    """The next active seat after ``seat`` (R7.1), -1 if there is none."""
    return next((s for s in clockwise(seat, len(active)) if active[s]), -1)


def prev_active(seat: int, active: list[bool]) -> int:
    """The nearest active seat before ``seat`` (the other side of it, R7.2)."""
    return next((s for s in reversed(clockwise(seat, len(active))) if active[s]), -1)


def next_opponent(seat: int, active: list[bool]) -> int:
    """R8.4: the next active seat after ``seat`` of the other team, -1 if none."""
    return next((s for s in clockwise(seat, len(active)) if active[s] and s & 1 != seat & 1),
                -1)


def next_partner(seat: int, active: list[bool]) -> int:
    """R8.4, E10: the next active partner after ``seat`` (its own team), -1 if none."""
    return next((s for s in clockwise(seat, len(active)) if active[s] and s & 1 == seat & 1),
                -1)


def defender_of(attacker: int, active: list[bool], teams: bool) -> int:
    """R2.4, R7.1: the next active seat after the attacker; R8.4: with teams the next active
    opponent."""
    return next_opponent(attacker, active) if teams else next_active(attacker, active)


def eligible_mask(attacker: int, defender: int, active: list[bool], teams: bool,
                  scope: str, prostoy: bool) -> int:
    """E3 (R7.2, R8.3, R8.4): the seats that may throw in this bout, as a mask of seats."""
    if prostoy:  # R8.3: only the (main) attacker attacks, at any table size
        return 1 << attacker
    if scope == "all":  # R7.2: every active seat but the defender
        seats = {s for s in range(len(active)) if active[s]}
    else:  # R7.2 neighbours: the main attacker and the nearest active seat on each side
        seats = {attacker, next_active(defender, active), prev_active(defender, active)}
    seats.discard(defender)
    if teams:  # R8.4: the defender's partners never attack it
        seats = {s for s in seats if s & 1 != defender & 1}
    seats.add(attacker)
    return sum(1 << s for s in seats if s >= 0)


def ask_order(attacker: int, defender: int, eligible: int, n: int) -> list[int]:
    """E2 (R7.3): the main attacker, then the seats after him clockwise, skipping the
    defender and every seat that is not eligible."""
    return [attacker] + [s for s in clockwise(attacker, n)
                         if s != defender and eligible >> s & 1]


def draw_order(attacker: int, defender: int, active: list[bool]) -> list[int]:
    """E9 (R4.1): the main attacker, every other active seat in seat order after him
    (skipping the defender), the defender last."""
    n = len(active)
    return [attacker] + [s for s in clockwise(attacker, n) if active[s] and s != defender] \
        + [defender]


# ---------------------------------------------------------------------- prostoy (R8.3, E4)
def _pairs(counts: list[int]) -> int:
    return sum(c // 2 for c in counts)


def _rank_counts(cards) -> list[int]:
    counts = [0] * 9
    for c in cards:
        counts[card_rank(c)] += 1
    return counts


def is_prostoy_pattern(cards: list[int]) -> bool:
    """R8.3: one card; three holding a pair; five holding two pairs (three of a kind with a
    pair counts) or four of a rank and any fifth. (Three of a kind with two odd cards holds a
    single pair: it does not count.)"""
    need = {1: 0, 3: 1, 5: 2}.get(len(cards))
    return need is not None and _pairs(_rank_counts(cards)) >= need


def _max_pairs(lead: list[int], rest: list[int], extra: int) -> int:
    """The most pairs ``lead`` plus exactly ``extra`` cards of ``rest`` can hold (-1 when
    ``rest`` has fewer cards): a small knapsack over the nine ranks."""
    have, spare = _rank_counts(lead), _rank_counts(rest)
    best = [0] + [-1] * extra          # best[u]: most pairs using u extra cards so far
    for r in range(9):
        new = [-1] * (extra + 1)
        for used, pairs in enumerate(best):
            if pairs < 0:
                continue
            for x in range(min(spare[r], extra - used) + 1):
                new[used + x] = max(new[used + x], pairs + (have[r] + x) // 2)
        best = new
    return best[extra]


def prostoy_can_grow(lead: list[int], card: int, hand: list[int], limit: int) -> bool:
    """E4: may ``card`` join the lead? Only when the lead with it can still become a legal
    pattern (R8.3) of at most ``limit`` cards (min(5, the defender's hand)), from the cards
    the attacker holds."""
    grown = lead + [card]
    rest = [c for c in hand if c != card]
    for size, need in ((3, 1), (5, 2)):
        if len(grown) <= size <= limit and \
                _max_pairs(grown, rest, size - len(grown)) >= need:
            return True
    return False

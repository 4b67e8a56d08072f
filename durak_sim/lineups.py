"""Which games a tournament plays: the line-ups of a field and the seatings of a line-up.

A *line-up* is the strategies at one table, one per seat (repeats allowed: ``hard easy easy
easy``). A field of exactly ``players`` strategies is one line-up, as given; a larger field
(of different strategies) gives every combination of ``players`` of them, in field order;
a gauntlet's strategy sits in every line-up with ``players - 1`` of the others. At two
players these are a round robin's (or a gauntlet's) pairings. With teams (line-up
positions 0, 2, 4 against 1, 3, 5) a larger field, and a gauntlet of any size, gives each
combination once for every way of splitting it into two partnerships, the combination's own
order first, so that every two strategies are partners equally often (three line-ups of
each four, ten of each six); a gauntlet's strategy then has each of the others as a partner
equally often, whatever their order.

A *seating* puts the line-up on the seats: ``perm[s]`` is the line-up position that plays
seat ``s``. Every deal is played once in every seating of its line-up:

* up to four players, every distinct permutation of the line-up (distinct as names: ``hard
  easy easy easy`` has four, one per seat of ``hard``);
* five and six players, a balanced set: the rotations of the line-up and of its mirror
  image (seat ``s`` played by position ``(s + r) % n``, and by ``(r - s) % n``), distinct
  ones, so every strategy sits in every seat equally often and meets each neighbour on both
  sides; the neighbours are those of the line-up's order (one of the (n-1)!/2 orders round
  the table), so another listing of the same field can measure something else;
* with teams (line-up positions 0, 2, 4 against 1, 3, 5), only the seatings of those that
  keep the partnerships: the members of a team on seats of one parity.

Seating 0 is the line-up as given; at two players seating 1 swaps the seats.

>>> field_lineups(["random", "easy", "normal", "hard"], 3)
[('random', 'easy', 'normal'), ('random', 'easy', 'hard'), ('random', 'normal', 'hard'), ('easy', 'normal', 'hard')]
>>> len(seatings(("a", "b", "c", "d"))), seatings(("hard", "easy", "easy", "easy"))
(24, [(0, 1, 2, 3), (1, 0, 2, 3), (1, 2, 0, 3), (1, 2, 3, 0)])
>>> len(seatings(("a", "b", "c", "d", "e", "f"))), len(seatings(("a", "b", "c", "d"), teams=True))
(12, 8)
"""
from __future__ import annotations

from itertools import combinations, permutations
from typing import Sequence


def field_lineups(strategies: Sequence[str], players: int, gauntlet: bool = False,
                  teams: bool = False) -> list[tuple[str, ...]]:
    """The line-ups of a field in play order (``gauntlet``: ``strategies[0]`` plays in every
    one; ``teams``: every split of a combination into partnerships, :func:`partnerships`).

    >>> field_lineups(["a", "b", "c"], 2)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> field_lineups(["g", "a", "b", "c"], 3, gauntlet=True)
    [('g', 'a', 'b'), ('g', 'a', 'c'), ('g', 'b', 'c')]
    >>> field_lineups(["hard", "easy", "easy", "easy"], 4)
    [('hard', 'easy', 'easy', 'easy')]
    >>> field_lineups(["a", "b", "c", "d"], 4, teams=True)      # exactly one line-up: as given
    [('a', 'b', 'c', 'd')]
    >>> field_lineups(["g", "a", "b", "c"], 4, gauntlet=True, teams=True)   # g with each partner
    [('g', 'a', 'b', 'c'), ('g', 'b', 'a', 'c'), ('g', 'a', 'c', 'b')]
    >>> len(field_lineups(["a", "b", "c", "d", "e"], 4, teams=True))
    15
    """
    s = list(strategies)
    if len(s) == players and not (gauntlet and teams):
        return [tuple(s)]
    if gauntlet:
        combos = [(s[0], *c) for c in combinations(s[1:], players - 1)]
    else:
        combos = [tuple(c) for c in combinations(s, players)]
    if teams:
        # (dict: a gauntlet of exactly one table may repeat a strategy, whose splits repeat)
        return list(dict.fromkeys(lineup for c in combos for lineup in partnerships(c)))
    return combos


def partnerships(combo: Sequence[str]) -> list[tuple[str, ...]]:
    """The line-ups of one combination of a teams field: one for each split into two
    partnerships (the line-up's positions 0, 2, 4 against 1, 3, 5), the combination's own
    order first, then the splits by the partners of its first strategy.

    >>> partnerships(("a", "b", "c", "d"))
    [('a', 'b', 'c', 'd'), ('a', 'c', 'b', 'd'), ('a', 'b', 'd', 'c')]
    >>> len(partnerships(tuple("abcdef")))
    10
    """
    n = len(combo)
    own = tuple(range(0, n, 2))
    splits = [own] + [(0, *rest) for rest in combinations(range(1, n), n // 2 - 1)
                      if (0, *rest) != own]
    out = []
    for team in splits:
        other = [k for k in range(n) if k not in team]
        out.append(tuple(combo[k] for pair in zip(team, other) for k in pair))
    return out


def _keeps_partnerships(perm: Sequence[int]) -> bool:
    """Whether the line-up's teams (positions of one parity) sit on seats of one parity."""
    return len({(p - s) % 2 for s, p in enumerate(perm)}) == 1


def seatings(lineup: Sequence[str], teams: bool = False) -> list[tuple[int, ...]]:
    """The seatings of a line-up (module docstring), seating 0 first: each a tuple
    ``perm`` with ``perm[s]`` the line-up position in seat ``s``.

    >>> seatings(("random", "easy"))
    [(0, 1), (1, 0)]
    >>> seatings(("a", "b", "a", "b", "a"))   # rotations; the mirror's are the same
    [(0, 1, 2, 3, 4), (1, 2, 3, 4, 0), (2, 3, 4, 0, 1), (3, 4, 0, 1, 2), (4, 0, 1, 2, 3)]
    """
    n = len(lineup)
    if n <= 4:
        candidates = list(permutations(range(n)))
    else:
        candidates = ([tuple((s + r) % n for s in range(n)) for r in range(n)]
                      + [tuple((r - s) % n for s in range(n)) for r in range(n)])
    if teams:
        candidates = [p for p in candidates if _keeps_partnerships(p)]
    seen, out = set(), []
    for perm in candidates:
        names = tuple(lineup[p] for p in perm)
        if names not in seen:
            seen.add(names)
            out.append(perm)
    return out


def seating_plan(perms: Sequence[Sequence[int]]) -> list[tuple[tuple[int, ...], list]]:
    """The seatings grouped into rotations of one seat order, each group one kernel call
    (:func:`durak_sim.play.play_schedule` plays seat ``s`` of a game of rotation ``r`` with
    ``base[(s + r) % n]``): ``[(base, [(rot, seating index), ...]), ...]``.

    >>> seating_plan([(0, 1), (1, 0)])
    [((0, 1), [(0, 0), (1, 1)])]
    >>> [len(m) for _, m in seating_plan(list(permutations(range(4))))]
    [4, 4, 4, 4, 4, 4]
    """
    plan: list = []
    for g, perm in enumerate(perms):
        n = len(perm)
        for base, members in plan:
            rot = next((r for r in range(n)
                        if all(perm[s] == base[(s + r) % n] for s in range(n))), None)
            if rot is not None:
                members.append((rot, g))
                break
        else:
            plan.append((tuple(perm), [(0, g)]))
    return plan


__all__ = ["field_lineups", "seating_plan", "seatings"]

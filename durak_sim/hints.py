"""Advice for the person at ``durak-sim play``: the exact value of each legal move once two
seats are left (the person's one of them) with an empty stock (the solver; every card's place
follows from what the person has seen there, R10.4), at every table the solver plays (not
prostoy, not teams)."""
from __future__ import annotations


from .observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND, O_PLAYERS, O_STOCK,
                          O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_SUIT)
from .views import table_pairs

#: the solver's budgets per legal move of a hint (a capped search gives bounds)
HINT_NODES, HINT_SECONDS = 2_000_000, 2.0


def endgame_values(game, codes: list[int], rules) -> dict | None:
    """``{code: (lo, hi)}``: the solver's value of each legal move of seat 0 (its view: 1 it
    goes out, 0 a draw, -1 the Durak), exact when ``lo == hi``; None unless the stock is
    empty and seat 0 is one of the two seats left, at a table the solver plays."""
    from .solve import solve_many

    if rules.prostoy or rules.teams:
        return None
    out, todo = {}, []
    for code in codes:
        child = game.copy()
        child.apply(code)
        if child.is_over():
            res = child.result()
            v = 0 if res["outcome"] == "draw" else (-1 if res["durak"] == 0 else 1)
            out[code] = (v, v)
            continue
        pos = endgame_position(child.observation(0)) if rules.is_default else \
            _table_endgame(child)
        if pos is None:
            return None
        todo.append((code, pos))
    results = solve_many([p for _, p in todo], node_cap=HINT_NODES, time_limit=HINT_SECONDS)
    for (code, _), r in zip(todo, results):   # one transposition table for all of them
        out[code] = (r.value, r.value) if r.exact else tuple(r.bounds)
    return out


def _table_endgame(game):
    """The endgame position of another table's game once two seats are left, seat 0 one of
    them, with an empty stock (None otherwise). Written from the game, it holds nothing seat
    0 could not tell: the other hand is every card not in its hand, on the table or
    discarded, and the rest (the bout's limit, a lead being laid) is on the table for all."""
    from .position import Position
    from .reference import endgame_position as game_position

    left = [s for s in range(game.rules.players) if s not in game.out]
    if game.stock or len(left) != 2 or 0 not in left:
        return None
    return Position.from_dict(game_position(game))


def endgame_position(obs):
    """The two-player position seat ``obs`` sees once the stock is empty: the other hand is
    every card neither in its hand, on the table nor discarded (None with a stock)."""
    from .cards import FULL_DECK
    from .position import Position

    if int(obs[O_STOCK]) != 0 or int(obs[O_PLAYERS]) != 2:
        return None
    me = int(obs[0])
    hand = int(obs[O_HAND])
    pairs = table_pairs(obs)
    on_table = int(obs[O_TABLE_ATTACKS]) | int(obs[O_TABLE_DEFENCES])
    other = FULL_DECK & ~(hand | int(obs[O_DISCARD]) | on_table)
    hands = [0, 0]
    hands[me], hands[1 - me] = hand, other
    return Position(trump_suit=int(obs[O_TRUMP_SUIT]), hands=(hands[0], hands[1]), stock=(),
                    attacker=int(obs[O_ATTACKER]), table=tuple(pairs),
                    taking=bool(obs[O_TAKING]),
                    bout_limit=int(obs[O_BOUT_LIMIT]) if pairs else None)

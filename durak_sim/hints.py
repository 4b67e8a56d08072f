"""Advice for the person at ``durak-sim play``: the exact value of each legal move once two
seats are left (the person's one of them) with an empty stock (the solver; every card's place
follows from what the person has seen there, R10.4), at every table the solver plays (not
prostoy, not teams); before that, the move of an adviser level (:class:`Adviser`)."""
from __future__ import annotations

import time

import numpy as np
from rich.markup import escape

from .observation import (O_ATTACKER, O_BOUT_LIMIT, O_DISCARD, O_HAND, O_N_HIST, O_PLAYERS,
                          O_STOCK, O_TABLE_ATTACKS, O_TABLE_DEFENCES, O_TAKING, O_TRUMP_SUIT)
from .seeding import HINT_STREAM, stream_start
from .views import table_pairs

#: the solver's budgets per legal move of a hint (a capped search gives bounds)
HINT_NODES, HINT_SECONDS = 2_000_000, 2.0
#: then the moves those left open share this many seconds more, without a node cap
HINT_MORE_SECONDS = 3.0
#: the table's entries (2**20: 32 MB)
HINT_TABLE_LOG2 = 20


def endgame_values(game, codes: list[int], rules) -> dict | None:
    """``{code: (lo, hi)}``: the solver's value of each legal move of seat 0 (its view: 1 it
    goes out, 0 a draw, -1 the Durak), exact when ``lo == hi``; None unless the stock is
    empty and seat 0 is one of the two seats left, at a table the solver plays."""
    from .solve import _Solver

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
    if not todo:
        return out
    # one table for every move: the same deal, so each search may use the others' entries
    solver = _Solver(HINT_TABLE_LOG2)
    results = [solver.solve(p, HINT_NODES, 0, HINT_SECONDS, same_deal=i > 0)
               for i, (_, p) in enumerate(todo)]
    # the moves left open: again, without the node cap, sharing the time left
    end = time.perf_counter() + HINT_MORE_SECONDS
    again = [i for i, r in enumerate(results) if not r.exact]
    for k, i in enumerate(again):
        left = (end - time.perf_counter()) / (len(again) - k)
        if left < 0.05:
            break
        r = solver.solve(todo[i][1], 0, 0, left, same_deal=True)
        if r.exact or r.bounds[1] - r.bounds[0] < results[i].bounds[1] - results[i].bounds[0]:
            results[i] = r
    for (code, _), r in zip(todo, results):
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


class Adviser:
    """The advice ``hint`` shows at seat 0's move in ``durak-sim play``: in a two-seat
    empty-stock endgame the solver's value of every move, before it the move of the adviser
    (``--advisor``; by default the strongest level that plays the table: expert, else hard,
    else easy), which keeps a workspace of its own for the deal. A failing adviser costs its
    hint, not the game: the next hint asks it again."""

    def __init__(self, strategy=None):
        self.strategy = strategy   # the --advisor's Strategy (None: the strongest)
        self.trying = strategy     # the adviser asked last, named when it fails
        self._ready = None         # (strategy, workspace) once it is ready

    def lines(self, session, obs, codes) -> list[str]:
        """Advice, as the screen's markup (the cards' labels are): in a two-seat empty-stock
        endgame the exact value of every legal move (``durak_sim.solve``), otherwise what
        expert (else hard, else easy) would play in seat 0, with expert's search statistics
        per move where it searched."""
        values = endgame_values(session.game, codes, session.rules) if int(obs[O_STOCK]) == 0 \
            else None
        if values is not None:
            words = {1: "you win", 0: "draw", -1: "you lose"} if session.rules.players == 2 \
                else {1: "you go out", 0: "draw", -1: "you are the Durak"}
            best = max(v[0] for v in values.values())
            same = len(set(values.values())) == 1
            lines = ["hint (exact, perfect play by both from here on):"]
            for k, c in enumerate(codes, 1):
                lo, hi = values[c]
                what = words[lo] if lo == hi else f"between {words[lo]} and {words[hi]}"
                mark = "  <- best" if lo == hi == best and not same else ""
                lines.append(f"  {k} {session.label(obs, c)}: {what}{mark}")
            if same:
                lines.append("  (every move has the same value)")
            return lines
        try:
            name, code, rows = self.move(session, obs, codes)
        except Exception as exc:  # noqa: BLE001 - the adviser's failure, told in a line
            return [self._failed(session, exc)]
        k = codes.index(code) + 1
        lines = [f"hint: {escape(name)} would play {k} {session.label(obs, code)}"]
        if rows:   # expert's search: each move against hard's choice on the same sampled deals
            from .advise import search_lines, search_words

            labels = [f"{j} {session.label(obs, c)}" for j, c in enumerate(codes, 1)]
            moves = [(lab, *rows[c]) for lab, c in zip(labels, codes)]
            lines[0] += f" ({search_words(moves, session.rules)})"
            lines += search_lines(moves, labels[k - 1])
        return lines

    def _failed(self, session, exc: BaseException) -> str:
        """The line a failing adviser's hint is: the adviser, what happened, where; the
        game goes on (the next hint asks it again)."""
        from .errors import StrategyFailure, describe_failure

        strat = self.trying
        self._ready = None
        name = repr(strat.name) if strat is not None else "(none chosen yet)"
        where, at = f"adviser {name} (seat 0)", session.at()
        what = exc.one_line(where, at) if isinstance(exc, StrategyFailure) else \
            f"{where} {describe_failure(exc)} {at}"
        return f"no hint: {escape(what)}"   # (as the screen's markup: it may hold brackets)

    def move(self, session, obs, codes) -> tuple[str, int, dict]:
        """(strategy, code, search rows): what the advisor (by default the strongest level
        that plays this table: expert, else hard, else easy) would play in seat 0 here, with
        a random stream and workspace of its own for this deal; expert's statistics per move
        (``{code: (mean gain over hard's choice, standard error, still in the running,
        sampled deals it was played on)}``, empty when it did not search)."""
        from .play import prepare
        from .reference import hist_for_strategy, legal_array, seat_inputs
        from .registry import get_strategy

        if self._ready is None:
            strat = self.strategy
            for name in ("expert", "hard", "easy") if strat is None else ():
                strat = get_strategy(name)
                if strat.supports(session.rules):
                    break
            strat = strat.for_rules(session.rules)   # (hard's classic decide: the same play)
            self.trying = strat   # (named if it fails, its compile too)
            prepare([strat], kernel=False, notice=session.screen.say)
            _, mems = seat_inputs(session.seed, session.deal, [strat])
            self._ready = (strat, mems[0])
        strat, mem = self._ready
        legal, hist = legal_array(codes), hist_for_strategy(session.game)
        # a random stream of this position's own: the same position gets the same hint,
        # however often it is asked (a sampling adviser's numbers would differ otherwise)
        rng = np.array([stream_start(session.seed, session.deal,
                                     HINT_STREAM + int(obs[O_N_HIST]))],
                       dtype=np.uint64)
        rows = {}
        if strat.name == "expert":
            from .strategies.expert import expert_advice

            code, found = expert_advice(obs, legal, hist, rng)   # a fresh workspace
            rows = {c: tuple(row) for c, *row in found}
        else:
            code = int(strat.decide(obs, legal, hist, rng, mem))
        return strat.name, code if code in codes else codes[0], rows

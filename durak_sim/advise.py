"""expert's advice at a position from the view of the seat to move (``durak-sim solve
--expert``): what it plays when it cannot see the other hand nor the stock's order.

``solve`` alone knows every card of a position (the value of perfect play by both seats);
before the stock runs out a player knows far less (R6): its own hand, the table, the discard
pile, the face-up trump and the cards known to be in the other hand (the position's
``known``). ``advise`` hands exactly that observation to expert (strategies/expert.py), whose
search deals the unseen cards again at random many times, and returns its move with each
legal move's mean result against hard's choice over those deals.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Advice:
    """expert's move at a position; ``moves`` one row per legal move: ``(action, mean gain
    over hard's choice, its standard error, still in the running)``, in the engine's order
    (empty when expert did not search: the exact endgame, which it plays as hard)."""
    seat: int
    action: str
    moves: tuple

    def to_dict(self) -> dict:
        return {"advisor": "expert", "seat": self.seat, "action": self.action,
                "moves": [{"action": a, "gain": round(g, 6), "se": round(se, 6),
                           "in_running": alive} for a, g, se, alive in self.moves]}


#: what the rows of :func:`search_lines` are (said once, after the move chosen)
SEARCH_WORDS = ("its search: each move's mean result against hard's choice, +1 a won deal, "
                "-1 a lost one, over the deals it sampled; 95% intervals")


def search_lines(moves, played) -> list[str]:
    """One line per move of expert's search: ``moves`` rows ``(label, mean gain, standard
    error, still in the running)``; the row whose label is ``played`` is marked.

    >>> search_lines([("attack 6S", 0.0, 0.0, True), ("attack 7C", 0.1875, 0.0725, False)],
    ...              "attack 6S")
    ['  attack 6S: +0.000 \u00b1 0.000  <- played', '  attack 7C: +0.188 \u00b1 0.142  (dropped)']
    """
    lines = []
    for label, gain, se, alive in moves:
        mark = "  <- played" if label == played else ("" if alive else "  (dropped)")
        lines.append(f"  {label}: {gain:+.3f} \u00b1 {1.96 * se:.3f}{mark}")
    return lines


def applies(position) -> bool:
    """Whether expert's advice applies: the two-player default game (the ruleset expert
    plays), a seat to move, and at least two cards in the stock (with fewer, every card is
    known and ``solve`` is exact)."""
    from .registry import get_strategy
    from .rules import Rules

    rules = position.rules or Rules()
    return (get_strategy("expert").supports(rules) and position.to_move is not None
            and len(position.stock) >= 2)


def advise(position, seed: int = 0) -> Advice:
    """expert's advice for the seat to move of ``position`` (see :func:`applies`); its
    random stream is that seat's stream of deal 0 of master seed ``seed``."""
    from .play import prepare
    from .reference import ReferenceGame, hist_for_strategy, legal_array, seat_inputs
    from .registry import get_strategy
    from .strategies.expert import expert_advice
    from .views import action_text

    strat = get_strategy("expert")
    prepare([strat], kernel=False)
    g = ReferenceGame.from_position(position.to_dict())
    seat = g.to_move()
    obs, codes = g.observation(seat), g.legal_actions()
    rngs, _ = seat_inputs(seed, 0, [strat, strat])   # (the two-player default game)
    code, rows = expert_advice(obs, legal_array(codes), hist_for_strategy(g), rngs[seat])
    moves = tuple((action_text(obs, c), gain, se, alive) for c, gain, se, alive in rows)
    return Advice(seat, action_text(obs, code), moves)

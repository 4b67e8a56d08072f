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
    over hard's choice, its standard error, still in the running, sampled deals it was
    played on)`` (mean and error over those deals), in the engine's order
    (empty when expert did not search: the exact endgame, which it plays as hard)."""
    seat: int
    action: str
    moves: tuple
    #: hard's choice, the base every gain is measured against (None: no search)
    hard: str | None = None

    def to_dict(self) -> dict:
        return {"advisor": "expert", "seat": self.seat, "action": self.action,
                "moves": [{"action": a, "gain": round(g, 6), "se": round(se, 6),
                           "in_running": alive, "deals": n, "hard": a == self.hard}
                          for a, g, se, alive, n in self.moves]}


def search_words(moves, rules=None) -> str:
    """What the rows of :func:`search_lines` are (said once, after the move chosen); the
    deals sampled are those of the rows played the longest (hard's choice among them).
    ``rules`` (default: the two-player game) names the result a deal scores: a won or lost
    deal at two players and with teams, else the place (strategies/_expert_tables.py)."""
    from .rules import Rules
    from .strategies.expert import Z_PLAY

    rules = rules or Rules()
    if rules.players == 2 or rules.teams:
        result = "+1 a won deal, 0 a draw, -1 a lost one"
    else:
        n = rules.players
        scores = ", ".join(f"{n + 1 - 2 * p:+d}" for p in range(1, n + 1))
        result = f"places scoring {scores} from first out to the Durak"
    return (f"its search: each move's mean result against hard's choice, {result}, over "
            f"the {max(m[-1] for m in moves)} deals it sampled; 95% intervals; expert "
            f"leaves hard's choice only for a move {Z_PLAY:g} standard errors ahead of it "
            f"(about {Z_PLAY / 1.96:.1f} times such an interval's half); a move falling "
            f"behind is dropped, no longer played out")


def search_lines(moves, played) -> list[str]:
    """One line per move of expert's search: ``moves`` rows ``(label, mean gain, standard
    error, still in the running[, deals it was played on])``; the row whose label is
    ``played`` is marked. Hard's choice, the baseline, is the row in the running with no
    gain and no spread (a move tied with it on every deal is dropped at the first check); a
    dropped move's mean and interval are over the deals it was played on, before its drop.

    >>> for line in search_lines([("attack 6S", 0.0, 0.0, True, 64), ("attack 7C", 0.1875,
    ...                           0.0725, True, 64), ("attack 8C", 0.0, 0.0, False, 16),
    ...                           ("take", -0.25, 0.1, False, 16)], "attack 7C"):
    ...     print(line)
      attack 6S: hard's choice (the baseline)
      attack 7C: +0.188 ± 0.142  <- played
      attack 8C: dropped after 16 deals, the same result as hard's choice on each
      take: -0.250 ± 0.196, dropped after 16 deals
    """
    lines = []
    for label, gain, se, alive, *deals in moves:
        after = f" after {deals[0]} deals" if deals else ""
        if alive and gain == 0 and se == 0:
            what = "hard's choice (the baseline)"
        elif alive:
            what = f"{gain:+.3f} \u00b1 {1.96 * se:.3f}"
        elif gain == 0 and se == 0:
            what = f"dropped{after}, the same result as hard's choice on each"
        else:
            what = f"{gain:+.3f} \u00b1 {1.96 * se:.3f}, dropped{after}"
        lines.append(f"  {label}: {what}" + ("  <- played" if label == played else ""))
    return lines


def applies(position) -> bool:
    """Whether expert's advice applies: a seat to move where expert searches, that is
    unless the position is a perfect-information endgame, which ``solve`` settles exactly
    (a position's two hands are the seats still holding cards; positions are not written
    for prostoy): at least two cards in the stock."""
    return position.to_move is not None and len(position.stock) >= 2


def advise(position, seed: int = 0) -> Advice:
    """expert's advice for the seat to move of ``position`` (see :func:`applies`); its
    random stream is that seat's stream of deal 0 of master seed ``seed``."""
    from .observation import O_PLAYERS
    from .play import prepare
    from .reference import ReferenceGame, hist_for_strategy, legal_array, seat_inputs
    from .registry import get_strategy
    from .rules import Rules
    from .strategies.expert import E_BASE, expert_advice
    from .views import action_text

    strat = get_strategy("expert")
    prepare([strat.for_rules(position.rules or Rules())], kernel=False)   # (what it calls)
    g = ReferenceGame.from_position(position.to_dict())
    seat = g.to_move()
    obs, codes = g.observation(seat), g.legal_actions()
    rngs, mems = seat_inputs(seed, 0, [strat] * int(obs[O_PLAYERS]))
    mem = mems[seat]   # (its search's base action is read from it after)
    code, rows = expert_advice(obs, legal_array(codes), hist_for_strategy(g), rngs[seat], mem)
    moves = tuple((action_text(obs, c), *row) for c, *row in rows)
    return Advice(seat, action_text(obs, code), moves,
                  action_text(obs, int(mem[E_BASE])) if rows else None)

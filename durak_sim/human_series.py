"""A series of deals with a person in seat 0 (``durak-sim play --deals N``, R9).

Deal *k* of series *j* is dealt, seeded and passed from dealer to dealer exactly as
``durak-sim series`` plays it (R9.1, E13): the Durak of a deal deals the next, after a draw
the same dealer again, and the seat after the dealer attacks first. Each AI gets the random
stream and fresh workspace that seat gets in that series, so with the same moves of yours the
records are the ones ``durak-sim series`` writes. After each deal the series score is shown
(R9.2: +1 to the first player out, -1 to the Durak).
"""
from __future__ import annotations

import numpy as np

from .formatting import ordinal
from .human import PlaySession, Quit, SeriesDeal
from .reference.playing import next_dealer

#: the most deals ``--deals`` plays in one series (a long evening's worth)
MAX_SERIES_DEALS = 100


class SeriesScore:
    """Per seat the deals lost (Durak; with teams: the seat's team lost), the deals gone out
    first and the R9.2 score, counted as ``seat_results`` counts them for ``series``."""

    def __init__(self, players: int, teams: bool):
        self.players, self.teams = players, teams
        self.lost = [0] * players
        self.first = [0] * players
        self.draws = 0
        self.deals = 0

    def add(self, res: dict) -> None:
        """Count a finished deal's ``result`` (a game's ``result()``)."""
        from .place_counts import seat_results

        n = self.players
        places = res.get("places")
        if places is None:   # (two players: the one out first, else a draw)
            places = [1, 1] if res["durak"] is None else \
                [2 if s == res["durak"] else 1 for s in range(n)]
        draw = res["outcome"] == "draw"
        durak = -1 if res["durak"] is None else res["durak"]
        team = res.get("durak_team")
        lost, _, first = seat_results(np.array([places]), np.array([1 if draw else 0]),
                                      np.array([durak]),
                                      np.array([-1 if team is None else team]), self.teams)
        for s in range(n):
            self.lost[s] += int(lost[0, s])
            self.first[s] += int(first[0, s])
        self.draws += draw
        self.deals += 1

    def score(self, seat: int) -> int:
        return self.first[seat] - self.lost[seat]

    def lines(self, who, of: int) -> list[str]:
        """The score table after ``self.deals`` of ``of`` deals; ``who(seat)`` names a seat.

        >>> sc = SeriesScore(2, False)
        >>> sc.add({"outcome": "win", "durak": 1, "out_order": [0, 1], "bouts": 9})
        >>> print("\\n".join(sc.lines(lambda s: ["you", "seat 1"][s], 3)))
        series score after 1 of 3 deals (+1 first out, -1 Durak; R9.2):
          you     +1  first out 1, Durak 0
          seat 1  -1  first out 0, Durak 1
        """
        names = [who(s) for s in range(self.players)]
        width = max(map(len, names))
        draws = f", {self.draws} drawn" if self.draws else ""
        lost = "team lost" if self.teams else "Durak"
        minus = "-1 each seat of the team that lost" if self.teams else "-1 Durak"
        lines = [f"series score after {self.deals} of {of} deal{'' if of == 1 else 's'}"
                 f"{draws} (+1 first out, {minus}; R9.2):"]
        for s, name in enumerate(names):
            lines.append(f"  {name:<{width}}  {self.score(s):+d}  first out {self.first[s]}, "
                         f"{lost} {self.lost[s]}")
        if self.teams:
            lines.append(f"  deals lost: your team {self.lost[0]}, the other team {self.lost[1]}")
        return lines


class SeriesPlay:
    """``n`` deals of series ``deal`` with a person in seat 0: ``make(series_deal)`` makes
    each deal's :class:`PlaySession`. Shows each deal's result and the score, and asks for
    Enter before the next deal (``quit`` or the end of the input stop the series)."""

    def __init__(self, make, n: int, rules, screen, read):
        self.make, self.n, self.rules = make, n, rules
        self.screen, self.read = screen, read
        self.score = SeriesScore(rules.players, rules.teams)
        self.finished: list[dict] = []   # the records of the deals played to their end
        self.current: PlaySession | None = None
        self._dealer = None   # who deals the next deal (None: the first deal, R2.1)

    def run(self) -> None:
        for k in range(self.n):
            self.current = self.make(SeriesDeal(k, self.n, self._dealer))
            self.current.run()
            self._settle()
            for line in self.current.result_lines():
                self.screen.say(f"[bold]{line}[/]")
            for line in self.score.lines(self.current.who, self.n):
                self.screen.say(line)
            if k + 1 < self.n:
                self._pause(k + 1)

    def _settle(self) -> None:
        """Count the current deal once it is over: its record, its score, the next dealer.
        Also called when the series stops, so that a deal whose last move was made just
        before a Ctrl-C (which waits for the move, then stops) is kept and scored."""
        cur = self.current
        if cur is None or not cur.game.is_over() or len(self.finished) > cur.series.k:
            return
        self.finished.append(cur.record())
        res = cur.game.result()
        self.score.add(res)
        self._dealer = next_dealer(res, cur.game.dealer, self.rules.players)

    def _pause(self, k: int) -> None:
        """Enter starts deal ``k``; quit stops the series; anything else is asked again."""
        while True:
            try:
                line = self.read(f"Enter: deal {k} of the series ({ordinal(k + 1)} of "
                                 f"{self.n}); quit stops> ").strip().lower()
            except EOFError:
                raise Quit(eof=True) from None
            if not line:
                return
            if line in ("quit", "q", "exit"):
                raise Quit()
            self.screen.say("[yellow]press Enter for the next deal, or type quit[/]")

    def _between(self) -> bool:
        """True when the current deal is over (the series stopped between two deals)."""
        return self.current is None or self.current.game.is_over()

    def records(self) -> list[dict]:
        """Every deal's record so far, an unfinished deal's last (``"unfinished": true``)."""
        self._settle()
        if self._between():
            return list(self.finished)
        return [*self.finished, self.current.record()]

    def result_lines(self) -> list[str]:
        """The closing result: the series' final score (each deal's was shown after it)."""
        return ["the series is over: " + self._leaders()]

    def stopped_lines(self, what: str) -> list[str]:
        """Where the series stopped and the score of its finished deals."""
        self._settle()
        if self._between():
            head = f"[bold]{what}[/] after {len(self.finished)} of {self.n} deals"
        else:
            n, k = len(self.current.game.history), len(self.finished)
            head = (f"[bold]{what}[/] after {n} action{'' if n == 1 else 's'} of deal {k} "
                    f"({ordinal(k + 1)} of {self.n})")
        tail = self.score.lines(self.current.who, self.n) if self.finished else []
        return ["", head, *tail]

    def dealt_lines(self) -> list[str]:
        return [] if self.current is None else self.current.dealt_lines()

    def _leaders(self) -> str:
        sc = self.score
        best = max(sc.score(s) for s in range(sc.players))
        top = [s for s in range(sc.players) if sc.score(s) == best]
        names = " and ".join(self.current.who(s) for s in top)
        verb = "share" if len(top) > 1 else "have" if top == [0] else "has"
        return f"{names} {verb} the top score, {best:+d}"


__all__ = ["SeriesPlay", "SeriesScore", "MAX_SERIES_DEALS"]

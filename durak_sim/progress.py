"""Live progress of long runs on stderr: what is done, how fast, how long is left, and a
running score per pairing, in the manner of cutechess-cli's "Score of A vs B" lines.

A run keeps a :class:`Board` up to date after every block of games it plays (each block
about two seconds of play, whatever the pairing's speed); :func:`live` shows the board,
redrawn a few times a second, only when stderr is a terminal, and shows nothing otherwise.

The time left is the sum over the unfinished rows of what each still has to play divided
by that row's own speed so far, so a slow pairing still to come is not estimated at the
speed of the fast ones before it (a row that has not started yet makes the estimate wait).

>>> b = Board("demo", unit="deal pairs")
>>> b.add("x", "easy vs random", total=1000, a="easy", b="random")
>>> b.advance("x", 500, 0.25, wdl=(900, 20, 80), pent=(5, 10, 20, 65, 400))
>>> b.rows["x"].done, round(b.seconds_left(), 3)
(500, 0.25)
>>> b.score_line("x")
'easy 900-20-80 (W-D-L), 91.0%'
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np


@dataclass
class Row:
    """One pairing, line-up or job of a run. ``done``/``total`` in the board's unit;
    ``played``/``seconds``: what this session played of it and the play time it took;
    ``wdl``: the first-named side's wins, draws, losses in games; ``pent``: its
    pentanomial deal-pair counts p0..p4 (for the Elo interval); ``games_per_unit``: games
    a unit of this row (default the board's); ``live``: a running score of its own (an
    object whose ``text()`` is the score line, e.g. a line-up's mean places)."""

    label: str
    total: int
    done: int = 0
    a: str | None = None
    b: str | None = None
    played: int = 0
    seconds: float = 0.0
    games: int = 0
    wdl: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))
    pent: np.ndarray = field(default_factory=lambda: np.zeros(5, np.int64))
    games_per_unit: int | None = None
    live: object = None

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    @property
    def rate(self) -> float | None:
        """This session's speed on this row (units a second), None before its first block."""
        return self.played / self.seconds if self.played and self.seconds > 0 else None


class Board:
    """The state a live display shows (plain data: the run updates it, the display's thread
    only reads it)."""

    def __init__(self, title: str, unit: str = "deals", games_per_unit: int = 1):
        self.title = title
        self.unit = unit
        self.games_per_unit = games_per_unit
        self.rows: dict = {}
        self.status = ""
        self.started = time.perf_counter()
        self.playing_since = None   # when the first block began (a compile before it aside)
        #: whether a live display shows it (set by :func:`live`): the run need not compute
        #: the running scores of a board nobody sees
        self.shown = False
        self.console = None   # the live display's console (set by :func:`live`)

    def add(self, key, label: str, total: int, done: int = 0, a: str | None = None,
            b: str | None = None, games_per_unit: int | None = None) -> None:
        self.rows[key] = Row(label, int(total), int(done), a, b,
                             games_per_unit=games_per_unit)

    def advance(self, key, n: int, seconds: float, wdl: Sequence[int] | None = None,
                pent: Sequence[int] | None = None) -> None:
        """Row ``key`` played ``n`` more units in ``seconds``; add its results if given."""
        r = self.rows[key]
        if self.playing_since is None:
            self.playing_since = time.perf_counter() - seconds
        r.done += n
        r.played += n
        r.seconds += seconds
        r.games += n * self.per(key)
        if wdl is not None:
            r.wdl += np.asarray(wdl, np.int64)
        if pent is not None:
            r.pent += np.asarray(pent, np.int64)

    def per(self, key) -> int:
        """Games a unit of row ``key``."""
        r = self.rows[key]
        return r.games_per_unit if r.games_per_unit is not None else self.games_per_unit

    # -- what the display shows ----------------------------------------------------------
    @property
    def done(self) -> int:
        return sum(r.done for r in self.rows.values())

    @property
    def total(self) -> int:
        return sum(r.total for r in self.rows.values())

    def games_per_second(self) -> float | None:
        """Games a second since play began (a first run's compile is not play)."""
        if self.playing_since is None:
            return None
        seconds = time.perf_counter() - self.playing_since
        games = sum(r.games for r in self.rows.values())
        return games / seconds if games and seconds > 0 else None

    def seconds_left(self) -> float | None:
        """Play time left: each unfinished row's remainder at its own speed; None while an
        unfinished row has no speed yet."""
        left = 0.0
        for r in self.rows.values():
            if r.finished:
                continue
            if r.rate is None:
                return None
            left += (r.total - r.done) / r.rate
        return left

    def score_line(self, key) -> str:
        """The leading side's W-D-L and score of a row with results ("" without any); a
        row's own ``live`` score's text."""
        r = self.rows[key]
        if r.live is not None:
            return r.live.text()
        w, d, l = (int(x) for x in r.wdl)
        n = w + d + l
        if not n or r.a is None:
            return ""
        name = r.a
        if w < l:   # the leader reads first, its score and Elo positive
            name, w, l = r.b, l, w
        return f"{name} {w:,}-{d:,}-{l:,} (W-D-L), {100 * (w + d / 2) / n:.1f}%"

    def elo_text(self, key) -> str:
        """The leading side's paired Elo with its 95% interval, from the deal pairs."""
        r = self.rows[key]
        pent = r.pent if r.wdl[0] >= r.wdl[2] else r.pent[::-1]
        if pent.sum() < 2:
            return ""
        from .stats import pair_score_stats

        st = pair_score_stats(pent[None, :])
        elo, lo, hi = (float(st[k][0]) for k in ("elo", "elo_lo", "elo_hi"))
        if not math.isfinite(elo):
            return f"Elo > {_signed(lo)}" if math.isfinite(lo) else ""
        return f"Elo {_signed(elo)} [{_signed(lo)}, {_signed(hi) if math.isfinite(hi) else '∞'}]"

    def __rich_console__(self, console, options):
        from rich.table import Table
        from rich.text import Text

        rows = []
        for key, r in self.rows.items():
            rate = r.rate
            speed = f"{rate * self.per(key):,.0f} games/s" if rate else ""
            mark = "done" if r.finished else ""
            rows.append((r.label, f"{r.done:,}/{r.total:,} {mark}", speed,
                         self.score_line(key), self.elo_text(key)))
        yield Text(self.title, style="bold")
        widths = [max((len(row[j]) for row in rows), default=0) for j in range(5)]
        if sum(widths) + 2 * 4 <= options.max_width:
            t = Table.grid(padding=(0, 2))
            for justify in ("left", "right", "right", "left", "left"):
                t.add_column(justify=justify, no_wrap=True)
            for row in rows:
                t.add_row(*row)
            yield t
        else:
            # a narrow terminal: each row's counts and speed whole on its line (its name
            # shortened if need be), its score and Elo on the next
            room = max(options.max_width - widths[1] - widths[2] - 4, 8)
            for label, done, speed, score, elo in rows:
                if len(label) > room:
                    label = label[:room - 1] + "…"
                yield Text(f"{label:<{min(widths[0], room)}}  {done:>{widths[1]}}  "
                           f"{speed:>{widths[2]}}".rstrip(), no_wrap=True, overflow="crop")
                if score or elo:
                    yield Text("    " + "  ".join(x for x in (score, elo) if x))
        done, total = self.done, self.total
        frac = done / total if total else 1.0
        bar = "█" * round(20 * frac) + "░" * (20 - round(20 * frac))
        gps = self.games_per_second()
        left = self.seconds_left()
        parts = [f"{bar} {done:,}/{total:,} {self.unit}",
                 f"{gps:,.0f} games/s" if gps else "",
                 f"{_clock(time.perf_counter() - self.started)} elapsed",
                 f"about {_clock(left)} left" if left is not None else "estimating time left"]
        yield Text(" · ".join(p for p in parts if p))
        if self.status:
            yield Text(self.status, style="yellow")


def _signed(x: float) -> str:
    return f"{x:+.0f}"


def _clock(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss``.

    >>> _clock(75), _clock(3725.2)
    ('1:15', '1:02:05')
    """
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def print_line(board: Board, text: str) -> None:
    """``text`` as one line on stdout; while ``board`` is live and stdout is a terminal,
    on the board's console above the board, where rich's live display takes stdout's lines
    (:func:`live`), and not broken at the terminal's width (rich breaks what it redirects:
    a JSON line must stay one line)."""
    import sys

    if board.shown and board.console is not None and sys.stdout.isatty():
        from rich.text import Text

        board.console.print(Text(text), soft_wrap=True)
    else:
        print(text, flush=True)


class _Quiet:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def live(board: Board, enabled: bool = True, console=None):
    """A context manager showing ``board`` on stderr while the block runs, redrawn four
    times a second, only when ``enabled`` and stderr (``console``) is a terminal."""
    if not enabled:
        return _Quiet()
    from rich.console import Console
    from rich.live import Live

    console = console or Console(stderr=True)
    if not console.is_terminal:
        return _Quiet()
    import sys

    board.shown = True
    board.console = console
    # lines printed to a terminal stdout meanwhile go above the board (when stdout is a
    # file or a pipe it is left alone)
    return Live(board, console=console, refresh_per_second=4, transient=False,
                redirect_stdout=sys.stdout.isatty(), redirect_stderr=False)

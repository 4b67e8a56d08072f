"""Tournament plots (matplotlib, no pyplot: Agg rendering, no global figure state).

Every figure is saved as PNG and SVG with deterministic bytes: no date or software
metadata, a fixed ``svg.hashsalt`` (per figure, so that ids stay unique when several SVGs
share one HTML page), text kept as text in the SVG. Same data and the same matplotlib
give the same files.

Inputs are the tables of :func:`durak_sim.report.compute_tables`; ``convergence`` and
``length_histogram`` are computed here from the games' counts
(:class:`durak_sim.stats.GameCounts`) or a games frame.

>>> import pandas as pd
>>> from durak_sim.stats import _example_games
>>> c = convergence(_example_games(), ["easy", "random"])
>>> c[["a", "b", "pairs", "score"]].values.tolist()
[['easy', 'random', 1, 1.0], ['easy', 'random', 2, 0.625]]
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .files import make_folder

PLOTS = ("crosstable", "ratings", "convergence", "game_length", "first_attacker")
DPI = 100


def _rc(name: str) -> dict:
    return {"svg.hashsalt": f"durak-sim-{name}", "svg.fonttype": "none",
            "font.family": "DejaVu Sans", "font.size": 9, "axes.titlesize": 10,
            # titles at a fixed height (no axes here has tick labels on top): matplotlib
            # would otherwise measure every axis to place them, a tenth of the drawing time
            "axes.titley": 1.0, "figure.dpi": DPI}


def _import_matplotlib():
    """matplotlib, imported whatever ``MPLBACKEND`` says: the figures are drawn by Agg into
    files, never in a window, and a backend unknown to matplotlib named there would fail
    its import (and so the report of games already stored)."""
    import os
    import sys

    if "matplotlib" not in sys.modules:
        saved = os.environ.pop("MPLBACKEND", None)
        try:
            import matplotlib  # noqa: F401
        finally:
            if saved is not None:
                os.environ["MPLBACKEND"] = saved
    return sys.modules["matplotlib"]


@contextlib.contextmanager
def plot_style(name: str):
    """matplotlib's default style (whatever the user's matplotlibrc says) plus ours, for
    drawing and saving the figure ``name``."""
    matplotlib = _import_matplotlib()
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(_rc(name))
        yield


def _figure(name: str, w: float, h: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), dpi=DPI)


# --------------------------------------------------------------------------------------
# Layout: margins measured from the figure's own texts
# --------------------------------------------------------------------------------------
_PAD = 4.0 / 72         # inches around the figure's edge and between texts
_TICK = 7.0 / 72        # major tick length plus the gap to its label (3.5 pt each)
_MIN_AXES = 2.5         # inches: the narrowest an axes is made (the figure grows instead)
_RENDERER = []
_WARM = []              # warm_up has run in this process


def _text_size(text: str, size: float) -> tuple[float, float]:
    """Width and height in inches of one line or more of ``text`` at ``size`` points in
    the figures' font (FreeType's measure, as Agg and the SVG's layout use it)."""
    import matplotlib
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    if not text:
        return 0.0, 0.0
    if not _RENDERER:
        _RENDERER.append(RendererAgg(1, 1, DPI))
    prop = FontProperties(family=matplotlib.rcParams["font.family"], size=size)
    lines = text.split("\n")
    w = h = 0.0
    for line in lines:
        lw, lh, _ = _RENDERER[0].get_text_width_height_descent(line or "Ag", prop,
                                                               ismath=False)
        w = max(w, lw)
        h += lh * (1.2 if len(lines) > 1 else 1.0)
    return w / DPI, h / DPI


def _tick_labels(axis) -> list[str]:
    """The major tick labels ``axis`` will draw in its current view (none where its labels
    are switched off, as on the inner axes of a shared axis)."""
    shown = axis.get_tick_params()
    if not shown.get("labelleft" if axis.axis_name == "y" else "labelbottom", True):
        return []
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-9 * (hi - lo)
    ticks = [t for t in axis.get_majorticklocs() if lo - eps <= t <= hi + eps]
    return [t for t in axis.get_major_formatter().format_ticks(ticks) if t]


def _points(key: str) -> float:
    import matplotlib
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=matplotlib.rcParams[key]).get_size_in_points()


def _fit(fig, axes, right: float = 0.0) -> None:
    """Place one axes or a grid of them (a 2-D array, unused ones hidden) so that every tick label,
    axis label and title is inside the figure and clear of its neighbours: margins measured
    from the texts themselves (what matplotlib's constrained layout does by drawing the
    figure, at a fraction of its cost). ``right``: inches kept free at the right (a
    colorbar's labels)."""
    tick_pt = _points("xtick.labelsize")
    label_pt = _points("axes.labelsize")
    title_pt = _points("axes.titlesize")
    if not isinstance(axes, np.ndarray):
        axes = np.array([[axes]])
    left = inner = bottom = top = over = wide = 0.0
    for (_, col), ax in np.ndenumerate(axes):
        if not ax.get_visible():
            continue
        ylabels = _tick_labels(ax.yaxis)
        xlabels = _tick_labels(ax.xaxis)
        yw = max((_text_size(t, tick_pt)[0] for t in ylabels), default=0.0)
        xh = max((_text_size(t, tick_pt)[1] for t in xlabels), default=0.0)
        over = max(over, _text_size(xlabels[-1], tick_pt)[0] / 2 if xlabels else 0.0)
        yl = _text_size(ax.get_ylabel(), label_pt)[1]
        xw, xl = _text_size(ax.get_xlabel(), label_pt)
        tw, ti = _text_size(ax.get_title(), title_pt)
        wide = max(wide, xw, tw)
        need = yw + _TICK + (yl + _PAD if yl else 0.0)
        if col == 0:
            left = max(left, need)
        else:                   # an inner column: its left texts fill the gap before it
            inner = max(inner, need)
        bottom = max(bottom, xh + _TICK + (xl + _PAD if xl else 0.0))
        top = max(top, ti + 6.0 / 72 if ti else 0.0)
    w, h = fig.get_size_inches()
    rows, cols = axes.shape
    right_in = max(right, over) + _PAD
    left_in, bottom_in, top_in = left + _PAD, bottom + _PAD, top + _PAD
    # gaps between neighbours: the next one's left texts and this one's right overhang;
    # the lower one's title and this one's bottom texts
    gap_w, gap_h = inner + right_in, top + bottom + 2 * _PAD
    axw = (w - left_in - right_in - (cols - 1) * gap_w) / cols
    # long tick labels (strategy names) leave the axes narrow: widen the figure instead
    if axw < _MIN_AXES:
        w += (_MIN_AXES - axw) * cols
        fig.set_size_inches(w, h)
        axw = _MIN_AXES
    # an axis label or title wider than its axes is centred on it: keep the first and the
    # last column's centre far enough from the figure's edges
    short = wide / 2 + _PAD - (right_in + axw / 2)
    if short > 0:
        right_in += 2 * short / cols
    short = wide / 2 + _PAD - (left_in + axw / 2)
    if short > 0:
        left_in += 2 * short / cols
    axw = (w - left_in - right_in - (cols - 1) * gap_w) / cols
    if axw < _MIN_AXES:   # (that room for a title wider than the figure: widen it again)
        w += (_MIN_AXES - axw) * cols
        fig.set_size_inches(w, h)
        axw = _MIN_AXES
    axh = (h - bottom_in - top_in - (rows - 1) * gap_h) / rows
    fig.subplots_adjust(left=left_in / w, right=1 - right_in / w, bottom=bottom_in / h,
                        top=1 - top_in / h, wspace=gap_w / axw if cols > 1 else 0.0,
                        hspace=gap_h / axh if rows > 1 else 0.0)


def _short(name: str, most: int = 24) -> str:
    """A strategy's name for a label along an axis, whose room is the figure's height: a
    long one (an external engine's command) with its middle left out.

    >>> _short("hard"), _short("engine:/usr/bin/python /home/me/bots/mybot.py --fast")
    ('hard', 'engine:/usr/…ot.py --fast')
    """
    return name if len(name) <= most else name[:most // 2] + "…" + name[-(most // 2):]


def warm_up() -> None:
    """Draw a small figure to PNG and SVG in memory: loads the fonts and the backends, so
    that :func:`render_all` finds them loaded (a tournament calls this while its kernel
    plays). Once a process is enough."""
    if _WARM:
        return
    with plot_style("warm-up"):
        fig = _figure("warm-up", 2.0, 1.5)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], marker="o")
        ax.errorbar([0.5], [0.5], yerr=[0.1], fmt="s")
        ax.set(title="warm-up", xlabel="x", ylabel="y")
        _fit(fig, ax)
        for fmt in ("png", "svg"):
            fig.savefig(io.BytesIO(), format=fmt)
    _WARM.append(True)


def save(fig, stem: Path) -> bytes:
    """Write ``stem.png`` and ``stem.svg`` (deterministic bytes, given the style of
    :func:`plot_style`; atomically, not synced: ``durak-sim report`` rebuilds them); return
    the PNG bytes."""
    from .files import atomic_write_bytes

    png, svg = io.BytesIO(), io.BytesIO()
    fig.savefig(png, format="png", dpi=DPI, metadata={"Software": None})
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    atomic_write_bytes(stem.with_suffix(".png"), png.getvalue(), sync=False)
    atomic_write_bytes(stem.with_suffix(".svg"), svg.getvalue(), sync=False)
    return png.getvalue()


# --------------------------------------------------------------------------------------
# Data the tables do not hold
# --------------------------------------------------------------------------------------
def _counts(games, order: Sequence[str]):
    from .stats import as_counts

    return as_counts(games, order)


def convergence(games, order: Sequence[str], points: int = 200) -> pd.DataFrame:
    """A's mean pair score per pairing as deal pairs accumulate (deal order), with its
    95% band, the pairings table's interval of the score so far
    (:func:`durak_sim.stats.running_score_interval`: ``score ± 1.96 sqrt(v / n)``, ``v`` the
    pair-score variance, with a sweep's virtual drawn game, so that no band is a point).

    ``games``: a games frame or its :class:`durak_sim.stats.GameCounts` (the pair points
    in deal order). Columns ``a, b, pairs, score, lo, hi``; at most ``points`` rows per
    pairing, spaced geometrically in ``pairs``. Mirror games and games without their twin
    are left out. The running sums are exact (pair scores are quarters), taken only at the
    rows shown."""
    from .stats import running_score_interval

    c = _counts(games, order).require("pair_points")
    pa, pb = c.labels()
    rows = []
    for ia, ib, x, a, b in zip(c.a, c.b, c.pair_points, pa, pb):
        if ia == ib or not len(x):
            continue
        m = len(x)
        idx = np.unique(np.geomspace(1, m, min(points, m)).round().astype(np.int64)) - 1
        s1, s2 = _running_sums(x, idx)
        s1, s2 = s1 / 4.0, s2 / 16.0          # exact: pair points are quarters
        n = idx + 1.0
        mean = s1 / n
        lo, hi = running_score_interval(s1, s2, n)
        rows.append(pd.DataFrame({"a": a, "b": b, "pairs": idx + 1, "score": mean,
                                  "lo": lo, "hi": hi}))
    if not rows:
        return pd.DataFrame(columns=["a", "b", "pairs", "score", "lo", "hi"])
    return pd.concat(rows, ignore_index=True)


_BLOCK = 1 << 20


def _running_sums(x, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running sums of ``x`` and of ``x * x`` (integers) at the positions ``idx``
    (ascending), in int64 over blocks of ``_BLOCK`` values: exact, at most one block
    widened at a time (numpy's reductions of int8 into int64 take a slow casting path).

    >>> [v.tolist() for v in _running_sums(np.array([1, 2, 3], dtype=np.int8), np.array([0, 2]))]
    [[1, 6], [1, 14]]
    """
    s1 = np.empty(len(idx), dtype=np.int64)
    s2 = np.empty(len(idx), dtype=np.int64)
    c1 = c2 = 0
    done = 0
    for lo in range(0, int(idx[-1]) + 1 if len(idx) else 0, _BLOCK):
        y = np.asarray(x[lo:lo + _BLOCK]).astype(np.int64)
        r1 = np.cumsum(y)
        r2 = np.cumsum(y * y)
        at = idx[done:np.searchsorted(idx, lo + len(y))] - lo
        s1[done:done + len(at)] = r1[at] + c1
        s2[done:done + len(at)] = r2[at] + c2
        done += len(at)
        c1 += int(r1[-1])
        c2 += int(r2[-1])
    return s1, s2


def length_histogram(games, order: Sequence[str]) -> pd.DataFrame:
    """Games per number of bouts, per pairing (A, B in ``order``): columns
    ``a, b, bouts, games``. ``games``: a games frame or its
    :class:`durak_sim.stats.GameCounts`."""
    c = _counts(games, order).require("bouts")
    pa, pb = c.labels()
    top = c.bouts.shape[1]
    return pd.DataFrame({"a": [a for a in pa for _ in range(top)],
                         "b": [b for b in pb for _ in range(top)],
                         "bouts": np.tile(np.arange(top), len(pa)),
                         "games": c.bouts.ravel()})


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------
#: strategies at most whose crosstable cells carry their numbers (a larger field's cells are
#: colour only and small: its numbers are in crosstable.csv and the report's tables)
ANNOTATED_CROSSTABLE = 16


def crosstable_figure(cross: pd.DataFrame, pairings: pd.DataFrame):
    """Heatmap of the row strategy's mean score against the column strategy, annotated
    with the score and the paired Elo (95% interval) up to ``ANNOTATED_CROSSTABLE``
    strategies."""
    names = list(cross["strategy"])
    m = cross[names].to_numpy(dtype=float)
    k = len(names)
    big = k > ANNOTATED_CROSSTABLE
    fig = _figure("crosstable", *((2.6 + 0.3 * k, 2.0 + 0.3 * k) if big else
                                  (1.6 + 1.25 * k, 1.0 + 0.9 * k)))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(100 * m), cmap="RdBu", vmin=0.0, vmax=100.0)
    ax.set_xticks(range(k), names, rotation=90 if big else 0)
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title("score of row vs column" + (" (the numbers: crosstable.csv)" if big else
                                             " (paired Elo, 95% CI)"))
    fig.colorbar(im, ax=ax, label="mean score %", shrink=0.8, ticks=range(0, 101, 25))
    if not big:
        _annotate_crosstable(ax, names, m, pairings)
    tick_pt, label_pt = _points("ytick.labelsize"), _points("axes.labelsize")
    _fit(fig, ax, right=_text_size("100", tick_pt)[0] + _TICK + _PAD
         + _text_size("mean score %", label_pt)[1])
    return fig


def _annotate_crosstable(ax, names, m, pairings) -> None:
    """Each cell's score and the paired Elo with its interval (a bound after a sweep)."""
    k = len(names)
    elo, swept = {}, set()
    for r in pairings.itertuples():
        elo[(r.a, r.b)] = (r.elo, r.elo_lo, r.elo_hi)
        elo[(r.b, r.a)] = (-r.elo, -r.elo_hi, -r.elo_lo)
        if r.pairs > 0 and r.pairs in (r.p0, r.p4):   # a sweep: the Elo is a bound
            swept |= {(r.a, r.b), (r.b, r.a)}
    for i in range(k):
        for j in range(k):
            if np.isnan(m[i, j]):
                continue
            e = elo.get((names[i], names[j]))
            text = f"{100 * m[i, j]:.1f}%"
            if e is not None and np.isfinite(e[0]):
                bound = ("≥ " if e[0] > 0 else "≤ ") if (names[i], names[j]) in swept else ""
                text += f"\n{bound}{e[0]:+.0f} Elo\n[{e[1]:+.0f}, {e[2]:+.0f}]"
            ax.text(j, i, text, ha="center", va="center", fontsize=8,
                    color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")


def ratings_figure(ratings: pd.DataFrame, title: str = "Bradley-Terry ratings"):
    """Ratings (left: Bradley-Terry, or ``title``) and their bootstrap 95% intervals around
    each rating (right, on a scale of their own: next to ratings hundreds of Elo apart an
    interval a few Elo wide would be a dot)."""
    r = ratings.iloc[::-1]
    fig = _figure("ratings", 7.5, 1.2 + 0.45 * len(r))
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    y = np.arange(len(r))
    rating = r["rating"].to_numpy(dtype=float)
    lo = (r["rating"] - r["lo"]).to_numpy(dtype=float)
    hi = (r["hi"] - r["rating"]).to_numpy(dtype=float)
    err = np.nan_to_num(np.vstack([lo, hi]))
    left.errorbar(rating, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
    for yi, row in zip(y, r.itertuples()):
        left.annotate(f"{row.rating:+.1f}", (row.rating, yi), xytext=(0, 7),
                      textcoords="offset points", ha="center", fontsize=8)
    left.axvline(0.0, color="grey", lw=0.8, ls=":")
    left.margins(x=0.15)
    left.set_yticks(y, list(r["strategy"]))
    left.set_ylim(-0.6, len(r) - 0.4)
    left.set_xlabel("rating (Elo scale, field mean 0)")
    left.set_title(title)
    right.errorbar(np.zeros(len(r)), y, xerr=err, fmt="o", capsize=4, color="tab:blue",
                   elinewidth=2)
    for yi, row in zip(y, r.itertuples()):
        if np.isfinite(row.lo):
            right.annotate(f"[{row.lo - row.rating:+.1f}, {row.hi - row.rating:+.1f}]",
                           (0.0, yi), xytext=(0, 7), textcoords="offset points",
                           ha="center", fontsize=8)
    right.axvline(0.0, color="grey", lw=0.8, ls=":")
    from matplotlib.ticker import MaxNLocator

    width = float(np.abs(err).max())
    right.set_xlim(-1.5 * width - 1e-9, 1.5 * width + 1e-9)
    right.xaxis.set_major_locator(MaxNLocator(nbins=4, symmetric=True))
    right.tick_params(axis="y", left=False)
    right.set_xlabel("95% bootstrap interval minus rating (Elo)")
    right.set_title("uncertainty")
    _fit(fig, np.array([[left, right]]))
    return fig


def _compact(v: float) -> str:
    """A deal count as a short tick label: 1, 10, 100, 1k, 10k, 100k, 1M.

    >>> [_compact(v) for v in (1, 100, 1000, 25000, 1e6)]
    ['1', '100', '1k', '25k', '1M']
    """
    for unit, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= unit:
            return f"{v / unit:g}{suffix}"
    return f"{v:g}"


#: the convergence plot's panels at most: of a larger field, the pairings closest to even
CONVERGENCE_PANELS = 24


def convergence_figure(conv: pd.DataFrame, most: int = CONVERGENCE_PANELS):
    """A's mean pair score per pairing against deal pairs played, with the 95% band (the
    report puts the higher rated strategy in A). Of more than ``most`` pairings, the
    ``most`` whose final score is closest to 50% (the hardest to tell apart), in the
    report's order: a panel for each of hundreds would take minutes to draw and nobody
    could read it."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    groups = list(conv.groupby(["a", "b"], sort=False))
    if len(groups) > most:
        gap = [abs(g["score"].iloc[-1] - 0.5) for _, g in groups]
        keep = set(np.argsort(gap, kind="stable")[:most].tolist())
        groups = [g for i, g in enumerate(groups) if i in keep]
    n = max(len(groups), 1)
    cols = min(3, n)
    rows = -(-n // cols)
    fig = _figure("convergence", 3.4 * cols, 2.6 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, ((a, b), g) in zip(axes.flat, groups):
        ax.fill_between(g["pairs"], 100 * g["lo"], 100 * g["hi"], color="tab:blue", alpha=0.25,
                        lw=0, label="95% band")
        ax.plot(g["pairs"], 100 * g["score"], color="tab:blue", lw=1.2, label="score")
        ax.axhline(50.0, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        # plain tick labels: the default 10^k labels go through mathtext, slow to lay out
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _compact(v)))
        # minor ticks at 2x and 5x only: each tick is a handful of artists to draw
        ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        ax.set_title(f"{a} vs {b}")
        ax.set_xlabel("deal pairs")
        ax.set_ylabel(f"{_short(a)} score %")
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    _fit(fig, axes)
    return fig


_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:gray", "tab:olive", "tab:cyan")
_LINESTYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "x", "+", "*")


def _series_style(k: int) -> tuple[str, str, str]:
    """Colour, line style and marker of the ``k``-th line of a plot: no two of the first
    40 lines share all three, and neighbours differ in each (told apart in grey too)."""
    return (_COLORS[k % len(_COLORS)], _LINESTYLES[k % len(_LINESTYLES)],
            _MARKERS[k % len(_MARKERS)])


_LEGEND_PT = 8.0


def _legend_outside(ax, labels) -> float:
    """A legend to the right of ``ax``, clear of the data; the inches it needs (for
    :func:`_fit`'s ``right``): its longest label plus the handle, the gaps and the frame
    (matplotlib's defaults: handle 2 em, text pad 0.8 em, border pad 0.4 em, axes pad
    0.5 em on each side)."""
    if labels:
        ax.legend(fontsize=_LEGEND_PT, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0)
    em = _LEGEND_PT / 72
    text = max((_text_size(t, _LEGEND_PT)[0] for t in labels), default=0.0)
    return text + 4.6 * em + 0.02 * ax.figure.get_size_inches()[0] if labels else 0.0


def game_length_figure(hist: pd.DataFrame):
    """Distribution of game length (bouts) per pairing, as a share of the games."""
    fig = _figure("game_length", 6.5, 3.6)
    ax = fig.add_subplot()
    seen = hist["bouts"][hist["games"] > 0]
    lo, hi = (int(seen.min()) - 1, int(seen.max()) + 1) if len(seen) else (0, 1)
    labels = []
    for k, ((a, b), g) in enumerate(hist.groupby(["a", "b"], sort=False)):
        total = g["games"].sum()
        if total:
            g = g[g["bouts"].between(lo, hi)]
            color, ls, marker = _series_style(k)
            labels.append(f"{a} vs {b}")
            ax.step(g["bouts"], 100 * g["games"] / total, where="mid", lw=1.2, color=color,
                    ls=ls, marker=marker, markevery=(k % 3, 3), ms=3.5, label=labels[-1])
    ax.set_xlim(lo - 0.5, hi + 0.5)
    ax.set_xlabel("bouts per game")
    ax.set_ylabel("% of games")
    ax.set_title("game length")
    _fit(fig, ax, right=_legend_outside(ax, labels))
    return fig


def first_attacker_figure(first: pd.DataFrame, seat: pd.DataFrame):
    """First-attacker and seat-0 win rates of decisive games with their 95% intervals (the
    deal as the unit: :func:`durak_sim.stats.first_attacker_advantage`), overall (``*``) and
    per pairing."""
    labels = [("all games" if a == "*" else f"{a} vs {b}") for a, b in zip(first["a"], first["b"])]
    fig = _figure("first_attacker", 6.5, 1.3 + 0.42 * len(labels))
    ax = fig.add_subplot()
    y = np.arange(len(labels))[::-1]
    for t, name, dy, color, fmt in ((first, "first attacker", 0.12, "tab:red", "o"),
                                    (seat, "seat 0", -0.12, "tab:green", "s")):
        rate = 100 * t["rate"].to_numpy(dtype=float)
        err = np.vstack([rate - 100 * t["lo"].to_numpy(dtype=float),
                         100 * t["hi"].to_numpy(dtype=float) - rate])
        ax.errorbar(rate, y + dy, xerr=np.nan_to_num(err), fmt=fmt, capsize=3, color=color,
                    label=name)
    ax.axvline(50.0, color="grey", lw=0.8, ls=":")
    ax.set_yticks(y, labels)
    ax.set_xlabel("wins % of decisive games (95% CI)")
    ax.set_title("first-attacker and seat advantage")
    _fit(fig, ax, right=_legend_outside(ax, ["first attacker", "seat 0"]))
    return fig


def _draw(name: str, maker, folder: Path) -> bytes:
    with plot_style(name):
        return save(maker(), folder / name)


def render_all(tables: dict, games, order: Sequence[str], folder: Path) -> dict:
    """Draw every plot of a report into ``folder`` (PNG + SVG); ``{name: png bytes}`` in
    :data:`PLOTS` order (a plot without data is skipped, and so are the crosstable and the
    ratings of two strategies: their one pairing's Elo is in its table and its convergence
    plot). ``games``: a games frame or its :class:`durak_sim.stats.GameCounts`.

    In this process, one figure after the other: forked drawing processes saved wall time
    only on idle cores, and cost more CPU than they saved on a loaded machine (their
    copy-on-write page faults; ``benchmarks/RESULTS.md``)."""
    make_folder(folder)
    games = _counts(games, order)
    field = len(tables["ratings"]) > 2      # two strategies: one pairing, one Elo
    makers = {
        "crosstable": (lambda: crosstable_figure(tables["crosstable"], tables["pairings"]))
        if field and len(tables["crosstable"]) and len(tables["pairings"]) else None,
        "ratings": (lambda: ratings_figure(tables["ratings"]))
        if field and tables["ratings"]["rating"].notna().all() else None,
        "convergence": (lambda: convergence_figure(convergence(games, order)))
        if len(tables["pairings"]) else None,
        "game_length": lambda: game_length_figure(length_histogram(games, order)),
        "first_attacker": lambda: first_attacker_figure(tables["first_attacker"],
                                                        tables["seat"]),
    }
    return {n: _draw(n, makers[n], folder) for n in PLOTS if makers[n] is not None}

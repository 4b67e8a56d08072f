"""The figures of a tournament at tables of three to six players (matplotlib, as
:mod:`durak_sim.plots`: no pyplot, deterministic PNG and SVG bytes): the place distribution
of each strategy, the Plackett-Luce ratings, the seat advantage and the convergence of the
mean places. Inputs are the tables of :func:`durak_sim.place_report.compute_tables`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .plots import (_compact, _draw, _figure, _fit, _legend_outside, _series_style,
                    ratings_figure)
from .files import make_folder

PLOTS = ("ratings", "places", "seats", "convergence")


def places_figure(strategies: pd.DataFrame, players: int, teams: bool = False):
    """Per strategy (top: the highest rated) the share of its seat-games in each place,
    stacked from first out (left) to last (right), its mean place under its name. With
    ``teams`` the losing team's players still holding cards share the next place."""
    from matplotlib import colormaps

    s = strategies.iloc[::-1]
    fig = _figure("places", 7.5, 1.3 + 0.55 * len(s))
    ax = fig.add_subplot()
    y = np.arange(len(s))
    shares = s[[f"place{p}" for p in range(1, players + 1)]].to_numpy(dtype=float)
    shares = 100 * shares / np.maximum(shares.sum(axis=1, keepdims=True), 1)
    cmap = colormaps["RdYlGn_r"]
    left = np.zeros(len(s))
    labels = []
    for p in range(players):
        labels.append(f"place {p + 1}")
        ax.barh(y, shares[:, p], left=left, color=cmap(p / max(players - 1, 1)),
                edgecolor="white", lw=0.5, label=labels[-1])
        left += shares[:, p]
    ax.set_xlim(0, 100)
    ax.set_yticks(y, [f"{row.strategy}\nmean {row.mean_place:.2f}"
                      if np.isfinite(row.mean_place) else row.strategy
                      for row in s.itertuples()])
    ax.set_xlabel("% of the strategy's seat-games")
    ax.set_title("places (1: first out; the losing team's players still in share the next)"
                 if teams else "places (1: first out; the Durak last)")
    _fit(fig, ax, right=_legend_outside(ax, labels))
    return fig


def seats_figure(seats: pd.DataFrame, first: pd.DataFrame, players: int,
                 teams: bool = False):
    """Durak and first-out rates with Wilson 95% intervals by seat (left) and by position
    after the first attacker (right); the dotted line is 1 / players, where no seat has an
    advantage. With ``teams`` a seat's Durak rate is its team's losses, whose line is
    dashed at 1 / 2."""
    fig = _figure("seats", 8.0, 3.2)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, t, col, title in ((axes[0], seats, "seat", "by seat"),
                              (axes[1], first, "position", "by position after the first "
                                                           "attacker")):
        x = t[col].to_numpy(dtype=float)
        for k, (name, dx) in enumerate((("durak", -0.1), ("first", 0.1))):
            rate = 100 * t[f"{name}_rate"].to_numpy(dtype=float)
            err = np.vstack([rate - 100 * t[f"{name}_lo"].to_numpy(dtype=float),
                             100 * t[f"{name}_hi"].to_numpy(dtype=float) - rate])
            color, _, marker = _series_style(k)
            ax.errorbar(x + dx, rate, yerr=np.nan_to_num(err), fmt=marker, capsize=3,
                        color=color, label="Durak" if name == "durak" else "first out")
        ax.axhline(100.0 / players, color="grey", lw=0.8, ls=":")
        if teams:
            ax.axhline(50.0, color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(players))
        ax.set_xlabel(col if col == "seat" else "seats after the first attacker")
        ax.set_title(title)
    axes[0].set_ylabel("% of games (95% CI)")
    _fit(fig, np.array([axes]), right=_legend_outside(axes[1], ["Durak", "first out"]))
    return fig


def convergence_figure(conv: pd.DataFrame):
    """Each strategy's mean place against the deals played (in every line-up and seating),
    with its deal-bootstrap 95% band."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    fig = _figure("convergence", 6.5, 3.6)
    ax = fig.add_subplot()
    labels = []
    for k, (name, g) in enumerate(conv.groupby("strategy", sort=False)):
        color, ls, _ = _series_style(k)
        ax.fill_between(g["deals"], g["lo"].fillna(g["mean_place"]),
                        g["hi"].fillna(g["mean_place"]), color=color, alpha=0.2, lw=0)
        ax.plot(g["deals"], g["mean_place"], color=color, ls=ls, lw=1.2, label=name)
        labels.append(name)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _compact(v)))
    ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    ax.set_xlabel("deals")
    ax.set_ylabel("mean place (1: first out)")
    ax.set_title("mean place as the deals accumulate, 95% band")
    _fit(fig, ax, right=_legend_outside(ax, labels))
    return fig


def render_all(tables: dict, players: int, folder: Path) -> dict:
    """Draw every figure of an N-player report into ``folder`` (PNG + SVG);
    ``{name: png bytes}`` in :data:`PLOTS` order (a figure without data is skipped)."""
    make_folder(folder)
    teams = "teams" in tables
    r = tables["ratings"]
    makers = {
        "ratings": (lambda: ratings_figure(r, "Plackett-Luce ratings"))
        if len(r) and r["rating"].notna().all() else None,
        "places": lambda: places_figure(tables["strategies"], players, teams),
        "seats": lambda: seats_figure(tables["seats"], tables["first_attacker"], players,
                                      teams),
        "convergence": (lambda: convergence_figure(tables["convergence"]))
        if len(tables["convergence"]) else None,
    }
    return {n: _draw(n, makers[n], folder) for n in PLOTS if makers[n] is not None}


__all__ = ["PLOTS", "convergence_figure", "places_figure", "render_all", "seats_figure"]

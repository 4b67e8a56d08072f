"""The report of a tournament at tables of three to six players, built from its stored
games alone (as :mod:`durak_sim.report` builds a two-player one, whose ``build_report``
and ``durak-sim report DIR`` come here for such a folder).

Every chunk is read once, checked against the manifest, and counted into a
:class:`durak_sim.place_counts.PlaceTally` (bounded memory, whatever the number of games);
every table and figure comes from that tally (:mod:`durak_sim.place_stats`,
:mod:`durak_sim.place_plots`). Written at the top of the folder:

======================  ============================================================
``ratings.csv``         Plackett-Luce ratings from the places (Elo scale, field mean 0,
                        a weak prior), deal-bootstrap 95% intervals; the model's
                        first-out and Durak rates (a check of its fit)
``strategies.csv``      per strategy: first-out, Durak and draw rates with Wilson 95%
                        intervals at the deals' effective sample size, mean place with a
                        deal-bootstrap interval, places
``head_to_head.csv``    every two strategies that met: games ahead, score, places and
                        rating apart, paired deal-bootstrap 95% intervals
``lineups.csv``         the same per line-up and strategy
``seats.csv``           Durak and first-out rates and mean place by seat, 95% intervals
``first_attacker.csv``  the same by position after the first attacker
``teams.csv``           with teams: per team and opponents, losses and draws (opponents
                        ``*``: all of them, for a team that met several)
``game_length.csv``     bouts and the Durak's cards left, overall and per line-up
``convergence.csv``     each strategy's mean place as the deals accumulate, 95% band
``plots/*.png|svg``     ratings, places, seats, convergence
``report.md|html``      all of the above for people (the HTML self-contained)
======================  ============================================================

The same tournament writes the same bytes whatever threads, chunking or resumes produced
its games; an undefined value is an empty CSV cell and a dash in the documents.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import place_stats as ps
from .formatting import ci, elo_ci, num, pct_ci, wide_console
from .place_counts import BOOTSTRAP, PlaceTally
from .document import PLOTS_DIR, Doc
from .report import Report, _stored_chunks, document_head, rank_by_rating, write_report

#: table name -> CSV file, in report order (``teams`` only with teams)
TABLE_FILES = {"ratings": "ratings.csv", "strategies": "strategies.csv",
               "head_to_head": "head_to_head.csv", "lineups": "lineups.csv",
               "seats": "seats.csv", "first_attacker": "first_attacker.csv", "teams": "teams.csv",
               "game_length": "game_length.csv", "convergence": "convergence.csv"}
#: line-up rows shown in the documents at most (all of them are in lineups.csv)
DOC_LINEUP_ROWS = 60
#: deals counted at a time (the counting's temporary arrays: a few hundred bytes a game)
SLICE_DEALS = 8192


def count_stored(out: Path, manifest, config) -> PlaceTally:
    """Every stored chunk of the folder (those stored in part too), read (checksums
    verified), checked against the manifest (``UserError`` if it is not what the manifest
    says) and counted, in the canonical order."""
    from .storage import entry_key, game_arrays, read_chunks, result_keys, seating_column
    from .tournament_config import stored_problem

    config.check(manifest)
    tally = PlaceTally.of(config)
    seating = seating_column(config.players)
    for c in _stored_chunks(out, manifest, config):
        table = read_chunks(out, [c], verify=True)
        stored_problem(out, config, c, table)
        g = game_arrays(table, config.names, ("deal", seating, *result_keys(config.players)))
        deals, seat = g.pop("deal"), g.pop(seating).astype(np.int64)
        step = SLICE_DEALS * len(config.seatings(entry_key(c)))
        for lo in range(0, len(deals), step):   # (whole deals: every seating of each)
            part = slice(lo, lo + step)
            tally.add(entry_key(c), deals[part], seat[part], {k: v[part] for k, v in g.items()})
    return tally


def compute_tables(tally: PlaceTally, config) -> tuple[dict, list]:
    """Every table of the report (:data:`TABLE_FILES`); ``(tables, notes)``. Strategies in
    the order of their ratings, highest first (ties, and a field without ratings, in the
    config's order)."""
    notes = []
    played = tally.place_hist.sum(axis=(0, 2))
    present = [n for i, n in enumerate(tally.names) if played[i]]
    version = dict(zip(config.names, config.name_versions))
    fits: dict = {}
    ratings, order = rank_by_rating(
        present, lambda: ps.pl_ratings(tally, fits=fits), "Plackett-Luce", notes,
        lambda order: [played[tally.names.index(n)] for n in order])
    strategies = ps.strategy_table(tally).set_index("strategy").loc[order].reset_index()
    for t in (ratings, strategies):
        t.insert(1, "version", [version[n] for n in t["strategy"]])
    ratings["model_first"], ratings["model_durak"] = ps.model_rates(tally, ratings)
    h2h = ps.head_to_head(tally, order, fits)
    flat = ps.widen_flat_ratings(ratings, h2h)
    if h2h.attrs.get("elo_from_score"):
        notes.append(f"Every resample gave the same rating difference for "
                     f"{', '.join(h2h.attrs['elo_from_score'])} (each deal came out alike for "
                     f"the two): its interval is the score's (Wilson's, the deals met as the "
                     f"sample) as an Elo difference.")
    if flat:
        notes.append(f"Every resample gave the same rating for {', '.join(flat)}: its "
                     f"interval is its widest head-to-head difference's times (k-1)/k for k "
                     f"rated strategies (a rating is that share of its mean difference).")
    tables = {"ratings": ratings, "strategies": strategies, "head_to_head": h2h,
              "lineups": ps.lineup_table(tally, order), "seats": ps.seat_table(tally),
              "first_attacker": ps.first_attacker_table(tally),
              "game_length": ps.game_length_table(tally),
              "convergence": ps.convergence(tally, order)}
    if config.rules.teams:
        tables["teams"] = ps.team_table(tally)
    return tables, notes


def build_place_report(out: Path, manifest, config, lap) -> Report:
    """:func:`durak_sim.report.build_report` of a tournament at more than two players."""
    from .place_plots import render_all

    tally = count_stored(out, manifest, config)
    lap("counts")
    tables, notes = compute_tables(tally, config)
    rep = Report(out=out, config=config, manifest=manifest, tables=tables,
                 games=int(tally.games.sum()), chunks_done=len(manifest.chunks),
                 chunks_total=len(config.lineups()) * len(config.chunk_ranges()),
                 notes=notes, seconds=lap.seconds, chunks_partial=len(manifest.partials))
    files = {k: v for k, v in TABLE_FILES.items() if k in tables}
    return write_report(rep, files, lap,
                        lambda: render_all(tables, config.players, out / PLOTS_DIR), _document)


# --------------------------------------------------------------------------------------
# The documents
# --------------------------------------------------------------------------------------
def seating_text(config) -> str:
    """How each deal of a line-up is seated, in words."""
    n = config.players
    if n <= 4:
        what = "every distinct order of the line-up over the seats"
    else:
        what = ("the rotations of the line-up and of its mirror image, distinct ones (every "
                "strategy in every seat equally often, each neighbour met on both sides; who "
                "sits beside whom is the line-up's order as listed, and another order can "
                "give other results)")
    if config.rules.teams:
        what += (", those that keep the line-up's partnerships (positions "
                 f"{', '.join(map(str, range(0, n, 2)))} against "
                 f"{', '.join(map(str, range(1, n, 2)))})")
    counts = sorted({len(config.seatings(k)) for k in config.lineups()})
    return f"{what}: {' or '.join(map(str, counts))} seatings a line-up"


def _lineup_cell(label: str, teams: bool) -> str:
    """A line-up as the report shows it: with teams as its partnerships (positions 0, 2, 4
    against 1, 3, 5).

    >>> _lineup_cell("a, b, c, d", True), _lineup_cell("a, b, c", False)
    ('a+c vs b+d', 'a, b, c')
    """
    names = label.split(", ")
    return f"{'+'.join(names[0::2])} vs {'+'.join(names[1::2])}" if teams else label


def _format(config) -> str:
    n, k = config.players, len(config.lineups())
    if k == 1 and len(config.strategies) == n:
        return (f"{'gauntlet of ' + config.gauntlet + ', ' if config.gauntlet else ''}one "
                f"line-up of {n}: {', '.join(config.strategies)}")
    split = ", each split into partnerships in every way" if config.rules.teams else ""
    if config.gauntlet is not None:
        return (f"gauntlet at tables of {n}: {config.gauntlet} with "
                f"{'the' if len(config.strategies) == n else f'every {n - 1} of the'} "
                f"{len(config.strategies) - 1} others{split} "
                f"({k} line-up{'s' if k != 1 else ''})")
    return (f"round robin of {len(config.strategies)} strategies at tables of {n}: every {n} "
            f"of them{split}, {k} line-ups")


def _mean_place(x) -> str:
    return f"{num(x.mean_place, '.3f')} [{num(x.mean_place_lo, '.3f')}, " \
           f"{num(x.mean_place_hi, '.3f')}]" if np.isfinite(x.mean_place_lo) else \
        num(x.mean_place, ".3f")


def _positions_rows(t: pd.DataFrame, col: str) -> list:
    return [[getattr(x, col), f"{x.games:,}", pct_ci(x.durak_rate, x.durak_lo, x.durak_hi),
             pct_ci(x.first_rate, x.first_lo, x.first_hi), _mean_place(x)]
            for x in t.itertuples()]


def _model_check(doc: Doc, t: dict, teams: bool) -> None:
    """The model's first-out and Durak rates beside the observed ones (Strategies below),
    and the strategies whose places the model does not fit."""
    r = t["ratings"].set_index("strategy")
    if not np.isfinite(r["model_first"]).any():
        return
    s = t["strategies"].set_index("strategy").loc[r.index]
    checks = [("first out", "model_first", "first")] + \
        ([] if teams else [("Durak", "model_durak", "durak")])
    off = {x: [what for what, m, o in checks
               if not s.at[x, f"{o}_lo"] <= r.at[x, m] <= s.at[x, f"{o}_hi"]]
           for x in r.index}
    off = {x: v for x, v in off.items() if v}
    doc.p("Model check: the rates the fitted model gives each strategy (its chance to go out "
          "first" + ("" if teams else ", and to finish last: the Durak, draws aside") +
          ", in the line-ups it played) beside the observed rates. " + (
              "Every model rate lies inside the observed 95% interval." if not off else
              "The model's rate lies outside the observed 95% interval for " +
              "; ".join(f"{x} ({', '.join(v)})" for x, v in off.items()) +
              ": Plackett-Luce gives a strategy one strength for every place, which its "
              "places do not bear out (a level may play like another for most of the deal "
              "and apart only late in it). The ratings then summarise the places; the "
              "rates are the direct measure."))
    head = ["strategy"] + [c for what, _, _ in checks for c in
                           (f"{what} % observed [95% CI]", f"{what} % model")]
    doc.table(head, [[x] + [c for _, m, o in checks for c in
                            (pct_ci(s.at[x, f"{o}_rate"], s.at[x, f"{o}_lo"],
                                    s.at[x, f"{o}_hi"]), num(100 * r.at[x, m], ".2f"))]
                     for x in r.index])


def _document(rep: Report, plots: dict) -> tuple[Doc, str]:
    cfg, t = rep.config, rep.tables
    n = cfg.players
    title = (f"durak-sim tournament at {n} players: " + (
        f"{cfg.gauntlet} against {', '.join(cfg.strategies[1:])}" if cfg.gauntlet else
        ", ".join(cfg.strategies)))
    doc = document_head(rep, title, [
        ["format", _format(cfg)],
        ["strategies", ", ".join(f"{x} v{v}" for x, v in zip(cfg.names, cfg.name_versions))],
        ["table", cfg.rules.describe()],
        ["seatings", seating_text(cfg)],
        ["deals", f"{cfg.deals:,} per line-up (deal indices 0..{cfg.deals - 1}, the same "
                  f"deals at every table), each played once in every seating: "
                  f"{cfg.games:,} games"]])

    doc.h(2, "Ratings")
    doc.p(f"Plackett-Luce maximum likelihood on the places: each game read as successive "
          f"choices of the next player out among the players still in, up to a tie (the "
          f"seats still holding cards when a draw or a team's loss ends the deal share the "
          f"next place); a strategy seated "
          f"twice is two players of one strength. Elo scale (400·log10 of the strength), "
          f"field mean 0, with one virtual choice between every two strategies that met, "
          f"each winning half of it (a weak prior: a strategy that always finished ahead "
          f"still gets a finite rating); 95% "
          f"percentile intervals from {BOOTSTRAP} resamples of whole deals (every seating "
          f"and line-up of a deal together; Poisson weights drawn from seed {cfg.seed} and "
          f"the deal), widened by the t interval's small-sample factor "
          f"sqrt(D/(D-1))·t(D-1)/z for D deals (1.0017 at 1,000 deals, 1.0003 at 5,000, "
          f"9.2 at two). "
          f"Every table below lists the strategies in the order of these ratings.")
    doc.table(["rank", "strategy", "version", "rating", "95% CI", "seat-games"],
              [[i + 1 if np.isfinite(x.rating) else "-", x.strategy, x.version,
                num(x.rating, "+.1f"), ci(x.lo, x.hi), f"{x.games:,}"]
               for i, x in enumerate(t["ratings"].itertuples())], left=2)
    doc.img("ratings", "Plackett-Luce ratings with deal-bootstrap 95% intervals")
    _model_check(doc, t, cfg.rules.teams)

    doc.h(2, "Strategies")
    doc.p(f"All seat-games of each strategy (one a game, two where it sits twice). First "
          f"out: the first to leave (not in a draw); Durak: lost (with teams: its team "
          f"lost); draw: among the seats of a drawn deal (with teams: its team drew). "
          f"Wilson 95% intervals at the "
          f"effective sample size of the deals: the games of one deal share its cards, so "
          f"the deal, not the seat-game, is the independent unit (the rate's variance over "
          f"deals; seat rotations make it smaller than independent games would for a "
          f"strong strategy, larger for a weak one; with D deals it has D-1 degrees of "
          f"freedom, and a rate of 0 or 1 takes a design effect of 1: Korn & Graubard "
          f"1998); mean place (1 first out, "
          + ("the losing team's seats still holding cards share the next place"
             if cfg.rules.teams
             else f"{n} the Durak") + ") with a deal-bootstrap 95% interval.")
    places = "/".join(str(p) for p in range(1, n + 1))
    doc.table(["strategy", "version", "seat-games", "first out % [95% CI]",
               "Durak % [95% CI]", "draw % [95% CI]", "mean place [95% CI]",
               f"places {places}"],
              [[x.strategy, x.version, f"{x.games:,}",
                pct_ci(x.first_rate, x.first_lo, x.first_hi),
                pct_ci(x.durak_rate, x.durak_lo, x.durak_hi),
                pct_ci(x.draw_rate, x.draw_lo, x.draw_hi), _mean_place(x),
                " / ".join(f"{getattr(x, f'place{p}'):,}" for p in range(1, n + 1))]
               for x in t["strategies"].itertuples()])
    doc.img("places", "share of each strategy's seat-games in each place")

    h2h = t["head_to_head"]
    if len(h2h):
        doc.h(2, "Head to head")
        doc.p("Every two strategies that sat at one table, the higher rated (A) first: "
              "their meetings (two seats of one game" + (", opponents only" if
              cfg.rules.teams else "") + "), the games in which A finished ahead of B, "
              "tied (the seats of a draw) or behind, A's score (ahead 1, tie 1/2), how "
              "many places ahead of B A finished on average, and A's rating less B's. "
              "The 95% intervals are percentiles of the same deal-bootstrap resamples as "
              "the ratings' (widened likewise for few deals): both strategies played the "
              "same deals in every seating, so "
              "the difference is measured within each resample (paired), and its interval "
              "is far narrower than the two strategies' own intervals above suggest. Where "
              "every resample is alike (a handful of deals, or deals that all came out the "
              "same), the score and places take Wilson's interval with the deals met as the "
              "sample instead, so that a few deals are never reported as certain.")
        doc.table(["A", "B", "meetings", "A ahead", "ties", "A behind",
                   "A score % [95% CI]", "places ahead [95% CI]",
                   "rating A − B [95% CI]"],
                  [[x.a, x.b, f"{x.games:,}", f"{x.ahead:,}", f"{x.ties:,}",
                    f"{x.behind:,}", pct_ci(x.score, x.score_lo, x.score_hi),
                    f"{num(x.places, '+.4f')} {ci(x.places_lo, x.places_hi, '+.4f')}",
                    elo_ci(x.elo, x.elo_lo, x.elo_hi)]
                   for x in h2h.itertuples()], left=2)

    lu = t["lineups"]
    if len(cfg.lineups()) > 1:
        doc.h(2, "Line-ups")
        more = len(lu) - DOC_LINEUP_ROWS
        doc.p("Each strategy in each line-up (Wilson 95% intervals, the deals as clusters)" + (
            f"; the first {DOC_LINEUP_ROWS} rows, all {len(lu):,} in `lineups.csv`."
            if more > 0 else "."))
        doc.table(["line-up", "strategy", "deals", "seat-games", "mean place [95% CI]",
                   "Durak % [95% CI]", "first out % [95% CI]"],
                  [[_lineup_cell(x.lineup, cfg.rules.teams), x.strategy, f"{x.deals:,}",
                    f"{x.games:,}",
                    _mean_place(x), pct_ci(x.durak_rate, x.durak_lo, x.durak_hi),
                    pct_ci(x.first_rate, x.first_lo, x.first_hi)]
                   for x in lu.head(DOC_LINEUP_ROWS).itertuples()], left=2)

    doc.h(2, "Seats and the first attacker")
    doc.p(f"Durak and first-out rates by seat, and by position after the first attacker "
          f"((seat - first attacker) mod {n}: 0 is the first attacker, 1 its defender), "
          f"Wilson 95% intervals with the deals as clusters (the variance from the deal "
          f"bootstrap), and the mean place with its deal-bootstrap interval; without an "
          f"advantage each "
          + (f"Durak (team lost) rate is 1/2 (50.00%, the plot's dashed line) and each "
             f"first-out rate 1/{n} ({100 / n:.2f}%, its dotted line), less the draws"
             if cfg.rules.teams else
             f"rate is 1/{n} ({100 / n:.2f}%, the plot's dotted line) less the draws") + ".")
    heads = ["games", "Durak % [95% CI]", "first out % [95% CI]", "mean place [95% CI]"]
    doc.table(["seat", *heads], _positions_rows(t["seats"], "seat"))
    doc.table(["after the first attacker", *heads],
              _positions_rows(t["first_attacker"], "position"))
    doc.img("seats", "Durak and first-out rates by seat and by position after the first "
                     "attacker")

    if "teams" in t:
        doc.h(2, "Teams")
        pooled = (t["teams"]["opponents"] == ps.ALL).any()
        doc.p("Per partnership (its strategies) and its opponents: the team's games, wins, "
              "losses and draws, Wilson 95% intervals with the deals as clusters."
              + (" A partnership that met several pairs of opponents has one more row, "
                 "against all of them (its line-ups share the deals: the variance from the "
                 "deal bootstrap)." if pooled else ""))
        doc.table(["team", "opponents", "team-games", "won", "lost % [95% CI]",
                   "draws % [95% CI]"],
                  [[x.team, "all" if x.opponents == ps.ALL else x.opponents,
                    f"{x.games:,}", f"{x.won:,}",
                    pct_ci(x.lost_rate, x.lost_lo, x.lost_hi),
                    pct_ci(x.draws_rate, x.draws_lo, x.draws_hi)]
                   for x in t["teams"].itertuples()], left=2)

    doc.h(2, "Convergence")
    doc.p("Each strategy's mean place over the first deals of every line-up, as they "
          "accumulate, with its deal-bootstrap 95% band (Wilson's interval on the deals "
          "where the resamples do not vary, as at the first deal; `convergence.csv`).")
    doc.img("convergence", "mean place as the deals accumulate, with 95% bands")

    doc.h(2, "Game length")
    doc.p("Bouts per game; cards left in the Durak's hand (with teams: the losing team's "
          "hands), decisive games.")
    doc.table(["line-up", "games", "bouts mean", "sd", "min", "p25", "median", "p75", "max",
               "Durak's cards left mean"],
              [["all games" if x.lineup == ps.ALL else _lineup_cell(x.lineup, cfg.rules.teams),
                f"{x.games:,}",
                num(x.bouts_mean, ".2f"), num(x.bouts_sd, ".2f"), num(x.bouts_min, "g"),
                num(x.bouts_p25, "g"), num(x.bouts_median, "g"), num(x.bouts_p75, "g"),
                num(x.bouts_max, "g"), num(x.cards_left_mean, ".2f")]
               for x in t["game_length"].head(DOC_LINEUP_ROWS + 1).itertuples()])

    doc.h(2, "Files")
    files = [v for k, v in TABLE_FILES.items() if k in t]
    doc.p("Tables as CSV: " + ", ".join(f"`{v}`" for v in files)
          + f". Plots as PNG and SVG in `{PLOTS_DIR}/`. Every game in `games/` (Parquet, one "
          "folder per line-up, one file per chunk of deals: each game's seating, strategies "
          "and places), indexed with checksums by `manifest.json`; timings in "
          "`timing.json`.")
    doc.blocks = [b for b in doc.blocks if b[0] != "img" or b[1] in plots]
    return doc, title


def print_place_report(rep: Report, console) -> None:
    """The main tables of an N-player report on the terminal (rich)."""
    from .report import print_head, print_table

    if console.width < 150:   # (the intervals stay on one line)
        console = wide_console(150, file=console.file)
    cfg, t = rep.config, rep.tables
    print_head(console, rep, f"{_format(cfg)}; {cfg.deals:,} deals per line-up in every "
                             f"seating, seed {cfg.seed}, {cfg.rules.tag}")
    print_table(console, "Plackett-Luce ratings (Elo scale, field mean 0) and places",
                ["strategy", "rating", "95% CI", "mean place [95% CI]",
                 "first out % [95% CI]", "Durak % [95% CI]", "seat-games"],
                [[x.strategy, num(r.rating, "+.1f"), ci(r.lo, r.hi), _mean_place(x),
                  pct_ci(x.first_rate, x.first_lo, x.first_hi),
                  pct_ci(x.durak_rate, x.durak_lo, x.durak_hi), f"{x.games:,}"]
                 for r, x in zip(t["ratings"].itertuples(), t["strategies"].itertuples())])
    order = list(t["ratings"]["strategy"])
    steps = {(a, b) for a, b in zip(order, order[1:])}
    h2h = [x for x in t["head_to_head"].itertuples() if (x.a, x.b) in steps]
    if h2h:
        console.print("Head to head, paired (each level against the next): " + "; ".join(
            f"{x.a} - {x.b} {elo_ci(x.elo, x.elo_lo, x.elo_hi)} Elo, score "
            f"{pct_ci(x.score, x.score_lo, x.score_hi)} %" for x in h2h))
    console.print("Durak by seat: " + "; ".join(
        f"seat {x.seat} {pct_ci(x.durak_rate, x.durak_lo, x.durak_hi)}"
        for x in t["seats"].itertuples()))
    for note in rep.notes:
        console.print(f"note: {note}")
    console.print(f"report: {rep.out / 'report.md'}, {rep.out / 'report.html'}")


__all__ = ["TABLE_FILES", "build_place_report", "compute_tables", "count_stored",
           "print_place_report", "seating_text"]

"""A tournament's report, built from its stored games alone.

:func:`build_report` reads the manifest and the Parquet chunks of an output folder
(:mod:`durak_sim.storage`), reduces the stored columns in one vectorised pass to counts
per pairing (:class:`durak_sim.stats.GameCounts`: W/D/L, pentanomial pair counts,
histograms, pair scores in deal order), computes every table and plot from those, and
writes at the top of the folder:

=====================  ==============================================================
``ratings.csv``        Bradley-Terry ratings (Elo scale, field mean 0; one virtual drawn
                       game per pairing where a pairing was won outright), bootstrap 95% CI
``crosstable.csv``     mean score of the row strategy against the column strategy
``pairings.csv``       per pairing: W/D/L and their 95% intervals, pentanomial deal-pair counts, Elo ± 95%, LOS
``strategies.csv``     per strategy: wins, Durak, draws with Wilson 95% intervals (deal
                       pairs as clusters, pairings as strata)
``first_attacker.csv`` first-attacker win rate of decisive games, overall and per pairing
``seat.csv``           the same for seat 0
``game_length.csv``    bouts and the Durak's cards left, overall and per pairing
``plots/*.png|svg``    crosstable, ratings, convergence, game_length, first_attacker
``report.md``          all of the above for people (links the PNGs), with a check of the
                       ratings against the pairings (:func:`model_check`)
``report.html``        the same, one self-contained file (plots embedded as base64 PNG)
=====================  ==============================================================

These hold results only (no timings, no paths, no dates): the same tournament writes the
same bytes, whatever threads, chunking or resumes produced its games, and ``durak-sim
report DIR`` rebuilds them identically. Floats are written with 10 significant digits; an
undefined value (no decisive games, no variance) is an empty CSV cell and a dash in the
documents, never ``nan`` or ``inf``. Strategies are listed by rating, and in each pairing
A is the higher rated, so that pairings, crosstable and plots read from the stronger side.

>>> from durak_sim.tournament import run_tournament, _doctest_dir
>>> r = run_tournament(["random", "easy"], deals=300, seed=5, out=_doctest_dir(),
...                    progress=False)
>>> list(r.report.tables["ratings"]["strategy"])
['easy', 'random']
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .document import PLOTS_DIR, Doc as _Doc  # noqa: F401 - (report._Doc)
from .errors import UserError
from .formatting import (ci, elo_ci, finite, is_sweep, num, p_value, pct, pct_ci, print_whole,
                         wide_console)
from .rules import RULES_VERSION
from .stats import GAME_COLUMNS, GameCounts
from .storage import Manifest, game_arrays, games_frame, read_chunks
from .tournament_config import TournamentConfig, check_stored

#: table name -> CSV file, in report order
TABLE_FILES = {"ratings": "ratings.csv", "crosstable": "crosstable.csv",
               "pairings": "pairings.csv", "strategies": "strategies.csv",
               "first_attacker": "first_attacker.csv", "seat": "seat.csv",
               "game_length": "game_length.csv"}
BOOTSTRAP = 1000   # Bradley-Terry bootstrap resamples
MAX_BOOT = 100_000   # (each resample holds the pairings' counts: a few MB in all)
FLOAT_FORMAT = "%.10g"


@dataclass
class Report:
    """A built report: its folder, config, the manifest it was built from, the tables
    (pandas frames, keys of :data:`TABLE_FILES`) and whether every chunk was stored
    (``chunks_partial``: chunks of a stopped run stored in part, which the tables count);
    ``seconds``: how long building took, per step (``counts``, ``tables``, ``plots``,
    ``documents``; never written to the report)."""

    out: Path
    config: TournamentConfig
    manifest: Manifest
    tables: dict
    games: int
    chunks_done: int
    chunks_total: int
    notes: list
    chunks_partial: int = 0
    n_boot: int = BOOTSTRAP
    seconds: dict = field(default_factory=dict, repr=False)

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks_total


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------
def _stored_chunks(out: Path, manifest: Manifest, config: TournamentConfig) -> list:
    """The manifest's chunks of the config's line-ups (pairings), the finished ones and
    those a stopped run stored in part (every game stored counts), in the canonical order
    (line-ups as in the config, then deal): the order never depends on how or when they
    were played."""
    from .storage import entry_key

    rank = {p: i for i, p in enumerate(config.lineups())}
    chunks = [c for c in (*manifest.chunks, *manifest.partials) if entry_key(c) in rank]
    chunks.sort(key=lambda c: (rank[entry_key(c)], c["deal_lo"]))
    if not chunks:
        raise UserError(f"no game stored in {out} yet: nothing to report")
    return chunks


def load_games(out: Path, manifest: Manifest, config: TournamentConfig) -> pd.DataFrame:
    """Every stored game of the folder as a games frame (:mod:`durak_sim.stats`),
    checksums verified, in the canonical order (pairings as in the config, then deal,
    then swap)."""
    table = read_chunks(out, _stored_chunks(out, manifest, config), verify=True,
                        columns=GAME_COLUMNS)
    return games_frame(table, config.strategies, GAME_COLUMNS)


def count_table(table, names) -> GameCounts:
    """:class:`durak_sim.stats.GameCounts` of a chunk's Arrow table (strategies in the
    order of ``names``, the chunk's dictionary), from the integer codes of its columns."""
    from .stats import count_games
    from .storage import OUTCOMES, StorageError

    g = game_arrays(table, names, GAME_COLUMNS)
    decisive = g["outcome"] == OUTCOMES.index("durak")
    if not np.isin(g["durak"][decisive], [0, 1]).all():
        raise StorageError("stored games: a decisive game has a durak seat other than 0 or 1")
    return count_games(names, g["seat0"], g["seat1"], draw=~decisive, durak=g["durak"],
                       seed=g["seed"], deal=g["deal"], swap=g["swap"],
                       first_attacker=g["first_attacker"], bouts=g["bouts"],
                       cards_left=g["cards_left"])


def load_counts(out: Path, manifest: Manifest, config: TournamentConfig,
                known: dict | None = None) -> GameCounts:
    """The stored games of the folder reduced to :class:`durak_sim.stats.GameCounts`
    (strategies in the config's order): every table and plot of the report is computed
    from these. Chunk by chunk (checksums verified), only integer codes, never a per-game
    frame; the chunks' counts are merged in the canonical order.

    ``known``: counts of chunks already counted, by ``(file, sha256)`` (a tournament
    counts each chunk as it stores it): those files are not read again."""
    from .stats import merge_counts
    from .storage import StorageError

    parts = []
    for c in _stored_chunks(out, manifest, config):
        got = (known or {}).get((c["file"], c["sha256"]))
        if got is None:     # read_chunks checks that it is there, whole, of the right size
            got = count_table(read_chunks(out, [c], verify=True, columns=GAME_COLUMNS),
                              config.strategies)
        elif int(got.games.sum()) != c["rows"]:
            raise StorageError(f"counts of chunk {c['file']} hold {int(got.games.sum())} "
                               f"games, the manifest says {c['rows']}")
        parts.append(got)
    return merge_counts(parts)


def _present(games, names) -> list:
    """The strategies of ``names`` (in that order) that played at least one game."""
    if isinstance(games, GameCounts):
        seen = set(games.present)
        return [n for n in names if n in seen]
    seen = set()
    for c in ("seat0", "seat1"):
        col = games[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            codes = np.unique(col.cat.codes.to_numpy())
            seen.update(col.cat.categories[codes[codes >= 0]])
        else:
            seen.update(pd.unique(col))
    return [n for n in names if n in seen]


def _crosstable(pairings: pd.DataFrame, order: list) -> pd.DataFrame:
    m = np.full((len(order), len(order)), np.nan)
    idx = {n: i for i, n in enumerate(order)}
    for r in pairings.itertuples():
        m[idx[r.a], idx[r.b]] = r.score
        m[idx[r.b], idx[r.a]] = 1.0 - r.score
    frame = pd.DataFrame(m, columns=order)
    frame.insert(0, "strategy", pd.Series(order, dtype=object))
    return frame


def compute_tables(games, config: TournamentConfig,
                   n_boot: int = BOOTSTRAP) -> tuple[dict, list]:
    """Every table of the report from a games frame or its
    :class:`durak_sim.stats.GameCounts`; ``(tables, notes)``.

    Strategies are listed in the order of their Bradley-Terry ratings, highest first (ties,
    and a field without ratings, in the config's order), and A of every pairing is the
    higher rated of the two, so that pairings read from the stronger side. The
    Bradley-Terry bootstrap is seeded with the tournament's seed."""
    from . import stats

    notes = []
    present = _present(games, config.strategies)
    counts = stats.as_counts(games, present)
    version = dict(zip(config.strategies, config.versions))
    ratings, order = rank_by_rating(
        present, lambda: stats.bradley_terry(counts, n_boot=n_boot, seed=config.seed),
        "Bradley-Terry", notes, lambda order: stats.strategy_table(counts)
        .set_index("strategy").loc[order, "games"].to_numpy())
    ratings.insert(1, "version", [version[n] for n in ratings["strategy"]])
    counts = counts.reordered(order)
    strategies = stats.strategy_table(counts).set_index("strategy").loc[order].reset_index()
    strategies.insert(1, "version", [version[n] for n in order])
    pairings = stats.pairing_table(counts, order=order)
    tables = {
        "ratings": ratings,
        "crosstable": _crosstable(pairings, order),
        "pairings": pairings,
        "strategies": strategies,
        "first_attacker": stats.first_attacker_advantage(counts, order=order),
        "seat": stats.seat_advantage(counts, order=order),
        "game_length": stats.game_length(counts, order=order),
    }
    return tables, notes


def rank_by_rating(present: list, fit, label: str, notes: list, games) -> tuple:
    """``(ratings, order)``: the ratings ``fit()`` gives (a frame of ``strategy, rating, lo,
    hi, games``) and the strategies of ``present`` in their order, highest first (ties in
    the order of ``present``). A fit that fails (``ValueError``) gives undefined ratings,
    ``present``'s order and a note; ``games(order)``: the games column then."""
    try:
        ratings = fit()
    except ValueError as exc:
        notes.append(f"{label} ratings: {exc}")
        return pd.DataFrame({"strategy": pd.Series(present, dtype=object), "rating": np.nan,
                             "lo": np.nan, "hi": np.nan, "games": games(present)}), present
    # (ratings equal but for rounding, as of two strategies that play alike: in the order of
    # ``present``)
    rating = {n: round(float(r), 9) for n, r in zip(ratings["strategy"], ratings["rating"])}
    order = sorted(present, key=lambda n: (-rating[n], present.index(n)))
    return ratings.set_index("strategy").loc[order].reset_index(), order


def table_order(tables: dict) -> list:
    """The strategies in the order of the report's tables (by rating)."""
    return list(tables["strategies"]["strategy"])


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False, float_format=FLOAT_FORMAT,
                        lineterminator="\n").encode("utf-8")


# --------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------
def _pairing_label(a, b) -> str:
    return "all games" if a == "*" else f"{a} vs {b}"


def _played_versions(provenance: dict) -> list:
    """durak-sim versions that played the stored games: the first run's, then any other
    a resume used."""
    versions = [str(provenance.get("package_version", "?"))]
    for r in provenance.get("resumed", []):
        v = str(r.get("package_version", "?"))
        if v not in versions:
            versions.append(v)
    return versions


def document_head(rep: Report, title: str, setup: list) -> _Doc:
    """A report's document up to its results: the title, whether it is complete, the setup
    table (``setup``'s rows, then the games stored, seed, rules and versions), the command
    that reproduces it and the notes."""
    cfg = rep.config
    doc = _Doc()
    doc.h(1, title)
    if not rep.complete:
        doc.p(f"**INCOMPLETE**: {rep.chunks_done} of {rep.chunks_total} chunks are stored"
              f"{_in_part(rep)}; the tables cover every game stored. Continue with "
              f"`durak-sim tournament --resume DIR`.")
    doc.h(2, "Setup")
    rules = json.dumps(cfg.rules.to_dict(), sort_keys=True)
    doc.table(["setting", "value"], [
        *setup,
        ["games stored", f"{rep.games:,}"],
        ["seed", str(cfg.seed)],
        ["rules", f"{cfg.rules.tag} `{rules}`, rules version {RULES_VERSION}"],
        ["durak-sim", ", ".join(_played_versions(rep.manifest.provenance))],
    ], left=2, wrap=True)
    doc.p("Reproduce (threads, output folder and chunk size do not change the results; "
          "`durak-sim report DIR` rebuilds this report from the stored games):")
    doc.code(cfg.command() + " --out DIR")
    for note in rep.notes:
        doc.p(f"Note: {note}")
    forfeits = sum(len(c.get("forfeits", [])) for c in rep.manifest.chunks)
    if cfg.forfeit:
        doc.p(f"Forfeits (`--forfeit`): {forfeits:,} game{'s' if forfeits != 1 else ''} in "
              f"which an external engine failed (crashed, hung past its time limit, printed "
              f"garbage or played an illegal action) are scored as its loss; manifest.json "
              f"lists each (deal, seating, seat).")
    capped = sum(len(c.get("capped", [])) for c in rep.manifest.chunks)
    if capped:
        from .storage import capped_words

        games, what = capped_words(capped)
        share = 100 * capped / max(rep.games, 1)
        doc.p(f"The cap on play (rules E12: durak-sim docs rules): {games} ({share:.3g}% of the "
              f"games stored) {what}, counted as draws in every table; manifest.json lists "
              f"each (deal, seating).")
    return doc


def model_check(t: dict) -> tuple[list, list, int]:
    """Bradley-Terry against the pairings: ``(rows, off, left_out)``, a row per pairing
    with a finite paired Elo (``a, b, elo, elo_lo, elo_hi, model``: the ratings'
    difference), the pairings whose interval does not hold the model's difference, and the
    pairings left out (won outright: no finite Elo). No rows where the model has as many
    ratings as the pairings have results to fit (two strategies, a gauntlet): it then
    fits every pairing exactly, and there is nothing to check."""
    r = t["ratings"].set_index("strategy")["rating"]
    p = t["pairings"]
    if len(p) <= len(r) - 1:
        return [], [], 0
    rows, off, left_out = [], [], 0
    for x in p.itertuples():
        model = r.get(x.a, np.nan) - r.get(x.b, np.nan)
        if is_sweep(x) or not finite(x.elo, x.elo_lo, x.elo_hi, model):
            left_out += 1
            continue
        rows.append((x.a, x.b, x.elo, x.elo_lo, x.elo_hi, model))
        if not x.elo_lo <= model <= x.elo_hi:
            off.append(f"{x.a}-{x.b}")
    return rows, off, left_out


def _model_check(doc: _Doc, t: dict) -> None:
    """The model check's paragraph and table (:func:`model_check`)."""
    rows, off, left_out = model_check(t)
    if not rows:
        return
    doc.p("Model check: the Elo difference the Bradley-Terry ratings give each pairing "
          "beside the pairing's own (paired) Elo and its 95% interval. " + (
              "Every model difference lies inside the pairing's interval." if not off else
              f"The model's difference lies outside the pairing's interval for {len(off)} "
              f"of {len(rows)} pairings ({', '.join(off)}): Bradley-Terry gives each "
              f"strategy one strength against every opponent, which the pairings do not "
              f"bear out at this precision (a level may beat one opponent by more, and "
              f"another by less, than a single strength each allows). The ratings summarise "
              f"the field; each pairing's own Elo is the direct measure.") + (
              f" {left_out} pairing{'s' if left_out != 1 else ''} won outright (no finite "
              f"Elo) left out." if left_out else ""))
    doc.table(["A", "B", "Elo A-B [95% CI]", "model A-B", "inside"],
              [[a, b, elo_ci(e, lo, hi), num(m, "+.1f"), "yes" if lo <= m <= hi else "no"]
               for a, b, e, lo, hi, m in rows], left=2)


def _document(rep: Report, plots: dict) -> tuple[_Doc, str]:
    cfg, t = rep.config, rep.tables
    if cfg.gauntlet is not None:
        title = f"durak-sim gauntlet: {cfg.gauntlet} against {', '.join(cfg.strategies[1:])}"
        fmt = f"gauntlet: {cfg.gauntlet} against each of {len(cfg.strategies) - 1} strategies"
    else:
        title = f"durak-sim tournament: {', '.join(cfg.strategies)}"
        fmt = f"round robin of {len(cfg.strategies)} strategies"
    pairings = cfg.pairings()
    doc = document_head(rep, title, [
        ["format", f"{fmt} ({len(pairings)} pairing{'s' if len(pairings) != 1 else ''})"],
        ["strategies", ", ".join(f"{n} v{v}" for n, v in zip(cfg.strategies, cfg.versions))],
        ["deals", f"{cfg.deals:,} per pairing (deal indices 0..{cfg.deals - 1}), each played "
                  f"twice with the seats swapped: {cfg.games:,} games"]])

    doc.h(2, "Ratings")
    doc.p(f"Bradley-Terry maximum likelihood on game points (a draw is half a point), Elo "
          f"scale, anchored at a field mean of 0; where the results have no finite maximum "
          f"(a pairing that one side won outright, with no other results that place the "
          f"two), one virtual drawn game is added to every pairing (a weak prior: two "
          f"strategies alone, one of which won all n games, are then 400·log10(2n + 1) "
          f"apart); "
          f"95% percentile bootstrap intervals from "
          f"{rep.n_boot} resamples of whole deal pairs within each pairing (a pairing won "
          f"outright drawn with that virtual game among its counts; seed {cfg.seed}). Every "
          f"table below lists the strategies in the order of these ratings.")
    r = t["ratings"]
    doc.table(["rank", "strategy", "version", "rating", "95% CI", "games"],
              [[i + 1 if finite(x.rating) else "-", x.strategy, x.version,
                num(x.rating, "+.1f"), ci(x.lo, x.hi), f"{x.games:,}"]
               for i, x in enumerate(r.itertuples())], left=2)
    doc.img("ratings", "Bradley-Terry ratings with bootstrap 95% intervals")

    doc.h(2, "Crosstable")
    doc.p("Mean score (%) of the row strategy against the column strategy over all their "
          "games (win 1, draw 1/2, Durak 0).")
    c = t["crosstable"]
    names = list(c["strategy"])
    doc.table(["strategy", *names],
              [[row[0], *(pct(v) for v in row[1:])] for row in c.itertuples(index=False)])
    doc.img("crosstable", "score of row vs column, with the paired Elo and its 95% interval")

    doc.h(2, "Pairings")
    doc.p("A is the higher rated of the two. Elo from the mean score of deal pairs "
          "(pentanomial p0..p4: pairs in which A scored 0, 1/4, 1/2, 3/4, 1), 95% interval "
          "and likelihood of superiority (LOS) from the pair-score variance; var ratio: "
          "variance of the paired estimate over that of independent games (below 1: the "
          "duplicate deals cancelled luck). n deal pairs measure at most "
          "400·log10(4n + 1) Elo: a pairing that one side won outright (every pair) has no "
          "finite Elo and shows that bound, marked ≥, computed with one virtual drawn game "
          "(its var ratio is undefined); an interval end past a score of 0 or 100% is shown "
          "at the same bound.")
    p = t["pairings"]
    doc.table(["A", "B", "deal pairs", "A wins", "draws", "A Durak", "A score %",
               "Elo A-B [95% CI]", "LOS %", "p0 / p1 / p2 / p3 / p4", "var ratio"],
              [[x.a, x.b, f"{x.pairs:,}", f"{x.a_wins:,}", f"{x.a_draws:,}", f"{x.a_losses:,}",
                pct(x.score), elo_ci(x.elo, x.elo_lo, x.elo_hi, is_sweep(x)), pct(x.los),
                " / ".join(f"{getattr(x, f'p{i}'):,}" for i in range(5)),
                num(x.var_ratio, ".3f")]
               for x in p.itertuples()], left=2)
    from .plots import CONVERGENCE_PANELS

    closest = (f" (the {CONVERGENCE_PANELS} pairings of {len(p):,} closest to 50%)"
               if len(p) > CONVERGENCE_PANELS else "")
    doc.img("convergence", "A's (the higher rated) mean pair score as deal pairs accumulate, "
                           f"with its 95% band{closest}")
    _model_check(doc, t)

    doc.h(2, "Strategies")
    doc.p("All games of each strategy; rates with Wilson 95% intervals at the effective "
          "sample size of each rate's variance, each pairing a stratum and each deal pair "
          "(its two seat-swapped games) a cluster in it.")
    s = t["strategies"]
    doc.table(["strategy", "version", "games", "wins", "Durak", "draws", "win % [95% CI]",
               "Durak % [95% CI]", "draw % [95% CI]", "score %"],
              [[x.strategy, x.version, f"{x.games:,}", f"{x.wins:,}", f"{x.durak:,}",
                f"{x.draws:,}", pct_ci(x.win_rate, x.win_lo, x.win_hi),
                pct_ci(x.durak_rate, x.durak_lo, x.durak_hi),
                pct_ci(x.draw_rate, x.draw_lo, x.draw_hi), pct(x.score)]
               for x in s.itertuples()])

    doc.h(2, "First-attacker and seat advantage")
    doc.p("Share of decisive games won by the first attacker and by seat 0, with the deal "
          "(its two seat-swapped games) as the unit: Wilson 95% intervals at the effective "
          "sample size of the variance over deals, two-sided t-test p-value against 50%.")
    f, st = t["first_attacker"], t["seat"]
    doc.table(["pairing", "decisive games", "first attacker wins % [95% CI]", "p",
               "seat 0 wins % [95% CI]", "p"],
              [[_pairing_label(x.a, x.b), f"{x.decisive:,}", pct_ci(x.rate, x.lo, x.hi),
                p_value(x.p_value), pct_ci(y.rate, y.lo, y.hi), p_value(y.p_value)]
               for x, y in zip(f.itertuples(), st.itertuples())])
    doc.img("first_attacker", "first-attacker and seat-0 win rates of decisive games")

    doc.h(2, "Game length")
    doc.p("Bouts per game; cards left in the Durak's hand (decisive games).")
    g = t["game_length"]
    doc.table(["pairing", "games", "bouts mean", "sd", "min", "p25", "median", "p75", "max",
               "Durak's cards left mean"],
              [[_pairing_label(x.a, x.b), f"{x.games:,}", num(x.bouts_mean, ".2f"),
                num(x.bouts_sd, ".2f"), num(x.bouts_min, "g"), num(x.bouts_p25, "g"),
                num(x.bouts_median, "g"), num(x.bouts_p75, "g"), num(x.bouts_max, "g"),
                num(x.cards_left_mean, ".2f")] for x in g.itertuples()])
    doc.img("game_length", "distribution of game length per pairing")

    doc.h(2, "Files")
    doc.p("Tables as CSV: " + ", ".join(f"`{v}`" for v in TABLE_FILES.values())
          + f". Plots as PNG and SVG in `{PLOTS_DIR}/`. Every game in `games/` (Parquet, one "
          "file per pairing and chunk of deals), indexed with checksums by `manifest.json`; "
          "timings in `timing.json`.")
    # only the plots that were drawn
    doc.blocks = [b for b in doc.blocks if b[0] != "img" or b[1] in plots]
    return doc, title


# --------------------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------------------
class _Laps:
    """Seconds per step of building a report (``seconds[step]``)."""

    def __init__(self):
        self.seconds: dict = {}
        self.t = time.perf_counter()

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        self.seconds[step] = now - self.t
        self.t = now


def build_report(out_dir: str | Path, n_boot: int = BOOTSTRAP,
                 known: dict | None = None) -> Report:
    """Compute every table of the tournament stored in ``out_dir`` from its games alone and
    write the CSVs, plots, ``report.md`` and ``report.html`` (atomically, each; not synced
    to disk: after a crash, ``durak-sim report DIR`` makes them again).

    Works on an unfinished tournament too (the report then says so). ``known``: counts of
    stored chunks by ``(file, sha256)``, see :func:`load_counts`. ``n_boot``: the
    Bradley-Terry ratings' bootstrap resamples, 1 to ``MAX_BOOT``. A tournament at more than
    two players: :func:`durak_sim.place_report.build_place_report` (its resamples are
    fixed, ``place_counts.BOOTSTRAP``).

    >>> build_report("x", n_boot=0)
    Traceback (most recent call last):
    durak_sim.errors.UserError: n_boot must be a whole number of resamples in 1..100000, got 0
    """
    from .plots import render_all

    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or \
            not 1 <= n_boot <= MAX_BOOT:
        raise UserError(f"n_boot must be a whole number of resamples in 1..{MAX_BOOT}, got "
                        f"{n_boot!r}")
    out = Path(out_dir)
    if not out.is_dir():
        raise UserError(f"no tournament folder {out}")
    lap = _Laps()
    manifest = Manifest.load(out)
    config = TournamentConfig.from_dict(manifest.config)
    if config.players > 2:
        from .place_report import build_place_report

        return build_place_report(out, manifest, config, lap)
    # the games must be what the manifest says (not those this run stored just now)
    check_stored(out, manifest, config,
                 [c for c in (*manifest.chunks, *manifest.partials)
                  if (c["file"], c["sha256"]) not in (known or {})])
    counts = load_counts(out, manifest, config, known)
    lap("counts")
    tables, notes = compute_tables(counts, config, n_boot=n_boot)
    rep = Report(out=out, config=config, manifest=manifest, tables=tables,
                 games=int(counts.games.sum()), chunks_done=len(manifest.chunks),
                 chunks_total=len(config.pairings()) * len(config.chunk_ranges()),
                 notes=notes, seconds=lap.seconds, chunks_partial=len(manifest.partials),
                 n_boot=int(n_boot))
    return write_report(rep, TABLE_FILES, lap,
                        lambda: render_all(tables, counts, table_order(tables),
                                           out / PLOTS_DIR), _document)


def write_report(rep: Report, files: dict, lap, draw, document) -> Report:
    """Write a built report's tables (``files``: table name -> CSV file), its plots
    (``draw()``: ``{name: png bytes}``) and ``report.md`` / ``report.html``
    (``document(rep, plots)``: ``(doc, title)``), timing each step with ``lap``."""
    from .files import atomic_write_bytes, atomic_write_text

    for name, file in files.items():
        atomic_write_bytes(rep.out / file, _csv(rep.tables[name]), sync=False)
    lap("tables")
    plots = draw()
    lap("plots")
    doc, title = document(rep, plots)
    atomic_write_text(rep.out / "report.md", doc.markdown(), sync=False)
    atomic_write_text(rep.out / "report.html", doc.html(title, plots), sync=False)
    lap("documents")
    return rep


def _in_part(rep: Report) -> str:
    return f", {rep.chunks_partial} more in part" if rep.chunks_partial else ""


def print_head(console, rep: Report, head: str) -> None:
    """The first line of a report on the terminal, marked when it is incomplete."""
    if not rep.complete:
        head += f"  [INCOMPLETE: {rep.chunks_done} of {rep.chunks_total} chunks{_in_part(rep)}]"
    console.print(head)


def print_table(console, title: str, headers: list, rows: list, left: int = 1) -> None:
    """A rich table on the terminal: ``left`` columns aligned left, the rest right."""
    from rich.table import Table

    tab = Table(title=title, title_justify="left")
    for i, h in enumerate(headers):
        tab.add_column(h, justify="left" if i < left else "right")
    for r in rows:
        tab.add_row(*[str(c) for c in r])
    print_whole(console, tab)


def print_report(rep: Report, console=None) -> None:
    """The report's main tables on the terminal (rich, aligned, with intervals)."""
    if console is None:
        console = wide_console(118)
    if rep.config.players > 2:
        from .place_report import print_place_report

        return print_place_report(rep, console)
    cfg, t = rep.config, rep.tables
    print_head(console, rep, f"{'gauntlet' if cfg.gauntlet else 'round robin'}: "
                             f"{', '.join(cfg.strategies)}; {cfg.deals:,} deals per pairing x "
                             f"2 seats, seed {cfg.seed}, {cfg.rules.tag}")

    def table(title, headers, rows, left=1):
        print_table(console, title, headers, rows, left)

    table("Bradley-Terry ratings (Elo scale, field mean 0)",
          ["strategy", "version", "rating", "95% CI", "games"],
          [[x.strategy, x.version, num(x.rating, "+.1f"), ci(x.lo, x.hi), f"{x.games:,}"]
           for x in t["ratings"].itertuples()])
    table("Pairings (A = the higher rated; paired Elo from deal pairs)",
          ["A", "B", "deal pairs", "A score %", "Elo A-B [95% CI]", "LOS %", "var ratio"],
          [[x.a, x.b, f"{x.pairs:,}", pct(x.score),
            elo_ci(x.elo, x.elo_lo, x.elo_hi, is_sweep(x)), pct(x.los),
            num(x.var_ratio, ".3f")]
           for x in t["pairings"].itertuples()], left=2)
    table("Strategies (Wilson 95% intervals)",
          ["strategy", "games", "win % [95% CI]", "Durak % [95% CI]", "draw % [95% CI]"],
          [[x.strategy, f"{x.games:,}", pct_ci(x.win_rate, x.win_lo, x.win_hi),
            pct_ci(x.durak_rate, x.durak_lo, x.durak_hi),
            pct_ci(x.draw_rate, x.draw_lo, x.draw_hi)] for x in t["strategies"].itertuples()])
    rows, off, _ = model_check(t)
    if rows:
        console.print(f"model check: the Bradley-Terry ratings' Elo difference lies outside "
                      f"the pairing's own 95% interval for {len(off)} of {len(rows)} pairings"
                      + (f" ({', '.join(off)}): the ratings summarise, the pairings measure"
                         if off else ""))
    f, s = t["first_attacker"].iloc[0], t["seat"].iloc[0]
    console.print(f"first attacker wins {pct_ci(f.rate, f.lo, f.hi)} % of {f.decisive:,} "
                  f"decisive games (p = {p_value(f.p_value)}); seat 0 wins "
                  f"{pct_ci(s.rate, s.lo, s.hi)} % (p = {p_value(s.p_value)})")
    for note in rep.notes:
        console.print(f"note: {note}")
    console.print(f"report: {rep.out / 'report.md'}, {rep.out / 'report.html'}")


__all__ = ["BOOTSTRAP", "Report", "TABLE_FILES", "build_report", "compute_tables",
           "count_table", "load_counts", "load_games", "print_report"]

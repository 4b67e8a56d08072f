"""How often the tables' 95% intervals cover the truth: a coverage study of the reports.

    python benchmarks/bench_coverage.py [--players 2] [--runs 400] [--deals 300]
        [--truth-deals 100000] [--levels random,easy,normal] [--out DIR]

Plays one large tournament (``--truth-deals``, seed 999) whose estimates stand for the truth,
then ``--runs`` small ones (``--deals``, seeds 1..runs) of the same field, and prints one
JSON line per interval column and row of the tables (two players: strategies, ratings,
pairings; three to six: strategies, ratings, head_to_head, seats, first_attacker): the share
of the small runs whose interval holds the truth's estimate, its binomial standard error,
how often the truth fell below and above, and the mean width against the truth's own (the
truth's uncertainty is that ratio of the small runs': about sqrt(deals / truth-deals)).
A last line counts the columns whose coverage lies outside 95% +- 3 standard errors.
Only fast levels belong here: 400 runs of 300 deals and the truth take about 25 minutes on
one thread at two players (the results in benchmarks/RESULTS.md). Tournaments are stored in
``--out`` (default: a temporary folder, removed at the end); a folder already played there is
kept, so an interrupted study continues.
"""
import argparse
import math
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from durak_sim.bench import first_paragraph, json_line, run_script
from durak_sim.rules import Rules
from durak_sim.tournament import run_tournament

#: table -> (key columns, [(label, estimate, lo, hi)]); pairs of strategies are oriented as
#: the truth orders them (``FLIP`` turns a row round)
TWO = {
    "strategies": (["strategy"], [(c, f"{c}_rate", f"{c}_lo", f"{c}_hi")
                                  for c in ("win", "durak", "draw")]),
    "ratings": (["strategy"], [("rating", "rating", "lo", "hi")]),
    "pairings": (["a", "b"], [("elo", "elo", "elo_lo", "elo_hi"),
                              ("nelo", "nelo", "nelo_lo", "nelo_hi"),
                              *((f"a_{r}", f"a_{c}", f"a_{r}_lo", f"a_{r}_hi")
                                for r, c in (("win", "wins"), ("draw", "draws"),
                                             ("loss", "losses")))]),
}
#: A's rates turned round are B's: its wins are A's losses
RATE_FLIP = {"a_win": "a_loss", "a_loss": "a_win", "a_draw": "a_draw"}
PLACES = [("first", "first_rate", "first_lo", "first_hi"),
          ("durak", "durak_rate", "durak_lo", "durak_hi"),
          ("draw", "draw_rate", "draw_lo", "draw_hi"),
          ("mean_place", "mean_place", "mean_place_lo", "mean_place_hi")]
MANY = {
    "strategies": (["strategy"], PLACES),
    "ratings": (["strategy"], [("rating", "rating", "lo", "hi")]),
    "head_to_head": (["a", "b"], [("score", "score", "score_lo", "score_hi"),
                                  ("places", "places", "places_lo", "places_hi"),
                                  ("elo", "elo", "elo_lo", "elo_hi")]),
    "seats": (["seat"], PLACES[:2] + PLACES[3:]),
    "first_attacker": (["position"], PLACES[:2] + PLACES[3:]),
}
FLIP = {"score": lambda v: 1 - v, "places": lambda v: -v}


def rows(folder: Path, table: str, spec: dict) -> dict:
    """``{(key, label): (estimate, lo, hi)}`` of one table, pairs both ways round."""
    keys, cols = spec[table]
    out = {}
    for _, r in pd.read_csv(folder / f"{table}.csv").iterrows():
        k = tuple(str(r[c]) for c in keys)
        for label, est, lo, hi in cols:
            # (a pairing's rates are counts over its games)
            value = r[est] / r["games"] if label in RATE_FLIP else r[est]
            out[k, label] = (value, r[lo], r[hi])
            if len(keys) == 2 and label in RATE_FLIP:
                out[(k[1], k[0]), RATE_FLIP[label]] = (value, r[lo], r[hi])
            elif len(keys) == 2:
                f = FLIP.get(label, lambda v: -v)
                out[(k[1], k[0]), label] = (f(r[est]), f(r[hi]), f(r[lo]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--truth-deals", type=int, default=100_000)
    ap.add_argument("--levels", default="random,easy,normal",
                    help="the field (at more than two players, one line-up: "
                         "random,easy,normal,normal)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    field = args.levels.split(",")
    if args.players > 2 and len(field) != args.players:
        from durak_sim.errors import UserError

        raise UserError(f"--players {args.players} needs --levels with one strategy a seat "
                        f"(one line-up), e.g. random,easy,normal,normal; got {args.levels}")
    rules = Rules(players=args.players)
    spec = TWO if args.players == 2 else MANY
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="coverage-"))
    root.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def play(deals: int, seed: int, name: str) -> Path:
        folder = root / name
        if not (folder / "report.md").exists():
            shutil.rmtree(folder, ignore_errors=True)
            run_tournament(field, deals, seed, folder, 1, progress=False, rules=rules)
        return folder

    truth = play(args.truth_deals, 999, "truth")
    runs = [play(args.deals, s, f"run{s}") for s in range(1, args.runs + 1)]
    off = 0
    for table, (keys, _) in spec.items():
        got = [rows(r, table, spec) for r in runs]
        listed = {tuple(str(r[c]) for c in keys)
                  for _, r in pd.read_csv(truth / f"{table}.csv").iterrows()}
        for key, (est, t_lo, t_hi) in rows(truth, table, spec).items():
            if key[0] not in listed:
                continue                      # a pair the other way round than the truth's
            vals = np.array([g[key] for g in got if key in g], float)
            ok = np.isfinite(vals[:, 1]) & np.isfinite(vals[:, 2])
            v = vals[ok]
            n = len(v)
            cover = float(np.mean((v[:, 1] <= est) & (est <= v[:, 2]))) if n else math.nan
            se = math.sqrt(cover * (1 - cover) / n) if n else math.nan
            width = float(np.mean(v[:, 2] - v[:, 1])) if n else math.nan
            off += n > 0 and abs(cover - 0.95) > 3 * max(se, math.sqrt(0.95 * 0.05 / n))
            print(json_line({
                "bench": "coverage", "players": args.players, "table": table,
                "row": "/".join(key[0]), "column": key[1], "truth": float(est), "runs": n,
                "no_interval": int((~ok).sum()), "coverage": cover, "se": se,
                "truth_below": float(np.mean(est < v[:, 1])) if n else math.nan,
                "truth_above": float(np.mean(est > v[:, 2])) if n else math.nan,
                "mean_width": width, "truth_width_ratio": float(t_hi - t_lo) / width
                if n and width else math.nan}))
    print(json_line({"bench": "coverage-summary", "players": args.players, "runs": args.runs,
                      "deals": args.deals, "truth_deals": args.truth_deals, "field": field,
                      "columns_off": int(off), "seconds": round(time.perf_counter() - start, 1)}))
    if not args.out:
        shutil.rmtree(root)


if __name__ == "__main__":
    run_script(main)

"""Kernel throughput at every table: one JSON line per (ruleset, players), and an A/B line
against another durak-sim (an older checkout) on the two-player default game.

    python benchmarks/bench_tables.py [--deals 100000] [--repeat 3] [--lineup random]
    python benchmarks/bench_tables.py --ab /path/to/other/site --rounds 5

Per table: deals/s, decisions/s and actions/s on one thread (the kernel call alone, compile
or cache load before it and reported apart), and ``ratio_decisions``: decisions/s against
the two-player default game measured in the same run (the larger tables take more actions a
deal, so deals/s do not compare). ``--ab SITE`` alternates fresh processes of this tree and
of ``SITE`` (a folder holding another ``durak_sim`` package, e.g. ``pip install --target``
of an older commit), random against random on one thread, and prints each side's median and
their ratio.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from durak_sim.bench import first_paragraph, json_line, run_script


ONE = """
import json, sys, time
from durak_sim.play import play_games
from durak_sim.rules import Rules
deals = int(sys.argv[1])
play_games(["random", "random"], seed=1, deals=range(10), swap=False, threads=1)
best = min(play_games(["random", "random"], seed=1, deals=range(deals), swap=False,
                      threads=1).seconds for _ in range(3))
import durak_sim
print(json.dumps({"deals_per_s": deals / best, "package": durak_sim.__file__}))
"""


def table_line(name: str, players: int, lineup: str, deals: int, repeat: int) -> dict:
    from durak_sim.kernel import layout as L
    from durak_sim.play import play_games
    from durak_sim.rules import Rules

    rules = Rules(variant=name, players=players)
    seats = [lineup] * players
    t = time.perf_counter()
    play_games(seats, seed=1, deals=range(2), swap=False, threads=1, rules=rules)
    compile_s = time.perf_counter() - t
    best, batch = None, None
    for _ in range(repeat):
        b = play_games(seats, seed=1, deals=range(deals), swap=False, threads=1, rules=rules)
        if best is None or b.seconds < best:
            best, batch = b.seconds, b
    r = batch.results
    return {"bench": "tables", "rules": rules.tag, "players": players, "lineup": lineup,
            "deals": deals, "threads": 1, "seconds_best": round(best, 6),
            "deals_per_s": round(deals / best, 1),
            "decisions_per_s": round(float(r[:, L.R_DECISIONS].sum()) / best, 1),
            "actions_per_s": round(float(r[:, L.R_N_ACTIONS].sum()) / best, 1),
            "actions_per_deal": round(float(r[:, L.R_N_ACTIONS].mean()), 2),
            "compile_s": round(compile_s, 4)}


def ab(site: str, rounds: int, deals: int) -> dict:
    """Alternate fresh processes of this tree and of ``site``; medians and their ratio."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sides = {"this": here, "other": site}
    runs = {k: [] for k in sides}
    for k, path in sides.items():   # warm both caches first
        _one(path, 1000)
    for _ in range(rounds):
        for k, path in sides.items():
            runs[k].append(_one(path, deals))
    med = {k: statistics.median(v) for k, v in runs.items()}
    return {"bench": "tables-ab", "pairing": "random,random", "threads": 1, "deals": deals,
            "rounds": rounds, "this_deals_per_s": round(med["this"], 1),
            "other_deals_per_s": round(med["other"], 1),
            "ratio": round(med["this"] / med["other"], 4),
            "this_runs": [round(x) for x in runs["this"]],
            "other_runs": [round(x) for x in runs["other"]], "other": site}


def _one(path: str, deals: int) -> float:
    """One fresh process's best of three runs, with the durak_sim package of ``path``
    (refused when that process imported another one: an A/B of a package against itself
    would say nothing)."""
    from durak_sim.errors import UserError

    path = os.path.abspath(path)   # (the child runs in /)
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", ONE, str(deals)], env=env, check=True,
                         capture_output=True, text=True, cwd="/").stdout
    line = json.loads(out.splitlines()[-1])
    where = os.path.abspath(line["package"])
    if not where.startswith(path + os.sep):
        raise UserError(f"{path} holds no durak_sim package that Python imports first (it "
                        f"imported {where})")
    return line["deals_per_s"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lineup", default="random", help="the strategy in every seat")
    ap.add_argument("--ab", metavar="SITE", default=None,
                    help="A/B against the durak_sim package in SITE instead")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    if args.ab:
        print(json_line(ab(args.ab, args.rounds, args.deals)), flush=True)
        return
    from durak_sim.rules import VARIANTS

    base = None
    for name in VARIANTS:
        for players in ((4, 6) if name == "teams" else range(2, 7)):
            line = table_line(name, players, args.lineup, args.deals, args.repeat)
            if name == "podkidnoy" and players == 2:
                base = line["decisions_per_s"]
            line["ratio_decisions"] = round(line["decisions_per_s"] / base, 3) if base else None
            print(json_line(line), flush=True)


if __name__ == "__main__":
    run_script(main)

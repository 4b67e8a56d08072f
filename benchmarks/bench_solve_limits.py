"""Cost of ``durak-sim solve``'s budgets: the watcher thread, and the default budget's wall time.

    python benchmarks/bench_solve_limits.py [--reps 7] [--cli] [--cli-time-limit SECONDS]

A/B (one JSON line per position, ``"bench": "solve-watch"``): every solve now runs the kernel
in a worker thread while the caller watches it (``durak_sim.solve``). Each position is solved
exactly ``--reps`` times both ways, interleaved (AB, BA, ...) in one process with one table:
``direct`` calls the search in the caller's thread (the solve before budgets existed, plus
the root-bounds bookkeeping), ``watched`` is ``solve`` with a time limit it never reaches.
Medians in seconds (wall) and their ratio, and the ratio of the process's CPU time (both
threads: what the watching costs, apart from waiting for the worker to be scheduled); node
counts must be equal (the same search).

``--cli`` (``"bench": "solve-default"``): ``durak-sim solve`` of a 10-cards-each endgame
with an empty stock, which the solver does not settle in a minute, in a subprocess with the
default budget (or ``--cli-time-limit``): wall time of the whole command (start-up and
kernel load included) and what it reports. Compile time: the first solve of the process is
a warm-up, left out of every figure (``compile_s``).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from durak_sim.bench import first_paragraph, json_line, run_script

FMT = "durak-sim/position/1"
POSITIONS = {
    # a draw: about 1.1M nodes of value search, no preference order (a draw has none)
    "medium": {"format": FMT, "trump": "H", "stock": [], "attacker": 0,
               "hands": [["6D", "8S", "9H", "TD", "JS", "JH", "KD", "AD"],
                         ["6S", "7D", "7H", "TC", "TH", "QC", "AC", "AH"]]},
    # a win: a short value search, then about 14M nodes ordering the optimal actions
    "medium-order": {"format": FMT, "trump": "D", "stock": [], "attacker": 0,
                     "hands": [["6D", "9S", "TS", "QS", "QC", "QD", "KC", "KH"],
                               ["7S", "7D", "8C", "8H", "9H", "TD", "AS", "AD"]]},
    "small": {"format": FMT, "trump": "D", "stock": [], "attacker": 0,
              "hands": [["6S", "7C"], ["TS", "7D", "8C"]]},
}
BIG = {"format": FMT, "trump": "C", "stock": [], "attacker": 0,
       "hands": [["6S", "6D", "7S", "7C", "9H", "TS", "TD", "JC", "QS", "KH"],
                 ["6H", "7D", "8S", "8D", "8H", "9C", "TC", "JH", "QH", "AD"]]}


def ab(reps: int):
    from durak_sim.position import Position
    from durak_sim.solve import _Control, _Solver

    t = time.perf_counter()
    solver = _Solver()
    compile_s = time.perf_counter() - t

    def direct(p):
        solver.stamp += 1
        t0, c0 = time.perf_counter(), time.process_time()
        r = solver._search(p, 0, 20_000_000, _Control(p.to_move), t0)
        return time.perf_counter() - t0, time.process_time() - c0, r.nodes

    def watched(p):
        t0, c0 = time.perf_counter(), time.process_time()
        r = solver.solve(p, 0, 20_000_000, time_limit=3600)
        assert r.exact
        return time.perf_counter() - t0, time.process_time() - c0, r.nodes

    for name, d in POSITIONS.items():
        p = Position.from_dict(d)
        inner = 200 if name == "small" else 1  # tiny solves: time a batch
        wall = {"direct": [], "watched": []}
        cpu = {"direct": [], "watched": []}
        nodes = set()
        for i in range(reps):
            order = (direct, watched) if i % 2 == 0 else (watched, direct)
            for f in order:
                w = c = 0.0
                for _ in range(inner):
                    dw, dc, n = f(p)
                    w += dw
                    c += dc
                    nodes.add(n)
                wall[f.__name__].append(w / inner)
                cpu[f.__name__].append(c / inner)
        med = {k: statistics.median(v) for k, v in wall.items()}
        cmed = {k: statistics.median(v) for k, v in cpu.items()}
        print(json_line({"bench": "solve-watch", "position": name, "reps": reps,
                          "nodes": sorted(nodes), "direct_s": round(med["direct"], 6),
                          "watched_s": round(med["watched"], 6),
                          "watched_over_direct": round(med["watched"] / med["direct"], 4),
                          "cpu_watched_over_direct": round(cmed["watched"] / cmed["direct"], 4),
                          "compile_s": round(compile_s, 3)}), flush=True)


def cli(time_limit):
    exe = str(Path(sys.executable).with_name("durak-sim"))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "big.json"
        f.write_text(json.dumps(BIG))
        args = [exe, "solve", str(f), "--json"]
        if time_limit is not None:
            args += ["--time-limit", str(time_limit)]
        t = time.perf_counter()
        r = subprocess.run(args, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
    out = json.loads(r.stdout)
    print(json_line({"bench": "solve-default", "time_limit": time_limit,
                      "wall_s": round(wall, 2), "search_s": out["seconds"],
                      "nodes": out["nodes"], "exact": out.get("exact", True),
                      "stopped_by": out.get("stopped_by"), "bounds": out.get("bounds")}),
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--reps", type=int, default=7, help="A/B repetitions (0: skip the A/B)")
    ap.add_argument("--cli", action="store_true", help="time the command on a big endgame")
    ap.add_argument("--cli-time-limit", type=float, default=None,
                    help="its --time-limit (default: the command's default)")
    args = ap.parse_args(argv)
    if args.reps > 0:
        ab(args.reps)
    if args.cli:
        cli(args.cli_time_limit)


if __name__ == "__main__":
    run_script(main)

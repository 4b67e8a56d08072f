"""Check hard's endgame decisions that ``bench_hard_endgame.py`` could not verify.

    python benchmarks/check_unverified.py FILE [--max-nodes 3000000000] [--table-log2 24]

FILE is ``bench_hard_endgame.py --dump-unverified``'s output: hard's uncapped endgame
decisions whose independent value checks ran out of nodes, one ``{"deal", "hard_seat",
"action", "position"}`` object a line. Each position is solved again with
``durak_sim.solve`` (value and the optimal set, one table for the file), and the decision
**kept** the value when hard's action is among the optimal actions, or, when the budget
stopped the set first, when the value is proven and hard's action proven to reach it.
Prints one JSON line per decision, then a summary line; the exit code is 1 when a decision
left the value.
"""
from __future__ import annotations

import argparse
import json
import time

from durak_sim.bench import first_paragraph, json_line, run_script


def verdict(result, action: str) -> bool | None:
    """True when ``action`` (hard's, in record notation: a defence's target only when its
    code names one; the solver's actions name it always) provably keeps
    the value of the solved position, False when it provably does not, None when the
    budget left it open."""
    def mine(a: str) -> bool:
        return a == action or a.startswith(action + " ")

    if result.exact:
        return any(mine(a) for a in result.best_actions)
    lo, hi = result.bounds
    if lo != hi:
        return None
    bounds = [b for a, b in result.action_bounds.items() if mine(a)]
    if not bounds:
        return None
    a_lo, a_hi = bounds[0]
    if a_lo == a_hi == lo:
        return True
    return False if (a_hi < lo or a_lo > lo) else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("file")
    ap.add_argument("--max-nodes", type=int, default=3_000_000_000,
                    help="node cap of each position's search")
    ap.add_argument("--table-log2", type=int, default=24,
                    help="the table's size (32 bytes an entry)")
    args = ap.parse_args(argv)
    from durak_sim.actions import action_str
    from durak_sim.position import Position
    from durak_sim.solve import solve_many

    with open(args.file, encoding="utf-8") as f:
        decisions = [json.loads(line) for line in f if line.strip()]
    results = solve_many((Position.from_dict(d["position"]) for d in decisions),
                         node_cap=args.max_nodes, order_nodes=1,
                         table_log2=args.table_log2)
    counts = {"kept": 0, "left": 0, "open": 0}
    t = time.perf_counter()
    for d, r in zip(decisions, results):
        action = action_str(d["action"])
        v = verdict(r, action)
        counts["kept" if v else "open" if v is None else "left"] += 1
        print(json_line({"deal": d["deal"], "hard_seat": d["hard_seat"], "action": action,
                          "kept": v, "value": r.value, "exact": r.exact,
                          "best_actions": r.best_actions, "nodes": r.nodes,
                          "seconds": round(r.seconds, 2)}), flush=True)
    print(json_line({"bench": "check-unverified", "decisions": len(decisions), **counts,
                      "max_nodes": args.max_nodes, "table_log2": args.table_log2,
                      "wall_s": round(time.perf_counter() - t, 1)}), flush=True)
    return 1 if counts["left"] else 0


if __name__ == "__main__":
    run_script(main)

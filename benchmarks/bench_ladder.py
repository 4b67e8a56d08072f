"""The difficulty ladder: every built-in level against every other over seat-swapped deal pairs.

    python benchmarks/bench_ladder.py [--deals 100000] [--seed 1] [--levels random,easy,normal,hard]

Prints one JSON line per pairing (win / Durak / draw rates of the first level with Wilson 95%
intervals, the paired score with its interval, Elo and LOS, deal pairs per second), then one
line per level with its decision cost: mean ms per decision measured in the kernel (whole games
of the level against itself, one thread, whatever ``--against`` says: ``kernel_against``),
and the mean and 99th percentile of single decisions timed one by one on sampled positions
(``--timed-games`` games on the reference engine, which calls the same compiled decide
function; against itself, or against ``--against LEVEL``).
Finally a ``ladder-summary`` line says whether each adjacent step is clear of 50% and what
hard scores against easy. Compile time is apart.
"""
import argparse
import itertools
import time

import numpy as np

from durak_sim import stats
from durak_sim.bench import first_paragraph, json_line, run_script
from durak_sim.play import play_games
from durak_sim.registry import builtin_levels, get_strategy


def decision_times(name: str, games: int, seed: int, against: str | None = None) -> np.ndarray:
    """Seconds per single decision of ``name``, timed call by call, in games against
    ``against`` (default: itself; else ``name`` takes seat 0 in even deals, seat 1 in odd
    ones, and only its decisions are timed)."""
    from durak_sim.reference import (ReferenceGame, decisions, hist_for_strategy, legal_array,
                                     seat_inputs)

    strat = get_strategy(name)
    other = strat if against is None else get_strategy(against)
    times = []
    for deal in range(games):
        timed = (0, 1) if against is None else (deal % 2,)
        strats = [strat, other] if deal % 2 == 0 else [other, strat]
        game = ReferenceGame.new(seed, deal)
        rngs, mems = seat_inputs(seed, deal, strats, stamp=deal + 1)
        for seat, legal in decisions(game):
            args = (game.observation(seat), legal_array(legal), hist_for_strategy(game),
                    rngs[seat], mems[seat])
            t = time.perf_counter()
            code = int(strats[seat].decide(*args))
            if seat in timed:
                times.append(time.perf_counter() - t)
            game.apply(code)
    return np.array(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=100_000, help="deal pairs per pairing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--levels", default=None, help="comma-separated (default: built-in levels)")
    ap.add_argument("--timed-games", type=int, default=300)
    ap.add_argument("--against", default=None,
                    help="time each level's decisions against this level (default: itself)")
    args = ap.parse_args(argv)
    levels = args.levels.split(",") if args.levels else builtin_levels()

    scores = {}
    for a, b in itertools.combinations(levels, 2):
        hi, lo = (b, a) if levels.index(b) > levels.index(a) else (a, b)  # stronger first
        batch = play_games([hi, lo], seed=args.seed, deals=range(args.deals), threads=args.threads)
        games = batch.frame()
        row = stats.strategy_table(games).set_index("strategy").loc[hi]
        pair = stats.pairing_table(games, order=[hi, lo]).iloc[0]
        scores[(hi, lo)] = row
        print(json_line({
            "bench": "ladder", "a": hi, "b": lo, "deal_pairs": args.deals, "seed": args.seed,
            "games": int(row["games"]), "a_win": round(float(row.win_rate), 5),
            "a_win_lo": round(float(row.win_lo), 5), "a_win_hi": round(float(row.win_hi), 5),
            "a_durak": round(float(row.durak_rate), 5), "a_durak_lo": round(float(row.durak_lo), 5),
            "a_durak_hi": round(float(row.durak_hi), 5), "draw": round(float(row.draw_rate), 5),
            "a_score": round(float(pair.score), 5), "elo": round(float(pair.elo), 2),
            "elo_lo": round(float(pair.elo_lo), 2), "elo_hi": round(float(pair.elo_hi), 2),
            "los": round(float(pair.los), 6), "var_ratio": round(float(pair.var_ratio), 4),
            "deal_pairs_per_s": round(args.deals / batch.seconds, 1),
            "compile_s": round(batch.compile_seconds, 3),
        }), flush=True)

    for name in levels:
        batch = play_games([name, name], seed=args.seed + 1, deals=range(2000), swap=False,
                           threads=1)
        t = decision_times(name, args.timed_games, args.seed + 2, args.against)
        print(json_line({
            "bench": "ladder-decision", "level": name, "against": args.against or name,
            # the kernel figure is always self-play (a batch's time covers both seats)
            "kernel_against": name,
            "kernel_ms_per_decision": round(1000 * batch.seconds / max(1, batch.decisions), 6),
            "kernel_deals_per_s_1thread": round(2000 / batch.seconds, 1),
            "timed_decisions": int(len(t)), "mean_ms": round(1000 * float(t.mean()), 5),
            "p99_ms": round(1000 * float(np.percentile(t, 99)), 5),
            "max_ms": round(1000 * float(t.max()), 5),
        }), flush=True)

    steps = []
    for a, b in zip(levels[1:], levels[:-1]):
        row = scores[(a, b)]
        steps.append({"step": f"{a}>{b}", "win_lo": round(float(row.win_lo), 5),
                      "clear_of_50": bool(row.win_lo > 0.5)})
    summary = {"bench": "ladder-summary", "levels": levels, "steps": steps}
    if ("hard", "easy") in scores:
        summary["hard_vs_easy_win"] = round(float(scores[("hard", "easy")].win_rate), 5)
    print(json_line(summary), flush=True)


if __name__ == "__main__":
    run_script(main)

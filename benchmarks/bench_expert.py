"""The expert AI: its time per decision, and its strength against time at several budgets.

    python benchmarks/bench_expert.py time [--against hard] [--games 200] [--seed 1]
        [--players 2] [--rules podkidnoy]
    python benchmarks/bench_expert.py budgets [--against hard] [--deals 2000] [--seed 1]
        [--budgets expert-fast,expert,expert-deep] [--timed-games 100] [--threads 1]

One JSON line per run, compile time apart (``compile_s``, measured on a warm-up call), the
machine's load average at the start and the end (``load_1m``: other processes share the
cores; per-decision times are only worth quoting when it is low).

``time``: every decision of expert timed one by one (``time.perf_counter`` around the
compiled ``decide``) in ``--games`` games against ``--against`` in every other seat on the
reference engine, at the table of ``--players`` and ``--rules`` (expert in seat ``deal %
players``, as bench_ladder.py does at two): the mean, median, 90th and 99th percentiles and
the maximum, overall and split into searched decisions and the others (hard's exact
endgame, the swap); and the kernel's figure, ``kernel_ms_per_decision``:
``GameBatch.seconds`` over ``R_DECISIONS`` of expert against itself on one thread.

``budgets``: each budget variant (``strategies/expert.py``: ``expert-fast``, ``expert``,
``expert-deep``) plays ``--deals`` seat-swapped deal pairs against ``--against`` (the same
deals for each: a paired comparison), and its decisions are timed as above in
``--timed-games`` games: one line per budget with the score, the paired Elo and its 95%
interval, and the mean and 99th percentile time per decision, so that a user can choose the
trade.
"""
import argparse
import os
import time

import numpy as np

from durak_sim import stats
from durak_sim.bench import first_paragraph, json_line, run_script
from durak_sim.kernel.layout import R_DECISIONS
from durak_sim.observation import O_STOCK
from durak_sim.play import play_games
from durak_sim.registry import get_strategy
from durak_sim.rules import Rules


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def decision_times(name: str, against: str, games: int, seed: int, rules: Rules = Rules()):
    """(seconds, searched) of every decision of ``name`` in ``games`` games against
    ``against`` in the other seats on the reference engine, ``name`` in seat ``deal %
    players``; ``searched``: expert's search ran (another strategy: two cards or more in
    the stock)."""
    from durak_sim.reference import (ReferenceGame, decisions, hist_for_strategy, legal_array,
                                     seat_inputs)
    from durak_sim.strategies.expert import E_SEARCHED

    strat = get_strategy(name).for_rules(rules)
    other = get_strategy(against).for_rules(rules)
    expert = name.startswith("expert")
    times = []
    searched = []
    for deal in range(games):
        me = deal % rules.players
        strats = [other] * rules.players
        strats[me] = strat
        game = ReferenceGame.new(seed, deal, rules)
        rngs, mems = seat_inputs(seed, deal, strats, stamp=deal + 1)
        for seat, legal in decisions(game):
            obs = game.observation(seat)
            args = (obs, legal_array(legal), hist_for_strategy(game), rngs[seat], mems[seat])
            before = int(mems[seat][E_SEARCHED]) if seat == me and expert else 0
            t = time.perf_counter()
            code = int(strats[seat].decide(*args))
            if seat == me:
                times.append(time.perf_counter() - t)
                searched.append(int(mems[seat][E_SEARCHED]) > before if expert
                                else int(obs[O_STOCK]) >= 2)
            game.apply(code)
    return np.array(times), np.array(searched, dtype=bool)


def _summary(t: np.ndarray, prefix: str = "") -> dict:
    if len(t) == 0:
        return {f"{prefix}decisions": 0}
    return {f"{prefix}decisions": int(len(t)),
            f"{prefix}mean_ms": round(1000 * float(t.mean()), 4),
            f"{prefix}p50_ms": round(1000 * float(np.percentile(t, 50)), 4),
            f"{prefix}p90_ms": round(1000 * float(np.percentile(t, 90)), 4),
            f"{prefix}p99_ms": round(1000 * float(np.percentile(t, 99)), 4),
            f"{prefix}max_ms": round(1000 * float(t.max()), 4)}


def _warm(name: str, against: str, rules: Rules = Rules()) -> float:
    """Compile (or load) both strategies and the kernel: the seconds it took."""
    t = time.perf_counter()
    play_games([name] + [against] * (rules.players - 1), seed=0, deals=range(1), threads=1,
               rules=rules)
    return time.perf_counter() - t


def run_time(args) -> dict:
    load0 = _load()
    rules = Rules(variant=args.rules, players=args.players)   # (None: the ruleset's size)
    compile_s = _warm(args.strategy, args.against, rules)
    t, searched = decision_times(args.strategy, args.against, args.games, args.seed, rules)
    self_play = play_games([args.strategy] * rules.players, seed=args.seed + 1,
                           deals=range(args.kernel_deals), swap=False, threads=1, rules=rules)
    decisions = int(self_play.results[:, R_DECISIONS].sum())
    line = {"bench": "expert-time", "strategy": args.strategy, "against": args.against,
            "rules": rules.tag, "games": args.games, "seed": args.seed, **_summary(t),
            **_summary(t[searched], "search_"), **_summary(t[~searched], "endgame_"),
            "kernel_deals": args.kernel_deals,
            "kernel_ms_per_decision": round(1000 * self_play.seconds / max(1, decisions), 4),
            "compile_s": round(compile_s, 3), "load_1m_start": load0, "load_1m_end": _load(),
            "cpus": os.cpu_count()}
    return line


def run_budgets(args):
    from durak_sim.registry import load_builtins

    load_builtins()   # (durak_sim.strategies importable also from a source tree)
    from durak_sim.strategies import expert

    expert.register_budget_variants()
    samples = {"expert-fast": expert.FAST_SAMPLES, "expert": expert.SAMPLES,
               "expert-deep": expert.DEEP_SAMPLES}
    for name in args.budgets.split(","):
        load0 = _load()
        compile_s = _warm(name, args.against)
        batch = play_games([name, args.against], seed=args.seed, deals=range(args.deals),
                           threads=args.threads)
        pair = stats.pairing_table(batch.frame(), order=[name, args.against]).iloc[0]
        t, _ = decision_times(name, args.against, args.timed_games, args.seed + 1)
        yield {"bench": "expert-budget", "strategy": name, "samples": samples.get(name),
               "against": args.against, "deal_pairs": args.deals, "seed": args.seed,
               "score": round(float(pair.score), 5), "elo": round(float(pair.elo), 2),
               "elo_lo": round(float(pair.elo_lo), 2), "elo_hi": round(float(pair.elo_hi), 2),
               "match_seconds": round(batch.seconds, 2), "threads": args.threads,
               "timed_games": args.timed_games, **_summary(t),
               "compile_s": round(compile_s, 3), "load_1m_start": load0,
               "load_1m_end": _load()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    sub = ap.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("time", help="time per decision")
    a.add_argument("--strategy", default="expert")
    a.add_argument("--against", default="hard")
    a.add_argument("--games", type=int, default=200)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--kernel-deals", type=int, default=200,
                   help="self-play deals for the kernel's mean (one thread)")
    a.add_argument("--players", type=int, default=None, help="default: the ruleset's")
    a.add_argument("--rules", default="podkidnoy", help="a ruleset's name (docs/rulesets.md)")
    b = sub.add_parser("budgets", help="score against time at several budgets")
    b.add_argument("--budgets", default="expert-fast,expert,expert-deep")
    b.add_argument("--against", default="hard")
    b.add_argument("--deals", type=int, default=2000, help="deal pairs per budget")
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--timed-games", type=int, default=100)
    b.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.mode == "time":
        print(json_line(run_time(args)), flush=True)
    else:
        for line in run_budgets(args):
            print(json_line(line), flush=True)


if __name__ == "__main__":
    run_script(main)

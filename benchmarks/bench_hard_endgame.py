"""Hard never leaves a won endgame (issue 3, RULES.md R10.4), and how often its search cap bites.

    python benchmarks/bench_hard_endgame.py [--deals 10000] [--opponent normal] [--seed 11]
                                            [--jobs 2] [--verify-cap 20000000]
                                            [--dump-capped FILE] [--dump-decisions FILE]

Plays ``--deals`` deals twice (hard in seat 0, then in seat 1) against ``--opponent`` on the
reference engine, which calls hard's compiled ``decide`` exactly as the kernel does (same
observation, history, random stream and workspace). At every hard decision with the stock at
most the face-up trump (the endgame, where hard must play perfectly):

* the position's value is solved independently (a fresh solver table of its own, no help
  from hard's table), then hard decides, then the value of the position its action leads to
  is solved the same way: the decision **keeps** the value when both are equal (a move can
  never improve the value, so "left" means a won or drawn endgame thrown away);
* hard's own search reports whether its node cap (``strategies/hard.py`` ``NODE_CAP``) was
  hit: ``cap_hits`` counts those decisions (target: under 0.1% of endgame decisions), with
  ``cap_hit_rate_ci95`` (bootstrap over whole deals: hits cluster in a deal's endgame) and
  ``deals_with_cap_hits``;
* the decision is timed (``decide`` alone).

``--dump-capped FILE`` writes the position of every capped decision (before hard's move) to
FILE, one ``durak-sim/position/1`` object a line in deal order, for ``durak-sim solve FILE``.
``--dump-decisions FILE`` writes every endgame decision of hard (before its move) in play
order, one ``{"deal", "hard_seat", "action", "position"}`` object a line (``action``: hard's
code, ``durak_sim.actions``). It is a fixed log of real endgame calls, which
``bench_solver.py --replay FILE`` solves again in order, one table per game as hard has it:
node counts then compare two solver versions exactly on the same positions (hard's own play,
and so the positions it reaches, changes with its solver).

The independent solves get ``--verify-cap`` nodes each (0: none); a decision whose check
ran out of nodes is counted ``unverified``, never as kept. Prints one JSON line; the exit
code is 1 when any decision left the value.
"""
from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from durak_sim.solve import kernel_position

HARD = "hard"


def _value(game, solver, tt, stamp, cap, stats) -> int | None:
    """Seat 0's value of the reference game's position (None when the cap stopped it)."""
    if game.is_over():
        r = game.result()
        return 0 if r["durak"] is None else (1 if r["durak"] == 1 else -1)
    i64 = np.int64
    v = solver.solve_value(*kernel_position(game), tt, i64(stamp), i64(cap), stats)
    return None if stats[1] else int(v)


def _position(game):
    """The reference game's position (spec/position.md)."""
    from durak_sim.position import Position

    return Position(trump_suit=game.trump_suit, hands=(game.hands[0], game.hands[1]),
                    stock=tuple(game.stock), attacker=game.attacker,
                    table=tuple((a, d) for a, d in game.table), taking=bool(game.taking),
                    bout_limit=game.bout_limit if game.table else None)


def run(args: tuple) -> dict:
    """One worker: the deals ``lo..hi-1`` of the seed, both seatings."""
    seed, lo, hi, opponent, verify_cap, log2, dump_all = args
    from durak_sim.kernel import solver
    from durak_sim.observation import O_STOCK
    from durak_sim.reference import (ReferenceGame, decisions, hist_for_strategy, legal_array,
                                     seat_inputs)
    from durak_sim.registry import get_strategy
    from durak_sim.strategies import hard

    strategies = {HARD: get_strategy(HARD), opponent: get_strategy(opponent)}
    tt = solver.new_table(log2)
    stats = np.zeros(solver.STATS_SIZE, np.int64)
    stamp = 0
    out = {"games": 0, "endgame_decisions": 0, "cap_hits": 0, "kept": 0, "left": 0,
           "left_uncapped": 0, "unverified": 0, "hard_wins": 0, "times": [],
           "left_examples": [], "deal_decisions": [], "deal_caps": [], "capped_positions": [],
           "decisions": []}
    for deal in range(lo, hi):
        decisions0, caps0 = out["endgame_decisions"], out["cap_hits"]
        for hard_seat in (0, 1):
            names = [HARD, opponent] if hard_seat == 0 else [opponent, HARD]
            game = ReferenceGame.new(seed, deal)
            # one game stamp per game, as the engine gives
            rngs, mems = seat_inputs(seed, deal, [strategies[n] for n in names],
                                     stamp=2 * deal + hard_seat + 1)
            for seat, legal in decisions(game):
                obs = game.observation(seat)
                endgame = names[seat] == HARD and obs[O_STOCK] <= 1
                if endgame:
                    stamp += 1
                    before = _value(game, solver, tt, stamp, verify_cap, stats)
                t = time.perf_counter()
                code = int(strategies[names[seat]].decide(
                    obs, legal_array(legal), hist_for_strategy(game), rngs[seat], mems[seat]))
                dt = time.perf_counter() - t
                capped = endgame and int(mems[seat][hard.M_STATS + 1] != 0)
                if capped:
                    out["capped_positions"].append(_position(game).to_json())
                if endgame and dump_all:
                    out["decisions"].append(json.dumps(
                        {"deal": deal, "hard_seat": hard_seat, "action": code,
                         "position": _position(game).to_dict()}))
                game.apply(code)
                if endgame:
                    out["endgame_decisions"] += 1
                    out["times"].append(dt)
                    out["cap_hits"] += capped
                    stamp += 1
                    after = _value(game, solver, tt, stamp, verify_cap, stats)
                    if before is None or after is None:
                        out["unverified"] += 1
                    elif before == after:
                        out["kept"] += 1
                    else:
                        # only a search stopped by its cap may leave the value: count apart
                        out["left"] += 1
                        out["left_uncapped"] += 1 - capped
                        if len(out["left_examples"]) < 5:
                            out["left_examples"].append(
                                {"seed": seed, "deal": deal, "hard_seat": hard_seat,
                                 "action": code, "before": before, "after": after,
                                 "capped": bool(capped)})
            out["games"] += 1
            r = game.result()
            out["hard_wins"] += int(r["durak"] is not None and r["durak"] != hard_seat)
        out["deal_decisions"].append(out["endgame_decisions"] - decisions0)
        out["deal_caps"].append(out["cap_hits"] - caps0)
    return out


def rate_interval(caps: np.ndarray, decisions: np.ndarray, n_boot: int = 2000,
                  seed: int = 0) -> list[float]:
    """95% percentile-bootstrap interval of ``caps.sum() / decisions.sum()``, resampling
    whole deals: a deal's endgame decisions (both seatings, one search table per game)
    share its positions, so cap hits come in clusters and a binomial interval would be
    too narrow."""
    rng = np.random.default_rng(seed)
    n = len(caps)
    if n == 0 or decisions.sum() == 0:
        return [float("nan"), float("nan")]
    w = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot)  # resampled deal counts
    rates = (w @ caps) / np.maximum(w @ decisions, 1)
    lo, hi = np.percentile(rates, [2.5, 97.5])
    return [round(float(lo), 6), round(float(hi), 6)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--opponent", default="normal")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--verify-cap", type=int, default=20_000_000,
                    help="node cap of each independent check (0: none)")
    ap.add_argument("--tt-log2", type=int, default=20, help="the checker's table size")
    ap.add_argument("--dump-capped", metavar="FILE", default=None,
                    help="write the capped decisions' positions here (JSON Lines)")
    ap.add_argument("--dump-decisions", metavar="FILE", default=None,
                    help="write every endgame decision here, in play order (JSON Lines, "
                         "for bench_solver.py --replay)")
    args = ap.parse_args(argv)

    # load (or compile) everything once before the workers start, and time it apart
    t = time.perf_counter()
    run((args.seed, 0, 1, args.opponent, args.verify_cap, args.tt_log2, False))
    compile_s = time.perf_counter() - t

    jobs = max(1, args.jobs)
    cuts = np.linspace(0, args.deals, jobs + 1).astype(int)
    parts = [(args.seed, int(a), int(b), args.opponent, args.verify_cap, args.tt_log2,
              args.dump_decisions is not None)
             for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    t = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(run, parts))
    wall = time.perf_counter() - t
    total = {k: sum(r[k] for r in results) for k in
             ("games", "endgame_decisions", "cap_hits", "kept", "left", "left_uncapped",
              "unverified", "hard_wins")}
    times = np.concatenate([np.array(r["times"], float) for r in results]) * 1000
    deal_caps = np.concatenate([np.array(r["deal_caps"], np.int64) for r in results])
    deal_decisions = np.concatenate([np.array(r["deal_decisions"], np.int64)
                                     for r in results])
    n = max(1, total["endgame_decisions"])
    line = {"bench": "hard-endgame", "opponent": args.opponent, "seed": args.seed,
            "deals": args.deals, **total,
            "cap_hit_rate": round(total["cap_hits"] / n, 6),
            "cap_hit_rate_ci95": rate_interval(deal_caps, deal_decisions),
            "deals_with_cap_hits": int((deal_caps > 0).sum()),
            "hard_win_rate": round(total["hard_wins"] / max(1, total["games"]), 5),
            "endgame_mean_ms": round(float(times.mean()), 4) if len(times) else None,
            "endgame_p99_ms": round(float(np.percentile(times, 99)), 4) if len(times) else None,
            "endgame_max_ms": round(float(times.max()), 2) if len(times) else None,
            "verify_cap": args.verify_cap, "wall_s": round(wall, 1),
            "compile_s": round(compile_s, 2),
            "left_examples": [e for r in results for e in r["left_examples"]][:5]}
    print(json.dumps(line), flush=True)
    if args.dump_capped:
        with open(args.dump_capped, "w", encoding="utf-8") as f:
            f.writelines(p + "\n" for r in results for p in r["capped_positions"])
    if args.dump_decisions:
        with open(args.dump_decisions, "w", encoding="utf-8") as f:
            f.writelines(p + "\n" for r in results for p in r["decisions"])
    return 1 if total["left"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Hard never leaves a won endgame (issue 3, docs/rules.md R10.4), and how often its search
cap bites.

    python benchmarks/bench_hard_endgame.py [--deals 10000] [--opponent normal] [--seed 11]
                                            [--jobs 2] [--verify-cap 20000000]
                                            [--tt-log2 20] [--retry-cap 0] [--retry-log2 22]
                                            [--rules NAME] [--players N] [--lead-multiple]
                                            [--rotate]
                                            [--dump-capped FILE] [--dump-decisions FILE]
                                            [--dump-unverified FILE]

Plays ``--deals`` deals once for each seat of hard (two players: hard in seat 0, then in
seat 1; ``--rotate``: one game a deal, hard in seat ``deal % players``) against
``--opponent`` in every other seat, on the reference engine, which calls
hard's compiled ``decide`` exactly as the kernel does (same observation, history, random
stream and workspace). ``--rules``, ``--players`` and ``--lead-multiple`` set the ruleset
(default: the two-player default game). At every hard decision of an endgame hard plays
exactly (two seats still playing, the stock at most the face-up trump, not prostoy: the
two-player endgames of every table, ``strategies/hard.py``):

* the position's value (from the view of the lower of the two seats left) is solved
  independently by the solver hard uses there (the plain solver, or the variant search for
  transfers and multi-card leads) (a fresh solver table of its own, no help
  from hard's table), then hard decides, then the value of the position its action leads to
  is solved the same way: the decision **keeps** the value when both are equal (a move can
  never improve the value, so "left" means a won or drawn endgame thrown away);
* hard's own search reports whether its node cap (``strategies/hard.py`` ``NODE_CAP``) was
  hit: ``cap_hits`` counts those decisions (target: under 0.1% of endgame decisions), with
  ``cap_hit_rate_ci95`` (bootstrap over whole deals: hits cluster in a deal's endgame) and
  ``deals_with_cap_hits``; ``by_cards``: ``[cards, decisions, cap_hits]`` per count of the
  cards left in play (both hands and the table), where the search's limits lie;
* the decision is timed (``decide`` alone).

The line names the ruleset (``rules``). ``--dump-capped FILE`` writes the position of every capped decision (before hard's move) to
FILE, one ``durak-sim/position/1`` object a line in deal order, for ``durak-sim solve FILE``.
``--dump-decisions FILE`` writes every endgame decision of hard (before its move) in play
order, one ``{"deal", "hard_seat", "action", "position"}`` object a line (``action``: hard's
code, ``durak_sim.actions``). It is a fixed log of real endgame calls, which
``bench_solver.py --replay FILE`` solves again in order, one table per game as hard has it:
node counts then compare two solver versions exactly on the same positions (hard's own play,
and so the positions it reaches, changes with its solver).

The independent solves get ``--verify-cap`` nodes each (0: none). A decision whose own
search was not capped but whose check ran out of nodes is checked again with
``--retry-cap`` nodes and a table of ``2**--retry-log2`` entries (``verified_on_retry``);
a decision whose check still ran out is counted ``unverified``, never as kept
(``unverified_uncapped``: those of them whose own search was not capped;
``--dump-unverified FILE`` writes these in ``--dump-decisions``' form, for
``benchmarks/check_unverified.py``, which checks hard's action against the optimal set).
Prints one JSON line; the exit code is 1 when any decision left the value.
"""
from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from durak_sim.bench import first_paragraph, json_line, run_script


HARD = "hard"


def _two_left(game) -> tuple[int, int] | None:
    """The two seats still playing (lower first), None when more are."""
    live = [s for s in range(game.n) if s not in game.out]
    return (live[0], live[1]) if len(live) == 2 else None


def _solver_args(game):
    """``(variant, args)``: which search plays the two-seat endgame and its position
    arguments (the plain solver's ten; the variant search adds the ruleset and the lead)."""
    from durak_sim.observation import PHASE_LEAD
    from durak_sim.rules import FLAG_LEAD_MULTIPLE, FLAG_TRANSFER

    lo, hi = _two_left(game)
    stock = np.zeros(max(1, len(game.stock)), np.int64)
    stock[:len(game.stock)] = game.stock
    table = np.full(12, -1, np.int64)
    for i, (a, d) in enumerate(game.table):
        table[2 * i], table[2 * i + 1] = a, d
    i64 = np.int64
    args = (i64(game.hands[lo]), i64(game.hands[hi]), i64(game.trump_suit), stock,
            i64(len(game.stock)), i64(0 if game.attacker == lo else 1), table,
            i64(len(game.table)), i64(int(game.taking)),
            i64(game.bout_limit if game.table else 0))
    flags = game.rules.flags
    if flags & (FLAG_LEAD_MULTIPLE | FLAG_TRANSFER):
        return True, args + (i64(flags), i64(int(game.phase == PHASE_LEAD)))
    return False, args


def _value(game, seats, tt, stamp, cap, stats) -> int | None:
    """The value of the reference game's position from the view of ``seats[0]`` (against
    ``seats[1]``; None when the cap stopped it)."""
    from durak_sim.kernel import solver, vsolver

    if game.is_over():
        r = game.result()
        if game.rules.teams:
            team = r.get("durak_team")
            return 0 if team is None else (-1 if team == seats[0] & 1 else 1)
        return 0 if r["durak"] is None else (1 if r["durak"] == seats[1] else -1)
    i64 = np.int64
    variant, args = _solver_args(game)
    if variant:
        out = np.zeros(vsolver.OUT_SIZE, np.int64)
        v = vsolver.solve_variant(*args, tt, i64(stamp), i64(cap), i64(0), out, stats)
    else:
        v = solver.solve_value(*args, tt, i64(stamp), i64(cap), stats)
    return None if stats[1] else int(v)


def run(args: tuple) -> dict:
    """One worker: the deals ``lo..hi-1`` of the seed, every seating of hard."""
    (seed, lo, hi, opponent, verify_cap, log2, dump_all, rules_dict, rotate, retry_cap,
     retry_log2) = args
    from durak_sim.kernel import solver, vsolver
    from durak_sim.observation import O_STOCK
    from durak_sim.reference import (ReferenceGame, decisions, endgame_position,
                                     hist_for_strategy, legal_array, seat_inputs)
    from durak_sim.registry import get_strategy
    from durak_sim.rules import Rules
    from durak_sim.registry import load_builtins

    load_builtins()   # (durak_sim.strategies importable also from a source tree)
    from durak_sim.strategies import hard

    rules = Rules.from_dict(rules_dict)
    n = rules.players
    strategies = {HARD: get_strategy(HARD), opponent: get_strategy(opponent)}
    tt = vsolver.new_table(log2)  # serves both searches
    big = None                    # the retries' table, made at the first retry
    stats = np.zeros(solver.STATS_SIZE, np.int64)
    stamp = 0
    out = {"games": 0, "endgame_decisions": 0, "cap_hits": 0, "kept": 0, "left": 0,
           "left_uncapped": 0, "unverified": 0, "unverified_uncapped": 0,
           "verified_on_retry": 0, "hard_wins": 0,
           "hard_durak": 0, "times": [],
           "left_examples": [], "deal_decisions": [], "deal_caps": [], "capped_positions": [],
           "decisions": [], "unverified_positions": [], "by_cards": {}}
    for deal in range(lo, hi):
        decisions0, caps0 = out["endgame_decisions"], out["cap_hits"]
        for hard_seat in ([deal % n] if rotate else range(n)):
            names = [HARD if s == hard_seat else opponent for s in range(n)]
            game = ReferenceGame.new(seed, deal, rules)
            # one game stamp per game, as the engine gives
            rngs, mems = seat_inputs(seed, deal, [strategies[x] for x in names],
                                     stamp=n * deal + hard_seat + 1)
            for seat, legal in decisions(game):
                obs = game.observation(seat)
                seats = _two_left(game)
                endgame = (names[seat] == HARD and obs[O_STOCK] <= 1 and seats is not None
                           and not rules.prostoy)
                if endgame:
                    stamp += 1
                    before = _value(game, seats, tt, stamp, verify_cap, stats)
                    position = endgame_position(game)
                    pre = game.copy() if before is None and retry_cap else None
                t = time.perf_counter()
                code = int(strategies[names[seat]].decide(
                    obs, legal_array(legal), hist_for_strategy(game), rngs[seat], mems[seat]))
                dt = time.perf_counter() - t
                capped = endgame and int(mems[seat][hard.M_STATS + 1] != 0)
                if capped:
                    out["capped_positions"].append(json.dumps(position))
                if endgame and dump_all:
                    out["decisions"].append(json.dumps(
                        {"deal": deal, "hard_seat": hard_seat, "action": code,
                         "position": position}))
                game.apply(code)
                if endgame:
                    out["endgame_decisions"] += 1
                    out["times"].append(dt)
                    out["cap_hits"] += capped
                    cards = sum(map(len, position["hands"])) + sum(
                        c is not None for pair in position["table"] for c in pair)
                    row = out["by_cards"].setdefault(cards, [0, 0])
                    row[0] += 1
                    row[1] += capped
                    stamp += 1
                    after = _value(game, seats, tt, stamp, verify_cap, stats)
                    if retry_cap and not capped and (before is None or after is None):
                        big = vsolver.new_table(retry_log2) if big is None else big
                        if before is None:
                            stamp += 1
                            before = _value(pre, seats, big, stamp, retry_cap, stats)
                        if after is None:
                            stamp += 1
                            after = _value(game, seats, big, stamp, retry_cap, stats)
                        out["verified_on_retry"] += int(before is not None
                                                        and after is not None)
                    if before is None or after is None:
                        out["unverified"] += 1
                        out["unverified_uncapped"] += 1 - capped
                        if not capped:
                            out["unverified_positions"].append(json.dumps(
                                {"deal": deal, "hard_seat": hard_seat, "action": code,
                                 "position": position}))
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
                                 "capped": bool(capped), "position": position})
            out["games"] += 1
            r = game.result()
            if rules.teams:
                lost = r.get("durak_team") == hard_seat & 1
                won = r.get("durak_team") is not None and not lost
            else:
                lost = r["durak"] == hard_seat
                won = r["out_order"][:1] == [hard_seat] and r["durak"] is not None
            out["hard_wins"] += int(won if n > 2 or rules.teams else
                                    (r["durak"] is not None and r["durak"] != hard_seat))
            out["hard_durak"] += int(lost)
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
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--opponent", default="normal")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--verify-cap", type=int, default=20_000_000,
                    help="node cap of each independent check (0: none)")
    ap.add_argument("--tt-log2", type=int, default=20, help="the checker's table size")
    ap.add_argument("--retry-cap", type=int, default=0,
                    help="node cap of a second check of an uncapped decision whose check "
                         "ran out (0: none)")
    ap.add_argument("--dump-unverified", metavar="FILE", default=None,
                    help="write the uncapped decisions left unverified here (JSON Lines)")
    ap.add_argument("--retry-log2", type=int, default=22,
                    help="the second check's table size")
    ap.add_argument("--rules", default="podkidnoy", help="the ruleset (docs/rulesets.md)")
    ap.add_argument("--players", type=int, default=None, help="seats (default: the ruleset's)")
    ap.add_argument("--lead-multiple", action="store_true", help="multi-card leads (R8.1)")
    ap.add_argument("--rotate", action="store_true",
                    help="one game a deal, hard in seat deal %% players (default: a game for "
                         "each seat of hard)")
    ap.add_argument("--dump-capped", metavar="FILE", default=None,
                    help="write the capped decisions' positions here (JSON Lines)")
    ap.add_argument("--dump-decisions", metavar="FILE", default=None,
                    help="write every endgame decision here, in play order (JSON Lines, "
                         "for bench_solver.py --replay)")
    args = ap.parse_args(argv)
    from durak_sim.rules import Rules

    rules = Rules(variant=args.rules, players=args.players,
                  lead_multiple=True if args.lead_multiple else None).to_dict()

    # load (or compile) everything once before the workers start, and time it apart
    t = time.perf_counter()
    run((args.seed, 0, 1, args.opponent, args.verify_cap, args.tt_log2, False, rules,
         args.rotate, 0, args.retry_log2))
    compile_s = time.perf_counter() - t

    jobs = max(1, args.jobs)
    cuts = np.linspace(0, args.deals, jobs + 1).astype(int)
    parts = [(args.seed, int(a), int(b), args.opponent, args.verify_cap, args.tt_log2,
              args.dump_decisions is not None, rules, args.rotate, args.retry_cap,
              args.retry_log2)
             for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    t = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(run, parts))
    wall = time.perf_counter() - t
    total = {k: sum(r[k] for r in results) for k in
             ("games", "endgame_decisions", "cap_hits", "kept", "left", "left_uncapped",
              "unverified", "unverified_uncapped", "verified_on_retry", "hard_wins",
              "hard_durak")}
    times = np.concatenate([np.array(r["times"], float) for r in results]) * 1000
    deal_caps = np.concatenate([np.array(r["deal_caps"], np.int64) for r in results])
    deal_decisions = np.concatenate([np.array(r["deal_decisions"], np.int64)
                                     for r in results])
    n = max(1, total["endgame_decisions"])
    by_cards: dict = {}
    for r in results:
        for cards, (dec, caps) in r["by_cards"].items():
            row = by_cards.setdefault(cards, [0, 0])
            row[0] += dec
            row[1] += caps
    line = {"bench": "hard-endgame", "rules": Rules.from_dict(rules).tag,
            "opponent": args.opponent, "seed": args.seed,
            "deals": args.deals, "rotate": args.rotate, **total,
            "cap_hit_rate": round(total["cap_hits"] / n, 6),
            "cap_hit_rate_ci95": rate_interval(deal_caps, deal_decisions),
            "deals_with_cap_hits": int((deal_caps > 0).sum()),
            "by_cards": [[c, *by_cards[c]] for c in sorted(by_cards)],
            "hard_win_rate": round(total["hard_wins"] / max(1, total["games"]), 5),
            "hard_durak_rate": round(total["hard_durak"] / max(1, total["games"]), 5),
            "endgame_mean_ms": round(float(times.mean()), 4) if len(times) else None,
            "endgame_p99_ms": round(float(np.percentile(times, 99)), 4) if len(times) else None,
            "endgame_max_ms": round(float(times.max()), 2) if len(times) else None,
            "verify_cap": args.verify_cap, "retry_cap": args.retry_cap,
            "wall_s": round(wall, 1),
            "compile_s": round(compile_s, 2),
            "left_examples": [e for r in results for e in r["left_examples"]][:5]}
    print(json_line(line), flush=True)
    if args.dump_capped:
        with open(args.dump_capped, "w", encoding="utf-8") as f:
            f.writelines(p + "\n" for r in results for p in r["capped_positions"])
    for path, key in ((args.dump_decisions, "decisions"),
                      (args.dump_unverified, "unverified_positions")):
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(p + "\n" for r in results for p in r[key])
    return 1 if total["left"] else 0


if __name__ == "__main__":
    run_script(main)

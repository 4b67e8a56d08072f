"""Benchmark of the endgame solver on realistic endgames.

Positions: deals are shuffled with a seeded ``random.Random`` and played from the start by a
simple greedy policy for both seats (plain Python, below) until the stock holds at most one
card (the face-up trump) at the start of a bout, the moment the hard AI first calls the solver.
That position is solved. The greedy policy is docs/rules.md R10.2 "easy" with a little noise:
open with the lowest non-trump (sometimes a random card), defend with the lowest beater unless
it is a trump worth keeping, throw in matching non-trumps below a queen, take otherwise. Deals
that end before the stock runs down are skipped.

``--playout`` instead plays every endgame to the end with the solver choosing for both seats
(through the reference engine, one stamp per deal, as the hard AI would) and times whole deals.

Prints one JSON line per run:
``{"bench": "solver", "positions": N, "mean_ms": ..., "p50_ms": ..., "p99_ms": ...,
"max_ms": ..., "mean_nodes": ..., "compile_s": ...}`` (compile/cache-load time of the first
call is measured apart and left out of the rest). ``--mode`` picks what is asked of the solver
(default ``one``: the value and one action, the hard AI's call); ``--by-size`` adds one line
per stock size and per card count in the two hands; ``--tt-log2`` sets the table size;
``--repeat R`` keeps each position's fastest of R solves (a busy machine's noise).

``--replay FILE`` instead solves the lines of FILE again, in order: a log of hard's real
endgame calls (``bench_hard_endgame.py --dump-decisions FILE``: one table stamp per game, as
hard has it, so each call finds what the game's earlier calls stored) or plain positions
(``durak-sim/position/1``, each a game of its own), of any ruleset and table hard searches
(a log of the transfer game or multi-card leads replays on the variant search). The node cap
and the table default to hard's for the log's ruleset (``strategies/hard.py``: ``NODE_CAP``
and ``LOG2_TT`` in the default game, ``GENERAL_NODE_CAP`` and ``LOG2_TT_GENERAL`` elsewhere),
the mode to hard's call.
Node counts and answers do not depend on the machine, so two solver versions compare
exactly on the same log: ``answers_sha256`` digests every exact value (capped calls as
``null``), ``--answers OUT`` writes one ``[value, action, nodes, capped]`` line per call.
``same_actions`` counts the calls whose action is the one the log says hard took: with the
solver that wrote the log and hard's settings, every one (the replay is hard's search).
Prints one JSON line: nodes, cap hits, the share of nodes in the costliest 1% of calls, and
solve time (per call and per node; machine-dependent).

    python benchmarks/bench_solver.py --positions 2000 --seed 1 --repeat 3 --by-size
    python benchmarks/bench_solver.py --positions 1000 --playout --node-cap 200000
    python benchmarks/bench_hard_endgame.py --deals 4000 --dump-decisions log.jsonl
    python benchmarks/bench_solver.py --replay log.jsonl
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time

import numpy as np

from durak_sim.bench import first_paragraph, json_line, run_script


def _say_if_cold(variant: bool) -> None:
    """On stderr, before a cold compile of a search, what ``durak-sim solve`` says (it is
    timed apart here, as ``compile_s``)."""
    from durak_sim.warm import search_notice

    notice = search_notice(variant)
    if notice is not None:
        print(f"bench_solver: {notice}", file=sys.stderr, flush=True)


def _beats(c: int, o: int, trump: int) -> bool:
    if c & 3 == o & 3:
        return c >> 2 > o >> 2
    return c & 3 == trump


def _cards(mask: int) -> list[int]:
    return [c for c in range(36) if mask >> c & 1]


def _greedy(rng: random.Random, hand: int, table: list, phase: str, unbeaten: int,
            trump: int, room: bool) -> int:
    """Action code (attack c, defend 36+c, take 72, stop 73) of the greedy policy."""
    cards = _cards(hand)
    key = lambda c: (c & 3 == trump, c >> 2)  # noqa: E731 - non-trumps first, low first
    if phase == "open":
        if rng.random() < 0.15:
            return rng.choice(cards)
        return min(cards, key=key)
    if phase == "defend":
        beaters = [c for c in cards if _beats(c, unbeaten, trump)]
        if not beaters:
            return 72
        c = min(beaters, key=key)
        if c & 3 == trump and c >> 2 >= 6 and rng.random() < 0.5:
            return 72
        return 36 + c
    ranks = {x >> 2 for pair in table for x in pair if x >= 0}
    if room:
        throw = [c for c in cards if c >> 2 in ranks and c & 3 != trump and c >> 2 < 6]
        if throw and rng.random() < 0.8:
            return min(throw, key=key)
    return 73


def generate(n: int, seed: int, max_stock: int = 1) -> list[dict]:
    """``n`` endgame positions (kernel-ready dicts) from greedy self-play deals."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck = list(range(36))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[0:6]), sum(1 << c for c in deck[6:12])]
        stock = deck[12:]
        trump = stock[-1] & 3
        low = [min((c for c in _cards(h) if c & 3 == trump), default=99) for h in hands]
        att = 0 if low[0] <= low[1] else 1
        while True:
            if len(stock) <= max_stock:
                out.append(dict(hands=tuple(hands), stock=tuple(stock), trump=trump, attacker=att))
                break
            d = 1 - att
            table: list[list[int]] = []
            limit = min(6, bin(hands[d]).count("1"))
            taking = False
            c = _greedy(rng, hands[att], table, "open", -1, trump, True)
            hands[att] ^= 1 << c
            table.append([c, -1])
            while True:
                if not taking:
                    a = _greedy(rng, hands[d], table, "defend", table[-1][0], trump, True)
                    if a == 72:
                        taking = True
                    else:
                        hands[d] ^= 1 << (a - 36)
                        table[-1][1] = a - 36
                room = len(table) < limit and hands[att] != 0
                a = _greedy(rng, hands[att], table, "attack", -1, trump, room)
                if a == 73:
                    break
                hands[att] ^= 1 << a
                table.append([a, -1])
            if taking:
                for x, y in table:
                    hands[d] |= 1 << x | ((1 << y) if y >= 0 else 0)
            for seat in (att, d):
                while stock and bin(hands[seat]).count("1") < 6:
                    hands[seat] |= 1 << stock.pop(0)
            if not stock and (hands[0] == 0 or hands[1] == 0):
                break
            att = att if taking else d
    return out


def _position_dict(p: dict) -> dict:
    from durak_sim.cards import card_str, mask_cards

    return {"format": "durak-sim/position/1", "trump": "SCDH"[p["trump"]],
            "hands": [[card_str(c) for c in mask_cards(h)] for h in p["hands"]],
            "stock": [card_str(c) for c in p["stock"]], "attacker": p["attacker"]}


def _setup(args, stock_words: int) -> tuple:
    """The positions and the solver's buffers: table, out, stats, a bout table, a stock."""
    from durak_sim.kernel import solver

    return (generate(args.positions, args.seed, args.max_stock), solver.new_table(args.tt_log2),
            np.zeros(solver.OUT_SIZE, np.int64), np.zeros(solver.STATS_SIZE, np.int64),
            np.full(12, -1, np.int64), np.zeros(stock_words, np.int64))


def playout(args) -> None:
    """Every endgame played out by the solver for both seats through the reference engine;
    each decision's arguments come from the acting seat's observation, the other hand from
    the other seat's (what the hard AI infers once the stock holds at most the trump)."""
    from durak_sim import observation as O
    from durak_sim.kernel import solver
    from durak_sim.reference import ReferenceGame

    positions, tt, out, stats, table, stock = _setup(args, 1)
    i64 = np.int64

    def decide(g, stamp):
        seat = g.to_move()
        obs = g.observation(seat)
        other = g.observation(1 - seat)[O.O_HAND]
        hands = (obs[O.O_HAND], other) if seat == 0 else (other, obs[O.O_HAND])
        n = int(obs[O.O_N_ATTACKS])
        table[:2 * n] = obs[O.O_TABLE:O.O_TABLE + 2 * n]
        stock[0] = obs[O.O_TRUMP_CARD]
        call = (i64(hands[0]), i64(hands[1]), i64(obs[O.O_TRUMP_SUIT]), stock,
                i64(obs[O.O_STOCK]), i64(obs[O.O_ATTACKER]), table, i64(n),
                i64(obs[O.O_TAKING]), i64(obs[O.O_BOUT_LIMIT]), tt, i64(stamp),
                i64(args.node_cap), i64(MODES[args.mode]), out, stats)
        t = time.perf_counter()
        solver.solve_root(*call)  # only the solver is timed, not the engine
        return int(out[1]), time.perf_counter() - t

    g0 = ReferenceGame.from_position(_position_dict(positions[0]))
    _say_if_cold(False)
    compile_s = decide(g0, 1)[1]
    n = len(positions)
    first = np.empty(n)
    total = np.empty(n)
    calls = np.empty(n)
    nodes = np.zeros(n)
    first_nodes = np.empty(n)
    capped = 0
    for k, p in enumerate(positions):
        g = ReferenceGame.from_position(_position_dict(p))
        spent = 0.0
        c = 0
        while not g.is_over():
            a, dt = decide(g, k + 2)
            if c == 0:
                first[k] = dt
                first_nodes[k] = stats[0]
            nodes[k] += stats[0]
            spent += dt
            c += 1
            capped += stats[1] != 0
            g.apply(a)
        total[k] = spent
        calls[k] = c
    ms = total * 1e3
    print(json_line({
        "bench": "solver-playout", "deals": n, "mean_deal_ms": round(float(ms.mean()), 4),
        "p50_deal_ms": round(float(np.percentile(ms, 50)), 4),
        "p99_deal_ms": round(float(np.percentile(ms, 99)), 4),
        "max_deal_ms": round(float(ms.max()), 4),
        "mean_first_ms": round(float(first.mean() * 1e3), 4),
        "mean_calls": round(float(calls.mean()), 1),
        "mean_deal_nodes": round(float(nodes.mean()), 1),
        "mean_first_nodes": round(float(first_nodes.mean()), 1),
        "deals_per_s": round(float(n / total.sum()), 1), "compile_s": round(compile_s, 3),
        "mode": args.mode, "tt_log2": args.tt_log2, "node_cap": args.node_cap,
        "capped_calls": int(capped)}))


MODES = {"value": 0, "one": 1, "set": 2, "ordered": 3}


def read_log(path) -> list:
    """A decision log's calls in order: ``(game key, Position, the logged action or None)``.
    Lines of ``--dump-decisions`` carry their deal and seat (the game key); a bare position
    line is a game of its own."""
    from durak_sim.position import Position

    calls = []
    with open(path, encoding="utf-8") as f:
        for k, text in enumerate(f):
            if not text.strip():
                continue
            d = json.loads(text)
            if "position" in d:
                calls.append(((d["deal"], d["hard_seat"]), Position.from_dict(d["position"]),
                              d.get("action")))
            else:
                calls.append((("line", k), Position.from_dict(d), None))
    return calls


def replay(args, calls: list) -> None:
    """Solve a log of endgame calls again, in order, one table stamp per game: each call
    with hard's search for it (the variant search for transfers and multi-card leads)."""
    from durak_sim.kernel import solver, vsolver
    from durak_sim.position import Position
    from durak_sim.solve import kernel_position

    tt = (vsolver if args.general else solver).new_table(args.tt_log2)
    out = np.zeros(max(solver.OUT_SIZE, vsolver.OUT_SIZE), np.int64)
    stats = np.zeros(solver.STATS_SIZE, np.int64)
    i64 = np.int64
    mode = i64(MODES[args.mode])
    cap = i64(args.node_cap)

    def run(p, stamp):
        if p.variant:
            return vsolver.solve_variant(*kernel_position(p), i64(p.rules.flags),
                                         i64(int(p.lead)), tt, i64(stamp), cap, mode, out,
                                         stats)
        return solver.solve_root(*kernel_position(p), tt, i64(stamp), cap, mode, out, stats)

    variant = next((p for _, p, _ in calls if p.variant), None)
    _say_if_cold(False)
    if variant is not None:
        _say_if_cold(True)
    t = time.perf_counter()
    run(Position(0, (1, 2)), 1)  # load or compile the kernels
    if variant is not None:
        run(variant, 1)
    compile_s = time.perf_counter() - t
    n = len(calls)
    times = np.zeros(n)
    nodes = np.zeros(n, np.int64)
    capped = np.zeros(n, bool)
    answers = []
    stamps = {}
    logged = same = 0
    for k, (game, p, action) in enumerate(calls):
        stamp = stamps.setdefault(game, len(stamps) + 2)
        t = time.perf_counter()
        v = run(p, stamp)
        times[k] = time.perf_counter() - t
        nodes[k] = stats[0]
        capped[k] = stats[1] != 0
        answers.append([None if capped[k] else int(v), int(out[1]) if out[0] else None,
                        int(nodes[k]), bool(capped[k])])
        if action is not None:
            logged += 1
            same += answers[-1][1] == action
    if args.answers:
        with open(args.answers, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(a) + "\n" for a in answers)
    top = np.sort(nodes)[::-1][:max(1, n // 100)]
    ms = times * 1e3
    total = int(nodes.sum())
    digest = hashlib.sha256(json.dumps([a[0] for a in answers]).encode()).hexdigest()
    print(json_line({
        "bench": "solver-replay", "file": str(args.replay), "calls": n, "games": len(stamps),
        "nodes": total, "cap_hits": int(capped.sum()),
        "top1pct_node_share": round(float(top.sum() / max(1, total)), 4),
        "p50_nodes": int(np.percentile(nodes, 50)) if n else 0,
        "max_nodes": int(nodes.max()) if n else 0,
        "seconds": round(float(times.sum()), 3),
        "ns_per_node": round(float(times.sum() * 1e9 / max(1, total)), 1),
        "mean_ms": round(float(ms.mean()), 4) if n else None,
        "p99_ms": round(float(np.percentile(ms, 99)), 4) if n else None,
        "answers_sha256": digest, "logged_actions": logged, "same_actions": same,
        "mode": args.mode, "node_cap": int(cap),
        "tt_log2": args.tt_log2, "compile_s": round(compile_s, 3)}))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tt-log2", type=int, default=None,
                    help="log2 of the table's entries (default 16; with --replay, hard's)")
    ap.add_argument("--max-stock", type=int, default=1)
    ap.add_argument("--mode", choices=sorted(MODES), default="one",
                    help="value | one (value + one action: the hard AI's call) | set | ordered")
    ap.add_argument("--node-cap", type=int, default=None,
                    help="nodes per call (default: none; with --replay, hard's cap)")
    ap.add_argument("--by-size", action="store_true", help="also one line per card count")
    ap.add_argument("--repeat", type=int, default=1,
                    help="solve the set this many times; each position's time is its fastest "
                         "(filters out a busy machine's interruptions)")
    ap.add_argument("--playout", action="store_true",
                    help="play each endgame to the end with MODE_ONE for both seats (one "
                         "stamp per deal, as the hard AI would) and time whole deals")
    ap.add_argument("--replay", metavar="FILE", default=None,
                    help="solve FILE's endgame calls again in order (module docstring)")
    ap.add_argument("--answers", metavar="OUT", default=None,
                    help="with --replay: one [value, action, nodes, capped] line per call")
    args = ap.parse_args(argv)
    if args.replay:
        from durak_sim.registry import load_builtins

        load_builtins()   # (durak_sim.strategies importable also from a source tree)
        from durak_sim.strategies import hard

        calls = read_log(args.replay)
        # hard's settings: the default game's, or those of every other ruleset and table
        args.general = any(p.rules is not None and not p.rules.is_default for _, p, _ in calls)
        if args.node_cap is None:
            args.node_cap = hard.GENERAL_NODE_CAP if args.general else hard.NODE_CAP
        if args.tt_log2 is None:
            args.tt_log2 = hard.LOG2_TT_GENERAL if args.general else hard.LOG2_TT
        return replay(args, calls)
    if args.tt_log2 is None:
        args.tt_log2 = 16
    if args.node_cap is None:
        args.node_cap = 0
    if args.playout:
        return playout(args)

    from durak_sim.kernel import solver

    positions, tt, out, stats, table, stock = _setup(args, 36)
    i64 = np.int64
    mode = i64(MODES[args.mode])

    def run(p, stamp):
        for i, c in enumerate(p["stock"]):
            stock[i] = c
        return solver.solve_root(
            i64(p["hands"][0]), i64(p["hands"][1]), i64(p["trump"]), stock, i64(len(p["stock"])),
            i64(p["attacker"]), table, i64(0), i64(0), i64(0), tt, i64(stamp),
            i64(args.node_cap), mode, out, stats)

    _say_if_cold(False)
    t1 = time.perf_counter()
    run(dict(hands=(1, 2), stock=(), trump=0, attacker=0), 1)  # load or compile the kernel
    compile_s = time.perf_counter() - t1
    n = len(positions)
    times = np.empty(n)
    nodes = np.empty(n)
    capped = np.zeros(n, bool)
    sizes = np.empty(n, np.int64)
    stock_n = np.empty(n, np.int64)
    times[:] = np.inf
    for rep in range(max(1, args.repeat)):
        for k, p in enumerate(positions):
            t = time.perf_counter()
            run(p, 2 + k + rep * n)  # a new stamp: every solve starts from an empty table
            times[k] = min(times[k], time.perf_counter() - t)
            nodes[k] = stats[0]
            capped[k] = stats[1] != 0
            sizes[k] = bin(p["hands"][0]).count("1") + bin(p["hands"][1]).count("1")
            stock_n[k] = len(p["stock"])

    def line(sel, extra):
        ms = times[sel] * 1e3
        d = {"bench": "solver", "positions": int(sel.sum()),
             "mean_ms": round(float(ms.mean()), 4),
             "p50_ms": round(float(np.percentile(ms, 50)), 4),
             "p99_ms": round(float(np.percentile(ms, 99)), 4),
             "max_ms": round(float(ms.max()), 4),
             "mean_nodes": round(float(nodes[sel].mean()), 1)}
        d.update(extra)
        return json.dumps(d)

    print(line(np.ones(n, bool), {"compile_s": round(compile_s, 3), "mode": args.mode,
                                  "repeat": args.repeat,
                                  "tt_log2": args.tt_log2, "seed": args.seed,
                                  "node_cap": args.node_cap, "capped": int(capped.sum())}))
    if args.by_size:
        for st in sorted(set(stock_n.tolist())):
            print(line(stock_n == st, {"stock": int(st)}))
        for k in sorted(set(sizes.tolist())):
            print(line(sizes == k, {"hand_cards": int(k)}))
    sys.stdout.flush()


if __name__ == "__main__":
    run_script(main)

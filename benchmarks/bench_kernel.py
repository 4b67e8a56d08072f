"""Kernel throughput: one JSON line per (pairing, thread count).

    python benchmarks/bench_kernel.py [--deals 200000] [--repeat 5] [--pairing random,random ...]

Compile (or cache load) time is measured on a warm-up call and reported as ``compile_s``,
never inside ``deals_per_s``. A line ``{"bench": "kernel-summary", ...}`` closes the run with
the 2-thread / 1-thread ratio per pairing.
"""
import argparse
import json

from durak_sim.bench import run_bench


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", default=None, help="comma-separated, default 1 and all cores")
    ap.add_argument("--pairing", action="append", default=None,
                    help="A,B (repeatable; default random,random and easy,easy)")
    args = ap.parse_args(argv)
    pairings = args.pairing or ["random,random", "easy,easy"]
    threads = [int(t) for t in args.threads.split(",")] if args.threads else None
    for pairing in pairings:
        lines = list(run_bench(pairing.split(","), deals=args.deals, threads=threads,
                               repeat=args.repeat, seed=args.seed))
        for line in lines:
            print(json.dumps(line), flush=True)
        by_t = {line["threads"]: line["deals_per_s"] for line in lines}
        if 1 in by_t and len(by_t) > 1:
            top = max(by_t)
            print(json.dumps({"bench": "kernel-summary", "pairing": pairing,
                              "deals_per_s_1": by_t[1], f"deals_per_s_{top}": by_t[top],
                              "scaling": round(by_t[top] / by_t[1], 3)}), flush=True)


if __name__ == "__main__":
    main()

"""Kernel throughput: one JSON line per (pairing, thread count).

    python benchmarks/bench_kernel.py [--deals 200000] [--repeat 5] [--pairing random,random ...]

Compile (or cache load) time is measured on a warm-up call and reported as ``compile_s``,
never inside ``deals_per_s``. A line ``{"bench": "kernel-summary", ...}`` closes the run with
the 2-thread / 1-thread ratio per pairing and the kernel's speed-up over the pure-Python
reference engine on one thread (``--reference N`` deals of the same pairing and seed played
there one by one, ``{"bench": "reference", ...}``; 0 skips it).
"""
import argparse

from durak_sim.bench import (first_paragraph, json_line, run_bench, run_reference_bench,
                             run_script)


def main(argv=None):
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", default=None, help="comma-separated, default 1 and all cores")
    ap.add_argument("--pairing", action="append", default=None,
                    help="A,B (repeatable; default random,random and easy,easy)")
    ap.add_argument("--reference", type=int, default=2_000,
                    help="deals to time on the reference engine too (default 2000; 0: skip)")
    args = ap.parse_args(argv)
    pairings = args.pairing or ["random,random", "easy,easy"]
    threads = [int(t) for t in args.threads.split(",")] if args.threads else None
    for pairing in pairings:
        lines = list(run_bench(pairing.split(","), deals=args.deals, threads=threads,
                               repeat=args.repeat, seed=args.seed))
        for line in lines:
            print(json_line(line), flush=True)
        by_t = {line["threads"]: line["deals_per_s"] for line in lines}
        summary = {"bench": "kernel-summary", "pairing": pairing}
        if 1 in by_t:
            summary["deals_per_s_1"] = by_t[1]
        if 1 in by_t and len(by_t) > 1:
            top = max(by_t)
            summary.update({f"deals_per_s_{top}": by_t[top],
                            "scaling": round(by_t[top] / by_t[1], 3)})
        if args.reference > 0:
            ref = run_reference_bench(pairing.split(","), deals=args.reference, seed=args.seed)
            print(json_line(ref), flush=True)
            summary["reference_deals_per_s"] = ref["deals_per_s"]
            if 1 in by_t:
                summary["kernel_vs_reference"] = round(by_t[1] / ref["deals_per_s"], 1)
        if len(summary) > 2:
            print(json_line(summary), flush=True)


if __name__ == "__main__":
    run_script(main)

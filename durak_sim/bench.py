"""Engine throughput: deals/s and decisions/s per thread count, compile time apart.

Each result is a plain dict (one JSON line in ``durak-sim bench`` and ``benchmarks/``).
A "deal" here is one game played from one shuffled deck (no seat swap), so deals/s is
games/s. Compile (or cache load) time is measured on a warm-up call and never enters the
throughput; the best of ``repeat`` timed runs is reported, with the median beside it.
"""
from __future__ import annotations

import contextlib
import platform
import statistics
import time
from typing import Iterator, Sequence

import numpy as np

from .errors import Interrupted, UserError, option
from .play import cpu_count, default_threads, play_games, resolve_strategies
from .rules import Rules
from .stopping import StopFlag


def run_bench(names: Sequence[str], *, deals: int = 200_000, threads: Sequence[int] | None = None,
              repeat: int = 3, seed: int = 1, board=None, rules: Rules | None = None,
              interruptible: bool = False) -> Iterator[dict]:
    """Time ``repeat`` runs of ``deals`` deals per thread count; yield one result per thread
    count. Each timed run is one kernel call (blocks would add a wait for the slower thread
    at every block's end). ``board``: a :class:`durak_sim.progress.Board` to keep up to
    date (a row per thread count, keyed by it). ``interruptible``: Ctrl-C (after the
    compile) stops the kernel call under way between two games, and
    :class:`durak_sim.errors.Interrupted` then says that run is not reported (the thread
    counts already yielded stand)."""
    from . import __version__
    from .kernel.bits import NO_JIT
    from .kernel.threads import numba_version, thread_limit
    from .limits import MAX_BENCH_DEALS

    if not 1 <= deals <= MAX_BENCH_DEALS:
        raise UserError(f"bench plays 1..{MAX_BENCH_DEALS:,} deals a run, got {deals:,}")
    strats = resolve_strategies(names)
    if rules is None:
        rules = Rules() if len(strats) == 2 else Rules(players=len(strats))
    if not all(s.compiled for s in strats):
        why = " (NUMBA_DISABLE_JIT is set: nothing is)" if NO_JIT else ""
        raise UserError(f"bench times the numba kernel: every strategy must be "
                        f"numba-compiled{why}")
    threads = list(threads) if threads else sorted({1, default_threads()})
    for n_threads in threads:
        if not 1 <= n_threads <= thread_limit():
            raise UserError(f"{option('--threads', 'threads')} must be in "
                            f"1..{thread_limit()}, got {n_threads}")
    t = time.perf_counter()
    # (it readies the line-up before Ctrl-C is a flag: a cold compile that Ctrl-C ends at once)
    play_games(strats, seed=seed, deals=range(1), swap=False, threads=1, rules=rules)
    compile_s = time.perf_counter() - t
    if board is not None:
        for n_threads in threads:
            board.add(n_threads, f"{n_threads} thread{'s' if n_threads != 1 else ''}",
                      deals * repeat)
    flag = StopFlag() if interruptible else None
    stop = None if flag is None else flag.kernel_flag
    with flag if flag is not None else contextlib.nullcontext():
        for n_threads in threads:
            times, decisions = [], 0
            for _ in range(repeat):
                b = play_games(strats, seed=seed, deals=range(deals), swap=False,
                               threads=n_threads, rules=rules, stop=stop)
                if flag is not None and flag.event.is_set():
                    raise Interrupted(f"interrupted: the timed run under way ({n_threads} "
                                      f"thread{'s' if n_threads != 1 else ''}) is not reported")
                times.append(b.seconds)
                decisions = b.decisions
                if board is not None:
                    board.advance(n_threads, deals, b.seconds)
            best = min(times)
            yield {
                "bench": "kernel", "pairing": ",".join(s.name for s in strats),
                "rules": rules.to_dict(),
                "versions": {s.name: s.version for s in strats}, "threads": n_threads,
                "deals": deals, "repeat": repeat, "seconds_best": round(best, 6),
                "seconds_median": round(statistics.median(times), 6),
                "deals_per_s": round(deals / best, 1),
                "decisions_per_s": round(decisions / best, 1),
                "decisions_per_deal": round(decisions / deals, 3),
                "compile_s": round(compile_s, 4),
                "cpus": cpu_count(), "machine": platform.machine(),
                "python": platform.python_version(), "numba": numba_version(),
                "durak_sim": __version__, "numpy": np.__version__,
            }


def run_reference_bench(names: Sequence[str], *, deals: int = 2_000, repeat: int = 1,
                        seed: int = 1) -> dict:
    """The same deals (``0 .. deals-1`` of ``seed``, no seat swap) played one by one on the
    pure-Python reference engine (``durak_sim.reference``), which calls each strategy's
    ``decide`` from Python, as it does for plain-Python strategies; the best of ``repeat``
    runs. A one-deal warm-up loads compiled strategies first (``compile_s``)."""
    from . import __version__
    from .reference import play_game

    strats = resolve_strategies(names)
    t = time.perf_counter()
    play_game(seed, 0, strats)
    compile_s = time.perf_counter() - t
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for deal in range(deals):
            play_game(seed, deal, strats)
        times.append(time.perf_counter() - t)
    best = min(times)
    return {
        "bench": "reference", "pairing": ",".join(s.name for s in strats),
        "versions": {s.name: s.version for s in strats}, "threads": 1, "deals": deals,
        "repeat": repeat, "seconds_best": round(best, 6),
        "seconds_median": round(statistics.median(times), 6),
        "deals_per_s": round(deals / best, 1), "compile_s": round(compile_s, 4),
        "cpus": cpu_count(), "machine": platform.machine(),
        "python": platform.python_version(), "durak_sim": __version__,
    }


# ---------------------------------------------------------------- the benchmark scripts' ways
def json_line(obj) -> str:
    """``obj`` as one line of strict JSON: NaN and the infinities (an interval nobody can
    give, a ratio of nothing) as ``null``, which every JSON reader takes.

    >>> json_line({"rate": float("nan"), "ci": [0.5, float("inf")], "n": 3})
    '{"rate": null, "ci": [0.5, null], "n": 3}'
    """
    import json
    import math

    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(obj), allow_nan=False)


def first_paragraph(doc: str) -> str:
    """A docstring's first paragraph as one line (a script's ``--help`` description).

    >>> first_paragraph("Time the kernel\\nat every table.\\n\\nMore.")
    'Time the kernel at every table.'
    """
    return " ".join(doc.strip().split("\n\n")[0].split())


def run_script(main) -> None:
    """Run a benchmark script's ``main()``: an error a user can cause (a bad option value,
    an unknown strategy or ruleset, a file that cannot be read) is one line on stderr and
    exit code 2, as in the commands; ``main``'s return value is the exit code."""
    import sys

    from .errors import EXIT_USAGE, UserError
    from .registry import StrategyError
    from .rules import RulesError

    try:
        code = main()
    except (UserError, StrategyError, RulesError) as exc:
        print(f"{sys.argv[0]}: error: {exc}", file=sys.stderr)
        code = EXIT_USAGE
    except OSError as exc:
        name = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"{sys.argv[0]}: error: {name}{exc.strerror or exc}", file=sys.stderr)
        code = EXIT_USAGE
    raise SystemExit(code)

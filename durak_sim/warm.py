"""A cold compile on more than one core: the endgame searches a strategy links (its
``parts``, :class:`durak_sim.registry.Strategy`) and the game kernel compiled in helper
processes while this one compiles the rest, then the strategy itself, which loads them from
numba's cache.

numba compiles in one thread, and the hard level's cold compile is mostly its two searches
(the default game's solver and the variant search, about 30 s each here), and the game
kernel takes about 20 s more; so they compile side by side (benchmarks/RESULTS.md,
2026-12-06). A helper (:func:`start`) compiles one part into the cache and exits.
It dies with the process that started it (Linux: ``PR_SET_PDEATHSIG``; a Ctrl-C reaches
both), so a killed run leaves nothing compiling; a helper that fails changes nothing but the
time, since the strategy's own compile then compiles the part itself.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Sequence


def _search_call(variant: bool) -> tuple:
    """A search (the variant search, or the default game's solver) and the arguments of
    hard's call on a two-card endgame."""
    import numpy as np

    from .kernel import solver, vsolver
    from .position import Position
    from .rules import FLAG_TRANSFER
    from .solve import kernel_position

    i64 = np.int64
    position = kernel_position(Position(0, (1, 2)))
    work = (i64(1), i64(0), i64(solver.MODE_ONE))          # stamp, no node cap, one action
    stats = np.zeros(solver.STATS_SIZE, np.int64)
    if variant:
        return vsolver.solve_variant, (*position, i64(FLAG_TRANSFER), i64(0),
                                       vsolver.new_table(10), *work,
                                       np.zeros(vsolver.OUT_SIZE, np.int64), stats)
    return solver.solve_root, (*position, solver.new_table(10), *work,
                               np.zeros(solver.OUT_SIZE, np.int64), stats)


def _search(variant: bool) -> None:
    """Solve a two-card endgame with the search (compiled, or loaded, for hard's call)."""
    fn, args = _search_call(variant)
    fn(*args)


def search_cached(variant: bool) -> bool | None:
    """Whether numba loads the search from its cache (None: cannot be told)."""
    from .kernel import cache, solver, vsolver

    # (compiled in this process already: no call to build, no index to read; or numba
    # compiles nothing, NUMBA_DISABLE_JIT=1, and the search is plain Python)
    if getattr(vsolver.solve_variant if variant else solver.solve_root, "signatures", True):
        return True
    try:
        fn, args = _search_call(variant)
        return cache.args_cached(fn, tuple(fn.typeof_pyval(a) for a in args))
    except Exception:  # noqa: BLE001 - numba internals: unknown, never an error
        return None


def search_notice(variant: bool) -> str | None:
    """What to say before a cold compile of a search (None when numba loads it from its
    cache, or cannot tell)."""
    if search_cached(variant) is not False:
        return None
    what = "the variant search" if variant else "the endgame solver"
    return (f"compiling {what} for first use (about "
            f"{cost('variant' if variant else 'solver'):.0f} s); later runs load it from the "
            f"cache")


def part_cached(name: str) -> bool | None:
    """Whether numba loads search part ``name`` (a key of :data:`PARTS`) from its cache
    (None: cannot be told). A cold strategy whose parts are cached compiles only its own
    code: the notice's estimate then leaves the parts out, and no helper starts for them."""
    return search_cached(name == "variant")


#: the parts a strategy may name: how to compile each, and about how long it takes here
PARTS = {"solver": (lambda: _search(False), 32.0), "variant": (lambda: _search(True), 29.0)}
#: about how long a cold compile of the game kernel for one table size takes here
KERNEL_SECONDS = 20.0


def kernel_part(seats: int, series: bool = False) -> str:
    """The part that is the game kernel for ``seats`` seats (its types depend on the count)
    and deals or series of deals.

    >>> kernel_part(4), kernel_part(2, series=True)
    ('kernel:4', 'kernel:2:series')
    """
    return f"kernel:{seats}" + (":series" if series else "")


def cost(name: str) -> float:
    """About how long part ``name`` takes to compile here."""
    return KERNEL_SECONDS if name.startswith("kernel:") else PARTS[name][1]


def compile_part(name: str) -> None:
    """Compile (or load) part ``name`` in this process."""
    if name.startswith("kernel:"):
        from .play import warm_kernel

        _, seats, *series = name.split(":")
        warm_kernel(int(seats), bool(series))
    else:
        PARTS[name][0]()


def plan(parts: Sequence[str], cores: int, beside: float = 0.0) -> tuple[list[str], list[str]]:
    """``(for helpers, for this process)``: on more than one core, the costliest parts go to
    helpers, one each and at most ``cores``, while this process compiles the strategies'
    own code (about ``beside`` seconds of it), then waits; it keeps the rest. A lone part
    with nothing beside it compiles here (a helper would only add its start).

    >>> plan(["variant", "kernel:2", "solver"], 2), plan(["solver"], 4, beside=7)
    ((['solver', 'variant'], ['kernel:2']), (['solver'], []))
    >>> plan(["solver", "variant"], 1), plan(["kernel:4"], 2)
    (([], ['solver', 'variant']), ([], ['kernel:4']))
    """
    todo = sorted(dict.fromkeys(parts), key=lambda p: -cost(p))
    k = min(cores, len(todo)) if cores > 1 and (len(todo) > 1 or beside > 0) else 0
    return todo[:k], todo[k:]


def estimate(theirs: Sequence[str], mine: Sequence[str], before: float, after: float,
             cores: int) -> float:
    """About how long the compile takes: the helpers' parts beside this process's parts and
    the strategies' own compiles that need no part (``before``), on ``cores`` cores, then
    the own compiles of the strategies that load parts (``after``).

    >>> estimate(["solver", "variant"], ["kernel:2"], 7, 14, 2)
    58.0
    """
    here = before + sum(cost(p) for p in mine)
    work = here + sum(cost(p) for p in theirs)
    longest = max([here] + [cost(p) for p in theirs])
    return max(longest, work / max(1, cores)) + after


def busy_cores(interval: float = 0.2) -> float | None:
    """How many of this process's cores other work keeps busy now: their busy share over
    ``interval`` seconds (``/proc/stat``, Linux), while this process waits. Not the load
    average, which still counts a run that has just ended (the compile of the command
    before) for a minute. None where it cannot be read.

    >>> 0 <= (busy_cores(0.05) or 0) <= len(os.sched_getaffinity(0))
    True
    """
    import time

    def sample() -> dict:
        times = {}
        with open("/proc/stat") as f:
            for line in f:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    v = [int(x) for x in fields[:8]]   # user nice system idle iowait irq ...
                    times[int(name[3:])] = (sum(v), v[3] + v[4])
        return times

    try:
        cpus = os.sched_getaffinity(0)
        before = sample()
        time.sleep(interval)
        after = sample()
    except (AttributeError, OSError, ValueError, IndexError):
        return None
    busy = 0.0
    for cpu in cpus:
        if cpu in before and cpu in after:
            total = after[cpu][0] - before[cpu][0]
            if total > 0:
                busy += 1 - (after[cpu][1] - before[cpu][1]) / total
    return busy


def load_factor(processes: int, cores: int, load: float | None = None) -> float:
    """How much longer than on an idle machine a compile of ``processes`` processes takes
    when other work keeps ``load`` cores busy (:func:`busy_cores`, or where that cannot be
    read the one-minute load average; read here when not given): they share the cores
    with it.

    >>> load_factor(3, 2, 0.0), load_factor(3, 2, 3.5), load_factor(1, 4, 2.0)
    (1.0, 2.1666666666666665, 1.0)
    """
    if load is None:
        load = busy_cores()
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):   # not on every platform
            return 1.0
    ours = max(1, processes)
    return max(1.0, (load + ours) / max(ours, cores))


#: a helper's program: this very package first on its path (from a source checkout as the
#: current folder, ``-m`` would import the checkout's copy, whose cache is not this one's)
HELPER = ("import sys; sys.path.insert(0, sys.argv[1]); from durak_sim import warm; "
          "warm.main(sys.argv[2:])")


def start(parts: Sequence[str]) -> list[subprocess.Popen]:
    """A helper process per part (none where one cannot be started)."""
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    helpers = []
    for part in parts:
        try:
            helpers.append(subprocess.Popen(
                [sys.executable, "-c", HELPER, root, part, str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        except OSError:
            pass
    return helpers


def finish(helpers: Sequence[subprocess.Popen], wait: bool = True) -> None:
    """Wait for the helpers to end (``wait``), else end them; none is left running."""
    for h in helpers:
        if wait:
            try:
                h.wait()
                continue
            except BaseException:   # Ctrl-C while waiting: end the rest below, then raise
                finish(helpers, wait=False)
                raise
        if h.poll() is None:
            h.terminate()
            h.wait()


def _die_with_parent(parent: int) -> None:
    """Be sent SIGTERM when the process that started this one ends (Linux), and end now if
    it already has."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        sys.exit(0)


def main(args: Sequence[str]) -> None:
    """A helper's work: ``args`` are the part and the pid of the process that started it."""
    _die_with_parent(int(args[1]))
    compile_part(args[0])

"""Instruction-level profile of the endgame solver with Linux ``perf``.

    python benchmarks/profile_solver.py --replay log.jsonl [--repeat 3] [--out DIR]

``perf`` samples numba's JIT code as anonymous memory: it cannot name it, and numba's cache
keeps no symbols. So this script compiles the solver afresh (numba's cache pointed at a new
temporary folder, which keeps every compiled object in memory: about a minute), writes
``/tmp/perf-PID.map`` (each compiled function's address, size and name, read from the object
files with ``nm``), replays the decision log as ``bench_solver.py --replay`` reads it (one
table stamp per game, hard's node cap) ``--repeat`` times under ``perf record -p PID``, and
writes to ``--out``:

* ``functions.txt``: the share of samples per function (numba's and CPython's);
* ``FUNC.annotated.txt`` for each solver function with at least 1% of the samples: its
  disassembly (``objdump``) with the samples of each instruction;
* ``FUNC.blocks.txt``: the same per 256-byte block, to find the hot parts;
* ``objects/``: the compiled object files the disassembly comes from.

It ends with one JSON line: samples, each hot function's share, the replay's seconds.
``perf`` and ``objdump`` must be installed (``perf`` allowed to sample this user's processes:
``/proc/sys/kernel/perf_event_paranoid`` <= 2). Samples land on the instruction after the
one that waited: a load that missed the cache shows as a hot instruction right after it.
"""
import argparse
import bisect
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from durak_sim.bench import first_paragraph, json_line, run_script


def _compiled_libraries(module):
    """Every numba code library of the module's compiled functions and what they link."""
    seen, libs = set(), []

    def walk(lib):
        if id(lib) in seen:
            return
        seen.add(id(lib))
        libs.append(lib)
        for other in getattr(lib, "_linking_libraries", ()):
            walk(other)

    for name in dir(module):
        for cres in getattr(getattr(module, name), "overloads", {}).values():
            walk(cres.library)
    return libs


def _symbols(libs, folder: Path) -> list:
    """``(address, size, offset, name, object file)`` of every compiled function."""
    syms = []
    for k, lib in enumerate(libs):
        try:
            obj = lib._get_compiled_object()
        except (RuntimeError, ValueError):   # from a cache, or numba's runtime: no object
            continue
        path = folder / f"lib{k}.o"
        path.write_bytes(obj)
        nm = subprocess.run(["nm", "-S", "--defined-only", str(path)], capture_output=True,
                            text=True, check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tT":
                off, size, _, name = parts
                try:
                    addr = lib.get_pointer_to_function(name)
                except Exception:   # noqa: BLE001 - a symbol the engine did not export
                    addr = 0
                if addr:
                    syms.append((addr, int(size, 16), int(off, 16), name, str(path)))
    return sorted(syms)


def _short(name: str) -> str:
    """``durak_sim.kernel.solver._vs`` for numba's mangled
    ``_ZN9durak_sim6kernel6solver3_vsB3v67B48...`` (its Itanium-style nested name)."""
    if not name.startswith("_ZN"):
        return name
    rest, parts = name[3:], []
    while rest[:1].isdigit():
        k = 0
        while k < len(rest) and rest[k].isdigit():
            k += 1
        n = int(rest[:k])
        parts.append(rest[k:k + n])
        rest = rest[k + n:]
    return ".".join(parts) or name


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--replay", required=True, help="a decision log (bench_hard_endgame.py "
                    "--dump-decisions)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--node-cap", type=int, default=None, help="default: hard's")
    ap.add_argument("--frequency", type=int, default=4000, help="samples per second")
    ap.add_argument("--out", default="solver-profile")
    args = ap.parse_args(argv)
    for tool in ("perf", "nm", "objdump"):
        if shutil.which(tool) is None:
            sys.exit(f"profile_solver: {tool} is not installed")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="durak-sim-profile-cache-")
    os.environ["NUMBA_CACHE_DIR"] = cache   # before numba is imported: a fresh compile
    perf_map = Path(f"/tmp/perf-{os.getpid()}.map")   # where perf looks for JIT symbols
    try:
        _profile(args, out, perf_map)
    finally:   # a failed or interrupted run leaves neither the cache nor the map behind
        shutil.rmtree(cache, ignore_errors=True)
        perf_map.unlink(missing_ok=True)


def _profile(args, out: Path, perf_map: Path) -> None:
    """Compile, record under perf and write the profile (the body of :func:`main`)."""
    t = time.perf_counter()
    import numpy as np

    from durak_sim.kernel import solver
    from durak_sim.position import Position
    from durak_sim.solve import kernel_position
    from durak_sim.registry import load_builtins

    load_builtins()   # (durak_sim.strategies importable also from a source tree)
    from durak_sim.strategies.hard import NODE_CAP

    from bench_solver import read_log   # this folder's: the replay's reading of the log

    calls = [(game, kernel_position(p)) for game, p, _ in read_log(args.replay)]
    tt = solver.new_table(16)
    res = np.zeros(solver.OUT_SIZE, np.int64)
    stats = np.zeros(solver.STATS_SIZE, np.int64)
    i64 = np.int64
    cap = i64(args.node_cap if args.node_cap is not None else NODE_CAP)
    solver.solve_root(*kernel_position(Position(0, (1, 2))), tt, i64(1), cap, i64(1), res,
                      stats)
    compile_s = time.perf_counter() - t   # imports, the log, and compiling (hard's import)
    (out / "objects").mkdir(exist_ok=True)
    syms = _symbols(_compiled_libraries(solver), out / "objects")
    with open(perf_map, "w", encoding="utf-8") as m:
        for addr, size, _, name, _ in syms:
            m.write(f"{addr:x} {size:x} {_short(name)}\n")
    data = out / "perf.data"
    rec = subprocess.Popen(["perf", "record", "-F", str(args.frequency), "-p", str(os.getpid()),
                            "-o", str(data)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)   # perf attaches
        stamps = {}
        t = time.perf_counter()
        for rep in range(args.repeat):
            for game, position_args in calls:
                stamp = stamps.setdefault((rep, game), len(stamps) + 2)
                solver.solve_root(*position_args, tt, i64(stamp), cap, i64(1), res, stats)
        seconds = time.perf_counter() - t
    finally:   # perf stops with this run, however it ends
        rec.send_signal(signal.SIGINT)
        rec.wait()

    ips = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True,
                         text=True, check=True).stdout.split()
    ips = [int(x, 16) for x in ips]
    total = max(1, len(ips))
    starts = [s[0] for s in syms]
    per_fn = collections.Counter()
    per_ins = collections.defaultdict(collections.Counter)
    for ip in ips:
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < syms[i][0] + syms[i][1]:
            per_fn[i] += 1
            per_ins[i][ip - syms[i][0] + syms[i][2]] += 1
        else:
            per_fn[-1] += 1
    lines = [f"{100 * n / total:6.2f}%  {_short(syms[i][3]) if i >= 0 else '(outside the solver)'}"
             for i, n in per_fn.most_common()]
    (out / "functions.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    hot = {}
    for i, n in per_fn.items():
        if i < 0 or n < total / 100:
            continue
        addr, size, off, name, obj = syms[i]
        fname = _short(name).replace(".", "_")[-60:]
        hot[_short(name)] = round(n / total, 4)
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={off}",
                              f"--stop-address={off + size}", obj], capture_output=True,
                             text=True, check=True).stdout
        counts = per_ins[i]
        with open(out / f"{fname}.annotated.txt", "w", encoding="utf-8") as f:
            for text in dis.splitlines():
                head = text.strip().split(":")[0]
                try:
                    c = counts.get(int(head, 16), 0)
                except ValueError:
                    c = 0
                f.write(f"{c:7d} {100 * c / total:6.2f}%  {text}\n")
        blocks = collections.Counter()
        for o, c in counts.items():
            blocks[(o - off) // 256] += c
        with open(out / f"{fname}.blocks.txt", "w", encoding="utf-8") as f:
            for b in sorted(blocks):
                f.write(f"+{b * 256:5x}..+{b * 256 + 255:5x} {100 * blocks[b] / total:6.2f}%\n")
    print(json_line({"bench": "solver-profile", "file": args.replay, "calls": len(calls),
                      "repeat": args.repeat, "samples": len(ips), "hot": hot,
                      "replay_s": round(seconds, 3), "compile_s": round(compile_s, 3),
                      "out": str(out)}))


if __name__ == "__main__":
    run_script(main)

"""Tournaments: every pairing of a field of strategies over the same seeded deals, stored
durably and reported; and the SPRT that stops a match as soon as it is decided.

A tournament is a round robin (every two strategies of the field) or a gauntlet (one
strategy against each of the others). Every pairing plays the SAME deal indices
``0 .. deals - 1`` of one master seed, each deal twice with the seats swapped (duplicate
play), so luck of the deal cancels within a pairing and is shared across pairings.

Games are played in blocks of about half a second, the pairings interleaved, and stored in
chunks (``chunk_deals`` deal indices of one pairing, default 50,000) the moment a chunk is
complete, on a background thread while the kernel plays on (:mod:`durak_sim.runner`,
:mod:`durak_sim.storage`); a chunk still being played is saved in part every two seconds of
its play. So a run stopped by Ctrl-C (within a block, with every finished deal saved), a
crash or SIGKILL (losing at most the last two seconds of a pairing's play) continues with
``resume=True`` without redoing a stored deal. The seed contract makes every chunk the same
games whenever and however (threads, block sizes, resumes) it is played, so a resumed
tournament's tables are byte-identical to an uninterrupted one's. Statistics, plots and the
report are computed once at the end from the stored games alone
(:func:`durak_sim.report.build_report`), from per-pairing counts
(:class:`durak_sim.stats.GameCounts`) taken of each chunk as it is stored.

Output folder (default ``reports/runs/tournament-<YYYYmmdd-HHMMSS>-seed<S>``)::

    manifest.json      config, provenance and every finished chunk (durak_sim.storage)
    games/             Parquet chunks, one folder per pairing
    report.md, report.html, *.csv, plots/   results only: same tournament, same bytes
    timing.json        deals/s and durations per session (not part of the same-bytes set)

>>> res = run_tournament(["easy", "random"], deals=200, seed=3, out=_doctest_dir(),
...                      progress=False, report=False)
>>> res.complete, res.config.pairings()
(True, [('easy', 'random')])
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import UserError
from .play import check_seed, resolve_strategies
from .rules import RULES_VERSION, Rules
from .storage import (DirectoryLock, Manifest, StorageError, WriteError, remove_temporaries,
                      sha256_file)

#: deal indices per pairing of ``durak-sim tournament`` with no ``--deals``; each is played
#: twice. Chosen so that the four built-in levels finish in a few minutes on 2 cores.
DEFAULT_DEALS = 10_000
#: deal indices per stored chunk: large enough that storage costs little next to play
CHUNK_DEALS = 50_000
#: parent of the default output folders (relative to the working directory)
RUNS_DIR = Path("reports") / "runs"
TIMING = "timing.json"


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tournament, or a failing dask cluster did (``reason`` says what
    happened); everything played is saved in ``out`` (``partial``: chunks saved in part,
    to be continued)."""

    def __init__(self, out: Path, chunks_done: int, chunks_total: int,
                 scheduler: str | None = None, partial: int = 0, reason: str | None = None):
        more = f" (and {partial} more in part)" if partial else ""
        super().__init__(f"{reason or 'interrupted'}: {chunks_done} of {chunks_total} chunks "
                         f"saved{more} in {out}")
        self.out, self.chunks_done, self.chunks_total = Path(out), chunks_done, chunks_total
        self.scheduler, self.partial, self.reason = scheduler, partial, reason

    @property
    def resume_command(self) -> str:
        cmd = f"durak-sim tournament --resume {_quote(str(self.out))}"
        if self.scheduler is not None:
            cmd += f" --scheduler {_quote(self.scheduler)}"
        return cmd


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def _doctest_dir() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp()) / "t"


# --------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament is: everything its results depend on, plus its chunk size.

    ``strategies``: the field in display order (a gauntlet's strategy first);
    ``versions``: their versions; ``gauntlet``: ``None`` for a round robin."""

    strategies: tuple[str, ...]
    versions: tuple[int, ...]
    seed: int
    deals: int
    chunk_deals: int = CHUNK_DEALS
    gauntlet: str | None = None
    rules: Rules = Rules()
    plugins: tuple[str, ...] = ()

    def pairings(self) -> list[tuple[str, str]]:
        """The pairings ``(a, b)`` in play order; ``a`` sits in seat 0 of ``swap`` 0.

        >>> TournamentConfig(("random", "easy", "hard"), (1, 1, 1), 1, 10).pairings()
        [('random', 'easy'), ('random', 'hard'), ('easy', 'hard')]
        >>> TournamentConfig(("hard", "random", "easy"), (1, 1, 1), 1, 10,
        ...                  gauntlet="hard").pairings()
        [('hard', 'random'), ('hard', 'easy')]
        """
        s = self.strategies
        if self.gauntlet is not None:
            return [(s[0], x) for x in s[1:]]
        return [(s[i], s[j]) for i in range(len(s)) for j in range(i + 1, len(s))]

    def chunk_ranges(self) -> list[tuple[int, int]]:
        """``(lo, hi)`` deal ranges of the chunks (``hi`` exclusive), in play order."""
        return [(lo, min(self.deals, lo + self.chunk_deals))
                for lo in range(0, self.deals, self.chunk_deals)]

    @property
    def games(self) -> int:
        return 2 * self.deals * len(self.pairings())

    def command(self) -> str:
        """The command that plays this tournament again (threads, output folder and chunk
        size do not change its results, so they are left out).

        >>> TournamentConfig(("random", "easy"), (1, 1), 7, 2000).command()
        'durak-sim tournament random easy --deals 2000 --seed 7'
        """
        parts = ["durak-sim", "tournament"]
        if self.gauntlet is not None:
            parts += ["--gauntlet", self.gauntlet, *self.strategies[1:]]
        else:
            parts += list(self.strategies)
        parts += ["--deals", str(self.deals), "--seed", str(self.seed)]
        if self.rules != Rules():  # pragma: no cover - one ruleset is implemented today
            parts += ["--rules", json.dumps(self.rules.to_dict(), sort_keys=True)]
        for p in self.plugins:
            parts += ["--plugin", p]
        return " ".join(_quote(p) for p in parts)

    def to_dict(self) -> dict:
        return {"strategies": [{"name": n, "version": v}
                               for n, v in zip(self.strategies, self.versions)],
                "seed": self.seed, "deals": self.deals, "chunk_deals": self.chunk_deals,
                "gauntlet": self.gauntlet, "rules": self.rules.to_dict(),
                "rules_version": RULES_VERSION, "plugins": list(self.plugins)}

    @classmethod
    def from_dict(cls, d: dict) -> "TournamentConfig":
        """The config a manifest holds, checked as a whole (``StorageError`` if it is not
        one this durak-sim could have written)."""
        from .limits import MAX_CHUNK_DEALS, MAX_DEALS, MAX_INDEX

        def integer(key, lo, hi):
            v = d[key]
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{key} must be an integer in {lo}..{hi}, got {v!r}")
            return v

        try:
            names = tuple(s["name"] for s in d["strategies"])
            versions = tuple(s["version"] for s in d["strategies"])
            if len(names) < 2 or len(set(names)) != len(names) or \
                    not all(isinstance(n, str) and n for n in names):
                raise ValueError("strategies must be two or more different names")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in versions):
                raise ValueError("strategy versions must be integers")
            gauntlet = d.get("gauntlet")
            if gauntlet is not None and gauntlet != names[0]:
                raise ValueError("the gauntlet strategy must be listed first")
            plugins = d.get("plugins", [])
            if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
                raise ValueError("plugins must be a list of names")
            return cls(strategies=names, versions=versions, seed=integer("seed", 0, MAX_INDEX),
                       deals=integer("deals", 1, MAX_DEALS),
                       chunk_deals=integer("chunk_deals", 1, MAX_CHUNK_DEALS),
                       gauntlet=gauntlet, rules=Rules.from_dict(d["rules"]),
                       plugins=tuple(plugins))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StorageError(f"malformed tournament config in manifest: "
                               f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None

    def check(self, manifest: Manifest) -> None:
        """The manifest's chunks must be chunks of this tournament: its pairings and chunk
        ranges, each once (``StorageError`` otherwise)."""
        pairings = set(self.pairings())
        ranges = dict(self.chunk_ranges())
        for kind, entries in (("chunk", manifest.chunks), ("partial chunk", manifest.partials)):
            seen = set()
            for c in entries:
                key = (tuple(c["pairing"]), c["deal_lo"])
                if key[0] not in pairings:
                    raise StorageError(f"manifest lists a {kind} of {key[0][0]} vs "
                                       f"{key[0][1]}, not a pairing of its tournament")
                if ranges.get(c["deal_lo"]) != c["deal_hi"]:
                    raise StorageError(f"manifest lists a {kind} of deals {c['deal_lo']}.."
                                       f"{c['deal_hi'] - 1}, not a chunk of its tournament")
                if key in seen:
                    raise StorageError(f"manifest lists the {kind} {c['file']} twice")
                seen.add(key)


def make_config(strategies: Sequence[str] | None, *, deals: int, seed: int,
                chunk_deals: int | None = None, gauntlet: str | None = None,
                rules: Rules = Rules(), plugins: Sequence[str] = ()) -> TournamentConfig:
    """Validate a tournament's options and resolve its strategies (aliases, versions).

    No ``strategies``: every built-in level (``registry.builtin_levels()``), or with a
    ``gauntlet`` every built-in level other than it. No ``chunk_deals``: :data:`CHUNK_DEALS`,
    or more when the tournament would otherwise have more than ``limits.MAX_CHUNKS`` chunks.

    >>> make_config(["random", "easy"], deals=10**6, seed=1).chunk_deals
    50000
    >>> make_config(None, deals=10**9, seed=1).chunk_deals   # 6 pairings, 20,000 chunks
    300031
    """
    from .limits import MAX_CHUNK_DEALS, MAX_CHUNKS, MAX_DEALS
    from .registry import builtin_levels

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) \
            or not 1 <= deals <= MAX_DEALS:
        raise UserError(f"deals must be an integer in 1..{MAX_DEALS:,}, got {deals!r}")
    if chunk_deals is not None and (
            isinstance(chunk_deals, bool) or not isinstance(chunk_deals, (int, np.integer))
            or not 1 <= chunk_deals <= MAX_CHUNK_DEALS):
        raise UserError(f"chunk size must be an integer in 1..{MAX_CHUNK_DEALS:,}, got "
                        f"{chunk_deals!r}")
    seed = check_seed(seed)
    names = list(strategies) if strategies else []
    if gauntlet is not None:
        g = resolve_strategies([gauntlet])[0]
        if not names:
            names = [n for n in builtin_levels() if n != g.name]
        others = resolve_strategies(names)
        if any(s.name == g.name for s in others):
            raise UserError(f"the gauntlet strategy {g.name!r} is also listed among its "
                            f"opponents")
        strats = [g, *others]
    else:
        strats = resolve_strategies(names or builtin_levels())
    seen = set()
    for s in strats:
        if s.name in seen:
            raise UserError(f"strategy {s.name!r} is listed twice")
        seen.add(s.name)
    if len(strats) < 2:
        raise UserError(f"a tournament needs at least two strategies, got "
                        f"{len(strats)} ({', '.join(s.name for s in strats) or 'none'})")
    n_pairings = len(strats) - 1 if gauntlet is not None else len(strats) * (len(strats) - 1) // 2
    per_pairing = MAX_CHUNKS // n_pairings
    if chunk_deals is None:
        chunk_deals = min(MAX_CHUNK_DEALS, max(CHUNK_DEALS, -(-deals // per_pairing)))
    chunks = -(-deals // chunk_deals) * n_pairings
    if chunks > MAX_CHUNKS:
        need = -(-deals // per_pairing)
        raise UserError(f"{deals:,} deals in chunks of {chunk_deals:,} make {chunks:,} chunks "
                        f"for {n_pairings} pairing{'s' if n_pairings != 1 else ''}, more than "
                        f"{MAX_CHUNKS:,}: " + (f"use --chunk {need} or more" if need <=
                                              MAX_CHUNK_DEALS else "play fewer deals"))
    return TournamentConfig(strategies=tuple(s.name for s in strats),
                            versions=tuple(s.version for s in strats), seed=seed,
                            deals=int(deals), chunk_deals=int(chunk_deals),
                            gauntlet=strats[0].name if gauntlet is not None else None,
                            rules=rules, plugins=tuple(plugins))


def default_out_dir(seed: int, now: datetime | None = None, parent: Path = RUNS_DIR) -> Path:
    """A new folder ``reports/runs/tournament-<YYYYmmdd-HHMMSS>-seed<S>`` (``-2``, ``-3``
    ... appended if that exists).

    >>> default_out_dir(7, datetime(2024, 5, 1, 12, 0, 0), Path("/nonexistent")).name
    'tournament-20240501-120000-seed7'
    """
    now = now or datetime.now()
    base = parent / f"tournament-{now:%Y%m%d-%H%M%S}-seed{seed}"
    path, k = base, 2
    while path.exists():
        path = base.with_name(f"{base.name}-{k}")
        k += 1
    return path


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """A tournament run (one session: a fresh run or a resume).

    ``complete``: every chunk is stored; ``report``: the :class:`durak_sim.report.Report`
    built at the end (``None`` when not asked for or not complete); ``deals_played``:
    deal indices x pairings played in this session; ``seconds``: wall time of this session;
    ``kernel_seconds``/``compile_seconds``: of its play; ``report_seconds``,
    ``report_cpu_seconds``: wall and CPU time of the report (its plot workers included);
    ``threads``: kernel threads (on a dask cluster: per task, ``None`` for the default);
    ``workers``: the dask workers that played (``None`` for a local run);
    ``chunk_counts``: the :class:`durak_sim.stats.GameCounts` of every chunk stored in this
    session, by ``(file, sha256)`` (the report does not read those chunks again)."""

    out: Path
    config: TournamentConfig
    complete: bool
    chunks_done: int
    chunks_total: int
    deals_played: int = 0
    seconds: float = 0.0
    kernel_seconds: float = 0.0
    compile_seconds: float = 0.0
    report_seconds: float = 0.0
    report_cpu_seconds: float = 0.0
    threads: int | None = None
    workers: int | None = None
    report: "object | None" = None
    chunk_counts: dict = field(default_factory=dict, repr=False)

    @property
    def deals_per_second(self) -> float:
        return self.deals_played / self.kernel_seconds if self.kernel_seconds > 0 else float("nan")

    def _where(self) -> str:
        if self.workers is not None:
            return f"per task, on {self.workers} dask worker{'s' if self.workers != 1 else ''}"
        return f"on {self.threads} thread{'s' if self.threads != 1 else ''}"

    def print(self, console=None) -> None:
        """The report's tables and this session's timing, as aligned rich tables."""
        from rich.console import Console

        from .report import print_report

        if console is None:
            console = Console()
            console = Console(width=max(console.width, 118))
        if self.report is not None:
            print_report(self.report, console)
        if self.deals_played:
            console.print(f"played {self.deals_played:,} deals x 2 seats in "
                          f"{self.kernel_seconds:.2f} s of kernel time "
                          f"({self.deals_per_second:,.0f} deals/s "
                          f"{self._where()}; "
                          f"compile/load {self.compile_seconds:.2f} s apart); "
                          f"session {self.seconds:.2f} s")
        else:
            console.print("nothing left to play: every chunk was already stored")
        console.print(f"results in {self.out}")


def _check_threads(threads: int | None) -> None:
    if threads is None:
        return
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) \
            or not 1 <= threads <= limit:
        raise UserError(f"threads must be in 1..{limit}, got {threads!r}")


def _new_out_dir(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise UserError(f"--out {out} exists and is not a folder")
        if any(out.iterdir()):
            raise UserError(f"--out {out} exists and is not empty: choose a new folder, or "
                            f"add --resume to continue the tournament stored there")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".durak-sim-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UserError(f"cannot write to output folder {out}: {exc.strerror or exc}") from None


def _config_differences(stored: TournamentConfig, asked: dict) -> list[str]:
    diffs = []
    for key, value in asked.items():
        have = getattr(stored, key)
        if key == "strategies":
            have, value = list(have), list(value)
        if have != value:
            diffs.append(f"{key} {have} (asked {value})")
    return diffs


def _resume_config(out: Path, manifest: Manifest, strategies, deals, seed, chunk_deals,
                   gauntlet, rules, plugins) -> TournamentConfig:
    """The stored config, after checking that every option given agrees with it and that
    the registered strategies still have the stored versions."""
    from .registry import load_plugin

    stored = TournamentConfig.from_dict(manifest.config)
    stored.check(manifest)
    if manifest.config.get("rules_version") != RULES_VERSION:
        raise UserError(f"cannot resume {out}: it was played under rules version "
                        f"{manifest.config.get('rules_version')}, this durak-sim implements "
                        f"version {RULES_VERSION}")
    for p in (plugins or stored.plugins):
        load_plugin(p)
    asked = {}
    if strategies or gauntlet is not None:
        asked_cfg = make_config(strategies, deals=stored.deals, seed=stored.seed,
                                gauntlet=gauntlet)
        asked["strategies"] = asked_cfg.strategies
        asked["gauntlet"] = asked_cfg.gauntlet
    for key, value in (("deals", deals), ("seed", seed), ("chunk_deals", chunk_deals),
                       ("rules", rules)):
        if value is not None:
            asked[key] = value
    diffs = _config_differences(stored, asked)
    if diffs:
        raise UserError(f"{out} holds another tournament: {'; '.join(diffs)}")
    now = resolve_strategies(stored.strategies)
    changed = [f"{s.name} is v{s.version}, played as v{v}"
               for s, v in zip(now, stored.versions) if s.version != v]
    if changed:
        raise UserError(f"cannot resume {out}: strategy versions changed ({'; '.join(changed)})")
    return stored


def cpu_seconds() -> float:
    """CPU seconds of this process (every thread) and of its finished child processes (the
    report's plot workers)."""
    import os

    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def run_tournament(strategies: Sequence[str] | None = None, deals: int | None = None,
                   seed: int | None = None, out: str | Path | None = None,
                   threads: int | None = None, gauntlet: str | None = None,
                   resume: bool = False, progress: bool = True, *,
                   chunk_deals: int | None = None, rules: Rules | None = None,
                   plugins: Sequence[str] = (), command: str | None = None,
                   report: bool = True, console=None,
                   scheduler: str | None = None,
                   worker_wait: float | None = None) -> TournamentResult:
    """Play (or, with ``resume``, continue) a tournament and store every finished chunk.

    ``strategies``: the field (default every built-in level); ``gauntlet``: one strategy
    to play against each of ``strategies`` instead of a round robin; ``deals`` (default
    :data:`DEFAULT_DEALS`) deal indices per pairing, each played twice with the seats
    swapped; ``seed`` (default 1); ``out``: output folder (default
    :func:`default_out_dir`), which must be new or empty unless ``resume``; ``threads``:
    kernel threads (default all cores; results do not depend on it); ``progress``: live
    progress and a score line per pairing on stderr when it is a terminal
    (:mod:`durak_sim.progress`); ``chunk_deals``: deal indices per stored
    chunk (:data:`CHUNK_DEALS`); ``report``: build the report at the end
    (:func:`durak_sim.report.build_report`); ``command``: the command line to record in
    the manifest (default ``sys.argv``); ``scheduler``: the address of a dask.distributed
    scheduler whose workers play the chunks (:mod:`durak_sim.cluster`; this process stores
    them, and the results are the same bytes as a local run's); ``worker_wait``: how long
    it may see no worker before it stops (:data:`durak_sim.cluster.WORKER_WAIT`).

    With ``resume`` the tournament stored in ``out`` continues; options left ``None`` are
    taken from its manifest and options given must agree with it (else ``UserError``).
    Ctrl-C raises :class:`TournamentInterrupted` after every finished deal is saved; so
    does a dask cluster that fails during the run (with its ``reason``).

    >>> r = run_tournament(["random", "easy"], deals=50, seed=2, out=_doctest_dir(),
    ...                    progress=False, report=False)
    >>> r.chunks_done, r.config.command()
    (1, 'durak-sim tournament random easy --deals 50 --seed 2')
    """
    from . import __version__

    t_start = time.perf_counter()
    _check_threads(threads)
    command = command if command is not None else " ".join(_quote(a) for a in sys.argv)
    if resume:
        if out is None:
            raise UserError("--resume needs the folder of the tournament to continue")
        out = Path(out)
        if not out.is_dir():
            raise UserError(f"cannot resume: {out} is not a folder")
        manifest = Manifest.load(out)
        config = _resume_config(out, manifest, strategies, deals, seed, chunk_deals, gauntlet,
                                rules, plugins)
    else:
        from .registry import load_plugin

        for p in plugins:
            load_plugin(p)
        config = make_config(strategies, deals=DEFAULT_DEALS if deals is None else deals,
                             seed=1 if seed is None else seed, chunk_deals=chunk_deals,
                             gauntlet=gauntlet, rules=rules or Rules(), plugins=plugins)
        out = Path(out) if out is not None else default_out_dir(config.seed)
        manifest = Manifest(config=config.to_dict(),
                            provenance={"package_version": __version__, "command": command,
                                        "started": datetime.now().isoformat(timespec="seconds")},
                            chunks=[])

    cluster = None
    if scheduler is not None:
        from .cluster import Cluster

        # (refuses a cluster that cannot play it)
        cluster = Cluster(scheduler, config, threads, worker_wait=worker_wait)
    try:
        if not resume:
            _new_out_dir(out)
        with DirectoryLock(out):
            return _run_locked(out, config, manifest, resume, command, threads, progress,
                               console, t_start, report, cluster)
    finally:
        if cluster is not None:
            cluster.close()


def _run_locked(out: Path, config: TournamentConfig, manifest: Manifest, resume: bool,
                command: str, threads, progress, console, t_start: float, report: bool,
                cluster) -> TournamentResult:
    from . import __version__

    if resume:
        _drop_damaged(out, manifest)
        check_stored(out, manifest, config)   # before anything in the folder changes
        remove_temporaries(out)
        manifest.provenance.setdefault("resumed", []).append(
            {"command": command, "package_version": __version__,
             "at": datetime.now().isoformat(timespec="seconds")})
    manifest.save(out)
    result = _play(out, config, manifest, threads, progress, console, t_start,
                   prefetch=report, cluster=cluster)
    result.seconds = time.perf_counter() - t_start
    _write_timing(out, result, t_start)
    if result.complete and report:
        from .report import build_report

        t, c = time.perf_counter(), cpu_seconds()
        try:
            result.report = build_report(out, known=result.chunk_counts)
        except WriteError as exc:
            raise UserError(f"{exc}; every game is stored: make room, then run: durak-sim "
                            f"report {_quote(str(out))}") from None
        result.report_seconds = time.perf_counter() - t
        result.report_cpu_seconds = cpu_seconds() - c
        result.seconds = time.perf_counter() - t_start
        _write_timing(out, result, t_start, replace_last=True)
    return result


def check_stored(out: Path, manifest: Manifest, config: TournamentConfig,
                 chunks: Sequence[dict] | None = None) -> None:
    """The stored games of ``chunks`` (default: every chunk of the manifest) must be what
    the manifest says they are: its seed, pairings, deals and strategy versions
    (``storage.check_games``); a ``UserError`` names the first that is not. Damaged files
    are another matter (``_drop_damaged``): this is a manifest edited, or two tournaments
    mixed, which no resume or report may paper over."""
    from .storage import check_games, read_chunks

    config.check(manifest)
    for c in manifest.chunks if chunks is None else chunks:
        table = read_chunks(out, [c], verify=False, columns=ID_COLUMNS)
        problem = check_games(table, seed=config.seed, names=config.strategies,
                              versions=config.versions, pairing=tuple(c["pairing"]),
                              lo=c["deal_lo"], hi=c["deal_hi"])
        if problem:
            raise UserError(f"{out}: its stored games do not match its manifest ({c['file']}: "
                            f"{problem}); the manifest was edited or mixes two tournaments")


#: the columns that say which games a chunk holds
ID_COLUMNS = ("seed", "deal", "swap", "seat0", "seat1", "seat0_version", "seat1_version")


def _drop_damaged(out: Path, manifest: Manifest) -> None:
    """Forget chunks whose file is missing or differs from its checksum: they are played
    again (the seed contract makes them the same games)."""
    keep = []
    for c in manifest.chunks:
        path = out / c["file"]
        if path.is_file() and sha256_file(path) == c["sha256"]:
            keep.append(c)
        else:
            print(f"durak-sim: warning: chunk {c['file']} is missing or damaged; "
                  f"playing it again", file=sys.stderr)
    manifest.chunks[:] = keep


def _prefetch_report() -> None:
    """Import what the report at the end needs (pandas, scipy, matplotlib: one to two
    seconds of a fresh process) while the kernel plays, and warm matplotlib's font caches,
    so that the report's forked drawing processes inherit them instead of each loading them.
    Best effort: whatever fails here fails again, and is reported, in the report itself."""
    try:
        from . import plots, report  # noqa: F401

        plots.warm_up()
    except Exception:  # pragma: no cover - see the docstring
        pass


def _address(cluster) -> str | None:
    return cluster.address if cluster is not None else None


def _play(out: Path, config: TournamentConfig, manifest: Manifest, threads, progress,
          console, t_start: float, prefetch: bool = False, cluster=None) -> TournamentResult:
    from . import runner
    from .play import cpu_count

    wanted = {(a, b, lo) for lo, _ in config.chunk_ranges() for a, b in config.pairings()}
    total_chunks = len(wanted)
    result = TournamentResult(out=out, config=config, complete=False,
                              chunks_done=len(manifest.done & wanted), chunks_total=total_chunks,
                              threads=threads if cluster is not None else threads or cpu_count(),
                              workers=cluster.workers if cluster is not None else None)
    prefetcher = None
    if prefetch and result.chunks_done < total_chunks:
        # its own thread: the imports must not hold up storing the first chunks
        import threading

        prefetcher = threading.Thread(target=_prefetch_report, name="durak-sim-prefetch",
                                      daemon=True)
        prefetcher.start()
    try:
        played = runner.play(out, config, manifest, threads, progress, console, cluster)
    except runner.StoreFailed as exc:
        stored = Manifest.load(out)
        raise UserError(f"cannot write {exc.path}: {exc.cause.strerror or exc.cause}; the "
                        f"{len(stored.done & wanted)} chunks stored before are kept: make room, "
                        f"then continue with: "
                        f"{TournamentInterrupted(out, 0, 0, _address(cluster)).resume_command}"
                        ) from None
    except runner.Stopped as exc:
        # (the prefetching thread is a daemon: no need to wait for its imports)
        prefetcher = None
        stored = Manifest.load(out)
        result.chunks_done = len(stored.done & wanted)
        try:
            _write_timing(out, result, t_start)
        except (OSError, StorageError):  # pragma: no cover - a courtesy, never an error
            pass
        raise TournamentInterrupted(out, result.chunks_done, total_chunks, _address(cluster),
                                    partial=len(stored.partials), reason=str(exc) or None
                                    ) from None
    finally:
        if prefetcher is not None:
            # never fork (the report's drawing processes) while it may hold an import lock
            prefetcher.join()
    result.deals_played = played.deals
    result.kernel_seconds = played.kernel_seconds
    result.compile_seconds = played.compile_seconds
    result.chunk_counts = played.chunk_counts
    result.chunks_done = len(manifest.done & wanted)
    result.complete = result.chunks_done == total_chunks
    return result



def _write_timing(out: Path, result: TournamentResult, t_start: float,
                  replace_last: bool = False) -> None:
    """Append this session's timings to ``timing.json`` (never part of the report)."""
    from .storage import atomic_write_text

    path = out / TIMING
    try:
        sessions = json.loads(path.read_text(encoding="utf-8")).get("sessions", [])
    except (OSError, ValueError, AttributeError):
        sessions = []
    if replace_last and sessions:
        sessions.pop()
    sessions.append({
        "threads": result.threads, "dask_workers": result.workers,
        "deals_played": result.deals_played,
        "games_played": 2 * result.deals_played,
        "kernel_seconds": round(result.kernel_seconds, 4),
        "compile_seconds": round(result.compile_seconds, 4),
        "report_seconds": round(result.report_seconds, 4),
        "wall_seconds": round(time.perf_counter() - t_start, 4),
        "deals_per_s": round(result.deals_per_second, 1) if result.kernel_seconds > 0 else None,
        "complete": result.complete,
        "ended": datetime.now().isoformat(timespec="seconds"),
    })
    atomic_write_text(path, json.dumps({"sessions": sessions}, indent=1) + "\n")


__all__ = ["CHUNK_DEALS", "DEFAULT_DEALS", "TournamentConfig", "TournamentInterrupted",
           "TournamentResult", "check_stored", "default_out_dir", "make_config",
           "run_tournament"]

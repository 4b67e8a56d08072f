"""Tournaments: every pairing of a field of strategies over the same seeded deals, stored
durably and reported; and the SPRT that stops a match as soon as it is decided.

A tournament is a round robin (every two strategies of the field) or a gauntlet (one
strategy against each of the others). Every pairing plays the SAME deal indices
``0 .. deals - 1`` of one master seed, each deal twice with the seats swapped (duplicate
play), so luck of the deal cancels within a pairing and is shared across pairings. At a
table of three to six players (``rules.players``) the pairings are *line-ups* of that many
strategies and each deal is played in every seating of its line-up
(:mod:`durak_sim.lineups`); the same machinery plays, stores and resumes them, and the
report rates the strategies from their places (:mod:`durak_sim.place_report`).

Games are played in blocks of about two seconds, the pairings interleaved, and stored in
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
    timing.json        deals/s and durations per session (not part of the same-bytes set;
                       kept up to date at each save, so a killed session's entry stays,
                       with ``ended`` null)

>>> res = run_tournament(["easy", "random"], deals=200, seed=3, out=_doctest_dir(),
...                      progress=False, report=False)
>>> res.complete, res.config.pairings()
(True, [('easy', 'random')])
"""
from __future__ import annotations

import copy
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import UserError, option
from .formatting import secs, wide_console
from .play import resolve_strategies
from .rules import RULES_VERSION, Rules, check_rules
from .files import WriteError, remove_temporaries, sha256_file
from .storage import MANIFEST, DirectoryLock, Manifest, StorageError
from .tournament_config import (CHUNK_DEALS, DEFAULT_DEALS, RUNS_DIR, TournamentConfig, _quote,
                                check_stored, default_out_dir, make_config)

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


def _doctest_dir() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp()) / "t"


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """A tournament run (one session: a fresh run or a resume).

    ``complete``: every chunk is stored; ``report``: the :class:`durak_sim.report.Report`
    built at the end (``None`` when not asked for or not complete); ``deals_played``:
    deal indices x line-ups (pairings) played in this session, ``games_played`` their
    games; ``seconds``: wall time of this session;
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
    games_played: int = 0
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

    def _rate(self) -> str:
        """Deal pairs a second at two players; games a second at larger tables, where one
        deal index is a game in each of many seatings (often well under one a second)."""
        if self.config.players == 2:
            return f"{self.deals_per_second:,.0f} deals/s"
        games = self.games_played / self.kernel_seconds if self.kernel_seconds > 0 else 0.0
        return f"{games:,.1f} games/s"

    def _where(self) -> str:
        if self.workers is not None:
            return f"per task, on {self.workers} dask worker{'s' if self.workers != 1 else ''}"
        return f"on {self.threads} thread{'s' if self.threads != 1 else ''}"

    def print(self, console=None) -> None:
        """The report's tables and this session's timing, as aligned rich tables."""
        from .report import print_report

        if console is None:
            console = wide_console(118)
        if self.report is not None:
            print_report(self.report, console)
        if self.deals_played:
            k = len(self.config.lineups())
            over = f" over {k:,} line-ups, each" if k > 1 else ""
            what = (f"{self.deals_played:,} deals x 2 seats" if self.config.players == 2 else
                    f"{self.deals_played:,} deals{over} in every seating "
                    f"({self.games_played:,} games)")
            console.print(f"played {what} in "
                          f"{secs(self.kernel_seconds)} s of kernel time "
                          f"({self._rate()} {self._where()}; "
                          f"compile/load {secs(self.compile_seconds)} s apart); "
                          f"session {secs(self.seconds)} s")
        else:
            console.print("nothing left to play: every chunk was already stored")
        console.print(f"results in {self.out}")


def _check_threads(threads: int | None) -> None:
    if threads is None:
        return
    from .kernel.threads import thread_limit

    limit = thread_limit()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) \
            or not 1 <= threads <= limit:
        raise UserError(f"{option('--threads', 'threads')} must be in 1..{limit}, got "
                        f"{threads!r}")


WRITE_PROBE = ".durak-sim-write-test"


def _new_out_dir(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise UserError(f"{option('--out', 'out', out)} exists and is not a folder")
        if any(p.name != WRITE_PROBE for p in out.iterdir()):   # (a run killed at the probe)
            raise UserError(f"{option('--out', 'out', out)} exists and is not empty: choose a "
                            f"new folder, or add {option('--resume', 'resume=True')} to "
                            f"continue the tournament stored there")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / WRITE_PROBE
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
        if key == "rules":   # the same game under another name is the same tournament
            if not have.same_game(value):
                diffs.append(f"rules {have.tag} (asked {value.tag}: the rules options of a "
                             f"resume give the whole ruleset, or leave them out)")
        elif key == "chunk_deals" and have != value:
            diffs.append(f"chunk_deals {have} (asked {value}: a tournament keeps the chunk "
                         f"size it was stored with; resume without "
                         f"{option('--chunk', 'chunk_deals')})")
        elif have != value:
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
    if plugins:
        for p in plugins:
            load_plugin(p)
    for p in [] if plugins else stored.plugins:
        try:
            load_plugin(p)
        except ValueError as exc:   # a relative path from another folder, say
            raise UserError(f"{exc} (as {out}'s manifest stores it, relative to the folder "
                            f"the tournament was started in): give it with "
                            f"{option('--plugin PATH', 'plugins=[PATH]')}"
                            ) from None
    asked = {}
    if strategies or gauntlet is not None:
        try:
            asked_cfg = make_config(strategies, deals=stored.deals, seed=stored.seed,
                                    gauntlet=gauntlet, rules=rules or stored.rules)
        except UserError as exc:   # a field no tournament of these rules can be
            raise UserError(f"{out} holds another tournament ({', '.join(stored.strategies)}; "
                            f"rules {stored.rules.tag}); the options given do not fit it: {exc}"
                            ) from None
        asked["strategies"] = asked_cfg.strategies
        asked["gauntlet"] = asked_cfg.gauntlet
    if deals is not None and deals < stored.deals:
        raise UserError(f"{out} holds {stored.deals:,} deals a line-up: a stored tournament "
                        f"grows ({option('--deals', 'deals')} more than {stored.deals:,}) but "
                        f"never drops deals")
    if deals is not None and deals > stored.deals:
        stored = stored.grown(deals)   # more deals: the stored ones stay as they are
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
                   worker_wait: float | None = None,
                   forfeit: bool = False) -> TournamentResult:
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
    the manifest (default: the durak-sim command that plays it again, ``--resume`` with
    the folder when resuming); ``scheduler``: the address of a dask.distributed
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

    from .registry import name_list

    t_start = time.perf_counter()
    _check_threads(threads)
    plugins = tuple(name_list(plugins, "plugins"))
    strategies = None if strategies is None else name_list(strategies, "strategies")
    rules = None if rules is None else check_rules(rules)
    if worker_wait is not None:
        from .limits import MAX_WORKER_WAIT

        if scheduler is None:
            raise UserError(option("--worker-wait needs --scheduler",
                                   "worker_wait needs scheduler"))
        if isinstance(worker_wait, bool) or not isinstance(worker_wait, (int, float)) or \
                not 0 < worker_wait <= MAX_WORKER_WAIT:
            raise UserError(f"{option('--worker-wait', 'worker_wait')} must be in "
                            f"(0, {MAX_WORKER_WAIT:g}] seconds, got {worker_wait!r}")
    if resume:
        if out is None:
            raise UserError(option("--resume needs the folder of the tournament to continue",
                                   "resume=True needs out, the folder of the tournament to "
                                   "continue"))
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise UserError(f"cannot resume: {out} is a file, not a tournament's folder")
        if not out.is_dir() or not (out / MANIFEST).exists():
            raise UserError(f"cannot resume: no tournament was stored in {out} (a run stopped "
                            f"before it began stores nothing): start it again without "
                            f"{option('--resume', 'resume=True')}")
        manifest = Manifest.load(out)
        config = _resume_config(out, manifest, strategies, deals, seed, chunk_deals, gauntlet,
                                rules, plugins)
        if command is None:
            command = f"durak-sim tournament --resume {_quote(str(out))}" + \
                (f" --deals {deals}" if deals is not None else "")
    else:
        from .registry import load_plugin

        for p in plugins:
            load_plugin(p)
        config = make_config(strategies, deals=DEFAULT_DEALS if deals is None else deals,
                             seed=1 if seed is None else seed, chunk_deals=chunk_deals,
                             gauntlet=gauntlet, rules=rules or Rules(), plugins=plugins,
                             forfeit=forfeit)
        out = Path(out) if out is not None else default_out_dir(config.seed)
        if command is None:   # called from Python: the command that plays it again
            command = config.command()
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
        if config.deals != manifest.config["deals"]:   # grown by --deals
            manifest.config = config.to_dict()
        manifest.provenance.setdefault("resumed", []).append(
            {"command": command, "package_version": __version__,
             "at": datetime.now().isoformat(timespec="seconds")})
    manifest.save(out)
    earlier = _timing_sessions(out)   # (read once: this session's entry follows them)
    result = _play(out, config, manifest, threads, progress, console, t_start, earlier,
                   prefetch=report, cluster=cluster)
    result.seconds = time.perf_counter() - t_start
    _write_timing(out, result, t_start, earlier)
    if result.complete and report:
        from .report import build_report

        t, c = time.perf_counter(), cpu_seconds()
        try:
            result.report = build_report(out, known=result.chunk_counts)
        except WriteError as exc:
            raise UserError(f"{exc}; every game is stored: make room, then run: durak-sim "
                            f"report {_quote(str(out))}") from None
        except (ValueError, RuntimeError, ImportError, OSError) as exc:   # a library's setup
            line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UserError(f"the report failed: {line}; every game is stored: durak-sim "
                            f"report {_quote(str(out))} builds it again") from None
        result.report_seconds = time.perf_counter() - t
        result.report_cpu_seconds = cpu_seconds() - c
        result.seconds = time.perf_counter() - t_start
        _write_timing(out, result, t_start, earlier)
    return result


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
          console, t_start: float, earlier: list, prefetch: bool = False,
          cluster=None) -> TournamentResult:
    from . import runner
    from .play import default_threads

    wanted = {(*key, lo) for lo, _ in config.chunk_ranges() for key in config.lineups()}
    total_chunks = len(wanted)
    result = TournamentResult(out=out, config=config, complete=False,
                              chunks_done=len(manifest.done & wanted), chunks_total=total_chunks,
                              threads=threads if cluster is not None
                              else threads or default_threads(),
                              workers=cluster.workers if cluster is not None else None)
    prefetcher = None
    if prefetch and result.chunks_done < total_chunks:
        # its own thread: the imports must not hold up storing the first chunks
        import threading

        prefetcher = threading.Thread(target=_prefetch_report, name="durak-sim-prefetch",
                                      daemon=True)
        prefetcher.start()

    def saved(played) -> None:   # this session's timing so far, in case it is killed
        so_far = copy.copy(result)
        _take_played(so_far, played)
        _write_timing(out, so_far, t_start, earlier, running=True)

    try:
        played = runner.play(out, config, manifest, threads, progress, console, cluster,
                             on_saved=saved)
    except WriteError as exc:   # a chunk's file, or the manifest
        stored = Manifest.load(out)
        raise UserError(f"{exc}; the {len(stored.done & wanted)} chunks stored before are "
                        f"kept: make room, then continue with: "
                        f"{TournamentInterrupted(out, 0, 0, _address(cluster)).resume_command}"
                        ) from None
    except (runner.Stopped, KeyboardInterrupt) as exc:
        # a stop the play took, or a Ctrl-C before it could (the first run's compile)
        # (the prefetching thread is a daemon: no need to wait for its imports)
        prefetcher = None
        stored = Manifest.load(out)
        result.chunks_done = len(stored.done & wanted)
        if getattr(exc, "played", None) is not None:
            _take_played(result, exc.played)
        _write_timing(out, result, t_start, earlier)
        raise TournamentInterrupted(out, result.chunks_done, total_chunks, _address(cluster),
                                    partial=len(stored.partials), reason=str(exc) or None
                                    ) from None
    finally:
        if prefetcher is not None:
            # never fork (the report's drawing processes) while it may hold an import lock
            prefetcher.join()
    _take_played(result, played)
    result.chunks_done = len(manifest.done & wanted)
    result.complete = result.chunks_done == total_chunks
    return result


def _take_played(result: TournamentResult, played) -> None:
    """The session's counts and times (``runner.Played``) into ``result``."""
    result.deals_played = played.deals
    result.games_played = played.games
    result.kernel_seconds = played.kernel_seconds
    result.compile_seconds = played.compile_seconds
    result.chunk_counts = played.chunk_counts



def _timing_sessions(out: Path) -> list:
    """The sessions ``timing.json`` holds (none when it is missing or unreadable)."""
    try:
        sessions = json.loads((out / TIMING).read_text(encoding="utf-8")).get("sessions", [])
    except (OSError, ValueError, AttributeError):
        return []
    return sessions if isinstance(sessions, list) else []


def _write_timing(out: Path, result: TournamentResult, t_start: float, earlier: list,
                  running: bool = False) -> None:
    """``timing.json``: the ``earlier`` sessions' entries, then this session's (never part
    of the report; a write that fails is passed over). ``running``: written after a save
    while it plays, so that a run killed outright keeps its timing up to its last save
    (``ended`` stays null)."""
    from .files import atomic_write_text

    now = datetime.now().isoformat(timespec="seconds")
    sessions = [*earlier, {
        "threads": result.threads, "dask_workers": result.workers,
        "deals_played": result.deals_played,
        "games_played": result.games_played,
        "kernel_seconds": round(result.kernel_seconds, 4),
        "compile_seconds": round(result.compile_seconds, 4),
        "report_seconds": round(result.report_seconds, 4),
        "wall_seconds": round(time.perf_counter() - t_start, 4),
        "deals_per_s": round(result.deals_per_second, 1) if result.kernel_seconds > 0 else None,
        "complete": result.complete,
        "ended": None if running else now,
        **({"last_saved": now} if running else {}),
    }]
    try:
        atomic_write_text(out / TIMING, json.dumps({"sessions": sessions}, indent=1) + "\n")
    except (OSError, StorageError):   # (a courtesy: a run never fails for its timings)
        pass


__all__ = ["CHUNK_DEALS", "DEFAULT_DEALS", "RUNS_DIR", "TournamentConfig",
           "TournamentInterrupted", "TournamentResult", "check_stored", "default_out_dir",
           "make_config", "run_tournament"]

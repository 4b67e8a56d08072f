"""``durak-sim tournament`` and ``durak-sim report``: thin click commands over
:func:`durak_sim.tournament.run_tournament` and :func:`durak_sim.report.build_report`."""
from __future__ import annotations

import shlex
import sys
from contextlib import nullcontext
from pathlib import Path

import click

from .cli_options import (PathParam, Seconds, apply_engine_settings, engine_timeout_option,
                          load_plugins, plugin_option, threads_option)
from .cli_rules import make_rules, rules_options
from .cluster import WORKER_WAIT, quiet_distributed_logging
from .errors import EXIT_USAGE, ExitNow, UserError
from .limits import MAX_CHUNK_DEALS, MAX_DEALS, MAX_INDEX, MAX_WORKER_WAIT

EXIT_INTERRUPTED = 130
# durak_sim.tournament's defaults, repeated for the help text so that starting the CLI does
# not import numpy (tests/test_tournament.py checks that they agree)
DEFAULT_DEALS, CHUNK_DEALS, RUNS_DIR = 1_000, 50_000, "reports/runs"


def _command_line() -> str:
    return "durak-sim " + shlex.join(sys.argv[1:])


@click.command("tournament")
@click.argument("strategies", nargs=-1, metavar="[STRATEGY ...]")
@click.option("--gauntlet", metavar="NAME", default=None,
              help="Play NAME against each of the other strategies instead of a round robin "
                   "(no strategies listed: every other built-in level, expert included; at "
                   "tables of three or more its games are the slow ones).")
@click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=None,
              help=f"Deal indices 0..N-1 per pairing (line-up), each played in every seating "
                   f"(two players: twice, the seats swapped).  [default: {DEFAULT_DEALS}]")
@click.option("--seed", type=click.IntRange(0, MAX_INDEX), default=None,
              help="Master seed.  [default: 1]")
@threads_option
@click.option("--out", type=PathParam(file_okay=True, path_type=Path), default=None,
              help=f"Output folder, new or empty [default: a new "
                   f"{RUNS_DIR}/tournament-<YYYYmmdd-HHMMSS>-seed<S>].")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Continue the interrupted tournament in DIR (or in --out); with "
                   "--deals N more than it holds, grow it to N deals.")
@click.option("--chunk", "chunk_deals", type=click.IntRange(1, MAX_CHUNK_DEALS), default=None,
              help=f"Deal indices per stored chunk (a chunk still being played is saved in "
                   f"part every 2 s).  [default: {CHUNK_DEALS:,}, more for a tournament of "
                   f"over 20,000 chunks]")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress and a score line per pairing on stderr (only when it is "
                   "a terminal).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Play the chunks on the workers of this dask.distributed scheduler "
                   "(tcp://host:8786; needs durak-sim[distributed]); this process stores "
                   "them. --threads is then per task (default: the worker machine's cores "
                   "shared among the task slots of its workers).")
@click.option("--worker-wait", type=Seconds(0, MAX_WORKER_WAIT, min_open=True), default=None,
              metavar="SECONDS",
              help=f"With --scheduler: how long the run may see no dask worker (at the "
                   f"start, or when every worker is gone: one restarting is normal, dask "
                   f"plays its tasks again) or no answer from the scheduler before it stops, "
                   f"resumable.  [default: {WORKER_WAIT:g}]")
@click.option("--forfeit", is_flag=True,
              help="Score a game in which an external engine (engine:PATH) fails as its loss "
                   "and go on, instead of stopping; the manifest and the report list them.")
@engine_timeout_option
@rules_options
@plugin_option
def tournament_command(strategies, gauntlet, deals, seed, threads, out, resume, chunk_deals,
                       progress, scheduler, worker_wait, forfeit, engine_timeout, rules_spec,
                       plugins):
    """Play every pairing of STRATEGY ... (default: random, easy, normal and hard; expert
    only when named, or in a --gauntlet that lists no field) over the same
    seeded deals, store every game, and write a report.

    Each pairing plays deal indices 0..N-1, each twice with the seats swapped. With
    --players 3 to 6 (or --rules teams) the field plays at tables of that size: a field of
    exactly that many strategies is one line-up (name one more than once to seat it more
    than once: hard easy easy easy), a larger one every combination of that many (with
    --gauntlet: those that hold NAME; with teams each of them split into partnerships in
    every way); each deal is played in every seating of a line-up (every distinct order up
    to four players; rotations and mirrored rotations at five and six; partnerships kept
    with teams), and the report rates the strategies from their places (Plackett-Luce).
    Finished
    chunks are stored as they come (Parquet + manifest.json), so an interrupted run
    continues with --resume DIR without losing or redoing them; the tables are then the
    same bytes as an uninterrupted run's. --resume DIR --deals N with more deals than it
    holds grows a finished (or unfinished) tournament: the new deals are played and the
    report covers all N, the same bytes as a tournament of N deals. Ctrl-C stops after saving (exit code 130); so
    does a dask cluster that fails during the run (exit code 2).
    """
    from .tournament import TournamentInterrupted, run_tournament

    load_plugins(plugins)
    apply_engine_settings(engine_timeout)
    given = any(v is not None for v in rules_spec.values())
    rules = make_rules(rules_spec) if given else None
    if resume is not None:
        folder = Path(resume) if resume else out
        if folder is None:
            raise UserError("--resume needs the tournament's folder: --resume DIR or "
                            "--out DIR --resume")
        if resume and out is not None and Path(resume) != out:
            raise UserError(f"--resume {resume} and --out {out} name different folders")
        out = folder
    try:
        with quiet_distributed_logging() if scheduler is not None else nullcontext():
            result = run_tournament(list(strategies) or None, deals, seed, out, threads,
                                    gauntlet=gauntlet, resume=resume is not None,
                                    progress=progress, chunk_deals=chunk_deals,
                                    plugins=plugins, command=_command_line(), rules=rules,
                                    scheduler=scheduler, worker_wait=worker_wait,
                                    forfeit=forfeit)
    except TournamentInterrupted as exc:
        if exc.reason is not None:   # the cluster failed: one line, as every error
            click.echo(f"durak-sim: error: {exc}; resume with: {exc.resume_command}",
                       err=True)
            raise ExitNow(EXIT_USAGE)
        click.echo(f"durak-sim: {exc}", err=True)
        click.echo(f"resume with: {exc.resume_command}", err=True)
        raise ExitNow(EXIT_INTERRUPTED)
    except KeyboardInterrupt as exc:   # outside the play: connecting to a cluster, say
        click.echo(" ".join(["durak-sim: interrupted", *map(str, exc.args)]), err=True)
        raise ExitNow(EXIT_INTERRUPTED)
    result.print()


@click.command("report")
@click.argument("folder", type=PathParam(path_type=Path))
def report_command(folder):
    """Rebuild the tables, plots, report.md and report.html of the tournament stored in
    FOLDER from its stored games alone (of a stopped one: every game it stored, the
    chunks stored in part included; the report says it is incomplete)."""
    from .report import build_report, print_report
    from .storage import DirectoryLock

    if not Path(folder).is_dir():
        raise UserError(f"no tournament folder {folder}")
    # a tournament playing into the folder holds it: its report would be overwritten half
    # way by the run's own (a mix of two reports)
    import shlex

    from .files import WriteError

    with DirectoryLock(Path(folder)):
        try:
            rep = build_report(folder)
        except WriteError as exc:   # a full disk, a read-only folder: say what is kept
            raise UserError(f"{exc}; every stored game is kept: make room (or the folder "
                            f"writable), then run again: durak-sim report "
                            f"{shlex.quote(str(folder))}") from None
        print_report(rep)


__all__ = ["report_command", "tournament_command"]

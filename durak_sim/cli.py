"""The ``durak-sim`` command line: a thin layer over the public API.

Every user error is one line on stderr (``durak-sim: error: ...``) and exit code 2.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from .errors import EXIT_USAGE, ExitNow, UserError
from .limits import MAX_BENCH_DEALS, MAX_DEALS, MAX_INDEX, MAX_RECORD_DEALS, MAX_REPEAT


def fail(message: str) -> None:
    click.echo(f"durak-sim: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


class Group(click.Group):
    """Turns every known error class into one line and exit code 2, never a traceback."""

    def main(self, args=None, *rest, standalone_mode=True, **kwargs):
        try:
            return super().main(args, *rest, standalone_mode=False, **kwargs)
        except ExitNow as exc:
            if args is None:   # the real command line, not a test's in-process call
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(exc.code)
            sys.exit(exc.code)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("durak-sim: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            fail(exc.format_message().replace("\n", " "))
        except (UserError, ValueError, OSError) as exc:
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except RuntimeError as exc:  # an illegal strategy action and the like
            fail(str(exc).splitlines()[0])


def load_plugins(plugins) -> None:
    from .registry import load_plugin

    for p in plugins:
        load_plugin(p)


plugin_option = click.option(
    "--plugin", "plugins", multiple=True, metavar="MODULE|FILE.py",
    help="Import a module that registers strategies (repeatable).")
seed_option = click.option("--seed", type=click.IntRange(0, MAX_INDEX), default=1,
                           show_default=True, help="Master seed.")
threads_option = click.option("--threads", type=click.IntRange(1), default=None,
                              help="Threads (default: all cores).")


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="durak-sim")
def main():
    """Measure how strong Durak-playing AIs are."""


@main.command()
@plugin_option
def strategies(plugins):
    """List the registered strategies, one line each."""
    from .registry import get_strategy, strategy_names

    load_plugins(plugins)
    for name in strategy_names():
        s = get_strategy(name)
        kind = "numba" if s.compiled else "python"
        click.echo(f"{s.name:<12} v{s.version}  {kind:<6}  {s.description}")


def check_output_file(path: Path, force: bool, option: str) -> None:
    """``path`` may be written (atomically, later): its folder is writable, and it does not
    exist unless ``force``. Nothing is created or changed here."""
    import tempfile

    if path.is_dir():
        raise UserError(f"{option} {path} is a folder")
    if path.exists() and not force:
        raise UserError(f"{option} {path} exists: add --force to replace it")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".durak-sim-", delete=True):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


@main.command()
@click.argument("a")
@click.argument("b")
@click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=10_000, show_default=True,
              help=f"Deal indices to play (each twice, seats swapped, unless --no-swap); at "
                   f"most {MAX_RECORD_DEALS:,} with --records.")
@seed_option
@threads_option
@click.option("--swap/--no-swap", default=True, show_default=True,
              help="Play every deal twice with the seats swapped (duplicate play).")
@click.option("--records", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every game record (JSON Lines, durak-sim/record/1), in deal order.")
@click.option("--force", is_flag=True, help="Replace an existing --records file.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress and the running score on stderr (only when it is a "
                   "terminal).")
@click.option("--sprt", nargs=2, type=float, default=None, metavar="ELO0 ELO1",
              help="Stop early by a pentanomial SPRT of H0 elo=ELO0 against H1 elo=ELO1 on "
                   "deal pairs (checked every 1,000 pairs; --deals is then the maximum).")
@plugin_option
def match(a, b, deals, seed, threads, swap, records, force, as_json, progress, sprt, plugins):
    """Play strategy A against strategy B over seeded deals.

    Ctrl-C ends the match within about a second: the summary (and --records) then hold
    every deal finished, and the exit code is 130."""
    from .match import run_match
    from .play import resolve_strategies

    load_plugins(plugins)
    resolve_strategies([a, b])   # unknown names are refused before any file is touched
    if records is not None:
        if deals > MAX_RECORD_DEALS:
            raise UserError(f"--records keeps at most {MAX_RECORD_DEALS:,} deals, got "
                            f"--deals {deals:,}")
        check_output_file(records, force, "--records")
    if sprt is not None:
        from .sprt_match import run_sprt

        if records is not None or not swap:
            raise UserError("--sprt plays seat-swapped deal pairs and keeps no records")
        result = run_sprt(a, b, sprt[0], sprt[1], seed=seed, threads=threads, max_deals=deals,
                          progress=progress, interruptible=True)
        if as_json:
            click.echo(json.dumps(result.to_dict()))
        else:
            result.print()
        if result.interrupted:
            click.echo(f"durak-sim: interrupted after {result.deals:,} deal pairs", err=True)
            raise ExitNow(130)
        return
    summary = run_match(a, b, deals=deals, seed=seed, threads=threads, swap=swap,
                        records=records, progress=progress, interruptible=True)
    if as_json:
        click.echo(json.dumps(summary.to_dict()))
    else:
        summary.print()
    if summary.interrupted_of is not None:
        click.echo(f"durak-sim: interrupted after {summary.deals:,} of "
                   f"{summary.interrupted_of:,} deals"
                   + (f"; {records} holds their records" if records is not None else ""),
                   err=True)
        raise ExitNow(130)


@main.command()
@click.option("--seed", type=click.IntRange(0, MAX_INDEX), required=True, help="Master seed.")
@click.option("--deal", type=click.IntRange(0, MAX_INDEX), required=True, help="Deal index.")
@click.option("--seats", required=True, metavar="A,B", help="Strategy per seat, seat 0 first.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record (one line).")
@plugin_option
def replay(seed, deal, seats, as_json, plugins):
    """Rebuild one deal from its seed and print it card by card."""
    from .replay import replay_deal, render_record
    from .records import dumps

    load_plugins(plugins)
    names = [s.strip() for s in seats.split(",")]
    rec = replay_deal(seed, deal, names)
    click.echo(dumps(rec) if as_json else render_record(rec))


@main.command()
@click.option("--pairing", default="random,random", show_default=True, metavar="A,B",
              help="Strategies to time.")
@click.option("--deals", type=click.IntRange(1, MAX_BENCH_DEALS), default=200_000,
              show_default=True, help="Deals a timed run (one kernel call).")
@click.option("--threads", "thread_list", default=None, metavar="1,2",
              help="Thread counts to run (default: 1 and all cores).")
@click.option("--repeat", type=click.IntRange(1, MAX_REPEAT), default=3, show_default=True,
              help="Timed runs per thread count; the best is reported.")
@seed_option
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress on stderr (only when it is a terminal).")
@plugin_option
def bench(pairing, deals, thread_list, repeat, seed, progress, plugins):
    """Time the kernel: deals/s and decisions/s, one JSON line per thread count.

    Each timed run is one kernel call of DEALS deals (Ctrl-C is answered when it ends):
    choose --deals so that a run takes seconds, not minutes, for a slow pairing."""
    from .bench import run_bench
    from .progress import Board, live

    load_plugins(plugins)
    names = [s.strip() for s in pairing.split(",")]
    threads = None
    if thread_list:
        try:
            threads = [int(t) for t in thread_list.split(",")]
        except ValueError:
            raise UserError(f"--threads takes comma-separated integers, got {thread_list!r}") from None
    board = Board(f"bench {','.join(names)}: {deals:,} deals a run, {repeat} runs per "
                  f"thread count, seed {seed}", unit="deals")
    with live(board, progress):
        for line in run_bench(names, deals=deals, threads=threads, repeat=repeat, seed=seed,
                              board=board):
            print(json.dumps(line), flush=True)   # (above the board on a terminal)


def _register_optional_commands() -> None:
    try:
        from .cli_tournament import report_command, tournament_command
    except ImportError:  # pragma: no cover - only the copy `python -m` imports a second time
        pass
    else:
        main.add_command(tournament_command)
        main.add_command(report_command)
    try:
        from .cli_solve import solve_command
    except ImportError:  # pragma: no cover - the solver ships with the package
        return
    main.add_command(solve_command)


_register_optional_commands()

if __name__ == "__main__":  # pragma: no cover
    main()

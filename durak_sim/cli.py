"""The ``durak-sim`` command line: a thin layer over the public API.

Every user error is one line on stderr (``durak-sim: error: ...``) and exit code 2.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from .errors import EXIT_USAGE, IN_COMMAND, ExitNow, Interrupted, UserError
from .cli_options import (PathParam, apply_engine_settings, check_output_file,
                          engine_timeout_option, load_plugins, plugin_option, seed_option,
                          split_list, stdout_to_devnull, threads_option)
from .cli_rules import LINEUP_PLAYERS, rules_options
from .limits import (MAX_BENCH_DEALS, MAX_DEALS, MAX_INDEX, MAX_RECORD_SEAT_GAMES,
                     MAX_REPEAT, MAX_SERIES_DEALS)


def fail(message: str) -> None:
    try:
        click.echo(f"durak-sim: error: {message}", err=True)
    except OSError:   # stderr closed (2>&-): the exit code still says it
        pass
    sys.exit(EXIT_USAGE)


#: numba's words when neither its cache folders nor NUMBA_CACHE_DIR can be written
NO_CACHE_FOLDER = "no locator available"


class Group(click.Group):
    """Turns every known error class into one line and exit code 2, never a traceback."""

    def main(self, args=None, *rest, standalone_mode=True, **kwargs):
        if args is None:   # the real command line, not a test's in-process call
            _standard_streams_open()
            _stop_on_terminate()
            _printable_everywhere()
            _numba_settings_checked()
        command = IN_COMMAND.set(True)   # (errors name the command's options)
        try:
            try:
                return super().main(args, *rest, standalone_mode=False, **kwargs)
            finally:
                _close_engines()   # before any exit: no engine process is left running
                IN_COMMAND.reset(command)
        except ExitNow as exc:
            if args is None:   # the real command line, not a test's in-process call
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(exc.code)
            sys.exit(exc.code)
        except BrokenPipeError:   # the reader of stdout went away: no one to tell
            stdout_to_devnull()
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort as exc:
            cause = exc.__cause__
            said = str(cause) if isinstance(cause, Interrupted) and str(cause) else ""
            click.echo(f"durak-sim: {said or 'interrupted'}", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
                # (click 8.2+ raises it; 8.1 printed the help itself)
                click.echo(exc.ctx.get_help())   # no command: the help, as with --help
                sys.exit(0)
            fail(exc.format_message().replace("\n", " "))
        except OSError as exc:   # (one the code did not word: its cause and file, no errno)
            fail(f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else
                 str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except (UserError, ValueError) as exc:
            fail(_with_thread_settings(str(exc).splitlines()[0]) if str(exc) else
                 type(exc).__name__)
        except RuntimeWarning as exc:   # a numba setting it cannot read (at its import)
            fail(_unreadable_setting(str(exc)))
        except RuntimeError as exc:  # an illegal strategy action and the like
            line = str(exc).splitlines()[0]
            if NO_CACHE_FOLDER in line:   # a read-only install and a read-only home
                line += "; numba's cache needs a writable folder: set NUMBA_CACHE_DIR to one"
            fail(line)


#: numba's settings of its threads, which its own errors about them do not name
THREAD_SETTINGS = ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER")


def _with_thread_settings(line: str, env=os.environ) -> str:
    """numba's line about its threads, with the settings in effect named.

    >>> _with_thread_settings("Number of threads specified must be > 0.",
    ...                       {"NUMBA_NUM_THREADS": "0"})
    "Number of threads specified must be > 0. (NUMBA_NUM_THREADS='0')"
    >>> _with_thread_settings("seed must be an integer", {"NUMBA_NUM_THREADS": "0"})
    'seed must be an integer'
    """
    set_ = [f"{n}={env[n]!r}" for n in THREAD_SETTINGS if n in env]
    if set_ and "thread" in line.lower():
        return f"{line} ({', '.join(set_)})"
    return line


def _numba_settings_checked() -> None:
    """numba reads its settings (``NUMBA_NUM_THREADS``, ``NUMBA_DISABLE_JIT``, ...) when it
    is first imported and warns, with a traceback, of one it cannot parse, then goes on
    without it. Here that warning is an error instead: one line (:func:`_unreadable_setting`)
    and exit code 2."""
    import warnings

    warnings.filterwarnings("error", message="Environment variable '", category=RuntimeWarning,
                            module=r"numba\.")


def _unreadable_setting(text: str) -> str:
    """numba's warning of a setting it cannot parse, as one line.

    >>> _unreadable_setting("Environment variable 'NUMBA_NUM_THREADS' is defined but its "
    ...                     "associated value 'abc' could not be parsed.\\nThe parse ...")
    "numba cannot read NUMBA_NUM_THREADS='abc': give it a valid value or unset it"
    """
    import re

    m = re.match(r"Environment variable '([^']*)' is defined but its associated value "
                 r"'(.*)' could not be parsed", text, re.S)
    if m is None:
        return text.splitlines()[0] if text else "a numba setting cannot be read"
    return f"numba cannot read {m[1]}={m[2]!r}: give it a valid value or unset it"


def _stop_on_terminate() -> None:
    """SIGTERM (``kill``) and SIGHUP (the terminal closed) stop a command as Ctrl-C does:
    the finished deals are kept and reported, records and stored results written, engines
    closed; a second one stops at once. They are passed on as SIGINT, so they reach
    whatever handles Ctrl-C at that moment; where SIGINT is ignored (a job started in the
    background by a script), a play's stop flag takes them itself (``stops_like_ctrl_c``:
    :class:`durak_sim.stopping.StopFlag`), and elsewhere they raise KeyboardInterrupt."""
    import signal

    def forward(signum, frame):
        if callable(signal.getsignal(signal.SIGINT)):
            os.kill(os.getpid(), signal.SIGINT)
        else:
            raise KeyboardInterrupt

    forward.stops_like_ctrl_c = True

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, forward)


def _standard_streams_open() -> None:
    """A standard stream closed before the command started (``>&-``) is pointed at the null
    device: else the first file the command opens would get its number, and whatever
    writes to that stream (a child process, a library's C code) would write into the file."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)   # (the lowest free number: this one)
        if getattr(sys, name) is None:   # Python found it closed: a stdin then reads as
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", closefd=False))  # empty


def _printable_everywhere() -> None:
    """On a stream whose encoding lacks a character durak-sim prints (``≥``, ``♠``: an
    ASCII terminal, ``PYTHONIOENCODING=ascii``) the character becomes ``?`` instead of the
    output stopping half way."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def _close_engines() -> None:
    external = sys.modules.get("durak_sim.external")
    if external is not None:
        external.close_all()


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="durak-sim")
def main():
    """Measure how strong Durak-playing AIs are."""


@main.command()
@plugin_option
def strategies(plugins):
    """List the registered strategies, one line each: name, version, numba or python, the
    tables it plays (all, or 2p: only the two-player default game), what it does. The
    built-in levels first, weakest first; then the plugins', as registered."""
    from .registry import BUILTIN_LEVELS, get_strategy, strategy_names

    load_plugins(plugins)
    names = strategy_names()
    names = [n for n in BUILTIN_LEVELS if n in names] + \
        [n for n in names if n not in BUILTIN_LEVELS]
    click.echo(f"{'name':<12} {'ver':<3}  {'code':<6}  {'tables':<6}  what it does")
    for name in names:
        s = get_strategy(name)
        kind = "numba" if s.compiled else "python"
        tables = "all" if s.plays == "all" else "2p"   # every table, or the default game
        source = f"  [package {s.distribution}]" if s.distribution else ""
        click.echo(f"{s.name:<12} v{s.version:<2}  {kind:<6}  {tables:<6}  "
                   f"{s.description}{source}")


def _lineup(names, rules_spec, option="STRATEGY"):
    """The line-up and its ruleset: ``--players`` defaults to the line-up's size; every
    strategy must be known and must play the ruleset (one line otherwise)."""
    from .cli_rules import make_rules
    from .play import check_supported, resolve_strategies

    names = [n.strip() for n in names]
    if len(names) < 2:
        raise UserError(f"name at least two strategies ({option} ...), one per seat")
    rules = make_rules(rules_spec, players=len(names))
    if len(names) != rules.players:
        raise UserError(f"{rules.players} players need {rules.players} strategies, one per "
                        f"seat, got {len(names)}: {' '.join(names)}")
    check_supported(resolve_strategies(names), rules)
    if any(n.startswith("engine:") for n in names):
        from .external import configure

        configure(rules=rules)
    return names, rules


def _records_file(records, force, games: int, players: int):
    """The records file checked (``files.Claim``), or None without --records."""
    if records is None:
        return None
    if games * players > MAX_RECORD_SEAT_GAMES:
        most = MAX_RECORD_SEAT_GAMES // players
        raise UserError(f"--records keeps at most {most:,} games at {players} players "
                        f"(their records grow with the seats), got {games:,}")
    return check_output_file(records, force, "--records")


@main.command()
@click.argument("strategies", nargs=-1, required=True, metavar="STRATEGY...")
@click.option("--deals", type=click.IntRange(1, MAX_DEALS), default=10_000, show_default=True,
              help=f"Deal indices to play (each once per seating, unless --no-swap); with "
                   f"--records at most {MAX_RECORD_SEAT_GAMES // 2:,} games at two players, "
                   f"{MAX_RECORD_SEAT_GAMES:,} seat-games at larger tables.")
@seed_option
@threads_option
@click.option("--swap/--no-swap", default=True, show_default=True,
              help="Play every deal once per rotation of the line-up over the seats (two "
                   "players: twice, seats swapped; duplicate play).")
@click.option("--records", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="Write every game record (JSON Lines, durak-sim/record/1), in deal order.")
@click.option("--force", is_flag=True, help="Replace an existing --records file.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress and the running score on stderr (only when it is a "
                   "terminal).")
@click.option("--sprt", nargs=2, type=float, default=None, metavar="ELO0 ELO1",
              help="Stop early by a pentanomial SPRT of H0 elo=ELO0 against H1 elo=ELO1 on "
                   "deal pairs (two players; checked every 1,000 pairs; --deals is then the "
                   "maximum).")
@click.option("--forfeit", is_flag=True,
              help="Score a game in which an external engine fails (crashes, hangs past "
                   "--engine-timeout, prints garbage, plays an illegal action) as its loss "
                   "and go on, instead of stopping.")
@engine_timeout_option
@rules_options(players=LINEUP_PLAYERS)
@plugin_option
def match(strategies, deals, seed, threads, swap, records, force, as_json, progress, sprt,
          forfeit, engine_timeout, rules_spec, plugins):
    """Play the line-up STRATEGY... (one per seat, seat 0 first) over seeded deals.

    Two strategies play a two-player match (A against B); more play at a table of that
    many players (--players N, --rules NAME: durak-sim docs rulesets). A strategy engine:PATH (or
    engine:"CMD ARGS") is an external program (durak-sim docs engine-protocol). Ctrl-C ends the
    match within about a second: the summary (and --records) then hold every deal
    finished, and the exit code is 130."""
    from .match import run_match

    load_plugins(plugins)
    apply_engine_settings(engine_timeout)
    names, rules = _lineup(strategies, rules_spec)   # before any file is touched
    claimed = _records_file(records, force, deals * (rules.players if swap else 1),
                            rules.players)
    if any(n.startswith("engine:") for n in names) and sprt is None:
        from .engine_match import run_engine_match
        from .play import _thread_count

        _thread_count(threads)   # (one thread plays an engine's games; a bad value is told)

        result = run_engine_match(names, deals=deals, seed=seed, rules=rules, swap=swap,
                                  records=records, forfeit=forfeit, progress=progress,
                                  interruptible=True)
        _finish_summary(result, as_json, claimed, summary=result.summary)
        return
    if forfeit:
        raise UserError("--forfeit is for line-ups with an external engine (engine:PATH), "
                        "without --sprt")
    if rules.players > 2:
        if sprt is not None:
            raise UserError("--sprt is for two players")
        from .table_match import run_table_match

        summary = run_table_match(names, deals=deals, seed=seed, rules=rules, threads=threads,
                                  swap=swap, records=records, progress=progress,
                                  interruptible=True)
        _finish_summary(summary, as_json, claimed)
        return
    a, b = names
    if sprt is not None:
        from .sprt_match import run_sprt

        if not swap:
            raise UserError("--sprt plays seat-swapped deal pairs: leave out --no-swap")
        if records is not None:
            raise UserError("--sprt keeps no records: leave out --records")
        result = run_sprt(a, b, sprt[0], sprt[1], seed=seed, threads=threads, max_deals=deals,
                          progress=progress, interruptible=True, rules=rules)
        if as_json:
            click.echo(json.dumps(result.to_dict()))
        else:
            result.print()
        if result.interrupted:
            click.echo(f"durak-sim: interrupted after {result.deals:,} deal pairs", err=True)
            raise ExitNow(130)
        return
    summary = run_match(a, b, deals=deals, seed=seed, threads=threads, swap=swap,
                        records=records, progress=progress, interruptible=True, rules=rules)
    _finish_summary(summary, as_json, claimed)


def _finish_summary(result, as_json, claimed, what="deals", summary=None) -> None:
    """Print the summary; then what stopped the run (exit 130), and where the records went
    if a file appeared at their path meanwhile (kept: exit 2 unless 130)."""
    summary = result if summary is None else summary
    if as_json:
        click.echo(json.dumps(result.to_dict()))
    else:
        result.print()
    if summary.interrupted_of is not None:
        click.echo(f"durak-sim: interrupted after {summary.deals:,} of "
                   f"{summary.interrupted_of:,} {what}"
                   + (f"; {claimed.written} holds their records" if claimed else ""),
                   err=True)
    if claimed is not None and claimed.kept is not None:
        click.echo(f"durak-sim: error: {claimed.message}", err=True)
        raise ExitNow(2 if summary.interrupted_of is None else 130)
    if summary.interrupted_of is not None:
        raise ExitNow(130)


@main.command()
@click.argument("strategies", nargs=-1, required=True, metavar="STRATEGY...")
@click.option("--deals", type=click.IntRange(1, MAX_SERIES_DEALS), required=True,
              help="Deals in each series.")
@click.option("--series", "n_series", type=click.IntRange(1, MAX_DEALS), default=1_000,
              show_default=True,
              help=f"Series to play (series 0..N-1; at most {MAX_DEALS:,} deals in all).")
@seed_option
@threads_option
@click.option("--records", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="Write every deal's game record (JSON Lines), series by series.")
@click.option("--force", is_flag=True, help="Replace an existing --records file.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress on stderr (only when it is a terminal).")
@engine_timeout_option
@rules_options(players=LINEUP_PLAYERS)
@plugin_option
def series(strategies, deals, n_series, seed, threads, records, force, as_json, progress,
           engine_timeout, rules_spec, plugins):
    """Play series of DEALS deals at one table, the line-up STRATEGY... in seat order (R9).

    In each series the Durak of a deal deals the next (after a draw the same dealer again),
    the seat after the dealer attacks first; deal k of series j is fixed by (seed, j, k).
    Prints per strategy the lost deals (Durak), first-out deals, places and the series score
    (+1 first out, -1 Durak, R9.2)."""
    from .table_match import run_table_match

    if deals * n_series > MAX_DEALS:
        raise UserError(f"--series {n_series:,} of --deals {deals:,} is {deals * n_series:,} "
                        f"deals: a run plays at most {MAX_DEALS:,}")
    load_plugins(plugins)
    apply_engine_settings(engine_timeout)
    names, rules = _lineup(strategies, rules_spec)
    claimed = _records_file(records, force, deals * n_series, rules.players)
    summary = run_table_match(names, deals=n_series, seed=seed, rules=rules, threads=threads,
                              swap=False, records=records, progress=progress,
                              interruptible=True, series_deals=deals)
    _finish_summary(summary, as_json, claimed, what="series")


@main.command()
@click.option("--seed", type=click.IntRange(0, MAX_INDEX), default=None, help="Master seed.")
@click.option("--deal", type=click.IntRange(0, MAX_INDEX), default=None,
              help="Deal index (with --series: the deal's number in the series, from 0).")
@click.option("--series", "series_index", type=click.IntRange(0, MAX_INDEX), default=None,
              help="Replay deal --deal of series number SERIES (durak-sim series).")
@click.option("--seats", default=None, metavar="A,B,...",
              help="Strategy per seat, seat 0 first (a comma inside quotes is an engine's).")
@click.option("--record", "record_file", type=PathParam(dir_okay=False, path_type=Path),
              default=None, help="Show the game records of this file (JSON Lines: "
                                 "durak-sim play, match or series --records) instead of playing "
                                 "a deal; with --deal, only that deal's.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record (one line).")
@engine_timeout_option
@rules_options(players=LINEUP_PLAYERS)
@plugin_option
def replay(seed, deal, series_index, seats, record_file, as_json, engine_timeout, rules_spec,
           plugins):
    """Rebuild one deal from its seed (--seed, --deal, --seats) and print it card by card;
    or show the games of a record file (--record FILE)."""
    from .records import dumps
    from .replay import render_record, replay_deal

    if record_file is not None:
        from .cli_play import show_records

        extra = [o for o, v in (("--seed", seed), ("--seats", seats)) if v is not None]
        extra += ["the rules options"] if any(v is not None for v in rules_spec.values()) else []
        if extra:
            one = len(extra) == 1 and extra[0].startswith("--")
            raise UserError(f"--record shows the games of a file as recorded: "
                            f"{', '.join(extra)} {'does' if one else 'do'} not apply "
                            f"(--deal and --series pick games)")
        if series_index is not None and deal is None:
            raise UserError("--series with --record needs --deal (the deal of that series)")
        show_records(record_file, deal, as_json, series_index)
        return
    missing = [o for o, v in (("--seed", seed), ("--deal", deal), ("--seats", seats))
               if v is None]
    if missing:
        raise UserError(f"replay needs {', '.join(missing)} (or --record FILE)")
    load_plugins(plugins)
    apply_engine_settings(engine_timeout)
    names, rules = _lineup(split_list(seats), rules_spec, option="--seats")
    if series_index is not None and deal >= MAX_SERIES_DEALS:
        raise UserError(f"a series has at most {MAX_SERIES_DEALS:,} deals: --deal must be "
                        f"below it")
    rec = replay_deal(seed, deal, names, rules, series=series_index)
    click.echo(dumps(rec) if as_json else render_record(rec))


@main.command()
@click.option("--pairing", default="random,random", show_default=True, metavar="A,B,...",
              help="Strategies to time, one per seat.")
@click.option("--deals", type=click.IntRange(1, MAX_BENCH_DEALS), default=200_000,
              show_default=True, help="Deals a timed run (one kernel call).")
@click.option("--threads", "thread_list", default=None, metavar="1,2",
              help="Thread counts to run (default: 1 and all cores).")
@click.option("--repeat", type=click.IntRange(1, MAX_REPEAT), default=3, show_default=True,
              help="Timed runs per thread count; the best is reported.")
@seed_option
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Live progress on stderr (only when it is a terminal).")
@rules_options(players=LINEUP_PLAYERS)
@plugin_option
def bench(pairing, deals, thread_list, repeat, seed, progress, rules_spec, plugins):
    """Time the kernel: deals/s and decisions/s, one JSON line per thread count.

    Each timed run is one kernel call of DEALS deals: choose --deals so that a run takes
    seconds, not minutes, for a slow pairing. Ctrl-C stops the run under way between two
    games (exit code 130); the thread counts printed before it stand, that run is not
    reported.

    \b
    A line's fields: bench ("kernel"), pairing, rules, versions (each strategy's),
    threads, deals, repeat; seconds_best and seconds_median of the timed runs;
    deals_per_s and decisions_per_s of the best run; decisions_per_deal (the
    strategies' decisions, forced moves not counted); compile_s (compiling or loading
    from numba's cache, before and apart from the timed runs); cpus, machine, python,
    numba, durak_sim and numpy (what ran it)."""
    from .bench import run_bench
    from .progress import Board, live, print_line

    load_plugins(plugins)
    names, rules = _lineup(split_list(pairing), rules_spec, option="--pairing")
    threads = None
    if thread_list is not None:
        try:
            threads = [int(t) for t in thread_list.split(",")]
        except ValueError:
            raise UserError(f"--threads takes comma-separated integers, got {thread_list!r}") from None
        if len(set(threads)) < len(threads):
            raise UserError(f"--threads lists a thread count twice: {thread_list!r}")
    board = Board(f"bench {','.join(names)}: {deals:,} deals a run, {repeat} runs per "
                  f"thread count, seed {seed}", unit="deals")
    try:
        with live(board, progress):
            for line in run_bench(names, deals=deals, threads=threads, repeat=repeat,
                                  seed=seed, board=board, rules=rules, interruptible=True):
                print_line(board, json.dumps(line))   # (above the board on a terminal)
    except Interrupted as e:
        click.echo(f"durak-sim: {e}", err=True)
        raise ExitNow(130) from None


def _register_optional_commands() -> None:
    from .cli_play import engine_example_command, play_command

    main.add_command(play_command)
    main.add_command(engine_example_command)
    from .cli_docs import docs_command

    main.add_command(docs_command)
    from .cli_tournament import report_command, tournament_command

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

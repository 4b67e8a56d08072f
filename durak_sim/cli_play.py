"""``durak-sim play`` (a person against AIs at the terminal), ``durak-sim engine-example``
and the record files ``durak-sim replay --record FILE`` shows: thin click layers over
:mod:`durak_sim.human`, :mod:`durak_sim.engines` and :mod:`durak_sim.replay`."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli_rules import rules_options
from .errors import ExitNow, UserError
from .cli_options import (PathParam, Seconds, apply_engine_settings, engine_timeout_option,
                          split_list, stdout_to_devnull)
from .human_series import MAX_SERIES_DEALS
from .limits import MAX_INDEX

RUNS_DIR = Path("reports/runs")


def _default_record(seed: int, deal: int, series: bool = False) -> Path:
    import datetime

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = RUNS_DIR / f"play-{stamp}-seed{seed}-{'series' if series else 'deal'}{deal}"
    path, k = base.with_suffix(".jsonl"), 1
    while path.exists():
        k += 1
        path = base.with_name(f"{base.name}-{k}.jsonl")
    return path


def _lineup(ai: str | None, rules_spec: dict):
    """The ruleset and the AIs of seats 1..n-1: ``--ai A`` for every seat, ``--ai A,B,C``
    one per seat (then the table has one more seat than AIs named)."""
    from .cli_rules import make_rules
    from .play import check_supported, resolve_strategies
    from .rules import MAX_PLAYERS

    names = [n.strip() for n in split_list(ai)] if ai is not None else []
    if any(not n for n in names):
        raise UserError(f"--ai takes LEVEL or LEVEL,LEVEL,... (one per seat after yours), "
                        f"got {ai!r}")
    if len(names) >= MAX_PLAYERS:
        raise UserError(f"--ai lists {len(names)} AIs: with your seat that is {len(names) + 1} "
                        f"players, and a table seats at most {MAX_PLAYERS} (R7)")
    rules = make_rules(rules_spec, players=len(names) + 1 if len(names) > 1 else None)
    if len(names) > 1 and len(names) != rules.players - 1:
        need = rules.players - 1
        raise UserError(f"{rules.players} players need {need} AI{'s' if need != 1 else ''} "
                        f"after your seat, got {len(names)}: {ai}")
    if not names:
        names = ["hard"]   # (it plays every table)
    if len(names) == 1:
        names = names * (rules.players - 1)
    ais = resolve_strategies(names)
    check_supported(ais, rules)
    ais = [s.for_rules(rules) for s in ais]   # (the decide that table compiles fastest)
    if any(n.startswith("engine:") for n in names):
        from .external import configure

        configure(rules=rules)
    return rules, ais


@click.command("play")
@click.option("--ai", default=None, metavar="LEVEL[,LEVEL...]",
              help="The AI in every other seat, or one per seat after yours (seat 1 first): "
                   "random, easy, normal, hard, expert, a plugin's name or "
                   "engine:PATH (a comma inside quotes is the engine's).  [default: hard]")
@click.option("--seed", type=click.IntRange(0, MAX_INDEX), default=None,
              help="Master seed.  [default: a new random one, printed]")
@click.option("--deal", type=click.IntRange(0, MAX_INDEX), default=0, show_default=True,
              help="Deal index.")
@click.option("--deals", "n_deals", type=click.IntRange(1, MAX_SERIES_DEALS), default=None,
              help="Play a series of this many deals (R9): the Durak of a deal deals the next, "
                   "the score (+1 first out, -1 Durak) is shown after each; --deal then "
                   "numbers the series, dealt as durak-sim series deals it.  [default: one "
                   "deal, not a series]")
@click.option("--cards", "card_style", type=click.Choice(["latin", "atlasnye"]),
              default="latin", show_default=True,
              help="Court cards as J Q K A, or as the atlas pack's В Д К Т.")
@click.option("--hint", is_flag=True,
              help="Show the advice at each of your moves (type hint for it any time): the "
                   "exact value of every move once you and one other seat are left with an "
                   "empty stock (not prostoy, not teams), else the --advisor's move.")
@click.option("--advisor", metavar="LEVEL", default=None,
              help="Whose move hint shows before the endgame (expert shows its search per "
                   "move).  [default: expert]")
@click.option("--pace", type=Seconds(0, 60), default=0.6, show_default=True,
              metavar="SECONDS", help="Pause before each AI move is shown (at most a minute).")
@click.option("--record", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help=f"Write the game record here [default: a new file under {RUNS_DIR}/].")
@click.option("--force", is_flag=True, help="Replace an existing --record file.")
@click.option("--color/--no-color", default=True, show_default=True,
              help="Colours (on a terminal that has them; NO_COLOR is honoured too).")
@engine_timeout_option
@click.option("--engine", "game_engine", type=click.Choice(["reference", "kernel"]),
              default="reference", hidden=True,
              help="Step the deal on the reference engine or on the kernel (the same play).")
@rules_options(players="one more than the AIs --ai lists, or the ruleset's when it names "
                        "one level for every seat")
@click.option("--plugin", "plugins", multiple=True, metavar="MODULE|FILE.py",
              help="Import a module that registers strategies (repeatable).")
def play_command(ai, seed, deal, n_deals, card_style, hint, advisor, pace, record, force,
                 color, engine_timeout, game_engine, rules_spec, plugins):
    """Play a deal (or a series of --deals N) yourself in seat 0 against AIs in the other
    seats.

    Each turn shows your hand (by suit and rank, trumps last), the table, the trump, the
    stock, every opponent's hand size and the cards known to be in it, and your legal moves,
    numbered: answer with a number, a card (7d, 10♦, td), a defence (9d 7d: beat 7d with
    9d), take, stop, transfer 8d, done, swap, keep; help, hint, show, quit. Ctrl-C stops
    (exit code 130). The game record is written at the end (also of a game stopped
    midway): durak-sim replay --record FILE shows it; the command that plays the same deal
    again is printed too."""
    import secrets

    from rich.console import Console

    from .cli_options import check_output_file, load_plugins
    from .errors import StrategyFailure
    from .human import ATLASNYE, PlaySession, Quit, Screen
    from .play import prepare
    from .records import write_records
    from .stopping import held_interrupts

    load_plugins(plugins)
    apply_engine_settings(engine_timeout)
    rules, ais = _lineup(ai, rules_spec)
    if advisor is not None:
        from .play import check_supported, resolve_strategies

        (advisor,) = resolve_strategies([advisor])
        check_supported([advisor], rules)
    if seed is None:
        seed = secrets.randbelow(1 << 31)
    path = record if record is not None else _default_record(seed, deal, n_deals is not None)
    if record is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot write the game record in {path.parent}: "
                            f"{exc.strerror or exc}; give --record FILE elsewhere") from None
    claimed = check_output_file(path, force, "--record")
    prepare(ais, kernel=False)   # a cold compile is announced before the deal, not in it
    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich exits at once; raise instead, so that the record is written first
            stdout_to_devnull()
            raise BrokenPipeError("stdout closed")

    console = PipeConsole(highlight=False, emoji=False, no_color=not color or None)
    # a terminal's lines break between words at its width; a pipe's (or a dumb terminal's,
    # whose width rich cannot know) stay whole
    console.soft_wrap = not console.is_terminal or console.is_dumb_terminal
    from .cards import RANK_DISPLAY

    screen = Screen(console, ATLASNYE if card_style == "atlasnye" else RANK_DISPLAY)
    def make(series=None):
        return PlaySession(seed, deal, rules, ais, screen, read=console.input, pace=pace,
                           hint=hint, engine=game_engine, advisor=advisor, series=series)

    if n_deals is None:
        session = make()
    else:
        from .human_series import SeriesPlay

        session = SeriesPlay(make, n_deals, rules, screen, console.input)
    status, failure = "over", None
    try:
        session.run()
    except Quit as exc:
        status = "end of input" if exc.eof else "quit"
    except KeyboardInterrupt:
        status = "interrupted"
    except StrategyFailure as exc:   # said last, after the record and the closing lines
        status, failure = "stopped by a strategy's failure", exc
    except BrokenPipeError:   # (stdout closed: | head, say)
        with held_interrupts(reraise=False):        # (the failure is what to report)
            write_records(path, session.records())
        if claimed.kept is not None:
            click.echo(f"durak-sim: {claimed.message}", err=True)
        raise
    # a stop while the record and the closing lines are written (a second one, or a kill
    # that came twice at once: ``timeout``) waits for them, then ends the command (130)
    with held_interrupts(reraise=False) as held:
        _keep_record(path, session.records())
        try:
            _closing_lines(screen, session, status, claimed.written,
                           _again_command(seed, deal, ais, rules, plugins, n_deals))
            sys.stdout.flush()
        except BrokenPipeError:   # (stdout closed: | head) a failure is still said
            if failure is None:
                raise
    if claimed.kept is not None:   # a file appeared at the record's path while you played
        click.echo(f"durak-sim: {'' if failure else 'error: '}{claimed.message}", err=True)
    if failure is not None:
        raise failure
    if status == "interrupted" or held.hit or claimed.kept is not None:
        raise ExitNow(130 if status == "interrupted" or held.hit else 2)


def _closing_lines(screen, session, status: str, path: Path, again: str) -> None:
    """The result (or where the game stopped), the deal as dealt, the record and the
    command that plays the deal (the series) again."""
    from .human import PlaySession

    what = {"interrupted": "stopped", "quit": "you quit"}.get(status, status)
    if status == "over":
        for line in session.result_lines():
            screen.say(f"[bold]{line}[/]")
    else:
        for line in session.stopped_lines(what):
            screen.say(line)
    for line in session.dealt_lines():
        screen.say(line)
    from rich.markup import escape

    screen.say(escape(f"record: {path}  (durak-sim replay --record {path})"), whole=True)
    series = not isinstance(session, PlaySession)
    screen.say(("the series again" if series else "the deal again") +
               (" from its start" if status != "over" else "") + f": {escape(again)}",
               whole=True)


def _again_command(seed: int, deal: int, ais, rules, plugins=(),
                   n_deals: int | None = None) -> str:
    """The ``durak-sim play`` command of the same deal (series), AIs, rules and plugins."""
    import shlex

    names = [a.name for a in ais]
    ai_arg = names[0] if len(set(names)) == 1 else ",".join(names)
    return f"durak-sim play --seed {seed} --deal {deal}" + \
        (f" --deals {n_deals}" if n_deals is not None else "") + \
        f" --ai {shlex.quote(ai_arg)}" + \
        "".join(f" {a}" for a in rules.cli_args()) + \
        "".join(f" --plugin {shlex.quote(p)}" for p in plugins)


@click.command("engine-example")
def engine_example_command():
    """Print the path of the example external engine shipped with durak-sim (a plain
    Python script: durak-sim match "engine:$(durak-sim engine-example)" easy)."""
    from .engines import EXAMPLES

    click.echo(str(EXAMPLES["lowest_card"]))


def _keep_record(path: Path, recs: list[dict]) -> None:
    """Write a played game's records (a series' every deal); when the file cannot be written
    (a full disk), print them to stdout and say so, rather than lose the game."""
    from .files import WriteError
    from .records import dumps, write_records

    try:
        write_records(path, recs)
    except WriteError as exc:
        for rec in recs:
            click.echo(dumps(rec))
        what = "the game's record is the line above" if len(recs) == 1 else \
            f"the {len(recs)} deals' records are the {len(recs)} lines above"
        it = "it" if len(recs) == 1 else "them"
        raise WriteError(f"{exc}; {what} (save {it} in a .jsonl file for durak-sim replay "
                         f"--record)") from None


# ------------------------------------------------------------------ replay --record FILE
def check_any(rec: dict) -> dict:
    """A record as ``replay --record`` takes it: well formed, its hands and stock the deal
    its seed and deal make (an edited record is told as such, before any of its actions is
    found illegal), and a finished game's actions replaying to its result (a game stopped
    midway or forfeited has none); one line if not."""
    from .records import check_deal, validate_record

    finished = not rec.get("unfinished") and "forfeit" not in rec
    validate_record(rec, unfinished=not finished)
    check_deal(rec)
    if finished:
        from .reference import replay

        replay(rec)
    else:   # its actions legal up to where it stopped (an illegal one: said with the record)
        from .replay import render_record

        render_record(rec)
    return rec


def show_records(path: Path, deal: int | None, as_json: bool,
                 series: int | None = None) -> None:
    """``durak-sim replay --record FILE [--deal I]``: each record of the file (of deal I;
    with ``series``, deal I of that series: a series record's own ``deal`` is its series'
    index). A game stopped midway (``play``'s quit) or forfeited (``--forfeit``) is shown up
    to where it ended."""
    from .records import dumps, read_records

    if not path.is_file():
        raise UserError(f"--record {path}: " + ("not a regular file" if path.exists()
                                                 else "no such file"))

    of_series = False   # a record of a series seen: its "deal" is its series' number

    def chosen():
        nonlocal of_series
        for i, rec in enumerate(read_records(path)):
            if series is not None:
                if rec.get("series") != {"series": series, "deal": deal}:
                    continue
            elif deal is not None:
                if "series" in rec:
                    of_series = True
                    continue
                if rec.get("deal") != deal:
                    continue
            yield i, rec

    # every record is checked before one is shown (two passes: the file may be large)
    shown = 0
    for i, rec in chosen():
        try:
            check_any(rec)
        except ValueError as exc:    # (RecordError) the record does not replay
            raise UserError(f"{path}: record {i + 1}: {exc}") from None
        shown += 1
    if not shown:
        what = (f" of deal {deal} of series {series}" if series is not None else
                f" of deal {deal}" if deal is not None else "")
        hint = (f"; it holds records of series: pick deal K of series J with --series J "
                f"--deal K" if of_series else "")
        raise UserError(f"{path} holds no record{what}{hint}")
    from .replay import render_record

    for k, (i, rec) in enumerate(chosen()):    # (checked above: shown as they are)
        if k and not as_json:
            click.echo("")
        click.echo(dumps(rec) if as_json else render_record(rec))


__all__ = ["play_command", "engine_example_command", "show_records"]

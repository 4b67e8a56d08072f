"""``durak-sim solve FILE [--json]``: solve endgame positions (docs/position.md).

FILE holds one position (a JSON object) or JSON Lines (one position a line; ``-``: standard
input), read one position at a time; answers come in the same order, each as soon as it is
found. Errors (a malformed position, an unreadable file) print one line ``durak-sim: error:
<message>`` on stderr and exit with code 2, before any answer (from a pipe, after the
answers to the positions before the bad one). Every solve has a budget (``--time-limit``,
default ``DEFAULT_TIME_LIMIT`` seconds a position; ``--max-nodes``); a search it stops
prints the bounds it proved. On a terminal, stderr shows the search's progress about once
a second. Ctrl-C stops at once: the answers found so far and what the
current search proved are printed, and the exit code is 130.
"""
from __future__ import annotations

import json
import sys

import click

from .cli_options import PathParam
from .errors import EXIT_USAGE, UserError
from .limits import MAX_NODES
from .seeding import MAX_SEED

#: seconds a position by default: big endgames (10 cards each) take far longer than that
DEFAULT_TIME_LIMIT = 60.0
#: a week: a longer limit is a typo, not a plan (and float("inf") / nan are refused)
MAX_SECONDS = 7 * 24 * 3600.0
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it

VALUE_WORDS = {1: "seat 0 wins, seat 1 is the Durak", 0: "draw",
               -1: "seat 1 wins, seat 0 is the Durak"}
#: a proven range of the value (seat 0's view) that is not one value
RANGE_WORDS = {(0, 1): "seat 0 does not lose, a win is not proven",
               (-1, 0): "seat 0 does not win, a draw is not proven",
               (-1, 1): "not settled yet"}


def _fail(message: str) -> None:
    click.echo(f"durak-sim: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _cause(result, time_limit: float, max_nodes: int, order_nodes: int) -> str:
    """What stopped the search, in words."""
    return {"nodes": f"--max-nodes {max_nodes:,}", "time": f"the time limit ({time_limit:g} s)",
            "interrupt": "an interrupt (Ctrl-C, or a kill)",
            "order_nodes": f"--order-nodes {order_nodes:,}",
            "depth": "the solver's ply limit"}.get(result.stopped_by, "a budget")


def signed(v: int) -> str:
    """A value with its sign, a draw without one.

    >>> [signed(v) for v in (1, 0, -1)]
    ['+1', '0', '-1']
    """
    return f"{v:+d}" if v else "0"


def bounds_str(lo: int, hi: int) -> str:
    """A proven range of the value, seat 0's view.

    >>> bounds_str(0, 1)
    'in [0, +1]: seat 0 does not lose, a win is not proven'
    >>> bounds_str(-1, -1)
    '-1  (seat 1 wins, seat 0 is the Durak)'
    """
    if lo == hi:
        return f"{signed(lo)}  ({VALUE_WORDS[lo]})"
    return f"in [{signed(lo)}, {signed(hi)}]: {RANGE_WORDS[(lo, hi)]}"


def _proven_actions(action_bounds: dict) -> list[str]:
    """The root actions grouped by what the search proved of them (seat 0's view).

    >>> _proven_actions({"attack 6S": [1, 1], "attack 7S": [-1, 1]})
    ['  +1: attack 6S', '  ? : 1 more not settled']
    >>> _proven_actions({"attack 6S": [-1, 1], "attack 7S": [-1, 1]})
    ['  ? : 2 not settled']
    """
    groups: dict[tuple[int, int], list[str]] = {}
    for a, b in action_bounds.items():
        groups.setdefault(tuple(b), []).append(a)
    names = [((1, 1), "+1"), ((0, 0), "0"), ((-1, -1), "-1"), ((0, 1), ">= 0"),
             ((-1, 0), "<= 0")]
    lines = [f"{label:>4}: {', '.join(groups[b])}" for b, label in names if b in groups]
    if (-1, 1) in groups:
        more = " more" if lines else ""
        lines.append(f"  ? : {len(groups[(-1, 1)])}{more} not settled")
    return lines


def _seated(position, words: str) -> str:
    """Words about seats 0 and 1 with the table's seats (a larger table's two seats left)."""
    a, b = position.seats
    if (a, b) != (0, 1):
        words = words.replace("seat 0", "seat A").replace("seat 1", "seat B")
        words = words.replace("seat A", f"seat {a}").replace("seat B", f"seat {b}")
    return words


def _words(position, v: int) -> str:
    """VALUE_WORDS with the table's seats."""
    return _seated(position, VALUE_WORDS[v])


def _json_answer(position, result) -> dict:
    """The ``--json`` object of one answer: at a larger table also ``seats``, the two seats
    left, the value being the first's against the second (docs/position.md)."""
    d = result.to_dict()
    if position.rules is not None and position.rules.players > 2:
        d["seats"] = list(position.seats)
    return d


def _human(i: int, several: bool, position, result, budget: tuple) -> str:
    lines = []
    if several:
        lines.append(f"position {i + 1}")
    if position.to_move is None:
        lines.append(f"  value    {signed(result.value)}  ({_words(position, result.value)}; the "
                     f"deal is over)")
        return "\n".join(lines)
    role = "attacker" if position.to_move == position.attacker else "defender"
    lines.append(f"  to move  {position.seat_name(position.to_move)} ({role}, "
                 f"{position.phase})")
    if position.seats != (0, 1):
        lines.append(f"  (the value is seat {position.seats[0]}'s, against seat "
                     f"{position.seats[1]}: the two seats left)")
    lo, hi = result.bounds
    if result.exact:
        lines.append(f"  value    {signed(result.value)}  ({_words(position, result.value)})")
        order = ("" if result.order_exact
                 else f"  [order cut short by {_cause(result, *budget)}]")
        lines.append(f"  optimal  {', '.join(result.best_actions)}{order}")
    else:
        lines.append(f"  NOT EXACT: stopped by {_cause(result, *budget)}")
        lines.append(f"  value    {_seated(position, bounds_str(lo, hi))}")
        if lo == hi:
            lines.append(f"  optimal  {', '.join(result.best_actions)}  [one of them: the "
                         f"search stopped before finding every optimal action]")
        else:
            lines.append(f"  move     {', '.join(result.best_actions)}  [the best proven so "
                         f"far]")
            proven = _proven_actions(result.action_bounds)
            lines.append(f"  actions  proven values ({_seated(position, 'seat 0')}'s view), "
                         f"of those searched:")
            lines.extend(f"    {line}" for line in proven)
    ms = result.seconds * 1e3
    lines.append(f"  search   {result.nodes:,} nodes, {ms:,.1f} ms")
    return "\n".join(lines)


class _ProgressLine:
    """The search's progress on stderr, one line redrawn about once a second, only on a
    terminal (rich's ``Live``, transient: the line is gone once the answer is printed)."""

    PHASES = {"value": "value search", "set": "optimal set", "order": "preference order"}

    def __init__(self, wanted: bool = True):
        from rich.console import Console

        self.console = Console(stderr=True)
        self.enabled = wanted and self.console.is_terminal
        self.live = None
        #: which position: ``solving 2/3`` (``solving 2`` when the count is unknown)
        self.label = "solving"

    def update(self, _i: int, p) -> None:
        from rich.live import Live
        from rich.text import Text

        parts = [self.label,
                 self.PHASES[p.phase], f"{p.nodes:,} nodes",
                 f"{p.nodes / max(p.seconds, 1e-9) / 1e6:,.1f}M nodes/s"]
        if p.time_limit > 0:
            parts.append(f"{p.seconds:,.0f} of {p.time_limit:g} s")
        else:
            parts.append(f"{p.seconds:,.0f} s")
        if p.node_cap > 0 and p.phase == "value":
            parts.append(f"{min(1.0, p.nodes / p.node_cap):.0%} of --max-nodes")
        lo, hi = p.bounds
        parts.append(f"value {signed(lo)} proven" if lo == hi
                     else f"value in [{signed(lo)}, {signed(hi)}]")
        text = Text(" | ".join(parts), overflow="ellipsis", no_wrap=True)
        if self.live is None:
            self.live = Live(text, console=self.console, auto_refresh=False, transient=True,
                             redirect_stdout=False, redirect_stderr=False)
            self.live.start()
        self.live.update(text, refresh=True)

    def clear(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


@click.command("solve")
@click.argument("file", type=PathParam(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per position: value, best_actions, nodes, seconds; when a "
                   "budget stopped the search also \"exact\": false, \"stopped_by\" (nodes, "
                   "time, interrupt, depth), \"bounds\": [lo, hi] and \"action_bounds\" "
                   "(when it cut the order short, \"order_exact\": false and \"stopped_by\"). "
                   "With --expert: advisor, seat, action and moves (each: action, gain, se, "
                   "in_running: still among the candidates when the search ended, deals: "
                   "the sampled deals it was played on, over which gain and se are, hard: "
                   "true for hard's choice, the baseline).")
@click.option("--time-limit", type=click.FloatRange(min=0, max=MAX_SECONDS),
              default=DEFAULT_TIME_LIMIT,
              show_default=True, metavar="SECONDS",
              help="Stop each position's search after this many seconds (0: no limit) and "
                   "print what it proved.")
@click.option("--max-nodes", "--node-cap", "max_nodes", type=click.IntRange(0, MAX_NODES),
              default=0,
              show_default=True, metavar="N",
              help="Stop each position's value search (with its set of optimal actions) "
                   "after about N nodes (0: no limit): unlike the time limit, the same answer "
                   "on any machine. --node-cap is an alias.")
@click.option("--order-nodes", type=click.IntRange(0, MAX_NODES), default=20_000_000,
              show_default=True, metavar="N",
              help="Node budget for ordering the optimal actions (0: no limit); past it the "
                   "rest keep code order. Value and actions stay exact.")
@click.option("--expert", "expert", is_flag=True,
              help="At a position with two or more cards in the stock (the positions "
                   "solve reads: two seats still playing, any ruleset but prostoy), advise "
                   "the seat to move as it sees the position "
                   "(its hand, the table, the discard, the face-up trump, the known cards; "
                   "not the other hand nor the stock's order): expert's move and each "
                   "move's mean result against hard's choice over the deals its search "
                   "samples (its budget is its own: --time-limit, --max-nodes and "
                   "--order-nodes bound the exact searches). Other positions are solved "
                   "exactly as without it.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="With --expert: the seed of expert's sampled deals.")
@click.option("--any-position", "any_position", is_flag=True,
              help="Also read positions no deal reaches (hands under six while the stock "
                   "holds cards, a bout no play leads to: durak-sim docs position), for what-if "
                   "analysis; each card's own rules are still checked and the search plays "
                   "by the rules from there.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Show the search's progress on stderr (only on a terminal).")
def solve_command(file: str, as_json: bool, time_limit: float, max_nodes: int,
                  order_nodes: int, expert: bool, seed: int, any_position: bool,
                  progress: bool) -> None:
    """Solve the endgame position(s) in FILE.

    FILE holds one position (format durak-sim/position/1) or JSON Lines, one position a line;
    - reads standard input. The value is seat 0's: 1 (seat 0 goes out, seat 1 is the
    Durak), 0 (draw), -1. The optimal actions of the seat to act come best first: winning
    in fewer plies, losing in more.

    Big endgames (10 cards each) can take far longer than a minute to solve exactly, so
    every search has a budget: by default 60 s a position (--time-limit 0: none), which
    brings any position back within about a minute. A search stopped by its budget (exit
    code 0) or by Ctrl-C (exit code 130) is marked NOT EXACT and gives the bounds on the
    value it proved and what it proved of each action: its value is then the best guess
    within them. On a terminal, stderr shows the progress about once a second.
    """
    if time_limit != time_limit:   # nan passes any range check
        _fail("--time-limit must be a number of seconds, got nan")
    if not expert and click.get_current_context().get_parameter_source("seed") is \
            click.core.ParameterSource.COMMANDLINE:
        _fail("--seed is for --expert (the seed of its sampled deals): an exact solve draws "
              "nothing")
    try:
        _solve(file, as_json, time_limit, max_nodes, order_nodes, expert, seed,
               reachable=not any_position, progress=progress)
    except KeyboardInterrupt:
        # Ctrl-C before or between searches (a search in progress is handled in ``_solve``)
        click.echo("durak-sim: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)


def _advice_text(i: int, n: int | None, a, rules=None) -> str:
    from .advise import search_lines, search_words

    head = f"position {_of(i, n)}: " if n != 1 else ""
    lines = [f"{head}seat {a.seat} to move, as it sees the position: expert plays {a.action}"]
    if a.moves:
        lines[0] += f" ({search_words(a.moves, rules)})"
        lines += search_lines(a.moves, a.action)
    return "\n".join(lines)


def _of(i: int, n: int | None) -> str:
    """Position ``i`` (from 0) of ``n`` (None: a count unknown), in words.

    >>> _of(1, 3), _of(1, None)
    ('2 of 3', '2')
    """
    return f"{i + 1} of {n}" if n is not None else f"{i + 1}"


def _solve(file: str, as_json: bool, time_limit: float, max_nodes: int,
           order_nodes: int, expert: bool = False, seed: int = 0,
           reachable: bool = True, progress: bool = True) -> None:
    """Read, solve and answer the positions one at a time (a file of any length costs the
    memory of one position). A regular file is read through first, so that a bad position
    stops the command before any answer, and to count the positions; a pipe, which cannot
    be read twice, is answered up to its first bad position, the count unknown."""
    from .position_file import PositionFile
    from .solve import SolveInterrupted, solve_many

    source = PositionFile(file, reachable)
    try:
        total = source.check()
    except UserError as e:
        _fail(str(e))
    budget = (time_limit, max_nodes, order_nodes)
    if expert:
        from .advise import advise, applies
    line = _ProgressLine(progress)
    queue: list = []   # the position to solve next, fed to the solver's loop
    results = solve_many(iter(queue.pop, None), node_cap=max_nodes, order_nodes=order_nodes,
                         time_limit=time_limit, progress=line.update if line.enabled else None)

    def count(i: int, more: bool) -> int | None:
        """The positions in the file (None: unknown, more than one)."""
        if total is not None:
            return total
        return None if i or more else 1

    def show(i, p, more, r):
        line.clear()
        if as_json:
            click.echo(json.dumps(_json_answer(p, r)))
        else:
            if i:
                click.echo("")
            click.echo(_human(i, bool(i or more), p, r, budget))

    done, p, more = 0, None, False
    try:
        for i, (p, more) in enumerate(source):
            if expert and applies(p):
                a = advise(p, seed)
                line.clear()
                click.echo(json.dumps(a.to_dict()) if as_json else
                           ("\n" if i else "") + _advice_text(i, count(i, more), a, p.rules))
            else:
                if line.enabled:
                    n = count(i, more)
                    line.label = ("solving" if n == 1 else f"solving {i + 1}/{n}" if n
                                  else f"solving {i + 1}")
                queue.append(p)
                show(i, p, more, next(results))
            done += 1
    except UserError as e:
        line.clear()
        _fail(str(e))
    except SolveInterrupted as e:
        show(done, p, more, e.result)
        n = count(done, more)
        if n is not None:
            left = n - done - 1
            rest = f", {left} more not started" if left else ""
        else:
            rest = ", more not started" if more else ""
        # (a search may end as Ctrl-C comes: complete, though interrupted)
        state = "finished" if e.result.exact and e.result.order_exact else "not finished"
        click.echo(f"durak-sim: interrupted: position {_of(done, n)} {state}{rest}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        line.clear()

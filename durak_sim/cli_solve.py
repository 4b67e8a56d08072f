"""``durak-sim solve FILE [--json]``: solve endgame positions exactly (spec/position.md).

FILE holds one position (a JSON object) or JSON Lines (one position a line); answers come in
the same order. Errors (a malformed position, an unreadable file) print one line
``durak-sim: error: <message>`` on stderr and exit with code 2.
"""
from __future__ import annotations

import json
import sys

import click

from .errors import EXIT_USAGE, UserError

VALUE_WORDS = {1: "seat 0 wins, seat 1 is the Durak", 0: "draw",
               -1: "seat 1 wins, seat 0 is the Durak"}


def _fail(message: str) -> None:
    click.echo(f"durak-sim: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _human(i: int, n: int, position, result) -> str:
    lines = []
    if n > 1:
        lines.append(f"position {i + 1}")
    if position.to_move is None:
        lines.append(f"  value    {result.value:+d}  ({VALUE_WORDS[result.value]}; the deal is "
                     f"over)")
        return "\n".join(lines)
    role = "attacker" if position.to_move == position.attacker else "defender"
    lines.append(f"  to move  seat {position.to_move} ({role}, {position.phase})")
    note = "" if result.exact else "  [node cap reached: not exact]"
    lines.append(f"  value    {result.value:+d}  ({VALUE_WORDS[result.value]}){note}")
    label = "optimal" if result.exact else "a legal"
    order = "" if result.order_exact else "  [order cut short by --order-nodes]"
    lines.append(f"  {label:<8} {', '.join(result.best_actions)}{order}")
    ms = result.seconds * 1e3
    lines.append(f"  search   {result.nodes:,} nodes, {ms:,.1f} ms")
    return "\n".join(lines)


@click.command("solve")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=False))
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per position: value, best_actions, nodes, seconds "
                   "(and \"exact\": false when --node-cap stopped the search).")
@click.option("--node-cap", type=click.IntRange(min=0), default=0, show_default=True,
              help="Stop each value search after about this many nodes (0: no limit); the "
                   "answer is then not exact.")
@click.option("--order-nodes", type=click.IntRange(min=0), default=20_000_000,
              show_default=True,
              help="Node budget for ordering the optimal actions (0: no limit); past it the "
                   "rest keep code order. Value and actions stay exact.")
def solve_command(file: str, as_json: bool, node_cap: int, order_nodes: int) -> None:
    """Solve the endgame position(s) in FILE exactly.

    FILE holds one position (format durak-sim/position/1) or JSON Lines, one position a line.
    The value is seat 0's: 1 (seat 0 goes out, seat 1 is the Durak), 0 (draw), -1. The optimal
    actions of the seat to act come best first: winning in fewer plies, losing in more.
    """
    from .position import load_positions
    from .solve import solve_many

    try:
        positions = load_positions(file)
    except UserError as e:
        _fail(str(e))
    results = solve_many(positions, node_cap=node_cap, order_nodes=order_nodes)
    for i, (p, r) in enumerate(zip(positions, results)):
        if as_json:
            click.echo(json.dumps(r.to_dict()))
        else:
            if i:
                click.echo("")
            click.echo(_human(i, len(positions), p, r))

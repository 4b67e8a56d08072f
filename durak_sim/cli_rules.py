"""The ruleset options every command that plays takes (docs/rulesets.md): ``--rules NAME``,
``--players N`` and one flag per option, turned into one validated ``Rules`` (an impossible
ruleset is one line, exit code 2)."""
from __future__ import annotations

import click

from .errors import UserError
from .rules import MAX_PLAYERS, MIN_PLAYERS, THROW_IN, VARIANTS


#: what ``--players`` defaults to in a command that seats a line-up (one strategy a seat)
LINEUP_PLAYERS = "one seat per strategy named"


def rules_options(fn=None, *, players: str = "the ruleset's, 2; teams 4"):
    """Add the ruleset options to a click command (its function gets ``rules_spec``);
    ``players``: the words of ``--players``' default in its help (``@rules_options`` or
    ``@rules_options(players=...)``)."""
    if fn is None:
        return lambda f: rules_options(f, players=players)
    names = ", ".join(VARIANTS)
    options = [
        click.option("--rules", "variant", default=None, metavar="NAME",
                     help=f"Ruleset: {names}, or an alias (durak-sim docs rulesets). "
                          f"[default: podkidnoy]"),
        click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
                     help=f"Players at the table, 2-6 [default: {players}]."),
        click.option("--lead-multiple", is_flag=True, default=None,
                     help="A bout may open with several cards of one rank (R8.1)."),
        click.option("--transfer", is_flag=True, default=None,
                     help="The defender may transfer the attack (R8.2; --rules perevodnoy)."),
        click.option("--throw-in", type=click.Choice(THROW_IN), default=None,
                     help="Who may throw in (R7.2) [default: all up to 4 players, neighbours "
                          "for 5 and 6; at 2 and 3 players the two are the same game]."),
        click.option("--teams", is_flag=True, default=None,
                     help="Two partnerships, seats 0, 2, 4 against 1, 3, 5 (R8.4; 4 or 6 "
                          "players)."),
        click.option("--trump-six-swap", is_flag=True, default=None,
                     help="The trump six may be swapped for the face-up card (R8.5)."),
    ]
    for opt in reversed(options):
        fn = opt(fn)

    import functools

    @functools.wraps(fn)
    def wrapper(*args, variant, players, lead_multiple, transfer, throw_in, teams,
                trump_six_swap, **kwargs):
        spec = dict(variant=variant, players=players, lead_multiple=lead_multiple,
                    transfer=transfer, throw_in=throw_in, teams=teams,
                    trump_six_swap=trump_six_swap)
        return fn(*args, rules_spec=spec, **kwargs)

    return wrapper


def make_rules(spec: dict, players: int | None = None):
    """The ``Rules`` the options ask for; ``players`` (the line-up's size) when
    ``--players`` is not given. RulesError becomes one line."""
    from .rules import Rules, RulesError

    kw = {k: v for k, v in spec.items() if v is not None}
    if players is not None and "players" not in kw:
        kw["players"] = players
    try:
        return Rules(**kw)
    except RulesError as exc:
        raise UserError(str(exc)) from None

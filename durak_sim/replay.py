"""Rebuild one deal from (seed, deal, seats) and show it card by card.

>>> rec = replay_deal(42, 7, ["easy", "random"])
>>> rec["seed"], rec["deal"], rec["seats"]
(42, 7, ['easy', 'random'])
"""
from __future__ import annotations

from .cards import RANK_DISPLAY, SUIT_SYMBOLS, parse_card
from .play import play_games
from .rules import Rules


def replay_deal(seed: int, deal: int, seats: list[str], rules: Rules = Rules()) -> dict:
    """The game record of deal ``deal`` of ``seed`` with ``seats`` (seat 0 first), played by
    the same engine as a match, so it equals that deal's line in the match's records."""
    batch = play_games(seats, seed=seed, deals=[deal], swap=False, rules=rules, threads=1,
                       record=True)
    return next(batch.records())


def _show(card: str) -> str:
    c = parse_card(card)
    return RANK_DISPLAY[c >> 2] + SUIT_SYMBOLS[c & 3]


def render_record(rec: dict) -> str:
    """A readable, card-by-card account of a game record."""
    seats = rec["seats"]
    lines = [f"deal {rec['deal']} of seed {rec['seed']} ({rec['rules']['variant']}, "
             f"{rec['rules']['players']} players): trump {_show(rec['trump'])}"]
    for s, hand in enumerate(rec["hands"]):
        lines.append(f"  seat {s} {seats[s]:<10} {' '.join(_show(c) for c in hand)}")
    lines.append(f"  stock (draw order) {' '.join(_show(c) for c in rec['stock'])}")
    lines.append(f"seat {rec['first_attacker']} attacks first (lowest trump, R2.3)")
    bout = 1
    lines.append(f"bout {bout}")
    for a in rec["actions"]:
        who = f"  seat {a['seat']} {seats[a['seat']]:<10}"
        act = a["act"]
        if act == "attack":
            lines.append(f"{who} attacks with {_show(a['card'])}")
        elif act == "defend":
            lines.append(f"{who} beats {_show(a['target'])} with {_show(a['card'])}")
        elif act == "take":
            lines.append(f"{who} takes")
        elif act == "stop":
            lines.append(f"{who} stops")
            bout += 1
            if bout <= rec["result"]["bouts"]:
                lines.append(f"bout {bout}")
        else:
            lines.append(f"{who} {act} {_show(a['card'])}" if "card" in a else f"{who} {act}")
    res = rec["result"]
    if res["outcome"] == "draw":
        lines.append(f"draw after {res['bouts']} bouts: both hands emptied in the last bout")
    else:
        d = res["durak"]
        lines.append(f"seat {d} ({seats[d]}) is the Durak after {res['bouts']} bouts; "
                     f"out: {', '.join(f'seat {s} ({seats[s]})' for s in res['out_order'])}")
    return "\n".join(lines)

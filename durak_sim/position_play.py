"""Whether the bout of a two-seat position could have been played, card by card.

``Position`` checks each card of the table on its own (R1.3, R3.3, R3.4); this module checks
the bout as a whole: that some order of play under the rules leads to the table, with the hands
as they are. A bout's table is read as

* a *block* of attack cards of one rank at its start: the lead (one card, or several with
  ``lead_multiple``, R8.1) and then the transfers (``perevodnoy``, R8.2), which alternate between
  the two seats, since with two seats left each transfer passes the attack back;
* the defences, which beat the block's cards in any order (E5), and the throw-ins after the
  block, each laid only once every attack card is beaten (E2, E5), or, once the defender has
  taken, laid unanswered (R3.5).

Who played which card then follows, so each seat's hand before each play is known, and these
must hold: a lead no longer than the bout limit at the opening; a transfer only to a seat
holding at least as many cards as there are then attack cards, at most six (R8.2); with cards
left in the stock, both hands full at the opening (the refill, R4.1); and ``lead`` only while
the lead may still grow (E4). The block's length, the lead's and so the transfers' number are
not written in a position; it is refused only when no reading of them works.

>>> from durak_sim.position import Position
>>> Position.from_dict({"format": "durak-sim/position/1", "trump": "D", "stock": ["8D"],
...                     "hands": [["6S"], ["7S"]], "attacker": 0})
Traceback (most recent call last):
durak_sim.errors.UserError: position: seat 0 held 1 card at the start of the bout while the stock holds cards: the refill (R4.1) fills every hand to 6 first; no deal reaches it (Position.from_dict(d, reachable=False) reads it all the same)
"""
from __future__ import annotations

from .cards import RANK_MASKS, card_rank, card_str
from .errors import UserError

MAX_ATTACKS = 6  # R3.4, R8.2


def check_play(p) -> None:
    """``UserError`` unless some play under ``p.rules`` leads to position ``p``'s table (a
    ``Position``, two seats)."""
    rules = p.rules
    full = rules.hand_size if rules is not None else 6
    now = [bin(h).count("1") for h in p.hands]
    table = p.table
    if not table:
        why = p.stock and _full_hands(p, now, full, "at the start of the bout")
        if why:
            raise UserError(f"position: {why}")
        return
    multi = rules is not None and rules.lead_multiple
    transfer = rules is not None and rules.transfer
    rank = card_rank(table[0][0])
    run = 1
    while run < len(table) and card_rank(table[run][0]) == rank:
        run += 1
    shape_why = None
    play_why = None
    for k in (run,) if p.lead else range(run, 0, -1):
        why = _shape(table, k, p.taking)
        if why:
            shape_why = shape_why or why
            continue
        for n_transfers in range(0, k if transfer and not p.lead else 1):
            n_lead = k - n_transfers
            if n_lead > 1 and not multi:
                continue
            why = _hands(p, now, k, n_lead, n_transfers, full)
            if why is None:
                if p.lead:
                    _lead_may_grow(p, rank)
                return
            play_why = play_why or why
    raise UserError(f"position: {play_why or shape_why}")


def _shape(table, k: int, taking: bool) -> str | None:
    """Why the table cannot be a block of ``k`` cards then throw-ins (E2, E5, R3.5), or None."""
    beaten = [d >= 0 for _, d in table]
    if not taking:
        if len(table) == k:
            return None
        for i in range(len(table) - 1):
            if not beaten[i]:
                return (f"table[{len(table) - 1}]: {card_str(table[-1][0])} was thrown in while "
                        f"{card_str(table[i][0])} is unbeaten (a throw-in waits until every "
                        f"attack card is beaten, E2, E5)")
        return None
    first = beaten.index(False)
    for i in range(max(first + 1, k), len(table)):
        if beaten[i]:
            return (f"table[{i}]: {card_str(table[i][1])} beats a card thrown in after the "
                    f"defender took at {card_str(table[first][0])} (the cards thrown in to a "
                    f"taker are not answered, R3.5)")
    return None


def _hands(p, now: list[int], k: int, n_lead: int, n_transfers: int, full: int) -> str | None:
    """Why the block of ``k`` cards cannot be a lead of ``n_lead`` and ``n_transfers``
    transfers given the hands, or None. Seat ``s`` of the two is 0 or 1."""
    att = p.attacker
    dfd = 1 - att
    opener = att if n_transfers % 2 == 0 else dfd
    by = [opener] * n_lead + [1 - opener if j % 2 else opener
                              for j in range(1, n_transfers + 1)]
    post = [0, 0]       # the cards each seat played after the block
    for i, (_, d) in enumerate(p.table):
        if i >= k:
            post[att] += 1
        if d >= 0:
            post[dfd] += 1
    at_open = [now[s] + post[s] + by.count(s) for s in (0, 1)]
    why = p.stock and _full_hands(p, at_open, full, "when the bout opened")
    if why:
        return why
    limit = min(MAX_ATTACKS, at_open[1 - opener])
    if n_lead > limit:
        return (f"a lead of {n_lead} cards against a defender who held {at_open[1 - opener]} "
                f"(the bout limit, R3.4, R8.1)")
    for j in range(1, n_transfers + 1):
        to = opener if j % 2 else 1 - opener      # the new defender of transfer j
        attacks = n_lead + j
        held = now[to] + post[to] + by[n_lead + j:].count(to)
        if attacks > MAX_ATTACKS or held < attacks:
            card = card_str(p.table[n_lead + j - 1][0])
            return (f"the transfer of {card} would leave {attacks} attack cards to a defender "
                    f"holding {held} (a transfer needs him to hold at least as many, at most "
                    f"{MAX_ATTACKS}, R8.2)")
    return None


def _full_hands(p, held: list[int], full: int, when: str) -> str | None:
    """Why the hands ``held`` cannot be those of a bout's start with cards in the stock."""
    for s in (0, 1):
        if held[s] < full:
            return (f"{p.seat_name(s)} held {held[s]} card{'' if held[s] == 1 else 's'} "
                    f"{when} while the stock holds cards: the refill (R4.1) fills every hand "
                    f"to {full} first")
    return None


def _lead_may_grow(p, rank: int) -> None:
    """E4: the attacker is asked for more of a lead only while a card may be added."""
    holds = p.hands[p.attacker] & RANK_MASKS[rank] != 0
    if not holds or len(p.table) >= p.bout_limit:
        why = ("the attacker holds no card of its rank" if not holds else
               f"it is at the bout limit {p.bout_limit}")
        raise UserError(f"position: lead is true but the lead cannot grow: {why} (the lead "
                        f"ends by itself, E4)")


def reopened(d: dict, rules) -> dict:
    """A finished deal written as the engine leaves it, its last seats in ``out`` (E11), as the
    two seats that played last, with their hands as they are (one or both empty): ``out``
    without them, the lower of them attacking, no ``defender`` or ``asked``. The solver reads
    that as the finished deal it is (a deal with a team out is not two seats: as given). Any
    other dict comes back as it is, for the parser to check."""
    out = d.get("out")
    if rules.teams or d.get("table") or d.get("stock") or not isinstance(out, list) or \
            not all(type(s) is int and 0 <= s < rules.players for s in out) or \
            len(set(out)) != len(out):
        return d
    hands = d.get("hands")
    if not isinstance(hands, list) or sum(1 for h in hands if h) > 1:
        return d      # not finished: at most the Durak still holds cards
    playing = [s for s in range(rules.players) if s not in out]
    back = 2 - len(playing)
    if back <= 0 or len(out) < back:
        return d
    seats = sorted(playing + out[len(out) - back:])
    again = {k: v for k, v in d.items() if k not in ("defender", "asked")}
    again.update(out=out[:len(out) - back], attacker=seats[0])
    return again

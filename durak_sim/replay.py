"""Rebuild one deal from (seed, deal, seats) and show it card by card.

>>> rec = replay_deal(42, 7, ["easy", "random"])
>>> rec["seed"], rec["deal"], rec["seats"]
(42, 7, ['easy', 'random'])
"""
from __future__ import annotations

from .cards import RANK_DISPLAY, SUIT_SYMBOLS, parse_card
from .errors import UserError, option
from .play import game_schedule, play_games, play_series
from .rules import Rules


def replay_deal(seed: int, deal: int, seats: list[str], rules: Rules = Rules(),
                series: int | None = None) -> dict:
    """The game record of deal ``deal`` of ``seed`` with ``seats`` (seat 0 first), played by
    the same engine as a match, so it equals that deal's line in the match's records. With
    ``series``: deal ``deal`` of that series (its dealer follows from the deals before it,
    R9.1), as in ``durak-sim series`` records."""
    if series is not None:
        from .limits import MAX_SERIES_DEALS

        game_schedule([deal], 1, False)   # a whole number (deal + 1 is the series' length)
        if deal >= MAX_SERIES_DEALS:
            raise UserError(f"a series has at most {MAX_SERIES_DEALS:,} deals: "
                            f"{option('--deal', 'deal')} must be below it, got {deal}")
        batch = play_series(seats, seed=seed, series=[series], deals=deal + 1, rules=rules,
                            threads=1, record=True)
        return list(batch.records())[-1]
    batch = play_games(seats, seed=seed, deals=[deal], swap=False, rules=rules, threads=1,
                       record=True)
    return next(batch.records())


def _show(card) -> str:
    c = parse_card(card) if isinstance(card, str) else card
    return RANK_DISPLAY[c >> 2] + SUIT_SYMBOLS[c & 3]


def _game_of(rec: dict):
    """A reference game at the record's deal (hands, stock, dealer as recorded)."""
    from .reference import ReferenceGame

    rules = Rules.from_dict(rec["rules"])
    hands = [[parse_card(c) for c in h] for h in rec["hands"]]
    stock = [parse_card(c) for c in rec["stock"]]
    dealer = rec.get("dealer")
    if dealer is None and rec.get("series", {}).get("deal", 0) > 0:
        dealer = rules.players - 1   # a later deal of a series dealt by the last seat
    return rules, ReferenceGame.from_deal(hands, stock, rules, face_up=parse_card(rec["trump"]),
                                          dealer=dealer)


def _sorted_cards(cards, trump: int) -> list[int]:
    """Cards by suit and rank, trumps last (the order a player holds them in)."""
    return sorted(cards, key=lambda c: (c & 3 == trump, c & 3, c >> 2))


def render_record(rec: dict) -> str:
    """A readable, card-by-card account of a game record: who attacks whom in each bout,
    every card laid (openings, cards added to a lead, throw-ins by seat, transfers and the
    roles they pass on, defences with their targets), takes and the cards picked up, the
    cards each seat draws after a bout (in drawing order, E9), hands emptied, who went out
    and the result. An action that was the only legal one is marked ``(forced)`` (E1). A
    record of a game stopped midway (``"unfinished": true``, from ``durak-sim play``) ends
    where it stopped. The record's shape is checked first (``records.validate_record``,
    RecordError with a one-line message)."""
    from .actions import DEFEND, defend_at
    from .cards import mask_cards
    from .observation import O_BOUTS, O_PHASE, O_PLACES, O_TRUMP_CARD, PHASE_ATTACK, PHASE_LEAD
    from .records import actions_from_record, validate_record

    validate_record(rec, unfinished=True)
    rules, game = _game_of(rec)
    seats = rec["seats"]
    n = rules.players
    trump = parse_card(rec["trump"]) & 3
    stock = [parse_card(c) for c in rec["stock"]]
    width = max(len(s) for s in seats)

    def who(s: int) -> str:
        return f"seat {s} ({seats[s]})"

    def cards(cs) -> str:
        return " ".join(_show(c) for c in cs)

    head = f"deal {rec['deal']} of seed {rec['seed']}"
    if "series" in rec:
        head = f"deal {rec['series']['deal']} of series {rec['series']['series']} " \
               f"(seed {rec['seed']})"
    lines = [f"{head}: {rules.describe()}; trump {_show(rec['trump'])} (face up)"]
    for s, hand in enumerate(rec["hands"]):
        held = _sorted_cards([parse_card(c) for c in hand], trump)
        lines.append(f"  seat {s} {seats[s]:<{width}}  {cards(held)}")
    if stock:
        lines.append(f"  stock (draw order) {cards(stock)}")
    else:
        lines.append("  no stock: the face-up card is the dealer's last card (R2.2)")
    if "dealer" in rec or rec.get("series", {}).get("deal", 0) > 0:
        # (a record names the dealer only when it is not the last seat: game-record.md)
        why = f"the seat after the dealer, seat {rec.get('dealer', len(seats) - 1)}: R9.1"
    elif any(parse_card(c) & 3 == trump for hand in rec["hands"] for c in hand):
        why = "lowest trump, R2.3"
    else:
        why = "nobody holds a trump: seat 0, R2.3"
    if rules.teams:
        lines.append("  teams: seats " + ", ".join(map(str, range(0, n, 2))) + " against "
                     + ", ".join(map(str, range(1, n, 2))))
    lines.append(f"{who(rec['first_attacker'])} attacks first ({why})")
    out_seen = 0
    bout = -1
    drawn = 0                                  # stock cards drawn so far
    for i, (code, seat, target) in enumerate(actions_from_record(rec)):
        obs = game.observation(seat)
        if int(obs[O_BOUTS]) != bout:
            bout = int(obs[O_BOUTS])
            before = list(game.hands)
            lines.append(f"bout {bout + 1}: {who(game.attacker)} attacks {who(game.defender)}")
        phase = int(obs[O_PHASE])
        forced = len(game.legal_actions()) == 1
        act = rec["actions"][i]
        kind = act["act"]
        if kind == "attack":
            verb = "throws in" if phase == PHASE_ATTACK else \
                "adds to the lead" if phase == PHASE_LEAD else "attacks with"
            text = f"{verb} {_show(act['card'])}"
        elif kind == "defend":
            text = f"beats {_show(act['target'])} with {_show(act['card'])}"
        elif kind == "transfer":
            text = f"transfers with {_show(act['card'])}"
        elif kind == "swap":
            text = f"swaps the trump six for {_show(int(obs[O_TRUMP_CARD]))}"
        elif kind == "done":
            text = "ends the lead"
        elif kind == "keep":
            text = "keeps the trump six"
        else:
            text = "takes" if kind == "take" else "stops"
        if DEFEND <= code < DEFEND + 36 and code not in game.legal_actions():
            code = defend_at(code - DEFEND, target)   # one of several unbeaten cards (E5)
        on_table = _mask(c for pair in game.table for c in pair if c >= 0)
        defender = game.defender
        game.apply(code)
        if forced:
            text += " (forced)"
        if game.hands[seat] == 0 and before[seat] != 0 and not game.stock and \
                kind in ("attack", "defend", "transfer"):
            text += "; no cards left"
        lines.append(f"  seat {seat} {seats[seat]:<{width}}  {text}")
        if kind == "transfer" and not game.is_over():
            lines.append(f"    now {who(game.attacker)} is the main attacker, "
                         f"{who(game.defender)} defends (R8.2)")
        if game.is_over() or int(game.observation(seat)[O_BOUTS]) != bout:
            left = stock[drawn:drawn + (len(stock) - drawn - len(game.stock))]
            taken = {s: game.hands[s] & ~before[s] for s in range(n)}
            got = [(min(left.index(c) for c in mask_cards(m & _mask(left))), s)
                   for s, m in taken.items() if m & _mask(left)]
            picked = game.hands[defender] & on_table
            if picked:
                lines.append(f"    {who(defender)} picks up "
                             f"{cards(_sorted_cards(mask_cards(picked), trump))}")
            if got:
                lines.append("    draws: " + "; ".join(
                    f"seat {s} {cards([c for c in left if taken[s] >> c & 1])}"
                    for _, s in sorted(got)))
            drawn += len(left)
            outs = _outs(game)
            places = game.observation(0)[O_PLACES:O_PLACES + n]
            for s in outs[out_seen:]:   # (E11: seats out in a draw's last bout share a place)
                lines.append(f"    {who(s)} is out (place {int(places[s]) or outs.index(s) + 1})")
            out_seen = len(outs)
    res = rec.get("result")
    if rec.get("unfinished") or res is None:
        n = len(rec["actions"])
        lines.append(f"unfinished: stopped after {n} action{'' if n == 1 else 's'}")
        return "\n".join(lines)
    forfeit = rec.get("forfeit")
    if isinstance(forfeit, dict):
        lines.append(f"{who(forfeit.get('seat', -1)) if forfeit.get('seat') in range(n) else 'a seat'}"
                     f" forfeited after {len(rec['actions'])} actions ({forfeit.get('kind')}: "
                     f"{forfeit.get('detail')}), scored as its loss")
    if res["outcome"] == "draw":
        places = res.get("places")
        tied = [s for s in range(n) if places and places[s] == max(places)] if places \
            else res["out_order"][-2:]
        names = ", ".join(who(s) for s in tied) or "both"
        how = f"the cap on play ended it (E12), {names} still playing" if res.get("capped") \
            else f"{names} went out in the last bout"
        lines.append(f"draw after {res['bouts']} bouts: {how}")
    elif res.get("durak_team") is not None:
        t = res["durak_team"]
        lines.append(f"team {t} (seats {', '.join(map(str, range(t, n, 2)))}) is the Durak "
                     f"after {res['bouts']} bouts")
    else:
        d = res["durak"]
        lines.append(f"{who(d)} is the Durak after {res['bouts']} bouts; out: "
                     f"{', '.join(who(s) for s in res['out_order'])}")
    if "places" in res:
        lines.append("places: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(res["places"])))
    return "\n".join(lines)


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _outs(game) -> list[int]:
    """The seats out so far, in order (from the observation's places)."""
    from .observation import O_PLACES

    obs = game.observation(0)
    n = game.rules.players
    placed = [(int(obs[O_PLACES + s]), s) for s in range(n) if int(obs[O_PLACES + s]) > 0]
    if game.is_over():
        res = game.result()
        return list(res["out_order"])
    return [s for _, s in sorted(placed)]

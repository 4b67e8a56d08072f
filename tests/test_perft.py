"""Perft node counts (tests/perft.txt) on every engine, and an independent brute force that
re-counts the shallow ones of the two-player default game from docs/rules.md without any
project code but the card letters. The blocks of the larger tables (a position with
``rules``) are counted on both engines; the brute force plays only R1-R6."""
import json
from pathlib import Path

import pytest

from durak_sim.reference import divide

PERFT_FILE = Path(__file__).with_name("perft.txt")
BRUTE_FORCE_MAX_NODES = 20_000


def load_perft(path=PERFT_FILE):
    """``[(id, position dict, [(depth, count, slow)])]`` from a perft file."""
    blocks, cur = [], None
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        if key == "id":
            cur = [rest, None, []]
            blocks.append(cur)
        elif key == "position":
            cur[1] = json.loads(rest)
        elif key == "perft":
            parts = rest.split()
            assert len(parts) in (2, 3) and parts[2:] in ([], ["slow"]), f"line {lineno}: {raw}"
            cur[2].append((int(parts[0]), int(parts[1]), parts[2:] == ["slow"]))
        else:
            raise AssertionError(f"{path.name}:{lineno}: unknown line {raw!r}")
    return [tuple(b) for b in blocks]


BLOCKS = load_perft()
TABLE_KEYS = ("rules", "out", "defender", "asked", "lead", "swap", "known", "first_attacker",
              "dealer")


def is_default_game(pos) -> bool:
    """A two-player position of the default game (what the brute force below plays)."""
    rules = pos.get("rules")
    extra = [k for k in TABLE_KEYS if k != "rules" and pos.get(k) not in (None, False, [])]
    return rules in (None, {"players": 2, "hand_size": 6, "variant": "podkidnoy"}) and \
        not extra


DEFAULT_BLOCKS = [b for b in BLOCKS if is_default_game(b[1])]


def perft_profile(game, depth):
    """``counts[d]`` = perft(game, d) for every d <= depth, in one traversal."""
    counts = [0] * (depth + 1)

    def walk(g, d):
        counts[d] += 1
        if d == depth or g.is_over():
            return
        actions = g.legal_actions()
        if d + 1 == depth:  # leaves need not be built
            counts[depth] += len(actions)
            return
        for code in actions:
            child = g.copy()
            child.apply(code)
            walk(child, d + 1)

    walk(game, 0)
    return counts


def _cases():
    for name, pos, lines in BLOCKS:
        for slow in (False, True):
            depths = [(d, n) for d, n, s in lines if s == slow]
            if depths:
                marks = [pytest.mark.slow] if slow else []
                yield pytest.param(name, pos, depths, id=name + ("-slow" if slow else ""),
                                   marks=marks)


def test_perft_file_shape():
    assert len(DEFAULT_BLOCKS) >= 8
    assert len({name for name, _, _ in BLOCKS}) == len(BLOCKS)
    for name, pos, lines in BLOCKS:
        assert pos is not None, name
        assert [d for d, _, _ in lines] == list(range(1, len(lines) + 1)), name


@pytest.mark.parametrize("name,pos,depths", list(_cases()))
def test_perft(engine, name, pos, depths):
    game = engine.from_position(pos)
    counts = perft_profile(game, max(d for d, _ in depths))
    for depth, expected in depths:
        if counts[depth] != expected:
            split = divide(engine.from_position(pos), depth)
            lines = "\n".join(f"  {a}: {n}" for a, n in split.items())
            pytest.fail(f"{name}: perft {depth} = {counts[depth]}, expected {expected}; "
                        f"divide:\n{lines}")


# ---------------------------------------------------------------- independent brute force
RANK_LETTERS, SUIT_LETTERS = "6789TJQKA", "SCDH"


def _card(text):
    return RANK_LETTERS.index(text[0]) * 4 + SUIT_LETTERS.index(text[1])


def _beats(c, other, trump):  # R1.3
    if c % 4 == other % 4:
        return c // 4 > other // 4
    return c % 4 == trump


def _state(pos):
    trump = SUIT_LETTERS.index(pos["trump"][-1])
    hands = tuple(frozenset(_card(c) for c in h) for h in pos["hands"])
    table = tuple((_card(a), None if d is None else _card(d)) for a, d in pos.get("table", []))
    att = pos["attacker"]
    limit = pos.get("bout_limit")
    if limit is None:
        limit = min(6, len(hands[1 - att]) + sum(d is not None for _, d in table))
    stock = tuple(_card(c) for c in pos["stock"])
    return (hands, stock, att, table, pos.get("taking", False), limit, trump)


def _moves(st):
    hands, stock, att, table, taking, limit, trump = st
    if not table:
        return [("attack", c) for c in sorted(hands[att])]
    if not taking and table[-1][1] is None:
        a = table[-1][0]
        return [("defend", c) for c in sorted(hands[1 - att]) if _beats(c, a, trump)] + [("take",)]
    ranks = {c // 4 for pair in table for c in pair if c is not None}
    throw = [("attack", c) for c in sorted(hands[att]) if c // 4 in ranks]
    return (throw if len(table) < limit else []) + [("stop",)]


def _step(st, mv):
    """The next state, or None when the deal is over."""
    hands, stock, att, table, taking, limit, trump = st
    dfd = 1 - att
    h = list(hands)
    if mv[0] == "attack":
        h[att] = h[att] - {mv[1]}
        return (tuple(h), stock, att, table + ((mv[1], None),), taking, limit, trump)
    if mv[0] == "defend":
        h[dfd] = h[dfd] - {mv[1]}
        table = table[:-1] + ((table[-1][0], mv[1]),)
        return (tuple(h), stock, att, table, taking, limit, trump)
    if mv[0] == "take":
        return (hands, stock, att, table, True, limit, trump)
    on_table = {c for pair in table for c in pair if c is not None}
    if taking:
        h[dfd] = h[dfd] | on_table
        nxt = att
    else:
        nxt = dfd
    stock = list(stock)
    for s in (att, dfd):
        while len(h[s]) < 6 and stock:
            h[s] = h[s] | {stock.pop(0)}
    if not stock and (not h[0] or not h[1]):
        return None
    return (tuple(h), tuple(stock), nxt, (), False, min(6, len(h[1 - nxt])), trump)


def _brute(st, depth):
    if depth == 0:
        return 1
    if st is None:
        return 0
    return sum(_brute(_step(st, mv), depth - 1) for mv in _moves(st))


def test_perft_covers_every_table_and_variant():
    """Blocks from three-, four-, five- and six-player tables, and of each variant."""
    from durak_sim.rules import Rules

    rules = [Rules.from_dict(pos["rules"]) for _, pos, _ in BLOCKS if not is_default_game(pos)]
    assert {r.players for r in rules} >= {2, 3, 4, 5, 6}
    assert {r.variant for r in rules} >= {"podkidnoy", "perevodnoy", "prostoy", "teams",
                                          "podkidnoy-full"}
    assert any(r.lead_multiple for r in rules) and any(r.trump_six_swap for r in rules)
    swaps = [pos for _, pos, _ in BLOCKS if pos.get("swap")]
    assert swaps and any(pos.get("out") for _, pos, _ in BLOCKS)


@pytest.mark.parametrize("name,pos,lines", DEFAULT_BLOCKS, ids=[b[0] for b in DEFAULT_BLOCKS])
def test_perft_counts_match_brute_force(name, pos, lines):
    checked = 0
    for depth, expected, _ in lines:
        if expected > BRUTE_FORCE_MAX_NODES:
            break
        assert _brute(_state(pos), depth) == expected, f"{name} perft {depth}"
        checked += 1
    assert checked >= 5

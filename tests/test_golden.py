"""Golden playthroughs: one readable transcript per named ruleset (``durak_sim.rules.VARIANTS``)
under ``tests/golden/NAME.txt``, a fixed deal at a table that shows the variant's features,
rendered by ``durak_sim.replay.render_record``. Each is regenerated from the kernel's record
and from the reference engine's and compared with the file byte for byte.

The header of each file says what to check in it by hand against docs/rules.md. After an
intended change of the rules or of the rendering, rewrite the files with

    DURAK_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py

and read the differences before keeping them.
"""
import os
from pathlib import Path

import pytest

from durak_sim.records import dumps
from durak_sim.replay import render_record, replay_deal
from durak_sim.rules import VARIANTS, Rules

GOLDEN_DIR = Path(__file__).with_name("golden")
REGEN = os.environ.get("DURAK_REGEN_GOLDEN") == "1"

#: per named ruleset: the table, the deal, the line-up, what the transcript must show (a
#: line of it contains each ``shows`` text) and what to check in it by hand
GOLDEN = {
    "podkidnoy": dict(
        players=4, seed=2025, deal=81, seats=["random", "easy", "random", "easy"],
        shows=["throws in", "takes", "is out (place 1)", "is out (place 3)"],
        check=[
            "four players, throw-in by all (R7.2): trump A♥; seat 0 holds the lowest trump 6♥",
            "and attacks first (R2.3), seat 1 defends (R2.4).",
            "bout 1: asked in turn 0, 2, 3 (R7.3, E2): seat 3 throws in 8♦ after seats 0 and 2",
            "stopped; after each defence the asking starts again at seat 0. Seat 1 takes; the",
            "others may still throw in (R3.5) up to the limit of six (R3.4). The taker is",
            "skipped: seat 2 attacks seat 3 (R7.4). Seat 1 picks up the bout's nine cards; the",
            "'draws' line lists each seat's new cards in drawing order (E9).",
            "bout 2: the stock runs out while seats 2 and 0 draw (main attacker first, E9), so",
            "seat 3, the defender, drawing last, gets nothing and is out in place 1 (R7.5); the",
            "seat that should attack next (3) is out: the next active seat, 0, attacks 1 (R7.4).",
            "bout 13: seats 0 and 1 both empty their hands: out in seat order from the main",
            "attacker 0 (places 2 and 3, R7.5, E11); seat 2 is the Durak (place 4).",
        ]),
    "perevodnoy": dict(
        players=3, seed=2025, deal=9, seats=["random", "easy", "random"],
        shows=["transfers with", "is out (place 2)"],
        check=[
            "three players, the transfer game (R8.2): trump 8♥; seat 2 holds 6♥ and attacks.",
            "bout 1: seat 0 transfers 6♣ onto 6♥: seat 1 (holding six cards) defends both, each",
            "defence naming its target (E5); seat 0 is now the bout's main attacker (the line",
            "after the transfer says so): it is asked first and throws in 7♠ and",
            "7♦ (R7.3), and draws first after the bout: J♠ A♠ Q♠ (E9). Seat 1 takes; the next",
            "attacker is the seat after it, seat 2, against seat 0 (R7.4).",
            "bout 2: a second transfer, Q♦ onto Q♥.",
            "bout 14: two players left (seat 1 went out in bout 11, place 1): seat 2 passes 9♣",
            "back to seat 0, which passes 9♦ back again (R8.2: with two players the attack goes",
            "back; seat 0 held two cards against two attack cards); seat 2 takes, seat 0 throws",
            "in its last card and goes out (place 2): seat 2 is the Durak.",
        ]),
    "prostoy": dict(
        players=3, seed=2025, deal=175, seats=["random", "easy", "random"],
        shows=["adds to the lead", "ends the lead", "takes"],
        check=[
            "three players, five-card prostoy (R8.3): hands of five; trump 8♥; seat 0 holds 10♥,",
            "the lowest trump, and attacks first.",
            "bout 1: seat 0 leads 7♣ A♥ 7♦, three cards holding a pair; the lead ends by itself",
            "(E4: Q♣ 10♥ cannot make five with two pairs). Seat 1 beats both sevens, cannot beat",
            "the trump ace and takes: it picks up only A♥, the beaten pairs are discarded (E7);",
            "nobody throws in. Drawing to five: seat 0 draws 8♣ 6♠ J♦, seat 1 J♠.",
            "bout 2: the taker loses its turn: seat 2 attacks seat 0 (R7.4); the bout ends with",
            "the one defence.",
            "bout 3: Q♠ 6♠ Q♣ (a pair of queens and any third) all beaten, in the order seat 1",
            "chose; the bout ends at once and seat 1 attacks next.",
            "bout 4: easy leads one card and ends the lead with done (E4: it could still add).",
        ]),
    "teams": dict(
        players=4, seed=2025, deal=120, seats=["random", "random", "easy", "easy"],
        shows=["teams: seats 0, 2 against 1, 3", "is the Durak"],
        check=[
            "two partnerships, 0 and 2 against 1 and 3 (R8.4): trump J♠; seat 1 holds 6♠ and",
            "attacks seat 2.",
            "bout 1: the defender's partner, seat 0, is never asked to throw in (E3): seats 1",
            "and 3 are.",
            "bout 6: seat 2 beats every card and is out (place 1). It should attack next: its",
            "partner, seat 0, takes the turn from seat 2's place and attacks seat 3, the next",
            "active opponent after seat 2 (R8.4, E10) - not seat 1.",
            "bout 10: the same after seat 1's take in bout 9 (the seat after the taker, 2, is",
            "out: its partner 0 attacks seat 3).",
            "end: seat 0 goes out too: team 0 is out, team 1 still holds cards and loses; its",
            "members share the last place (R8.4, E11).",
        ]),
    "podkidnoy-full": dict(
        players=3, seed=2025, deal=8, seats=["easy", "random", "easy"],
        shows=["swaps the trump six", "adds to the lead", "ends the lead"],
        check=[
            "three players, throw-in Durak with multi-card leads (R8.1) and the trump-six swap",
            "(R8.5): the face-up card is 8♥.",
            "bout 1: seat 2 holds the trump six 6♥ (the lowest trump, so it attacks first, R2.3)",
            "and swaps it for the face-up 8♥ before the first attack (E8); it still attacks",
            "first. 6♥ is now the face-up card, drawn last (seat 2 plays it in bout 10).",
            "bout 2: seat 1 leads 10♣ and 10♥ (R8.1, E4); seat 2 beats each, naming its target",
            "(E5); throw-ins come one card at a time after both are beaten.",
            "bout 6: easy leads J♦ and ends the lead with done while it could add J♥ (E4).",
            "bout 10: seat 1 leads J♦ J♣; seat 2 beats J♣ first (any order, E5) and is out.",
        ]),
}


def rules_of(name: str) -> Rules:
    return Rules(variant=name, players=GOLDEN[name]["players"])


def header(name: str) -> str:
    g = GOLDEN[name]
    lines = [f"# golden playthrough of {name}: {rules_of(name).describe()}",
             f"# seed {g['seed']}, deal {g['deal']}, seats {' '.join(g['seats'])}; rendered by "
             f"durak_sim.replay.render_record",
             "# regenerate: DURAK_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py",
             "# what to check by hand (docs/rules.md):"]
    lines += ["#   " + line for line in g["check"]]
    return "\n".join(lines) + "\n\n"


def kernel_record(name: str) -> dict:
    g = GOLDEN[name]
    return replay_deal(g["seed"], g["deal"], g["seats"], rules_of(name))


def expected_text(rec: dict, name: str) -> str:
    return header(name) + render_record(rec) + "\n"


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_transcript_from_the_kernel(name):
    text = expected_text(kernel_record(name), name)
    path = GOLDEN_DIR / f"{name}.txt"
    if REGEN:
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, \
        f"{path} differs from the replay: check the change, then DURAK_REGEN_GOLDEN=1"


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_transcript_from_the_reference_engine(name):
    from durak_sim.reference import play

    g = GOLDEN[name]
    rec = play(g["seed"], g["deal"], g["seats"], rules_of(name))
    assert dumps(rec) == dumps(kernel_record(name))
    path = GOLDEN_DIR / f"{name}.txt"
    assert path.read_text(encoding="utf-8") == expected_text(rec, name)


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_deal_shows_the_variant(name):
    """The deal still shows what its header points at (a regenerated file after a rules
    change might not)."""
    text = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    for what in GOLDEN[name]["shows"]:
        assert what in text, f"{name}: the transcript no longer shows {what!r}"
    assert rules_of(name).describe() in text.splitlines()[0]


def test_every_named_ruleset_has_a_golden_file():
    """(After the transcript tests, which write the files under DURAK_REGEN_GOLDEN=1.)"""
    assert set(GOLDEN) == set(VARIANTS)
    missing = [n for n in VARIANTS if not (GOLDEN_DIR / f"{n}.txt").is_file()]
    assert not missing, f"no golden transcript for {missing}: run with DURAK_REGEN_GOLDEN=1"

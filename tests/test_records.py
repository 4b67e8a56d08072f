"""Game records (spec/game-record.md): shape, key order, JSON Lines round trip, and replay
rejecting tampered records."""
import copy
import hashlib
import json
from types import SimpleNamespace

import pytest

from durak_sim import seeding
from durak_sim.cards import card_str
from durak_sim.records import (
    FORMAT, actions_from_record, dumps, make_record, read_records, validate_record,
    write_records,
)
from durak_sim.reference import RecordError, ReferenceGame, play, replay
from durak_sim.rules import Rules

FIRST = SimpleNamespace(name="first", decide=lambda o, l, h, r, m: l[1], memory=1, reset=1)
LAST = SimpleNamespace(name="last", decide=lambda o, l, h, r, m: l[l[0]], memory=1, reset=1)
# dumps(play(42, 7, [FIRST, LAST])): pins the byte format (81 actions, 24 bouts)
GOLDEN_SHA256 = "c0a0615cb85c8d6b6cbc1edcb9e528613163c84a0a5afab6b162b937ad908461"
GOLDEN_PREFIX = ('{"format":"durak-sim/record/1","rules":{"players":2,"hand_size":6,'
                 '"variant":"podkidnoy"},"seed":42,"deal":7,"seats":["first","last"],'
                 '"hands":[["JH","TD","TH","JD","TS","7D"],["TC","QH","KD","9D","7H","QC"]],'
                 '"stock":["QD","AD",')


@pytest.fixture(scope="module")
def record():
    return play(42, 7, ["easy", "random"])


def test_golden_record_bytes():
    line = dumps(play(42, 7, [FIRST, LAST]))
    assert line.startswith(GOLDEN_PREFIX)
    assert '{"seat":1,"act":"attack","card":"KD"},{"seat":0,"act":"take"}' in line
    assert hashlib.sha256(line.encode()).hexdigest() == GOLDEN_SHA256


def test_key_order_and_fields(record):
    assert list(record) == ["format", "rules", "seed", "deal", "seats", "hands", "stock", "trump",
                            "first_attacker", "actions", "result"]
    assert record["format"] == FORMAT
    assert record["rules"] == Rules().to_dict()
    hands, stock = seeding.deal_cards(42, 7)
    assert record["hands"] == [[card_str(c) for c in h] for h in hands]  # dealing order
    assert record["stock"] == [card_str(c) for c in stock]
    assert record["trump"] == record["stock"][-1]
    assert list(record["result"]) == ["outcome", "durak", "out_order", "bouts"]
    kinds = set()
    for a in record["actions"]:
        order = {"attack": ["seat", "act", "card"], "defend": ["seat", "act", "card", "target"],
                 "take": ["seat", "act"], "stop": ["seat", "act"]}[a["act"]]
        assert list(a) == order
        kinds.add(a["act"])
    assert kinds == {"attack", "defend", "take", "stop"}


def test_dumps_one_ascii_line(record):
    line = dumps(record)
    assert "\n" not in line and " " not in line and line.isascii()
    assert json.loads(line) == record


def test_actions_from_record_match_history():
    game = ReferenceGame.new(5, 9)
    while not game.is_over():
        game.apply(game.legal_actions()[-1])
    rec = make_record(Rules(), 5, 9, ["x", "y"], game.hands_dealt, game.stock_dealt,
                      game.first_attacker, game.history, game.result())
    assert actions_from_record(rec) == game.history
    assert replay(rec) == game.result()


def test_write_read_round_trip(tmp_path):
    recs = [play(1, d, ["random", "easy"]) for d in range(5)]
    path = tmp_path / "games.jsonl"
    assert write_records(path, recs) == 5
    lines = path.read_text().splitlines()
    assert lines == [dumps(r) for r in recs]
    back = list(read_records(path))
    assert back == recs
    for r in back:
        assert replay(validate_record(r)) == r["result"]


def test_read_bad_line_names_line_number(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(dumps(play(1, 0, ["easy", "easy"])) + "\n\n{not json\n")
    with pytest.raises(RecordError, match=r":3: not JSON"):
        list(read_records(path))
    path.write_text("[1, 2]\n")
    with pytest.raises(RecordError, match=r":1:"):
        list(read_records(path))


def _tamper(record, fn):
    rec = copy.deepcopy(record)
    fn(rec)
    return rec


def _swap_hand_card_with_stock(rec):
    rec["hands"][0][0] = rec["hands"][1][0]  # a duplicate, and one card missing


def _illegal_action(rec):
    # the first action opens the deal: make it a card the opener does not hold
    opener = rec["first_attacker"]
    other = rec["hands"][1 - opener][0]
    rec["actions"][0]["card"] = other


def _first_defence(rec):
    return next(a for a in rec["actions"] if a["act"] == "defend")


TAMPERS = {
    "duplicate card": (_swap_hand_card_with_stock, "36 cards"),
    "illegal action": (_illegal_action, "illegal"),
    "wrong result": (lambda r: r["result"].update(bouts=r["result"]["bouts"] + 1), "result"),
    "wrong durak": (lambda r: r["result"].update(
        durak=1 - r["result"]["durak"], out_order=[r["result"]["durak"]]), "result"),
    "wrong seat": (lambda r: r["actions"][0].update(seat=1 - r["actions"][0]["seat"]),
                   "to move"),
    "wrong first attacker": (lambda r: r.update(first_attacker=1 - r["first_attacker"]), "R2.3"),
    "wrong trump": (lambda r: r.update(trump=r["hands"][0][0]), "trump"),
    "truncated": (lambda r: r["actions"].pop(), "end before"),
    "extra action": (lambda r: r["actions"].append({"seat": 0, "act": "stop"}), "over"),
    "wrong target": (lambda r: _first_defence(r).update(target=_first_defence(r)["card"]),
                     "unbeaten"),
    "bad format": (lambda r: r.update(format="durak-sim/record/0"), "format"),
    "missing key": (lambda r: r.pop("stock"), "lacks stock"),
    "bad card": (lambda r: r["stock"].__setitem__(0, "1S"), "unknown card"),
    "bad act": (lambda r: r["actions"][0].update(act="pass"), "unknown act"),
    "bad rules": (lambda r: r["rules"].update(players=3), "rules"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_replay_rejects_tampered_record(record, name):
    fn, msg = TAMPERS[name]
    assert replay(record) == record["result"]
    rec = _tamper(record, fn)
    with pytest.raises(RecordError, match=msg) as exc:
        replay(rec)
    assert "\n" not in str(exc.value)


def test_extra_fields_are_allowed(record):
    rec = dict(record, engine="reference")
    assert replay(rec) == record["result"]

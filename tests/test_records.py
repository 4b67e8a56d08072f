"""Game records (docs/game-record.md): shape, key order, JSON Lines round trip, and replay
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


def test_a_byte_order_mark_at_the_file_s_head_is_read_past(tmp_path):
    """As position files are (docs/game-record.md): an editor's UTF-8 BOM before line 1;
    one anywhere else is not JSON."""
    rec = play(1, 0, ["easy", "random"])
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + dumps(rec).encode() + b"\n")
    assert list(read_records(path)) == [rec]
    path.write_bytes(dumps(rec).encode() + b"\n\xef\xbb\xbf" + dumps(rec).encode() + b"\n")
    with pytest.raises(RecordError, match=r":2: not JSON"):
        list(read_records(path))


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
    "a seat short": (lambda r: r["seats"].pop(), "seats must name 2 strategies"),
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


# ---- reading: one line at a time, each bounded ---------------------------------------------
def test_read_records_one_line_at_a_time_at_most_16_mib(tmp_path, record):
    """A line longer than 16 MiB is refused once that much is read (a file of one 4 GB line
    ended in a MemoryError traceback), after the records before it."""
    path = tmp_path / "long.jsonl"
    path.write_bytes(dumps(record).encode() + b"\n" + b"x" * ((16 << 20) + 1))
    lines = read_records(path)
    assert next(lines) == record
    with pytest.raises(RecordError, match=r"long.jsonl:2: more than 16 MiB in one line"):
        next(lines)
    path.write_bytes(b"\n".join([dumps(record).encode()] * 3) + b"\r\n\n")
    assert list(read_records(path)) == [record] * 3


@pytest.mark.parametrize("data, message", [
    (b"[" * 5000 + b"]" * 5000, "not JSON (nested too deeply)"),
    (b'{"seed": 1' + b"0" * 5000 + b"}",
     "not JSON (a number too long: more than 4,300 digits)"),
    (b'{"seats": ["\xe9"]}', "not UTF-8 text"),
    (b'{"seed": 1, "deal": 2, "seed": 3}', "the key 'seed' is given twice in one object"),
], ids=["nested", "long number", "latin-1", "key twice"])
def test_read_records_says_what_python_does_not_take(tmp_path, data, message):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n" + data + b"\n")
    with pytest.raises(RecordError) as e:
        list(read_records(path))
    assert str(e.value) == f"{path}:2: {message}"


# ---- seed, deal and unfinished --------------------------------------------------------------
@pytest.mark.parametrize("key, value", [("seed", 2 ** 70), ("deal", 2 ** 70), ("seed", 2 ** 63),
                                        ("seed", None), ("deal", None), ("deal", -1),
                                        ("seed", True), ("seed", 1.0)])
def test_seed_and_deal_are_in_the_seed_contract_s_range(record, key, value):
    """Seeds and deal indices are 0..2**63 - 1 (seeding); a record needs both to make its deal
    again (docs/game-record.md): ``null`` is refused too (it was shown as 'seed None')."""
    rec = dict(record, **{key: value})
    with pytest.raises(RecordError, match=rf"^{key} must be the .*, an integer "
                                          rf"0\.\.9223372036854775807 \(seeding\), got "):
        validate_record(rec)
    with pytest.raises(RecordError, match=f"^{key} must be"):
        replay(rec)
    from durak_sim.replay import render_record

    with pytest.raises(RecordError, match=f"^{key} must be"):
        render_record(dict(rec, result=None, unfinished=True))
    assert validate_record(dict(record, **{key: seeding.MAX_SEED}))


@pytest.mark.parametrize("series", [{"series": 0}, {"series": 0, "deal": "x"},
                                    {"series": 0, "deal": 1.5}, None, [0, 1], 5,
                                    {"series": "a", "deal": 0}, {"series": 0, "deal": True},
                                    {"series": 0, "deal": -1}, {"series": 0, "deal": 2 ** 70}])
def test_a_series_field_of_another_shape_is_refused_in_one_line(record, series):
    """``series`` is ``{"series": j, "deal": k}`` (docs/game-record.md): anything else is one
    line, before the deal is made again from it (it gave Python's errors)."""
    rec = dict(record, series=series)
    with pytest.raises(RecordError, match=r'^series must be \{"series": j, "deal": k\}'):
        validate_record(rec)
    from durak_sim.replay import render_record

    with pytest.raises(RecordError, match="^series must be"):
        render_record(dict(rec, result=None, unfinished=True))


def _unfinished(record, n=10):
    return dict(record, actions=record["actions"][:n], result=None, unfinished=True)


def test_unfinished_is_true_or_false(record):
    """``unfinished`` is a boolean ('yes' on a finished record showed it as stopped after
    all its actions); an unfinished record has a null result and does not replay."""
    from durak_sim.replay import render_record

    for flag in ("yes", 1, None, "true"):
        with pytest.raises(RecordError, match="unfinished, when present, is true or false"):
            render_record(dict(record, unfinished=flag))
        with pytest.raises(RecordError, match="unfinished, when present, is true or false"):
            replay(dict(record, unfinished=flag))
    assert replay(dict(record, unfinished=False)) == record["result"]
    assert render_record(dict(record, unfinished=False)) == render_record(record)
    stopped = _unfinished(record)
    assert render_record(stopped).endswith("\nunfinished: stopped after 10 actions")
    with pytest.raises(RecordError, match="stopped midway .* no result to replay to"):
        replay(stopped)
    with pytest.raises(RecordError, match="an unfinished record's result is null"):
        render_record(dict(stopped, result=record["result"]))
    with pytest.raises(RecordError, match="result must be an object"):
        render_record(dict(record, result=None))


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_replay_record_checks_each_record_as_text_and_as_json(tmp_path, record, as_json):
    """``replay --record F --json`` re-emits a record only once it is well formed and
    replays to its result, as the text form does (it printed a deal of 2**70 back)."""
    import subprocess
    import sys

    from cli_errors import assert_one_line_error
    from durak_sim.records import dumps

    good = tmp_path / "good.jsonl"
    good.write_text(dumps(record) + "\n")
    flag = ["--json"] if as_json else []
    ok = subprocess.run([sys.executable, "-m", "durak_sim.cli", "replay", "--record",
                         str(good), *flag], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    for name, fn, words in (("deal", lambda r: r.update(deal=2 ** 70), ["deal must be"]),
                            ("result", TAMPERS["wrong result"][0], ["result"]),
                            # stopped midway, yet an action after the deal's end: told with
                            # its record (it was a bare line, and --json printed it back)
                            ("overlong", lambda r: r.update(
                                result=None, unfinished=True,
                                actions=[*r["actions"], {"seat": 0, "act": "take"}]),
                             ["the deal is over"])):
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text(dumps(_tamper(record, fn)) + "\n")
        proc = subprocess.run([sys.executable, "-m", "durak_sim.cli", "replay", "--record",
                               str(bad), *flag], capture_output=True, text=True, timeout=120)
        assert_one_line_error(proc, "record 1", *words)
        assert proc.stdout == ""


def test_the_format_page_s_example_is_the_record_replay_prints():
    """docs/game-record.md shows a real record: the one ``durak-sim replay`` makes of the
    deal, seed and seats it names (an invented example had a card no hand held)."""
    import re
    from pathlib import Path

    from durak_sim.replay import replay_deal

    page = (Path(__file__).parents[1] / "docs" / "game-record.md").read_text()
    shown = json.loads(re.search(r"```json\n(.*?)```", page, re.S).group(1))
    assert (shown["seed"], shown["deal"], shown["seats"]) == (42, 278, ["easy", "hard"])
    assert "replay --seed 42 --deal 278 --seats easy,hard --json" in page
    assert shown == replay_deal(42, 278, ["easy", "hard"])

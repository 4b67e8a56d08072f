"""The position format (docs/position.md), its validation and the ``solve`` command."""
import json

import pytest
from click.testing import CliRunner

from durak_sim.cards import cards_mask, parse_card
from durak_sim.cli_solve import solve_command
from durak_sim.errors import UserError
from durak_sim.position import POSITION_FORMAT, Position
from durak_sim.position_file import load_positions

SPEC_EXAMPLE = {
    "format": "durak-sim/position/1",
    "trump": "D",
    "hands": [["6S", "KD", "9H"], ["TS", "7D"]],
    "stock": [],
    "attacker": 0,
    "table": [],
    "taking": False,
    "bout_limit": None,
}


def pos(**kw) -> dict:
    d = {"format": POSITION_FORMAT, "trump": "D", "hands": [["6S", "KD", "9H"], ["TS", "7D"]],
         "stock": [], "attacker": 0}
    d.update(kw)
    return d


# ---- reading ------------------------------------------------------------------------------
def test_spec_example():
    p = Position.from_dict(SPEC_EXAMPLE)
    assert p.trump_suit == 2
    assert p.hands == (cards_mask(["6S", "KD", "9H"]), cards_mask(["TS", "7D"]))
    assert p.stock == () and p.table == () and p.taking is False and p.bout_limit is None
    assert (p.to_move, p.phase, p.defender, p.unbeaten) == (0, "open", 1, -1)
    assert not p.is_over() and p.result() is None


def test_optional_keys_default():
    assert Position.from_dict(pos()) == Position.from_dict(SPEC_EXAMPLE)


def test_trump_as_card():
    p = Position.from_dict(pos(trump="QD"))
    assert p.trump_suit == 2
    hands = [["6S", "KD", "9H", "8S", "8D", "JC"], ["TS", "7D", "6C", "6D", "TC", "QS"]]
    p = Position.from_dict(pos(trump="AH", stock=["7C", "AH"], hands=hands))
    assert p.stock == (parse_card("7C"), parse_card("AH")) and p.trump_suit == 3


def test_mid_bout_defaults():
    # defender 1 holds 2 cards and has beaten one card: the limit is min(6, 2 + 1) = 3
    p = Position.from_dict(pos(hands=[["KD", "9H"], ["TS", "7D"]], table=[["6S", "8S"]]))
    assert p.bout_limit == 3 and p.phase == "attack" and p.to_move == 0
    p = Position.from_dict(pos(hands=[["KD", "9H"], ["TS", "7D"]],
                               table=[["6S", "8S"], ["6H", None]]))
    assert p.phase == "defend" and p.to_move == 1 and p.unbeaten == parse_card("6H")
    p = Position.from_dict(pos(hands=[["KD"], ["TS", "7D"]], table=[["6S", "8S"], ["6H", None],
                                                               ["8H", None]], taking=True))
    assert p.phase == "attack" and p.to_move == 0 and p.unbeaten == -1 and p.bout_limit == 3


def test_round_trip():
    cases = [
        SPEC_EXAMPLE,
        pos(hands=[["KD", "9H"], ["TS", "7D"]], table=[["6S", "8S"], ["6H", None]],
            bout_limit=3),
        pos(hands=[["KD"], ["TS", "7D"]], table=[["6S", "8S"], ["6H", None], ["8H", None]],
            taking=True),
        pos(hands=[["KD", "9H", "6C", "7C", "8C", "9C"], ["TS", "7D", "6H", "7H", "8H", "QC"]],
            stock=["AD"]),
        pos(hands=[[], ["TS"]]),
    ]
    for d in cases:
        p = Position.from_dict(d)
        assert Position.from_dict(p.to_dict()) == p
        assert Position.from_json(p.to_json()) == p
        assert json.loads(p.to_json())["format"] == POSITION_FORMAT


def test_finished_deal():
    p = Position.from_dict(pos(hands=[[], ["TS"]]))
    assert p.is_over() and p.to_move is None and p.result() == 1
    assert Position.from_dict(pos(hands=[[], []])).result() == 0
    assert Position.from_dict(pos(hands=[["TS"], []])).result() == -1


# ---- every malformed case is a one-line UserError ----------------------------------------
SEVEN_DEFENDER = ["6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
BAD = {
    "not an object": [1, 2],
    "missing key": {k: v for k, v in pos().items() if k != "stock"},
    "unknown key": pos(colour="red"),
    "wrong format": pos(format="durak-sim/position/2"),
    "trump not a suit": pos(trump="X"),
    "trump a number": pos(trump=3),
    "hands not two": pos(hands=[["6S"]]),
    "hand not a list": pos(hands=["6S", ["7D"]]),
    "unknown card": pos(hands=[["6S", "1D"], ["7D"]]),
    "card not a string": pos(hands=[["6S", 17], ["7D"]]),
    "card twice in a hand": pos(hands=[["6S", "6S"], ["7D"]]),
    "card in both hands": pos(hands=[["6S"], ["6S", "7D"]]),
    "card in hand and stock": pos(stock=["6S"]),
    "card in hand and table": pos(hands=[["KD", "9H"], ["TS", "7D"]], table=[["KD", None]]),
    "attacker 2": pos(attacker=2),
    "attacker a bool": pos(attacker=True),
    "attacker a string": pos(attacker="0"),
    "stock not a list": pos(stock="6S"),
    "table not a list": pos(table="6S"),
    "table pair of three": pos(hands=[["KD"], ["TS", "7D"]], table=[["6S", "8S", "9S"]]),
    "defence does not beat": pos(hands=[["KD"], ["TS", "7D"]], table=[["8S", "6S"]]),
    "trump beaten by non-trump": pos(hands=[["KD"], ["TS", "7D"]], table=[["8D", "AS"]]),
    "defence after an unbeaten card": pos(hands=[["KD"], ["TS"]],
                                          table=[["6S", None], ["6H", "8H"]], bout_limit=3),
    "two unbeaten, not taking": pos(hands=[["KD"], ["TS"]], table=[["6S", "7S"], ["6H", None],
                                                                  ["7H", None]], bout_limit=4),
    "defence while taking after unbeaten": pos(hands=[["KD"], ["TS"]], taking=True,
                                               table=[["6S", None], ["6H", "8H"]],
                                               bout_limit=3),
    "taking with all beaten": pos(hands=[["KD"], ["TS"]], table=[["6S", "7S"]], taking=True),
    "taking with empty table": pos(taking=True),
    "throw-in of a rank not on the table": pos(hands=[["KD"], ["TS", "7D"]],
                                               table=[["6S", "8S"], ["9H", None]]),
    "over the limit": pos(hands=[["KD"], ["TS"]], table=[["6S", "7S"], ["6H", None]],
                          bout_limit=1),
    "limit 0": pos(hands=[["KD"], ["TS"]], table=[["6S", None]], bout_limit=0),
    "limit 7": pos(hands=[["KD"], ["TS"]], table=[["6S", None]], bout_limit=7),
    "limit a string": pos(hands=[["KD"], ["TS"]], table=[["6S", None]], bout_limit="3"),
    "default limit below the attacks": pos(hands=[["KD"], []], table=[["6S", None]]),
    "limit at the start of a bout": pos(bout_limit=3),
    # the defender held 2 cards at the open (TS now, 7S beaten 6S): the limit is 2, not 3 or 1
    "limit above the defender's hand": pos(hands=[["KD"], ["TS"]], table=[["6S", "7S"]],
                                           bout_limit=3),
    "limit below the defender's hand": pos(hands=[["KD"], ["TS", "7D", "8D"]],
                                           table=[["6S", "7S"]], bout_limit=1),
    "more attacks than the explicit limit hides": pos(hands=[["KD"], ["TS"]],
                                                      table=[["6S", "7S"], ["6C", None],
                                                             ["7C", None]],
                                                      taking=True, bout_limit=3),
    "seven attacks": pos(hands=[["AS", "AC", "AD"], SEVEN_DEFENDER], taking=True,
                         table=[["6S", None], ["6C", None], ["6D", None], ["7S", None],
                                ["7C", None], ["7D", None], ["8S", None]], trump="H"),
    "taking not a bool": pos(hands=[["KD"], ["TS"]], table=[["6S", None]], taking=1),
    "face-up trump not of the trump suit": pos(hands=[["KD", "9H", "6C", "7C", "8C", "9C"],
                                                      ["TS", "7D", "6H", "7H", "8H", "QC"]],
                                               stock=["AS"]),
    "trump card not last in the stock": pos(trump="AD", stock=["8D", "AD", "QD"],
                                            hands=[["KD", "9H", "6C", "7C", "8C", "9C"],
                                                   ["TS", "7D", "6H", "7H", "8H", "QC"]]),
    "empty hand at a bout start with stock": pos(hands=[[], ["TS", "7D"]], stock=["AD"]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed(name):
    with pytest.raises(UserError) as e:
        Position.from_dict(BAD[name])
    msg = str(e.value)
    assert msg and "\n" not in msg


def test_malformed_messages_say_what():
    with pytest.raises(UserError, match="6S appears twice"):
        Position.from_dict(BAD["card in both hands"])
    with pytest.raises(UserError, match="unknown card '1D'"):
        Position.from_dict(BAD["unknown card"])
    with pytest.raises(UserError, match="does not beat"):
        Position.from_dict(BAD["defence does not beat"])
    with pytest.raises(UserError, match="missing key"):
        Position.from_dict(BAD["missing key"])
    with pytest.raises(UserError, match="invalid JSON"):
        Position.from_json("{")


def test_bout_limit_messages_count_the_defender_s_cards():
    """The limit is min(6, hand at the open): an eight-card defender is not said to have held
    six, and the limit the message names is the one his hand fixed."""
    with pytest.raises(UserError) as e:
        Position.from_dict(BAD["seven attacks"])
    assert str(e.value) == ("position: 7 attack cards on the table, more than the bout limit "
                            "6 = min(6, the 8 cards the defender held when the bout opened) "
                            "(R3.4)")
    with pytest.raises(UserError, match=r"more than the bout limit 2 = min\(6, the 2 cards"):
        Position.from_dict(BAD["more attacks than the explicit limit hides"])
    with pytest.raises(UserError, match=r"bout_limit 3 is impossible: the limit is 2 = "
                                        r"min\(6, the 2 cards"):
        Position.from_dict(BAD["limit above the defender's hand"])
    with pytest.raises(UserError, match=r"bout_limit 1 is impossible: the limit is 4 = "
                                        r"min\(6, the 4 cards"):
        Position.from_dict(BAD["limit below the defender's hand"])
    with pytest.raises(UserError, match=r"the 1 card the defender held"):
        Position.from_dict(pos(hands=[["KD"], []], table=[["6S", "7S"], ["6C", None]],
                               bout_limit=2))


def test_direct_construction_is_validated():
    with pytest.raises(UserError):
        Position(2, (1, 1))  # card 0 in both hands
    with pytest.raises(UserError):
        Position(4, (1, 2))
    with pytest.raises(UserError):
        Position(0, (1, 2), attacker=3)


# ---- files --------------------------------------------------------------------------------
def test_load_single_object(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(SPEC_EXAMPLE, indent=2))
    assert load_positions(str(f)) == [Position.from_dict(SPEC_EXAMPLE)]


def test_load_json_lines(tmp_path):
    f = tmp_path / "p.jsonl"
    lines = [json.dumps(pos()), "", json.dumps(pos(attacker=1))]
    f.write_text("\n".join(lines) + "\n")
    got = load_positions(str(f))
    assert [p.attacker for p in got] == [0, 1]


def test_a_byte_order_mark_is_read_past(tmp_path):
    """A file some editors begin with a UTF-8 byte order mark reads as without it (a QA
    finding: it was refused in Python's words, "decode using utf-8-sig")."""
    f = tmp_path / "p.json"
    for text in (json.dumps(pos()), json.dumps(pos(), indent=2),
                 json.dumps(pos()) + "\n" + json.dumps(pos(attacker=1))):
        f.write_bytes(b"\xef\xbb\xbf" + text.encode())
        f2 = tmp_path / "plain.json"
        f2.write_text(text)
        assert load_positions(str(f)) == load_positions(str(f2))


def test_load_errors_name_the_line(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps(pos()) + "\n" + json.dumps(pos(attacker=5)) + "\n")
    with pytest.raises(UserError, match="line 2: .*attacker"):
        load_positions(str(f))
    f.write_text(json.dumps(pos()) + "\n{oops\n")
    with pytest.raises(UserError, match="line 2: invalid JSON"):
        load_positions(str(f))
    f.write_text('{\n  "format": "durak-sim/position/1",\n  "trump": D\n}\n')
    with pytest.raises(UserError, match="invalid JSON at line 3"):
        load_positions(str(f))
    # two objects written over several lines: JSON Lines holds one a line (a QA finding:
    # the message named only the first line's error)
    f.write_text(json.dumps(pos(), indent=2) + "\n" + json.dumps(pos(), indent=2) + "\n")
    with pytest.raises(UserError, match="line 1: invalid JSON: .*one a line, JSON Lines"):
        load_positions(str(f))
    f.write_text("   \n")
    with pytest.raises(UserError, match="no position"):
        load_positions(str(f))
    with pytest.raises(UserError, match="cannot read"):
        load_positions(str(tmp_path / "missing.json"))


# ---- the command --------------------------------------------------------------------------
def test_cli_human(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(SPEC_EXAMPLE))
    r = CliRunner().invoke(solve_command, [str(f)])
    assert r.exit_code == 0, r.output
    assert "seat 1 wins" in r.output and "attack KD" in r.output and "nodes" in r.output


def test_cli_json_lines(tmp_path):
    f = tmp_path / "p.jsonl"
    rows = [pos(), pos(hands=[["6S"], ["TS", "7D"]]), pos(hands=[[], ["TS"]])]
    f.write_text("\n".join(json.dumps(d) for d in rows) + "\n")
    r = CliRunner().invoke(solve_command, [str(f), "--json"])
    assert r.exit_code == 0, r.output
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 3
    for o in out:
        assert set(o) == {"value", "best_actions", "nodes", "seconds"}
    assert out[0]["value"] == -1 and out[0]["best_actions"][0] == "attack KD"
    assert out[1] == {**out[1], "value": 1, "best_actions": ["attack 6S"]}
    assert out[2]["value"] == 1 and out[2]["best_actions"] == []


def test_cli_json_names_the_seats_left_at_a_larger_table(tmp_path):
    """At a larger table the answer names the two seats left: the value is the first's."""
    f = tmp_path / "p.jsonl"
    three = {"players": 3, "hand_size": 6, "variant": "podkidnoy"}
    rows = [pos(hands=[["6S", "KD", "9H"], [], ["TS", "7D"]], out=[1], rules=three), pos(),
            pos(hands=[["6S", "KD", "9H"], ["TS", "7D"], []], out=[2], rules=three)]
    f.write_text("\n".join(json.dumps(d) for d in rows) + "\n")
    r = CliRunner().invoke(solve_command, [str(f), "--json"])
    assert r.exit_code == 0, r.output
    three, two, first_two = [json.loads(line) for line in r.stdout.splitlines()]
    assert three["seats"] == [0, 2] and "seats" not in two and first_two["seats"] == [0, 1]
    assert {k: three[k] for k in ("value", "best_actions")} == \
        {k: two[k] for k in ("value", "best_actions")}
    human = CliRunner().invoke(solve_command, [str(f)]).output
    assert "seat 2 wins, seat 0 is the Durak" in human


def test_cli_errors(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps(pos()) + "\n" + json.dumps(pos(hands=[["6S", "6S"], []])) + "\n")
    for args in ([str(f)], [str(f), "--json"], [str(tmp_path / "missing.json")]):
        r = CliRunner().invoke(solve_command, args)
        assert r.exit_code == 2
        err = r.stderr.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("durak-sim: error: ")
        assert "Traceback" not in r.output
        assert r.stdout == ""


# ---- reading a file one position at a time --------------------------------------------------
def test_a_file_is_read_one_position_at_a_time(tmp_path):
    """Reading JSON Lines holds one position, not the file (which took 7.5 times its size):
    each comes with whether another follows."""
    import tracemalloc

    from durak_sim.position_file import PositionFile

    f = tmp_path / "many.jsonl"
    line = json.dumps(pos()) + "\n"
    f.write_text(line * 20_000 + "\n")   # 2.4 MB
    tracemalloc.start()
    try:
        n = more = 0
        for p, more in PositionFile(str(f)):
            n += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == 20_000 and more is False
    assert peak < 300_000, peak
    assert [m for _, m in PositionFile(str(f))][-3:] == [True, True, False]
    pretty = tmp_path / "one.json"
    pretty.write_text("\n\n" + json.dumps(pos(), indent=2) + "\n")
    assert list(PositionFile(str(pretty))) == [(Position.from_dict(pos()), False)]


def test_a_position_is_at_most_16_mib(tmp_path):
    """A line (or a file of one object) longer than the bound is refused in one line naming
    the file and the line, once that much is read: a file of one huge line (``/dev/zero``)
    costs no more."""
    f = tmp_path / "long.jsonl"
    f.write_bytes(json.dumps(pos()).encode() + b"\n" + b"x" * ((16 << 20) + 10) + b"\n")
    with pytest.raises(UserError, match=r"long.jsonl: line 2: more than 16 MiB in one line"):
        load_positions(str(f))
    f.write_bytes(b"{\n" + b" " * (16 << 20) + b"\n}\n")
    with pytest.raises(UserError, match=r"long.jsonl: the position from line 1 on is more than "
                                        r"16 MiB"):
        load_positions(str(f))
    f.write_bytes(b"{" + b" " * ((16 << 20) - 2) + b"}\n")   # 16 MiB and its newline: taken
    with pytest.raises(UserError, match="missing key"):
        load_positions(str(f))


def test_json_python_does_not_take_is_one_line_naming_the_file(tmp_path):
    """Nesting deeper than Python's stack, an integer of more digits than it converts, bytes
    that are not UTF-8: each a line naming the file, the line and what is wrong (they said
    'maximum recursion depth exceeded', 'use sys.set_int_max_str_digits()', or 'utf-8 codec'
    without the file)."""
    f = tmp_path / "p.jsonl"
    cases = {b"[" * 5000 + b"]" * 5000: "line 1: invalid JSON: nested too deeply",
             b'{"a":' * 5000 + b"1" + b"}" * 5000: "line 1: invalid JSON: nested too deeply",
             json.dumps(pos()).replace('"attacker": 0', '"attacker": 1' + "0" * 5000).encode():
                 "line 1: invalid JSON: a number too long: more than 4,300 digits",
             json.dumps(pos()).encode() + b"\n" + json.dumps(pos(trump="\xe9"), ensure_ascii=False)
             .encode("latin-1"): "line 2: not UTF-8 text"}
    for data, message in cases.items():
        f.write_bytes(data + b"\n")
        with pytest.raises(UserError) as e:
            load_positions(str(f))
        assert str(e.value) == f"{f}: {message}"
        r = CliRunner().invoke(solve_command, [str(f)])
        assert r.exit_code == 2 and r.stdout == ""
        assert r.stderr == f"durak-sim: error: {f}: {message}\n"


def test_a_pipe_is_answered_up_to_its_bad_line(tmp_path):
    """A regular file is read through before any answer (a bad line: no answer at all); a pipe
    cannot be read twice: the positions before its bad line are answered, then the error."""
    import os
    import threading

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    text = json.dumps(pos()) + "\n" + json.dumps(pos(hands=[["6S"], ["TS", "7D"]])) + "\n{oops\n"

    def feed():
        with open(fifo, "w") as w:
            w.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    r = CliRunner().invoke(solve_command, [str(fifo), "--json"])
    writer.join()
    assert r.exit_code == 2
    assert [json.loads(x)["value"] for x in r.stdout.splitlines()] == [-1, 1]
    assert r.stderr == (f"durak-sim: error: {fifo}: line 3: invalid JSON: Expecting property "
                        f"name enclosed in double quotes (column 2)\n")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(text)
    r = CliRunner().invoke(solve_command, [str(plain), "--json"])
    assert r.exit_code == 2 and r.stdout == "" and "line 3: invalid JSON" in r.stderr


def test_dash_reads_standard_input():
    """``solve -`` reads the positions from standard input, answered as from a pipe (up to a
    bad line, which names ``<stdin>``)."""
    text = json.dumps(pos()) + "\n" + json.dumps(pos(hands=[["6S"], ["TS", "7D"]])) + "\n"
    r = CliRunner().invoke(solve_command, ["-", "--json"], input=text)
    assert r.exit_code == 0, r.output
    assert [json.loads(x)["value"] for x in r.stdout.splitlines()] == [-1, 1]
    r = CliRunner().invoke(solve_command, ["-", "--json"], input=text + "{oops\n")
    assert r.exit_code == 2 and len(r.stdout.splitlines()) == 2
    assert r.stderr.startswith("durak-sim: error: <stdin>: line 3: invalid JSON")
    r = CliRunner().invoke(solve_command, ["-"], input="")
    assert r.exit_code == 2 and r.stderr == "durak-sim: error: <stdin>: no position in the file\n"


# ---- what a two-player position may be ------------------------------------------------------
def test_the_defender_is_not_the_attacker_at_two_players():
    """``"defender": 0`` is a seat, not a field left out: at two players as at three, the
    attacker cannot defend (it was read as the default, seat 1)."""
    for table in ([], [["6S", None]]):
        hands = [["6S", "KD", "9H"] if not table else ["KD", "9H"], ["TS", "7D"]]
        with pytest.raises(UserError, match="defender 0 must be an active seat other than the "
                                            "attacker"):
            Position.from_dict(pos(hands=hands, table=table, defender=0))
    three = pos(hands=[["6S", "KD", "9H"], ["TS", "7D"], []], out=[2], defender=0,
                rules={"players": 3, "hand_size": 6, "variant": "podkidnoy"})
    with pytest.raises(UserError, match="defender 0 must be an active seat"):
        Position.from_dict(three)
    # the defender given as it is: the same position as without it
    p = Position.from_dict(pos(attacker=1, defender=0))
    assert (p.attacker, p.defender, p.to_move) == (1, 0, 1)
    assert p.hands == Position.from_dict(pos(attacker=1)).hands


def test_a_known_card_is_known_once():
    with pytest.raises(UserError, match=r"card TS appears twice \(known\[1\] twice\)"):
        Position.from_dict(pos(hands=[["KD", "9H"], ["TS", "7D"]], table=[["6S", None]],
                               known=[[], ["TS", "TS"]]))
    p = Position.from_dict(pos(hands=[["KD", "9H"], ["TS", "7D"]], table=[["6S", None]],
                               known=[[], ["TS"]]))
    assert p.known == ((), (parse_card("TS"),))


def test_a_bout_against_an_empty_hand_is_refused_as_such():
    """A defender with no cards and no defence on the table held none when the bout opened:
    no bout opens so (the message said 'bout_limit must be 1..6, not 0', no bout_limit
    given)."""
    for extra in ({}, {"taking": True}, {"bout_limit": 1},
                  {"rules": {"players": 2, "hand_size": 6, "variant": "perevodnoy"},
                   "bout_limit": 1}):
        with pytest.raises(UserError) as e:
            Position.from_dict(pos(hands=[["KD", "9H"], []], table=[["6S", None]], **extra))
        assert str(e.value).startswith("position: the defender has no cards and no defence "
                                       "on the table"), extra
        assert "bout_limit" not in str(e.value)
    # he beat one card with his last: the bout opened against one card
    p = Position.from_dict(pos(hands=[["KD", "9H"], []], table=[["6S", "7S"]]))
    assert p.bout_limit == 1 and p.phase == "attack"

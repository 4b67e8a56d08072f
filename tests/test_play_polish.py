"""``durak-sim play``'s words: a command with more words on its line, the command that plays
a stopped game's deal again, and expert's search rows in a hint."""
import io
import re
import shlex

import pytest
from click.testing import CliRunner

from durak_sim.cli import main
from durak_sim.human import parse_input
from durak_sim.records import read_records
from durak_sim.reference import ReferenceGame
from durak_sim.rules import Rules


# ------------------------------------------------------------------ a command with more words
@pytest.mark.parametrize("text,word", [("take take", "take"), ("stop, stop", "stop"),
                                       ("quit now", "quit"), ("hint please", "hint"),
                                       ("7h take", "take"), ("1 take", "take"),
                                       ("show table", "show")])
def test_a_command_with_more_words_says_one_move_at_a_time(text, word):
    g = ReferenceGame.new(42, 7)
    p = parse_input(text, g.observation(), g.legal_actions())
    assert p.kind == "error"
    assert p.message == f"one move at a time: type {word} on its own (not {text!r})"


def test_unknown_words_and_single_commands_are_as_before():
    g = ReferenceGame.new(42, 7)
    obs, codes = g.observation(), g.legal_actions()
    assert parse_input("take", obs, codes).message.startswith("only the defender takes")
    assert parse_input("junk", obs, codes).message.startswith("I do not understand 'junk'")
    assert parse_input("7 h", obs, codes).message == "a card is one word: type 7h"
    assert parse_input("7 x", obs, codes).message.startswith("I do not understand '7'")
    assert [parse_input(w, obs, codes).kind for w in ("h", "q", "hint", "look")] == \
        ["help", "quit", "hint", "show"]


def test_numbers_out_of_range_are_no_such_move_and_a_sign_is_not_a_number():
    g = ReferenceGame.new(42, 7)
    obs, codes = g.observation(), g.legal_actions()
    n = len(codes)
    for text in ("0", "-1", "-0", str(n + 1)):
        assert parse_input(text, obs, codes).message == \
            f"there is no move {text}: choose 1-{n}"
    assert parse_input("1", obs, codes).code == codes[0]
    assert parse_input("+1", obs, codes).message.startswith("I do not understand '+1'")


# ------------------------------------------------------------------ a stopped game's command
AGAIN = re.compile(r"the deal again from its start: (durak-sim play [^\n]+)")


def _play(args, record, stdin):
    return CliRunner().invoke(main, ["play", "--pace", "0", "--record", str(record), *args],
                              input=stdin)


@pytest.mark.parametrize("stdin,said", [("1\n1\nquit\n", "you quit after"),
                                        ("1\n1\n", "end of input after")])
def test_a_stopped_game_prints_the_command_of_its_deal(tmp_path, stdin, said):
    """Quit or the end of the input (exit 0): the command printed plays the same deal, the
    same AIs and rules; with the same moves it gives the same record."""
    args = ["--ai", "easy", "--seed", "12", "--deal", "3", "--rules", "perevodnoy"]
    res = _play(args, tmp_path / "a.jsonl", stdin)
    assert res.exit_code == 0, res.output
    assert said in res.output
    (cmd,) = AGAIN.findall(res.output)
    assert cmd == "durak-sim play --seed 12 --deal 3 --ai easy --rules perevodnoy"
    again = _play(shlex.split(cmd)[2:], tmp_path / "b.jsonl", stdin)
    assert again.exit_code == 0, again.output
    (a,), (b,) = read_records(tmp_path / "a.jsonl"), read_records(tmp_path / "b.jsonl")
    assert a["unfinished"] and a == b


def _one_answer_then_ctrl_c(monkeypatch) -> None:
    """The person answers "1" once, then presses Ctrl-C at the next prompt."""
    from rich.console import Console

    answers = iter(["1"])

    def read(self, prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr(Console, "input", read)


def test_ctrl_c_prints_the_command_and_keeps_exit_code_130(tmp_path, monkeypatch):
    _one_answer_then_ctrl_c(monkeypatch)
    res = _play(["--ai", "easy,random", "--seed", "4"], tmp_path / "c.jsonl", "")
    assert res.exit_code == 130, res.output
    assert "stopped after" in res.output
    assert AGAIN.findall(res.output) == ["durak-sim play --seed 4 --deal 0 --ai easy,random "
                                         "--rules podkidnoy --players 3"]


def test_a_second_stop_while_the_record_is_written_waits_for_it(tmp_path, monkeypatch):
    """``timeout`` sends its kill to the command and then to its process group: the second
    can come while the first one's stop writes the record. It used to cut the write short
    (no record, no closing lines); it now waits for the record and changes nothing."""
    import os
    import signal

    import durak_sim.records as records

    real = records.write_records

    def write_interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)       # the second stop, during the write
        return real(*args, **kwargs)

    _one_answer_then_ctrl_c(monkeypatch)
    monkeypatch.setattr(records, "write_records", write_interrupted)
    res = _play(["--ai", "easy", "--seed", "3"], tmp_path / "k.jsonl", "")
    assert res.exit_code == 130, res.output
    assert "stopped after" in res.output and "record: " in res.output
    (rec,) = read_records(tmp_path / "k.jsonl")
    assert rec["unfinished"]


def test_a_finished_game_keeps_its_line(tmp_path):
    res = _play(["--ai", "random", "--seed", "2", "--deal", "1"], tmp_path / "d.jsonl",
                "1\n" * 300)
    assert res.exit_code == 0, res.output
    assert "the deal again: durak-sim play --seed 2 --deal 1 --ai random\n" in res.output
    assert "from its start" not in res.output


# ------------------------------------------------------------------ expert's search rows
def test_search_lines_say_what_a_dropped_move_and_the_baseline_are():
    from durak_sim.advise import search_lines

    lines = search_lines([("1 take", 0.0, 0.0, True, 64), ("2 beat", 0.0, 0.0, False, 16),
                          ("3 beat", -0.5, 0.1, False, 16), ("4 beat", 0.2, 0.05, True, 64)],
                         "4 beat")
    assert lines == ["  1 take: hard's choice (the baseline)",
                     "  2 beat: dropped after 16 deals, the same result as hard's choice on "
                     "each",
                     "  3 beat: -0.500 \u00b1 0.196, dropped after 16 deals",
                     "  4 beat: +0.200 \u00b1 0.098  <- played"]


def test_expert_hint_never_shows_a_dropped_move_as_zero_plus_minus_zero():
    """Seed 5 deal 10 (random moves for seat 0): hints where expert dropped a move that tied
    hard's choice on every deal it tried, and others behind it; a dropped move's mean is
    over the deals it was played on (no "+0.000 \u00b1 0.000"), and the baseline is named.
    A hint asked again in the same position is the same (it was sampled afresh)."""
    import random

    from rich.console import Console

    from durak_sim.human import PlaySession, Screen
    from durak_sim.registry import get_strategy

    screen = Screen(Console(file=io.StringIO(), no_color=True, soft_wrap=True))
    session = PlaySession(5, 10, Rules(), [get_strategy("easy")], screen, read=input, pace=0)
    g, rng = session.game, random.Random(10)
    seen = set()
    while not g.is_over() and len(g.stock) >= 2 and len(seen) < 3:
        codes = g.legal_actions()
        if g.to_move() == 0 and len(codes) > 2:
            lines = session.hint_lines(g.observation(0), codes)
            # the same position, the same hint (its samples come from the position's stream)
            assert session.hint_lines(g.observation(0), codes) == lines
            rows = lines[1:]
            assert len(rows) == len(codes) and "deals it sampled" in lines[0]
            assert not any("0.000 \u00b1 0.000" in r for r in rows), rows
            assert sum("hard's choice (the baseline)" in r for r in rows) == 1, rows
            seen |= {kind for kind in ("the same result", "\u00b1", ", dropped after")
                     if any(kind in r for r in rows)}
        g.apply(rng.choice(codes))
    assert {"the same result", ", dropped after"} <= seen, seen


def test_the_command_names_the_plugins_the_ais_come_from(tmp_path):
    plugin = tmp_path / "polish_plugin.py"
    plugin.write_text("from durak_sim.registry import register_strategy\n"
                      "from durak_sim.strategies.random import decide\n"
                      "register_strategy('polishrandom', decide, description='random')\n")
    res = _play(["--ai", "polishrandom", "--seed", "6", "--plugin", str(plugin)],
                tmp_path / "e.jsonl", "quit\n")
    assert res.exit_code == 0, res.output
    assert AGAIN.findall(res.output) == [f"durak-sim play --seed 6 --deal 0 --ai polishrandom "
                                         f"--plugin {shlex.quote(str(plugin))}"]


def test_a_forced_stop_at_the_bout_s_limit_says_so():
    """A throw-in that the attack limit stops (R3.4) is told as the limit, not as "nothing
    to throw in" (which is what a stop for want of a card of the table's ranks says)."""
    import random

    from rich.console import Console

    from durak_sim.actions import STOP
    from durak_sim.human import PlaySession, Screen
    from durak_sim.observation import O_BOUT_LIMIT, O_N_ATTACKS, O_PHASE, PHASE_ATTACK
    from durak_sim.registry import get_strategy

    screen = Screen(Console(file=io.StringIO(), no_color=True, soft_wrap=True))
    session = PlaySession(5, 10, Rules(), [get_strategy("easy")], screen, read=input, pace=0)
    rng, said = random.Random(3), {}
    for deal in range(200):
        g = ReferenceGame.new(11, deal)
        session._full_told = None    # (a full bout is told once a bout: each deal anew)
        while not g.is_over() and len(said) < 2:
            obs, codes = g.observation(0), g.legal_actions()
            if g.to_move() == 0 and codes == [STOP] and int(obs[O_PHASE]) == PHASE_ATTACK:
                full = int(obs[O_N_ATTACKS]) >= int(obs[O_BOUT_LIMIT])
                said[full] = session._describe(0, STOP, PHASE_ATTACK, -1, obs, True)
            g.apply(rng.choice(codes))
        if len(said) == 2:
            break
    assert said[False] == "you have nothing to throw in"
    assert re.fullmatch(r"the bout is full: \d attack cards? \(R3\.4\)", said[True])


def test_a_full_bout_is_told_once_however_many_attackers_are_asked():
    """At four players every attacker the turn protocol asks stops at a full bout; the
    person hears it once a bout."""
    import io

    from rich.console import Console

    from durak_sim.human import PlaySession, Screen
    from durak_sim.registry import get_strategy

    out = io.StringIO()
    screen = Screen(Console(file=out, no_color=True, soft_wrap=True, width=200))
    ais = [get_strategy(x) for x in ("normal", "easy", "random")]
    session = PlaySession(11, 0, Rules(players=4), ais, screen, read=lambda _: "1", pace=0)
    session.run()
    lines = out.getvalue().splitlines()
    full = [i for i, line in enumerate(lines) if line.startswith("the bout is full")]
    assert len(full) > 1                              # (seed 11, deal 0)
    assert all(not lines[i + 1].startswith("the bout is full") for i in full)


def test_words_during_a_lead_and_a_verb_without_a_card():
    """While a lead of several cards is being laid, stop and take point to done; a verb
    alone asks for its card; transfer alone in a game without transfers says so."""
    import random

    from durak_sim.observation import O_PHASE, PHASE_LEAD

    rng = random.Random(2)
    rules = Rules(variant="podkidnoy-full")
    for deal in range(100):
        g = ReferenceGame.new(3, deal, rules)
        while not g.is_over() and not (g.to_move() == 0 and
                                       int(g.observation(0)[O_PHASE]) == PHASE_LEAD):
            g.apply(rng.choice(g.legal_actions()))
        if not g.is_over():
            break
    obs, codes = g.observation(0), g.legal_actions()

    def said(text):
        return parse_input(text, obs, codes).message

    assert said("stop") == "you are laying your lead: done ends it"
    assert said("take").endswith(": add a card, or done ends the lead")
    assert said("transfer") == "this game has no transfers (perevodnoy or --transfer, R8.2)"
    assert said("beat") == "beat with which card? type beat and your card, like beat 9d " \
                           "(beat 7d with 9d names the card to beat too), or a move's number"
    assert said("attack") == "attack which card? type attack and the card, like attack 7d, " \
                             "or a move's number"


@pytest.mark.parametrize("args,card", [(["--ai", "hard", "--seed", "3"], None),
                                       (["--ai", "hard,hard,hard", "--players", "4", "--seed",
                                         "3"], None),
                                       (["--ai", "hard", "--advisor", "hard", "--seed", "5"],
                                        "6\u2666")])
def test_a_hint_shows_its_cards_not_their_markup(tmp_path, args, card):
    """The hint's lines are the screen's markup (the cards' colours): shown, they hold the
    cards and none of the tags, with colours or without (they once were escaped whole)."""
    for color in ("--color", "--no-color"):
        res = _play([*args, color], tmp_path / f"h{color}.jsonl", "hint\nquit\n")
        assert res.exit_code == 0, res.output
        hint = res.output[res.output.index("hint: "):]
        assert "would play" in hint and (card is None or card in hint.splitlines()[0])
        for tag in ("[red]", "[/]", "[bold", "[cyan]"):
            assert tag not in hint, hint

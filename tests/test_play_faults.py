"""``durak-sim play`` when something goes wrong or is rare: a failing AI (the closing lines
and the record, then the one error line), a failing adviser (its hint fails, not the game),
commands at the ``which>`` prompt, a deal the cap on play ended, the drawing order, and
strategy lists whose engine commands hold commas."""
import io
import re
import textwrap

import pytest
from click.testing import CliRunner
from rich.console import Console

from durak_sim.cli import main
from durak_sim.cli_options import split_list
from durak_sim.human import PlaySession, Quit, Screen
from durak_sim.records import read_records
from durak_sim.registry import get_strategy
from durak_sim.rules import Rules

#: a plain-Python strategy that plays its first legal action and raises at the second
#: decision of a game (its workspace's word 1 counts them)
FAILING = textwrap.dedent("""\
    from durak_sim.registry import register_strategy

    def decide(obs, legal, hist, rng, mem):
        mem[1] += 1
        if mem[1] == 2:
            raise RuntimeError("out of ideas")
        return int(legal[1])

    register_strategy("test-fails-second", decide, plays="all", memory=2, reset=2)
""")


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("plugin") / "fails.py"   # (one file: one registration)
    path.write_text(FAILING)
    return path


def _play(tmp_path, plugin, *args, stdin="1\n" * 300):
    return CliRunner().invoke(main, ["play", "--pace", "0", "--record", str(tmp_path / "r.jsonl"),
                                     "--plugin", str(plugin), *args], input=stdin)


def test_a_failing_ai_ends_the_game_with_its_closing_lines_then_one_error(tmp_path, plugin):
    res = _play(tmp_path, plugin, "--ai", "easy,test-fails-second", "--seed", "3")
    assert res.exit_code == 2
    out = res.output.splitlines()
    assert any(re.match(r"stopped by a strategy's failure after \d+ actions", x) for x in out)
    assert "the hands as dealt:" in out
    assert any(x.startswith("record: ") and "r.jsonl" in x for x in out)
    assert out[-1] == ("durak-sim: error: strategy 'test-fails-second' (seat 2) raised "
                       "RuntimeError: out of ideas at seed 3 deal 0")
    (rec,) = read_records(tmp_path / "r.jsonl")
    assert rec["unfinished"]


def test_a_failing_adviser_fails_its_hint_not_the_game(tmp_path, plugin):
    res = _play(tmp_path, plugin, "--ai", "easy", "--seed", "5", "--advisor",
                "test-fails-second", stdin="hint\n1\nhint\nhint\n1\nquit\n")
    assert res.exit_code == 0, res.output
    assert res.output.count("no hint: adviser 'test-fails-second' (seat 0) raised "
                            "RuntimeError: out of ideas at seed 5 deal 0") == 1
    assert res.output.count("hint: test-fails-second would play") == 2
    assert "you quit after" in res.output
    assert "you quit after" in res.output


def _session(read=lambda _: "1", rules=Rules(), ais=("easy",), out=None):
    screen = Screen(Console(file=out or io.StringIO(), no_color=True, soft_wrap=True, width=200))
    return PlaySession(7, 0, rules, [get_strategy(a) for a in ais], screen, read=read, pace=0)


def test_commands_are_heard_at_the_which_prompt():
    """quit at ``which>`` stops the game (it was read as a wrong answer); help, hint and
    show are handed back to the move prompt."""
    obs = _session().game.observation(0)
    for word, kind in (("quit", "quit"), ("q", "quit"), ("HELP", "help"), ("hint", "hint"),
                       ("show", "show")):
        assert _session(read=lambda _, w=word: w).choose([36, 37], obs) == kind
    s = _session()
    try:
        s._command("quit", obs, [])
    except Quit:
        pass
    else:
        raise AssertionError("quit did not stop the game")


def test_a_deal_the_cap_on_play_ended_says_so():
    s = _session()
    s.game.result = lambda: {"outcome": "draw", "durak": None, "bouts": 250, "capped": True,
                             "out_order": [], "places": [1, 1]}
    assert s.result_lines()[0] == ("a draw after 250 bouts (the cap on play ended it: E12, "
                                   "durak-sim docs rules)")


def test_drawing_is_told_in_drawing_order(tmp_path):
    """The main attacker draws first, the other attackers after him, the defender last
    (E9): the order the replay of the game's record shows."""
    out = io.StringIO()
    s = PlaySession(11, 0, Rules(players=4), [get_strategy(a) for a in ("easy", "normal",
                                                                          "random")],
                    Screen(Console(file=out, no_color=True, soft_wrap=True, width=200)),
                    read=lambda _: "1", pace=0)
    s.run()
    path = tmp_path / "g.jsonl"
    from durak_sim.records import write_records

    write_records(path, [s.record()])
    told = [[0 if w == "you" else int(w) for w in re.findall(r"(you|(?<=seat )\d) \(?",
                                                              line.split(";")[0])]
            for line in out.getvalue().splitlines() if line.strip().startswith("drawing:")]
    replay = CliRunner().invoke(main, ["replay", "--record", str(path)]).output
    shown = [[int(k) for k in re.findall(r"seat (\d)", line)]
             for line in replay.splitlines() if line.strip().startswith("draws:")]
    assert len(told) > 2 and told == shown


def test_a_comma_inside_quotes_does_not_split_a_line_up():
    assert split_list('easy,engine:bot.py "x,y.log",hard') == \
        ["easy", 'engine:bot.py "x,y.log"', "hard"]
    assert split_list("engine:'a,b',easy") == ["engine:'a,b'", "easy"]


def test_a_default_adviser_that_cannot_be_made_ready_fails_its_hint_only(monkeypatch):
    """No --advisor: the adviser is chosen (expert here) and compiled on the first hint; a
    failure there is its hint's line too (it was an AttributeError that lost the game)."""
    from durak_sim import play
    from durak_sim.errors import StrategyFailure

    def cannot(*args, **kwargs):
        raise StrategyFailure("strategy 'expert' does not compile for the kernel: MemoryError")

    monkeypatch.setattr(play, "prepare", cannot)
    s = _session()
    obs = s.game.observation(0)
    (line,) = s.hint_lines(obs, s.game.legal_actions())
    assert line.startswith("no hint: ") and "MemoryError" in line


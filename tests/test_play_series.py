"""``durak-sim play --deals N``: a series of deals against the AIs (R9). Played like an AI,
the person's series is the one ``durak-sim series`` plays (every record but seat 0's name);
the score is R9.2's; a series stopped midway or between deals keeps every deal played."""
import io
import re
import shlex

import pytest
from click.testing import CliRunner
from rich.console import Console

from durak_sim.cli import main
from durak_sim.human import PlaySession, Screen
from durak_sim.human_series import SeriesPlay, SeriesScore
from durak_sim.reference import hist_for_strategy, legal_array, replay
from durak_sim.reference.playing import play_series
from durak_sim.records import read_records
from durak_sim.registry import get_strategy
from durak_sim.rules import Rules

AGAIN = re.compile(r"the series again(?: from its start)?: (durak-sim play [^\n]+)")


def _typed_like(strat, session, screen) -> str:
    """The number seat 0 types to play what ``strat`` plays there (seat 0's stream and
    workspace of the session)."""
    g = session.game
    obs, codes = g.observation(0), g.legal_actions()
    code = int(strat.decide(obs, legal_array(codes), hist_for_strategy(g), session.rngs[0],
                            session.mems[0]))
    return str(screen.move_order(obs, codes).index(code) + 1)


def _series_like(level, seed, j, n, rules, ais, engine="reference"):
    """Series ``j`` played in-process, seat 0 choosing what ``level`` chooses there."""
    strat = get_strategy(level).for_rules(rules)
    buf = io.StringIO()
    screen = Screen(Console(file=buf, no_color=True, soft_wrap=True, highlight=False))
    play = None

    def read(prompt):
        if not prompt.startswith("your move"):
            return ""   # Enter: the next deal
        return _typed_like(strat, play.current, screen)

    ai_strats = [get_strategy(a).for_rules(rules) for a in ais]

    def make(series=None):
        return PlaySession(seed, j, rules, ai_strats, screen, read=read, pace=0,
                           engine=engine, series=series)

    play = SeriesPlay(make, n, rules, screen, read)
    play.run()
    return play, buf.getvalue()


def _same_but_seat0(recs, expected):
    assert len(recs) == len(expected)
    for rec, exp in zip(recs, expected):
        assert rec["seats"][0] == "human"
        assert {**rec, "seats": rec["seats"][1:]} == {**exp, "seats": exp["seats"][1:]}
        assert replay(rec) == rec["result"]


@pytest.mark.parametrize("rules,ais", [(Rules(), ["normal"]),
                                       (Rules(variant="teams"), ["random", "easy", "random"]),
                                       (Rules(variant="perevodnoy", players=3), ["easy", "normal"])])
def test_a_series_played_like_easy_is_the_series_commands(rules, ais):
    """Deal after deal the dealer moves (R9.1) and each deal is the one ``durak-sim series``
    deals, the AIs choosing as there: the records equal the series' (but seat 0's name), on
    the reference engine and on the kernel."""
    n = 4
    expected = play_series(9, 2, n, ["easy", *ais], rules)
    assert len({r.get("dealer") for r in expected}) > 1   # the dealer moved (R9.1)
    play, out = _series_like("easy", 9, 2, n, rules, ais)
    _same_but_seat0(play.records(), expected)
    assert [r["series"] for r in play.records()] == [{"series": 2, "deal": k} for k in range(n)]
    kernel, _ = _series_like("easy", 9, 2, n, rules, ais, engine="kernel")
    assert kernel.records() == play.records()
    assert out.count("series score after") == n
    assert re.search(r"\(the seat after the dealer, (you|seat \d \(\w+\)): R9\.1\)", out), out


def test_the_score_is_r9_2_first_out_plus_one_durak_minus_one():
    sc = SeriesScore(4, False)
    sc.add({"outcome": "win", "durak": 2, "out_order": [1, 0, 3, 2], "bouts": 9,
            "places": [2, 1, 4, 3]})
    sc.add({"outcome": "draw", "durak": None, "out_order": [3, 0, 1, 2], "bouts": 9,
            "places": [2, 3, 3, 1]})
    assert [sc.score(s) for s in range(4)] == [0, 1, -1, 1]
    assert sc.lost == [0, 0, 1, 0] and sc.first == [0, 1, 0, 1] and sc.draws == 1
    two = SeriesScore(2, False)
    two.add({"outcome": "draw", "durak": None, "out_order": [0, 1], "bouts": 3})
    assert [two.score(s) for s in (0, 1)] == [0, 0] and two.draws == 1
    teams = SeriesScore(4, True)
    teams.add({"outcome": "win", "durak": None, "durak_team": 1, "out_order": [0, 1, 2],
               "bouts": 5, "places": [1, 2, 3, 4]})
    assert teams.lost == [0, 1, 0, 1] and [teams.score(s) for s in range(4)] == [1, -1, 0, -1]


def _play(args, record, stdin):
    return CliRunner().invoke(main, ["play", "--pace", "0", "--record", str(record), *args],
                              input=stdin)


def test_a_series_stopped_between_deals_keeps_them_and_prints_its_command(tmp_path):
    """The end of the input midway, and ``quit`` at the Enter prompt: the deals' records
    (the one in play unfinished), the score, and the command that plays the series again
    from its start (the same records with the same moves)."""
    args = ["--ai", "easy", "--seed", "3", "--deal", "5", "--deals", "3"]
    # deal 0 as easy plays it, then "1" at the Enter prompt (asked again), Enter, and "1" to
    # a few moves of deal 1
    stdin = _moves_of_first_deal(3, 5) + "1\n\n" + "1\n" * 4
    res = _play(args, tmp_path / "a.jsonl", stdin)
    assert res.exit_code == 0, res.output
    recs = list(read_records(tmp_path / "a.jsonl"))
    assert [r["series"] for r in recs] == [{"series": 5, "deal": k} for k in range(2)]
    assert "unfinished" not in recs[0] and recs[1]["unfinished"]
    assert "press Enter for the next deal, or type quit" in res.output
    assert "end of input after" in res.output and "of deal 1 (2nd of 3)" in res.output
    (cmd,) = AGAIN.findall(res.output)
    assert cmd == "durak-sim play --seed 3 --deal 5 --deals 3 --ai easy"
    _play(shlex.split(cmd)[2:], tmp_path / "b.jsonl", stdin)
    assert list(read_records(tmp_path / "b.jsonl")) == recs
    quit_res = _play(args, tmp_path / "c.jsonl", _moves_of_first_deal(3, 5) + "quit\n")
    assert quit_res.exit_code == 0, quit_res.output
    (first,) = read_records(tmp_path / "c.jsonl")
    assert first["series"] == {"series": 5, "deal": 0} and "unfinished" not in first
    assert "you quit after 1 of 3 deals" in quit_res.output
    assert "series score after 1 of 3 deals" in quit_res.output
    assert "the series is over" not in quit_res.output


def _moves_of_first_deal(seed, j):
    """The numbers to type that play deal 0 of series ``j`` as easy would, one a line."""
    from durak_sim.human import SeriesDeal

    strat = get_strategy("easy")
    screen = Screen(Console(file=io.StringIO(), no_color=True, highlight=False))
    lines, holder = [], {}

    def read(prompt):
        lines.append(_typed_like(strat, holder["s"], screen))
        return lines[-1]

    holder["s"] = PlaySession(seed, j, Rules(), [get_strategy("easy")], screen, read=read,
                              pace=0, series=SeriesDeal(0, 3))
    holder["s"].run()
    return "".join(f"{x}\n" for x in lines)


def test_a_stop_just_after_a_deals_last_move_keeps_and_scores_that_deal():
    """Ctrl-C during a deal's last move waits for the move, then stops: the finished deal
    is still recorded and scored (it was lost when the stop came before the series counted
    it)."""
    rules = Rules()
    buf = io.StringIO()
    screen = Screen(Console(file=buf, no_color=True, soft_wrap=True, highlight=False))

    class StoppedAtTheEnd(PlaySession):
        def run(self):
            super().run()
            raise KeyboardInterrupt

    def read(prompt):
        return "1"

    def make(series=None):
        return StoppedAtTheEnd(3, 5, rules, [get_strategy("easy")], screen, read=read,
                               pace=0, series=series)

    play = SeriesPlay(make, 3, rules, screen, read)
    with pytest.raises(KeyboardInterrupt):
        play.run()
    (rec,) = play.records()
    assert rec["series"] == {"series": 5, "deal": 0} and "unfinished" not in rec
    assert play.score.deals == 1
    assert any("after 1 of 3 deals" in line for line in play.stopped_lines("stopped"))


def test_the_command_to_play_again_is_never_broken_at_the_terminals_width():
    buf = io.StringIO()
    screen = Screen(Console(file=buf, width=40, no_color=True, highlight=False))
    cmd = "the series again: durak-sim play --seed 15 --deal 4 --deals 6 --ai easy,random"
    screen.say(cmd, whole=True)
    screen.say(cmd)
    whole, broken = buf.getvalue().split("\n", 1)
    assert whole == cmd and "\n" in broken.strip()


def test_deals_1_is_a_series_of_one_deal(tmp_path):
    """``--deals 1`` is series --deal of one deal (as ``durak-sim series --deals 1``); no
    --deals is the plain single deal."""
    res = _play(["--ai", "easy", "--seed", "3", "--deal", "2", "--deals", "1"],
                tmp_path / "a.jsonl", "")
    assert res.exit_code == 0, res.output
    (rec,) = read_records(tmp_path / "a.jsonl")
    assert rec["series"] == {"series": 2, "deal": 0}
    (exp,) = play_series(3, 2, 1, ["easy", "easy"])
    assert rec["hands"] == exp["hands"] and rec["stock"] == exp["stock"]


def test_a_single_deal_stopped_with_its_last_move_says_its_result():
    rules = Rules()
    screen = Screen(Console(file=io.StringIO(), no_color=True, highlight=False))
    s = PlaySession(3, 5, rules, [get_strategy("easy")], screen, read=lambda p: "1", pace=0)
    s.run()
    assert s.stopped_lines("stopped") == [f"[bold]{line}[/]" for line in s.result_lines()]
    assert "unfinished" not in s.records()[0]


def test_a_record_path_with_brackets_is_shown_as_written(tmp_path):
    """The closing lines are text where they quote a path or a command: ``[x]`` in a folder
    name is no style (rich markup took it for one and dropped it)."""
    folder = tmp_path / "games[x]"
    folder.mkdir()
    res = _play(["--ai", "easy", "--seed", "3"], folder / "a.jsonl", "quit\n")
    assert res.exit_code == 0, res.output
    assert f"record: {folder / 'a.jsonl'}" in res.output

"""The library's functions refuse bad input as the commands do: one exception of a documented
kind (UserError, RulesError, StrategyError) whose message names the keyword arguments, not
the command's options; nothing is replaced that is not a plain file; every batch is bounded."""
import os

import pytest

from durak_sim.errors import UserError
from durak_sim.files import WriteError
from durak_sim.match import run_match
from durak_sim.play import play_games, play_schedule, play_series
from durak_sim.position import Position
from durak_sim.registry import StrategyError, get_strategy, register_strategy
from durak_sim.replay import replay_deal
from durak_sim.report import build_report
from durak_sim.rules import Rules, RulesError
from durak_sim.solve import solve_many
from durak_sim.stats import wilson_interval
from durak_sim.tournament import run_tournament


def test_a_records_file_that_is_a_pipe_or_a_folder_is_refused_not_replaced(tmp_path):
    """``run_match(records=...)`` put a plain file in the place of a pipe (and, as root, of
    /dev/null); every atomic write now refuses what is not a plain file, before play."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(WriteError, match="not a plain file"):
        run_match("easy", "random", deals=2, records=pipe)
    assert pipe.is_fifo()
    with pytest.raises(WriteError, match="is a folder"):
        run_match("easy", "random", deals=2, records=tmp_path)
    with pytest.raises(WriteError, match="not a plain file"):
        run_match("easy", "random", deals=2, records="/dev/null")
    assert not os.path.isfile("/dev/null")


@pytest.mark.parametrize("call", [
    lambda: play_games(["easy", "random"], seed=1, deals=range(2), rules="perevodnoy"),
    lambda: play_series(["easy", "random"], seed=1, series=[0], deals=2, rules="perevodnoy"),
    lambda: replay_deal(1, 2, ["easy", "random"], rules="perevodnoy"),
    lambda: run_match("easy", "random", deals=2, rules="perevodnoy"),
    lambda: run_tournament(["easy", "random"], deals=2, rules="perevodnoy", progress=False),
])
def test_rules_given_as_a_name_say_how_to_make_them(call):
    with pytest.raises(RulesError, match=r"rules must be a durak_sim.rules.Rules, e.g. "
                                         r"Rules\(variant='perevodnoy'\)"):
        call()


def test_a_string_is_not_read_as_a_list_of_names(tmp_path):
    with pytest.raises(StrategyError, match=r"strategies must be a list of names, got the "
                                            r"string 'easy' \(write \['easy'\]\)"):
        play_games("easy", seed=1, deals=range(2))
    with pytest.raises(StrategyError, match="plugins must be a list"):
        run_tournament(["random", "easy"], deals=2, plugins="x.py", out=tmp_path / "t",
                       progress=False)
    with pytest.raises(StrategyError, match="aliases must be a list"):
        register_strategy("api-input-test", get_strategy("easy").fn, aliases="xyz")
    with pytest.raises(StrategyError, match="named by a string, got None"):
        play_games([None, "easy"], seed=1, deals=range(2))
    with pytest.raises(StrategyError, match="version must be a whole number"):
        register_strategy("api-input-test", get_strategy("easy").fn, version="x")
    with pytest.raises(StrategyError, match="unknown strategy 'x'"):
        get_strategy("x")   # (no alias was registered above)


def test_a_batch_is_bounded_before_its_games_are_held():
    with pytest.raises(UserError, match="at most 12,000,000 games a call, got "
                                        "10,000,000,000 deals"):
        play_games(["easy", "random"], seed=1, deals=range(10**10))
    with pytest.raises(UserError, match="got more than 12,000,000 deals"):
        play_games(["easy", "random"], seed=1, deals=iter(range(10**9)))
    with pytest.raises(UserError, match="at most 100,000 games a call with record=True"):
        play_games(["easy", "random"], seed=1, deals=range(50_001), record=True)


def test_solve_many_checks_its_table_at_the_call():
    with pytest.raises(UserError, match="table_log2 must be a whole number in 10..27"):
        solve_many([], table_log2=-1)


@pytest.mark.parametrize("threads", [0, 1.5, "2", True, 10**6])
def test_threads_must_be_a_whole_number_of_threads(threads):
    with pytest.raises(UserError, match=r"^threads must be in 1\.\."):
        play_games(["easy", "random"], seed=1, deals=range(2), threads=threads)


def test_messages_name_the_keyword_arguments_from_python(tmp_path):
    """From Python a message names ``threads``, ``out=...``, ``resume=True``,
    ``chunk_deals=N``, ``rules=Rules(...)``; the commands' own texts are tested with them
    (tests/test_cli.py, tests/test_tournament.py)."""
    (tmp_path / "afile").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    cases = [
        (dict(threads=0), "^threads must be in"),
        (dict(out=tmp_path / "afile"), r"^out='.*afile' exists and is not a folder"),
        (dict(out=tmp_path / "full"), r"add resume=True to continue"),
        (dict(resume=True), r"^resume=True needs out, the folder"),
        (dict(resume=True, out=tmp_path / "none"), r"start it again without resume=True$"),
        (dict(deals=4 * 10**7, chunk_deals=1), r"use chunk_deals=2000 or more$"),
        (dict(deals=6 * 10**7), r"more than the 100,000,000 a two-player tournament's report "
                                r"holds in memory: play at most 50,000,000 deals$"),
        (dict(chunk_deals=0), r"^chunk_deals must be an integer in 1\.\.2,000,000, got 0$"),
        (dict(rules=Rules(players=3)), r"e\.g\. strategies=\['random', 'easy', 'random'\] "
                                       r"\(or, for two-player pairings, "
                                       r"rules=Rules\(players=2\)\)"),
        (dict(scheduler="garbage"), r"^scheduler 'garbage' is not a dask scheduler"),
    ]
    for kwargs, message in cases:
        kwargs = {"strategies": ["random", "easy"], "deals": 2, "progress": False,
                  "out": tmp_path / "new", **kwargs}
        if kwargs.get("resume"):
            kwargs.pop("strategies"), kwargs.pop("deals")
            if kwargs["out"] == tmp_path / "new":
                kwargs.pop("out")
        with pytest.raises(UserError, match=message):
            run_tournament(**kwargs)
    with pytest.raises(RulesError, match=r"use Rules\(variant='perevodnoy'\)$"):
        Rules(transfer=True)
    assert not (tmp_path / "new").exists()


def test_worker_wait_needs_a_scheduler_and_a_length(tmp_path):
    with pytest.raises(UserError, match="^worker_wait needs scheduler$"):
        run_tournament(["random", "easy"], deals=2, worker_wait=5, out=tmp_path / "t",
                       progress=False)
    with pytest.raises(UserError, match=r"^worker_wait must be in \(0, 604800\] seconds"):
        run_tournament(["random", "easy"], deals=2, worker_wait=-1, scheduler="tcp://x:1",
                       out=tmp_path / "t", progress=False)


def test_a_failure_in_a_series_cut_off_by_a_stop_is_still_told(monkeypatch):
    """A stopped batch keeps whole series only; a strategy's illegal action in the series
    that the stop cut off was dropped with it. The kernel's results are made up here: an
    illegal action in deal 1 of series 0, then the stop (every later game not played)."""
    from durak_sim import play
    from durak_sim.kernel import layout as L

    def run(self, deals, rots, n_threads, results, actions, decks, stop):
        results[1, L.R_ERROR], results[1, L.R_ERROR_SEAT] = L.ERR_ILLEGAL, 0
        results[1, L.R_ERROR_ACTION] = 99
        results[2:, L.R_ERROR] = L.ERR_STOPPED
        stop[0] = 1

    monkeypatch.setattr(play.Call, "run", run)
    with pytest.raises(play.IllegalStrategyAction,
                       match="'easy' .seat 0. returned illegal action 99 at seed 1 series 0 "
                             "deal 1"):
        play_series(["easy", "random"], seed=1, series=range(2), deals=3)


@pytest.mark.parametrize("name", ["-dash", "_under", "résumé", "Upper", "", "a b"])
def test_a_strategy_name_is_ascii_and_never_read_as_an_option(name):
    with pytest.raises(StrategyError, match="invalid strategy name"):
        register_strategy(name, get_strategy("easy").fn)


def test_forfeit_is_for_fields_with_an_engine(tmp_path):
    """As ``match`` refuses --forfeit without an engine, so does a tournament: no other
    strategy forfeits, and the flag would be stored in its manifest for nothing."""
    with pytest.raises(UserError, match=r"^forfeit=True is for fields with an external "
                                        r"engine"):
        run_tournament(["random", "easy"], deals=2, forfeit=True, out=tmp_path / "t",
                       progress=False)
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("call, words", [
    (lambda: play_schedule(["easy", "random"], 1, [0, 1], [0]),
     "rots must hold one seat rotation a game"),
    (lambda: play_schedule(["easy", "random"], 1, [-5], [0]), "deal indices must be >= 0"),
    (lambda: play_schedule(["easy", "random"], 1, [0, 1], [5, 7]),
     "rots are seat rotations 0..1, got 7"),
    (lambda: play_schedule(["easy", "random"], 1, [0], [0.5]),
     "rots must be whole numbers, not 0.5"),
    (lambda: play_games(["easy", "random"], seed=1, deals=range(2), stop=0),
     "stop must be None or an int64 numpy array of one element"),
    (lambda: play_games(["easy", "random"], seed=1, deals=1000),
     "deals takes indices, an iterable such as range(1000), not 1000"),
    (lambda: play_series(["easy", "random"], seed=1, series=3, deals=3),
     "series takes indices, an iterable such as range(3)"),
    (lambda: replay_deal(1, 10**6, ["easy", "random"], series=0),
     "a series has at most 10,000 deals: deal must be below it, got 1000000"),
    (lambda: Rules(hand_size=6.0), "hand_size must be an int, got 6.0"),
    (lambda: Rules(variant="perevodnoy", transfer="yes"), "transfer must be true or false"),
    (lambda: Position(0, (1, 2), rules="podkidnoy"), "rules must be a Rules or None"),
    (lambda: Position(0, (1, 2), seats=(0, 9)), "seats must be two different seats 0..1"),
    (lambda: wilson_interval(3, 10, conf=2),
     "conf is a confidence level strictly between 0 and 1, got 2"),
    (lambda: build_report(".", n_boot=0),
     "n_boot must be a whole number of resamples in 1..100000, got 0"),
])
def test_arguments_the_kernel_would_misread_are_refused_at_the_call(call, words):
    """QA findings: rotations past the line-up, a count for the indices, a stop flag of
    another shape, a float hand size and a bootstrap of no resamples reached the kernel, a
    pandas frame or a report whose intervals were empty."""
    with pytest.raises((UserError, RulesError)) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_a_series_batch_frame_tells_its_deals_apart():
    """A QA finding: every row of a series read "deal 7" (the series), the deal in the
    series was not in the frame."""
    f = play_series(["easy", "random"], seed=1, series=[7], deals=3).frame()
    assert f["deal"].tolist() == [7, 7, 7] and f["series_deal"].tolist() == [0, 1, 2]
    assert "series_deal" not in play_games(["easy", "random"], seed=1, deals=[7]).frame()

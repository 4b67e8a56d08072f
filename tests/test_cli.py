"""Bad input is one line on stderr and exit code 2, never a traceback."""
import json
import os
import subprocess
import sys

import pytest

from cli_errors import assert_one_line_error, invoke

CLI = [sys.executable, "-m", "durak_sim.cli"]


def run_cli(*args):
    """The CLI in-process; in a new process where it loads a plugin (its registration must
    not outlive the command)."""
    if "--plugin" not in args:
        return invoke(*args)
    return subprocess.run([*CLI, *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, words", [
    (["match", "easy", "nosuch"], ["unknown strategy", "nosuch"]),
    (["match", "easy", "random", "--deals", "0"], ["--deals"]),
    (["match", "easy", "random", "--deals", "abc"], ["--deals", "abc"]),
    (["match", "easy", "random", "--seed", "-1"], ["--seed"]),
    (["match", "easy", "random", "--threads", "0"], ["--threads"]),
    (["match", "easy"], ["at least two strategies"]),
    (["replay", "--seed", "1", "--deal", "0", "--seats", "easy"], ["at least two strategies"]),
    (["replay", "--seed", "1", "--deal", "-3", "--seats", "easy,random"], ["--deal"]),
    (["nosuchcommand"], ["nosuchcommand"]),
    (["match", "easy", "random", "--plugin", "no_such_file.py"], ["plugin"]),
    (["match", "easy", "random", "--sprt", "0", "inf"], ["SPRT", "-2000..2000"]),
    (["match", "easy", "random", "--sprt", "-1e308", "0"], ["SPRT", "-2000..2000"]),
    (["match", "easy", "random", "--sprt", "5", "0"], ["SPRT", "elo0 < elo1"]),
    (["match", "easy", "random", "--sprt", "nan", "5"], ["SPRT", "finite elo0 < elo1"]),
    (["match", "easy", "random", "--sprt", "0", "5", "--no-swap"], ["leave out --no-swap"]),
    (["match", "easy", "random", "--sprt", "0", "5", "--records", "r.jsonl"],
     ["--sprt keeps no records: leave out --records"]),
    (["match", "easy", "engine:./"], ["engine program ./ is a folder"]),
    (["series", "easy", "random", "--deals", "10000", "--series", "100000000"],
     ["1,000,000,000,000 deals", "at most 100,000,000"]),
    # an empty value is refused, never taken as the default or as the current folder
    (["play", "--ai", "", "--seed", "3"], ["--ai", "got ''"]),
    (["bench", "--pairing", "random,random", "--threads", ""], ["--threads", "got ''"]),
    (["tournament", "easy", "random", "--out", ""], ["--out", "needs a path, got ''"]),
    (["match", "easy", "random", "--records", ""], ["--records", "needs a path, got ''"]),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    assert_one_line_error(run_cli(*args), *words)


def test_unwritable_records_path(tmp_path):
    target = tmp_path / "missing-dir" / "r.jsonl"
    assert_one_line_error(run_cli("match", "easy", "random", "--deals", "5", "--records",
                                  str(target)), "cannot write")
    assert_one_line_error(run_cli("match", "easy", "random", "--deals", "5", "--records",
                                  str(tmp_path)), "records")


ILLEGAL_PY = '''
from durak_sim.registry import register_strategy
def decide(obs, legal, hist, rng, mem):
    return 999
register_strategy("cheater", decide, description="returns an illegal action")
'''

ILLEGAL_NUMBA = '''
import numba
from durak_sim.kernel.config import JIT, STRATEGY_SIGNATURE
from durak_sim.registry import register_strategy
@numba.njit(STRATEGY_SIGNATURE, cache=False)
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 3:
        return 999
    return legal[1]
register_strategy("latecheater", decide, description="illegal from bout 3 on")
'''


@pytest.mark.parametrize("source, name", [(ILLEGAL_PY, "cheater"), (ILLEGAL_NUMBA, "latecheater")])
def test_illegal_action_names_strategy_seed_and_deal(tmp_path, source, name):
    plugin = tmp_path / f"{name}_plugin.py"
    plugin.write_text(source)
    proc = run_cli("match", name, "random", "--deals", "3", "--seed", "123", "--plugin", str(plugin))
    assert_one_line_error(proc, name, "seed 123", "deal 0", "illegal")


def test_a_plain_python_line_up_checks_threads_as_the_kernel_does(tmp_path):
    """--threads beyond numba's limit is refused on the slow path too (it was ignored)."""
    import os

    plugin = tmp_path / "firstlegal.py"
    plugin.write_text(ILLEGAL_PY.replace("return 999", "return legal[1]"))
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    for threads, code in (("2", 2), ("1", 0)):
        proc = subprocess.run([*CLI, "match", "cheater", "easy", "--deals", "2", "--threads",
                               threads, "--plugin", str(plugin)], capture_output=True,
                              text=True, env=env)
        if code:
            assert_one_line_error(proc, "threads must be in 1..1, got 2")
        else:
            assert proc.returncode == 0, proc.stderr


def test_strategies_lists_one_line_each():
    proc = run_cli("strategies")
    assert proc.returncode == 0
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert {"random", "easy"} <= set(names)


def test_match_prints_rates_with_intervals_and_speed():
    proc = run_cli("match", "easy", "random", "--deals", "500", "--seed", "4")
    assert proc.returncode == 0, proc.stderr
    for word in ("easy", "random", "95% CI", "seat 0 wins", "first attacker wins", "deals/s"):
        assert word in proc.stdout


def test_match_sprt_stops_on_a_clear_difference():
    import json

    proc = run_cli("match", "easy", "random", "--sprt", "0", "50", "--deals", "50000", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["decision"] == "H1" and out["deals"] < 50000


def test_match_sprt_table_shows_every_label_as_written():
    """The summary's labels are text, not rich markup ("[bounds]" was taken for a style and
    dropped), and the table has no empty header row."""
    proc = run_cli("match", "easy", "random", "--sprt", "0", "50", "--deals", "50000")
    assert proc.returncode == 0, proc.stderr
    assert "LLR  [bounds]" in proc.stdout and "Elo (median-unbiased) [95% CI]" in proc.stdout
    assert not [ln for ln in proc.stdout.splitlines() if set(ln.strip()) <= set("┃│ ")
                and ln.strip()]


def test_match_sprt_rejects_records(tmp_path):
    assert_one_line_error(run_cli("match", "easy", "random", "--sprt", "0", "50", "--records",
                                  str(tmp_path / "r.jsonl")), "--sprt")


def test_listing_strategies_and_help_compile_nothing(tmp_path):
    """``durak-sim strategies`` and ``--help`` never compile: with an empty numba cache they
    write nothing to it and say nothing about compiling."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for args in (["strategies"], ["--help"], ["match", "--help"], ["tournament", "--help"]):
        proc = subprocess.run([*CLI, *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "compiling" not in proc.stderr
        assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.nbi"))


def test_no_command_prints_the_help_as_help_does():
    """``durak-sim`` alone prints the help, laid out as ``--help`` lays it out, exit code 0
    (click 8.2 raises it as an error, which came out squashed into one line)."""
    bare = subprocess.run(CLI, capture_output=True, text=True)
    helped = subprocess.run([*CLI, "--help"], capture_output=True, text=True)
    assert bare.returncode == 0 and bare.stderr == ""
    assert bare.stdout == helped.stdout and "\nCommands:\n" in bare.stdout


def test_numba_num_threads_below_the_cores_is_the_default_not_an_error(tmp_path):
    """With ``NUMBA_NUM_THREADS`` set below the cores (common on shared machines), a run
    without --threads uses that many threads (it said "threads must be in 1..1, got None");
    more than that is still refused in one line."""
    import os

    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    ok = subprocess.run([*CLI, "match", "easy", "random", "--deals", "5"],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    bench = subprocess.run([*CLI, "bench", "--pairing", "random,random", "--deals", "200",
                            "--repeat", "1"], capture_output=True, text=True, env=env)
    assert bench.returncode == 0 and '"threads": 1' in bench.stdout, bench.stderr
    too_many = subprocess.run([*CLI, "match", "easy", "random", "--deals", "5", "--threads",
                               "2"], capture_output=True, text=True, env=env)
    assert too_many.returncode == 2 and "threads must be in 1..1" in too_many.stderr


def test_numba_thread_settings_that_fail_are_named_in_the_one_line():
    """numba's own errors about its threads name no setting; ours adds the one in effect."""
    import os

    for name, value, words in (("NUMBA_NUM_THREADS", "0", "must be > 0"),
                               ("NUMBA_THREADING_LAYER", "tbb_not_installed", "")):
        env = {**os.environ, name: value}
        proc = subprocess.run([*CLI, "match", "easy", "random", "--deals", "2"],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert f"{name}='{value}'" in proc.stderr and words in proc.stderr


def test_a_numba_setting_numba_cannot_read_is_one_line():
    """numba warns of a setting it cannot parse with a traceback and goes on without it;
    the command stops instead, in one line naming it."""
    import os

    for name, value in (("NUMBA_NUM_THREADS", "abc"), ("NUMBA_NUM_THREADS", "1.5"),
                        ("NUMBA_DISABLE_JIT", "abc")):
        proc = subprocess.run([*CLI, "match", "easy", "random", "--deals", "2"],
                              capture_output=True, text=True, env={**os.environ, name: value})
        assert_one_line_error(proc, f"numba cannot read {name}='{value}'")


def test_numba_disable_jit_plays_on_the_reference_engine(tmp_path):
    """Under ``NUMBA_DISABLE_JIT=1`` (a user debugging a plugin) every strategy is plain
    Python: a tournament plays on the slow path and stores the same games (it raised an
    AttributeError on the kernel's cache); bench, which times the kernel, says why not."""
    import os

    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    args = ["tournament", "easy", "random", "--deals", "2", "--threads", "1", "--no-progress"]
    slow = subprocess.run([*CLI, *args, "--out", str(tmp_path / "slow")], capture_output=True,
                          text=True, env=env)
    assert slow.returncode == 0 and "Traceback" not in slow.stderr, slow.stderr
    assert "Warning" not in slow.stderr   # (numpy's uint64 wrap-around in the seed streams)
    fast = subprocess.run([*CLI, *args, "--out", str(tmp_path / "fast")], capture_output=True,
                          text=True)
    assert fast.returncode == 0, fast.stderr
    for name in ("strategies.csv", "pairings.csv", "report.md"):
        assert (tmp_path / "slow" / name).read_bytes() == (tmp_path / "fast" / name).read_bytes()
    bench = subprocess.run([*CLI, "bench", "--pairing", "random,random", "--deals", "10"],
                           capture_output=True, text=True, env=env)
    assert_one_line_error(bench, "numba-compiled", "NUMBA_DISABLE_JIT is set")
    # solve searches in plain Python (it raised on the search's numba signatures)
    position = tmp_path / "p.json"
    position.write_text(json.dumps({"format": "durak-sim/position/1", "trump": "D",
                                    "stock": [], "attacker": 0,
                                    "hands": [["6S", "KD", "9H"], ["TS", "7D"]]}))
    solved = subprocess.run([*CLI, "solve", str(position)], capture_output=True, text=True,
                            env=env)
    assert solved.returncode == 0 and "optimal  attack KD" in solved.stdout, solved.stderr


def test_a_closed_stderr_still_exits_2_on_bad_input():
    """With stderr closed (``2>&-``) the error line cannot be written; the exit code still
    says bad input (it was 1: the failed write raised in the error handler)."""
    code = ("import os, sys; os.close(2); sys.argv = ['durak-sim', 'match', 'easy', 'nosuch']; "
            "from durak_sim.cli import main; main()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2


def test_no_writable_numba_cache_folder_says_to_set_numba_cache_dir(monkeypatch):
    """A read-only install with a read-only home: numba's one line, and what to do."""
    from durak_sim import registry

    def no_cache():
        raise RuntimeError("cannot cache function 'popcount': no locator available for "
                           "file '/usr/lib/durak_sim/kernel/bits.py'")

    monkeypatch.setattr(registry, "strategy_names", no_cache)
    assert_one_line_error(invoke("strategies"), "no locator available",
                          "set NUMBA_CACHE_DIR")


@pytest.mark.slow   # a whole kernel compiled cold (CI's main job shows the notice too)
def test_a_cold_compile_is_announced_once(tmp_path):
    """On an empty cache a match says once, before compiling, what it compiles; the next run
    loads it from the cache and says nothing."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    args = [*CLI, "match", "easy", "random", "--deals", "10"]
    first = subprocess.run(args, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    notices = [line for line in first.stderr.splitlines() if "compiling" in line]
    assert len(notices) == 1 and "the game kernel" in notices[0], first.stderr
    assert "strategy 'easy'" in notices[0] and "later runs load" in notices[0]
    second = subprocess.run(args, capture_output=True, text=True, env=env)
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr


PLUGIN_HEAD = '''
import sys
import numba
from durak_sim.kernel.config import JIT, STRATEGY_SIGNATURE
from durak_sim.registry import register_strategy
'''

BROKEN_PLUGINS = {
    # name: (decide source, words of the one-line error)
    "pyraise": ('''
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 3:
        raise ValueError("boom")
    return legal[1]
''', ["'pyraise' (seat", "raised ValueError: boom", "seed 123", "deal "]),
    "nbraise": ('''
@numba.njit(STRATEGY_SIGNATURE, cache=False)
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 3:
        raise ValueError("boom")
    return legal[1]
''', ["'nbraise' (seat", "raised ValueError: boom", "seed 123", "deal "]),
    "quitter": ('''
def decide(obs, legal, hist, rng, mem):
    sys.exit(0)
''', ["'quitter' (seat", "called sys.exit(0)", "seed 123", "deal 0"]),
    "nothing": ('''
def decide(obs, legal, hist, rng, mem):
    return None
''', ["'nothing' (seat", "returned None", "seed 123", "deal 0"]),
    "twoargs": ('''
def decide(obs, legal):
    return legal[1]
''', ["'twoargs'", "decide must take (obs, legal, hist, rng, mem)"]),
}


@pytest.mark.parametrize("name", sorted(BROKEN_PLUGINS))
def test_a_failing_plugin_is_named_in_one_line(tmp_path, name):
    source, words = BROKEN_PLUGINS[name]
    plugin = tmp_path / f"{name}_plugin.py"
    plugin.write_text(PLUGIN_HEAD + source + f"register_strategy({name!r}, decide)\n")
    proc = run_cli("match", name, "random", "--deals", "20", "--seed", "123", "--plugin",
                   str(plugin))
    assert_one_line_error(proc, *words)


@pytest.mark.parametrize("taken", ["easy", "hard"])
def test_a_plugin_cannot_take_a_built_in_name(tmp_path, taken):
    for how in (f"register_strategy({taken!r}, decide)",
                f"register_strategy('mine', decide, aliases=({taken!r},))"):
        plugin = tmp_path / "clash.py"
        plugin.write_text(PLUGIN_HEAD + "def decide(obs, legal, hist, rng, mem):\n"
                          "    return legal[1]\n" + how + "\n")
        for args in (["match", "random", "random"], ["strategies"]):
            proc = run_cli(*args, "--plugin", str(plugin))
            assert_one_line_error(proc, repr(taken), "is taken", "choose another name")


def test_a_tournament_keeps_what_was_played_before_a_plugin_failed(tmp_path):
    import json

    plugin = tmp_path / "late.py"
    plugin.write_text(PLUGIN_HEAD + '''
@numba.njit(STRATEGY_SIGNATURE, cache=False)
def decide(obs, legal, hist, rng, mem):
    if obs[17] >= 26:   # a rare long deal, some way into the run
        raise ValueError("too long")
    return legal[1]
register_strategy("late", decide)
''')
    out = tmp_path / "t"
    proc = run_cli("tournament", "late", "random", "--deals", "3000", "--chunk", "500",
                   "--seed", "4", "--out", str(out), "--plugin", str(plugin))
    assert_one_line_error(proc, "'late' (seat", "raised ValueError: too long", "seed 4")
    deal = int(proc.stderr.split(" deal ")[-1].split()[0])
    manifest = json.loads((out / "manifest.json").read_text())
    kept = [(c["deal_lo"], c["deal_hi"]) for c in manifest["chunks"]] + \
        [(p["deal_lo"], p["played_hi"]) for p in manifest.get("partials", [])]
    assert kept and deal >= 1
    assert all(hi <= deal for _, hi in kept)          # nothing after the failing deal
    assert sum(hi - lo for lo, hi in kept) >= min(deal, 16) // 2


HUGE = "10000000000000000000"


@pytest.mark.parametrize("args, words", [
    (["match", "easy", "random", "--deals", HUGE], ["--deals", "1<=x<=100000000"]),
    (["tournament", "random", "easy", "--deals", HUGE], ["--deals", "1<=x<=100000000"]),
    (["tournament", "random", "easy", "--chunk", HUGE], ["--chunk"]),
    (["tournament", "random", "easy", "--deals", "40000000", "--chunk", "1"],
     ["40,000,000 chunks", "more than 20,000", "--chunk 2000"]),
    # a two-player report holds every pairing's per-deal counts: its games are bounded
    (["tournament", "--deals", "10000000"],
     ["10,000,000 deals of 6 pairings makes 120,000,000 games (12 a deal), more than the "
      "100,000,000 a two-player tournament's report holds in memory: play at most "
      "8,333,333 deals"]),
    (["bench", "--deals", HUGE], ["--deals", "10000000"]),
    (["bench", "--repeat", HUGE], ["--repeat"]),
    (["bench", "--threads", "1,1"], ["--threads lists a thread count twice"]),
    (["replay", "--seed", "1", "--deal", HUGE, "--seats", "easy,random"], ["--deal"]),
    (["replay", "--seed", HUGE, "--deal", "1", "--seats", "easy,random"], ["--seed"]),
    (["solve", "x.json", "--max-nodes", HUGE], ["--max-nodes"]),
    (["solve", "x.json", "--time-limit", "inf"], ["--time-limit"]),
    (["solve", "x.json", "--time-limit", "nan"], ["--time-limit"]),
    (["match", "easy", "random", "--deals", "1000001", "--records", "r.jsonl"],
     ["--records keeps at most 2,000,000 games at 2 players"]),
    (["match", *["random"] * 6, "--deals", "111112", "--records", "r.jsonl"],
     ["--records keeps at most 666,666 games at 6 players"]),
    (["series", *["random"] * 3, "--deals", "100", "--series", "13334", "--records",
      "r.jsonl"], ["--records keeps at most 1,333,333 games at 3 players"]),
    (["play", "--pace", "nan"], ["--pace", "not a number"]),
    (["play", "--pace", "1e300"], ["--pace", "0<=x<=60"]),
    (["match", "easy", "random", "--engine-timeout", "nan"], ["--engine-timeout"]),
    (["tournament", "easy", "random", "--worker-wait", "nan"], ["--worker-wait"]),
    (["tournament", "easy", "random", "--worker-wait", "1e309"], ["--worker-wait"]),
])
def test_sizes_beyond_the_machine_are_refused_before_anything_runs(tmp_path, args, words):
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert_one_line_error(proc, *words)
    assert not any(tmp_path.iterdir()), "nothing may be written"


def test_a_failing_match_never_touches_an_existing_records_file(tmp_path):
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    for args, words in ((["easy", "nosuch"], ["unknown strategy"]),
                        (["easy", "random"], ["exists", "--force"])):
        proc = run_cli("match", *args, "--deals", "5", "--records", str(keep))
        assert_one_line_error(proc, *words)
        assert keep.read_text() == "precious\n"
    proc = run_cli("match", "easy", "random", "--deals", "5", "--records", str(keep), "--force")
    assert proc.returncode == 0, proc.stderr
    assert len(keep.read_text().splitlines()) == 10


def test_force_never_replaces_a_device_a_pipe_or_a_link(tmp_path):
    """The records are written whole and renamed into place: a rename would put a plain
    file where /dev/null or a named pipe was, so they are refused even with --force; a link
    to a plain file is written through (its file replaced, the link kept), a link to
    nothing refused."""
    import os
    from pathlib import Path

    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    (tmp_path / "link.jsonl").symlink_to(keep)
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(tmp_path / "pipe")
    for name, words in (("dangling.jsonl", ["symbolic link", "does not exist"]),
                        ("pipe", ["not a plain file"]), (os.devnull, ["not a plain file"])):
        proc = run_cli("match", "easy", "random", "--deals", "2", "--records",
                       str(tmp_path / name), "--force")
        assert_one_line_error(proc, *words)
    assert not (tmp_path / "nowhere.jsonl").exists()
    assert (tmp_path / "pipe").is_fifo() and Path(os.devnull).is_char_device()
    proc = run_cli("match", "easy", "random", "--deals", "2", "--records",
                   str(tmp_path / "link.jsonl"))
    assert_one_line_error(proc, "exists", "--force")
    assert keep.read_text() == "precious\n"
    proc = run_cli("match", "easy", "random", "--deals", "2", "--records",
                   str(tmp_path / "link.jsonl"), "--force")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "link.jsonl").is_symlink()
    assert len(keep.read_text().splitlines()) == 4   # two deals, seats swapped


def test_records_dash_is_refused_not_a_file_named_dash(tmp_path, monkeypatch):
    """``solve -`` reads standard input; an output option given ``-`` would have made a file
    named ``-`` where the command ran. It is refused in one line; the full path still
    names such a file."""
    for args in (["match", "easy", "random", "--deals", "2", "--records", "-"],
                 ["series", "easy", "random", "--deals", "2", "--series", "1", "--records", "-"],
                 ["play", "--ai", "easy", "--record", "-"]):
        monkeypatch.chdir(tmp_path)
        proc = run_cli(*args)
        assert_one_line_error(proc, "standard output", "full path")
    assert not (tmp_path / "-").exists()
    proc = run_cli("match", "easy", "random", "--deals", "2", "--records", str(tmp_path / "-"))
    assert proc.returncode == 0, proc.stderr
    assert len((tmp_path / "-").read_text().splitlines()) == 4


def test_a_terminal_without_the_characters_gets_question_marks_not_half_a_summary(tmp_path):
    import os

    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([*CLI, "match", "hard", "random", "random", "--deals", "1",
                           "--threads", "1"], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "score 100.00%" in proc.stdout and "? +559.2 Elo" in proc.stdout   # (≥)
    assert proc.stdout.rstrip().splitlines()[-1].endswith("apart)")


@pytest.mark.parametrize("args, outs", [
    (["--seats", "random,easy", "--deal", "894"], ["seat 0 (random)", "seat 1 (easy)"]),
    (["--seats", "random,easy,random,easy", "--deal", "466", "--rules", "teams"],
     ["seat 0 (random)", "seat 1 (easy)"]),
])
def test_replay_gives_the_seats_out_in_a_draw_s_last_bout_one_place(args, outs):
    """E11: the seats that go out in the last bout of a drawn deal share its place (a QA
    finding: replay numbered them by the order it listed them, as the record does not)."""
    proc = invoke("replay", "--seed", "21", *args)
    assert proc.returncode == 0, proc.stderr
    place = 3 if "teams" in args else 1
    for who in outs:
        assert f"    {who} is out (place {place})\n" in proc.stdout, proc.stdout[-600:]
    assert f"{outs[0]}, {outs[1]} went out in the last bout" in proc.stdout


@pytest.mark.parametrize("as_json", [False, True])
def test_replay_of_a_records_file_with_a_bad_record_shows_nothing(tmp_path, as_json):
    """Every record is checked before one is shown: a bad second record is one line, and the
    good first one is not printed before it."""
    path = tmp_path / "r.jsonl"
    run_cli("match", "easy", "random", "--deals", "1", "--records", str(path), "--no-progress")
    good, second = path.read_text().splitlines()[:2]
    path.write_text(good + "\n" + second.replace('"rules"', '"rulez"') + "\n")
    proc = subprocess.run([*CLI, "replay", "--record", str(path), *(["--json"] * as_json)],
                          capture_output=True, text=True)
    assert_one_line_error(proc, "record 2")
    assert proc.stdout == ""


def test_replay_refuses_a_record_whose_seed_does_not_deal_its_hands(tmp_path):
    """seed and deal make the deal again exactly (docs/game-record.md): a record edited to
    another seed is refused, in one line naming it."""
    import json

    path = tmp_path / "r.jsonl"
    run_cli("series", "easy", "random", "random", "--deals", "2", "--series", "1",
            "--records", str(path), "--no-progress")
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    assert subprocess.run([*CLI, "replay", "--record", str(path), "--json"],
                          capture_output=True, text=True).returncode == 0
    recs[1]["seed"] += 1
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    proc = subprocess.run([*CLI, "replay", "--record", str(path)], capture_output=True,
                          text=True)
    assert_one_line_error(proc, "record 2", "not deal 1 of series 0 of seed 2")
    # two cards swapped between the hands: told as an edit, not as the first action that
    # the swap makes illegal (it was)
    recs[1]["seed"] -= 1
    hands = recs[1]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    proc = subprocess.run([*CLI, "replay", "--record", str(path)], capture_output=True,
                          text=True)
    assert_one_line_error(proc, "record 2", "not deal 1 of series 0 of seed 1",
                          "the record was edited")


def test_a_stream_closed_before_the_start_is_never_a_files_number(tmp_path):
    """With stdout closed before the command starts (``>&-``), a file the command opens does
    not become stdout (a child process or C code writing to stdout would write into it); the
    command itself runs as before."""
    probe = tmp_path / "probe"
    code = ("import os, sys; os.close(1); from durak_sim.cli import _standard_streams_open; "
            f"_standard_streams_open(); f = open({str(probe)!r}, 'w'); "
            "sys.stderr.write(f'{f.fileno()} {os.path.realpath(\"/proc/self/fd/1\")}')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    fd, target = proc.stderr.split()
    assert int(fd) > 2 and target == os.devnull, proc.stderr
    run = subprocess.run([*CLI, "match", "easy", "random", "--deals", "2", "--records",
                          str(tmp_path / "r.jsonl")], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
    assert run.returncode == 0 and len((tmp_path / "r.jsonl").read_text().splitlines()) == 4
    # a closed stdin (<&-) is the end of the input, as an empty one: play stops at its first
    # question and keeps the record of the deal so far
    run = subprocess.run([*CLI, "play", "--ai", "easy", "--pace", "0", "--seed", "1",
                          "--record", str(tmp_path / "p.jsonl")], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, preexec_fn=lambda: os.close(0))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert json.loads((tmp_path / "p.jsonl").read_text())["unfinished"] is True

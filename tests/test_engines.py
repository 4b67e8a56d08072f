"""External engines (docs/engine-protocol.md): the protocol's messages, the example engine
against the same logic as an in-process plugin, and engines that fail: each told in one line
with its seat, seed and deal (exit code 2), its process killed, or forfeited."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from cli_errors import assert_one_line_error
from durak_sim.engines import EXAMPLES
from durak_sim.records import read_records

CLI = [sys.executable, "-m", "durak_sim.cli"]
EXAMPLE = str(EXAMPLES["lowest_card"])

PLUGIN = textwrap.dedent("""\
    # lowest_card.py's logic as an in-process plugin
    import importlib.util
    from durak_sim.engines import EXAMPLES
    from durak_sim.registry import register_strategy
    from durak_sim.views import legal_texts, observation_view

    spec = importlib.util.spec_from_file_location("lowest_card_engine", EXAMPLES["lowest_card"])
    engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engine)

    def decide(obs, legal, hist, rng, mem):
        codes = [int(c) for c in legal[1:legal[0] + 1]]
        texts = legal_texts(obs, codes)
        return codes[texts.index(engine.choose(observation_view(obs), texts))]

    register_strategy("lowest", decide, description="lowest_card.py in-process", plays="all")
""")

#: a misbehaving engine: plays its first legal action four times, then does MODE
BAD = textwrap.dedent("""\
    import json, os, sys, time
    mode = sys.argv[1]
    if len(sys.argv) > 2:
        with open(sys.argv[2], "a") as f:
            f.write(f"{os.getpid()}\\n")
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif msg["type"] == "decide":
            n += 1
            if n < 5:
                print(json.dumps({"action": msg["legal"][0]}), flush=True)
                continue
            if mode == "crash":
                raise ZeroDivisionError("boom in decide")
            if mode == "orphan":   # exits, a child of its holding its output open
                import subprocess
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
                if len(sys.argv) > 2:
                    with open(sys.argv[2], "a") as f:
                        f.write(f"{child.pid}\\n")
                sys.exit(3)
            if mode == "hang":
                time.sleep(1000)
            if mode == "hangloud":   # says why on stderr, then hangs
                sys.stderr.write("thinking hard\\n")
                sys.stderr.flush()
                time.sleep(1000)
            if mode == "garbage":
                print("hello world", flush=True)
            if mode == "illegal":
                print(json.dumps({"action": "attack 6S" if "take" in msg["actions"] else "take"}),
                      flush=True)
            if mode == "silent":
                os.close(1)
                time.sleep(1000)
            if mode == "twice":   # both lines in one write: they arrive together, so the
                # stray one is waiting when the next decide is asked, however loaded the
                # machine (a line printed later than that is read as the next answer: the
                # protocol has no message ids, docs/engine-protocol.md)
                answer = json.dumps({"action": msg["legal"][0]})
                sys.stdout.write(answer + "\\n" + answer + "\\n")
                sys.stdout.flush()
            if mode == "slow":
                time.sleep(0.05)
                print(json.dumps({"action": msg["legal"][0]}), flush=True)
            if mode == "bigint":   # more digits than Python converts
                print("9" * 6000, flush=True)
            if mode == "nested":   # deeper than the JSON decoder recurses
                print("[" * 100000 + "]" * 100000, flush=True)
            if mode == "longline":   # one line of 2 MiB, ended
                print("a" * (2 << 20), flush=True)
""")

#: an engine that writes 32 MiB to stderr before it answers hello (more than a pipe holds:
#: it must be read as it comes) and 64 KiB at each decision; it exits at its decision
#: number argv[2] (0: never), its stderr's last line 'last words'
NOISY = textwrap.dedent("""\
    import json, os, sys
    with open(sys.argv[1], "a") as f:
        f.write(f"{os.getpid()}\\n")
    noise = ("x" * 1023 + "\\n").encode() * 64
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            for _ in range(512):
                sys.stderr.buffer.write(noise)
            sys.stderr.flush()
            print(json.dumps({"type": "ready"}), flush=True)
        elif msg["type"] == "decide":
            n += 1
            sys.stderr.buffer.write(noise)
            sys.stderr.flush()
            if n == int(sys.argv[2]):
                sys.exit("last words")
            print(json.dumps({"action": msg["legal"][0]}), flush=True)
""")

#: an engine that logs every message it gets and answers in each accepted form in turn
LOGGER = textwrap.dedent("""\
    import json, sys
    log = open(sys.argv[1], "a")
    k = 0
    for line in sys.stdin:
        log.write(line)
        log.flush()
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "logger"}), flush=True)
        elif msg["type"] == "decide":
            k += 1
            i = len(msg["legal"]) - 1
            forms = [json.dumps({"action": msg["legal"][i]}), json.dumps(msg["actions"][i]),
                     msg["actions"][i], str(msg["legal"][i]),
                     json.dumps({"action": msg["actions"][i].lower()})]
            print("", flush=True)   # blank lines are skipped
            print(forms[k % len(forms)], flush=True)
        elif msg["type"] == "quit":
            log.write("QUIT\\n")
            break
""")


def run(*args, cwd=None, timeout=600):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def norm(rec, names):
    return {**rec, "seats": ["X" if s in names else s for s in rec["seats"]]}


def gone(pid: int, wait: float = 5.0) -> bool:
    """Whether process ``pid`` has ended, within ``wait`` seconds: a SIGKILL is delivered
    when the process next runs, which on a loaded machine may take a moment."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:   # a zombie not reaped (not ours: never)
                if f.read().split()[2] == "Z":
                    return True
        except FileNotFoundError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.mark.slow
def test_example_engine_equals_in_process_plugin_over_1000_deal_pairs(tmp_path):
    (tmp_path / "lowest_plugin.py").write_text(PLUGIN)
    eng = run("match", f"engine:{EXAMPLE}", "easy", "--deals", "1000", "--records", "e.jsonl",
              "--json", "--no-progress", cwd=tmp_path)
    assert eng.returncode == 0, eng.stderr
    plug = run("match", "lowest", "easy", "--deals", "1000", "--records", "p.jsonl",
               "--plugin", "lowest_plugin.py", "--json", "--no-progress", cwd=tmp_path)
    assert plug.returncode == 0, plug.stderr
    e = list(read_records(tmp_path / "e.jsonl"))
    p = list(read_records(tmp_path / "p.jsonl"))
    assert len(e) == len(p) == 2000
    names = {f"engine:{EXAMPLE}", "lowest"}
    assert [norm(r, names) for r in e] == [norm(r, names) for r in p]
    summary = json.loads(eng.stdout)
    t = summary["thinking"][f"engine:{EXAMPLE}"]
    assert t["decisions"] > 10_000 and 0 < t["mean_ms"] < 50
    assert summary["forfeits"] == []
    ps = json.loads(plug.stdout)
    assert [s["wins"] for s in summary["strategies"]] == [s["wins"] for s in ps["strategies"]]


def test_three_player_table_and_replay_of_an_engine_seat(tmp_path):
    (tmp_path / "lowest_plugin.py").write_text(PLUGIN)
    eng = run("match", f"engine:{EXAMPLE}", "easy", "random", "--deals", "20", "--records",
              "e.jsonl", "--no-progress", "--rules", "perevodnoy", cwd=tmp_path)
    assert eng.returncode == 0, eng.stderr
    assert "thinking time: engine:" in eng.stdout
    plug = run("match", "lowest", "easy", "random", "--deals", "20", "--records", "p.jsonl",
               "--plugin", "lowest_plugin.py", "--no-progress", "--rules", "perevodnoy",
               cwd=tmp_path)
    assert plug.returncode == 0, plug.stderr
    names = {f"engine:{EXAMPLE}", "lowest"}
    e = list(read_records(tmp_path / "e.jsonl"))
    assert [norm(r, names) for r in e] == \
        [norm(r, names) for r in read_records(tmp_path / "p.jsonl")]
    one = e[4]
    rep = run("replay", "--seed", "1", "--deal", str(one["deal"]), "--seats",
              ",".join(one["seats"]), "--rules", "perevodnoy", "--players", "3", "--json")
    assert rep.returncode == 0, rep.stderr
    assert json.loads(rep.stdout) == one


def test_protocol_messages(tmp_path):
    from durak_sim.rules import Rules

    log = tmp_path / "log.jsonl"
    (tmp_path / "logger.py").write_text(LOGGER)
    proc = run("match", f"engine:logger.py {log}", "easy", "--deals", "3", "--no-progress",
               "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = log.read_text().splitlines()
    msgs = [json.loads(x) for x in lines if x != "QUIT"]
    hellos = [m for m in msgs if m["type"] == "hello"]
    assert len(hellos) == 2 and {h["seat"] for h in hellos} == {0, 1}   # one process a seat
    h = hellos[0]
    assert h["protocol"] == 1 and h["rules"] == Rules().to_dict()
    assert h["strategy"] == f"engine:logger.py {log}" and h["time_limit"] == 5.0
    games = [m for m in msgs if m["type"] == "game"]
    assert len(games) == 6 and all(isinstance(g["rng"], int) for g in games)
    decides = [m for m in msgs if m["type"] == "decide"]
    for d in decides:
        assert len(d["obs"]) == 64 and len(d["legal"]) == len(d["actions"]) >= 2
        assert d["obs"][0] == d["seat"] == d["view"]["seat"] and len(d["hist"]) == d["obs"][18]
        assert len(d["view"]["hand"]) == d["view"]["hand_sizes"][d["seat"]]
    assert lines.count("QUIT") == 2
    assert json.loads(proc.stdout)["thinking"][f"engine:logger.py {log}"]["decisions"] == \
        len(decides)
    # new_history: every action since the seat's previous decision of the game
    first = next(d for d in decides)
    assert len(first["new_history"]) == len(first["hist"])


@pytest.mark.parametrize("mode,words", [
    ("crash", ["exited without answering decide", "exit code 1", "ZeroDivisionError"]),
    ("orphan", ["exited without answering decide", "exit code 3"]),
    ("hang", ["timed out: no answer to decide within 1 s"]),
    ("hangloud", ["timed out: no answer to decide within 1 s; its stderr ends: "
                  "'thinking hard' at seed"]),
    ("garbage", ["printed garbage: 'hello world'"]),
    ("illegal", ["played an illegal action", "(legal: "]),
    ("silent", ["closed its output without answering decide"]),
    ("twice", ["printed a line nobody asked for"]),
    ("bigint", ["printed garbage: '99999999", "...'"]),
    ("nested", ["printed garbage: '[[[[[[[[", "...'"]),
    ("longline", ["printed a line of more than 1,048,576 bytes"]),
])
def test_a_failing_engine_is_one_line_and_killed_or_forfeited(tmp_path, mode, words):
    (tmp_path / "bad.py").write_text(BAD)
    pids = tmp_path / "pids"
    spec = f"engine:bad.py {mode} {pids}"
    t = time.monotonic()
    proc = run("match", spec, "easy", "--deals", "3", "--no-progress", "--engine-timeout", "1",
               cwd=tmp_path)
    assert time.monotonic() - t < 60
    assert_one_line_error(proc, f"engine '{spec}' (seat 0)", "at seed 1 deal 0",
                          "its process was killed", *words)
    assert all(gone(int(p)) for p in pids.read_text().split())
    pids.unlink()
    if mode == "garbage":    # replay words it as match does
        again = run("replay", "--seed", "1", "--deal", "0", "--seats", f"{spec},easy",
                    cwd=tmp_path)
        assert again.returncode == 2 and again.stderr == proc.stderr
        assert all(gone(int(p)) for p in pids.read_text().split())
        pids.unlink()
    from durak_sim import external
    from durak_sim.engine_match import run_engine_match
    from durak_sim.rules import Rules

    external.configure(timeout=1)
    try:
        result = run_engine_match([f"engine:{tmp_path / 'bad.py'} {mode} {pids}", "easy"],
                                  deals=2, rules=Rules(), forfeit=True)
    finally:
        external.configure(timeout=external.DEFAULT_TIMEOUT)
        external.close_all()
    assert len(result.forfeits) == 4 and {f.seat for f in result.forfeits} == {0, 1}
    assert {f.kind for f in result.forfeits} == {{"crash": "crashed", "orphan": "crashed",
                                                  "hang": "timeout", "hangloud": "timeout",
                                                  "silent": "closed", "twice": "garbage",
                                                  "bigint": "garbage", "nested": "garbage",
                                                  "longline": "garbage"}
                                                 .get(mode, mode)}
    table = result.summary.table
    assert table.loc[0, "durak"] == 4 and table.loc[0, "wins"] == 0
    assert all(gone(int(p)) for p in pids.read_text().split())


def test_forfeit_on_the_command_line(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    proc = run("match", "engine:bad.py garbage", "easy", "--deals", "2", "--no-progress",
               "--forfeit", "--json", "--records", "f.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["forfeits"]) == 4 and out["strategies"][0]["durak"] == 4
    recs = list(read_records(tmp_path / "f.jsonl"))
    assert all(r["forfeit"]["seat"] == r["result"]["durak"] for r in recs)
    assert all(r["forfeit"]["kind"] == "garbage" for r in recs)
    # replay --record shows each forfeited game up to its forfeit, every one of the file
    shown = run("replay", "--record", "f.jsonl", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("forfeited after") == 4
    assert run("replay", "--record", "f.jsonl", "--json", cwd=tmp_path).stdout == \
        (tmp_path / "f.jsonl").read_text()
    text = run("match", "engine:bad.py garbage", "easy", "--deals", "2", "--no-progress",
               "--forfeit", cwd=tmp_path)
    assert "forfeits: 4 games scored as losses" in text.stdout
    assert "engine 'engine:bad.py garbage' (seat 0) printed garbage: 'hello world' (no action: " \
           "see Answers in durak-sim docs engine-protocol) at seed 1 deal 0" in text.stdout


def test_engine_program_errors_are_one_line(tmp_path):
    assert_one_line_error(run("match", "engine:./no_such_bot", "easy", "--deals", "2"),
                          "engine program not found: ./no_such_bot")
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    assert_one_line_error(run("match", "engine:./bot", "easy", "--deals", "2", cwd=tmp_path),
                          "is not executable")
    assert_one_line_error(run("match", "engine:", "easy"), "engine: needs a program")
    assert_one_line_error(run("match", "easy", "random", "--forfeit"), "--forfeit is for")


def _signals_as_at_a_terminal() -> None:
    """The three signals as a command started at a terminal has them (a test run under
    ``nohup`` would pass on SIGHUP ignored, and the command rightly keeps it so)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_ctrl_c_stops_an_engine_match_and_leaves_no_process(tmp_path, sig):
    """Ctrl-C, a kill (SIGTERM) or the terminal closing (SIGHUP): the finished deals are
    kept and reported, and no engine process outlives the match."""
    (tmp_path / "bad.py").write_text(BAD)
    pids = tmp_path / "pids"
    proc = subprocess.Popen([*CLI, "match", f"engine:bad.py slow {pids}", "easy", "--deals",
                             "500", "--no-progress", "--records", "r.jsonl"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_signals_as_at_a_terminal)
    deadline = time.monotonic() + 60
    while not pids.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted after" in err
    assert all(gone(int(p)) for p in pids.read_text().split())
    recs = list(read_records(tmp_path / "r.jsonl"))
    assert len(recs) % 2 == 0 and len(recs) < 1000


def test_engine_example_command_and_the_engine_as_an_ai_of_play(tmp_path):
    proc = run("engine-example")
    assert proc.returncode == 0 and proc.stdout.strip() == EXAMPLE
    assert os.access(EXAMPLE, os.R_OK)
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, TERM="dumb")
    child = pexpect.spawn(CLI[0], [*CLI[1:], "play", "--ai", f"engine:{EXAMPLE}", "--seed",
                                   "3", "--pace", "0", "--record", "g.jsonl"],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=120)
    while child.expect_exact(["your move> ", "record: "]) == 0:
        child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    from durak_sim.reference import replay

    (rec,) = read_records(tmp_path / "g.jsonl")
    assert rec["seats"] == ["human", f"engine:{EXAMPLE}"] and replay(rec) == rec["result"]


def test_answers_are_resolved_to_legal_codes():
    from durak_sim.engine_io import resolve_answer
    from durak_sim.reference import ReferenceGame
    from durak_sim.views import legal_texts

    g = ReferenceGame.new(42, 7)
    obs, codes = g.observation(), g.legal_actions()
    texts = legal_texts(obs, codes)
    c, t = codes[1], texts[1]
    for answer in (json.dumps({"action": c}), str(c), t, t.lower(), t.upper(), t.title(),
                   json.dumps(t.upper()), json.dumps({"action": t.swapcase()})):
        assert resolve_answer(answer.encode(), obs, codes, texts) == c, answer
    assert resolve_answer(b"take", obs, codes, texts) == -1      # an action, not legal
    assert resolve_answer(b"999", obs, codes, texts) == -1
    for junk in (b"hello", b"[1, 2]", b"{\"move\": 3}", b"true", b"\xff\xfe", b"attack 10S",
                 b"9" * 6000, b"-" + b"9" * 6000, b"{\"action\": " + b"9" * 6000 + b"}",
                 b"[" * 100000 + b"]" * 100000, b"{\"action\": " + b"[" * 100000):
        assert resolve_answer(junk, obs, codes, texts) is None, junk[:20]


@pytest.mark.parametrize("rules", [
    dict(), dict(variant="teams"), dict(variant="podkidnoy-full"),
    dict(variant="prostoy", players=3), dict(players=5), dict(players=3, throw_in="neighbours"),
    dict(variant="perevodnoy", players=6, teams=True), dict(players=6, throw_in="all")])
def test_hello_rules_from_the_observation(rules):
    """A command that did not say its ruleset (a tournament) still tells the engine the
    exact ruleset: it is read back from the observation's flags (--throw-in neighbours at
    three players, the default game under another name, as the default)."""
    from durak_sim.external import SETTINGS, rules_from_obs
    from durak_sim.reference import ReferenceGame
    from durak_sim.rules import Rules

    r = Rules(**rules)
    g = ReferenceGame.new(1, 0, r)
    saved, SETTINGS.rules = SETTINGS.rules, None
    try:
        back = rules_from_obs(g.observation(g.to_move()))
        same = Rules(players=3) if rules == dict(players=3, throw_in="neighbours") else r
        assert back.to_dict() == same.to_dict() and back.same_game(r)
    finally:
        SETTINGS.rules = saved


def test_a_tournament_forfeits_an_engines_failures_or_stops_in_one_line(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    spec = "engine:bad.py crash"
    proc = run("tournament", spec, "easy", "--deals", "3", "--no-progress", "--out", "t1",
               cwd=tmp_path)
    assert_one_line_error(proc, f"engine '{spec}' (seat 0)", "at seed 1 deal 0",
                          "its process was killed")
    proc = run("tournament", spec, "easy", "--deals", "3", "--no-progress", "--forfeit",
               "--out", "t2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "t2" / "manifest.json").read_text())
    assert manifest["config"]["forfeit"] is True
    (chunk,) = manifest["chunks"]
    # each game of the engine crashes at its fifth decision, if the deal lasts that long
    assert chunk["forfeits"] and all(f["seat"] == f["seating"] for f in chunk["forfeits"])
    assert "/" not in chunk["file"].split("/", 1)[1].rsplit("/", 1)[0]   # one folder
    report = (tmp_path / "t2" / "report.md").read_text()
    assert f"Forfeits (`--forfeit`): {len(chunk['forfeits'])} games" in report
    assert "--forfeit --out DIR" in report


@pytest.mark.parametrize("args, env, words", [
    (["--engine-timeout", "inf"], None, ["--engine-timeout", "86400"]),
    (["--engine-timeout", "1e10"], None, ["--engine-timeout"]),
    ([], "abc", ["DURAK_SIM_ENGINE_TIMEOUT", "'abc'"]),
    ([], "0", ["DURAK_SIM_ENGINE_TIMEOUT", "'0'"]),
    ([], "inf", ["DURAK_SIM_ENGINE_TIMEOUT", "'inf'"]),
])
def test_an_engine_time_limit_out_of_range_is_one_line(monkeypatch, args, env, words):
    from cli_errors import invoke

    if env is not None:
        monkeypatch.setenv("DURAK_SIM_ENGINE_TIMEOUT", env)
    for command in (["match", f"engine:{EXAMPLE}", "easy", "--deals", "2"],
                    ["replay", "--seed", "1", "--deal", "0", "--seats", f"engine:{EXAMPLE},easy"]):
        assert_one_line_error(invoke(*command, *args), *words)
    if env is not None:   # it applies to the engines: a command that seats none runs
        assert invoke("match", "easy", "random", "--deals", "2", "--threads", "1").returncode == 0


def stderr_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "durak-sim engine stderr"]


def big_open_files() -> list:
    """The regular files of more than 16 MiB this process holds open."""
    import stat

    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            st = os.fstat(int(fd))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > 16 << 20:
            found.append(os.readlink(f"/proc/self/fd/{fd}"))
    return found


def test_an_engines_stderr_is_read_as_it_comes_and_only_its_tail_kept(tmp_path):
    """However much an engine writes to stderr, only its last STDERR_TAIL bytes are held
    (read by a thread of its own); its last line is quoted when it fails; neither its
    process nor the thread outlives it, after a failure or after a normal match."""
    from durak_sim import engine_io, external
    from durak_sim.errors import StrategyFailure
    from durak_sim.reference import play_game
    from durak_sim.registry import get_strategy

    (tmp_path / "noisy.py").write_text(NOISY)
    pids = tmp_path / "pids"
    easy = get_strategy("easy")
    assert stderr_threads() == []
    strat = external.engine_strategy(f"engine:{tmp_path / 'noisy.py'} {pids} 0")
    try:
        for deal in range(3):
            play_game(1, deal, [strat, easy])
        (proc,) = strat.fn.procs.values()
        assert proc.alive and len(stderr_threads()) == 1
        assert 0 < len(proc._err._tail) <= engine_io.STDERR_TAIL
        assert big_open_files() == []   # nor is it kept in a (temporary) file
        assert proc._err.last_line() == "x" * 1023
    finally:
        strat.fn.close()
    assert stderr_threads() == [] and all(gone(int(p)) for p in pids.read_text().split())
    pids.unlink()

    strat = external.engine_strategy(f"engine:{tmp_path / 'noisy.py'} {pids} 3")
    with pytest.raises(StrategyFailure) as err:
        play_game(1, 0, [easy, strat])
    assert err.value.__cause__.kind == "crashed"
    assert "(seat 1) exited without answering decide (exit code 1); its stderr ends: " \
           "'last words' at seed 1 deal 0" in str(err.value)
    assert stderr_threads() == [] and all(gone(int(p)) for p in pids.read_text().split())


def test_a_hello_answer_too_deep_or_too_long_is_garbage(tmp_path):
    from durak_sim import external
    from durak_sim.rules import Rules

    for answer in ('"[" * 100000', '"9" * 6000', '"{" * 3 + "a" * (2 << 20)'):
        (tmp_path / "bot.py").write_text(f"import sys\nsys.stdin.readline()\n"
                                         f"print({answer}, flush=True)\nsys.stdin.read()\n")
        argv = external.parse_spec(f"engine:{tmp_path / 'bot.py'}")
        proc = external.EngineProcess("engine:bot.py", argv, 0, Rules())
        with pytest.raises(external.EngineFailure) as err:
            proc.start()
        assert err.value.kind == "garbage" and len(err.value.detail) < 200, err.value.detail
        assert not proc.alive and stderr_threads() == []


def test_stopping_a_stderr_reader_that_ends_meanwhile_is_quiet():
    """The engine's stderr reader may end (its pipe closed, its end of the wake-up pipe
    with it) between stop()'s wait and its wake-up: that is not an error (it was one, about
    one run in ten, as a BrokenPipeError in place of the engine's own failure)."""
    import os

    from durak_sim import engine_io

    r, w = os.pipe()
    tail = engine_io.StderrTail(os.fdopen(r, "rb"))
    os.close(w)   # the engine is gone: the reader ends and closes its end of the wake pipe
    tail._thread.join(5)

    class StillRunningWhenLookedAt:
        def join(self, timeout=None):
            pass

        def is_alive(self):
            return True

    tail._thread = StillRunningWhenLookedAt()
    tail.stop(0.0)


def test_threads_out_of_range_is_refused_for_an_engine_line_up_too(tmp_path):
    proc = run("match", f"engine:{EXAMPLE}", "easy", "--deals", "2", "--threads", "99",
               cwd=tmp_path)
    assert proc.returncode == 2 and "threads must be in 1.." in proc.stderr, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []

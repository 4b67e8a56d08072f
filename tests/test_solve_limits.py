"""Budgets of ``durak-sim solve``: the time limit, ``--max-nodes``, Ctrl-C, the progress line,
and the soundness of what a stopped search reports (bounds that hold the exact value).

The command-line tests run the real ``durak-sim`` in a subprocess (signals, terminals, exit
codes); ``BIG`` is a 10-cards-each endgame with an empty stock whose value the solver does not
settle in a minute on the development machine.
"""
import _thread
import json
import os
import pty
import random
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from durak_sim.cards import card_str
from durak_sim.cli_solve import solve_command
from durak_sim.position import Position
from durak_sim.solve import SolveInterrupted, _Solver, root_bounds, solve

DURAK_SIM = str(Path(sys.executable).with_name("durak-sim"))
FMT = "durak-sim/position/1"
BIG = {"format": FMT, "trump": "C", "stock": [], "attacker": 0,
       "hands": [["6S", "6D", "7S", "7C", "9H", "TS", "TD", "JC", "QS", "KH"],
                 ["6H", "7D", "8S", "8D", "8H", "9C", "TC", "JH", "QH", "AD"]]}
#: 8 cards each, a draw: about a million nodes of value search, then a short set
MEDIUM = {"format": FMT, "trump": "H", "stock": [], "attacker": 0,
          "hands": [["6D", "8S", "9H", "TD", "JS", "JH", "KD", "AD"],
                    ["6S", "7D", "7H", "TC", "TH", "QC", "AC", "AH"]]}
SMALL = {"format": FMT, "trump": "D", "stock": [], "attacker": 0,
         "hands": [["6S"], ["TS", "7D"]]}


@pytest.fixture(scope="module")
def solver():
    """One solver for the module; it also loads (or compiles) the kernel before any
    subprocess needs it from the cache."""
    return _Solver()


def write(tmp_path, *positions) -> str:
    f = tmp_path / "p.jsonl"
    f.write_text("".join(json.dumps(p) + "\n" for p in positions))
    return str(f)


def run(args, timeout=120):
    return subprocess.run([DURAK_SIM, "solve", *args], capture_output=True, text=True,
                          timeout=timeout)


def _drain(master: int) -> bytes:
    """What is left to read of a pseudo-terminal's master end; then it is closed."""
    seen = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
    os.close(master)
    return seen


# ---- the command ----------------------------------------------------------------------------
def test_time_limit_stops_a_big_search(solver, tmp_path):
    r = run([write(tmp_path, BIG), "--json", "--time-limit", "1"])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress when stderr is not a terminal
    out = json.loads(r.stdout)
    assert out["exact"] is False and out["stopped_by"] == "time"
    assert out["seconds"] < 3  # the stop comes within moments of the limit
    lo, hi = out["bounds"]
    assert -1 <= lo <= out["value"] <= hi <= 1
    # the root's bounds are the best of its actions' (seat 0 to move)
    assert (lo, hi) == root_bounds([(0, a, b) for a, b in out["action_bounds"].values()], 0)
    assert len(out["best_actions"]) == 1 and out["best_actions"][0] in out["action_bounds"]


def test_max_nodes(solver, tmp_path):
    r = run([write(tmp_path, BIG), "--json", "--max-nodes", "200000", "--time-limit", "0"])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["exact"] is False and out["stopped_by"] == "nodes"
    assert 200_000 < out["nodes"] < 201_000
    # --node-cap is an alias: the same search
    alias = CliRunner().invoke(solve_command, [write(tmp_path, BIG), "--json",
                                               "--node-cap", "200000"])
    other = json.loads(alias.stdout)
    assert {**other, "seconds": 0} == {**out, "seconds": 0}


def test_ctrl_c_prints_what_was_proven_and_exits_130(solver, tmp_path):
    """On a terminal, the progress line shows the search running; Ctrl-C then stops it within
    2 s: the finished position's answer, the interrupted one's bounds, exit code 130."""
    f = write(tmp_path, SMALL, BIG, MEDIUM)
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="200", TERM="xterm")
    p = subprocess.Popen([DURAK_SIM, "solve", f, "--json"], stdout=subprocess.PIPE,
                         stderr=slave, text=True, env=env)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while b"nodes/s" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 1)[0]:
                seen += os.read(master, 4096)
        assert b"solving 2/3 | value search" in seen
        t = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
        waited = time.monotonic() - t
    finally:
        p.kill()
        seen += _drain(master)
    assert p.returncode == 130 and waited < 2
    first, second = [json.loads(line) for line in out.splitlines()]
    assert first == {**first, "value": 1, "best_actions": ["attack 6S"]}
    assert second["exact"] is False and second["stopped_by"] == "interrupt"
    lo, hi = second["bounds"]
    assert lo <= second["value"] <= hi
    assert b"interrupted: position 2 of 3 not finished, 1 more not started" in seen


def test_no_progress_shows_no_line_on_a_terminal(solver, tmp_path):
    """``--no-progress`` turns the progress line off on a terminal too (as in the other
    commands); without it the same search shows the line."""
    f = write(tmp_path, BIG)

    def terminal_stderr(*extra):
        master, slave = pty.openpty()
        env = dict(os.environ, COLUMNS="200", TERM="xterm")
        p = subprocess.Popen([DURAK_SIM, "solve", f, "--json", "--time-limit", "2.5", *extra],
                             stdout=subprocess.PIPE, stderr=slave, text=True, env=env)
        os.close(slave)
        seen = b""
        try:
            out, _ = p.communicate(timeout=120)
        finally:
            p.kill()
            seen += _drain(master)
        assert p.returncode == 0 and json.loads(out)["stopped_by"] == "time"
        return seen

    assert b"nodes/s" in terminal_stderr()
    assert b"nodes/s" not in terminal_stderr("--no-progress")


@pytest.mark.parametrize("table, limit", [
    # the defender holds 8 cards: 7 attacks exceed the limit of 6
    ([["6S", None], ["6C", None], ["6D", None], ["7S", None], ["7C", None], ["7D", None],
      ["8S", None]], None),
    # he held 2 cards at the open (one beaten pair): the limit is 2, not 3
    ([["6S", "7H"]], 3),
])
def test_impossible_tables_exit_2_with_one_line(tmp_path, table, limit):
    hands = [["AS", "AC", "AD"], ["6H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"]]
    if limit is not None:
        hands[1] = ["AH"]
    pos = dict(SMALL, trump="H", hands=hands, table=table, taking=limit is None,
               bout_limit=limit)
    r = run([write(tmp_path, pos)])
    assert r.returncode == 2 and r.stdout == ""
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("durak-sim: error: ") and "R3.4" in err[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_file_without_end_is_refused_at_16_mib():
    """``solve /dev/zero`` grew without limit (the whole file was read before the first
    position): its first line is refused once 16 MiB of it are read."""
    r = run(["/dev/zero"], timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("durak-sim: error: /dev/zero: line 1: more than 16 MiB in one line (a "
                        "position takes a few hundred bytes)\n")


def test_human_output_of_a_stopped_search(solver, tmp_path):
    r = CliRunner().invoke(solve_command, [write(tmp_path, BIG), "--max-nodes", "50000"])
    assert r.exit_code == 0, r.output
    assert "NOT EXACT: stopped by --max-nodes 50,000" in r.stdout
    assert "value    in [-1, +1]" in r.stdout or "value    +" in r.stdout
    exact = CliRunner().invoke(solve_command, [write(tmp_path, SMALL)])
    assert "NOT EXACT" not in exact.stdout and "optimal  attack 6S" in exact.stdout


def test_a_draw_is_printed_without_a_sign(tmp_path):
    draw = {"format": FMT, "trump": "H", "stock": [], "attacker": 1,
            "hands": [["AS"], ["7S"]]}
    r = CliRunner().invoke(solve_command, [write(tmp_path, draw)])
    assert r.exit_code == 0, r.output
    assert "value    0  (draw)" in r.stdout and "+0" not in r.stdout


# ---- soundness ------------------------------------------------------------------------------
def random_positions(rng: random.Random, n: int, lo: int = 4, hi: int = 7):
    """Bout starts of lo-hi cards each (empty stock), some with the opening card on the table
    (the defender to move, or taking: the attacker throws in)."""
    out = []
    while len(out) < n:
        k0, k1 = rng.randint(lo, hi), rng.randint(lo, hi)
        cards = [card_str(c) for c in rng.sample(range(36), k0 + k1)]
        hands = [cards[:k0], cards[k0:]]
        d = {"format": FMT, "trump": "SCDH"[rng.randrange(4)], "stock": [],
             "attacker": rng.randrange(2), "hands": hands}
        kind = rng.randrange(3)
        if kind:
            d["table"] = [[hands[d["attacker"]].pop(), None]]
            d["taking"] = kind == 2
        out.append(Position.from_dict(d))
    return out


def check_sound(r, exact, mover):
    """``r`` (stopped) against ``exact`` (the complete answer): the value's bounds hold the
    value; an optimal action's bounds hold it too; any other action is worse for the mover,
    so its bounds must allow that."""
    v = exact.value
    if r.exact:
        assert r.value == v
        return
    lo, hi = r.bounds
    assert lo <= v <= hi and lo <= r.value <= hi
    for action, (alo, ahi) in r.action_bounds.items():
        if action in exact.best_actions:
            assert alo <= v <= ahi, action
        elif mover == 0:
            assert alo < v, action
        else:
            assert ahi > v, action
    if lo == hi:
        assert set(r.best_actions) <= set(exact.best_actions)


def check_node_caps(solver, positions):
    """Caps at fractions of the value search's nodes stop it in either null-window test and
    in the optimal set's collection: every reported bound holds the exact answer."""
    kinds = {"open": 0, "half": 0, "proven": 0, "actions": 0}
    for p in positions:
        exact = solver.solve(p, order_nodes=1)
        n, m = exact.stats["value_nodes"], exact.stats["set_nodes"]
        for cap in sorted({1, 30, n // 4, n // 2, 3 * n // 4, n - 1, n + m // 2} - {0}):
            r = solver.solve(p, node_cap=cap, order_nodes=1)
            check_sound(r, exact, p.to_move)
            if not r.exact:
                lo, hi = r.bounds
                kinds["open" if hi - lo == 2 else "half" if hi > lo else "proven"] += 1
                kinds["actions"] += sum(b != (-1, 1) for b in r.action_bounds.values())
    return kinds


def test_node_capped_bounds_hold_the_exact_value(solver):
    rng = random.Random(17)
    kinds = check_node_caps(solver, random_positions(rng, 150) + random_positions(rng, 20, 6, 8))
    assert min(kinds.values()) >= 30, kinds


@pytest.mark.slow
def test_node_capped_bounds_hold_the_exact_value_slow(solver):
    rng = random.Random(18)
    positions = random_positions(rng, 2000) + random_positions(rng, 200, 6, 8)
    kinds = check_node_caps(solver, positions)
    assert min(kinds.values()) >= 300, kinds


def test_time_stopped_bounds_hold_the_exact_value(solver):
    """Stops by the clock land anywhere in the search, inside its inner budgets too (where
    the kernel restores its cap: the watcher must lower it again)."""
    rng = random.Random(23)
    positions = [Position.from_dict(MEDIUM)] + random_positions(rng, 30, 7, 8)
    stopped = set()
    for p in positions:
        exact = solver.solve(p, order_nodes=1)
        if exact.seconds < 0.02:
            continue
        for _ in range(3):
            r = solver.solve(p, order_nodes=1, time_limit=rng.uniform(0.001, exact.seconds))
            check_sound(r, exact, p.to_move)
            if not r.exact:
                assert r.stopped_by == "time"
                stopped.add(r.bounds[1] - r.bounds[0])
    assert stopped  # (the bounds' widths seen)


def test_interrupt_in_process(solver):
    """Ctrl-C (here ``interrupt_main``) raises ``SolveInterrupted`` carrying the partial
    answer, which is sound; the solver is usable afterwards."""
    p = Position.from_dict(MEDIUM)
    exact = solver.solve(p, order_nodes=1)
    for delay in (0.005, 0.03, 0.08):
        threading.Timer(delay, _thread.interrupt_main).start()
        try:
            r = solver.solve(p, order_nodes=1)
            time.sleep(0.5)  # the interrupt came after the search: let it land here
        except SolveInterrupted as e:
            # (a search that ended as Ctrl-C came is complete: nothing stopped it)
            assert e.result.stopped_by == ("interrupt" if not e.result.exact else None)
            check_sound(e.result, exact, 0)
            continue
        except KeyboardInterrupt:
            continue
        assert r.exact
    again = solver.solve(p, order_nodes=1)
    assert (again.value, again.best_actions, again.nodes) == (exact.value, exact.best_actions,
                                                              exact.nodes)


def test_a_budget_that_does_not_bind_changes_nothing(solver):
    p = Position.from_dict(MEDIUM)
    a = solver.solve(p, order_nodes=20_000_000)
    seen = []
    b = solver.solve(p, order_nodes=20_000_000, time_limit=600, progress=seen.append)
    assert a.exact and b.exact and b.stopped_by is None
    assert {**a.to_dict(), "seconds": 0} == {**b.to_dict(), "seconds": 0}
    assert set(a.to_dict()) == {"value", "best_actions", "nodes", "seconds"}


def test_progress_reports_the_search(solver):
    seen = []
    r = solve(Position.from_dict(BIG), time_limit=2.5, progress=seen.append)
    assert r.stopped_by == "time" and 1 <= len(seen) <= 3
    assert all(s.nodes > 0 and s.time_limit == 2.5 for s in seen)
    assert [s.nodes for s in seen] == sorted(s.nodes for s in seen)
    assert seen[-1].nodes <= r.nodes


def test_a_search_cut_short_at_a_larger_table_names_the_two_seats_left(tmp_path):
    """The not-exact answer's words are the two seats left (here 1 and 2), as the exact
    answer's are, not seats 0 and 1."""
    from cli_errors import invoke

    pos = {"format": "durak-sim/position/1", "trump": "H", "stock": [], "attacker": 1,
           "hands": [[], ["QD", "8S", "TH", "9C", "AH", "KD", "8C", "KS", "8D", "QH"],
                     ["JC", "9D", "6D", "7S", "JH", "7D", "6S", "AD", "TD", "QC"], []],
           "rules": {"variant": "perevodnoy", "players": 4}, "out": [3, 0]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos))
    proc = invoke("solve", path, "--max-nodes", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "NOT EXACT" in proc.stdout and "(seat 1's view)" in proc.stdout
    assert "seat 0" not in proc.stdout


def test_seed_without_expert_is_refused(tmp_path):
    from cli_errors import assert_one_line_error, invoke

    path = tmp_path / "p.json"
    path.write_text('{"format": "durak-sim/position/1", "trump": "D", "stock": [], '
                    '"attacker": 0, "hands": [["6S"], ["7S"]]}')
    assert_one_line_error(invoke("solve", str(path), "--seed", "5"), "--seed is for --expert")
    assert invoke("solve", str(path)).returncode == 0

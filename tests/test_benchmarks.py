"""Benchmarks are maintained code: a smoke run of each prints well-formed JSON lines."""
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def test_kernel_benchmark_prints_json_lines():
    out = subprocess.run([sys.executable, str(BENCH / "bench_kernel.py"), "--deals", "2000",
                          "--repeat", "1", "--threads", "1,2"], capture_output=True, text=True,
                         check=True).stdout
    lines = [json.loads(x) for x in out.splitlines()]
    kernel = [x for x in lines if x["bench"] == "kernel"]
    assert {x["threads"] for x in kernel} == {1, 2}
    assert all(x["deals_per_s"] > 0 and "compile_s" in x for x in kernel)
    assert any(x["bench"] == "kernel-summary" for x in lines)


def test_hard_endgame_benchmark_checks_every_endgame_decision():
    out = subprocess.run([sys.executable, str(BENCH / "bench_hard_endgame.py"), "--deals", "20",
                          "--jobs", "1", "--verify-cap", "5000000", "--tt-log2", "16"],
                         capture_output=True, text=True, check=True).stdout
    line = json.loads(out)
    assert line["bench"] == "hard-endgame" and line["games"] == 40
    assert line["endgame_decisions"] > 0
    assert line["kept"] + line["left"] + line["unverified"] == line["endgame_decisions"]
    assert line["left_uncapped"] == 0

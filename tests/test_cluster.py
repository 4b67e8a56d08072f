"""Tournaments played on a dask.distributed cluster (durak_sim.cluster): the same bytes as a
local run, resumable, and a cluster that would play other games is refused."""
import dataclasses
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from durak_sim.cluster import Cluster, play_chunk, worker_plugins  # noqa: E402
from durak_sim.errors import UserError  # noqa: E402
from durak_sim.report import TABLE_FILES  # noqa: E402
from durak_sim.rules import Rules  # noqa: E402
from durak_sim.storage import Manifest  # noqa: E402
from durak_sim.tournament import make_config, run_tournament  # noqa: E402

FIELD = ["random", "easy", "normal"]
RESULT_FILES = [*TABLE_FILES.values(), "report.md", "report.html"]


@pytest.fixture(scope="module")
def scheduler():
    """Two in-process workers (threads): quick to start, the same client protocol."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def stored(folder: Path) -> dict:
    """The results and every stored chunk, by SHA-256 (the manifest and timings aside)."""
    files = [folder / n for n in RESULT_FILES] + sorted((folder / "games").rglob("*.parquet"))
    files += sorted((folder / "plots").iterdir())
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "t"
    run_tournament(FIELD, 3000, 5, out, 1, chunk_deals=700, progress=False)
    return out


def test_a_cluster_run_stores_the_same_bytes_as_a_local_run(scheduler, local_run, tmp_path):
    out = tmp_path / "cluster"
    res = run_tournament(FIELD, 3000, 5, out, chunk_deals=700, progress=False,
                         scheduler=scheduler)
    assert res.complete and res.workers == 2 and res.deals_played == 3 * 3000
    assert stored(out) == stored(local_run)
    assert {c["file"] for c in Manifest.load(out).chunks} == \
        {c["file"] for c in Manifest.load(local_run).chunks}


def test_a_cluster_resumes_a_run_and_the_tables_do_not_change(scheduler, local_run,
                                                               tmp_path):
    out = tmp_path / "partial"
    run_tournament(FIELD, 3000, 5, out, 1, chunk_deals=700, progress=False, report=False)
    manifest = Manifest.load(out)
    lost = manifest.chunks[3:9]          # as if the run had stopped before these
    manifest.chunks = manifest.chunks[:3] + manifest.chunks[9:]
    manifest.save(out)
    for c in lost:
        (out / c["file"]).unlink()
    res = run_tournament(out=out, resume=True, progress=False, scheduler=scheduler)
    assert res.complete and res.deals_played == sum(c["deal_hi"] - c["deal_lo"] for c in lost)
    assert stored(out) == stored(local_run)


def test_a_cluster_with_other_strategy_versions_is_refused(scheduler, tmp_path):
    config = make_config(["random", "easy"], deals=100, seed=1)
    other = dataclasses.replace(config, versions=(config.versions[0] + 1, config.versions[1]))
    with pytest.raises(UserError, match="cannot play this tournament: strategy versions"):
        Cluster(scheduler, other)


def test_every_task_checks_its_worker_again():
    config = make_config(["random", "easy"], deals=100, seed=1)
    expected = {"package_version": "0.0.0-other", "rules_version": 0,
                "versions": list(config.versions), "plugins": []}
    out = play_chunk(config.to_dict(), ("random", "easy"), 0, 10, expected, 1)
    assert out == {"error": f"durak-sim {__import__('durak_sim').__version__} instead of "
                            f"the client's 0.0.0-other"}


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path):
    config = make_config(["random", "easy"], deals=100, seed=1)
    with pytest.raises(UserError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        Cluster("tcp://127.0.0.1:9", config, timeout=1)


def test_plugin_files_go_to_the_workers_by_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert worker_plugins(["my_plugin", "mine.py"]) == ("my_plugin", str(tmp_path / "mine.py"))


def test_the_cli_on_worker_processes(tmp_path):
    """`durak-sim tournament --scheduler` against a scheduler with a worker in another
    process, as a user runs it: the same results as a local run."""
    script = f"""
import subprocess, sys
from distributed import LocalCluster
if __name__ == "__main__":
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        args = ["random", "easy", "--deals", "2000", "--chunk", "500", "--no-progress"]
        for out, extra in (("{tmp_path / 'c'}", ["--scheduler", cluster.scheduler_address]),
                           ("{tmp_path / 'l'}", ["--threads", "1"])):
            proc = subprocess.run([sys.executable, "-m", "durak_sim.cli", "tournament", *args,
                                   "--out", out, *extra], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            print(" ".join(proc.stdout.split()))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "on 1 dask worker;" in proc.stdout
    assert stored(tmp_path / "c") == stored(tmp_path / "l")


def test_a_task_shares_its_machine_with_the_other_workers_on_it(scheduler):
    """Two one-slot workers on this machine: each task gets half of its cores."""
    from durak_sim.play import cpu_count

    config = make_config(["random", "easy"], deals=100, seed=1)
    cluster = Cluster(scheduler, config)
    try:
        assert sum(cluster.host_slots.values()) == 2 and cluster.workers == 2
        threads = cluster.client.submit(_task_threads, cluster.host_slots, pure=False).result()
        assert threads == max(1, cpu_count() // 2)
    finally:
        cluster.close()


def _task_threads(host_slots):
    from durak_sim.cluster import _worker_threads

    return _worker_threads(host_slots)


def test_without_dask_the_scheduler_option_says_what_to_install(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from durak_sim.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed fails
    res = CliRunner().invoke(main, ["tournament", "random", "easy", "--deals", "10",
                                    "--out", str(tmp_path / "t"),
                                    "--scheduler", "tcp://127.0.0.1:9"])
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [
        "durak-sim: error: --scheduler needs dask.distributed: pip install "
        "'durak-sim[distributed]' (from a clone: pip install '.[distributed]')"]
    assert not (tmp_path / "t").exists()


def test_a_plugin_missing_on_the_workers_is_named(scheduler, tmp_path):
    config = make_config(["random", "easy"], deals=100, seed=1)
    gone = dataclasses.replace(config, plugins=(str(tmp_path / "nowhere.py"),))
    with pytest.raises(UserError, match=r"cannot play this tournament: plugin file not found: "
                                        r".*nowhere\.py"):
        Cluster(scheduler, gone)


ENGINE = """\
import json, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        log.write(json.dumps({"hello": msg["rules"]["variant"], "limit": msg["time_limit"]}) + "\\n")
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "decide":
        print(json.dumps({"action": msg["actions"][0]}), flush=True)
    elif kind == "quit":
        log.write(json.dumps({"quit": True}) + "\\n")
        break
log.close()
"""


def test_a_task_starts_its_engines_with_the_clients_settings_and_ends_them(tmp_path):
    """A worker outlives the commands it plays for: the engines of a task are told the
    client's time limit and the tournament's ruleset, and are sent quit when the task ends
    (they were kept, and the next command's tasks played them with the first one's
    settings: the time limit of 5 s, the ruleset of the first tournament)."""
    import json

    from durak_sim import external

    script, log = tmp_path / "logger.py", tmp_path / "log.jsonl"
    script.write_text(ENGINE)
    spec = f"engine:{sys.executable} {script} {log}"
    for variant, timeout in (("podkidnoy", 7.0), ("perevodnoy", 3.0)):
        config = make_config([spec, "easy"], deals=3, seed=1,
                             rules=Rules(variant=variant))
        expected = Cluster._expected(config)
        out = play_chunk(config.to_dict(), (spec, "easy"), 0, 3, expected, 1,
                         engine_timeout=timeout)
        assert isinstance(out, tuple), out
        assert not external._LIVE
    lines = [json.loads(x) for x in log.read_text().splitlines()]   # (a process a seat)
    first = {"hello": "podkidnoy", "limit": 7.0}
    second = {"hello": "perevodnoy", "limit": 3.0}
    assert sorted(map(json.dumps, lines[:4])) == sorted(map(json.dumps, [first, first] +
                                                            [{"quit": True}] * 2))
    assert sorted(map(json.dumps, lines[4:])) == sorted(map(json.dumps, [second, second] +
                                                            [{"quit": True}] * 2))

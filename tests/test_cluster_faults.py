"""A dask cluster that fails, through the real CLI (``python -m durak_sim.cli tournament
--scheduler``) against real scheduler and worker processes started here: each failure is one
line on stderr and exit code 2 (130 for Ctrl-C) within seconds, nothing of the CLI is left
running, and a run stopped part-way continues with ``--resume`` to the same files as a local
uninterrupted run (:func:`test_cluster.stored`)."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from test_cluster import stored  # noqa: E402

from durak_sim.tournament import run_tournament  # noqa: E402

FIELD, DEALS, CHUNK = ["random", "easy"], 2000, 250
CHUNKS = DEALS // CHUNK
ARGS = [*FIELD, "--deals", str(DEALS), "--chunk", str(CHUNK), "--no-progress"]
#: seconds a worker sleeps before each task: the run lasts long enough to break it part-way
TASK_DELAY = 0.3

# A worker's preload: the kernel loaded before the worker joins, tasks that take a while, or
# a worker that is not the client's durak-sim
PRELOAD = '''
import os, sys, time
if os.environ.get("DURAK_TEST_NO_DURAK"):
    sys.modules["durak_sim"] = None          # durak-sim not installed here
else:
    import durak_sim, durak_sim.runner as runner
    if os.environ.get("DURAK_TEST_VERSION"):
        durak_sim.__version__ = os.environ["DURAK_TEST_VERSION"]
    if os.environ.get("DURAK_TEST_WARM"):
        from durak_sim.play import prepare, resolve_strategies
        prepare(resolve_strategies(["random", "easy"]))
    if not hasattr(runner, "_undelayed"):    # (dask may import a preload twice)
        runner._undelayed = runner.play_deals
        def play_deals(*args, **kwargs):
            time.sleep(float(os.environ.get("DURAK_TEST_DELAY", "0")))
            return runner._undelayed(*args, **kwargs)
        runner.play_deals = play_deals
'''


class Dask:
    """The scheduler and worker processes of one test, each in a session of its own, all
    killed at the end of the test."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []
        self.preload = tmp / "durak_test_preload.py"
        self.preload.write_text(PRELOAD)

    def _start(self, args: list, env: dict, log: str) -> subprocess.Popen:
        with open(self.tmp / log, "ab") as f:
            p = subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=self.tmp,
                                 env={**os.environ, **env}, stdout=f, stderr=f,
                                 start_new_session=True)
        self.procs.append(p)
        return p

    def scheduler(self, **config) -> tuple[str, subprocess.Popen]:
        """Start a scheduler (``config``: scheduler settings, e.g. allowed_failures=0);
        return its address once it listens."""
        file = self.tmp / f"scheduler{len(self.procs)}.json"
        env = {f"DASK_DISTRIBUTED__SCHEDULER__{k.upper()}": str(v) for k, v in config.items()}
        p = self._start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                         "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file)],
                        env, "scheduler.log")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                return json.loads(file.read_text())["address"], p
            except (OSError, ValueError, KeyError):
                assert p.poll() is None, (self.tmp / "scheduler.log").read_text()
                time.sleep(0.05)
        raise AssertionError("the scheduler did not start")

    def worker(self, address: str, nanny: bool = False, delay: float = TASK_DELAY,
               **env) -> subprocess.Popen:
        env = {"DURAK_TEST_DELAY": str(delay), "DURAK_TEST_WARM": "1",
               **{f"DURAK_TEST_{k.upper()}": str(v) for k, v in env.items()}}
        return self._start(["worker", address, "--nthreads", "1", "--no-dashboard",
                            "--local-directory", str(self.tmp / "dask-worker"),
                            "--preload", str(self.preload),
                            *([] if nanny else ["--no-nanny"])], env, "worker.log")

    def registered(self, n: int) -> None:
        """Wait until ``n`` workers have registered with the scheduler (so far)."""
        log = self.tmp / "scheduler.log"
        wait_for(lambda: log.read_text().count("Register worker") >= n,
                 what=f"{n} workers")

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)   # (a nanny's worker too: its group)
            p.wait()


@pytest.fixture
def dask(tmp_path):
    d = Dask(tmp_path)
    yield d
    d.close()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "t"
    run_tournament(FIELD, DEALS, 1, out, 1, chunk_deals=CHUNK, progress=False)
    return out


def cli(tmp_path: Path, *args) -> subprocess.Popen:
    """The CLI in a session (a process group) of its own."""
    return subprocess.Popen([sys.executable, "-m", "durak_sim.cli", "tournament", *args],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def finish(proc: subprocess.Popen, within: float) -> tuple[int, list[str], float]:
    """Wait for the CLI; its exit code and stderr lines, and the seconds it took. Nothing
    of it may be left running (its process group is empty)."""
    t = time.monotonic()
    try:
        _, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        raise AssertionError(f"the CLI did not end within {within} s; stderr:\n{err}")
    took = time.monotonic() - t
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)
    return proc.returncode, err.splitlines(), took


def chunks_stored(out: Path) -> int:
    try:
        return len(json.loads((out / "manifest.json").read_text())["chunks"])
    except (OSError, ValueError, KeyError):
        return 0


def wait_for(cond, within: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + within
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def scheduler_tasks(address: str) -> int:
    """Tasks the scheduler still holds (the CLI's chunks must all be gone)."""
    with distributed.Client(address, timeout=10, set_as_default=False) as c:
        return c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


def resume_locally(tmp_path: Path, out: Path, local_run: Path) -> None:
    """``--resume`` without the cluster finishes the tournament as a local run would."""
    rc, err, _ = finish(cli(tmp_path, "--resume", str(out), "--no-progress"), within=120)
    assert rc == 0, err
    assert stored(out) == stored(local_run)


# --------------------------------------------------------------------------------------
# Before the run: nothing is created
# --------------------------------------------------------------------------------------
def test_doctests():
    import doctest

    from durak_sim import cluster

    assert doctest.testmod(cluster).failed == 0


def test_the_cli_silences_distributed_logging_and_restores_it():
    import logging

    from durak_sim.cluster import quiet_distributed_logging

    client = logging.getLogger("distributed.client")
    before = client.level
    with quiet_distributed_logging():
        assert not client.isEnabledFor(logging.ERROR)
        assert not logging.getLogger("distributed.joined_later").isEnabledFor(logging.ERROR)
        assert client.isEnabledFor(logging.CRITICAL)
    assert client.level == before


def test_worker_wait_needs_a_scheduler(tmp_path):
    from click.testing import CliRunner

    from durak_sim.cli import main

    res = CliRunner().invoke(main, ["tournament", *ARGS, "--out", str(tmp_path / "t"),
                                    "--worker-wait", "5"])
    assert res.exit_code == 2
    assert res.stderr.splitlines() == ["durak-sim: error: --worker-wait needs --scheduler"]


@pytest.mark.parametrize("address", ["nonsense", "tcp://", "tcp://host:notaport", "foo://bar",
                                     ""])
def test_a_malformed_address_is_one_line_at_once(tmp_path, address):
    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address),
                           within=30)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"durak-sim: error: --scheduler {address!r} is not a dask "
                             f"scheduler address (")
    assert took < 10 and not (tmp_path / "t").exists()


@pytest.mark.parametrize("server", [False], indirect=True)
@pytest.mark.parametrize("scheme, words", [
    ("ucx", ["the ucx:// scheme is not supported"]),
    ("inproc", ["the inproc:// scheme is not supported here", "in the same process"]),
    ("tls", ["tls:// needs dask's TLS settings", "which are not set"])])
def test_an_unsupported_scheme_is_one_line_without_connecting(tmp_path, server, scheme, words,
                                                             monkeypatch):
    """Named as such, with the schemes that work, before any connection: a listening
    server at the address's host and port sees none."""
    from durak_sim.cluster import SUPPORTED

    for var in [v for v in os.environ if v.startswith("DASK_DISTRIBUTED__COMM__TLS")]:
        monkeypatch.delenv(var)
    address = (f"inproc://127.0.0.1/{os.getpid()}/1" if scheme == "inproc"
               else server.address.replace("tcp://", f"{scheme}://"))
    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address),
                           within=30)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"durak-sim: error: --scheduler {address!r}: "), err
    assert all(w in err[0] for w in words), err
    assert SUPPORTED in err[0] or "give tcp://HOST:PORT, HOST:PORT, ws:// or wss://" in err[0]
    assert not server.accepted.is_set() and not (tmp_path / "t").exists()


def test_supported_schemes_pass_the_address_check():
    """``HOST:PORT`` is tcp://; tls:// once dask's TLS settings name a CA and a client
    certificate (the files are read only when connecting)."""
    import dask

    from durak_sim.cluster import check_address
    from durak_sim.errors import UserError

    for address in ("127.0.0.1:8786", "tcp://h:1", "ws://h:1", "wss://h:1"):
        check_address(address)
    with dask.config.set({"distributed.comm.tls.ca-file": "ca.pem",
                          "distributed.comm.tls.client.cert": "cert.pem"}):
        check_address("tls://h:1")
    with dask.config.set({"distributed.comm.tls.ca-file": None,
                          "distributed.comm.tls.client.cert": None}):
        with pytest.raises(UserError, match="tls:// needs dask's TLS settings"):
            check_address("tls://h:1")


class Server:
    """A TCP server that is no dask scheduler: it accepts and says nothing, or answers
    garbage. ``accepted`` is set at the first connection."""

    def __init__(self, garbage: bool):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = threading.Event()
        self.conns = []
        self.garbage = garbage
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            self.accepted.set()
            if self.garbage:
                c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 100)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def server(request):
    s = Server(garbage=request.param)
    yield s
    s.close()


@pytest.mark.parametrize("server", [True], indirect=True)
def test_a_server_that_is_no_scheduler_is_one_line(tmp_path, server):
    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", server.address),
                           within=30)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"durak-sim: error: {server.address} does not answer as a dask "
                             f"scheduler (")
    assert took < 10 and not (tmp_path / "t").exists()


@pytest.mark.slow
@pytest.mark.parametrize("server", [False], indirect=True)
def test_a_server_that_never_answers_is_given_up(tmp_path, server):
    from durak_sim.cluster import CONNECT_TIMEOUT

    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", server.address),
                           within=60)
    assert rc == 2 and err == [f"durak-sim: error: cannot reach the dask scheduler at "
                               f"{server.address} (tried for {CONNECT_TIMEOUT} s): no answer"]
    assert took < CONNECT_TIMEOUT + 10 and not (tmp_path / "t").exists()


@pytest.mark.slow
def test_a_refused_connection_is_given_up(tmp_path):
    """dask retries it (a scheduler may be starting) for CONNECT_TIMEOUT seconds."""
    from durak_sim.cluster import CONNECT_TIMEOUT

    with socket.socket() as s:   # bound, not listening: the port refuses connections
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
        rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address),
                               within=60)
    assert rc == 2 and len(err) == 1, err
    # (what the last of dask's attempts met: refused, or out of time before it was)
    assert re.fullmatch(f"durak-sim: error: cannot reach the dask scheduler at {address} "
                        f"\\(tried for {CONNECT_TIMEOUT} s\\): (ConnectionRefusedError: "
                        f"\\[Errno 111\\] Connection refused|OSError: Timed out trying to "
                        f"connect to {address} after {CONNECT_TIMEOUT} s)", err[0]), err
    assert took < CONNECT_TIMEOUT + 10 and not (tmp_path / "t").exists()


@pytest.mark.parametrize("server", [False], indirect=True)
def test_ctrl_c_while_waiting_for_the_scheduler(tmp_path, server):
    proc = cli(tmp_path, *ARGS, "--out", "t", "--scheduler", server.address)
    assert server.accepted.wait(60)
    proc.send_signal(signal.SIGINT)
    rc, err, took = finish(proc, within=30)
    assert rc == 130 and err == [f"durak-sim: interrupted while connecting to the dask "
                                 f"scheduler at {server.address}"]
    assert took < 5 and not (tmp_path / "t").exists()


def test_a_scheduler_without_workers_and_ctrl_c_while_waiting_for_one(tmp_path, dask):
    address, _ = dask.scheduler()
    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address,
                               "--worker-wait", "1"), within=60)
    assert rc == 2 and err == [f"durak-sim: error: the dask scheduler at {address} has no "
                               f"workers (none for 1 s; --worker-wait sets how long)"]
    assert not (tmp_path / "t").exists()

    proc = cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address)
    log = tmp_path / "scheduler.log"
    wait_for(lambda: log.read_text().count("Receive client connection") == 2,
             what="the second client")
    time.sleep(0.5)   # (the client's own end of connecting takes milliseconds)
    proc.send_signal(signal.SIGINT)
    rc, err, took = finish(proc, within=30)
    assert rc == 130 and len(err) == 1, err
    assert re.fullmatch(f"durak-sim: interrupted while (waiting for the workers of|connecting "
                        f"to) the dask scheduler at {re.escape(address)}", err[0]), err
    assert took < 5 and not (tmp_path / "t").exists()


@pytest.mark.parametrize("worker", [{"version": "0.0.0-other"}, {"no_durak": 1}],
                         ids=["other-version", "no-durak-sim"])
def test_a_worker_with_another_durak_sim_is_refused(tmp_path, dask, worker):
    address, _ = dask.scheduler()
    dask.worker(address, **worker)
    rc, err, took = finish(cli(tmp_path, *ARGS, "--out", "t", "--scheduler", address),
                           within=60)
    assert rc == 2 and len(err) == 1, err
    why = ("durak-sim 0.0.0-other instead of the client's " if "version" in worker else
           "it cannot run durak-sim")
    assert re.fullmatch(f"durak-sim: error: dask worker tcp://127.0.0.1:\\d+ cannot play "
                        f"this tournament: {re.escape(why)}.*", err[0]), err
    assert not (tmp_path / "t").exists()


# --------------------------------------------------------------------------------------
# During the run: stopped like Ctrl-C, every chunk that came back stored, resumable
# --------------------------------------------------------------------------------------
def start_run(tmp_path: Path, address: str, *extra) -> subprocess.Popen:
    """The CLI's run on the cluster (into ``tmp_path / "t"``), once two chunks are stored."""
    out = tmp_path / "t"
    proc = cli(tmp_path, *ARGS, "--out", str(out), "--scheduler", address, *extra)
    wait_for(lambda: chunks_stored(out) >= 2 or proc.poll() is not None, what="two chunks")
    assert proc.poll() is None, proc.communicate()
    return proc


def assert_stopped(proc: subprocess.Popen, reason: str, address: str, within: float,
                   local_run: Path, scheduler_alive: bool = True) -> None:
    """The CLI stopped within ``within`` seconds with exit code 2 and one line: ``reason``
    (a regex), the chunks stored (all that came back: some, not all) and the resume
    command; no chunk of it is left on the scheduler, and ``--resume`` (here, without the
    cluster) finishes the tournament as a local uninterrupted run."""
    out = Path(proc.args[proc.args.index("--out") + 1])
    rc, err, took = finish(proc, within=60)
    assert rc == 2 and len(err) == 1, err
    m = re.fullmatch(f"durak-sim: error: {reason}: (\\d+) of {CHUNKS} chunks saved in "
                     f"{re.escape(str(out))}; resume with: durak-sim tournament --resume "
                     f"{re.escape(str(out))} --scheduler {re.escape(address)}", err[0])
    assert m and 2 <= int(m[1]) < CHUNKS and int(m[1]) == chunks_stored(out), err
    assert took < within
    if scheduler_alive:   # (a worker that joins later gets none of its chunks)
        assert scheduler_tasks(address) == 0
    resume_locally(out.parent, out, local_run)


def test_the_scheduler_dying_stops_the_run_resumably(tmp_path, dask, local_run):
    address, scheduler = dask.scheduler()
    dask.worker(address)
    proc = start_run(tmp_path, address)
    scheduler.kill()
    assert_stopped(proc, f"lost the connection to the dask scheduler at {re.escape(address)}",
                   address, 10, local_run, scheduler_alive=False)


def test_every_worker_gone_stops_the_run_after_worker_wait(tmp_path, dask, local_run):
    address, _ = dask.scheduler()
    worker = dask.worker(address)
    dask.registered(1)   # (before the CLI waits a second for it)
    proc = start_run(tmp_path, address, "--worker-wait", "1")
    worker.kill()
    assert_stopped(proc, f"the dask scheduler at {re.escape(address)} has had no worker for "
                         f"1 s \\(--worker-wait\\)", address, 1 + 8, local_run)


@pytest.mark.slow
def test_a_frozen_scheduler_stops_the_run_after_worker_wait(tmp_path, dask, local_run):
    address, scheduler = dask.scheduler()
    dask.worker(address)
    dask.registered(1)
    proc = start_run(tmp_path, address, "--worker-wait", "2")
    scheduler.send_signal(signal.SIGSTOP)
    assert_stopped(proc, f"the dask scheduler at {re.escape(address)} has not answered for "
                         f"2 s \\(--worker-wait\\)", address, 2 + 8, local_run,
                   scheduler_alive=False)


def nanny_worker(nanny: subprocess.Popen) -> psutil.Process:
    [worker] = [p for p in psutil.Process(nanny.pid).children()
                if "spawn_main" in " ".join(p.cmdline())]
    return worker


@pytest.mark.slow
def test_a_worker_dying_in_a_task_is_replaced(tmp_path, dask, local_run):
    """dask's nanny restarts it and the task is played again: the run goes on."""
    address, _ = dask.scheduler()
    nanny = dask.worker(address, nanny=True)
    proc = start_run(tmp_path, address)
    nanny_worker(nanny).kill()
    rc, err, _ = finish(proc, within=120)
    assert rc == 0 and err == [], err
    assert stored(tmp_path / "t") == stored(local_run)


@pytest.mark.slow
def test_workers_dying_in_a_task_too_often_stop_the_run(tmp_path, dask, local_run):
    address, _ = dask.scheduler(allowed_failures=0)   # dask gives a task up at once
    nanny = dask.worker(address, nanny=True)
    proc = start_run(tmp_path, address)
    nanny_worker(nanny).kill()
    assert_stopped(proc, "1 dask worker died while playing random vs easy deals \\d+..\\d+ "
                         "\\(the last: tcp://127.0.0.1:\\d+\\)", address, 10, local_run)


@pytest.mark.slow
def test_a_worker_with_another_durak_sim_joining_later_stops_the_run(tmp_path, dask,
                                                                      local_run):
    address, _ = dask.scheduler()
    good = dask.worker(address, delay=1.0)   # (not done before the other one joins)
    proc = start_run(tmp_path, address)
    dask.worker(address, version="0.0.0-other", warm="")
    dask.registered(2)
    good.kill()   # the chunks left go to the other worker
    assert_stopped(proc, "dask worker tcp://127.0.0.1:\\d+ cannot play this tournament: "
                         "durak-sim 0.0.0-other instead of the client's .*", address, 15,
                   local_run)


@pytest.mark.slow
def test_ctrl_c_during_a_cluster_run_saves_and_says_how_to_resume(tmp_path, dask,
                                                                   local_run):
    address, _ = dask.scheduler()
    dask.worker(address)
    proc = start_run(tmp_path, address)
    out = tmp_path / "t"
    proc.send_signal(signal.SIGINT)
    rc, err, took = finish(proc, within=60)
    assert rc == 130 and took < 5
    assert len(err) == 2 and err[1] == (f"resume with: durak-sim tournament --resume {out} "
                                        f"--scheduler {address}"), err
    assert re.fullmatch(f"durak-sim: interrupted: (\\d+) of {CHUNKS} chunks saved in "
                        f"{re.escape(str(out))}", err[0]), err
    assert scheduler_tasks(address) == 0
    resume_locally(tmp_path, out, local_run)


#: a plugin that takes 20 ms a decision: a chunk of it lasts minutes
SLOWPOKE = '''
import time
from durak_sim.registry import register_strategy

def decide(obs, legal, hist, rng, mem):
    time.sleep(0.02)
    return int(legal[1])

register_strategy("slowpoke", decide, description="20 ms a decision", plays="all")
'''


def worker_tasks(address: str) -> list:
    """The states of the tasks the (one) worker holds."""
    with distributed.Client(address, timeout=10, set_as_default=False) as c:
        states = c.run(lambda dask_worker: sorted(t.state for t in
                                                  dask_worker.state.tasks.values()))
    return [s for per_worker in states.values() for s in per_worker]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_a_stopped_client_stops_the_chunk_a_worker_is_playing(tmp_path, dask, sig):
    """dask does not stop a running task when its client cancels it (Ctrl-C) or goes away
    (killed): the task watches for that itself, and its chunk stops within about a second
    instead of playing on beside the worker's next tasks."""
    plugin = tmp_path / "slowpoke.py"
    plugin.write_text(SLOWPOKE)
    address, _ = dask.scheduler()
    dask.worker(address, delay=0)
    dask.registered(1)
    proc = cli(tmp_path, "slowpoke", "random", "--plugin", str(plugin), "--deals", "1000",
               "--chunk", "1000", "--no-progress", "--out", str(tmp_path / "t"),
               "--scheduler", address)
    deadline = time.monotonic() + 120
    while worker_tasks(address) != ["executing"]:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the worker did not start the chunk"
        time.sleep(0.2)
    time.sleep(1)
    proc.send_signal(sig)
    rc, err, _ = finish(proc, within=60)
    assert rc == (130 if sig == signal.SIGINT else -sig), err
    t = time.monotonic()
    while worker_tasks(address):
        assert time.monotonic() - t < 10, "the worker plays the cancelled chunk on"
        time.sleep(0.2)

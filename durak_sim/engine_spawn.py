"""Starting an external engine's process so that it dies with durak-sim.

On Linux the engine's process asks for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``),
so that even a SIGKILLed command, which can end nothing itself, leaves no engine behind (one
that ignores its closed input and the other signals included; the engine's own children are
its to end). The request names the death of the *thread* that started the process, not of
the process: an engine started from a thread that ends (a dask worker's task, a library
caller's thread) would be killed with it. So every engine is started from a thread that
lives as long as the process: the main thread, or else one starter thread kept for the
purpose, to which other threads hand their ``Popen`` calls.
"""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading

_STARTER: queue.Queue | None = None
_STARTER_LOCK = threading.Lock()


def _forgotten_in_child() -> None:
    """A forked child has no starter thread (only the forking thread is copied), and the
    lock may have been held: it starts afresh."""
    global _STARTER, _STARTER_LOCK
    _STARTER, _STARTER_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forgotten_in_child)


def _dies_with_us():
    """What the engine's process runs before its program (``preexec_fn``): on Linux, ask
    for SIGKILL when this process dies (module docstring); None elsewhere. Call it on the
    thread that starts the process."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl   # looked up here, not in the child
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def die_with_parent():
        prctl(1, int(signal.SIGKILL))   # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:      # it died before the request: no engine without it
            os._exit(1)

    return die_with_parent


def _start(argv, kwargs) -> subprocess.Popen:
    return subprocess.Popen(argv, preexec_fn=_dies_with_us(), **kwargs)


def _serve(jobs: queue.Queue) -> None:
    """The starter thread: runs the ``Popen`` calls handed to it, for the process's life."""
    while True:
        argv, kwargs, box, done = jobs.get()
        try:
            box["proc"] = _start(argv, kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = exc
        finally:
            done.set()


def popen(argv, **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(argv, **kwargs)`` of a process that dies with this one, started
    on a thread that lives as long as the process (module docstring)."""
    global _STARTER
    if threading.current_thread() is threading.main_thread() or \
            not sys.platform.startswith("linux"):
        return _start(argv, kwargs)
    with _STARTER_LOCK:
        if _STARTER is None:
            jobs: queue.Queue = queue.Queue()
            threading.Thread(target=_serve, args=(jobs,), name="durak-sim engine starter",
                             daemon=True).start()
            _STARTER = jobs
    box: dict = {}
    done = threading.Event()
    _STARTER.put((argv, kwargs, box, done))
    done.wait()
    if "error" in box:
        raise box["error"]
    return box["proc"]

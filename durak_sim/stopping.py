"""Ctrl-C as a flag: the play stops between two kernel calls with everything played kept
(:class:`StopFlag`, which the tournament, the matches and the SPRT run under); and Ctrl-C
held back while a block that must stay whole runs (:class:`held_interrupts`)."""
from __future__ import annotations

import signal
import threading

import numpy as np


#: what must be done before a second Ctrl-C's exit at once (``os._exit``, which runs no
#: ``atexit``): each is called from the watching thread, so it may take no lock the playing
#: thread could hold (``durak_sim.external`` kills its engines here)
AT_ONCE_EXIT: list = []


def ctrl_c_signals() -> list:
    """The signals that stop a command as Ctrl-C does and are ours to take here (main
    thread): SIGINT under Python's own handler, and the kills (SIGTERM, SIGHUP) that the
    command passes on as Ctrl-C (``cli.py``), also in a job started in the background by a
    script (SIGINT ignored: Ctrl-C is not for it, a kill still is); none under somebody
    else's SIGINT handler."""
    handler = signal.getsignal(signal.SIGINT)
    kills = [s for s in (signal.SIGTERM, signal.SIGHUP)
             if getattr(signal.getsignal(s), "stops_like_ctrl_c", False)]
    if handler is signal.default_int_handler:
        return [signal.SIGINT, *kills]
    return kills if handler is signal.SIG_IGN else []


class StopFlag:
    """While active (in the main thread): the first Ctrl-C sets the flag instead of raising,
    so that the play stops between two kernel calls with everything played saved; a second
    Ctrl-C exits at once (code 130), even while a strategy's decision has not returned.

    A Python signal handler only runs when the main thread is back in the interpreter, and
    the main thread may be inside a kernel call for a while (or for ever: a numba strategy
    that never returns). So the signal is taken from its wakeup file descriptor, which the
    interpreter writes the moment the signal arrives, by a thread of its own. If the play
    has not stopped ``WAIT_NOTICE`` seconds after the first Ctrl-C, it says why and how to
    stop at once. ``on_kill``: the line to print before such an exit. A kill (SIGTERM,
    SIGHUP) counts as a Ctrl-C, also in a job that ignores Ctrl-C (started in the background
    by a script)."""

    WAIT_NOTICE = 3.0

    def __init__(self, on_kill: str = ""):
        self.event = threading.Event()
        #: set with the event: the kernel begins no further game (play_schedule's ``stop``)
        self.kernel_flag = np.zeros(1, np.int64)
        self.on_kill = on_kill
        self._old: dict = {}
        self._pipe = self._old_fd = self._timer = None

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        # a kill is taken here too: its Python handler would run only once the main thread
        # is back from the kernel call
        taken = ctrl_c_signals()
        if not taken:
            return self
        import os

        r, w = os.pipe()
        os.set_blocking(w, False)
        self._pipe = (r, w)
        self._old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        self._old = {s: signal.signal(s, lambda signum, frame: None) for s in taken}
        threading.Thread(target=self._watch, args=(r,), name="durak-sim-ctrl-c",
                         daemon=True).start()
        return self

    def _watch(self, r: int) -> None:
        import os
        import sys

        while True:
            try:
                data = os.read(r, 64)
            except OSError:
                data = b""
            if not data:
                os.close(r)
                return
            if not any(s in data for s in self._old):
                continue
            if self.event.is_set():
                for hook in AT_ONCE_EXIT:
                    try:
                        hook()
                    except Exception:   # noqa: BLE001 - the exit comes whatever fails
                        pass
                print(f"durak-sim: stopped at once{self.on_kill}", file=sys.stderr, flush=True)
                os._exit(130)
            self.kernel_flag[0] = 1
            self.event.set()
            self._timer = threading.Timer(self.WAIT_NOTICE, self._still_waiting)
            self._timer.daemon = True
            self._timer.start()

    def _still_waiting(self) -> None:
        import sys

        if self._pipe is not None:
            print(f"durak-sim: stopping: the play under way has not ended "
                  f"{self.WAIT_NOTICE:g} s after Ctrl-C (a strategy's decision that has not "
                  f"returned?); Ctrl-C again stops at once", file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        if self._pipe is not None:
            import os

            signal.set_wakeup_fd(self._old_fd)
            for s, old in self._old.items():
                signal.signal(s, old)
            r, w = self._pipe
            self._pipe = None
            if self._timer is not None:
                self._timer.cancel()
            os.close(w)   # the watcher reads the end of the pipe and returns
        return False

    def __bool__(self) -> bool:
        return self.event.is_set()


class held_interrupts:
    """Hold a Ctrl-C (SIGINT), and a kill that the command passes on as one (SIGTERM,
    SIGHUP: ``cli.py``), back until the block ends (main thread only), so that a file
    being written or an action being applied stays whole. ``hit`` says whether one came;
    with ``reraise`` (the default) it is raised as KeyboardInterrupt when the block ends
    without an error of its own.

    A kill can come twice at once: ``timeout`` sends its signal to the command and then to
    its process group, and the second may arrive while the first one's stop is being
    written. Held, it cannot cut that short."""

    def __init__(self, reraise: bool = True):
        self.reraise = reraise
        self.hit = False
        self._old: dict = {}

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self

        def hold(*_):
            self.hit = True

        self._old = {sig: signal.signal(sig, hold) for sig in ctrl_c_signals()}
        return self

    def __exit__(self, *exc):
        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}
        if self.hit and self.reraise and exc[0] is None:
            raise KeyboardInterrupt
        return False

"""numba's thread pool and version, for the plain-Python layers (which do not import numba).

>>> limit = thread_limit()
>>> before = get_threads()
>>> set_threads(1); get_threads()
1
>>> set_threads(before); limit >= before >= 1
True
"""
import numba


def thread_limit() -> int:
    """The most kernel threads this process can run (``NUMBA_NUM_THREADS``)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def get_threads() -> int:
    """The kernel threads a parallel call uses now."""
    return int(numba.get_num_threads())


def set_threads(n: int) -> None:
    """Use ``n`` kernel threads (1 .. :func:`thread_limit`) in later parallel calls."""
    numba.set_num_threads(int(n))


def numba_version() -> str:
    return numba.__version__

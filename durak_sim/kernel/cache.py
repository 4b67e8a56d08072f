"""What numba's on-disk cache already holds, and compiling a strategy on first use.

A cold compile is long (the game kernel about 20 s, the hard strategy's searches about a minute
on a 2-core machine), so the commands say so before it starts
(:func:`durak_sim.play.prepare`); these helpers tell whether a compile is coming. They read
numba's cache index the way numba itself does when it looks for a compiled function (the
same key: signature, target machine, bytecode hash), so they answer "cached" exactly when
numba will load instead of compile. They rely on numba's cache internals: if those change,
they answer ``None`` (unknown) and the commands simply say nothing.
"""
from __future__ import annotations

from .config import STRATEGY_SIGNATURE


def _index(dispatcher) -> dict | None:
    try:
        return dispatcher._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba internals: unknown, never an error
        return None


def is_cached(dispatcher, signature=STRATEGY_SIGNATURE) -> bool | None:
    """True if numba will load ``dispatcher`` for ``signature`` from its disk cache (or has it
    in memory already), False if it will compile it, None if that cannot be told."""
    return _cached(dispatcher, signature.args, signature)


def args_cached(dispatcher, types: tuple) -> bool | None:
    """``is_cached`` for a call from Python with arguments of these numba ``types`` (numba's
    key for it is the tuple itself)."""
    return _cached(dispatcher, types, types)


def _cached(dispatcher, args: tuple, key_of) -> bool | None:
    if args in dispatcher.signatures:
        return True
    index = _index(dispatcher)
    if index is None:
        return None
    try:
        key = dispatcher._cache._index_key(key_of, dispatcher.targetctx.codegen())
    except Exception:  # noqa: BLE001 - as above
        return None
    return key in index


def compile_strategy(decide) -> None:
    """Compile (or load from the cache) a numba ``decide`` for the strategy signature, and
    then no other: the kernel takes strategies as first-class functions, and numba gives a
    dispatcher a function type only when it holds one compiled signature and compiles no
    more (as an eager ``njit(STRATEGY_SIGNATURE)`` does)."""
    if STRATEGY_SIGNATURE.args not in decide.signatures:
        decide.compile(STRATEGY_SIGNATURE)
    decide.disable_compile()


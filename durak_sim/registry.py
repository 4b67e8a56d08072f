"""Strategy plugins: a name -> ``Strategy`` table filled by self-registration.

A strategy module (one file each under ``strategies/``, importable as
``durak_sim.strategies.NAME``; or any user module) defines ``decide`` (see
``durak_sim.observation`` for its arguments) and ends with::

    register_strategy("easy", decide, version=1, description="lowest card first (R10.2)")

A numba-compiled ``decide`` runs in the fast kernel; a plain Python ``decide`` runs on the
reference engine (the slow path). The built-in strategies are ``numba.njit(**JIT)`` without a
signature, so importing them (``durak-sim strategies``) compiles nothing: a strategy is
compiled for ``STRATEGY_SIGNATURE`` (or loaded from numba's disk cache) when a game first asks
for its ``decide`` (:func:`durak_sim.play.prepare`, which says so on stderr when that means a
cold compile). A user's ``njit(STRATEGY_SIGNATURE)`` compiles when its module is imported.

>>> from durak_sim.registry import get_strategy
>>> get_strategy("easy").name
'easy'
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import operator
import os
import pkgutil
import re
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable


class StrategyError(ValueError):
    """Unknown or malformed strategy."""


#: the most ``int64`` words of workspace a strategy may register (``memory=``): 32 MiB a
#: seat, six times expert's. Every seat of a kernel thread gets the largest workspace of its
#: line-up, so a six-player table holds at most 192 MiB a thread.
MAX_MEMORY = 1 << 22


@dataclass(frozen=True)
class Strategy:
    """A registered strategy. ``fn``: its ``decide`` as registered (a numba dispatcher is
    perhaps not compiled yet); ``decide``: the same, compiled for the kernel's signature
    first. ``compile_seconds``: about how long a cold compile takes (for the notice);
    ``parts``: the endgame searches ``decide`` links (names in :data:`durak_sim.warm.PARTS`),
    compiled first, on another core when there is one."""

    name: str
    fn: Callable = field(repr=False, compare=False)
    version: int = 1
    description: str = ""
    memory: int = 1  # int64 words of per-seat workspace (mem[0] is the game stamp)
    reset: int = 1  # words zeroed at the start of every game
    compiled: bool = True  # numba-compiled, so the kernel can play it
    module: str = ""
    compile_seconds: float | None = None
    parts: tuple = ()
    #: the rulesets it plays (docs/rulesets.md): ``"all"``, or ``"classic"``, the
    #: two-player default game only
    plays: str = "classic"
    #: the installed distribution that registered it through an entry point
    #: (``"NAME VERSION"``), else ``""``
    distribution: str = ""
    #: a ``decide`` of the same play for the two-player default game alone, which links
    #: fewer searches (``classic_parts``) and so compiles faster: the kernel plays it there
    classic: Callable | None = field(default=None, repr=False, compare=False)
    classic_parts: tuple = ()
    #: this is such a ``classic`` decide, taken by :meth:`for_rules`
    specialised: bool = False

    def for_rules(self, rules) -> "Strategy":
        """The strategy the kernel plays at ``rules``: its ``classic`` decide in the
        two-player default game when it has one, else itself (the same play either way)."""
        from .rules import Rules

        if self.classic is None or not rules.same_game(Rules()):
            return self
        from .warm import cost

        dropped = sum(cost(p) for p in self.parts if p not in self.classic_parts)
        seconds = None if self.compile_seconds is None else self.compile_seconds - dropped
        return replace(self, fn=self.classic, parts=self.classic_parts, classic=None,
                       compile_seconds=seconds, specialised=True)

    @property
    def ready_key(self) -> str:
        """Its key among the decides compiled in this process (``_READY``)."""
        return f"{self.name}:classic" if self.specialised else self.name

    def supports(self, rules) -> bool:
        """Whether it plays ``rules`` (a ``durak_sim.rules.Rules``): the default game under
        any of its names (``--throw-in neighbours`` at two players) for ``"classic"``."""
        from .rules import Rules

        return self.plays == "all" or rules.same_game(Rules())

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def decide(self) -> Callable:
        """``decide``, compiled (or loaded from the cache) on first use."""
        if self.compiled and self.ready_key not in _READY:
            from .play import prepare

            prepare([self], kernel=False)
        return self.fn


_REGISTRY: dict[str, Strategy] = {}
_ALIASES: dict[str, str] = {}
#: names of the numba strategies compiled (or loaded) in this process
_READY: set[str] = set()
_builtins_loaded = False   # set as loading starts (a strategy module may ask again)
#: held while the built-ins load: another thread (a fresh dask worker's) waits for the whole
#: registry rather than reading it half filled
_BUILTINS_LOCK = threading.RLock()


def _is_compiled(fn) -> bool:
    return type(fn).__module__.startswith("numba")


def register_strategy(name: str, decide: Callable, *, version: int = 1, description: str = "",
                      memory: int = 1, reset: int = 1, aliases: tuple[str, ...] = (),
                      compile_seconds: float | None = None, plays: str = "classic",
                      parts: tuple[str, ...] = (), classic: Callable | None = None,
                      classic_parts: tuple[str, ...] = ()) -> Strategy:
    """Register ``decide`` under ``name`` (lower-case letters, digits, ``-`` and ``_``).
    ``memory``: the ``int64`` words of its workspace, at most ``MAX_MEMORY``; ``reset``: the
    game resets ``mem[:reset]`` (1 to ``memory``): ``mem[0]`` is the game stamp, raised by 1,
    and ``mem[1:reset]`` are zeroed. ``compile_seconds``: roughly
    how long compiling ``decide`` takes on a cold cache, for the notice printed before it
    (optional); ``parts``: the built-in endgame searches ``decide`` calls (``"solver"``,
    ``"variant"``: :data:`durak_sim.warm.PARTS`), compiled first, beside the rest on a
    second core. ``plays``: the rulesets it plays, ``"all"`` or ``"classic"`` (the two-player
    default game; the default: a strategy written for two players is not seated at other
    tables). ``classic`` (with ``plays="all"``): a ``decide`` that plays the two-player
    default game exactly as ``decide`` does, linking only ``classic_parts``; the kernel
    plays it in that game, so a run of it does not compile the other tables' searches.

    A name (or alias) another strategy has is refused, and so is a name registered again
    with another ``decide`` or other settings. The same registration again (its module
    imported twice: ``decide`` of the same code in the same file) replaces the first."""
    if plays not in ("all", "classic"):
        raise StrategyError(f"strategy {name!r}: plays must be 'all' or 'classic', got "
                            f"{plays!r}")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise StrategyError(f"invalid strategy name {_shorten(repr(name))}: a name is lower-case "
                            f"letters, digits, '-' and '_' (a-z, 0-9; not '-' or '_' first, "
                            f"which a command line would read as an option)")
    memory, reset = _words(name, "memory", memory), _words(name, "reset", reset)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise StrategyError(f"strategy {name!r}: version must be a whole number >= 1, got "
                            f"{_shorten(repr(version))}")
    aliases = tuple(name_list(aliases, "aliases"))
    if not all(isinstance(a, str) and a for a in aliases):
        raise StrategyError(f"strategy {name!r}: aliases must be names, got {aliases!r}")
    if not 1 <= memory <= MAX_MEMORY:
        raise StrategyError(f"strategy {name!r}: memory must be 1 to {MAX_MEMORY:,} int64 "
                            f"words ({MAX_MEMORY * 8 >> 20} MiB a seat), got {memory:,}")
    if not 1 <= reset <= memory:
        raise StrategyError(f"strategy {name!r}: need 1 <= reset <= memory")
    _check_callable(name, decide)
    if classic is not None:
        _check_callable(name, classic)
        if plays != "all" or _is_compiled(classic) != _is_compiled(decide):
            raise StrategyError(f"strategy {name!r}: a classic decide goes with plays='all' "
                                f"and is compiled as decide is")
    module = getattr(decide, "__module__", "") or ""
    if not module.startswith(f"{__package__}.strategies"):
        load_builtins()   # a plugin's name is checked against every built-in one
    strat = Strategy(name=name, fn=decide, version=int(version), description=description,
                     memory=memory, reset=reset, compiled=_is_compiled(decide),
                     module=module,
                     compile_seconds=compile_seconds, plays=plays, parts=_parts(name, parts),
                     distribution=_LOADING_DIST or "", classic=classic,
                     classic_parts=_parts(name, classic_parts))
    for taken in (name, *aliases):
        owner = _REGISTRY.get(_ALIASES.get(taken, taken))
        if owner is not None and owner.module != module:
            raise StrategyError(f"strategy name {taken!r} is taken by {owner.name!r} "
                                f"({owner.module or 'unknown module'}): choose another name "
                                f"for the one in {_origin(decide) or 'unknown module'}")
        if owner is not None and owner.name != name:
            raise StrategyError(f"strategy name {taken!r} is taken by {owner.name!r} of the "
                                f"same module: choose another name for {name!r} in "
                                f"{_origin(decide) or 'unknown module'}")
        if owner is not None and not _same_registration(owner, strat):
            raise StrategyError(f"strategy {name!r} is registered twice with different "
                                f"definitions ({_origin(owner.fn, line=True)}, then "
                                f"{_origin(decide, line=True)}): register a name once")
    _READY.difference_update({name, f"{name}:classic"})
    _REGISTRY[name] = strat
    for a in aliases:
        _ALIASES[a] = name
    return strat


def _words(name: str, what: str, value) -> int:
    """``memory`` or ``reset``, an integer."""
    if isinstance(value, bool):
        value = None
    try:
        return operator.index(value)
    except TypeError:
        raise StrategyError(f"strategy {name!r}: {what} must be an integer number of int64 "
                            f"words, got {_shorten(repr(value))}") from None


def _shorten(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _code(fn):
    """The Python code of ``decide`` (a numba dispatcher's too), else None."""
    return getattr(getattr(fn, "py_func", fn), "__code__", None)


def _origin(fn, line: bool = False) -> str:
    """Where ``decide`` is defined: its file (``decide2 at FILE:LINE`` with ``line``), else
    its module's name."""
    code = _code(fn)
    if code is None:
        return getattr(fn, "__module__", "") or ""
    if not line:
        return code.co_filename
    name = getattr(getattr(fn, "py_func", fn), "__qualname__", code.co_name)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _parts(name: str, parts) -> tuple:
    from .warm import PARTS

    parts = tuple(parts)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise StrategyError(f"strategy {name!r}: unknown parts {unknown} (known: "
                            f"{', '.join(PARTS)})")
    return parts


def _same_registration(old: Strategy, new: Strategy) -> bool:
    """Whether ``new`` registers again what ``old`` did: the same settings and the same
    ``decide``, or one of the same code in the same file (its module imported again)."""
    if (old.version, old.memory, old.reset, old.plays) != \
            (new.version, new.memory, new.reset, new.plays):
        return False
    if old.fn is new.fn:
        return True
    a, b = _code(old.fn), _code(new.fn)
    return a is not None and b is not None and a == b and \
        os.path.realpath(a.co_filename) == os.path.realpath(b.co_filename)


def _check_callable(name: str, decide) -> None:
    """``decide`` must take the five arguments of the strategy contract."""
    import inspect

    fn = getattr(decide, "py_func", decide)   # a numba dispatcher's Python function
    if not callable(fn):
        raise StrategyError(f"strategy {name!r}: decide is not callable")
    try:
        inspect.signature(fn).bind(0, 0, 0, 0, 0)
    except TypeError:
        raise StrategyError(f"strategy {name!r}: decide must take (obs, legal, hist, rng, "
                            f"mem)") from None
    except ValueError:  # no signature to read (a builtin): it will tell when called
        pass


def load_builtins() -> None:
    """Import every module of ``durak_sim.strategies`` (each registers itself), then the
    strategies of installed packages (entry points, :func:`load_entry_points`)."""
    global _builtins_loaded
    with _BUILTINS_LOCK:
        if _builtins_loaded:   # done by another thread, or under way in this one
            return
        _builtins_loaded = True
        pkg = _strategies_package()

        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{info.name}")
        load_entry_points()


#: the entry-point group of installable strategy packages (README, "Strategies as packages")
ENTRY_POINT_GROUP = "durak_sim.strategies"
#: ``"NAME VERSION"`` of the distribution whose entry point is being loaded
_LOADING_DIST: str | None = None
#: one line per entry point that failed to load (also printed on stderr)
ENTRY_POINT_PROBLEMS: list[str] = []


def load_entry_points(warn=None) -> list[str]:
    """Load every entry point of the group ``durak_sim.strategies`` of the installed
    distributions, in (distribution, entry point) name order. An entry point's value is a
    module, imported (it registers its strategies on import, as a ``--plugin`` module does),
    or ``module:function``, imported and called with no arguments (the function
    registers). Every strategy registered meanwhile records the distribution's name and
    version. An entry point that fails (its import or call raises, or it takes a name that
    is already registered) is told in one line on stderr (or to ``warn(line)``) and skipped:
    the others still load. Returns those lines."""
    global _LOADING_DIST
    from importlib.metadata import entry_points

    if warn is None:
        warn = (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # noqa: BLE001 - broken metadata must not stop durak-sim
        found = []
        warn(f"durak-sim: warning: cannot read the installed packages' entry points: {exc}")
    problems = []

    def dist_of(ep) -> str:
        d = getattr(ep, "dist", None)
        return f"{d.metadata['Name']} {d.version}" if d is not None else "unknown package"

    for ep in sorted(found, key=lambda e: (dist_of(e), e.name)):
        dist = dist_of(ep)
        _LOADING_DIST = dist
        try:
            obj = ep.load()
            if ":" in ep.value:
                if not callable(obj):
                    raise StrategyError(f"{ep.value} is not callable")
                obj()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a package's own failure
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if not isinstance(exc, StrategyError):
                text = f"{type(exc).__name__}: {text}"
            line = (f"durak-sim: warning: strategy package {dist} (entry point {ep.name} = "
                    f"{ep.value}) not loaded: {text}")
            problems.append(line)
            warn(line)
        finally:
            _LOADING_DIST = None
    ENTRY_POINT_PROBLEMS.extend(problems)
    return problems


def _strategies_package():
    """``durak_sim.strategies``: installed, the ``strategies/`` folder mapped into the package
    (pyproject ``package-dir``); in a source checkout on ``sys.path`` (``python -m pytest``
    from the repository), the same folder next to ``durak_sim/``."""
    try:
        return importlib.import_module(f"{__package__}.strategies")
    except ModuleNotFoundError:
        folder = Path(__file__).resolve().parent.parent / "strategies"
        spec = importlib.util.spec_from_file_location(
            f"{__package__}.strategies", folder / "__init__.py",
            submodule_search_locations=[str(folder)])
        if spec is None:
            raise
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module


def load_plugin(spec: str) -> None:
    """Import a user's strategy module: a dotted module name or a path to a ``.py`` file.
    The built-ins load first: a plugin may import them (``durak_sim.strategies.easy``) and
    may not take their names. A spec that is neither, a plugin that fails to import (it
    raises, calls ``sys.exit``) or one that registers what it may not: a ``StrategyError``,
    one line naming the plugin or the strategy."""
    load_builtins()
    path = Path(spec)
    from .errors import option

    what = option("--plugin takes", "a plugin is") + \
        " a .py file or the name of an importable module"
    kind = "not a module name"
    if spec and path.exists():
        kind = "a folder that is no importable package" if path.is_dir() else "not a .py file"
    if not spec.endswith(".py") and not all(w.isidentifier() for w in spec.split(".")):
        raise StrategyError(f"cannot load plugin {spec}: {kind} ({what})")
    mod_name = f"durak_sim_plugin_{path.stem}" if spec.endswith(".py") else spec
    if spec.endswith(".py") and not path.is_file():
        raise StrategyError(f"plugin file not found: {spec}")
    stem = path.stem if spec.endswith(".py") else spec.rsplit(".", 1)[-1]
    other = stem if spec.endswith(".py") else f"durak_sim_plugin_{stem}"
    stale_cache = StrategyError(
        f"cannot load plugin {spec}: numba's cache of it was made when it was loaded as "
        f"{'a module' if spec.endswith('.py') else 'a .py file'}; load it that way, or delete "
        f"the __pycache__ folder beside it")
    had_other = other in sys.modules
    signalled: list = []
    try:
        with _watching_ctrl_c(signalled):
            _import_plugin(spec, mod_name, path)
    except KeyboardInterrupt:
        if signalled:
            raise                   # Ctrl-C while it imported
        raise StrategyError(f"cannot load plugin {spec}: it raised KeyboardInterrupt on "
                            f"import") from None
    except StrategyError as exc:   # what its registration may not do: name the plugin
        if not had_other and other in sys.modules:
            raise stale_cache from None   # (the cache imported the other module: it registered)
        raise StrategyError(f"plugin {spec}: {exc}") from None
    except ModuleNotFoundError as exc:
        if exc.name == other:
            # numba's cache beside the plugin holds code compiled when it was loaded the
            # other way (as a file / as a module), under that module's name
            raise stale_cache from exc
        if exc.name and (spec + ".").startswith(exc.name + "."):   # the plugin itself
            said = kind if path.exists() else f"no module named {exc.name!r} on Python's " \
                f"path (the current folder is on it only with PYTHONPATH=.; or give a .py file)"
            raise StrategyError(f"cannot load plugin {spec}: {said} ({what})") from exc
        raise StrategyError(f"cannot load plugin {spec}: {exc}") from exc
    except (Exception, SystemExit) as exc:  # a user's module failing to import is bad input
        from .errors import describe_failure

        text = f"it {describe_failure(exc)} on import" if isinstance(exc, SystemExit) \
            else str(exc)
        raise StrategyError(f"cannot load plugin {spec}: {text or type(exc).__name__}"
                            ) from exc


@contextlib.contextmanager
def _watching_ctrl_c(signalled: list):
    """Note in ``signalled`` a Ctrl-C (SIGINT) that arrives in the block, so that a
    KeyboardInterrupt the plugin raises itself is told from the user's. Where Python's own
    handler is not in place (another thread, or SIGINT handled elsewhere) the two cannot be
    told apart and it counts as the user's; with SIGINT ignored it can only be the plugin's."""
    import signal
    import threading

    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or \
            previous is not signal.default_int_handler:
        if previous is not signal.SIG_IGN:
            signalled.append(True)
        yield
        return

    def note(signum, frame):
        signalled.append(True)
        previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _import_plugin(spec: str, mod_name: str, path: Path) -> None:
    if spec.endswith(".py"):
        module_spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[mod_name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(mod_name, None)
            raise
    else:
        importlib.import_module(spec)


def name_list(values, what: str) -> list:
    """``values`` (a sequence of names) as a list; a single string is refused rather than
    read letter by letter.

    >>> name_list(("easy", "hard"), "strategies")
    ['easy', 'hard']
    >>> name_list("easy", "strategies")
    Traceback (most recent call last):
    ...
    durak_sim.registry.StrategyError: strategies must be a list of names, got the string 'easy' (write ['easy'])
    """
    if isinstance(values, (str, bytes)):
        raise StrategyError(f"{what} must be a list of names, got the string {values!r} "
                            f"(write [{values!r}])")
    return list(values)


def get_strategy(name: str) -> Strategy:
    """The strategy registered as ``name`` (or an alias); an ``engine:PATH`` spec is an
    external engine (:mod:`durak_sim.external`), made on first use."""
    if not isinstance(name, str):
        raise StrategyError(f"a strategy is named by a string, got {_shorten(repr(name))}")
    load_builtins()
    if name.startswith("engine:"):
        from .external import SETTINGS, check_env_timeout, engine_strategy

        if not SETTINGS.from_option:
            check_env_timeout()   # a bad DURAK_SIM_ENGINE_TIMEOUT matters once one is seated
        if name not in _REGISTRY:
            _REGISTRY[name] = engine_strategy(name)
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        raise StrategyError(f"unknown strategy {name!r} (registered: {', '.join(strategy_names())})")
    return _REGISTRY[key]


def strategy_names() -> list[str]:
    """The registered strategies, in registration order (external engines named on a
    command line, ``engine:PATH``, are seated by their spec and not listed)."""
    load_builtins()
    return [n for n in _REGISTRY if not n.startswith("engine:")]


#: the built-in AI levels in order of strength, weakest first (the ladder, a gauntlet's field)
BUILTIN_LEVELS = ("random", "easy", "normal", "hard", "expert")
#: the default tournament's field (the main job): every level but expert, whose games cost
#: about a hundred times hard's (README, "The expert level")
DEFAULT_FIELD = ("random", "easy", "normal", "hard")


def builtin_levels() -> list[str]:
    load_builtins()
    return [n for n in BUILTIN_LEVELS if n in _REGISTRY]


def default_field() -> list[str]:
    load_builtins()
    return [n for n in DEFAULT_FIELD if n in _REGISTRY]

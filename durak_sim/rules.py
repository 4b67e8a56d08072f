"""Rulesets: one frozen ``Rules`` value, a table of named variants, a version.

The default ``Rules()`` is docs/rules.md R1-R6: two-player Podkidnoy, six cards. A ruleset is
a named variant (R8: ``podkidnoy``, ``perevodnoy``, ``prostoy``, ``teams``,
``podkidnoy-full``, found by name or alias) plus options; an option the variant leaves open
may be set, one it fixes may not be contradicted, and the whole is validated at once. Every
result, record and report carries ``Rules.to_dict()`` and ``RULES_VERSION``.

>>> Rules().to_dict()
{'players': 2, 'hand_size': 6, 'variant': 'podkidnoy'}
>>> Rules.from_dict({'players': 2, 'hand_size': 6, 'variant': 'podkidnoy'}) == Rules()
True
>>> Rules(variant="transfer", players=3).to_dict()
{'players': 3, 'hand_size': 6, 'variant': 'perevodnoy', 'transfer': True}
>>> Rules(variant="teams").players, Rules(variant="prostoy").hand_size
(4, 5)
>>> Rules(variant="teams", players=5)
Traceback (most recent call last):
...
durak_sim.rules.RulesError: teams need 4 players (two pairs) or 6 (two teams of three), not 5
"""
from __future__ import annotations

from dataclasses import dataclass, fields

#: bumped whenever the rules the engines implement change meaning
RULES_VERSION = 1

MIN_PLAYERS, MAX_PLAYERS = 2, 6
THROW_IN = ("all", "neighbours")

#: the option fields and their values when nothing sets them
OPTION_DEFAULTS = {"lead_multiple": False, "transfer": False, "throw_in": None,
                   "teams": False, "prostoy": False, "trump_six_swap": False}
#: the yes-or-no options in words (:meth:`Rules.describe`)
OPTION_WORDS = {"lead_multiple": "multi-card leads", "transfer": "transfers", "teams": "teams",
                "prostoy": "prostoy", "trump_six_swap": "the trump-six swap"}

#: named variants (docs/rules.md R8): what each is, the options it fixes (they cannot be
#: overridden) and its default table size
VARIANTS = {
    "podkidnoy": {"about": "throw-in Durak: one card leads, attackers throw in (R1-R7)",
                  "fixed": {"transfer": False, "prostoy": False}, "players": 2},
    "perevodnoy": {"about": "the transfer game: the defender may pass the attack on (R8.2)",
                   "fixed": {"transfer": True, "prostoy": False}, "players": 2},
    "prostoy": {"about": "five-card Durak: leads of one, three or five cards, no throw-ins "
                         "(R8.3)",
                "fixed": {"prostoy": True, "transfer": False, "lead_multiple": False,
                          "throw_in": None}, "players": 2, "hand_size": 5},
    "teams": {"about": "throw-in Durak in two partnerships: 4 players (0, 2 against 1, 3) or "
                       "6 (R8.4)",
              "fixed": {"teams": True, "prostoy": False}, "players": 4},
    "podkidnoy-full": {"about": "throw-in Durak as seed 003 tells it: leads of several cards of "
                                "a rank (R8.1) and the trump-six swap (R8.5)",
                       "fixed": {"lead_multiple": True, "trump_six_swap": True,
                                 "transfer": False, "prostoy": False}, "players": 2},
}
ALIASES = {"throw-in": "podkidnoy", "default": "podkidnoy", "podkidnoi": "podkidnoy",
           "transfer": "perevodnoy", "perevodnoi": "perevodnoy", "passing": "perevodnoy",
           "five-card": "prostoy", "simple": "prostoy", "partnership": "teams",
           "full": "podkidnoy-full"}

#: bit flags of ``O_RULES`` in the observation (docs/observation.md) and of the kernel state
FLAG_LEAD_MULTIPLE, FLAG_TRANSFER, FLAG_PROSTOY, FLAG_TEAMS, FLAG_SWAP, FLAG_NEIGHBOURS = \
    1, 2, 4, 8, 16, 32


class RulesError(ValueError):
    """A ruleset that is malformed or impossible (the message names the reason)."""


def check_rules(rules) -> "Rules":
    """``rules`` when it is a :class:`Rules`; else a RulesError that says how to make one.

    >>> check_rules("perevodnoy")
    Traceback (most recent call last):
    ...
    durak_sim.rules.RulesError: rules must be a durak_sim.rules.Rules, e.g. Rules(variant='perevodnoy'), got 'perevodnoy'
    """
    if isinstance(rules, Rules):
        return rules
    example = f"Rules(variant={rules!r})" if isinstance(rules, str) else "Rules(players=4)"
    raise RulesError(f"rules must be a durak_sim.rules.Rules, e.g. {example}, got {rules!r}")


def variant_name(name: str) -> str:
    """The canonical name of a variant or alias; RulesError if there is none.

    >>> variant_name("transfer")
    'perevodnoy'
    >>> variant_name("Perevodnoy")
    'perevodnoy'
    """
    key = name.lower()
    canonical = ALIASES.get(key, key)
    if canonical not in VARIANTS:
        known = ", ".join(VARIANTS)
        raise RulesError(f"unknown ruleset {name!r} (known: {known}; aliases: "
                         f"{', '.join(sorted(ALIASES))})")
    return canonical


@dataclass(frozen=True)
class Rules:
    """A whole ruleset. ``None`` for ``players``, ``hand_size`` or an option means "as the
    variant says" (else off); the value built has every field settled."""

    players: int | None = None
    hand_size: int | None = None
    variant: str = "podkidnoy"
    lead_multiple: bool | None = None
    transfer: bool | None = None
    throw_in: str | None = None     # None: by table size (R7.2); "all" or "neighbours"
    teams: bool | None = None
    prostoy: bool | None = None
    trump_six_swap: bool | None = None

    def __post_init__(self):
        name = variant_name(self.variant) if isinstance(self.variant, str) else None
        if name is None:
            raise RulesError(f"variant must be a name, got {self.variant!r}")
        spec = VARIANTS[name]
        set_ = object.__setattr__
        set_(self, "variant", name)
        for opt, default in OPTION_DEFAULTS.items():
            value = getattr(self, opt)
            fixed = spec["fixed"]
            if opt in fixed:
                if value is not None and opt != "throw_in" and not isinstance(value, bool):
                    raise RulesError(f"{opt} must be true or false, got {value!r}")
                if value is not None and value != fixed[opt]:
                    raise RulesError(_contradiction(name, opt, value))
                value = fixed[opt]
            elif value is None:
                value = default
            if opt == "throw_in":
                if value is not None and value not in THROW_IN:
                    raise RulesError(f"throw_in must be one of {', '.join(THROW_IN)}, got "
                                     f"{value!r}")
            elif not isinstance(value, bool):
                raise RulesError(f"{opt} must be true or false, got {value!r}")
            set_(self, opt, value)
        players = self.players
        if players is None:   # the variant's table; with teams (--teams alone) four
            players = max(spec["players"], 4) if self.teams else spec["players"]
        if isinstance(players, bool) or not isinstance(players, int) or \
                not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS} (R7), got "
                             f"{players!r}")
        set_(self, "players", players)
        want = spec.get("hand_size", 6)
        hand = want if self.hand_size is None else self.hand_size
        if type(hand) is not int:   # (not 6.0, True or numpy's 6: records hold a plain int)
            raise RulesError(f"hand_size must be an int, got {hand!r}")
        if hand != want:
            raise RulesError(f"{name} deals {want} cards a hand (R2.1{', R8.3' if want == 5 else ''}), "
                             f"not {hand!r}")
        set_(self, "hand_size", hand)
        if self.teams and players not in (4, 6):
            raise RulesError(f"teams need 4 players (two pairs) or 6 (two teams of three), "
                             f"not {players}")

    # -- what the engines read -------------------------------------------------------
    @property
    def throw_in_scope(self) -> str:
        """Who may throw in (R7.2): the option, else ``all`` up to four players dealt in and
        ``neighbours`` for five or six."""
        if self.throw_in is not None:
            return self.throw_in
        return "all" if self.players <= 4 else "neighbours"

    @property
    def flags(self) -> int:
        """The ``FLAG_*`` bits of this ruleset (``O_RULES``). ``FLAG_NEIGHBOURS`` only
        where it changes who may throw in: at two and three players every other seat is
        the defender's neighbour, so there it is the default game and says so.

        >>> Rules(throw_in="neighbours").flags, Rules(players=4, throw_in="neighbours").flags
        (0, 32)
        """
        return (FLAG_LEAD_MULTIPLE * self.lead_multiple | FLAG_TRANSFER * self.transfer
                | FLAG_PROSTOY * self.prostoy | FLAG_TEAMS * self.teams
                | FLAG_SWAP * self.trump_six_swap
                | FLAG_NEIGHBOURS * (self.throw_in_scope == "neighbours" and not self.prostoy
                                     and self.players > 3))

    def same_game(self, other: "Rules") -> bool:
        """The same game under another name or spelling: the same table, hand size and
        ``flags`` (all the engines read), e.g. ``perevodnoy`` with ``--teams`` and ``teams``
        with ``--transfer``.

        >>> teams = Rules(variant="teams", transfer=True)
        >>> teams.same_game(Rules(variant="perevodnoy", players=4, teams=True))
        True
        >>> Rules(players=4).same_game(Rules(players=4, throw_in="all"))
        True
        >>> Rules(players=4).same_game(Rules(players=4, throw_in="neighbours"))
        False
        >>> Rules(players=3).same_game(Rules(players=3, throw_in="neighbours"))   # everyone
        True
        """
        return (self.players, self.hand_size, self.flags) == \
            (other.players, other.hand_size, other.flags)

    @property
    def is_default(self) -> bool:
        return self == Rules()

    @property
    def is_two_player_classic(self) -> bool:
        """Two players, one-card leads, no transfer, no prostoy, no swap: the game every
        strategy knows (R1-R6)."""
        return self.is_default

    # -- forms ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The record form: ``players``, ``hand_size``, ``variant`` and every option that
        differs from its default (docs/game-record.md)."""
        out = {"players": self.players, "hand_size": self.hand_size, "variant": self.variant}
        for f in fields(self):
            if f.name in OPTION_DEFAULTS and getattr(self, f.name) != OPTION_DEFAULTS[f.name]:
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        if not isinstance(d, dict):
            raise RulesError(f"rules must be an object, got {d!r}")
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise RulesError(f"unknown rules option(s): {', '.join(sorted(unknown))}")
        return cls(**d)

    @property
    def tag(self) -> str:
        """Short human label, e.g. ``podkidnoy-2p-6``; options beyond the variant's follow
        (``perevodnoy-4p-6+teams``)."""
        spec = VARIANTS[self.variant]["fixed"]
        extra = [opt.replace("_", "-") if value is True else f"{opt.replace('_', '-')}-{value}"
                 for opt, value in self.to_dict().items()
                 if opt in OPTION_DEFAULTS and opt not in spec]
        return f"{self.variant}-{self.players}p-{self.hand_size}" + "".join(f"+{e}" for e in extra)

    def cli_args(self) -> list[str]:
        """The command-line options that give this ruleset (``durak-sim match ... ARGS``).

        >>> Rules(variant="teams", players=6, transfer=True).cli_args()
        ['--rules', 'teams', '--players', '6', '--transfer']
        >>> Rules().cli_args()
        []
        """
        if self.is_default:
            return []
        out = ["--rules", self.variant]
        if self.players != VARIANTS[self.variant]["players"]:
            out += ["--players", str(self.players)]
        fixed = VARIANTS[self.variant]["fixed"]
        for opt, value in self.to_dict().items():
            if opt not in OPTION_DEFAULTS or opt in fixed:
                continue
            flag = "--" + opt.replace("_", "-")
            out += [flag, value] if opt == "throw_in" else [flag]
        return out

    def headline(self) -> str:
        """The variant and the table, without the options.

        >>> Rules(variant="teams", transfer=True).headline()
        'teams, 4 players, 6 cards, throw-in all'
        """
        scope = "" if self.prostoy or self.players == 2 else f", throw-in {self.throw_in_scope}"
        return f"{self.variant}, {self.players} players, {self.hand_size} cards" + scope

    def describe(self) -> str:
        """One line: the variant, table and every option in force, in words.

        >>> Rules(variant="teams", transfer=True).describe()
        'teams, 4 players, 6 cards, throw-in all, with transfers'
        >>> Rules(variant="podkidnoy-full").describe()
        'podkidnoy-full, 2 players, 6 cards, with multi-card leads and the trump-six swap'
        """
        opts = [OPTION_WORDS[k] for k, v in self.to_dict().items()
                if v is True and k in OPTION_WORDS and OPTION_WORDS[k] != self.variant]
        if not opts:
            return self.headline()
        return f"{self.headline()}, with " + (
            opts[0] if len(opts) == 1 else f"{', '.join(opts[:-1])} and {opts[-1]}")


def _contradiction(name: str, opt: str, value) -> str:
    """One line for an option that ``name`` fixes otherwise, in the options' words (from
    Python the keyword's, in a command the command's: :func:`durak_sim.errors.option`).

    >>> _contradiction("prostoy", "throw_in", "all")
    'ruleset prostoy has no throw-ins: its bout is one multiple attack (R8.3), without throw-ins, transfers or leads of one rank (R8.1)'
    >>> _contradiction("podkidnoy", "transfer", True)
    "ruleset podkidnoy has no transfers, so transfers cannot be asked: use Rules(variant='perevodnoy')"
    """
    def words(o, v) -> str:
        if o == "throw_in":
            return "no throw-ins" if v is None else f"throw-ins by {v}"
        what = {"lead_multiple": "leads of several cards of a rank (R8.1)",
                "prostoy": "five-card bouts (R8.3)"}.get(o, OPTION_WORDS[o])
        return what if v else f"no {what}"

    fixed = words(opt, VARIANTS[name]["fixed"][opt])
    if name == "prostoy":
        return (f"ruleset prostoy has {fixed}: its bout is one multiple attack (R8.3), "
                f"without throw-ins, transfers or leads of one rank (R8.1)")
    from .errors import option

    other = ("perevodnoy" if opt == "transfer" and value else
             "prostoy" if opt == "prostoy" and value else
             "podkidnoy" if opt == "teams" and not value else None)
    hint = "" if other is None else \
        f": use {option(f'--rules {other}', f'Rules(variant={other!r})')}"
    asked = words(opt, value)
    asked = f"{asked[3:]} cannot be left out" if asked.startswith("no ") else \
        f"{asked} cannot be asked"
    return f"ruleset {name} has {fixed}, so {asked}{hint}"


def variants_table() -> list[tuple[str, str, str]]:
    """``(name, aliases, what it is)`` of every named variant, for help texts."""
    rows = []
    for name, spec in VARIANTS.items():
        aliases = ", ".join(sorted(a for a, n in ALIASES.items() if n == name))
        rows.append((name, aliases, spec["about"]))
    return rows

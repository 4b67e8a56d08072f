"""Rulesets: one frozen ``Rules`` value, a table of named variants, a version.

The default ``Rules()`` is RULES.md R1-R6: two-player Podkidnoy, six cards. Every result,
record and report carries ``Rules.to_dict()`` and ``RULES_VERSION``.

>>> Rules().to_dict()
{'players': 2, 'hand_size': 6, 'variant': 'podkidnoy'}
>>> Rules.from_dict({'players': 2, 'hand_size': 6, 'variant': 'podkidnoy'}) == Rules()
True
"""
from __future__ import annotations

from dataclasses import dataclass, fields

#: bumped whenever the rules the engines implement change meaning
RULES_VERSION = 1

#: named variants (RULES.md R8) -> the options they set; ``implemented`` says which engines
#: play them today. Aliases map to the canonical name.
VARIANTS = {
    "podkidnoy": {"implemented": True, "options": {}},
}
ALIASES = {"throw-in": "podkidnoy", "default": "podkidnoy"}


class RulesError(ValueError):
    """A ruleset that is malformed or not implemented."""


@dataclass(frozen=True)
class Rules:
    players: int = 2
    hand_size: int = 6
    variant: str = "podkidnoy"

    def __post_init__(self):
        name = ALIASES.get(self.variant, self.variant)
        if name not in VARIANTS:
            raise RulesError(f"unknown variant {self.variant!r} (known: {', '.join(VARIANTS)})")
        object.__setattr__(self, "variant", name)
        if self.players != 2:
            raise RulesError(f"{self.players} players are not implemented yet (only 2, R1-R6)")
        if self.hand_size != 6:
            raise RulesError(f"hand size {self.hand_size} is not implemented yet (only 6)")

    def to_dict(self) -> dict:
        """The record form: ``players``, ``hand_size``, ``variant`` and every other option
        that differs from its default (spec/game-record.md)."""
        out = {"players": self.players, "hand_size": self.hand_size, "variant": self.variant}
        for f in fields(self):
            if f.name not in out and getattr(self, f.name) != f.default:
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise RulesError(f"unknown rules option(s): {', '.join(sorted(unknown))}")
        return cls(**d)

    @property
    def tag(self) -> str:
        """Short human label, e.g. ``podkidnoy-2p-6``."""
        return f"{self.variant}-{self.players}p-{self.hand_size}"

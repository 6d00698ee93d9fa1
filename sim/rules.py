"""Rule sets of any game: knobs, presets, validation, canonical ids (game-independent).

A game declares its rules once, as a :class:`RulesSpec` (its knobs, presets, version, player
counts and cross-field checks; ``SPEC`` in the game package's ``rules.py``). A
:class:`RuleSet` is one frozen, validated record of one game, built only through
:meth:`RulesSpec.make` (or
:func:`make_rules` / :func:`parse_rules_id`, which find the game in :mod:`sim.games`); every
value and cross-field invariant is checked, and anything else is refused with one sentence
naming the knob and the reason (:class:`RuleError`).

Canonical id: ``GAME:PRESET(knob=value,...)`` with the knobs that differ from the preset, e.g.
``loba:pagat(elimination_score=151)`` or ``moon:gamerules``. Input may leave out ``GAME:``
(the game then comes from the context, Loba by default), which is also how run directories
written before Moon existed name their rules.

The kernel sees a rule set as an ``int64`` array (:meth:`RuleSet.to_array`) indexed by the
spec's :attr:`RulesSpec.index`, a NamedTuple with one upper-case field per knob (an optional
knob also gets ``HAS_<NAME>``) and ``SIZE``; Numba folds its fields into compiled code as
constants. The array is built from each knob's kind, so adding a knob is one line in the spec.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np


class RuleError(ValueError):
    """A rule name, value or combination that cannot be played. The message is one sentence."""


KINDS = ("int", "bool", "choice", "optional")


@dataclass(frozen=True)
class Knob:
    """One house-rule knob: its name, default, rule id, meaning and allowed values.

    ``kind``: ``int`` (``lo``..``hi``), ``bool``, ``choice`` (one of ``choices``) or
    ``optional`` (an int in ``lo``..``hi``, or None written ``none``).
    """

    name: str
    default: Any
    rule: str  # rule id in the rules document, e.g. "A29"
    meaning: str
    choices: tuple | None = None
    lo: int | None = None
    hi: int | None = None
    kind: str = "int"

    def coerce(self, value: Any) -> Any:
        """A CLI string or Python value as this knob's type, or RuleError."""
        name = self.name
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, int | np.integer) and value in (0, 1):
                return bool(value)
            s = str(value).strip().lower()
            if s in ("true", "yes", "1", "on"):
                return True
            if s in ("false", "no", "0", "off"):
                return False
            raise RuleError(f"Rule '{name}' takes true or false, not '{value}'.")
        if self.kind == "choice":
            s = str(value).strip().lower()
            if s not in self.choices:
                raise RuleError(
                    f"Rule '{name}' takes one of {', '.join(self.choices)}, not '{value}'."
                )
            return s
        if self.kind == "optional" and (
            value is None or str(value).strip().lower() in ("none", "")
        ):
            return None
        if isinstance(value, bool):
            raise RuleError(f"Rule '{name}' takes a whole number, not '{value}'.")
        try:
            if isinstance(value, str):
                v = int(value.strip(), 10)
            elif isinstance(value, int | np.integer):
                v = int(value)
            elif isinstance(value, float) and value.is_integer():
                v = int(value)
            else:
                raise ValueError
        except ValueError:
            extra = " or none" if self.kind == "optional" else ""
            raise RuleError(f"Rule '{name}' takes a whole number{extra}, not '{value}'.") from None
        if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            raise RuleError(f"Rule '{name}' must be between {self.lo} and {self.hi}, not {v}.")
        return v

    def slots(self) -> list[str]:
        """Field names of this knob in the rule array (optional knobs: a flag and a value)."""
        up = self.name.upper()
        return [f"HAS_{up}", up] if self.kind == "optional" else [up]

    def encode(self, value: Any) -> list[int]:
        """This knob's value as rule-array entries (see :meth:`slots`)."""
        if self.kind == "optional":
            return [0, 0] if value is None else [1, int(value)]
        if self.kind == "choice":
            return [self.choices.index(value)]
        return [int(value)]

    def alternatives(self) -> str:
        """Allowed values in words, for ``loba rules`` and the docs."""
        if self.kind == "bool":
            return "true | false"
        if self.kind == "choice":
            return " | ".join(self.choices)
        rng = f"{self.lo}..{self.hi}"
        return f"none | {rng}" if self.kind == "optional" else rng


def fmt_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def make_enum(typename: str, names, widths: dict[str, int] | None = None):
    """A NamedTuple instance of consecutive offsets, plus ``SIZE`` (the total width).

    ``widths`` gives fields that span several slots (``HAND_N`` per seat); the size is derived
    from the parts, so adding a field can never overrun an array sized ``SIZE``.
    """
    names = list(names)
    widths = widths or {}
    offs, at = [], 0
    for n in names:
        offs.append(at)
        at += widths.get(n, 1)
    return namedtuple(typename, [*names, "SIZE"])(*offs, at)


@dataclass(frozen=True)
class RulesSpec:
    """A game's rules: knobs, presets, version, player counts, cross-field checks."""

    game: str
    knobs: tuple[Knob, ...]
    presets: dict[str, dict[str, Any]]
    default_preset: str
    version: int  # RULES_VERSION: bumped whenever play under some rule set changes
    min_players: int
    max_players: int
    check: Callable[[dict], None] | None = None  # cross-field invariants of the values
    check_table: Callable[[RuleSet, int], None] | None = None  # invariants with the players
    title: str = ""

    @cached_property
    def knob(self) -> dict[str, Knob]:
        return {k.name: k for k in self.knobs}

    @cached_property
    def defaults(self) -> dict[str, Any]:
        return {k.name: k.default for k in self.knobs}

    @cached_property
    def index(self):
        """The rule array's layout: a NamedTuple of offsets, one field per slot, and SIZE."""
        return make_enum("R", [s for k in self.knobs for s in k.slots()])

    def make(self, preset: str | None = None, **overrides: Any) -> RuleSet:
        """Build and validate a rule set: a preset plus knob overrides (values may be strings)."""
        p = str(self.default_preset if preset is None else preset).strip().lower()
        if p not in self.presets:
            raise RuleError(
                f"Unknown {self.title or self.game} preset '{preset}': choose one of"
                f" {', '.join(self.presets)}."
            )
        vals = {**self.defaults, **self.presets[p]}
        for name, value in overrides.items():
            if name not in self.knob:
                raise RuleError(
                    f"Unknown rule '{name}': run 'loba rules --game {self.game}' to list the"
                    " rule names."
                )
            vals[name] = self.knob[name].coerce(value)
        if self.check is not None:
            self.check(vals)
        return RuleSet(self.game, p, tuple((k.name, vals[k.name]) for k in self.knobs), self)

    def parse(self, text: str) -> RuleSet:
        """A canonical id (``pagat(elimination_score=151)``, with or without ``GAME:``)."""
        t = str(text).strip()
        game, sep, rest = t.partition(":")
        if sep and re.fullmatch(r"[A-Za-z_]+", game):
            if game.lower() != self.game:
                raise RuleError(f"'{text}' names {game} rules, not {self.game} rules.")
            t = rest.strip()
        m = re.fullmatch(r"([A-Za-z_]+)(?:\((.*)\))?", t)
        if not m:
            raise RuleError(
                f"'{text}' is not a rule set id such as"
                f" {self.game}:{self.default_preset}({self.knobs[-1].name}=...)."
            )
        return self.make(m.group(1), **parse_assignments([m.group(2)] if m.group(2) else []))


@dataclass(frozen=True)
class RuleSet:
    """A frozen, validated rule set of one game. Build it with :meth:`RulesSpec.make`."""

    game: str
    preset: str
    values: tuple  # (name, value) pairs in the spec's knob order
    spec: RulesSpec = field(compare=False, hash=False, repr=False)

    def __getattr__(self, name: str) -> Any:
        for k, v in object.__getattribute__(self, "values"):
            if k == name:
                return v
        raise AttributeError(name)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)

    @property
    def overrides(self) -> dict[str, Any]:
        """Knobs whose value differs from the preset's."""
        base = {**self.spec.defaults, **self.spec.presets[self.preset]}
        return {k: v for k, v in self.values if base[k] != v}

    @property
    def short_id(self) -> str:
        """The id without the ``GAME:`` prefix: ``pagat(elimination_score=151)``."""
        ov = self.overrides
        if not ov:
            return self.preset
        return self.preset + "(" + ",".join(f"{k}={fmt_value(v)}" for k, v in ov.items()) + ")"

    @property
    def id(self) -> str:
        """The canonical id: ``loba:pagat(elimination_score=151)``."""
        return f"{self.game}:{self.short_id}"

    @property
    def version(self) -> int:
        return self.spec.version

    def __str__(self) -> str:
        return self.id

    def check_players(self, n_players: int) -> None:
        """The player count this game allows, and any rule that depends on it."""
        s = self.spec
        if (
            isinstance(n_players, bool)
            or not isinstance(n_players, int | np.integer)
            or not (s.min_players <= n_players <= s.max_players)
        ):
            count = (
                f"exactly {s.min_players}"
                if s.min_players == s.max_players
                else f"{s.min_players} to {s.max_players}"
            )
            raise RuleError(
                f"{s.title or s.game} is played by {count} players, not {n_players}"
                f" [{s.knobs[0].rule[0]}1]."
            )
        if s.check_table is not None:
            s.check_table(self, int(n_players))

    def replace(self, **changes: Any) -> RuleSet:
        return self.spec.make(self.preset, **{**self.overrides, **changes})

    def to_array(self) -> np.ndarray:
        """The kernel's view: int64[index.SIZE], built from each knob's kind."""
        return np.array(
            [x for k in self.spec.knobs for x in k.encode(getattr(self, k.name))], dtype=np.int64
        )

    def describe(self) -> list[tuple[str, str, str, str, str, str]]:
        """Rows (knob, value, default, rule id, alternatives, meaning) for ``loba rules``."""
        return [
            (
                k.name,
                fmt_value(getattr(self, k.name)),
                fmt_value(k.default),
                k.rule,
                k.alternatives(),
                k.meaning,
            )
            for k in self.spec.knobs
        ]


_SET_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def parse_assignments(items) -> dict[str, str]:
    """``["elimination_score=151", ...]`` -> dict; one clear sentence on malformed items."""
    out: dict[str, str] = {}
    for item in items or ():
        for part in str(item).split(","):
            if not part.strip():
                continue
            m = _SET_RE.match(part)
            if not m or not m.group(2):
                raise RuleError(f"'{part}' is not a rule setting: write KNOB=VALUE.")
            out[m.group(1)] = m.group(2)
    return out


def split_game(text: str, game: str | None = None) -> tuple[str | None, str]:
    """(game named by a ``GAME:`` prefix or ``game``, the rest)."""
    t = str(text).strip()
    g, sep, rest = t.partition(":")
    if sep and re.fullmatch(r"[A-Za-z_]+", g):
        return g.lower(), rest.strip()
    return game, t


__all__ = [
    "Knob",
    "RuleError",
    "RuleSet",
    "RulesSpec",
    "fmt_value",
    "make_enum",
    "parse_assignments",
]

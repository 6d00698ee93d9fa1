"""Rule sets for Loba de Menos (RULES.md part A): knobs, presets, validation, canonical ids.

A :class:`RuleSet` is one frozen, validated record. It is built only through :func:`make_rules`
(or :meth:`RuleSet.from_id`), which checks every value and every cross-field invariant and
refuses anything else with one sentence naming the knob and the reason (:class:`RuleError`).
Its canonical id (``pagat``, ``pagat(elimination_score=151)``) names the preset and the knobs
that differ from it, and goes into every output. :data:`RULES_VERSION` is bumped whenever the
engine's behaviour under some rule set changes (never for refactors).

The kernel sees a rule set as an ``int64`` array (:meth:`RuleSet.to_array`) indexed by the
``R_*`` constants below, which Numba folds into the compiled code as literals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

RULES_VERSION = 2


class RuleError(ValueError):
    """A rule name, value or combination that cannot be played. The message is one sentence."""


@dataclass(frozen=True)
class Knob:
    name: str
    default: Any
    rule: str  # rule id in RULES.md
    meaning: str
    choices: tuple | None = None  # for enumerated knobs
    lo: int | None = None  # for integer knobs
    hi: int | None = None
    kind: str = "int"  # int | bool | choice | floor


KNOBS: tuple[Knob, ...] = (
    Knob("decks", 2, "A2", "standard 52-card packs shuffled together", lo=1, hi=3),
    Knob("jokers", 4, "A2", "jokers added to the packs", lo=0, hi=8),
    Knob("ace_value", 10, "A3", "penalty points of an ace left in hand", lo=0, hi=100),
    Knob("joker_value", 10, "A3", "penalty points of a joker left in hand", lo=0, hi=100),
    Knob("stake", 1, "A4", "stake each player pays into the pot before the game", lo=0, hi=10**6),
    Knob("hand_size", 9, "A6", "cards dealt to each active player", lo=1, hi=30),
    Knob(
        "discard_take",
        "meld_or_layoff",
        "A11",
        "when the top discard may be taken: it must reach the table this turn",
        choices=("meld_or_layoff", "new_meld_only"),
        kind="choice",
    ),
    Knob(
        "reshuffle_keep_top",
        True,
        "A13",
        "rebuilding the stock keeps the top discard face up",
        kind="bool",
    ),
    Knob(
        "max_turns_per_round",
        1000,
        "A14",
        "a round whose this-many-th turn ends with nobody out is void",
        lo=1,
        hi=100000,
    ),
    Knob(
        "max_rounds_per_game",
        200,
        "A14b",
        "simulation cap: a game this long ends unfinished, the pot returned",
        lo=1,
        hi=10000,
    ),
    Knob(
        "pierna_suits",
        "exactly_three",
        "A15",
        "suits a pierna (set) may use",
        choices=("exactly_three", "not_all_four"),
        kind="choice",
    ),
    Knob("escalera_min", 3, "A16", "fewest cards in an escalera (run)", lo=3, hi=13),
    Knob("jokers_per_escalera", 1, "A17", "most jokers in one escalera", lo=0, hi=4),
    Knob(
        "layoff_requires_own_meld",
        True,
        "A20",
        "laying off needs a meld of one's own put down this round",
        kind="bool",
    ),
    Knob(
        "joker_end_move",
        True,
        "A22",
        "an end joker jumps to the other end when its natural card is laid off",
        kind="bool",
    ),
    Knob(
        "joker_discard",
        "last_only",
        "A24",
        "when a joker may be discarded",
        choices=("last_only", "allowed"),
        kind="choice",
    ),
    Knob(
        "go_out_needs_discard",
        False,
        "A26",
        "going out needs a final discard (plays may not empty the hand)",
        kind="bool",
    ),
    Knob(
        "one_turn_bonus",
        10,
        "A28",
        "points taken off for going out with nothing put down before that turn",
        lo=0,
        hi=1000,
    ),
    Knob(
        "score_floor",
        None,
        "A28",
        "lowest cumulative score (none = negative totals allowed)",
        kind="floor",
        lo=-1000,
        hi=1000,
    ),
    Knob(
        "elimination_score",
        101,
        "A29",
        "a cumulative score at or above this puts a player over",
        lo=1,
        hi=100000,
    ),
    Knob("max_rebuys", 2, "A30", "rebuys (reenganches) allowed per player per game", lo=0, hi=100),
    Knob("rebuy_cost", 1, "A30", "what a rebuy pays into the pot", lo=0, hi=10**6),
    Knob(
        "rebuy_with_one_survivor",
        False,
        "A31",
        "rebuys are allowed when only one player is not over",
        kind="bool",
    ),
)
KNOB = {k.name: k for k in KNOBS}
DEFAULTS: dict[str, Any] = {k.name: k.default for k in KNOBS}

PRESETS: dict[str, dict[str, Any]] = {
    "pagat": {},
    "classic": {"pierna_suits": "not_all_four", "joker_discard": "allowed"},
    "rami": {
        "escalera_min": 4,
        "jokers_per_escalera": 2,
        "elimination_score": 100,
        "discard_take": "new_meld_only",
    },
}
DEFAULT_PRESET = "pagat"

# --- kernel layout: index of each knob in RuleSet.to_array() (enumerations as small ints) ---
R_DECKS = 0
R_JOKERS = 1
R_ACE_VALUE = 2
R_JOKER_VALUE = 3
R_STAKE = 4
R_HAND_SIZE = 5
R_DISCARD_TAKE = 6  # 0 meld_or_layoff, 1 new_meld_only
R_RESHUFFLE_KEEP_TOP = 7
R_MAX_TURNS = 8
R_MAX_ROUNDS = 9
R_PIERNA_SUITS = 10  # 0 exactly_three, 1 not_all_four
R_ESCALERA_MIN = 11
R_JOKERS_PER_ESC = 12
R_LAYOFF_OWN_MELD = 13
R_JOKER_END_MOVE = 14
R_JOKER_DISCARD = 15  # 0 last_only, 1 allowed
R_GO_OUT_DISCARD = 16
R_ONE_TURN_BONUS = 17
R_HAS_FLOOR = 18
R_SCORE_FLOOR = 19
R_ELIM = 20
R_MAX_REBUYS = 21
R_REBUY_COST = 22
R_REBUY_ONE_SURVIVOR = 23
R_SIZE = 24

TAKE_MELD_OR_LAYOFF, TAKE_NEW_MELD_ONLY = 0, 1
PIERNA_EXACTLY_THREE, PIERNA_NOT_ALL_FOUR = 0, 1
JOKER_DISCARD_LAST_ONLY, JOKER_DISCARD_ALLOWED = 0, 1

MIN_PLAYERS, MAX_PLAYERS = 2, 5


def _coerce(knob: Knob, value: Any) -> Any:
    """Turn a CLI string or Python value into the knob's type, or raise RuleError."""
    name = knob.name
    if knob.kind == "bool":
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
    if knob.kind == "choice":
        s = str(value).strip().lower()
        if s not in knob.choices:
            raise RuleError(f"Rule '{name}' takes one of {', '.join(knob.choices)}, not '{value}'.")
        return s
    if knob.kind == "floor" and (value is None or str(value).strip().lower() in ("none", "")):
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
        extra = " or none" if knob.kind == "floor" else ""
        raise RuleError(f"Rule '{name}' takes a whole number{extra}, not '{value}'.") from None
    if (knob.lo is not None and v < knob.lo) or (knob.hi is not None and v > knob.hi):
        raise RuleError(f"Rule '{name}' must be between {knob.lo} and {knob.hi}, not {v}.")
    return v


def _fmt(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class RuleSet:
    """A frozen, validated rule set. Build it with :func:`make_rules`, not directly."""

    preset: str
    values: tuple  # (name, value) pairs in KNOBS order

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
        base = {**DEFAULTS, **PRESETS[self.preset]}
        return {k: v for k, v in self.values if base[k] != v}

    @property
    def id(self) -> str:
        ov = self.overrides
        if not ov:
            return self.preset
        return self.preset + "(" + ",".join(f"{k}={_fmt(v)}" for k, v in ov.items()) + ")"

    def __str__(self) -> str:
        return self.id

    @property
    def deck_size(self) -> int:
        return 52 * self.decks + self.jokers

    def check_players(self, n_players: int) -> None:
        """[A1] 2-5 players, and the deal must fit the deck ([A6], [A7])."""
        if not isinstance(n_players, int | np.integer) or not (
            MIN_PLAYERS <= n_players <= MAX_PLAYERS
        ):
            raise RuleError(
                f"Loba is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n_players} [A1]."
            )
        need = self.hand_size * n_players + 1
        if need > self.deck_size:
            raise RuleError(
                f"Rule 'hand_size' = {self.hand_size} cannot be dealt to {n_players} players from "
                f"a {self.deck_size}-card deck (it needs {need} cards with the up-card) [A6]."
            )

    def replace(self, **changes: Any) -> RuleSet:
        return make_rules(self.preset, **{**self.overrides, **changes})

    def to_array(self) -> np.ndarray:
        """The kernel's view: int64[R_SIZE]."""
        a = np.zeros(R_SIZE, dtype=np.int64)
        a[R_DECKS] = self.decks
        a[R_JOKERS] = self.jokers
        a[R_ACE_VALUE] = self.ace_value
        a[R_JOKER_VALUE] = self.joker_value
        a[R_STAKE] = self.stake
        a[R_HAND_SIZE] = self.hand_size
        a[R_DISCARD_TAKE] = ("meld_or_layoff", "new_meld_only").index(self.discard_take)
        a[R_RESHUFFLE_KEEP_TOP] = int(self.reshuffle_keep_top)
        a[R_MAX_TURNS] = self.max_turns_per_round
        a[R_MAX_ROUNDS] = self.max_rounds_per_game
        a[R_PIERNA_SUITS] = ("exactly_three", "not_all_four").index(self.pierna_suits)
        a[R_ESCALERA_MIN] = self.escalera_min
        a[R_JOKERS_PER_ESC] = self.jokers_per_escalera
        a[R_LAYOFF_OWN_MELD] = int(self.layoff_requires_own_meld)
        a[R_JOKER_END_MOVE] = int(self.joker_end_move)
        a[R_JOKER_DISCARD] = ("last_only", "allowed").index(self.joker_discard)
        a[R_GO_OUT_DISCARD] = int(self.go_out_needs_discard)
        a[R_ONE_TURN_BONUS] = self.one_turn_bonus
        a[R_HAS_FLOOR] = 0 if self.score_floor is None else 1
        a[R_SCORE_FLOOR] = 0 if self.score_floor is None else self.score_floor
        a[R_ELIM] = self.elimination_score
        a[R_MAX_REBUYS] = self.max_rebuys
        a[R_REBUY_COST] = self.rebuy_cost
        a[R_REBUY_ONE_SURVIVOR] = int(self.rebuy_with_one_survivor)
        return a

    @classmethod
    def from_id(cls, text: str) -> RuleSet:
        return parse_rules_id(text)


def make_rules(preset: str = DEFAULT_PRESET, **overrides: Any) -> RuleSet:
    """Build and validate a rule set: a preset plus knob overrides (values may be strings)."""
    p = str(preset).strip().lower()
    if p not in PRESETS:
        raise RuleError(f"Unknown preset '{preset}': choose one of {', '.join(PRESETS)}.")
    vals = {**DEFAULTS, **PRESETS[p]}
    for name, value in overrides.items():
        if name not in KNOB:
            raise RuleError(f"Unknown rule '{name}': run 'loba rules' to list the rule names.")
        vals[name] = _coerce(KNOB[name], value)
    _check_combination(vals)
    return RuleSet(p, tuple((k.name, vals[k.name]) for k in KNOBS))


def _check_combination(v: dict[str, Any]) -> None:
    """Cross-field invariants: refuse rule sets that cannot be played."""
    deck = 52 * v["decks"] + v["jokers"]
    if v["hand_size"] * MIN_PLAYERS + 1 > deck:
        raise RuleError(
            f"Rule 'hand_size' = {v['hand_size']} cannot be dealt even to two players from a "
            f"{deck}-card deck [A6]."
        )
    if v["score_floor"] is not None and v["score_floor"] >= v["elimination_score"]:
        raise RuleError(
            f"Rule 'score_floor' = {v['score_floor']} must be below 'elimination_score' = "
            f"{v['elimination_score']}, or every player would be over at once [A28]."
        )


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


def parse_rules_id(text: str) -> RuleSet:
    """Parse a canonical id such as ``pagat(elimination_score=151,max_rebuys=0)``."""
    t = str(text).strip()
    m = re.fullmatch(r"([A-Za-z_]+)(?:\((.*)\))?", t)
    if not m:
        raise RuleError(f"'{text}' is not a rule set id such as pagat(elimination_score=151).")
    return make_rules(m.group(1), **parse_assignments([m.group(2)] if m.group(2) else []))


def describe(rules: RuleSet) -> list[tuple[str, str, str, str, str]]:
    """Rows (knob, value, default, rule id, meaning) for ``loba rules``."""
    return [
        (k.name, _fmt(getattr(rules, k.name)), _fmt(k.default), k.rule, k.meaning) for k in KNOBS
    ]


__all__ = [
    "KNOBS",
    "PRESETS",
    "RULES_VERSION",
    "RuleError",
    "RuleSet",
    "make_rules",
    "parse_assignments",
    "parse_rules_id",
    "describe",
]

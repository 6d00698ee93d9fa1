"""Three-Player Moon rules (rules document part B): every knob, the presets B.6.

The one declaration of Moon's rule set: :data:`SPEC` (a :class:`sim.rules.RulesSpec`). The
kernel's rule array layout :data:`RULE` and the enumerations of the choice knobs
(:data:`ALL_PASS`, :data:`MADE_SCORES`, :data:`MOON`) are derived from it, so a new knob is one
line here. Canonical ids read ``moon:gamerules``, ``moon:pagat(target=31)``.
"""

from __future__ import annotations

from typing import Any

from ..rules import Knob, RulesSpec, make_enum

RULES_VERSION = 1
N_PLAYERS = 3  # [B1] exactly three

KNOBS: tuple[Knob, ...] = (
    Knob(
        "all_pass",
        "redeal",
        "B4",
        "when all three pass: redeal (the hand is void), or the last bidder must bid",
        choices=("redeal", "force_last"),
        kind="choice",
    ),
    Knob(
        "trump_before_widow",
        False,
        "B5",
        "the bidder names trump before taking the widow and discarding",
        kind="bool",
    ),
    Knob("allow_doubles_trump", True, "B5", "the bidder may name doubles as trump", kind="bool"),
    Knob(
        "made_scores",
        "tricks",
        "B9",
        "what a bidder who makes a 4-7 bid scores: the tricks taken, or the bid",
        choices=("tricks", "bid"),
        kind="choice",
    ),
    Knob(
        "moon",
        "points",
        "B9",
        "a made moon (bid 21, all 7 tricks) scores 21 points, or wins the game at once",
        choices=("points", "instant"),
        kind="choice",
    ),
    Knob("target", 21, "B10", "score at or above which a player may win the game", lo=1, hi=1000),
    Knob(
        "max_hands_per_game",
        500,
        "B11",
        "simulation cap: a game this many hands long (redeals included) ends unfinished",
        lo=1,
        hi=100000,
    ),
)

PRESETS: dict[str, dict[str, Any]] = {
    "gamerules": {},
    "pagat": {"trump_before_widow": True, "allow_doubles_trump": False},
    "bid": {"made_scores": "bid", "all_pass": "force_last"},
}
DEFAULT_PRESET = "gamerules"


def check_combination(v: dict[str, Any]) -> None:
    """Cross-field invariants. Every combination of Moon's knobs can be played (each knob
    changes one step of a hand on its own), so nothing is refused here; the hook exists so a
    future knob that interacts with another has one place to say so."""
    return None


SPEC = RulesSpec(
    game="moon",
    title="Three-Player Moon",
    knobs=KNOBS,
    presets=PRESETS,
    default_preset=DEFAULT_PRESET,
    version=RULES_VERSION,
    min_players=N_PLAYERS,
    max_players=N_PLAYERS,
    check=check_combination,
)
RULE = SPEC.index  # rule array layout: RULE.ALL_PASS, ..., RULE.SIZE


def _choices(name: str):
    return make_enum(name.upper(), [c.upper() for c in SPEC.knob[name].choices])


ALL_PASS = _choices("all_pass")  # ALL_PASS.REDEAL, ALL_PASS.FORCE_LAST
MADE_SCORES = _choices("made_scores")  # MADE_SCORES.TRICKS, MADE_SCORES.BID
MOON = _choices("moon")  # MOON.POINTS, MOON.INSTANT


def make_rules(preset: str | None = None, **overrides: Any):
    """A Moon rule set: a preset (default ``gamerules``) plus knob overrides."""
    return SPEC.make(preset, **overrides)


def parse_rules(text: str):
    """A Moon rule set from its canonical id (``moon:pagat(target=31)`` or ``pagat``)."""
    return SPEC.parse(text)

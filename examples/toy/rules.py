"""Toy Tricks rules: every knob and the presets, as one :class:`sim.rules.RulesSpec`."""

from __future__ import annotations

from sim.rules import Knob, RulesSpec

KNOBS = (
    Knob("follow", True, "T3", "a seat must follow the led suit if it can", kind="bool"),
    Knob("last_trick", 1, "T4", "points the last trick of a hand scores", lo=1, hi=5),
    Knob("target", 10, "T5", "score at or above which a single leader wins", lo=1, hi=1000),
    Knob(
        "max_hands_per_game",
        200,
        "T6",
        "simulation cap: a game this many hands long ends unfinished",
        lo=1,
        hi=100000,
    ),
)

PRESETS = {"standard": {}, "quick": {"target": 5}, "loose": {"follow": False, "last_trick": 2}}

SPEC = RulesSpec(
    game="toy",
    title="Toy Tricks",
    knobs=KNOBS,
    presets=PRESETS,
    default_preset="standard",
    version=1,
    min_players=2,
    max_players=4,
)
RULE = SPEC.index  # RULE.FOLLOW, RULE.LAST_TRICK, RULE.TARGET, RULE.MAX_HANDS_PER_GAME, SIZE

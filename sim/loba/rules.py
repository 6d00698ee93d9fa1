"""Loba de Menos rules (rules document part A): every knob, the presets, the cross-checks.

The one declaration of Loba's rule set: :data:`SPEC` (a :class:`sim.rules.RulesSpec`). The
kernel's rule array layout :data:`RULE` and the enumerations of choice knobs (:data:`TAKE`,
:data:`PIERNA`, :data:`JOKER_DISCARD`) are derived from it, so a new knob is one line here.
"""

from __future__ import annotations

from typing import Any

from ..rules import Knob, RuleError, RuleSet, RulesSpec, make_enum

RULES_VERSION = 3  # 3: every legal meld, the exact take rule, a random stream per seat
MIN_PLAYERS, MAX_PLAYERS = 2, 5

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
        kind="optional",
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


def check_combination(v: dict[str, Any]) -> None:
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


def check_table(rules: RuleSet, n_players: int) -> None:
    """[A6] the deal must fit the deck (with the up-card, [A7])."""
    need = rules.hand_size * n_players + 1
    deck = 52 * rules.decks + rules.jokers
    if need > deck:
        raise RuleError(
            f"Rule 'hand_size' = {rules.hand_size} cannot be dealt to {n_players} players from "
            f"a {deck}-card deck (it needs {need} cards with the up-card) [A6]."
        )


SPEC = RulesSpec(
    game="loba",
    title="Loba",
    knobs=KNOBS,
    presets=PRESETS,
    default_preset=DEFAULT_PRESET,
    version=RULES_VERSION,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    check=check_combination,
    check_table=check_table,
)
RULE = SPEC.index  # rule array layout: RULE.ELIMINATION_SCORE, ..., RULE.SIZE


def _choices(name: str):
    return make_enum(name.upper(), [c.upper() for c in SPEC.knob[name].choices])


TAKE = _choices("discard_take")  # TAKE.MELD_OR_LAYOFF, TAKE.NEW_MELD_ONLY
PIERNA = _choices("pierna_suits")  # PIERNA.EXACTLY_THREE, PIERNA.NOT_ALL_FOUR
JOKER_DISCARD = _choices("joker_discard")  # JOKER_DISCARD.LAST_ONLY, JOKER_DISCARD.ALLOWED

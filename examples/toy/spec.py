"""Toy Tricks as a :class:`sim.game.GameSpec`: everything the core learns about the game.

Not in the shipped registry: ``sim.games.register_game("toy", "examples.toy.spec")``, or
``LOBA_GAMES="toy=examples.toy.spec"`` for a CLI process. The optional fields (bench,
handle, tools, positions, precompile, share, compile_pieces) are left at their defaults.
"""

from __future__ import annotations

from sim.game import GameSpec, Summary

from .auditor import audit
from .kernel import play_batch
from .layout import MAX_SEATS
from .policies import DECIDE_SIG, DECISIONS, POLICIES
from .rules import SPEC as RULES
from .schema import TABLES
from .trace import replay, to_text

SUMS = {
    "hands": ("games", "hands"),
    "tricks": ("games", "tricks"),
    "lead_wins": ("games", "lead_wins"),
    "decisions": ("games", "decisions"),
}


def figures(t: dict, n: int) -> dict:
    return {
        "mean_hands": t["hands"] / n if n else 0.0,
        "lead_win_rate": t["lead_wins"] / t["tricks"] if t["tricks"] else 0.0,
        "decisions_per_game": t["decisions"] / n if n else 0.0,
    }


def lines(s: dict) -> list[str]:
    return [
        f"mean hands/game {s['mean_hands']:.2f}, tricks won by their leader "
        f"{s['lead_win_rate']:.1%}, decisions/game {s['decisions_per_game']:.1f}"
    ]


SPEC = GameSpec(
    name="toy",
    title="Toy Tricks",
    rule_prefix="T",
    rules=RULES,
    decisions=DECISIONS,
    signature=DECIDE_SIG,
    policies=POLICIES,
    addons={},
    tables=TABLES,
    max_seats=MAX_SEATS,
    part="hand",
    default_seats="greedy,random,low",
    play_batch=play_batch,
    detail_cap=lambda rules: rules.max_hands_per_game,
    summary=Summary(
        SUMS,
        figures,
        lines,
        {"mean_hands": "hands", "lead_win_rate": "share", "decisions_per_game": "decisions"},
    ),
    replay=replay,
    to_text=to_text,
    audit=audit,
    analysis="examples.toy.analysis:ANALYSIS",
)

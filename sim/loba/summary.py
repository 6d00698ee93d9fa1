"""Loba's run summary: the totals it sums over a run and the headline figures made from them."""

from __future__ import annotations

from ..game import Summary

SUMS = {
    "rounds": ("games", "rounds"),
    "voids": ("games", "void_rounds"),
    "turns": ("games", "turns"),
    "pot": ("games", "pot"),
    "bonuses": ("games", "one_turn_bonuses"),
    "rebuys": ("seats", "rebuys"),
}


def figures(t: dict, n: int) -> dict:
    played = t["rounds"] - t["voids"]
    return {
        "mean_rounds": t["rounds"] / n if n else 0.0,
        "mean_turns": t["turns"] / n if n else 0.0,
        "rebuys_per_game": t["rebuys"] / n if n else 0.0,
        "one_turn_bonus_rate": t["bonuses"] / played if played else 0.0,
        "void_rounds": t["voids"],
        "mean_pot": t["pot"] / n if n else 0.0,
    }


def lines(s: dict) -> list[str]:
    return [
        f"mean rounds/game {s['mean_rounds']:.2f}, turns/game {s['mean_turns']:.1f}, "
        f"rebuys/game {s['rebuys_per_game']:.2f}, one-turn bonus rate "
        f"{s['one_turn_bonus_rate']:.2%} of rounds, void rounds {s['void_rounds']}"
    ]


UNITS = {
    "mean_rounds": "rounds",
    "mean_turns": "turns",
    "rebuys_per_game": "rebuys",
    "one_turn_bonus_rate": "share",
    "void_rounds": "rounds",
    "mean_pot": "stakes",
}
SUMMARY = Summary(SUMS, figures, lines, UNITS)

"""Loba's headline findings, re-checked across fields of players (:mod:`analysis.findings`):

- **elimination at 151** instead of 101 (pagat): rounds per game and each player's risk of
  going out in a round, 151 - 101, paired game by game;
- **always vs never rebuying**: seat 0 on ``rebuy=always`` against ``rebuy=never`` (the others
  as the field seats them), its win share and net stakes per game, paired
  (:func:`analysis.loba.rebuy.paired_rebuy_value`, what ``loba rebuy-value --field`` gives);
- **the dealer's left**: the win share of the seat left of the first dealer against its fair
  share, 1 / players.
"""

from __future__ import annotations

from ..findings import Arm, Finding, FindingsSpec, difference_rows, figure_rows
from . import metrics as M


def _rebuy_seat(rule: str):
    def seats(labels: list[str]) -> list[str]:
        from .rebuy import switch_rebuy

        return [switch_rebuy(labels[0], rule), *labels[1:]]

    return seats


def _elimination(played, game):
    return difference_rows(
        played,
        "e151",
        "base",
        {M.M_ROUNDS: "rounds per game, 151 - 101", M.M_HAZARD: "elimination risk, 151 - 101"},
        game,
    )


def _rebuy(played, game):
    from .rebuy import paired_rebuy_value

    a, n = played["always"], played["never"]
    t = paired_rebuy_value(a.games, a.seats, n.games, n.seats, 0)
    names = {"win probability": "seat 0 win share, always - never",
             "net stakes": "seat 0 net stakes per game, always - never"}  # fmt: skip
    return [
        {"measure": names[r["measure"]], "unit": r["unit"], "value": r["difference"],
         "ci_low": r["paired_low"], "ci_high": r["paired_high"], "reference": 0.0,
         "method": "paired (same seeds, per game)"}
        for r in t.iter_rows(named=True)
    ]  # fmt: skip


def _dealer_left(played, game):
    return figure_rows(played, "base", {M.M_DEALER_LEFT: "win share of the dealer's left"}, game)


FINDINGS = FindingsSpec(
    rules="pagat",
    arms=(
        Arm("base"),
        Arm("e151", sets=("elimination_score=151",)),
        Arm("always", seats=_rebuy_seat("always")),
        Arm("never", seats=_rebuy_seat("never")),
    ),
    findings=(
        Finding("elimination", "Eliminating at 151 instead of 101", ("base", "e151"), _elimination),
        Finding("rebuy", "Always vs never rebuying (seat 0)", ("always", "never"), _rebuy),
        Finding("dealer-left", "The dealer's left", ("base",), _dealer_left),
    ),
)

"""Three-Player Moon's headline findings, re-checked across fields of players
(:mod:`analysis.findings`), on the ``gamerules`` preset with the hands table recorded:

- **bid success by level**: the share of contracts made at each bid (4, 5, 6, 7, and the moon,
  21), read against one half (made more often than not, or not);
- **the first bidder**: its win share against the fair third;
- **the widow's value**: the bidder's mean tricks when it kept the widow minus when it laid it
  aside (:func:`analysis.moon.metrics.widow_value`; observational: the bidder chooses after
  seeing it), both from the same games, so the difference is paired game by game;
- **two variants**, each paired with the base game by game: naming trump before taking the
  widow (``trump_before_widow=true``), on the share of contracts made; playing to 31
  (``target=31``), on hands per game and the first bidder's win share.
"""

from __future__ import annotations

from ..findings import Arm, Finding, FindingsSpec, difference_rows, figure_rows, stack
from . import metrics as MN


def _bids(played, game):
    rows = figure_rows(
        played,
        "base",
        {MN.M_BID_MADE.format(bid=b): f"bid {b} made" if b != 21 else "moon (21) made"
         for b in MN.BIDS},
        game,
    )  # fmt: skip
    for r in rows:
        r["reference"] = 0.5
    return rows


def _first_bidder(played, game):
    return figure_rows(played, "base", {MN.M_FIRST_BIDDER: "win share of the first bidder"}, game)


def _widow(played, game):
    from ..estimate import diff_paired

    games, seats, hands = stack(played, ["base"])
    pg = MN.per_game(games, seats, hands)
    kept = MN.M_WIDOW_TRICKS.format(kept="kept")
    disc = MN.M_WIDOW_TRICKS.format(kept="discarded")
    col = {c: pg[c].to_numpy() for c in (f"{kept}|y", f"{kept}|x", f"{disc}|y", f"{disc}|x")}
    d = diff_paired(col[f"{kept}|y"], col[f"{kept}|x"], col[f"{disc}|y"], col[f"{disc}|x"],
                    "mean", False)  # fmt: skip
    return [
        {"measure": "bidder's tricks, widow kept - laid aside", "unit": "tricks",
         "value": d["diff"], "ci_low": d["diff_low"], "ci_high": d["diff_high"],
         "reference": 0.0, "method": "ratio estimator, clustered by game (same games)"}
    ]  # fmt: skip


def _trump_first(played, game):
    return difference_rows(
        played, "trump_first", "base", {MN.M_MADE: "contracts made, trump first - after"}, game
    )


def _target31(played, game):
    return difference_rows(
        played,
        "target31",
        "base",
        {MN.M_HANDS: "hands per game, 31 - 21",
         MN.M_FIRST_BIDDER: "first bidder's win share, 31 - 21"},
        game,
    )  # fmt: skip


FINDINGS = FindingsSpec(
    rules="gamerules",
    arms=(
        Arm("base", detail=True),
        Arm("trump_first", sets=("trump_before_widow=true",)),
        Arm("target31", sets=("target=31",)),
    ),
    findings=(
        Finding("bids", "Bid success by level", ("base",), _bids),
        Finding("first-bidder", "The first bidder's win share", ("base",), _first_bidder),
        Finding("widow", "The widow's value", ("base",), _widow),
        Finding(
            "trump-first", "Naming trump before the widow", ("base", "trump_first"), _trump_first
        ),  # fmt: skip
        Finding("target-31", "Playing to 31 instead of 21", ("base", "target31"), _target31),
    ),
)

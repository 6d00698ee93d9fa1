"""Loba's paired experiment in a sweep (:class:`analysis.bygame.SweepExperiment`): the value of
rebuying. Each cell's seeds are also played with seat 0 switched to ``rebuy=always`` and
``rebuy=never`` (under ``OUT/rebuy/always/`` and ``OUT/rebuy/never/``, laid out like
``OUT/cells/``; a run that equals the cell's own run is not played twice), and the cell's row
gets the paired difference (:func:`analysis.loba.rebuy.paired_rebuy_value`): ``rebuy_value``
(net stakes) and ``rebuy_win_gain`` (win probability), each with ``_low``/``_high``.
"""

from __future__ import annotations

import polars as pl

from ..bygame import SweepExperiment
from .rebuy import paired_rebuy_value, switch_rebuy

SEAT = 0  # the seat whose rebuy rule a sweep switches


def rebuy_seatings(labels: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """``always`` / ``never`` -> (seat 0 switched to that rebuy rule, its canonical labels)."""
    from sim.policies import parse_seats

    out = {}
    for tag in ("always", "never"):
        lab = [*labels[:SEAT], switch_rebuy(labels[SEAT], tag), *labels[SEAT + 1 :]]
        out[tag] = (lab, [s.label for s in parse_seats(",".join(lab))])
    return out


def rebuy_table(runs: dict) -> pl.DataFrame:
    """Seat 0's paired always-vs-never rebuy value from the runs by tag."""
    a, b = runs["always"], runs["never"]
    return paired_rebuy_value(a.games, a.seats, b.games, b.seats, SEAT)


def rebuy_columns(rebuy: pl.DataFrame | None) -> dict:
    """``rebuy_value`` and ``rebuy_win_gain`` with their paired intervals (None without a
    rebuy table, or when no game differs)."""
    row: dict = {}
    for col, measure in (("rebuy_value", "net stakes"), ("rebuy_win_gain", "win probability")):
        if rebuy is None:
            row[col] = row[f"{col}_low"] = row[f"{col}_high"] = None
            continue
        r = rebuy.filter(pl.col("measure") == measure).row(0, named=True)
        if r["games_that_differ"] == 0:  # e.g. max_rebuys=0: no rebuy can happen, nothing to value
            row[col] = row[f"{col}_low"] = row[f"{col}_high"] = None
            continue
        row[col] = r["difference"]
        row[f"{col}_low"] = r["paired_low"]
        row[f"{col}_high"] = r["paired_high"]
    return row


def rebuy_na_notes(summary: pl.DataFrame, knobs) -> list[str]:
    """Why a cell's rebuy value is ``n/a``, one line per reason naming its cells: the rules
    rule rebuys out (``max_rebuys=0``, 2 players, :func:`analysis.loba.words.rebuys_ruled_out`),
    or no game differed between seat 0 always and never rebuying. Empty when every cell has
    one (or the rebuy value was not played)."""
    from sim.setup import parse_rules_id

    from ..sweep import cell_label
    from .words import rebuys_ruled_out

    if "rebuy_value" not in summary.columns:
        return []
    why: dict[str, list[str]] = {}
    for r in summary.filter(pl.col("rebuy_value").is_null()).iter_rows(named=True):
        reason = rebuys_ruled_out(parse_rules_id(r["rules_id"]), r["n_players"]) or (
            "no game differs between seat 0 always and never rebuying (no player went over"
            " with a rebuy left; play more games)."
        )
        why.setdefault(reason, []).append(cell_label({k: r[k] for k in knobs}))
    out = []
    for reason, cells in why.items():
        where = (
            "every cell"
            if len(cells) == summary.height
            else f"cell{'s' * (len(cells) > 1)} {'; '.join(cells)}"
        )
        out.append(f"rebuy_value n/a in {where}: {reason}")
    return out


REBUY_VALUE = SweepExperiment(
    folder="rebuy",
    seatings=rebuy_seatings,
    value=rebuy_table,
    columns=rebuy_columns,
    names=("rebuy_value", "rebuy_win_gain"),
    label=f"seat {SEAT} rebuying - declining",
    notes=rebuy_na_notes,
    meta_key="rebuy_value_seat",
    seat=SEAT,
    units={"rebuy_win_gain": "share"},
)

"""Three-Player Moon's part of the HTML report (:mod:`analysis.report`): its findings, figures,
tables and Methods (:func:`sections`).
"""

from __future__ import annotations

import polars as pl

from ..family import adjusted, family_of_tests
from ..io import RunSet
from ..plots import rounds_plot, seat_advantage_plot
from ..report import (
    Sections,
    count_col,
    est_col,
    figure,
    frame_table,
    methods_paragraph,
    seat_table,
    section,
    share_col,
    text_col,
)
from . import metrics as MN
from . import words
from .plots import bid_success_plot

METHODS = methods_paragraph(
    "Positions from the first bidder and seats: Pearson chi-square tests of equal win shares "
    "on finished games. Bids, trump, the moon and the widow count played hands (redeals left "
    "out); the hands of one game are not independent, and their intervals treat them as if "
    "they were. The bidder's tricks with and without the widow are an association, not the "
    "widow's worth: the bidder chooses after seeing it.",
    "equal positions, equal seats, differences from the baseline",
)
NO_HANDS = "Needs the hands table in every run: simulate with --rounds."


def _hands_table(hp: pl.DataFrame) -> dict:
    return frame_table(
        hp,
        [
            text_col("variant"),
            ("hands", lambda r: "all dealt" if r["count"] == "all" else "played (no redeal)"),
            count_col("games", "games"),
            est_col("mean per game", "mean"),
            count_col("median", "median"),
            count_col("most", "max"),
        ],
        2,
    )


def _bid_table(bs: pl.DataFrame) -> dict:
    return frame_table(
        bs,
        [
            text_col("variant"),
            text_col("by"),
            ("bid or trump", lambda r: words.LEVEL_NAMES.get(r["level"], r["level"])),
            count_col("contracts", "hands"),
            share_col("share of contracts", "share_of_hands"),
            est_col("made", "share", unit="share"),
        ],
        3,
    )


def _moon_table(mr: pl.DataFrame) -> dict:
    return frame_table(
        mr,
        [
            text_col("variant"),
            text_col("measure"),
            text_col("per"),
            count_col("count", "k"),
            count_col("of", "n"),
            est_col("share", "share", unit="share"),
        ],
        3,
    )


def _widow_table(wv: pl.DataFrame) -> dict:
    return frame_table(
        wv,
        [
            text_col("variant"),
            text_col("widow"),
            count_col("played hands", "hands"),
            est_col("share", "share", "share_low", "share_high", "share"),
            est_col("bidder's tricks", "tricks"),
            share_col("contracts made", "made"),
        ],
        2,
    )


def sections(rs: RunSet, km: pl.DataFrame, cmp: pl.DataFrame | None) -> Sections:
    g, h = rs.games, rs.detail
    fb = MN.first_bidder_advantage(g)
    bs = MN.bid_success(h) if h is not None else None
    tests = family_of_tests(None, None, cmp, metric_tests=km)
    figures = [
        figure(
            rounds_plot(g, "hands"),
            "Distribution of the number of hands per game (redeals included).",
        ),
        figure(
            seat_advantage_plot(
                fb,
                "position from the game's first bidder",
                "First-bidder advantage (dashed: fair share; p: chi-square test of equal"
                " positions)",
            ),
            "Win share by position from the game's first bidder (bars: 95% interval; p: the "
            "chi-square test before correction, see Tests).",
        ),
    ]
    if bs is not None:
        figures.insert(
            1,
            figure(
                bid_success_plot(bs),
                "Share of contracts made by bid and by trump kind (bars: 95% interval).",
            ),
        )
    pos_adj = {v: adjusted(tests, "metric", v, MN.M_POSITION_P) for v in rs.variants}
    return Sections(
        name=rs.runs[0].spec.title,
        tests=tests,
        findings={v: words.moon_findings(km, v, bs, fb, tests) for v in rs.variants},
        figures=figures,
        tables=[
            section("Hands per game", _hands_table(MN.hands_per_game(g))),
            section("Bid success", _bid_table(bs) if bs is not None else None, NO_HANDS),
            section("The moon", _moon_table(MN.moon_rates(h, g))),
            section(
                "The widow", _widow_table(MN.widow_value(h)) if h is not None else None, NO_HANDS
            ),
            section(
                "First-bidder advantage", seat_table(fb, pos_adj, "position from the first bidder")
            ),
        ],
        methods=METHODS,
    )

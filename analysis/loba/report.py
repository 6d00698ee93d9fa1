"""Loba's part of the HTML report (:mod:`analysis.report`): its findings, figures, tables and
Methods (:func:`sections`), and the state-level rebuy experiment (:func:`rebuy_experiment`).
"""

from __future__ import annotations

import polars as pl

from sim import fmt

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
    text_col,
)
from . import metrics as M
from . import plots, words

METHODS = methods_paragraph(
    "Seat equality: Pearson chi-square test on finished games, seats counted in the first "
    "round's playing order from the dealer's left. Skill: exact binomial test of a policy's "
    "share of wins against its fair share. Elimination risk per round: players eliminated for "
    "good in that round over players still in at its start.",
    "seat equality, skill, differences from the baseline",
)


def _policy_table(pt: pl.DataFrame) -> dict:
    return frame_table(
        pt,
        [
            text_col("variant"),
            text_col("policy"),
            count_col("seat-games", "games"),
            est_col("win rate per seat", "win_rate", "win_low", "win_high", "share"),
            est_col("rebuys per game", "rebuys", "rebuys_ci_low", "rebuys_ci_high"),
            est_col("round eliminated", "elim_round", "elim_round_ci_low", "elim_round_ci_high"),
            est_col("net stakes per game", "net", "net_ci_low", "net_ci_high"),
        ],
        2,
    )


def sections(rs: RunSet, km: pl.DataFrame, cmp: pl.DataFrame | None) -> Sections:
    g, s = rs.games, rs.seats
    sa, sg = M.seat_advantage(g), M.skill_gap(g, s)
    tests = family_of_tests(sa, sg, cmp)
    figures = [
        figure(rounds_plot(g, "rounds"), "Distribution of the number of rounds per game."),
        figure(
            plots.survival_plot(M.survival(g, s)),
            "Share of players still in after each round (band: 95% interval); dotted: share of "
            "games still running.",
        ),
        figure(
            plots.hazard_plot(M.elimination_hazard(g, s)),
            "Risk that a player still in is eliminated for good in that round (band: 95%).",
        ),
        figure(
            plots.first_elimination_plot(M.first_elimination(g, s)),
            "Round of the first elimination for good.",
        ),
        figure(
            seat_advantage_plot(sa),
            "Win share by seat in the first round's playing order (bars: 95% interval; p: the "
            "chi-square test before correction, see Tests).",
        ),
    ]
    seats_adj = {v: adjusted(tests, "seats", v) for v in rs.variants}
    return Sections(
        name="Loba de Menos",
        tests=tests,
        findings={v: words.variant_findings(km, v, sa, sg, tests) for v in rs.variants},
        figures=figures,
        tables=[
            section("Seat advantage", seat_table(sa, seats_adj, "seat (first round order)")),
            section("By policy", _policy_table(M.policy_table(g, s))),
        ],
        methods=METHODS,
    )


def rebuy_experiment(rs: RunSet, rebuy_games: int, rebuy_reps: int, progress) -> dict:
    """The state-level rebuy experiment on the first variant's rules and seats: the report's
    section (:class:`analysis.bygame.ReportExperiment`)."""
    from .rebuy import rebuy_value_state, tabulate_state_value

    m = rs.manifest(rs.variants[0])
    dec = rebuy_value_state(
        m["rules_id"],
        m["seats"],
        games=rebuy_games,
        seed=int(m["seed"]),
        reps=rebuy_reps,
        progress=progress,
    )
    return {
        "title": f"Is a rebuy worth it? ({m['rules_id']})",
        "intro": f"At each of the {fmt.number(dec.height)} rebuy decisions of"
        f" {fmt.number(rebuy_games)} games the game was\nforked and played to the end {rebuy_reps}"
        " times each way (rebuy / decline), on the same cards\nin both branches.",
        "sentences": words.rebuy_state_sentences(tabulate_state_value(dec, by=["players_left"]))
        if dec.height
        else [],
        "empty": "No rebuy decision came up in these games, so there is nothing to value "
        "(under these rules or seats no player could rebuy).",
        "figure": figure(
            plots.rebuy_heatmap(tabulate_state_value(dec)),
            "Value of rebuying in stakes (net of its price), with 95% interval and number "
            "of decisions; hatched cells have too few decisions to trust.",
        )
        if dec.height
        else None,
    }

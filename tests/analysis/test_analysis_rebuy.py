"""Rebuy value: the paired policy-level comparison on literal tables, the state-level table,
the sentences, and the fork experiment on a few real games."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy import stats as st

from analysis.errors import AnalysisError
from analysis.loba import words
from analysis.loba.rebuy import (
    paired_rebuy_value,
    rebuy_value_policy,
    rebuy_value_state,
    switch_rebuy,
    tabulate_state_value,
)


def _games(winners):
    return pl.DataFrame({"game": list(range(len(winners))), "winner": winners})


def _seats(nets):
    return pl.DataFrame({"game": list(range(len(nets))), "seat": [0] * len(nets), "net": nets})


def test_paired_rebuy_value_by_hand():
    # seat 0 under always: nets 3, -2, -1, 3 and wins games 0, 3; under never: -1, -1, -1, 3
    t = paired_rebuy_value(
        _games([0, 1, 2, 0]),
        _seats([3, -2, -1, 3]),
        _games([1, 1, 2, 0]),
        _seats([-1, -1, -1, 3]),
        0,
    )
    net = t.filter(pl.col("measure") == "net stakes").row(0, named=True)
    win = t.filter(pl.col("measure") == "win probability").row(0, named=True)
    # differences 4, -1, 0, 0: mean 0.75, sd sqrt(14.75 / 3)
    h = st.t.ppf(0.975, 3) * math.sqrt(14.75 / 3) / 2
    assert net["difference"] == pytest.approx(0.75)
    assert (net["paired_low"], net["paired_high"]) == pytest.approx((0.75 - h, 0.75 + h))
    assert (net["always"], net["never"]) == pytest.approx((0.75, 0.0))
    assert net["games_that_differ"] == 2
    assert win["difference"] == pytest.approx(0.25)
    assert (win["always"], win["never"]) == pytest.approx((0.5, 0.25))
    ci = st.ttest_ind([3, -2, -1, 3], [-1, -1, -1, 3], equal_var=False).confidence_interval()
    assert (net["unpaired_low"], net["unpaired_high"]) == pytest.approx((ci.low, ci.high))


def test_switch_rebuy_replaces_the_rule():
    assert switch_rebuy("greedy", "never") == "greedy+rebuy=never"
    assert switch_rebuy("hold:patience=2+rebuy=if_opponents:k=2", "always") == (
        "hold:patience=2+rebuy=always"
    )


DECISIONS = pl.DataFrame(
    {
        "players_left": [3, 3, 3, 4, 4],
        "rebuys_used": [0, 0, 1, 0, 0],
        "gap": [0, 9, 30, 10, 60],
        "value": [1.0, 2.0, -1.0, 0.5, -0.5],
        "win_gain": [0.2, 0.4, 0.0, 0.1, 0.1],
    }
)


def test_tabulate_state_value_by_hand():
    t = tabulate_state_value(DECISIONS, by=["players_left"], min_cases=3)
    three = t.filter(pl.col("players_left") == 3).row(0, named=True)
    assert three["cases"] == 3 and three["value"] == pytest.approx(2 / 3)
    sd = st.tstd([1.0, 2.0, -1.0])
    h = st.t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert (three["ci_low"], three["ci_high"]) == pytest.approx((2 / 3 - h, 2 / 3 + h))
    assert three["thin"] is False and three["verdict"] == "no clear difference"
    four = t.filter(pl.col("players_left") == 4).row(0, named=True)
    assert four["thin"] is True and four["verdict"] == "too few cases"


def test_tabulate_gap_bands_sorted():
    t = tabulate_state_value(DECISIONS, by=["gap_band"], min_cases=1)
    assert t["gap_band"].to_list() == ["0-9", "10-24", "25-49", "50+"]
    assert t["cases"].to_list() == [2, 1, 1, 1]
    with pytest.raises(AnalysisError, match="Cannot group"):
        tabulate_state_value(DECISIONS, by=["colour"])


def test_state_sentence_reads_like_the_issue():
    row = pl.DataFrame(
        {
            "players_left": [3],
            "cases": [400],
            "value": [0.41],
            "ci_low": [0.35],
            "ci_high": [0.47],
            "win_gain": [0.12],
            "win_low": [0.1],
            "win_high": [0.14],
            "thin": [False],
            "verdict": ["rebuy"],
        }
    )
    (s,) = words.rebuy_state_sentences(row)
    assert s.startswith("With 3 players left a rebuy returns +0.41 stakes on average")
    assert "95% CI +0.35…+0.47" in s and s.endswith("buy back.")
    thin = row.with_columns(pl.lit(True).alias("thin"), pl.lit(5).alias("cases"))
    assert "too few to trust" in words.rebuy_state_sentences(thin)[0]


def test_state_level_forks_on_real_games_are_reproducible_and_consistent():
    d1 = rebuy_value_state("pagat", "greedy,greedy,greedy,greedy", games=6, seed=3, reps=2)
    d2 = rebuy_value_state("pagat", "greedy,greedy,greedy,greedy", games=6, seed=3, reps=2)
    assert d1.height > 0
    assert d1.equals(d2)
    # [A31] default: a rebuy needs two players not over, so the decider + 2 others at least
    assert d1["players_left"].min() >= 3
    assert (d1["gap"] >= 0).all() and (d1["rebuys_used"] < 2).all()
    assert (d1["value"] == d1["net_rebuy"] - d1["net_decline"]).all()
    assert d1["win_rebuy"].is_between(0, 1).all() and d1["win_decline"].is_between(0, 1).all()
    # declining ends the game for that seat: it can never win that branch
    assert (d1["win_decline"] == 0).all()
    assert (d1["new_score"] - d1["leader_score"] == d1["gap"]).all()


def test_no_rebuys_means_no_decisions():
    d = rebuy_value_state("pagat(max_rebuys=0)", "greedy,greedy,greedy", games=3, seed=1, reps=1)
    assert d.height == 0
    assert tabulate_state_value(d).height == 0


def test_policy_level_pairing_narrows_the_interval():
    r = rebuy_value_policy("pagat", "greedy,greedy,greedy", games=600, seed=2, seat=1)
    assert r.seats_always[1] == "greedy+rebuy=always" and r.seats_never[1] == "greedy+rebuy=never"
    for row in r.table.iter_rows(named=True):
        assert row["paired_width"] < row["unpaired_width"]
    lines = words.rebuy_policy_sentences(r.table, 1, r.rules_id)
    assert "narrower" in lines[-1]

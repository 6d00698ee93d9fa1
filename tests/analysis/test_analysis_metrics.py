"""Metrics against hand-computed values on small literal tables (3 games, 3 players).

The tables (see ``GAMES`` / ``SEATS``):
  game 0: seat 0 (greedy) wins in round 4; seat 1 out in round 2, seat 2 in round 4; seat 0
          rebought once; first dealer 2; one one-turn bonus.
  game 1: seat 2 wins in round 6; seat 0 out in round 3, seat 1 (rebought once) in round 6;
          seat 2 rebought once; one void round and one stock rebuild; first dealer 0.
  game 2: unfinished after 3 rounds (nobody out, pot returned); first dealer 1.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy import stats as st

from analysis.comparison import compare
from analysis.estimate import EXACT, estimate, sums_from_arrays
from analysis.loba import metrics as M
from analysis.stats import newcombe_diff, t_ci, welch_diff

GAMES = pl.DataFrame(
    {
        "game": [0, 1, 2],
        "seed": [5, 5, 5],
        "rules_id": ["pagat"] * 3,
        "n_players": [3, 3, 3],
        "winner": [0, 2, None],
        "rounds": [4, 6, 3],
        "turns": [40, 60, 30],
        "void_rounds": [0, 1, 0],
        "pot": [4, 5, 3],
        "reshuffles": [0, 1, 0],
        "one_turn_bonuses": [1, 0, 0],
        "first_dealer": [2, 0, 1],
        "decisions": [100, 150, 80],
    }
)
SEATS = pl.DataFrame(
    {
        "game": [0, 0, 0, 1, 1, 1, 2, 2, 2],
        "seat": [0, 1, 2] * 3,
        "policy": ["greedy", "random", "random"] * 3,
        "final_score": [50, 120, 130, 110, 140, 60, 40, 50, 60],
        "rebuys": [1, 0, 0, 0, 1, 1, 0, 0, 0],
        "eliminated_round": [None, 2, 4, 3, 6, None, None, None, None],
        "place": [1, 3, 2, 3, 2, 1, 1, 1, 1],
        "paid": [2, 1, 1, 1, 2, 2, 1, 1, 1],
        "won": [4, 0, 0, 0, 0, 5, 1, 1, 1],
        "net": [2, -1, -1, -1, -2, 3, 0, 0, 0],
    }
)


def _by(df, key, value):
    return df.filter(pl.col(key) == value).row(0, named=True)


def test_elimination_hazard_counts_players_still_in_at_each_round():
    hz = M.elimination_hazard(GAMES.lazy(), SEATS.lazy())
    # last round in: 4,2,4 | 3,6,6 | 3,3,3
    assert hz["round"].to_list() == [1, 2, 3, 4, 5, 6]
    assert hz["at_risk"].to_list() == [9, 9, 8, 4, 2, 2]
    assert hz["eliminated"].to_list() == [0, 1, 1, 1, 0, 1]
    assert hz["hazard"].to_list() == pytest.approx([0, 1 / 9, 1 / 8, 1 / 4, 0, 1 / 2])
    # round 4, by game: game 0 has 2 players at risk and 1 out, game 1 has 2 and none; the
    # interval is that of these per-game totals (few events: the exact one), not of 4 players
    r4 = _by(hz, "round", 4)
    e = estimate(sums_from_arrays([1, 0], [2, 2]), "share", True)
    assert (r4["ci_low"], r4["ci_high"]) == pytest.approx((e["ci_low"], e["ci_high"]))
    assert e["method"] == EXACT and r4["ci_low"] < 1 / 4 < r4["ci_high"]


def test_survival_curve_and_games_running():
    sv = M.survival(GAMES, SEATS)
    assert sv["round"].to_list() == list(range(7))
    assert sv["still_in"].to_list() == [9, 9, 8, 7, 6, 6, 5]
    assert sv["share"][6] == pytest.approx(5 / 9)
    assert sv["games_running"].to_list() == pytest.approx([1, 1, 1, 2 / 3, 1 / 3, 1 / 3, 0])


def test_first_elimination_distribution_and_mean():
    fe = M.first_elimination(GAMES, SEATS)
    assert fe["round"].to_list() == [2, 3]
    assert fe["games"].to_list() == [1, 1]
    assert fe["cum_share"].to_list() == pytest.approx([0.5, 1.0])
    s = M.first_elimination_summary(GAMES, SEATS).row(0, named=True)
    assert (s["mean"], s["n"], s["games_without"], s["median"]) == (2.5, 2, 1, 2.5)
    h = st.t.ppf(0.975, 1) * math.sqrt(0.5) / math.sqrt(2)  # sd of {2, 3} = sqrt(1/2)
    assert (s["ci_low"], s["ci_high"]) == pytest.approx((2.5 - h, 2.5 + h))


def test_seat_table_win_and_elimination_rates():
    t = M.seat_table(GAMES, SEATS)
    s0 = _by(t, "seat", 0)
    assert (s0["games"], s0["finished"], s0["wins"], s0["eliminated"]) == (3, 2, 1, 1)
    assert s0["win_rate"] == 0.5 and s0["elim_rate"] == pytest.approx(1 / 3)
    assert s0["elim_round"] == 3.0
    assert s0["rebuys"] == pytest.approx(1 / 3) and s0["net"] == pytest.approx(1 / 3)
    p = _by(M.policy_table(GAMES, SEATS), "policy", "random")
    assert (p["games"], p["wins"], p["eliminated"]) == (6, 1, 3)
    assert p["elim_round"] == pytest.approx((2 + 4 + 6) / 3)


def test_rebuy_outcomes_split_busts_into_rebuys_and_eliminations():
    r = M.rebuy_outcomes(GAMES, SEATS)
    a = _by(r, "policy", "all")
    assert (a["busts"], a["rebought"], a["out_for_good"]) == (7, 3, 4)
    assert a["share_rebought"] == pytest.approx(3 / 7)
    g = _by(r, "policy", "greedy")
    assert (g["busts"], g["rebought"], g["out_for_good"]) == (2, 1, 1)


def test_game_shape_means_and_shares():
    gs = M.game_shape(GAMES, SEATS)
    v = {r["metric"]: r for r in gs.iter_rows(named=True)}
    assert v[M.M_ROUNDS]["value"] == pytest.approx(13 / 3)
    lo, hi = t_ci(13 / 3, float(np_std([4, 6, 3])), 3)
    assert (v[M.M_ROUNDS]["ci_low"], v[M.M_ROUNDS]["ci_high"]) == pytest.approx((lo, hi))
    assert v[M.M_TURNS]["value"] == pytest.approx(130 / 3)
    assert v[M.M_TURNS_PER_ROUND]["value"] == pytest.approx(10.0)
    assert (v[M.M_VOID_SHARE]["k"], v[M.M_VOID_SHARE]["units"]) == (1, 13)
    assert (v[M.M_BONUS]["k"], v[M.M_BONUS]["units"]) == (1, 12)  # played rounds only
    assert v[M.M_VOID_SHARE]["n"] == 3  # the games: the independent unit
    assert v[M.M_RESHUFFLES]["value"] == pytest.approx(1 / 3)
    # one rebuild in one game of three: few events, the exact interval (never zero-width)
    assert v[M.M_RESHUFFLES]["method"] == EXACT
    assert 0 < v[M.M_RESHUFFLES]["ci_low"] < 1 / 3 < v[M.M_RESHUFFLES]["ci_high"]
    assert v[M.M_POT]["value"] == pytest.approx(4.0)
    assert v[M.M_UNFINISHED]["value"] == pytest.approx(1 / 3)
    assert v[M.M_REBUYS]["value"] == pytest.approx(1.0)  # 1, 2, 0 per game


def np_std(x):
    import numpy as np

    return np.std(np.asarray(x, dtype=float), ddof=1)


def test_seat_advantage_relative_to_first_dealer_with_chi_square():
    sa = M.seat_advantage(GAMES)
    # game 0: winner 0, first dealer 2 -> position 0 (dealer's left); game 1: 2 - 0 - 1 = 1
    assert sa["position"].to_list() == [0, 1, 2]
    assert sa["wins"].to_list() == [1, 1, 0]
    assert sa["games"][0] == 2
    assert sa["label"][0] == "1st to play (dealer's left)"
    assert sa["chi2"][0] == pytest.approx(1.0)  # (1/9 + 1/9 + 4/9) / (2/3)
    assert sa["p_value"][0] == pytest.approx(math.exp(-0.5))  # chi2(2 df) survival at 1


def test_skill_gap_share_of_games_against_fair_share():
    sg = M.skill_gap(GAMES, SEATS)
    g = _by(sg, "policy", "greedy")
    r = _by(sg, "policy", "random")
    assert (g["wins"], g["finished"], g["seats_per_game"]) == (1, 2, 1.0)
    assert g["fair_share"] == pytest.approx(1 / 3) and g["edge"] == pytest.approx(0.5 - 1 / 3)
    assert r["seats_per_game"] == 2.0 and r["fair_share"] == pytest.approx(2 / 3)
    assert g["p_value"] == pytest.approx(st.binomtest(1, 2, 1 / 3).pvalue)


def test_key_metrics_hazard_and_dealer_left():
    km = M.key_metrics(GAMES, SEATS)
    v = {r["metric"]: r for r in km.iter_rows(named=True)}
    assert (v[M.M_HAZARD]["k"], v[M.M_HAZARD]["units"]) == (4, 34)
    assert v[M.M_DEALER_LEFT]["value"] == 0.5 and v[M.M_DEALER_LEFT]["reference"] == 1 / 3
    assert v[M.M_SEAT_P]["kind"] == "test"
    assert v[M.M_FIRST_ELIM]["value"] == 2.5
    assert v["games won by greedy"]["value"] == 0.5


def test_variants_are_kept_apart():
    a = GAMES.with_columns(pl.lit("A").alias("variant"))
    b = GAMES.with_columns(pl.lit("B").alias("variant"), pl.col("rounds") * 2)
    sa = SEATS.with_columns(pl.lit("A").alias("variant"))
    sb = SEATS.with_columns(pl.lit("B").alias("variant"))
    gs = M.game_shape(pl.concat([a, b]), pl.concat([sa, sb]))
    r = gs.filter(pl.col("metric") == M.M_ROUNDS)
    assert r["variant"].to_list() == ["A", "B"]
    assert r["value"].to_list() == pytest.approx([13 / 3, 26 / 3])


def test_welch_and_newcombe_intervals_match_references():
    x = [4.0, 6.0, 3.0, 5.0, 7.0]
    y = [8.0, 9.0, 12.0, 10.0]
    d, lo, hi = welch_diff(sum(x) / 5, np_std(x), 5, sum(y) / 4, np_std(y), 4)
    ci = st.ttest_ind(x, y, equal_var=False).confidence_interval()
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    # Newcombe (1998), Stat Med 17:873, example 56/70 vs 48/80, method 10: 0.0524 to 0.3339
    d, lo, hi = newcombe_diff(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_compare_marks_differences_and_noise():
    a = GAMES.with_columns(pl.lit("A").alias("variant"))
    b = GAMES.with_columns(pl.lit("B").alias("variant"), pl.col("rounds") + 100)
    sa = SEATS.with_columns(pl.lit("A").alias("variant"))
    sb = SEATS.with_columns(pl.lit("B").alias("variant"))
    c = compare(pl.concat([a, b]), pl.concat([sa, sb]))
    rounds = c.filter((pl.col("variant") == "B") & (pl.col("metric") == M.M_ROUNDS)).row(
        0, named=True
    )
    assert rounds["diff"] == pytest.approx(100.0) and rounds["verdict"] == "higher"
    pot = c.filter((pl.col("variant") == "B") & (pl.col("metric") == M.M_POT)).row(0, named=True)
    assert pot["diff"] == 0 and pot["verdict"] == "the same in every game"
    assert pot["diff_low"] is None  # no zero-width interval: the games agree exactly
    base = c.filter(pl.col("variant") == "A")
    assert set(base["verdict"].to_list()) == {""}


def test_compare_pairs_the_same_seeds_game_by_game():
    # the same three games (seed 5, games 0-2); B plays game 1 two rounds longer
    a = GAMES.with_columns(pl.lit("A").alias("variant"))
    b = GAMES.with_columns(
        pl.lit("B").alias("variant"),
        pl.when(pl.col("game") == 1).then(pl.col("rounds") + 2).otherwise(pl.col("rounds")),
    )
    sa = SEATS.with_columns(pl.lit("A").alias("variant"))
    sb = SEATS.with_columns(pl.lit("B").alias("variant"))
    c = compare(pl.concat([a, b]), pl.concat([sa, sb]))
    r = c.filter((pl.col("variant") == "B") & (pl.col("metric") == M.M_ROUNDS)).row(0, named=True)
    assert r["paired"] and r["method"].startswith("paired")
    ref = st.ttest_rel(b["rounds"].to_list(), a["rounds"].to_list())
    assert r["diff"] == pytest.approx(2 / 3)
    assert (r["diff_low"], r["diff_high"]) == pytest.approx(tuple(ref.confidence_interval()))
    assert r["p_value"] == pytest.approx(ref.pvalue)
    # unpaired: each variant's own t interval, combined (MOVER)
    ha = st.t.ppf(0.975, 2) * np_std(a["rounds"].to_list()) / math.sqrt(3)
    hb = st.t.ppf(0.975, 2) * np_std(b["rounds"].to_list()) / math.sqrt(3)
    h = math.hypot(ha, hb)
    assert (r["unpaired_low"], r["unpaired_high"]) == pytest.approx((2 / 3 - h, 2 / 3 + h))
    assert r["diff_high"] - r["diff_low"] < r["unpaired_high"] - r["unpaired_low"]
    # a ratio of sums (void rounds over rounds) is paired through the delta method
    v = c.filter((pl.col("variant") == "B") & (pl.col("metric") == M.M_VOID_SHARE)).row(
        0, named=True
    )
    assert v["paired"] and v["diff"] == pytest.approx(1 / 15 - 1 / 13)


def test_compare_does_not_pair_different_seeds():
    a = GAMES.with_columns(pl.lit("A").alias("variant"))
    b = GAMES.with_columns(pl.lit("B").alias("variant"), pl.col("seed") + 1)
    sa = SEATS.with_columns(pl.lit("A").alias("variant"))
    sb = SEATS.with_columns(pl.lit("B").alias("variant"))
    c = compare(pl.concat([a, b]), pl.concat([sa, sb])).filter(pl.col("variant") == "B")
    d = c.filter(pl.col("diff").is_not_null())
    assert d.height > 0 and not d["paired"].any()
    assert d["diff_low"].to_list() == d["unpaired_low"].to_list()


def test_paired_ratio_diff_is_the_paired_t_for_a_mean():
    from analysis.stats import paired_ratio_diff

    a = [3.0, 5.0, 4.0, 8.0, 6.0]
    b = [2.0, 5.5, 3.0, 7.0, 4.0]
    d, lo, hi, p = paired_ratio_diff(a, [1] * 5, b, [1] * 5)
    ref = st.ttest_rel(a, b)
    assert d == pytest.approx(0.9) and p == pytest.approx(ref.pvalue)
    assert (lo, hi) == pytest.approx(tuple(ref.confidence_interval()))


def test_report_family_corrects_a_lone_p_of_0_037():
    from analysis.family import NOT_AFTER, family_of_tests
    from analysis.loba import words

    sa = pl.DataFrame(
        {
            "variant": ["v"] * 3,
            "n_players": [3] * 3,
            "position": [0, 1, 2],
            "label": ["1st to play (dealer's left)", "2nd to play", "3rd to play"],
            "wins": [380, 320, 300],
            "games": [1000] * 3,
            "share": [0.38, 0.32, 0.30],
            "ci_low": [0.35, 0.29, 0.27],
            "ci_high": [0.41, 0.35, 0.33],
            "expected": [1 / 3] * 3,
            "chi2": [6.6] * 3,
            "p_value": [0.037] * 3,
        }
    )
    cmp = pl.DataFrame(
        {
            "metric": [M.M_ROUNDS, M.M_TURNS, M.M_BONUS],
            "variant": ["w"] * 3,
            "verdict": ["no detectable difference"] * 3,
            "paired": [True] * 3,
            "p_value": [0.4, 0.6, 0.9],
        }
    )
    tests = family_of_tests(sa, None, cmp)
    assert tests.height == 4
    seat = tests.filter(pl.col("test") == "seats").row(0, named=True)
    assert seat["p_adjusted"] == pytest.approx(0.037 * 4)  # BH: the smallest of 4, times 4
    assert seat["finding"] == NOT_AFTER
    uncorrected = words.seat_sentences(sa)[1]
    assert uncorrected.startswith("Seats are not equal (chi-square test p = 0.037)")
    corrected = words.seat_sentences(sa, seat["p_adjusted"], tests.height)[1]
    assert "does not survive correction" in corrected and "0.148" in corrected
    assert "no detectable seat advantage after correction" in corrected
    assert "Seats are not equal" not in corrected


def test_one_formatter():
    from sim import fmt

    assert fmt.share(0.005) == "0.50%" and fmt.share(1.87e-05) == "0.00187%"
    assert fmt.pvalue(0.0) == "< 1e-300" and fmt.pvalue(0.037) == "0.037"
    assert fmt.pvalue(3.2e-05) == "3.2e-05" and fmt.pvalue(1.0) == "1"
    assert fmt.number(10.377) == "10.38" and fmt.number(12345.6) == "12,346"
    assert fmt.number(999.96) == "1,000" and fmt.number(20000) == "20,000"
    assert fmt.diff(0.0123, "share") == "+1.23 pts" and fmt.diff(-3.2) == "-3.2"
    assert fmt.value(None) == fmt.value(math.nan, "share") == "n/a"
    assert fmt.interval(0.0, 0.0) == "n/a"  # every game agreed: no interval to estimate
    # both ends to the same decimals, two significant digits of the width: never collapsed
    # into one number ("10.2…10.2"), never of mixed precision ("-0.000226…+0.04 pts")
    assert fmt.interval(0.1, 0.2, "share") == "[10%, 20%]"
    assert fmt.interval(0.0764, 0.0777, "share") == "[7.64%, 7.77%]"
    assert fmt.interval(2.55, 2.818, signed=True) == "[+2.55, +2.82]"
    assert fmt.interval(2.5, 3, signed=True) == "[+2.50, +3.00]"
    assert fmt.interval(10.21, 10.24) == "[10.210, 10.240]"
    assert fmt.interval(-0.00000226, 0.0004, "share", signed=True) == "[-0.000 pts, +0.040 pts]"
    assert fmt.interval(1e-5, 2e-5) == "[0.000010, 0.000020]"

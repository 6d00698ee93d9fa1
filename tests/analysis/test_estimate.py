"""The one variance model (analysis.estimate): the game is the independent unit.

Each helper is checked against an independent computation (numpy's per-game arithmetic,
scipy's t test, exact binomial intervals), then through the tables that use it: a share over
sub-game units whose units are perfectly correlated within a game gets the per-game interval,
not the binomial one; few events get an exact interval that is never zero-width; a figure fixed
by construction gets none; verdicts follow Holm's correction.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as st

from analysis import estimate as E
from analysis import metrics as SM
from analysis.comparison import compare
from analysis.loba import metrics as M
from analysis.stats import adjust_pvalues


def _sums(y, x):
    return E.sums_from_arrays(y, x)


def test_ratio_se_is_the_delta_method_by_game():
    rng = np.random.default_rng(1)
    x = rng.integers(5, 15, 400).astype(float)
    y = rng.binomial(x.astype(int), 0.3).astype(float)
    r = y.sum() / x.sum()
    z = (y - r * x) / x.mean()  # the linearised per-game contribution, written out
    se = z.std(ddof=1) / math.sqrt(len(y))
    assert E.ratio_se(_sums(y, x)) == pytest.approx(se, rel=1e-9)


def test_a_mean_per_game_is_the_t_interval():
    y = np.array([3.0, 5.0, 4.0, 8.0, 6.0, 7.0, 2.0, 9.0, 5.0, 6.0, 4.0, 7.0])
    e = E.estimate(_sums(y, np.ones_like(y)))
    ci = st.ttest_1samp(y, 0).confidence_interval()
    assert (e["ci_low"], e["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert e["method"] == E.NORMAL


def test_units_of_one_game_are_one_cluster():
    # 400 games of 4 players; in each game either all 4 or none are "hit": the share of
    # player-rounds hit is 1/2, but the information is that of 400 games, not 1,600 units
    rng = np.random.default_rng(7)
    hit = rng.integers(0, 2, 400).astype(float)
    e = E.estimate(_sums(4 * hit, np.full(400, 4.0)), "share", True)
    p = hit.mean()
    per_game = math.sqrt(p * (1 - p) / 400)
    assert e["se"] == pytest.approx(per_game * math.sqrt(400 / 399), rel=1e-9)
    binomial = math.sqrt(p * (1 - p) / 1600)
    assert e["se"] == pytest.approx(2 * binomial, rel=0.01)


def test_few_events_get_an_exact_interval_never_zero_width():
    n = 4000
    none = E.estimate(_sums(np.zeros(n), np.ones(n)), "share", True)
    assert none["method"] == E.EXACT and none["ci_low"] == 0.0
    assert none["ci_high"] == pytest.approx(st.binomtest(0, n).proportion_ci(method="exact").high)
    y = np.zeros(n)
    y[[3, 99]] = [2, 1]  # 2 games, 3 events (a stock rebuild can come twice in a game)
    few = E.estimate(_sums(y, np.ones(n)), "mean", True)
    assert few["method"] == E.EXACT and few["ci_high"] > few["ci_low"] > 0
    ci = st.binomtest(2, n).proportion_ci(method="exact")  # 2 of 4000 games, 1.5 each
    assert few["ci_high"] == pytest.approx(max(1.5 * ci.high, st.chi2.ppf(0.975, 8) / 2 / n))
    # a share near 1: the exact interval of the games that fell short
    full = E.estimate(_sums(np.ones(n), np.ones(n)), "share", True)
    assert full["ci_high"] == 1.0 and full["ci_low"] < 1.0


def test_fixed_by_construction_has_no_interval():
    # one policy at every seat: its win share is 1/players and its net 0 in every game
    games = pl.DataFrame(
        {"game": [0, 1, 2, 3], "n_players": [4] * 4, "winner": [0, 3, 1, 2], "rounds": [5] * 4}
    )
    seats = pl.DataFrame(
        {
            "game": [g for g in range(4) for _ in range(4)],
            "seat": [0, 1, 2, 3] * 4,
            "policy": ["greedy"] * 16,
            "rebuys": [0, 1, 0, 2] * 4,
            "eliminated_round": [None, 3, 4, 5] * 4,
            "net": [3, -1, -1, -1, -1, -1, -1, 3, -1, 3, -1, -1, -1, -1, 3, -1],
        }
    )
    t = M.policy_table(games, seats).row(0, named=True)
    assert t["win_rate"] == 0.25 and t["win_low"] is None and t["win_high"] is None
    assert t["net"] == 0 and t["net_ci_low"] is None and t["net_ci_high"] is None


def test_holm_adjustment_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 -> max(0.06, 0.04)
    assert adjust_pvalues(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(adjust_pvalues([None, 0.5])[0])


def test_verdicts_follow_the_corrected_p():
    assert E.verdict(0.3, 0.2) == "no detectable difference"
    assert E.verdict(-0.3, 0.01) == "lower"
    assert E.verdict(0.0, None, E.TOO_FEW) == E.TOO_FEW


def _literal(n, rounds, voids):
    return pl.DataFrame(
        {
            "game": list(range(n)),
            "seed": [1] * n,
            "n_players": [3] * n,
            "winner": [0] * n,
            "rounds": rounds,
            "turns": [r * 10 for r in rounds],
            "void_rounds": voids,
            "pot": [3] * n,
            "reshuffles": [0] * n,
            "one_turn_bonuses": [0] * n,
            "first_dealer": [g % 3 for g in range(n)],
        }
    )


def _seats(n, rebuys=None):
    return pl.DataFrame(
        {
            "game": [g for g in range(n) for _ in range(3)],
            "seat": [0, 1, 2] * n,
            "policy": ["greedy"] * (3 * n),
            "rebuys": [0] * (3 * n) if rebuys is None else rebuys,
            "eliminated_round": [None, 2, 3] * n,
            "net": [2, -1, -1] * n,
        }
    )


def test_compare_says_too_few_events_and_writes_no_p():
    n = 200
    rng = np.random.default_rng(3)
    rounds = rng.integers(3, 9, n).tolist()
    a = _literal(n, rounds, [0] * n).with_columns(pl.lit("A").alias("variant"))
    b = _literal(n, rounds, [1] + [0] * (n - 1)).with_columns(
        pl.lit("B").alias("variant"), pl.col("seed") + 1  # independent runs
    )
    s = pl.concat([_seats(n).with_columns(pl.lit(v).alias("variant")) for v in "AB"])
    c = compare(pl.concat([a, b]), s)
    v = c.filter((pl.col("variant") == "B") & (pl.col("metric") == M.M_VOID_SHARE)).row(
        0, named=True
    )
    assert v["verdict"] == E.TOO_FEW and v["p_value"] is None and v["p_adjusted"] is None
    assert v["diff_high"] > v["diff_low"]  # an interval, never zero-width
    base = c.filter((pl.col("variant") == "A") & (pl.col("metric") == M.M_VOID_SHARE))
    assert base["ci_high"][0] > 0 == base["ci_low"][0]


def test_compare_verdict_is_read_from_holm_not_the_raw_p():
    # one metric differs by a hair: raw p < 0.05, but not after correcting for the table
    rng = np.random.default_rng(11)
    n = 300
    ra = rng.integers(5, 15, n)
    rb = ra + rng.choice([0, 0, 0, 1], n)  # same seeds: paired
    a = _literal(n, ra.tolist(), [0] * n).with_columns(pl.lit("A").alias("variant"))
    b = _literal(n, rb.tolist(), [0] * n).with_columns(pl.lit("B").alias("variant"))
    s = pl.concat([_seats(n).with_columns(pl.lit(v).alias("variant")) for v in "AB"])
    c = compare(pl.concat([a, b]), s).filter(pl.col("variant") == "B")
    for r in c.filter(pl.col("p_value").is_not_null()).iter_rows(named=True):
        want = "no detectable difference"
        if r["p_adjusted"] < 0.05:
            want = "higher" if r["diff"] > 0 else "lower"
        assert r["verdict"] == want, r
    adj = adjust_pvalues(c["p_value"].to_list())
    got = c["p_adjusted"].to_list()
    assert [x if x == x else None for x in adj] == pytest.approx(got, nan_ok=True)


def test_json_writes_null_where_there_is_no_interval(tmp_path):
    from analysis.text import render

    km = M.key_metrics(_literal(50, [5] * 50, [0] * 50), _seats(50))
    import json

    rows = json.loads(render(km, "json"))
    unfinished = next(r for r in rows if r["metric"] == M.M_UNFINISHED)
    assert unfinished["ci_low"] == 0.0 and unfinished["ci_high"] > 0
    rounds = next(r for r in rows if r["metric"] == M.M_ROUNDS)  # 5 in every game: fixed
    assert rounds["ci_low"] is None and rounds["ci_high"] is None
    for r in rows:
        if r["ci_low"] is not None:
            assert r["ci_high"] > r["ci_low"], r


def test_bad_answers_per_seat_are_shown_only_where_given():
    games = _literal(40, [5] * 40, [0] * 40)
    seats = _seats(40).with_columns(
        pl.Series("bad_answers", [3 if s == 1 else 0 for s in [0, 1, 2] * 40])
    )
    km = M.key_metrics(games, seats)
    bad = km.filter(pl.col("metric").str.starts_with("bad answers"))
    assert bad["metric"].to_list() == [SM.M_BAD.format(seat=1)]
    assert bad["value"][0] == 3.0


def test_seat_spread_from_simultaneous_intervals():
    counts, labels = [260, 240, 250, 250], ["s0", "s1", "s2", "s3"]
    r = SM.spread_row("v", SM.M_SEAT_SPREAD, counts, labels)
    ci = [E.game_share(c, 1000, 1 - 0.05 / 4) for c in counts]  # Bonferroni over 4 seats
    assert r["value"] == pytest.approx(0.02)
    assert r["ci_high"] == pytest.approx(max(b for _, b in ci) - min(a for a, _ in ci))
    assert r["ci_low"] == max(0.0, max(a for a, _ in ci) - min(b for _, b in ci))
    assert r["method"].startswith("s0 gains most") and "undecided" in r["method"]
    big = SM.spread_row("v", SM.M_SEAT_SPREAD, [40_000, 30_000, 30_000], ["a", "b", "c"])
    assert "beyond" in big["method"] and big["ci_low"] > 0.01
    tight = SM.spread_row("v", SM.M_SEAT_SPREAD, [500_000, 500_000], ["a", "b"])
    assert "within" in tight["method"] and tight["ci_high"] < 0.01


def test_compare_says_when_a_rule_change_never_came_into_play():
    from analysis.words import compare_sentences

    n = 30
    a = _literal(n, [5 + g % 3 for g in range(n)], [0] * n)
    a = a.with_columns(pl.lit("A").alias("variant"))
    b = a.with_columns(pl.lit("B").alias("variant"))  # the same games, game by game
    s = pl.concat([_seats(n).with_columns(pl.lit(v).alias("variant")) for v in "AB"])
    lines = compare_sentences(compare(pl.concat([a, b]), s))
    assert len(lines) == 1 and "never came into play" in lines[0]

"""Moon's metrics (analysis.moon.metrics) against hand-counted values on small literal tables, and
their consistency on one small simulated run.

The literal hands table (2 games, 6 hands, 2 of them redealt):
  game 0: hand 1 redealt; hand 2 seat 0 bids 4 in threes (trump 3), keeps the widow, takes 5 tricks,
          made; hand 3 seat 1 bids 5 in doubles, discards the widow, takes 4, set.
  game 1: hand 1 seat 2 bids 21 at no trump, keeps the widow, takes all 7, made; hand 2
          redealt; hand 3 seat 2 bids 4 in blanks (trump 0), discards the widow, takes 4, made.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy import stats as st

import analysis
import sim
from analysis.estimate import clopper_pearson, estimate, sums_from_arrays
from analysis.moon import metrics as M
from analysis.stats import t_ci

N = None
HANDS = pl.DataFrame(
    {
        "game": [0, 0, 0, 1, 1, 1],
        "hand": [1, 2, 3, 1, 2, 3],
        "opener": [0, 1, 2, 1, 2, 0],
        "redeal": [True, False, False, False, True, False],
        "bidder": [N, 0, 1, 2, N, 2],
        "bid": [N, 4, 5, 21, N, 4],
        "trump": [N, 3, 7, 8, N, 0],
        "widow_kept": [False, True, False, True, False, False],
        "tricks_0": [0, 5, 2, 0, 0, 1],
        "tricks_1": [0, 1, 4, 0, 0, 2],
        "tricks_2": [0, 1, 1, 7, 0, 4],
        "made": [False, True, False, True, False, True],
    },
    schema_overrides={"bidder": pl.Int8, "bid": pl.Int8, "trump": pl.Int8},
)
GAMES = pl.DataFrame(
    {
        "game": [0, 1],
        "seed": [1, 1],
        "n_players": [3, 3],
        "winner": [0, 2],
        "end": ["target", "target"],
        "hands": [3, 3],
        "redeals": [1, 1],
        "first_bidder": [0, 1],
        "moons_tried": [0, 1],
        "moons_made": [0, 1],
    }
)
SEATS = pl.DataFrame(
    {
        "game": [0, 0, 0, 1, 1, 1],
        "seat": [0, 1, 2, 0, 1, 2],
        "policy": ["count"] * 6,
        "bids_won": [1, 1, 0, 0, 0, 2],
        "contracts_made": [1, 0, 0, 0, 0, 2],
    }
)
# first bidder / winner -> position (winner - first bidder) % 3; the last game is unfinished
FB_GAMES = pl.DataFrame(
    {
        "variant": ["a"] * 8 + ["b"] * 2,
        "game": list(range(8)) + [0, 1],
        "winner": [0, 1, 2, 0, 2, 1, 0, N, 1, 1],
        "first_bidder": [0, 0, 0, 1, 1, 1, 2, 0, 1, 1],
    }
)  # a: positions 0, 1, 2, 2, 1, 0, 1 -> wins 2, 3, 2 of 7; b: position 0 twice


def _rows(df, **eq):
    for k, v in eq.items():
        df = df.filter(pl.col(k) == v)
    assert df.height == 1, eq
    return df.row(0, named=True)


def test_bid_success_counts_by_bid_and_trump_kind():
    df = M.bid_success(HANDS)
    assert df["variant"].unique().to_list() == ["run"]
    got = {(r["by"], r["level"]): (r["hands"], r["made"]) for r in df.iter_rows(named=True)}
    assert got == {
        ("bid", "4"): (2, 2),
        ("bid", "5"): (1, 0),
        ("bid", "6"): (0, 0),
        ("bid", "7"): (0, 0),
        ("bid", "21"): (1, 1),
        ("trump", "number"): (2, 2),
        ("trump", "doubles"): (1, 0),
        ("trump", "no trump"): (1, 1),
    }
    r = _rows(df, by="bid", level="5")
    # one bid of 5, in game 0, not made: few events, the exact interval from that one game
    e = estimate(sums_from_arrays([0], [1]), "share", True)
    assert r["share"] == 0
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((e["ci_low"], e["ci_high"]))
    assert r["ci_high"] == pytest.approx(0.975)
    assert math.isnan(_rows(df, by="bid", level="7")["share"])
    sums = df.group_by("by").agg(pl.col("share_of_hands").sum())
    assert sums["share_of_hands"].to_list() == pytest.approx([1.0, 1.0])
    assert _rows(df, by="bid", level="4")["share_of_hands"] == 0.5


def test_moon_rates_from_hands_and_from_games_agree():
    df = M.moon_rates(HANDS, GAMES)
    r = {x["measure"]: (x["k"], x["n"]) for x in df.iter_rows(named=True)}
    assert r == {
        "moon bid": (1, 4),
        "moon made": (1, 1),
        "games with a moon bid": (1, 2),
        "games with a moon made": (1, 2),
        "games ended by a moon": (0, 2),
    }
    assert M.moon_rates(None, GAMES.lazy()).equals(df)
    assert (df["ci_low"] <= df["share"]).all() and (df["share"] <= df["ci_high"]).all()


def test_widow_value_counts_and_t_intervals():
    df = M.widow_value(HANDS.lazy())
    kept, disc = _rows(df, widow="kept"), _rows(df, widow="discarded")
    assert (kept["hands"], disc["hands"]) == (2, 2)
    assert kept["share"] + disc["share"] == 1
    assert kept["tricks"] == 6 and kept["sd"] == pytest.approx(math.sqrt(2))
    assert (kept["ci_low"], kept["ci_high"]) == pytest.approx(t_ci(6, math.sqrt(2), 2))
    # 4 tricks in both games: every game agrees, so no interval (never a zero-width one)
    assert disc["tricks"] == 4 and disc["sd"] == 0 and (disc["ci_low"], disc["ci_high"]) == (N, N)
    assert (kept["made"], disc["made"]) == (1.0, 0.5)
    assert "not causal" in M.widow_value.__doc__


def test_first_bidder_advantage_by_position_and_variant():
    df = M.first_bidder_advantage(FB_GAMES)
    a = df.filter(pl.col("variant") == "a")
    assert a["wins"].to_list() == [2, 3, 2] and a["games"].to_list() == [7, 7, 7]
    assert a["label"][0] == "first bidder" and a["expected"][0] == pytest.approx(1 / 3)
    assert a["share"].sum() == pytest.approx(1.0)
    assert a["p_value"][0] == pytest.approx(st.chisquare([2, 3, 2]).pvalue)
    assert (a["ci_low"][1], a["ci_high"][1]) == pytest.approx(clopper_pearson(3, 7))  # few
    b = df.filter(pl.col("variant") == "b")
    assert b["wins"].to_list() == [2, 0, 0] and df["variant"].unique(maintain_order=True).to_list()


def test_hands_per_game_and_all_pass_rate():
    g = pl.DataFrame({"hands": [3, 5, 10], "redeals": [1, 1, 4]})
    df = M.hands_per_game(g)
    a, p = _rows(df, count="all"), _rows(df, count="played")
    assert (a["games"], a["mean"], a["median"], a["max"]) == (3, 6, 5, 10)
    assert (a["ci_low"], a["ci_high"]) == pytest.approx(t_ci(6, math.sqrt(13), 3))
    assert (p["mean"], p["max"]) == (4, 6)
    r = M.all_pass_rate(HANDS).row(0, named=True)
    assert (r["hands"], r["redeals"], r["share"]) == (6, 2, 2 / 6)
    # one redeal in three hands in both games: every game agrees, no interval
    assert (r["ci_low"], r["ci_high"]) == (None, None)
    two = M.all_pass_rate(HANDS.filter(pl.col("game") == 0)).row(0, named=True)
    e = estimate(sums_from_arrays([1], [3]), "share", True)  # one game: 1 redeal of 3 hands
    assert (two["ci_low"], two["ci_high"]) == pytest.approx((e["ci_low"], e["ci_high"]))
    assert two["ci_high"] == pytest.approx(clopper_pearson(1, 3)[1])


def test_moon_metrics_long_format_with_and_without_hands():
    full = M.moon_metrics(GAMES, SEATS, HANDS)
    short = M.moon_metrics(GAMES.lazy(), SEATS.lazy())
    from analysis.metrics import LONG_SCHEMA

    assert full.columns == short.columns == list(LONG_SCHEMA)
    f = {r["metric"]: r for r in full.iter_rows(named=True)}
    s = {r["metric"]: r for r in short.iter_rows(named=True)}
    assert set(s) < set(f)
    assert {"bid 4 made (share)", M.M_WIDOW_KEPT} <= set(f) - set(s)
    assert "bid 7 made (share)" not in f  # never bid: no row
    assert f[M.M_MADE]["k"] == 3 and f[M.M_MADE]["units"] == 4
    assert f[M.M_HANDS]["value"] == 3 and f[M.M_REDEALS]["value"] == pytest.approx(1 / 3)
    assert f[M.M_FIRST_BIDDER]["k"] == 1 and f[M.M_FIRST_BIDDER]["reference"] == 1 / 3
    wins = [f[M.M_SEAT_SHARE.format(seat=q)]["k"] for q in range(3)]
    assert wins == [1, 0, 1]
    assert f[M.M_POSITION_P]["kind"] == "test" and f[M.M_POSITION_P]["ci_low"] is None


@pytest.fixture(scope="module")
def moon_run():
    return sim.simulate("moon:gamerules", None, games=300, seed=7, record_rounds=True)


def test_simulated_run_is_consistent(moon_run):
    g, s, h = moon_run.games, moon_run.seats, moon_run.hands
    played = int((g["hands"] - g["redeals"]).sum())
    bs = M.bid_success(h.lazy())
    for by in ("bid", "trump"):
        part = bs.filter(pl.col("by") == by)
        assert part["hands"].sum() == played
        assert part["share_of_hands"].sum() == pytest.approx(1.0)
    seen = bs.filter(pl.col("hands") > 0)
    assert ((seen["ci_low"] <= seen["share"]) & (seen["share"] <= seen["ci_high"])).all()
    assert M.moon_rates(h, g).equals(M.moon_rates(None, g))
    wv = M.widow_value(h)
    assert wv["share"].sum() == pytest.approx(1.0) and wv["hands"].sum() == played
    assert ((wv["ci_low"] <= wv["tricks"]) & (wv["tricks"] <= wv["ci_high"])).all()
    assert wv["tricks"].max() <= 7
    fb = M.first_bidder_advantage(g)
    assert fb["wins"].sum() == g["winner"].is_not_null().sum()
    assert fb["share"].sum() == pytest.approx(1.0)
    assert M.all_pass_rate(h)["redeals"][0] == g["redeals"].sum()
    assert M.hands_per_game(g).filter(pl.col("count") == "all")["mean"][0] == pytest.approx(
        g["hands"].mean()
    )
    km = M.moon_metrics(g, s, h)
    made_from_hands = h.filter(~pl.col("redeal"))["made"].mean()
    assert km.filter(pl.col("metric") == M.M_MADE)["value"][0] == pytest.approx(made_from_hands)
    vals = km.filter(pl.col("kind") != "test")
    finite = vals.filter(pl.col("ci_low").is_not_nan() & pl.col("ci_high").is_not_nan())
    eps = 1e-12
    inside = (finite["ci_low"] <= finite["value"] + eps) & (
        finite["value"] <= finite["ci_high"] + eps
    )
    assert inside.all()
    seats = km.filter(pl.col("metric").str.starts_with("win share, seat"))
    assert seats["value"].sum() == pytest.approx(1.0)
    tests = km.filter(pl.col("kind") == "test")["value"]
    assert ((tests >= 0) & (tests <= 1)).all()


def test_summarize_uses_moon_metrics_with_or_without_hands(moon_run, tmp_path):
    moon_run.write(tmp_path / "with")
    sim.simulate("moon:gamerules", None, games=50, seed=8).write(tmp_path / "without")
    full = analysis.summarize([tmp_path / "with"])
    assert M.M_WIDOW_KEPT in full["metric"].to_list()
    assert M.M_FIRST_BIDDER in full["metric"].to_list()
    both = analysis.summarize([tmp_path / "with", tmp_path / "without"], labels=["a", "b"])
    assert M.M_WIDOW_KEPT not in both["metric"].to_list()  # not every run has the hands table
    assert both["variant"].unique(maintain_order=True).to_list() == ["a", "b"]


def test_force_last_has_no_redeals():
    rules = "moon:gamerules(all_pass=force_last)"
    r = sim.simulate(rules, None, games=30, seed=1, record_rounds=True)
    row = M.all_pass_rate(r.hands).row(0, named=True)
    assert row["redeals"] == 0 and row["ci_low"] == 0 and row["ci_high"] > 0


def test_empty_tables_give_empty_frames(moon_run):
    g, s, h = (x.clear() for x in (moon_run.games, moon_run.seats, moon_run.hands))
    assert M.moon_metrics(g, s, h).is_empty() and M.moon_metrics(g, s).is_empty()
    for df in (M.bid_success(h), M.widow_value(h), M.all_pass_rate(h), M.moon_rates(h, g)):
        assert df.is_empty()
    assert M.first_bidder_advantage(g).is_empty() and M.hands_per_game(g).is_empty()


def _ratio(pg, metric):
    return pg[f"{metric}|y"].sum() / pg[f"{metric}|x"].sum()


def test_per_game_ratios_are_moon_metrics():
    pg = M.per_game(GAMES, SEATS, HANDS)
    assert pg.height == 2 and pg.columns[:4] == ["variant", "run", "seed", "game"]
    # hand-counted: 3 of 4 contracts made; bid 4 twice, made twice; widow kept twice, the
    # bidder then took 5 and 7 tricks; first bidders 0 and 1, winners 0 and 2
    assert (pg[f"{M.M_MADE}|y"].sum(), pg[f"{M.M_MADE}|x"].sum()) == (3, 4)
    assert pg[f"{M.M_BID_MADE.format(bid=4)}|x"].to_list() == [1, 1]
    assert pg[f"{M.M_WIDOW_TRICKS.format(kept='kept')}|y"].to_list() == [5, 7]
    assert pg[f"{M.M_FIRST_BIDDER}|y"].to_list() == [1, 0]
    km = M.moon_metrics(GAMES, SEATS, HANDS).filter(pl.col("kind").is_in(["mean", "share"]))
    for r in km.iter_rows(named=True):
        assert _ratio(pg, r["metric"]) == pytest.approx(r["value"]), r["metric"]
    short = M.per_game(GAMES.lazy(), SEATS.lazy())
    assert M.M_WIDOW_KEPT + "|y" not in short.columns and M.M_MADE + "|y" in short.columns


def test_per_game_matches_moon_metrics_on_a_simulated_run(moon_run):
    g, s, h = moon_run.games, moon_run.seats, moon_run.hands
    pg = M.per_game(g, s, h)
    assert pg.height == g.height and (pg["seed"] == 7).all()
    km = M.moon_metrics(g, s, h).filter(pl.col("kind").is_in(["mean", "share"]))
    for r in km.iter_rows(named=True):
        assert _ratio(pg, r["metric"]) == pytest.approx(r["value"]), r["metric"]


@pytest.fixture(scope="module")
def moon_dirs(moon_run, tmp_path_factory):
    """The module's run (seed 7), the same seeds with target=31, and other seeds."""
    base = tmp_path_factory.mktemp("moon_compare")
    moon_run.write(base / "a")
    longer = "moon:gamerules(target=31)"
    sim.simulate(longer, None, games=300, seed=7, record_rounds=True).write(base / "b")
    sim.simulate(longer, None, games=300, seed=8, record_rounds=True).write(base / "c")
    return base


def test_compare_of_same_seeds_is_paired_and_narrower(moon_dirs):
    cmp = analysis.compare_runs([moon_dirs / "a", moon_dirs / "b"])
    diffs = cmp.filter(pl.col("verdict") != "")
    assert diffs.height and diffs["paired"].all()
    assert M.M_WIDOW_KEPT in diffs["metric"].to_list()  # the hands table's figures too
    r = diffs.filter(pl.col("metric") == M.M_HANDS).row(0, named=True)
    assert r["verdict"] == "higher" and r["diff"] > 2  # a race to 31 takes more hands
    assert r["diff_low"] <= r["diff"] <= r["diff_high"]
    assert r["diff_high"] - r["diff_low"] < r["unpaired_high"] - r["unpaired_low"]
    assert r["method"].startswith("paired")


def test_compare_of_different_seeds_is_unpaired(moon_dirs):
    cmp = analysis.compare_runs([moon_dirs / "a", moon_dirs / "c"])
    diffs = cmp.filter(pl.col("verdict") != "")
    assert diffs.height and not diffs["paired"].any()
    assert not any(m.startswith("paired") for m in diffs["method"].drop_nulls())
    r = diffs.filter(pl.col("metric") == M.M_HANDS).row(0, named=True)
    assert (r["diff_low"], r["diff_high"]) == (r["unpaired_low"], r["unpaired_high"])
    rs = analysis.load_runs([moon_dirs / "a", moon_dirs / "b"])
    never = analysis.compare(rs.games, rs.seats, paired=False, game="moon")  # same seeds
    assert not never.filter(pl.col("verdict") != "")["paired"].any()

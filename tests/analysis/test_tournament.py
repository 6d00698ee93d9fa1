"""loba tournament: seatings as documented, the same deals in every seating, ratings with
bootstrap intervals (and their agreement with choix's full-ranking Plackett-Luce fit), a
consistent win-share matrix, the command's outputs and its one-sentence errors."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations

import choix
import numpy as np
import polars as pl
import pytest
from runs_util import run_cli as run

from analysis import tournament as T
from analysis.errors import AnalysisError
from sim.policies import SeatError
from sim.rules import RuleError

POOL = ["random", "greedy", "hold", "careful", "wary"]


# ---------------------------------------------------------------------------- seatings
def test_every_combination_in_every_rotation():
    s = T.seatings(POOL, 4)
    assert len(s) == 4 * 5 == len(set(s))  # k * C(n, k)
    assert all(len(set(x)) == 4 for x in s)  # different policies at every table
    groups = Counter(frozenset(x) for x in s)
    assert set(groups) == {frozenset(c) for c in combinations(POOL, 4)}
    assert set(groups.values()) == {4}
    for seat in range(4):  # every policy sits in every seat equally often
        assert set(Counter(x[seat] for x in s).values()) == {4}
    first = s[:4]  # one group's rotations, starting in pool order
    assert first[0] == ("random", "greedy", "hold", "careful")
    assert first[1] == ("greedy", "hold", "careful", "random")
    assert T.design(5, 4, False, False, len(s)).startswith(
        "20 seatings: every combination of 4 of the 5 pool policies, each in its rotations"
    )


def test_repeats_all_orders_and_small_pools():
    rep = T.seatings(POOL, 4, repeats=True)
    assert len(rep) == 65 * 4 == len(set(rep))  # 70 multisets less the 5 of one policy
    assert all(len(set(x)) >= 2 for x in rep)
    assert ("random", "random", "greedy", "greedy") in rep
    orders = T.seatings(POOL, 4, all_orders=True)
    assert len(orders) == 5 * 24 == len(set(orders))
    small = T.seatings(["greedy", "hold"], 4)  # fewer policies than seats: each one sits
    assert len(small) == 3 * 4 and all(set(x) == {"greedy", "hold"} for x in small)
    assert len(T.seatings(["random", "greedy", "count"], 3)) == 3
    assert len(T.seatings(POOL, 4, True, True, limit=10)) <= 10 + 24  # stops early


@pytest.mark.parametrize(
    "kwargs, error, needle",
    [
        (dict(pool="greedy"), AnalysisError, "at least two different policies"),
        (dict(pool="greedy,hold:patience=3,hold"), AnalysisError, "'hold' twice"),
        (dict(pool="greedy,brilliant"), SeatError, "Unknown policy 'brilliant'"),
        (dict(pool="greedy,count"), SeatError, "Unknown policy 'count'"),
        (dict(pool="greedy,random", players=6), RuleError, "2 to 5 players, not 6"),
        (dict(rules="moon:gamerules", pool="count,greedy", players=4), RuleError, "exactly 3"),
        (dict(pool="greedy,random", games=0), AnalysisError, "games per seating"),
        (dict(pool="greedy,random", seed=-1), AnalysisError, "The seed"),
        (dict(pool="greedy,random", resamples=3), AnalysisError, "--resamples"),
        (
            dict(pool=POOL + [f"hold:patience={p}" for p in (0, 1, 2, 4, 5, 6)], players=5),
            AnalysisError,
            "more than 1,000 seatings",
        ),
    ],
)
def test_plan_refuses_in_one_sentence(kwargs, error, needle):
    with pytest.raises(error, match=needle) as e:
        T.plan(**kwargs)
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------------------- on frames
def test_comparisons_break_rankings_into_pairs():
    seats = pl.DataFrame(
        {
            "seating": [0, 0, 0, 0, 1, 1, 1, 1],
            "game": [0, 0, 0, 0, 0, 0, 0, 0],
            "policy": ["a", "b", "c", "a", "a", "b", "c", "c"],
            "place": [1, 2, 2, 4, 3, 1, 2, 4],
        }
    )
    comp = {(r["policy"], r["opponent"]): r["wins"] for r in T.comparisons(seats).to_dicts()}
    # seating 0: a(1) > b(2) = c(2) > a(4); seating 1: b(1) > c(2) > a(3) > c(4)
    assert comp[("b", "c")] == 0.5 + 2 and comp[("c", "b")] == 0.5  # a tie: half each
    assert comp[("a", "b")] == 1 and comp[("b", "a")] == 1 + 1
    assert comp[("a", "c")] == 1 + 1 and comp[("c", "a")] == 1 + 1
    assert ("a", "a") not in comp  # a policy is not compared with itself


@pytest.fixture(scope="module")
def duel():
    """random vs greedy at two seats: 2 seatings x 1,500 games on the same deals."""
    return T.run_tournament(T.plan("pagat", "random,greedy", 2, games=1500, seed=3))


@pytest.fixture(scope="module")
def three():
    """greedy, hold, wary at three seats: 3 rotations x 600 games."""
    return T.run_tournament(T.plan("pagat", "greedy,hold,wary", 3, games=600, seed=5))


def test_all_seatings_play_the_same_deals(duel, three):
    for res in (duel, three):
        per = res.games.group_by("seating").agg(
            pl.col("game").sort().alias("games"), pl.col("seed").unique().alias("seeds")
        )
        assert per.height == len(res.plan.seatings)
        assert all(g.to_list() == list(range(res.plan.games)) for g in per["games"])
        assert all(s.to_list() == [res.plan.seed] for s in per["seeds"])


def test_greedy_rates_far_above_random(duel):
    p = {r["policy"]: r for r in duel.policies.to_dicts()}
    assert p["random"]["rating"] == 0  # the anchor: the first pool policy
    assert p["greedy"]["ci_low"] > p["random"]["ci_high"]  # intervals far apart
    assert p["greedy"]["above_anchor"] > 0.9
    for r in duel.policies.iter_rows(named=True):
        assert r["ci_low"] <= r["rating"] <= r["ci_high"]


def test_bootstrap_interval_holds_the_estimate_and_is_reproducible(three):
    for r in three.policies.iter_rows(named=True):
        assert r["ci_low"] <= r["rating"] <= r["ci_high"]
        if r["policy"] != three.plan.pool[0]:
            assert r["ci_low"] < r["ci_high"]
    again = T.ratings(three.seats, three.plan.pool, 50, seed=three.plan.seed)
    once_more = T.ratings(three.seats, three.plan.pool, 50, seed=three.plan.seed)
    assert again.equals(once_more)
    wider = T.ratings(three.seats, three.plan.pool, 50, level=0.99, seed=three.plan.seed)
    assert (wider["ci_high"] - wider["ci_low"] >= again["ci_high"] - again["ci_low"]).all()


def test_ratings_agree_with_the_full_ranking_plackett_luce_fit(three):
    """On the games without ties, the broken-pairs fit and choix's Plackett-Luce fit of the
    whole finishing orders estimate the same strengths."""
    pool = three.plan.pool
    s = three.seats.with_columns(
        pl.col("place").n_unique().over("seating", "game").alias("distinct")
    ).filter(pl.col("distinct") == 3)
    orders = s.sort("seating", "game", "place").group_by("seating", "game", maintain_order=True)
    rankings = [tuple(pool.index(p) for p in g["policy"]) for _, g in orders]
    assert len(rankings) > 200
    pl_fit = choix.ilsr_rankings(len(pool), rankings, alpha=T.ALPHA)
    pl_fit = pl_fit - pl_fit[0]
    ours = T.ratings(s.drop("distinct"), pool, 20)["rating"].to_numpy()
    assert np.abs(ours - pl_fit).max() < 0.1, (ours, pl_fit)


def test_win_matrix_is_consistent(duel, three):
    for res in (duel, three):
        pairs = res.pairs
        total = pairs["share"] + pairs["opponent_share"] + pairs["other_share"]
        assert np.allclose(total.to_numpy(), 1.0)
        assert ((pairs["ci_low"] <= pairs["share"]) & (pairs["share"] <= pairs["ci_high"])).all()
        back = {(r["policy"], r["opponent"]): r for r in pairs.to_dicts()}
        for (a, b), r in back.items():
            assert back[(b, a)]["wins"] == r["opponent_wins"]
            assert back[(b, a)]["games"] == r["games"]
    r = duel.pairs.row(0, named=True)
    unfinished = duel.games["winner"].null_count() / duel.games.height
    assert r["share"] + r["opponent_share"] == pytest.approx(1 - unfinished)
    assert r["games"] == duel.plan.total_games
    shares = three.policies
    assert np.allclose(shares["fair_share"].to_numpy(), 1 / 3)
    assert shares["wins"].sum() == three.games["winner"].drop_nulls().len()


# ---------------------------------------------------------------------------- the command
def test_cli_prints_writes_the_plot_and_run_directories(capsys, tmp_path):
    out, png = tmp_path / "t", tmp_path / "t.png"
    args = ["tournament", "--seats-pool", "random,greedy", "--players", "2", "--games", "40"]
    code, text, err = run(capsys, *args, "--seed", "2", "--plot", png, "--out", out)
    assert code == 0, err
    assert "2 seatings: every combination of 2 of the 2 pool policies" in text
    assert "ratings: Plackett–Luce" in text and "0 (anchor)" in text
    assert "pairs:" in text and "matrix:" in text and "random    greedy" in text
    assert png.stat().st_size > 10_000
    meta = json.loads((out / T.FILE).read_text())
    assert meta["pool"] == ["random", "greedy"] and meta["games_per_seating"] == 40
    assert [p["policy"] for p in meta["policies"]] == ["random", "greedy"]
    assert len(meta["pairs"]) == 2 and meta["anchor"] == "random"
    dirs = [out / d for d in meta["seating_dirs"]]
    assert [d.name for d in dirs] == ["001-random,greedy", "002-greedy,random"]
    dealt = [pl.read_parquet(d / "games.parquet")["first_dealer"] for d in dirs]
    assert dealt[0].equals(dealt[1])  # the same deals in both seatings
    code, text, err = run(capsys, "summarize", dirs[1])
    assert code == 0 and "rounds per game" in text, err
    code, _, err = run(capsys, *args, "--out", out)  # not over a tournament without --overwrite
    assert code == 2 and "not empty" in err
    (out / "seatings" / "099-old").mkdir()
    code, _, err = run(capsys, *args, "--out", out, "--overwrite")
    assert code == 0, err
    assert not (out / "seatings" / "099-old").exists()


def test_cli_json_and_csv(capsys):
    args = ["tournament", "--seats-pool", "greedy,random", "--players", "2", "--games", "20"]
    code, text, err = run(capsys, *args, "--format", "json", "--resamples", "20")
    assert code == 0, err
    d = json.loads(text)
    assert d["players"] == 2 and d["games"] == 40 and d["resamples"] == 20
    assert d["policies"][0]["policy"] == "greedy" and d["policies"][0]["rating"] == 0
    code, text, err = run(capsys, *args, "--format", "csv")
    assert code == 0, err
    assert text.splitlines()[0].startswith("policy,rating,ci_low,ci_high,above_anchor,games")


def test_cli_moon(capsys):
    """The default pool: every built-in Moon policy, each group of three in its rotations."""
    from math import comb

    from sim.games import get_game

    pool = list(get_game("moon").policies)
    code, text, err = run(capsys, "tournament", "--game", "moon", "--games", "4")
    assert code == 0, err
    assert f"moon:gamerules, 3 players, seed 0: {comb(len(pool), 3) * 3} seatings" in text
    assert all(p in text for p in pool)


def test_cli_rates_the_seats_of_a_house_rules_file(capsys, tmp_path):
    house = tmp_path / "house.toml"
    house.write_text('preset = "pagat"\nseats = ["greedy", "random", "greedy"]\n')
    args = ["tournament", "--rules", str(house), "--games", "10", "--format", "json"]
    code, text, err = run(capsys, *args, "--resamples", "20")
    assert code == 0, err
    d = json.loads(text)
    assert d["players"] == 3 and {p["policy"] for p in d["policies"]} == {"greedy", "random"}
    code, text, err = run(capsys, *args, "--seats-pool", "greedy,hold", "--players", "2")
    assert code == 0, err  # a pool given on the command line wins
    d = json.loads(text)
    assert d["players"] == 2 and {p["policy"] for p in d["policies"]} == {"greedy", "hold"}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--seats-pool", "greedy"], "at least two different policies"),
        (["--seats-pool", "greedy,nope"], "Unknown policy 'nope'"),
        (["--players", "7"], "2 to 5 players, not 7"),
        (["--game", "moon", "--players", "2"], "exactly 3 players"),
        (["--games", "0"], "games per seating"),
        (["--resamples", "0"], "--resamples"),
        (["--plot", "x.nope"], "cannot write .nope files"),
        (["--out", "/dev/null"], "is not a directory"),
        (["--seats-pool", "greedy,greedy"], "twice"),
    ],
)
def test_cli_bad_input_is_one_sentence(capsys, args, needle):
    few = [] if "--games" in args else ["--games", "2"]
    code, out, err = run(capsys, "tournament", *args, *few)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), err
    assert needle in lines[0]

"""loba tune: parameter ranges refused in one sentence, the same deals for every candidate in
every rotation, racing that prunes and records its games, a best seat that parses back inside
its ranges, a fresh evaluation on a seed tuning did not use, and the command's outputs."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from runs_util import run_cli as run

from analysis import tune as T
from analysis.errors import AnalysisError
from analysis.text import tune_text
from sim.policies import parse_seat

HOLD = ["tune", "hold", "--against", "greedy", "--param"]


# ---------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "args, needle",
    [
        (HOLD + ["patience=0..300"], "leaves the range of 'hold', whose patience must be between"),
        (HOLD + ["patience=-1..3"], "between 0 and 200"),
        (HOLD + ["nerve=0..3"], "Policy 'hold' has no parameter 'nerve' (it has: patience)"),
        (HOLD + ["patience=5..2"], "the low end is above the high end"),
        (HOLD + ["patience=a..2"], "'a' is not a number"),
        (HOLD + ["patience=3"], "is not NAME=LO..HI"),
        (HOLD + ["patience=0..3", "--param", "patience=1..2"], "given twice"),
        (["tune", "greedy", "--param", "x=0..1"], "Policy 'greedy' has no parameters to tune"),
        (["tune", "hold:patience=2", "--param", "patience=0..3"], "both fixed in the seat"),
        (["tune", "brilliant", "--param", "x=0..1"], "Unknown policy 'brilliant'"),
        (HOLD + ["patience=0..3", "--against", "greedy,wary", "--players", "4"], "names 2 seats"),
        (HOLD + ["patience=0..3", "--players", "7"], "2 to 5 players, not 7"),
        (HOLD + ["patience=0..3", "--games", "3"], "--games (at 4 players)"),
        (HOLD + ["patience=0..3", "--trials", "0"], "--trials must be a whole number"),
        (HOLD + ["patience=0..3", "--eval-games", "5"], "--eval-games must be 0"),
        (["tune", "hold"], "Missing option '--param'"),
    ],
)
def test_refuses_in_one_sentence(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert needle in err and err.startswith("Error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""


def test_integer_when_written_whole_and_the_default_is():
    t = T.plan("careful", "greedy", ["danger=0..20", "keep=0.0..12", "safe=0.5..3"], games=8)
    assert [(r.name, r.integer) for r in t.ranges] == [
        ("danger", True),
        ("keep", False),
        ("safe", False),
    ]
    d = T.plan("careful", "greedy", {"danger": (0, 20), "keep": (0.0, 12.0)}, games=8)
    assert [r.integer for r in d.ranges] == [True, False]
    with pytest.raises(AnalysisError, match="leaves the range"):
        T.plan("careful", "greedy", {"keep": (0, 1001)}, games=8)
    with pytest.raises(AnalysisError, match="must differ from the tuning seed"):
        T.plan("hold", "greedy", ["patience=0..3"], games=8, seed=5, eval_seed=5)


def test_every_seat_position_in_rotation():
    t = T.plan("hold", "greedy,careful,wary", ["patience=0..12"], games=400)
    assert t.players == 4 and t.field == ["greedy", "careful", "wary"]
    rot = t.seatings("hold:patience=5")
    assert [s.index("hold:patience=5") for s in rot] == [0, 1, 2, 3]
    for s in rot:  # the field keeps its cyclic order after the tuned seat
        i = s.index("hold:patience=5")
        assert [s[(i + k) % 4] for k in range(1, 4)] == t.field
    assert t.deals == 100 and t.rung_deals == [12, 25, 50, 100]
    three = T.plan("hold", "greedy", ["patience=0..12"], games=100, players=3)
    assert three.field == ["greedy", "greedy"] and three.deals == 34  # rounded up to deals


# ---------------------------------------------------------------------------- common numbers
def test_same_parameters_same_scores_on_the_same_deals():
    t = T.plan("hold", "greedy", ["patience=0..12"], games=600, trials=3, seed=11, pruner="none")
    a = T.play_deals(t, "hold:patience=5", t.seed, 0, t.deals)
    b = T.play_deals(t, "hold:patience=5", t.seed, 0, t.deals)
    assert np.array_equal(a, b)
    # rungs played piece by piece are the same deals as all at once
    pieces = np.concatenate(
        [T.play_deals(t, "hold:patience=5", t.seed, lo, hi - lo) for lo, hi in [(0, 40), (40, 150)]]
    )
    assert np.array_equal(pieces, a)
    res = T.run_tune(t, evaluate=False, first=[{"patience": 5}, {"patience": 5}])
    rows = res.study.filter(pl.col("seat") == "hold:patience=5")
    assert rows.height >= 2 and rows["win_share"].n_unique() == 1
    assert rows["win_share"][0] == pytest.approx(a.mean())
    assert rows["played"].to_list()[:2] == [600, 0]  # the repeat reuses the same games
    assert res.study["played"].sum() == res.games_played


def test_a_seat_like_its_field_wins_exactly_its_fair_share_of_every_deal():
    """All four seats play alike, so every rotation is the same game: the tuned seat wins in
    exactly one of the four (the seat advantage cancels deal by deal)."""
    t = T.plan("hold", "hold", ["patience=3..3"], games=400, seed=2)
    s = T.play_deals(t, "hold", t.seed, 0, t.deals)
    assert set(np.round(s * 4).tolist()) <= {0.0, 1.0}
    assert (s == 0.25).mean() > 0.95  # 0 only for a game no one finished


# ---------------------------------------------------------------------------- racing
@pytest.fixture(scope="module")
def raced():
    t = T.plan("hold", "greedy", ["patience=0..12"], games=800, trials=6, seed=4)
    return T.run_tune(t, first=[{"patience": 0}, {"patience": 1}])


def test_a_bad_candidate_is_pruned_and_its_games_recorded(raced):
    st = raced.study
    assert st["trial"].to_list() == list(range(6))
    assert st["seat"][0] == "hold" and st["state"][0] == "complete"  # the default first
    bad = st.filter(pl.col("seat") == "hold:patience=0")
    assert bad["state"][0] == "pruned" and bad["games"][0] < 800
    assert (st.filter(pl.col("state") == "complete")["games"] == 800).all()
    assert raced.pruned >= 1 and raced.games_played == st["played"].sum() < 6 * 800
    assert set(st["games"].to_list()) <= {100, 200, 400, 800}  # rungs: 1/8, 1/4, 1/2, all


def test_halving_pruner_prunes_a_bad_range():
    res = T.tune(
        "hold", "greedy", ["patience=0..1"], games=800, trials=6, seed=3, pruner="halving",
        eval_games=0,
    )  # fmt: skip
    assert res.pruned >= 1 and res.evaluation is None
    assert (res.study.filter(pl.col("state") == "pruned")["games"] < 800).all()


def test_best_seat_parses_back_inside_its_ranges(raced):
    seat = parse_seat(raced.best_seat)
    assert seat.label == raced.best_seat
    p = dict(seat.policy_params)
    assert 0 <= p["patience"] <= 12 and p["patience"] == raced.best_params["patience"]
    best = raced.study.filter(pl.col("trial") == raced.best_trial)
    assert best["state"][0] == "complete"
    assert best["win_share"][0] == raced.best_value == raced.study["win_share"].max()
    floats = T.tune("careful", "greedy", ["keep=0.5..12.5", "safe=0..4"], games=80, trials=3)
    s = dict(parse_seat(floats.best_seat).policy_params)
    assert 0.5 <= s["keep"] <= 12.5 and 0 <= s["safe"] <= 4
    assert float(s["safe"]).is_integer() and float(f"{s['keep']:.4g}") == s["keep"]


def test_fresh_evaluation_plays_a_seed_tuning_did_not_use(raced):
    t, ev = raced.plan, raced.evaluation
    assert ev.seed == t.eval_seed == T.fresh_seed(t.seed) != t.seed
    assert ev.games == t.games and ev.deals == t.deals
    again = T.play_deals(t, raced.best_seat, ev.seed, 0, ev.deals)
    assert np.array_equal(again, ev.tuned_scores)
    dflt = T.play_deals(t, "hold", ev.seed, 0, ev.deals)
    assert np.array_equal(dflt, ev.default_scores)
    tuning = T.play_deals(t, "hold", t.seed, 0, ev.deals)  # the same seat, the tuning deals
    assert not np.array_equal(tuning, ev.default_scores)
    tab = {r["role"]: r for r in ev.table.to_dicts()}
    assert tab["tuned"]["seat"] == raced.best_seat and tab["default"]["seat"] == "hold"
    assert tab["tuned"]["win_share"] == pytest.approx(again.mean())
    assert ev.diff == pytest.approx(again.mean() - dflt.mean())  # paired: the same games
    if raced.best_seat != "hold":
        assert ev.diff_low <= ev.diff <= ev.diff_high


# ---------------------------------------------------------------------------- the command
def test_cli_json_csv_table_and_out(capsys, tmp_path):
    args = HOLD + ["patience=0..12", "--games", "200", "--trials", "4", "--seed", "6"]
    code, out, err = run(capsys, *args, "--format", "json", "--out", tmp_path / "o")
    assert code == 0, err
    d = json.loads(out)
    assert d["policy"] == "hold" and d["against"] == ["greedy"] * 3 and d["players"] == 4
    assert d["params"] == ["patience=0..12"] and d["integer"] == {"patience": True}
    assert len(d["study"]) == 4 and len(d["rung_games"]) == 4 and d["rung_games"][-1] == 200
    parse_seat(d["best_seat"])
    ev = d["evaluation"]
    assert ev["seed"] != d["seed"] and ev["games"] == 200
    assert [s["role"] for s in ev["seats"]] == ["tuned", "default"]
    assert "diff_low" in ev and "p_value" in ev
    saved = json.loads((tmp_path / "o" / "best.json").read_text())
    assert saved == d
    assert pl.read_parquet(tmp_path / "o" / "study.parquet").height == 4
    assert (tmp_path / "o" / "study.csv").read_text().startswith("trial,state,games,played")
    code, _, err = run(capsys, *args, "--out", tmp_path / "o")
    assert code == 2 and "not empty" in err
    code, out, err = run(capsys, *args, "--format", "csv", "--eval-games", "0")
    assert code == 0 and out.startswith("trial,state,games,played,win_share,patience,seat")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert "tuned hold against greedy,greedy,greedy (4 players" in out
    assert "<- best" in out and "fresh games: 200" in out and "(default)" in out


def test_a_best_value_at_the_end_of_its_range_is_flagged():
    """A best at an end of the range the policy could pass is said (text and JSON): the
    optimum may lie beyond; an end the policy cannot pass is not."""
    t = T.plan("hold", "greedy", ["patience=0..1"], games=200, trials=1, seed=4, pruner="none")
    res = T.run_tune(t, evaluate=False, first=[{"patience": 1}])
    r = t.ranges[0]
    lo, hi = r.allowed
    assert (r.low, r.high) == (0, 1) and lo <= 0 < 1 < hi
    assert res.best_params == {"patience": 1.0} and res.at_edge == {"patience": "high"}
    assert res.to_dict()["best_at_edge"] == {"patience": "high"}
    assert "note: the best patience (1) is at the high end of patience=0..1" in tune_text(res)
    assert [r.edge(v) for v in (0, 0.5, 1)] == ([None] if lo == 0 else ["low"]) + [None, "high"]
    inside = T.ParamRange("x", 0.0, 10.0, False, (0.0, 10.0))  # the policy's whole range
    assert [inside.edge(v) for v in (0.0, 0.2, 5.0, 9.9, 10.0)] == [None] * 5
    wider = T.ParamRange("x", 2.0, 8.0, False, (0.0, 10.0))
    assert [wider.edge(v) for v in (2.0, 2.25, 2.4, 5.0, 7.8, 8.0)] == [
        "low", "low", None, None, "high", "high"]  # fmt: skip

"""loba advise: targets parsed (and refused in one sentence), measured with the project's
intervals, a search that is the same for the same seed, resumed after an interruption, an
infeasible question answered with the target that fails and by how much, and the advised
house rules played by 'loba simulate --rules'. Small budgets: the file runs in seconds."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from runs_util import run_cli as run

from analysis import advise as A
from analysis.advise.measure import _quantile
from analysis.advise.output import _fmt
from analysis.errors import AnalysisError
from sim.games import game_names

TARGETS = ["rounds_per_game in 8..12", "comeback >= 0.15"]
VARY = ["elimination_score=81..141", "max_rebuys=0..2"]
BUDGET = 2400  # the least a one-field advise takes is 1,707 games


@pytest.fixture(scope="module")
def cat():
    return A.catalog("loba", ["greedy"])


# ---------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "text, canonical, func",
    [
        ("rounds_per_game in 8..12", "rounds_per_game in 8..12", None),
        ("  rounds per game   in 8 .. 12", "rounds_per_game in 8..12", None),
        ("'rounds per game' in 8..12", "rounds_per_game in 8..12", None),
        ("seat_spread <= 1.0", "seat_spread <= 1", None),
        ("seat_spread < 1.0", "seat_spread <= 1", None),
        ("comeback >= 0.15", "comeback >= 0.15", None),
        ("win share of players who rebought > .15", "comeback >= 0.15", None),
        ("one-turn bonus (share of played rounds) <= 0.05", "one_turn_bonus <= 0.05", None),
        ("first_elimination >= 5", "first_elimination >= 5", None),
        ("minutes in 30..45", "minutes in 30..45", None),
        ("dealer_left_edge in -1..1", "dealer_left_edge in -1..1", None),
        ("share(rounds_per_game in 8..12) >= 0.7", "share(rounds_per_game in 8..12) >= 0.7",
         "share"),
        ("share(minutes < 45) >= 0.9", "share(minutes < 45) >= 0.9", "share"),
        ("q90(rounds_per_game) <= 15", "q90(rounds_per_game) <= 15", "quantile"),
        ("median(turns_per_game) in 150..300", "q50(turns_per_game) in 150..300", "quantile"),
    ],
)  # fmt: skip
def test_targets_parse_to_one_canonical_text(cat, text, canonical, func):
    t = A.parse_target(text, cat)
    assert t.text == canonical and t.func == func
    assert A.parse_target(t.text, cat).text == canonical  # the canonical text parses back


@pytest.mark.parametrize(
    "text, needle",
    [
        ("round_per_game in 8..12", "Unknown metric 'round_per_game': Loba"),
        ("rounds_per_game = 10", "never equals a number exactly"),
        ("rounds_per_game in 12..8", "the low end of 12..8 is above the high end"),
        ("rounds_per_game in 8-12", "is not a range LO..HI"),
        ("rounds_per_game <= lots", "'lots' is not a number"),
        ("rounds_per_game", "is not a target: write"),
        ("", "A target is empty"),
        ("share(rounds_per_game in 8..12) >= 1.5", "between 0 and 1, not 1.5"),
        ("share(seat_spread <= 1) >= 0.5", "has no value of its own in each game"),
        ("q0(rounds_per_game) <= 3", "a quantile is q1 to q99"),
        ("share(rounds_per_game) >= 0.5", "share(...) takes a metric and a condition"),
    ],
)
def test_bad_targets_are_refused_in_one_sentence(cat, text, needle):
    with pytest.raises(AnalysisError) as e:
        A.parse_target(text, cat)
    msg = str(e.value)
    assert needle in msg and msg.count("\n") == 0, msg


def test_unknown_metric_lists_the_known_ones(cat):
    with pytest.raises(AnalysisError) as e:
        A.parse_target("fun >= 3", cat)
    for name in ("rounds_per_game", "comeback", "seat_spread", "first_elimination", "minutes"):
        assert name in str(e.value)
    moon = A.catalog("moon")
    for name in ("hands_per_game", "first_bidder_edge", "contracts_made"):
        assert name in moon.short  # from Moon's registration, not from the shared module
    with pytest.raises(AnalysisError, match="Three-Player Moon's targets are hands_per_game"):
        A.parse_target("rounds_per_game in 8..12", moon)


def test_the_same_target_twice_is_refused(cat):
    with pytest.raises(AnalysisError, match="given twice"):
        A.parse_targets(["comeback >= 0.15", "win share of players who rebought >= 0.15"], cat)
    assert len(A.parse_targets(["comeback >= 0.15; seat_spread <= 1"], cat)) == 2


def test_judging_reads_the_interval(cat):
    t = A.parse_target("rounds_per_game in 8..12", cat)
    assert t.judge(10, 9, 11) == A.MET
    assert t.judge(13, 12.5, 13.5) == A.NOT_MET
    assert t.judge(11.9, 11.5, 12.3) == A.UNDECIDED
    assert t.judge(10, None, None) == A.MET  # exact: no interval
    assert t.distance(13.5) == 1.5 and t.margin(9) == 1 and t.width == 2


def test_quantile_and_share_use_the_games(cat):
    """A share of games is a per-game 0/1 figure; a quantile's interval the distribution-free
    one of order statistics: both from each game's own value."""
    rng = np.random.default_rng(1)
    n = 2000
    rounds = rng.integers(5, 16, n).astype(float)
    data = pl.DataFrame({"game": np.arange(n), "n_players": np.full(n, 4),
                         "rounds per game|y": rounds, "rounds per game|x": np.ones(n)})  # fmt: skip
    share = A.assess(A.parse_target("share(rounds_per_game in 8..12) >= 0.4", cat), data)
    k = int(((rounds >= 8) & (rounds <= 12)).sum())
    assert share["value"] == pytest.approx(k / n) and share["low"] < k / n < share["high"]
    q = A.assess(A.parse_target("q90(rounds_per_game) <= 15", cat), data)
    assert q["value"] == np.sort(rounds)[math.ceil(0.9 * n) - 1]
    assert q["low"] <= q["value"] <= q["high"] and q["status"] == A.MET


# ---------------------------------------------------------------------------- the command
@pytest.mark.parametrize(
    "args, needle",
    [
        (["--target", "fun >= 3"], "Unknown metric 'fun': Loba's targets are rounds_per_game"),
        (["--target", "comeback >= 0.15", "--vary", "elimination_scor=81..101"],
         "Unknown rule 'elimination_scor' in --vary"),
        (["--target", "comeback >= 0.15", "--vary", "discard_take=0..1"],
         "a range LO..HI needs a whole-number knob"),
        (["--target", "comeback >= 0.15", "--vary", "max_rebuys=0..500"], "between 0 and 100"),
        (["--target", "comeback >= 0.15", "--vary", "max_rebuys=1"], "at least two values"),
        (["--target", "comeback >= 0.15", "--vary", "max_rebuys=0..2", "--budget", "1000"],
         "is too small for 1 field: an advise needs at least 1,707 games"),
        (["--target", "comeback >= 0.15", "--field", "greedy", "--seats", "greedy,greedy"],
         "give one of them"),
        (["--target", "comeback >= 0.15", "--vary", "max_rebuys=0..2", "--set", "max_rebuys=1"],
         "both set (--set) and varied"),
        (["--target", "comeback >= 0.15", "--seconds-per-turn", "0"], "Seconds per turn"),
        ([], "Give the targets: --targets FILE or --target TARGET"),
    ],
)  # fmt: skip
def test_the_command_refuses_in_one_sentence(capsys, args, needle):
    code, out, err = run(capsys, "advise", *args)
    assert code == 2, err
    assert needle in err and err.startswith("Error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize(
    "body, needle",
    [
        ('colour = "red"\n', "unknown key 'colour'"),
        ("targets = 5\n", "'targets' must be a list of strings"),
        ('targets = ["comeback >= 0.15"]\n[advise]\nspeed = 3\n', "[advise] has an unknown key"),
        ("targets = [\n", "is not valid TOML"),
    ],
)
def test_a_bad_targets_file_is_refused(capsys, tmp_path, body, needle):
    f = tmp_path / "t.toml"
    f.write_text(body)
    code, _, err = run(capsys, "advise", "--targets", f)
    assert code == 2 and needle in err and err.count("\n") == 1, err


@pytest.mark.parametrize("mine", game_names())
@pytest.mark.parametrize("how", ["advise", "check"])
def test_a_targets_file_of_another_game_is_refused_by_name(capsys, tmp_path, mine, how):
    from sim.games import get_game

    f = tmp_path / "t.toml"
    f.write_text(f'game = "{mine}"\ntargets = ["unfinished <= 0.1"]\n')
    for other in (g for g in game_names() if g != mine):
        rules = f"{other}:{get_game(other).rules.default_preset}"
        play = ["--check", rules] if how == "check" else ["--game", other]
        code, _, err = run(capsys, "advise", "--targets", f, *play)
        assert code == 2 and err.count("\n") == 1, err
        assert f"is for {get_game(mine).title} (game = \"{mine}\")" in err, err
        assert f"the rules given are {get_game(other).title}'s" in err, err


def test_a_targets_file_holds_the_house_rules_and_the_question(tmp_path):
    f = tmp_path / "evening.toml"
    f.write_text(
        'preset = "pagat"\nseats = "greedy,greedy,greedy"\n'
        'targets = ["rounds_per_game in 8..12"]\n\n[knobs]\nmax_rebuys = 1\n\n'
        '[advise]\nvary = ["elimination_score=81..141"]\nseconds_per_turn = 8\n'
    )
    p = A.plan(["comeback >= 0.15"], f, budget=BUDGET)
    assert p.base.id == "loba:pagat(max_rebuys=1)" and list(p.fields) == ["greedy,greedy,greedy"]
    assert [a.text() for a in p.axes] == ["elimination_score=81..141"]
    assert [t.text for t in p.targets] == ["rounds_per_game in 8..12", "comeback >= 0.15"]
    assert p.catalog.seconds_per_turn == 8
    with pytest.raises(AnalysisError, match="give the rules once"):
        A.plan([], f, rules="classic", budget=BUDGET)
    import sim

    assert sim.simulate(f, games=4).games.height == 4  # a house-rules file still


# ---------------------------------------------------------------------------- the search
def test_the_same_seed_gives_the_same_answer():
    a = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=5)
    b = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=5)
    assert a.study.equals(b.study) and a.text() == b.text()
    assert a.played <= BUDGET and a.search_played <= a.plan.search_budget
    assert (
        a.study["trial"][0] == 0 and a.study["setting"][0] == "elimination_score=101,max_rebuys=2"
    )
    # every candidate plays the same games: a setting tried again plays none
    st = a.study.filter(pl.col("rules_id").is_not_null()).with_row_index("i")
    again = st.filter(pl.col("i") > pl.col("i").min().over("rules_id"))
    assert again.height and (again["played"] == 0).all()
    c = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=6)
    assert c.plan.verify_seed != a.plan.verify_seed


def test_racing_stops_candidates_clearly_outside_a_target():
    res = A.advise(["rounds_per_game in 9..11"], vary=["elimination_score=61..301"],
                   budget=4000, seed=2)  # fmt: skip
    st = res.study
    stopped = st.filter(pl.col("state") == "stopped")
    assert stopped.height >= 1 and (stopped["games"] < res.plan.trial_games).all()
    assert stopped["note"].str.starts_with("outside rounds_per_game").all()
    assert res.feasible and 9 <= res.best.worst(res.plan.targets[0])["value"] <= 11


def test_an_interrupted_advise_resumes_to_the_same_answer(tmp_path):
    whole = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=7)

    def stop(row):
        if row["trial"] == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=7, out=tmp_path / "a", on_trial=stop)
    assert any((tmp_path / "a" / "games").iterdir())
    again = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=7, out=tmp_path / "a")
    assert again.text() == whole.text() and again.study.equals(whole.study)
    assert 0 < again.simulated < again.played == whole.played
    third = A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=7, out=tmp_path / "a")
    assert third.simulated == 0 and third.text() == whole.text()
    for name in ("study.csv", "study.parquet", "targets.parquet", "verification.csv",
                 "advice.json", "advice.txt", "advised.toml", "advise.json"):  # fmt: skip
        assert (tmp_path / "a" / name).is_file(), name
    with pytest.raises(AnalysisError, match="holds an advise of another question"):
        A.advise(TARGETS, vary=VARY, budget=BUDGET, seed=8, out=tmp_path / "a")


def test_an_infeasible_question_names_the_target_that_fails_and_by_how_much(tmp_path):
    res = A.advise(["rounds_per_game in 30..40", "comeback >= 0.15"],
                   vary=["elimination_score=61..121"], budget=BUDGET, seed=1,
                   out=tmp_path / "x")  # fmt: skip
    assert not res.feasible
    t = res.plan.targets[0]
    w = res.best.worst(t)
    assert res.best.status(t) == A.NOT_MET and w["distance"] > 10 and w["value"] < 30
    text = res.paragraph()
    assert text.startswith("No setting tried meets every target. The closest is pagat with")
    assert (
        f"(rounds_per_game in 30..40: not met, {_fmt(w['distance'], 'rounds')} below 30..40)"
        in text
    )
    assert "It meets comeback >= 0.15." in text
    assert (tmp_path / "x" / "front.png").is_file()  # the targets conflict: the trade-off plot
    assert "not every target met" in (tmp_path / "x" / "advised.toml").read_text()
    from analysis.report import build_report

    html = build_report([tmp_path / "x"], tmp_path / "r.html").read_text()
    assert html.count('src="data:image/png;base64,') == 2  # the search and the front
    assert "not every target met" in html and "The targets in conflict" in html


def test_the_advised_rules_play_with_simulate(capsys, tmp_path):
    out = tmp_path / "adv"
    code, text, err = run(capsys, "advise", "--target", "rounds_per_game in 8..12", "--vary",
                          "elimination_score=81..141", "--budget", BUDGET, "--seed", "3",
                          "--out", out)  # fmt: skip
    assert code == 0, err
    assert "rank  setting" in text and "Play pagat with elimination_score=" in text
    code, sim_out, err = run(capsys, "simulate", "--rules", out / "advised.toml", "--games", "40")
    assert code == 0, err
    import json

    advice = json.loads((out / "advice.json").read_text())
    assert f"rules {advice['recommended']['rules_id']}" in sim_out
    assert advice["feasible"] and advice["ranking"][0]["rank"] == 1


def test_fields_count_a_target_met_only_when_every_field_meets_it():
    m = A.Measured({}, "x", 10, {"greedy": {"t": {"status": A.MET}},
                                 "smart": {"t": {"status": A.UNDECIDED}}})  # fmt: skip
    t = type("T", (), {"text": "t"})()
    assert m.status(t) == A.UNDECIDED
    m.by_field["smart"]["t"]["status"] = A.NOT_MET
    assert m.status(t) == A.NOT_MET


def test_moon_is_advised_from_its_own_targets():
    res = A.advise(["hands_per_game in 6..10", "first_bidder_edge in -5..5"], game="moon",
                   vary=["target=11..41"], budget=BUDGET, seed=1)  # fmt: skip
    assert res.best_rules.game == "moon"
    hands = res.best.worst(res.plan.targets[0])["value"]
    assert 6 <= hands <= 10 and res.best.status(res.plan.targets[0]) == A.MET


# ---------------------------------------------------------------------------- summarize, check
@pytest.fixture(scope="module")
def run300(tmp_path_factory):
    from sim.runner import stream_run

    d = tmp_path_factory.mktemp("summ") / "run"
    stream_run("pagat", "greedy,greedy,greedy", games=300, seed=2, out_dir=d)
    return d


def test_summarize_adds_quantiles_and_shares_of_games_with_the_advisors_estimators(run300, cat):
    import analysis

    df = analysis.summarize([run300], quantiles=["rounds_per_game", "q95(minutes)"],
                            shares=["rounds_per_game in 8..12", "minutes < 30"])  # fmt: skip
    rows = {r["metric"]: r for r in df.iter_rows(named=True)}
    names = ["rounds per game: q10", "rounds per game: median", "rounds per game: q90",
             "minutes per game: q95", "games with rounds per game in 8..12 (share)",
             "games with minutes per game < 30 (share)"]  # fmt: skip
    assert df["metric"].to_list()[-6:] == names  # after the key metrics
    import sim

    rounds = np.sort(sim.simulate("pagat", "greedy,greedy,greedy", games=300, seed=2)
                     .games["rounds"].to_numpy().astype(float))  # fmt: skip
    q = _quantile(rounds, 0.5, 0.95)  # the advisor's estimator, not a copy of it
    med = rows["rounds per game: median"]
    assert (med["value"], med["ci_low"], med["ci_high"]) == (q["value"], q["low"], q["high"])
    assert med["kind"] == "quantile" and med["unit"] == "rounds" and med["n"] == 300
    sh = rows["games with rounds per game in 8..12 (share)"]
    k = int(((rounds >= 8) & (rounds <= 12)).sum())
    assert sh["value"] == pytest.approx(k / 300) and sh["ci_low"] < k / 300 < sh["ci_high"]
    assert sh["unit"] == "share" and sh["kind"] == "share"


def test_summarize_prints_them_and_refuses_bad_ones_in_one_sentence(run300, capsys):
    code, out, err = run(capsys, "summarize", run300, "--quantiles",
                         "rounds_per_game,turns_per_game", "--share",
                         "rounds_per_game in 8..12")  # fmt: skip
    assert code == 0, err
    assert "rounds per game: median" in out and "turns per game: q90" in out
    assert "games with rounds per game in 8..12 (share)" in out
    for args, needle in [
        (["--quantiles", "seat_spread"], "has no value of its own in each game"),
        (["--quantiles", "q0(rounds_per_game)"], "a quantile is q1 to q99"),
        (["--quantiles", "fun"], "Unknown metric 'fun'"),
        (["--share", "rounds_per_game"], "is not a range of a game's value"),
        (["--share", "rounds_per_game in 12..8"], "the low end of 12..8 is above"),
        (["--share", "share(rounds_per_game in 8..12) >= 0.7"], "a bound on the share itself"),
        (["--share", "rounds_per_game = 9"], "METRIC in X..X"),
    ]:
        code, out, err = run(capsys, "summarize", run300, *args)
        assert code == 2 and needle in err and err.count("\n") == 1, (args, err)


@pytest.fixture(scope="module")
def advised(tmp_path_factory):
    out = tmp_path_factory.mktemp("advised") / "adv"
    A.advise(["rounds_per_game in 8..12"], vary=["elimination_score=81..141"], budget=BUDGET,
             seed=3, out=out)  # fmt: skip
    return out


def test_check_replays_an_advise_folder_on_fresh_games(capsys, advised):
    out = advised
    code, text, err = run(capsys, "advise", "--check", out, "--games", "300")
    assert code == 0, err
    assert text.startswith("check: loba:pagat(elimination_score=") and "seed 424242" in text
    assert "verified" in text.splitlines()[2]
    assert "1 of 1 targets met (300 games" in text
    assert "Every target the advise verified as met is met again." in text
    kept = advised.parent / "check"  # --out keeps the check: its rows and what was printed
    code, again, err = run(capsys, "advise", "--check", out, "--games", "300", "--out", kept)
    assert code == 0 and again == text, err
    assert (kept / "check.txt").read_text() == text
    rows = pl.read_csv(kept / "check.csv")
    assert rows["target"].to_list() == ["rounds_per_game in 8..12"]
    assert json.loads((kept / "check.json").read_text())[0]["status"] == rows["status"][0]
    df = A.check(rules=out, games=300, seed=9, targets=["comeback >= 0.1"])
    assert df["target"].to_list() == ["comeback >= 0.1"] and df["verified"].to_list() == [None]
    for args, needle in [
        (["--check", out, "--seed", "3"], "Seed 3 is one the advise"),
        (["--check", out, "--vary", "max_rebuys=0..2"], "leave out --vary"),
        (["--check", out / "advised.toml"], "Give at least one target"),
        (["--target", "comeback >= 0.1", "--games", "20"], "leave out --games"),
        (["--check", out, "--games", "1"], "The games of a check must be"),
        (["--check", out, "--games", "300", "--out", kept], "is not empty"),
    ]:
        code, _, err = run(capsys, "advise", *args)
        assert code == 2 and needle in err and err.count("\n") == 1, (args, err)


def test_report_shows_an_advise_folder(capsys, tmp_path, advised, run300):
    import re

    code, _, err = run(capsys, "report", advised, "-o", tmp_path / "a.html")
    assert code == 0, err
    html = (tmp_path / "a.html").read_text()
    assert "House-rules advice" in html and "every target met" in html
    assert "Play pagat with elimination_score=" in html  # the paragraph
    assert "<th>rank</th>" in html.replace(' class="l"', "") and "rounds_per_game in 8..12" in html
    assert html.count('src="data:image/png;base64,') == 1  # the search (no conflict: no front)
    assert "<script" not in html and not re.search(r"(src|href)=\"(https?:)?//", html)
    code, _, err = run(capsys, "report", run300, advised, "-o", tmp_path / "b.html")
    assert code == 0, err
    both = (tmp_path / "b.html").read_text()
    assert both.index("Findings") < both.index("House-rules advice") < both.index("Key metrics")
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "advise.json").write_text((advised / "advise.json").read_text())
    code, _, err = run(capsys, "report", unfinished, "-o", tmp_path / "c.html")
    assert code == 2 and "has not finished" in err and err.count("\n") == 1, err

"""Fields of players (analysis/field.py): the registry, the verdict across skill on literal
intervals, and --field on rebuy-value, sweep, compare and report with small real runs."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest
from runs_util import run_cli as run

import cli
from analysis.errors import AnalysisError
from analysis.field import (
    BOTH_NOISE,
    CANNOT,
    EMERGES,
    FIELDS,
    FLIPS,
    HOLDS,
    NOISE,
    VERDICTS,
    add_across,
    change_interval,
    field_of,
    field_seats,
    parse_fields,
    skill_verdict,
)
from analysis.loba.rebuy_value import rebuy_fields_sentences, rebuy_value_fields
from sim.policies import parse_seats


# ---------------------------------------------------------------- the verdict, literal intervals
@pytest.mark.parametrize(
    "ref, other, verdict",
    [
        ((3.8, 4.2), (3.4, 3.8), HOLDS),  # +4.0 with greedy, +3.6 with smart
        ((-0.3, -0.1), (-0.5, -0.01), HOLDS),
        ((0.1, 0.3), (-0.3, -0.1), FLIPS),
        ((-0.3, -0.1), (0.05, 0.2), FLIPS),
        ((0.1, 0.3), (-0.05, 0.2), NOISE),
        ((0.1, 0.3), (0.0, 0.2), NOISE),  # an end at 0 covers it
        ((-0.1, 0.3), (0.1, 0.2), EMERGES),
        ((-0.1, 0.3), (-0.2, 0.2), BOTH_NOISE),
        ((0.0, 0.0), (0.0, 0.0), BOTH_NOISE),
        ((math.nan, math.nan), (0.1, 0.2), CANNOT),
        ((0.1, 0.2), (None, None), CANNOT),
    ],
)
def test_skill_verdict_on_literal_intervals(ref, other, verdict):
    assert skill_verdict(*ref, *other) == verdict
    assert verdict in VERDICTS


def test_change_interval_combines_half_widths():
    d, lo, hi = change_interval(4.0, 3.8, 4.2, 3.6, 3.3, 3.9)
    h = math.hypot(0.2, 0.3)
    assert (d, lo, hi) == pytest.approx((-0.4, -0.4 - h, -0.4 + h))
    assert change_interval(None, 0, 1, 1, 0, 2) == (None, None, None)


def test_add_across_against_the_first_field():
    df = pl.DataFrame(
        {
            "field": ["greedy", "greedy", "smart", "smart", "mixed", "mixed"],
            "measure": ["a", "b"] * 3,
            "d": [4.0, 0.2, 3.6, -0.2, 4.1, None],
            "lo": [3.8, 0.1, 3.4, -0.3, 3.9, None],
            "hi": [4.2, 0.3, 3.8, -0.1, 4.3, None],
        }
    )
    out = add_across(df, ["measure"], "d", "lo", "hi", ["greedy", "smart", "mixed"])
    assert out["across"].to_list() == ["", "", HOLDS, FLIPS, HOLDS, ""]
    assert out["change"][2] == pytest.approx(-0.4) and out["change"][0] is None
    assert out["change_low"][3] < out["change"][3] < out["change_high"][3]


# ---------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", list(FIELDS))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_field_is_a_seating_and_read_back(name, players):
    seats = field_seats(name, players)
    parsed = parse_seats(seats)
    assert len(parsed) == players
    pol = FIELDS[name]
    assert [s.label for s in parsed] == [pol[i % len(pol)] for i in range(players)]
    assert field_of(seats) == name
    assert field_of(seats.split(",")) == name


def test_mixed_alternates_greedy_and_smart_and_a_policy_is_a_field():
    assert field_seats("mixed") == "greedy,smart,greedy,smart"
    assert field_seats("careful", 3) == "careful,careful,careful"
    assert field_of("greedy,hold,greedy,hold") is None
    assert parse_fields(" greedy, smart ,mixed") == ["greedy", "smart", "mixed"]


@pytest.mark.parametrize(
    "text, needle",
    [("brilliant", "Unknown field 'brilliant'"), ("greedy,greedy", "twice"), (",", "no field")],
)
def test_parse_fields_refuses_in_one_sentence(text, needle):
    with pytest.raises(AnalysisError, match=needle):
        parse_fields(text)


# ---------------------------------------------------------------- the commands
@pytest.mark.parametrize("name", list(FIELDS))
def test_rebuy_value_field_is_that_seating(capsys, name):
    from analysis.loba.rebuy import rebuy_value_policy

    games = 6 if name == "expert" else 80  # the expert field searches: a few games a second
    code, out, err = run(capsys, "rebuy-value", "--field", name, "--games", games, "--format",
                         "json")  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    assert {r["field"] for r in rows} == {name}
    same = rebuy_value_policy("pagat", field_seats(name), games, 0).table
    got = {r["measure"]: r["difference"] for r in rows}
    assert got == pytest.approx(dict(zip(same["measure"], same["difference"], strict=True)))


def test_rebuy_value_across_fields_words_each_verdict(capsys):
    code, out, err = run(capsys, "rebuy-value", "--field", "greedy,smart,mixed", "--games", 80)
    assert code == 0, err
    assert "Across skill (each field against greedy players):" in out
    for f in ("greedy", "smart", "mixed"):
        assert f"{f} players ({field_seats(f)}):" in out
    code, out, err = run(
        capsys, "rebuy-value", "--field", "greedy,smart,mixed", "--games", 80, "--format", "json"
    )
    t = pl.DataFrame(json.loads(out))
    assert t["field"].unique(maintain_order=True).to_list() == ["greedy", "smart", "mixed"]
    for r in t.filter(pl.col("field") != "greedy").iter_rows(named=True):
        ref = t.filter((pl.col("field") == "greedy") & (pl.col("measure") == r["measure"])).row(
            0, named=True
        )
        want = skill_verdict(
            ref["paired_low"], ref["paired_high"], r["paired_low"], r["paired_high"]
        )
        assert r["across"] == want
    assert t.filter(pl.col("field") == "greedy")["across"].to_list() == ["", ""]
    api = rebuy_value_fields("pagat", ["greedy", "smart", "mixed"], games=80)
    assert api["difference"].to_list() == pytest.approx(t["difference"].to_list())
    assert api["across"].to_list() == t["across"].to_list()
    assert len(rebuy_fields_sentences(api)) == 2


@pytest.fixture(scope="module")
def field_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("field_sweep") / "sw"
    code = cli.main(
        ["sweep", "--vary", "elimination_score=101,151", "--field", "greedy,smart",
         "--games", "40", "--seed", "3", "--no-rebuy-value", "--out", str(out), "--format", "csv"]
    )  # fmt: skip
    assert code == 0
    return out


def test_sweep_field_prints_the_verdicts_and_no_rebuy_value_it_skipped(capsys, tmp_path):
    code, out, err = run(
        capsys, "sweep", "--vary", "elimination_score=101,151", "--field", "greedy,mixed",
        "--games", "30", "--no-rebuy-value", "--out", tmp_path / "s",
    )  # fmt: skip
    assert code == 0, err
    assert "Across skill (each field against greedy players, same seeds):" in out
    assert "mean_rounds, elimination_score=151 - elimination_score=101:" in out
    assert "rebuy_value" not in out


def test_sweep_field_adds_a_field_axis(field_sweep):
    s = pl.read_csv(field_sweep / "summary.csv")
    assert s["field"].to_list() == ["greedy", "greedy", "smart", "smart"]
    assert s["elimination_score"].to_list() == [101, 151, 101, 151]
    for f in ("greedy", "smart"):
        own = pl.read_csv(field_sweep / f"field={f}" / "summary.csv")
        assert (
            own["mean_rounds"].to_list() == s.filter(pl.col("field") == f)["mean_rounds"].to_list()
        )
        seats = pl.read_parquet(
            field_sweep / f"field={f}/cells/elimination_score=151/seats.parquet"
        )
        assert set(seats["policy"].to_list()) == {f}
    g, m = s.row(1, named=True), s.row(3, named=True)
    want = skill_verdict(
        g["mean_rounds_diff_low"], g["mean_rounds_diff_high"],
        m["mean_rounds_diff_low"], m["mean_rounds_diff_high"],
    )  # fmt: skip
    assert m["mean_rounds_across"] == want and s["mean_rounds_across"][2] in ("", None)
    assert json.loads((field_sweep / "sweep.json").read_text())["fields"] == ["greedy", "smart"]


def test_compare_and_report_across_fields(field_sweep, capsys, tmp_path):
    cells = sorted(str(p.parent) for p in field_sweep.glob("field=*/cells/*/manifest.json"))
    code, out, err = run(capsys, "compare", *cells, "--field", "greedy,smart", "--format", "json")
    assert code == 0, err
    t = pl.DataFrame(json.loads(out))
    r = t.filter((pl.col("field") == "smart") & (pl.col("metric") == "rounds per game")).filter(
        pl.col("diff").is_not_null()
    )
    s = pl.read_csv(field_sweep / "summary.csv").row(3, named=True)
    assert r["diff"][0] == pytest.approx(s["mean_rounds_diff"])
    assert r["across"][0] == s["mean_rounds_across"]
    code, out, err = run(capsys, "compare", *cells, "--field", "greedy,smart")
    assert code == 0 and "Across skill" in out and "rounds per game" in out
    code, out, err = run(capsys, "report", *cells, "-o", tmp_path / "r.html")
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "<h3>Across skill</h3>" in html and "smart vs greedy" in html


@pytest.mark.parametrize(
    "args, needle",
    [
        (["rebuy-value", "--field", "brilliant"], "Unknown field 'brilliant'"),
        (["rebuy-value", "--field", "greedy", "--seats", "greedy,greedy"], "give one of them"),
        (["rebuy-value", "--field", "greedy,smart", "--plot", "{tmp}/p.png"], "one --field"),
        (["sweep", "--vary", "max_rebuys=0,1", "--field", "greedy,greedy", "--out", "{tmp}/s"],
         "twice"),
        (["compare", "{sweep}/field=greedy/cells/elimination_score=101",
          "{sweep}/field=greedy/cells/elimination_score=151", "--field", "greedy,mixed"],
         "No run has the seats of field 'mixed'"),
        (["compare", "{sweep}/field=greedy/cells/elimination_score=101",
          "{sweep}/field=smart/cells/elimination_score=101", "--field", "greedy,smart"],
         "at least two rule sets"),
        (["report", "{sweep}/field=greedy/cells/elimination_score=101", "--field", "smart",
          "-o", "{tmp}/r.html"], "No run has the seats of field 'smart'"),
    ],
)  # fmt: skip
def test_bad_field_input_one_sentence_exit_2(field_sweep, tmp_path, capsys, args, needle):
    args = [a.format(tmp=tmp_path, sweep=field_sweep) for a in args]
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_fields_of_every_game_are_its_policies_at_its_table():
    from analysis.field import default_players, field_seats, parse_fields
    from sim.games import game_names, get_game

    for g in game_names():
        spec = get_game(g)
        n = len(spec.default_seats.split(","))
        assert default_players(g) == n
        for p in spec.policies:
            assert parse_fields(p, g) == [p]
            assert field_seats(p, game=g) == ",".join([p] * n)
    with pytest.raises(AnalysisError, match="Unknown field 'smart': choose from greedy"):
        parse_fields("greedy,smart", "moon")


def test_moon_sweep_with_a_field(tmp_path, capsys):
    from runs_util import run_cli

    code, out, err = run_cli(
        capsys, "sweep", "--game", "moon", "--vary", "allow_doubles_trump=true,false",
        "--field", "greedy,count", "--games", 30, "--out", tmp_path / "m",
    )  # fmt: skip
    assert code == 0, err
    assert "with count players" in out and (tmp_path / "m" / "field=count").is_dir()

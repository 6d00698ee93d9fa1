"""Findings re-checked across fields (analysis/findings.py, `loba findings`): the verdict on
literal intervals, every game's declared fields and findings, a small real run of each game
through the command (and read again from --out), and bad input."""

from __future__ import annotations

import json
import math

import pytest
from runs_util import run_cli as run

from analysis.bygame import registered
from analysis.field import CANNOT, FLIPS, HOLDS, field_seats, named_fields, parse_fields
from analysis.findings import CHANGES, FINDING_VERDICTS, MORE, finding_verdict, run_findings
from sim.policies import parse_seats
from sim.setup import settings

STUDIES = [(spec.name, ga) for spec, ga in registered() if ga.findings is not None]


# ---------------------------------------------------------------- the verdict, literal intervals
@pytest.mark.parametrize(
    "ref, other, reference, verdict",
    [
        ((4.0, 3.8, 4.2), (3.9, 3.7, 4.1), 0.0, HOLDS),  # same side, no detectable change
        ((0.25, 0.2, 0.3), (0.26, 0.21, 0.31), 0.25, HOLDS),  # both cover the fair share
        ((-0.2, -0.3, -0.1), (-0.21, -0.35, -0.05), 0.0, HOLDS),
        ((4.0, 3.9, 4.1), (3.6, 3.5, 3.7), 0.0, CHANGES),  # same side, the change excludes 0
        ((0.2, 0.15, 0.25), (0.02, -0.03, 0.07), 0.0, CHANGES),  # resolved, then not: a change
        ((0.2, 0.1, 0.3), (0.05, -0.1, 0.2), 0.0, CANNOT),  # the other too wide to say either
        ((0.25, 0.2, 0.3), (0.4, 0.35, 0.45), 0.25, CHANGES),  # the other resolves
        ((0.3, 0.26, 0.34), (0.2, 0.16, 0.24), 0.25, FLIPS),  # opposite sides of the fair share
        ((0.2, 0.1, 0.3), (-0.2, -0.3, -0.1), 0.0, FLIPS),
        ((0.2, 0.1, 0.3), (-0.02, -0.03, -0.01), 0.0, FLIPS),
        ((0.2, None, None), (0.1, 0.0, 0.2), 0.0, CANNOT),
        ((0.2, 0.1, 0.3), (math.nan, math.nan, math.nan), 0.0, CANNOT),
    ],
)
def test_finding_verdict_on_literal_intervals(ref, other, reference, verdict):
    assert finding_verdict(*ref, *other, reference) == verdict
    assert verdict in FINDING_VERDICTS


def test_the_verdict_does_not_hang_on_the_first_field_alone():
    # the same two intervals read the other way round keep the kind of verdict
    assert finding_verdict(0.02, -0.03, 0.07, 0.2, 0.15, 0.25) == CHANGES
    assert finding_verdict(0.05, -0.1, 0.2, 0.2, 0.1, 0.3) == CANNOT
    assert finding_verdict(-0.2, -0.3, -0.1, 0.2, 0.1, 0.3) == FLIPS


# ---------------------------------------------------------------- the declarations
@pytest.mark.parametrize("game, ga", STUDIES, ids=[g for g, _ in STUDIES])
def test_every_game_declares_fields_weakest_first_with_an_expert(game, ga):
    fields = named_fields(game)
    assert fields == {f: tuple(p) for f, p in ga.fields.items()}
    assert list(fields)[0] == "greedy" and "expert" in fields and "mixed" in fields
    for f in fields:
        seats = field_seats(f, game=game)
        assert len(parse_seats(seats, game=game)) == len(
            field_seats("greedy", game=game).split(",")
        )
    assert field_seats("mixed", game=game).split(",")[0] == "greedy"  # seat 0 the weaker
    assert parse_fields(list(ga.findings.fields), game) == list(ga.findings.fields)


@pytest.mark.parametrize("game, ga", STUDIES, ids=[g for g, _ in STUDIES])
def test_every_finding_reads_arms_the_study_plays(game, ga):
    study = ga.findings
    tags = [a.tag for a in study.arms]
    assert len(set(tags)) == len(tags)
    keys = [f.key for f in study.findings]
    assert len(set(keys)) == len(keys)
    for f in study.findings:
        assert set(f.arms) <= set(tags), f.key
    seats = field_seats("greedy", game=game).split(",")
    for a in study.arms:
        settings(study.rules, a.sets, None, game)  # every knob setting is valid
        if a.seats is not None:
            parse_seats(",".join(a.seats(seats)), game=game)


# ---------------------------------------------------------------- small real runs
@pytest.mark.parametrize("game, ga", STUDIES, ids=[g for g, _ in STUDIES])
def test_findings_command_end_to_end(capsys, tmp_path, game, ga):
    out = tmp_path / "f"
    args = ["findings", "--game", game, "--field", "greedy,mixed", "--games", 60, "--seed", 3]
    code, text, err = run(capsys, *args, "--out", out, "--format", "json")
    assert code == 0, err
    got = json.loads(text)
    assert got["fields"] == ["greedy", "mixed"] and got["games"] == {"greedy": 60, "mixed": 60}
    rows = got["rows"]
    assert {r["finding"] for r in rows} == {f.key for f in ga.findings.findings}
    for r in rows:
        assert r["field"] in ("greedy", "mixed") and r["games"] == 60
        assert r["seats"] == field_seats(r["field"], game=game)
        assert (r["verdict"] == "") == (r["field"] == "greedy")
        assert r["verdict"] in ("", *FINDING_VERDICTS)
        if r["ci_low"] is not None:
            assert r["ci_low"] <= r["value"] <= r["ci_high"]
    # the runs are kept; the same command reads them again (nothing replayed) and agrees
    parts = sorted(out.glob("field=*/*/games.parquet/*.parquet"))
    assert parts and (out / "findings.json").exists() and (out / "findings.csv").exists()
    stamps = [p.stat().st_mtime_ns for p in parts]
    code, again, err = run(capsys, *args, "--out", out, "--format", "json")
    assert code == 0, err
    assert json.loads(again)["rows"] == rows
    assert [p.stat().st_mtime_ns for p in parts] == stamps
    # the table and the sentences: every finding once, each field's column
    code, table, err = run(capsys, *args, "--out", out)
    assert code == 0, err
    for f in ga.findings.findings:
        assert sum(line.startswith(f"{f.title} — ") for line in table.splitlines()) == 1
    assert "with mixed players it" in table


def test_the_python_api_matches_in_memory_and_on_disk(tmp_path):
    a = run_findings("loba", "greedy,smart", 40, seed=5, findings="dealer-left")
    b = run_findings("loba", "greedy,smart", 40, seed=5, findings="dealer-left", out=tmp_path)
    assert a.table.drop("method").equals(b.table.drop("method"))
    assert a.table["finding"].unique().to_list() == ["dealer-left"]


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "args, needle",
    [
        (["--field", "greedy,brilliant"], "Unknown field 'brilliant'"),
        (["--game", "moon", "--field", "greedy,smart"], "Unknown field 'smart'"),
        (["--games", "1"], "--games must be a whole number from 2"),
        (["--field", "greedy,mixed", "--games-expert", "5"], "names no expert field"),
        (["--games-expert", "0"], "--games-expert must be a whole number from 2"),
        (["--finding", "luck", "--games", "4"], "Unknown finding 'luck'"),
        (["--field", "greedy,greedy"], "twice"),
        (["--out", "", "--games", "4"], "--out is empty"),
    ],
)
def test_bad_input_one_sentence_exit_2(capsys, args, needle):
    code, out, err = run(capsys, "findings", *args)
    assert code == 2, err
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("game, ga", STUDIES, ids=[g for g, _ in STUDIES])
def test_a_study_grows_and_shrinks_on_its_kept_runs(capsys, tmp_path, game, ga):
    """More games play only the rest (into ARM@FIRST), fewer read the first ones: either way
    the rows are those of a study played whole in memory; another run is refused by name."""
    key = ga.findings.findings[0].key
    base = ["findings", "--game", game, "--field", "greedy,mixed", "--finding", key,
            "--out", tmp_path, "--format", "json"]  # fmt: skip

    def rows(*more):
        code, text, err = run(capsys, *base, *more)
        assert code == 0, err
        return [{k: v for k, v in r.items() if k != "method"} for r in json.loads(text)["rows"]]

    def alone(n, seed=3):
        t = run_findings(game, "greedy,mixed", n, seed=seed, findings=key).table.drop("method")
        return json.loads(json.dumps(t.to_dicts(), default=str))

    assert rows("--games", 20, "--seed", 3) == alone(20)
    first = sorted(tmp_path.glob("field=*/*/games.parquet/*.parquet"))
    stamps = [p.stat().st_mtime_ns for p in first]
    assert rows("--games", 30, "--seed", 3) == alone(30)
    grown = sorted(tmp_path.glob(f"field=*/*{MORE}20"))
    assert grown and all(json.loads((g / "manifest.json").read_text())["first_game"] == 20
                         for g in grown)  # fmt: skip
    assert rows("--games", 25, "--seed", 3) == alone(25)  # reads the first 25: nothing played
    assert [p.stat().st_mtime_ns for p in first] == stamps
    code, _, err = run(capsys, *base, "--games", 30, "--seed", 4)
    assert code == 2 and "holds another run" in err and len(err.strip().splitlines()) == 1
    assert rows("--games", 30, "--seed", 4, "--overwrite") == alone(30, seed=4)
    assert not list(tmp_path.glob(f"field=*/*{MORE}*"))  # the old run's later games removed


def test_a_game_without_findings_is_told_so(capsys):
    from sim.games import register_game, unregister_game

    register_game("toy", "examples.toy.spec")  # an outside game that declares none
    try:
        code, _, err = run(capsys, "findings", "--game", "toy")
    finally:
        unregister_game("toy")
    assert code == 2 and "declares no findings" in err and len(err.strip().splitlines()) == 1

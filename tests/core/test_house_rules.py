"""House rules in a TOML file (--rules house.toml, sim.simulate(rules=...)), 'loba rules
--format toml', 'loba replay RUN_DIR', and -v/--verbose."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import polars as pl
import pytest

import cli
import sim
from sim.house import HouseRulesError, house_toml, load_house_rules
from sim.runner import stream_run
from sim.setup import make_rules, parse_rules_id

HOUSE = """\
# Friday night at Ana's
preset = "pagat"
label = "Friday night"
seats = ["greedy", "greedy", "hold:patience=2", "random"]

[knobs]
elimination_score = 151
max_rebuys = 1
"""
HOUSE_ID = "loba:pagat(elimination_score=151,max_rebuys=1)"
HOUSE_SEATS = ["greedy", "greedy", "hold:patience=2", "random"]


def run(capsys, *args):
    try:
        code = cli.main(list(args))
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def house(tmp_path) -> Path:
    p = tmp_path / "house.toml"
    p.write_text(HOUSE)
    return p


# ------------------------------------------------------------------ the file and its round trip
@pytest.mark.parametrize(
    "rules",
    [
        make_rules(),
        make_rules("pagat", elimination_score=151, score_floor=-50),
        make_rules("classic", joker_discard="last_only"),
        make_rules("rami", discard_take="meld_or_layoff", reshuffle_keep_top=False),
        parse_rules_id("moon:gamerules(target=31,moon=instant)"),
    ],
    ids=lambda r: r.id,
)
def test_written_file_loads_as_the_same_rules_id(tmp_path, rules):
    text = house_toml(rules)
    data = tomllib.loads(text)
    assert set(data["knobs"]) == {k.name for k in rules.spec.knobs}  # every knob is written
    assert rules.id in text.splitlines()[0]  # the id as a comment
    p = tmp_path / "h.toml"
    p.write_text(text)
    back = load_house_rules(p)
    assert back.rules.id == rules.id and back.rules == rules
    assert back.seats is None and back.label is None


def test_rules_format_toml_round_trips_and_keeps_seats_and_label(capsys, tmp_path, house):
    code, text, _ = run(
        capsys, "rules", "--rules", str(house), "--set", "stake=3", "--format", "toml"
    )
    assert code == 0
    assert 'label = "Friday night"' in text and 'score_floor = "none"' in text
    assert "# [A29] default 101; 1..100000" in text
    again = tmp_path / "again.toml"
    again.write_text(text)
    back = load_house_rules(again)
    assert back.rules.id == "loba:pagat(stake=3,elimination_score=151,max_rebuys=1)"
    assert list(back.seats) == HOUSE_SEATS and back.label == "Friday night"
    code, text, _ = run(capsys, "rules", str(again))  # the table shows the same id
    assert code == 0 and text.splitlines()[0] == f"rules: {back.rules.id}"
    code, text, _ = run(
        capsys, "rules", "classic", "--format", "toml", "--seats", "greedy,hold", "--label", "x"
    )
    data = tomllib.loads(text)
    assert code == 0 and data["seats"] == ["greedy", "hold"] and data["label"] == "x"
    assert data["preset"] == "classic" and data["game"] == "loba"


def test_knobs_go_under_knobs_and_seats_may_be_one_string(tmp_path):
    p = tmp_path / "h.toml"
    p.write_text('game = "moon"\nseats = "count, greedy,random"\n[knobs]\ntarget = 31\n')
    h = load_house_rules(p)
    assert h.rules.id == "moon:gamerules(target=31)" and h.seats == ("count", "greedy", "random")
    p.write_text("elimination_score = 151\n")
    with pytest.raises(HouseRulesError, match=r"put the knob 'elimination_score' under \[knobs\]"):
        load_house_rules(p)


BAD = [
    (None, "does not exist"),
    ("this is not toml\n", "is not valid TOML at line 1, column 6"),
    (b"\xff\xfe\x00", "is not TOML: it is not UTF-8 text"),
    ('colour = "red"\n', "unknown key 'colour'"),
    ("max_rebuys = 0\n", "put the knob 'max_rebuys' under [knobs]"),
    ("[knobs]\nelimination_scor = 151\n", "unknown rule 'elimination_scor'"),
    ('[knobs]\nelimination_score = "lots"\n', "rule 'elimination_score' takes a whole number"),
    ("[knobs]\nescalera_min = 2\n", "rule 'escalera_min' must be between 3 and 13, not 2"),
    ("[knobs]\nescalera_min = [3, 4]\n", "takes one value, not a list"),
    ("[knobs]\nscore_floor = 500\n", "must be below 'elimination_score'"),
    ("knobs = 5\n", "'knobs' must be a table"),
    ('game = "chess"\n', "unknown game 'chess'"),
    ('preset = "nope"\n', "unknown Loba preset 'nope'"),
    ("label = 3\n", "'label' must be a non-empty string"),
    ("seats = 5\n", "'seats' must be a list of seat strings"),
    ('seats = ["greedy"]\n', "2 to 5 players, not 1"),
    ('seats = "greedy,nope"\n', "'seats': unknown policy 'nope'"),
]


@pytest.mark.parametrize("content, needle", BAD, ids=[n for _, n in BAD])
def test_every_problem_of_a_file_is_one_sentence_exit_2(capsys, tmp_path, content, needle):
    p = tmp_path / "house.toml"
    if isinstance(content, bytes):
        p.write_bytes(content)
    elif content is not None:
        p.write_text(content)
    code, out, err = run(capsys, "simulate", "--rules", str(p), "--games", "2", "--quiet")
    assert code == 2, err
    assert needle in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and out == ""


def test_seats_given_beside_a_file_must_agree(capsys, house):
    code, _, err = run(
        capsys, "simulate", "--rules", str(house), "--seats", "greedy,greedy,greedy", "--games", "2"
    )
    assert code == 2 and "disagree with the seats of house-rules file" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(
        capsys, "simulate", "--rules", str(house), "--seats", ",".join(HOUSE_SEATS), "--games", "2"
    )
    assert code == 0, err
    code, _, err = run(capsys, "simulate", "--rules", str(house), "--game", "moon", "--games", "2")
    assert code == 2 and "names no game, so it holds Loba rules" in err


# ------------------------------------------------------------------ runs with a house file
def test_simulate_with_a_house_file_uses_its_rules_seats_and_label(capsys, tmp_path, house):
    out = tmp_path / "run"
    args = ["simulate", "--rules", str(house), "--games", "40", "--seed", "3", "--out", str(out)]
    code, text, err = run(capsys, *args, "--set", "stake=2")
    assert code == 0, err
    assert text.splitlines()[0] == "label Friday night"
    assert "loba:pagat(stake=2,elimination_score=151,max_rebuys=1)" in text  # --set wins
    man = json.loads((out / "manifest.json").read_text())
    assert man["seats"] == HOUSE_SEATS and man["label"] == "Friday night"
    assert man["rules_id"] == "loba:pagat(stake=2,elimination_score=151,max_rebuys=1)"
    code, text, _ = run(capsys, "simulate", "--rules", str(house), "--games", "5", "--json")
    rep = json.loads(text)
    assert rep["label"] == "Friday night" and rep["rules_id"] == HOUSE_ID
    assert rep["seat_labels"] == HOUSE_SEATS


def test_a_house_file_run_is_named_by_its_label_in_summarize_and_compare(capsys, tmp_path, house):
    from analysis.io import load_runs

    a, b = tmp_path / "a", tmp_path / "b"
    for out, rules in ((a, str(house)), (b, "pagat")):
        args = ["simulate", "--rules", rules, "--seats", ",".join(HOUSE_SEATS), "--games", "30"]
        assert run(capsys, *args, "--seed", "4", "--out", str(out))[0] == 0
    assert load_runs([a, b]).variants == ["Friday night", "loba:pagat"]
    assert load_runs([a, b], labels=["x", "y"]).variants == ["x", "y"]  # --label still wins
    code, text, err = run(capsys, "summarize", str(a), "--format", "json")
    assert code == 0, err
    assert {r["variant"] for r in json.loads(text)} == {"Friday night"}
    code, text, err = run(capsys, "compare", str(b), str(a), "--format", "json")
    assert code == 0, err
    assert {r["variant"] for r in json.loads(text)} >= {"Friday night"}


def test_python_api_takes_a_toml_path_or_a_path_object(house):
    a = sim.simulate(rules=str(house), games=30, seed=2)
    b = sim.simulate(rules=Path(house), games=30, seed=2)
    c = sim.simulate(HOUSE_ID, HOUSE_SEATS, games=30, seed=2)
    assert a.rules.id == b.rules.id == HOUSE_ID and a.seat_labels == HOUSE_SEATS
    assert a.games.equals(b.games) and a.games.equals(c.games)
    assert a.manifest()["label"] == "Friday night" and "label" not in c.manifest()
    with pytest.raises(HouseRulesError, match="disagree"):
        sim.simulate(rules=house, seats="greedy,greedy", games=2)
    with pytest.raises(HouseRulesError, match="does not exist"):
        sim.simulate(rules="nope.toml", games=2)


# ------------------------------------------------------------------ replay RUN_DIR
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("replay") / "run"
    stream_run(
        "pagat(elimination_score=151)",
        "greedy,hold:patience=2,random",
        games=30,
        seed=7,
        out_dir=d,
        chunk_size=10,
    )
    return d


@pytest.mark.parametrize("k", [0, 12, 29])
def test_replay_from_a_run_directory_is_that_game_of_its_tables(capsys, run_dir, k):
    code, text, err = run(capsys, "replay", str(run_dir), "--index", str(k), "--format", "jsonl")
    assert code == 0, err
    events = [json.loads(line) for line in text.splitlines()]
    head, end = events[0], events[-1]
    assert head["rules_id"] == "loba:pagat(elimination_score=151)"
    row = pl.read_parquet(run_dir / "games.parquet").filter(pl.col("game") == k).row(0, named=True)
    assert end["type"] == "end"
    assert end["winner"] == row["winner"] and end["rounds"] == row["rounds"]
    assert sum(e["type"] == "draw" for e in events) == row["turns"]
    # the same game from the run's settings spelled out
    code, spelled, _ = run(
        capsys,
        "replay",
        "--rules",
        "pagat(elimination_score=151)",
        "--seats",
        "greedy,hold:patience=2,random",
        "--seed",
        "7",
        "--index",
        str(k),
        "--format",
        "jsonl",
    )
    assert code == 0 and spelled == text


def test_replay_accepts_options_that_agree_with_the_manifest(capsys, run_dir):
    code, text, err = run(
        capsys,
        "replay",
        str(run_dir),
        "--index",
        "3",
        "--seed",
        "7",
        "--game",
        "loba",
        "--rules",
        "loba:pagat(elimination_score=151)",
        "--set",
        "elimination_score=151",
        "--seats",
        "greedy,hold:patience=2,random",
    )
    assert code == 0, err
    assert text.startswith("Game 3 of seed 7 under loba:pagat(elimination_score=151)")


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--seed", "8"], "--seed 8 contradicts the run in"),
        (["--rules", "pagat"], "--rules/--set give loba:pagat, but the run in"),
        (["--set", "max_rebuys=0"], "give loba:pagat(elimination_score=151,max_rebuys=0)"),
        (["--seats", "greedy,greedy,greedy"], "--seats greedy,greedy,greedy contradicts"),
        (["--game", "moon"], "--game moon contradicts the run in"),
        (["--index", "30"], "has games 0 to 29, not game 30"),
        (["--index", "-1"], "has games 0 to 29, not game -1"),
        (["--position", "x.toml"], "--position replays a position file"),
    ],
)
def test_replay_refuses_what_contradicts_the_run(capsys, run_dir, extra, needle):
    args = ["replay", str(run_dir), *extra]
    if "--index" not in extra:
        args += ["--index", "3"]
    code, out, err = run(capsys, *args)
    assert code == 2 and needle in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and out == ""


def test_replay_of_a_folder_that_is_not_a_run(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path), "--index", "0")
    assert code == 2 and "is not a run directory: it has no manifest.json" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "nope"), "--index", "0")
    assert code == 2 and "does not exist" in err


# ------------------------------------------------------------------ -v/--verbose
def test_verbose_says_what_is_done_on_stderr_and_leaves_stdout_alone(capsys, tmp_path, house):
    args = ["simulate", "--rules", str(house), "--games", "30", "--seed", "4", "--threads", "1"]
    code, plain, plain_err = run(capsys, *args)
    assert code == 0 and "[loba]" not in plain_err
    for argv in (["-v", *args], [*args, "--verbose"]):
        code, text, err = run(capsys, *argv)
        assert code == 0
        strip = [x for x in text.splitlines() if " games in " not in x]  # the timing line
        assert strip == [x for x in plain.splitlines() if " games in " not in x]
        said = [x for x in err.splitlines() if x.startswith("[loba] ")]
        joined = "\n".join(said)
        assert f"rules {HOUSE_ID} (from {house})" in joined
        assert "seats greedy,greedy,hold:patience=2,random; seed 4" in joined
        assert "30 games in chunks of 30 (1 chunk)" in joined
        assert "backend local: 1 kernel thread of" in joined
        assert "kernel cache: " in joined and "kernel ready in" in joined
        assert "[loba] kernel: turn loop in memory already" in joined  # (the first run's)
        assert " s; summarised in " in joined
    code, _, err = run(capsys, "-v", "replay", "--seed", "1", "--index", "2", "--format", "jsonl")
    assert code == 0 and "[loba] game index 2" in err and "[loba] replayed game 2 (" in err


@pytest.mark.parametrize(
    "args, needle",
    [
        (["replay", "12"], "No run directory '12'; a game index is --index 12"),
        (["rules", "--seats", "greedy,greedy"], "add --format toml"),
        (["rules", "pagat", "--rules", "rami"], "Give the rules once"),
        (["rules", "--format", "toml", "--seats", "greedy"], "2 to 5 players, not 1"),
    ],
)
def test_misuse_is_one_sentence_exit_2(capsys, args, needle):
    if args[0] == "replay":
        args = [*args, "--index", "0"]
    code, out, err = run(capsys, *args)
    assert code == 2 and needle in err, err
    assert len(err.strip().splitlines()) == 1 and out == ""

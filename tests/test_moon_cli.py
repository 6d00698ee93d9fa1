"""Three-Player Moon through the command line: check-trick, simulate, rules, replay, audit."""

from __future__ import annotations

import json

import pytest

import cli


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_b8_check_trick_names_the_winner_and_why(capsys):
    code, out, _ = run(capsys, "check-trick", "--trump", "6", "6-4", "6-6", "6-5")
    assert code == 0 and out.startswith("6-6 wins") and "[B8]" in out
    code, out, _ = run(capsys, "check-trick", "--trump", "6", "4-6", "6-6", "5-6", "--json")
    assert json.loads(out) == {"winner": 1}  # either order of a tile's ends is accepted
    code, out, _ = run(capsys, "check-trick", "--trump", "none", "5-3", "6-6", "5-5", "--json")
    assert json.loads(out) == {"winner": 2}  # 6-6 does not follow 5s; the double tops its suit


def test_b7_check_trick_lists_the_legal_tiles(capsys):
    args = ["check-trick", "--trump", "doubles", "--led", "6-4", "--hand", "5-5,6-1,3-2"]
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0 and json.loads(out) == {"legal": ["6-1"]}
    code, out, _ = run(capsys, "check-trick", "--trump", "doubles", "--led", "6-4",
                       "--hand", "5-5,3-2", "--json")  # fmt: skip
    assert json.loads(out) == {"legal": ["5-5", "3-2"]}  # cannot follow: anything, hand order


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--trump", "6", "6-4", "6-6", "3-0"], "'3-0' is not in the 22-tile set"),
        (["--trump", "6", "6-4", "6-6", "6-6"], "appears twice"),
        (["--trump", "purple", "6-4", "6-6", "6-5"], "'purple' is not a trump"),
        (["--trump", "7", "6-4", "6-6", "6-5"], "'7' is not a trump"),
        (["--trump", "6", "6-4", "6-6"], "A trick has 3 tiles"),
        (["--trump", "6", "--led", "6-4"], "Give --led and --hand together"),
    ],
)
def test_check_trick_bad_input_is_one_sentence_exit_2(capsys, args, needle):
    code, _, err = run(capsys, "check-trick", *args)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_moon_runs_through_the_same_commands(capsys, tmp_path):
    out_dir = tmp_path / "moon"
    code, out, err = run(
        capsys, "simulate", "--game", "moon", "--games", "300", "--seed", "2", "--rounds",
        "--out", out_dir,
    )  # fmt: skip
    assert code == 0, err
    assert "rules moon:gamerules  seats count,count,count" in out and "mean hands/game" in out
    man = json.loads((out_dir / "manifest.json").read_text())
    assert man["game"] == "moon" and man["tables"] == ["games", "seats", "hands"]
    code, out, _ = run(capsys, "rules", "moon:pagat")
    assert out.splitlines()[0] == "rules: moon:pagat"
    trace = tmp_path / "g.jsonl"
    code, out, _ = run(capsys, "replay", "--game", "moon", "--seed", "2", "--index", "7",
                       "--format", "jsonl")  # fmt: skip
    assert code == 0
    trace.write_text(out)
    code, out, _ = run(capsys, "audit", trace)
    assert code == 0 and out.strip() == "ok"
    code, _, err = run(capsys, "simulate", "--game", "moon", "--seats", "count,count")
    assert code == 2 and "exactly 3 players" in err


def test_summarize_reads_a_moon_run_and_refuses_mixing_games(capsys, tmp_path):
    moon, loba = tmp_path / "moon", tmp_path / "loba"
    assert run(capsys, "simulate", "--game", "moon", "--games", "200", "--out", moon)[0] == 0
    assert (
        run(capsys, "simulate", "--games", "50", "--seats", "greedy,greedy", "--out", loba)[0] == 0
    )
    code, out, err = run(capsys, "summarize", moon, "--format", "json")
    assert code == 0, err
    rows = {r["metric"]: r for r in json.loads(out)}
    shares = [rows[f"win share, seat {q}"]["value"] for q in range(3)]
    assert abs(sum(shares) - 1) < 1e-9 and rows["hands per game"]["value"] >= 1
    code, _, err = run(capsys, "summarize", moon, loba)
    assert code == 2 and "different games" in err


@pytest.mark.parametrize("command", ["compare", "report", "sweep"])
def test_loba_only_analyses_refuse_moon_runs_in_one_sentence(capsys, tmp_path, command):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "simulate", "--game", "moon", "--games", "50", "--out", a)[0] == 0
    rules = "moon:gamerules(target=31)"
    assert run(capsys, "simulate", "--rules", rules, "--games", "50", "--out", b)[0] == 0
    args = {
        "compare": ["compare", a, b],
        "report": ["report", a, "-o", tmp_path / "r.html"],
        "sweep": ["sweep", "--rules", "moon:gamerules", "--vary", "target=21,31",
                  "--games", "20", "--out", tmp_path / "sw"],
    }[command]  # fmt: skip
    code, _, err = run(capsys, *args)
    assert code == 2 and "knows Loba's metrics only so far" in err
    assert len(err.strip().splitlines()) == 1

"""Three-Player Moon through the command line: check-trick, simulate, rules, replay, audit,
and the analyses (summarize, compare, sweep, report)."""

from __future__ import annotations

import json
import re

import polars as pl
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


@pytest.fixture(scope="module")
def moon_runs(tmp_path_factory):
    """Moon runs of 200 games: a and b on the same seeds (b races to 31), c on other seeds
    without the hands table."""
    base = tmp_path_factory.mktemp("moon_runs")
    for name, args in (
        ("a", ["--seed", "2", "--rounds"]),
        ("b", ["--rules", "moon:gamerules(target=31)", "--seed", "2", "--rounds"]),
        ("c", ["--rules", "moon:gamerules(target=31)", "--seed", "3"]),
    ):
        code = cli.main(
            ["simulate", "--game", "moon", "--games", "200", "--quiet", "--out",
             str(base / name), *args]
        )  # fmt: skip
        assert code == 0
    return base


def test_compare_of_moon_runs_prints_paired_differences(capsys, moon_runs):
    code, out, err = run(capsys, "compare", moon_runs / "a", moon_runs / "b")
    assert code == 0, err
    assert "moon:gamerules(target=31) vs moon:gamerules: hands per game is higher" in out
    assert "same seeds, paired" in out and "unpaired 95% interval" in out
    assert re.search(r"hands per game +moon:gamerules\(target=31\) .* hands .* paired", out)
    assert "widow kept (share of played hands)" in out  # both runs have the hands table
    code, out, err = run(capsys, "compare", moon_runs / "a", moon_runs / "c", "--format", "json")
    assert code == 0, err
    rows = [r for r in json.loads(out) if r["diff"] is not None]
    assert rows and not any(r["paired"] for r in rows)  # other seeds: independent runs
    assert "widow kept (share of played hands)" not in {r["metric"] for r in rows}


def test_sweep_of_moon_knobs_writes_cells_summary_and_plot(capsys, tmp_path):
    out = tmp_path / "sw"
    code, text, err = run(
        capsys, "sweep", "--game", "moon", "--vary", "allow_doubles_trump=true,false",
        "--games", "300", "--seed", "5", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    assert "first_bidder_share" in text and "made_share" in text and "rebuy" not in text
    assert (out / "summary.csv").exists() and (out / "sweep.png").exists()
    s = pl.read_csv(out / "summary.csv")
    assert s["rules_id"].to_list() == [
        "moon:gamerules",
        "moon:gamerules(allow_doubles_trump=false)",
    ]
    assert not any(c.startswith("rebuy") for c in s.columns)
    assert (s["mean_hands_low"] <= s["mean_hands"]).all()
    assert (s["mean_hands"] <= s["mean_hands_high"]).all()
    # Hive-style cell folders spell the value as the rules id does (true, not True), and
    # every table carries the knob as a Boolean column
    a = pl.read_parquet(out / "cells" / "allow_doubles_trump=true" / "games.parquet")
    b = pl.read_parquet(out / "cells" / "allow_doubles_trump=false" / "games.parquet")
    assert a["first_bidder"].to_list() == b["first_bidder"].to_list()  # the same deals
    pooled = pl.read_parquet(out / "cells" / "**" / "seats.parquet" / "*.parquet")
    assert pooled.schema["allow_doubles_trump"] == pl.Boolean and pooled.height == 2 * 300 * 3
    assert pooled.group_by("allow_doubles_trump").len().sort("len")["len"].to_list() == [900] * 2
    assert (a["allow_doubles_trump"].all()) and not b["allow_doubles_trump"].any()
    assert json.loads((out / "sweep.json").read_text())["cells"] == [
        "allow_doubles_trump=true",
        "allow_doubles_trump=false",
    ]
    assert s["mean_hands_paired"][1] and s["made_share_paired"][1]
    lo, hi = s["mean_hands_diff_low"][1], s["mean_hands_diff_high"][1]
    assert lo <= s["mean_hands_diff"][1] <= hi
    assert hi - lo <= s["mean_hands_unpaired_high"][1] - s["mean_hands_unpaired_low"][1]
    assert json.loads((out / "sweep.json").read_text())["game"] == "moon"


MOON_SECTIONS = ("Bid success", "The moon", "The widow", "First-bidder advantage",
                 "Hands per game")  # fmt: skip
LOBA_ONLY = ("Seat advantage", "By policy", "rebuy", "eliminat", "dealer", "rounds per game")


def test_report_of_moon_runs_has_moon_sections_only(capsys, moon_runs, tmp_path):
    out_file = tmp_path / "moon.html"
    code, _, err = run(capsys, "report", moon_runs / "a", moon_runs / "b", "-o", out_file)
    assert code == 0, err
    html = out_file.read_text()
    assert "<title>Three-Player Moon: moon:gamerules vs" in html
    for title in MOON_SECTIONS:
        assert f"<h3>{title}</h3>" in html, title
    for word in LOBA_ONLY:
        assert word.lower() not in html.lower(), word
    assert html.count('src="data:image/png;base64,') >= 3 and "<script" not in html
    assert "Contracts made by bid: 4 — " in html and "same seeds, paired" in html
    assert "first-bidder positions equal" in html  # in the family of tests
    code, _, err = run(capsys, "report", moon_runs / "c", "-o", tmp_path / "c.html")
    assert code == 0, err  # no hands table: its sections say why
    assert (
        "Needs the hands table in every run: simulate with --rounds."
        in (tmp_path / "c.html").read_text()
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["report", "{a}", "-o", "{tmp}/r.html", "--rebuy-games", "10"], "has none to value"),
        (["sweep", "--game", "moon", "--vary", "foo=1,2", "--out", "{tmp}/s"],
         "Unknown rule 'foo': run 'loba rules --game moon'"),
        (["sweep", "--game", "loba", "--rules", "moon:gamerules", "--vary", "target=21,31",
          "--out", "{tmp}/s"], "names moon rules, but the game is loba"),
    ],
)  # fmt: skip
def test_moon_analysis_bad_input_is_one_sentence(capsys, moon_runs, tmp_path, args, needle):
    args = [a.format(a=moon_runs / "a", tmp=tmp_path) for a in args]
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_replay_round_picks_a_moon_hand(capsys):
    """``--round N`` of a Moon game is its hand N (Moon's events number hands), as text and as
    JSON Lines (the header and the end kept); a hand the game lacks is one sentence, exit 2."""
    args = ("replay", "--game", "moon", "--seed", "1", "--index", "3")
    code, full, _ = run(capsys, *args, "--format", "jsonl")
    events = [json.loads(x) for x in full.splitlines()]
    hands = {e["hand"] for e in events if "hand" in e and e["type"] != "end"}
    assert code == 0 and len(hands) >= 2
    code, out, _ = run(capsys, *args, "--round", "2", "--format", "jsonl")
    two = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [e["type"] for e in (two[0], two[-1])] == ["game", "end"]
    assert {e["hand"] for e in two[1:-1]} == {2} and len(two) < len(events)
    code, out, _ = run(capsys, *args, "--round", "2")
    assert code == 0 and "Hand 2 " in out and "Hand 1 " not in out
    code, _, err = run(capsys, *args, "--round", "999")
    assert code == 2 and "Game 3 has no hand 999." in err

"""The command line: happy paths, and every bad input gets one sentence and exit code 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import cli
from analysis.cli import console
from sim.games import game_names, get_game

ROOT = Path(__file__).parents[2]


def run(capsys, *args):
    try:
        code = cli.main(list(args))
    except SystemExit as e:  # check-meld exits 0/1 itself
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "args, needle",
    [
        (["simulate", "--set", "foo=1"], "Unknown rule 'foo'"),
        (["simulate", "--set", "escalera_min=2"], "'escalera_min' must be between 3 and 13"),
        (["simulate", "--set", "max_rebuys=lots"], "'max_rebuys' takes a whole number"),
        (["simulate", "--set", "elimination_score"], "is not a rule setting"),
        (["simulate", "--rules", "klondike"], "Unknown Loba preset 'klondike'"),
        (["simulate", "--set", "hand_size=30"], "cannot be dealt"),
        (["simulate", "--seats", "greedy"], "2 to 5 players, not 1"),
        (["simulate", "--seats", "greedy,greedy,greedy,greedy,greedy,greedy"], "not 6"),
        (["simulate", "--seats", "greedy,brilliant"], "Unknown policy 'brilliant'"),
        (["simulate", "--seats", "hold:patience=x,greedy"], "takes a number"),
        (["simulate", "--seats", "hold:speed=1,greedy"], "has no parameter 'speed'"),
        (["simulate", "--seats", "hold:patience=-1,greedy"], "must be between 0 and 200, not -1"),
        (["simulate", "--seats", "hold:patience=inf,greedy"], "takes a finite number"),
        (
            ["simulate", "--seats", "greedy+rebuy=if_opponents:k=5,greedy"],
            "'k' of 'if_opponents' must be between 0 and 4",
        ),
        (["simulate", "--seats", "greedy+rebuy=sometimes,greedy"], "Unknown rebuy rule"),
        (["simulate", "--seats", "greedy+buy=1,greedy"], "take +rebuy=RULE"),
        (["simulate", "--seats", "greedy,,greedy"], "empty seat"),
        (["simulate", "--games", "0"], "at least 1"),
        (["simulate", "--seed", "-3"], "The seed must be"),
        (["simulate", "--threads", "0"], "--threads must be"),
        (["simulate", "--games", "many"], "'many' is not a valid integer"),
        (["check-meld", "5S", "6X"], "'6X' is not a card"),
        (["rules", "nope"], "Unknown Loba preset 'nope'"),
        (["rules", "--game", "chess"], "Invalid value for '--game'"),
        (["rules", "loba:pagat(max_rebuys=x)"], "Rule 'max_rebuys' takes a whole number"),
        (["simulate", "--rules", "pagat(", "--games", "5"], "is not a rule set id"),
        (["replay", "--seed", "1"], "Give its index in the run"),
        (["replay", "--seed", "-1", "--index", "0"], "The seed must be"),
        (["replay", "--seed", "1", "--index", str(2**64)], "The game index must be"),
        (["bench", "--games", "0"], "--games must be"),
        (["frobnicate"], "No such command"),
    ],
)
def test_bad_input_one_sentence_exit_2(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_non_empty_out_refused_unless_overwrite(capsys, tmp_path):
    (tmp_path / "junk.txt").write_text("x")
    code, _, err = run(capsys, "simulate", "--games", "10", "--out", str(tmp_path), "--quiet")
    assert code == 2 and "not empty" in err and len(err.strip().splitlines()) == 1
    code, _, _ = run(
        capsys, "simulate", "--games", "10", "--out", str(tmp_path), "--quiet", "--overwrite"
    )
    assert code == 0 and (tmp_path / "games.parquet").exists()


def test_simulate_writes_run_directory(capsys, tmp_path):
    out = tmp_path / "run"
    code, text, _ = run(
        capsys,
        "simulate",
        "--rules",
        "classic",
        "--set",
        "elimination_score=151",
        "--seats",
        "greedy,hold:patience=2,random+rebuy=never",
        "--games",
        "300",
        "--seed",
        "9",
        "--rounds",
        "--out",
        str(out),
    )
    assert code == 0
    assert "300 games" in text and "win share by seat" in text
    man = json.loads((out / "manifest.json").read_text())
    assert man["rules_id"] == "loba:classic(elimination_score=151)" and man["game"] == "loba"
    assert (
        man["rules"]["elimination_score"] == 151 and man["rules"]["pierna_suits"] == "not_all_four"
    )
    assert man["seats"] == ["greedy", "hold:patience=2", "random+rebuy=never"]
    assert man["games"] == 300 and man["seed"] == 9 and "numba" in man["versions"]
    games = pl.read_parquet(out / "games.parquet")
    seats = pl.read_parquet(out / "seats.parquet")
    rounds = pl.read_parquet(out / "rounds.parquet")
    assert games.columns[:10] == [
        "game",
        "seed",
        "rules_id",
        "n_players",
        "winner",
        "rounds",
        "turns",
        "void_rounds",
        "pot",
        "reshuffles",
    ]
    assert seats.columns[:10] == [
        "game",
        "seat",
        "policy",
        "final_score",
        "rebuys",
        "eliminated_round",
        "place",
        "paid",
        "won",
        "net",
    ]
    assert rounds.columns[:12] == [
        "game",
        "round",
        "seat",
        "dealer",
        "went_out",
        "one_turn_bonus",
        "penalty",
        "score_after",
        "status",
        "turns",
        "reshuffles",
        "void",
    ]
    assert rounds.height == int(games["rounds"].sum()) * 3
    # scores add up: the last round's score_after is the final score
    last = rounds.sort("round").group_by("game", "seat").last().sort("game", "seat")
    assert last["score_after"].to_list() == seats.sort("game", "seat")["final_score"].to_list()
    # eliminated_round is null exactly for the winner (all games finish here)
    assert seats.filter(pl.col("eliminated_round").is_null()).height == 300


def test_rules_lists_every_knob(capsys):
    from sim.loba.rules import KNOBS

    code, out, _ = run(capsys, "rules", "rami", "--set", "max_rebuys=0")
    assert code == 0 and out.splitlines()[0] == "rules: loba:rami(max_rebuys=0)"
    for k in KNOBS:
        assert any(line.startswith(k.name + " ") for line in out.splitlines())


def test_check_meld_exit_codes(capsys):
    code, out, _ = run(capsys, "check-meld", "5s", "6S", "jk")
    assert code == 0 and out.strip() == "valid: escalera 5S 6S JK(7S)"
    code, out, _ = run(capsys, "check-meld", "KS", "KH", "KD", "KC")
    assert (
        code == 1
        and out.strip() == "invalid: [A15] a pierna must use exactly three different suits"
    )
    code, out, _ = run(capsys, "check-meld", "--rules", "classic", "KS", "KH", "KD", "KC")
    assert code == 1 and "[A15] a pierna may not cover all four suits" in out


def test_console_script_in_real_process_has_no_traceback():
    out = subprocess.run(
        [sys.executable, "-c", "import cli; cli.run()", "simulate", "--set", "decks=9"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == "Error: Rule 'decks' must be between 1 and 3, not 9."


def test_rules_accepts_a_canonical_id_and_prints_allowed_values(capsys):
    code, out, _ = run(capsys, "rules", "loba:classic(elimination_score=151)")
    assert code == 0 and out.splitlines()[0] == "rules: loba:classic(elimination_score=151)"
    line = next(ln for ln in out.splitlines() if ln.startswith("elimination_score"))
    assert "151 *" in line and "1..100000" in line and "A29" in line
    code, out, _ = run(capsys, "rules", "--set", "max_rebuys=0", "--game", "loba")
    assert code == 0 and out.splitlines()[0] == "rules: loba:pagat(max_rebuys=0)"


def test_policies_lists_every_registered_policy_and_rebuy_rule(capsys):
    from sim.games import game_names, get_game

    code, out, _ = run(capsys, "policies")
    assert code == 0 and all(f"{get_game(g).title} policies" in out for g in game_names())
    assert "patience=3 (0..200)" in out and "k=2 (0..4)" in out
    for game in game_names():
        spec = get_game(game)
        code, out, _ = run(capsys, "policies", "--game", game)
        assert code == 0
        for name, pol in spec.policies.items():
            row = next(ln for ln in out.splitlines() if ln.split()[:1] == [name])
            assert pol.doc in row and all(f"{k}={v:g}" in row for k, v in pol.params.items())
            for k, (lo, hi) in getattr(pol, "ranges", {}).items():
                assert f"{k}={pol.params[k]:g} ({lo:g}..{hi:g})" in row
        for registry, _ in spec.addons.values():
            for name, rule in registry.items():
                assert any(ln.split()[:1] == [name] and rule.doc in ln for ln in out.splitlines())


def test_tables_prints_the_declared_columns(capsys):
    from sim.games import get_game

    code, out, _ = run(capsys, "tables", "--game", "loba")
    assert code == 0
    for t in get_game("loba").tables:
        assert f"loba {t.name}.parquet" in out
        for c in t.columns:
            assert any(ln.split()[:2] == [c.name, c.dtype] for ln in out.splitlines())


def test_audit_refuses_what_is_not_a_trace(capsys, tmp_path):
    cases = {
        "empty.jsonl": "",
        "bare.jsonl": '{"type":"game"}\n',
        "array.jsonl": "[1, 2]\n",
        "text.jsonl": "not json\n",
    }
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text)
        code, _, err = run(capsys, "audit", str(f))
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, name
    code, _, err = run(capsys, "audit", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "does not exist" in err


def test_check_meld_counts_never_wrap(capsys):
    """256 copies of a card are 256 copies (int8 counts used to wrap to 0 and say valid)."""
    for k in (128, 256, 257):
        code, out, _ = run(capsys, "check-meld", *["5S"] * k)
        assert code == 1 and out.startswith("invalid: ")


def test_help_shows_examples_environment_and_the_seat_grammar(capsys):
    for name in cli.cli.commands:  # every command, the games' own too
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and "Examples:" in out and f"loba {name}" in out, name
    code, out, _ = run(capsys, "--help")
    assert "LOBA_CACHE_DIR" in out and "_LOBA_COMPLETE=bash_source loba" in out
    code, out, _ = run(capsys, "simulate", "--help")
    assert "POLICY[:param=value...][+rebuy=RULE[:param=value]]" in " ".join(out.split())


def test_kernel_cached_looks_for_index_files_without_compiling(tmp_path, monkeypatch):
    import types

    import numba

    from sim import jit

    monkeypatch.setattr(jit, "CACHE", True)
    monkeypatch.setattr(jit, "DISABLED", False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert not jit.kernel_cached()  # an empty folder
    index = tmp_path / "loba_0123" / "kernel.run_games-73.py311.nbi"
    kernel = types.SimpleNamespace(
        _cache=types.SimpleNamespace(_cache_file=types.SimpleNamespace(_index_path=str(index)))
    )

    def play_batch():  # a plain entry: its called dispatchers are looked at
        return kernel()

    monkeypatch.setitem(play_batch.__globals__, "kernel", kernel)
    assert not jit.kernel_cached(kernel) and not jit.kernel_cached(play_batch)
    index.parent.mkdir()
    index.write_bytes(b"")
    assert jit.kernel_cached() and jit.kernel_cached(kernel) and jit.kernel_cached(play_batch)
    monkeypatch.setattr(jit, "CACHE", False)  # no on-disk cache: every process compiles
    assert not jit.kernel_cached(kernel)
    monkeypatch.setattr(jit, "DISABLED", True)  # plain Python: nothing compiles
    assert jit.kernel_cached(kernel)


def test_compile_notice_is_one_plain_line_on_stderr(capsys, monkeypatch):
    """On a cold cache the first line, before anything compiles, says so with the estimate
    for this machine (the pieces then follow: tests/core/test_cold_compile.py); on a warm cache, or
    with --quiet, nothing is said."""
    from sim import jit

    monkeypatch.setattr(jit, "kernel_cached", lambda fn=None: True)
    assert console.announce_compile("loba") is None
    monkeypatch.setattr(jit, "kernel_cached", lambda fn=None: False)
    assert console.announce_compile("loba", quiet=True) is None
    assert capsys.readouterr().err == ""
    for cache_on, how in ((True, "first run only"), (False, "the kernel cache is off")):
        monkeypatch.setattr(jit, "CACHE", cache_on)
        progress = console.announce_compile("moon")
        progress.close()
        out = capsys.readouterr()
        assert out.out == "" and "\r" not in out.err and out.err.count("\n") == 1
        assert re.fullmatch(
            rf"compiling the game kernel \({how}; about \d+ s on this machine: \d+ cores?, load"
            r" [\d.]+\)\.\.\.\n",
            out.err,
        ), out.err


def test_json_outputs_name_game_rules_seats_and_seed(capsys):
    code, out, err = run(
        capsys,
        "simulate",
        "--games",
        "20",
        "--seed",
        "3",
        "--seats",
        "greedy,hold,random",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["game"] == "loba" and d["rules_id"] == "loba:pagat"
    assert d["seat_labels"] == ["greedy", "hold", "random"] and d["seed"] == 3
    assert d["games"] == 20 and len(d["seats"]) == 3
    assert "games" not in err and "\r" not in err  # no progress bar when stderr is no terminal
    code, out, _ = run(capsys, "rules", "rami", "--set", "max_rebuys=0", "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["game"] == "loba" and d["rules_id"] == "loba:rami(max_rebuys=0)"
    assert {"knob": "max_rebuys", "value": "0"}.items() <= next(
        k for k in d["knobs"] if k["knob"] == "max_rebuys"
    ).items()
    code, out, _ = run(capsys, "check-meld", "--format", "json", "5s", "6S", "jk")
    assert code == 0 and json.loads(out) == {
        "valid": True,
        "text": "escalera 5S 6S JK(7S)",
        "cards": ["5s", "6S", "jk"],
        "rules_id": "loba:pagat",
    }
    code, out, _ = run(capsys, "check-meld", "--format", "json", "KS", "KH", "KD", "KC")
    assert code == 1 and json.loads(out)["valid"] is False
    code, out, _ = run(capsys, "bench", "--games", "20", "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["game"] == "loba" and d["games"] == 20 and len(d["seats"]) == 4
    assert d["rules_id"] == "loba:pagat" and d["report"][0].startswith("rules loba:pagat")


@pytest.mark.parametrize("game", game_names())
def test_bench_sets_the_kernel_beside_the_same_games_end_to_end(capsys, game):
    """``loba bench``: per thread count (1 and all), the kernel's games/s, the same games
    written as a run directory (simulate --out), their ratio and the floor ratio; text and JSON
    say the same figures."""
    from sim.chunks import MAX_THREADS

    code, out, _ = run(capsys, "bench", "--game", game, "--games", "40", "--format", "json")
    figs = json.loads(out)["figures"]
    assert code == 0 and [f["threads"] for f in figs] == sorted({1, MAX_THREADS})
    floor = get_game(game).bench is not None  # a game's own bench has a floor kernel
    for f in figs:
        assert f["games_per_s"] > 0 and f["end_to_end_games_per_s"] > 0
        assert (f["per_floor"] > 0) if floor else f["per_floor"] is None
    code, out, _ = run(capsys, "bench", "--game", game, "--games", "40")
    head = out.splitlines().index(
        "end to end (a run directory written, as simulate --out) beside the kernel:"
    )
    cols = out.splitlines()[head + 1].split("  ")
    assert code == 0 and [c.strip() for c in cols if c.strip()] == [
        "threads", "kernel games/s", "simulate --out games/s", "end to end / kernel",
        "kernel / floor",
    ]  # fmt: skip
    rows = out.splitlines()[head + 2 :]
    assert [int(r.split()[0]) for r in rows] == sorted({1, MAX_THREADS})
    assert all(r.split()[-1].endswith("x") == floor for r in rows)


def test_options_that_need_out_warn_and_still_run(capsys):
    for flag in ("--rounds", "--overwrite"):
        code, _, err = run(capsys, "simulate", "--games", "10", flag, "--quiet")
        warn = [line for line in err.splitlines() if line.startswith("Warning:")]
        assert code == 0 and len(warn) == 1, err
        assert warn[0].startswith(f"Warning: {flag} has no effect without --out: ")


def test_policies_tables_and_verify_speak_json(tmp_path):
    """Every command that prints a table has a JSON form for tools."""
    import json as _json

    from click.testing import CliRunner

    import cli as _cli
    from sim.games import game_names, get_game

    r = CliRunner().invoke(_cli.cli, ["policies", "--format", "json"])
    pol = _json.loads(r.output)
    assert r.exit_code == 0 and set(pol) == set(game_names())
    hold = pol["loba"]["policies"]["hold"]["params"]["patience"]
    assert hold == {"default": 3.0, "range": [0, 200]}
    assert "always" in pol["loba"]["rebuy_rules"]
    r = CliRunner().invoke(_cli.cli, ["tables", "--game", "moon", "--format", "json"])
    tab = _json.loads(r.output)["moon"]
    assert [c["name"] for c in tab["games"]["columns"]] == [
        c.name for c in next(t for t in get_game("moon").tables if t.name == "games").columns
    ]
    run = tmp_path / "run"
    assert _cli.main(["simulate", "--games", "30", "--out", str(run)]) == 0
    r = CliRunner().invoke(_cli.cli, ["verify", str(run), "--format", "json"])
    v = _json.loads(r.output)
    assert r.exit_code == 0 and v["ok"] is True and v["games_done"] == 30 and v["problems"] == []
    part = next((run / "games.parquet").glob("*.parquet"))
    part.write_bytes(b"not parquet")
    r = CliRunner().invoke(_cli.cli, ["verify", str(run), "--format", "json"])
    v = _json.loads(r.output)
    assert r.exit_code == 1 and v["ok"] is False and v["problems"][0]["kind"] == "damaged"


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--games", "300"],
        ["rebuy-value", "--mode", "policy", "--games", "200", "--seats", "greedy,greedy,greedy"],
        ["rebuy-value", "--mode", "state", "--games", "200", "--seats", "greedy,greedy,greedy"],
    ],
    ids=["simulate", "rebuy-policy", "rebuy-state"],
)
def test_long_work_shows_a_bar_on_a_terminal_and_nothing_in_a_pipe(capsys, monkeypatch, args):
    """Every command that plays many games draws a progress bar on stderr when it is a
    terminal, reaching the whole count; in a pipe or a log, stderr gets no bar."""
    monkeypatch.setattr(console, "stderr_is_terminal", lambda: True)
    code, _, err = run(capsys, *args)
    assert code == 0 and "games" in err
    monkeypatch.setattr(console, "stderr_is_terminal", lambda: False)
    code, _, err = run(capsys, *args)
    assert code == 0 and "\r" not in err and "[#" not in err


def test_progress_bar_counts_both_rebuy_runs():
    """rebuy-value --mode policy plays the same games twice; its progress counts both."""
    from analysis.loba.rebuy import rebuy_value_policy

    seen = []
    rebuy_value_policy(
        "pagat", "greedy,greedy,greedy", 60, 1, progress=lambda d, n: seen.append((d, n))
    )
    assert seen[-1] == (120, 120) and all(n == 120 for _, n in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)

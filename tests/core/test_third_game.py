"""The game seam, proven by a third game: Toy Tricks (``examples/toy``) plugs in through its own
package and one registration (``LOBA_GAMES=toy=examples.toy.spec``), passes the conformance
harness, and every command that plays or reads runs works on it, with its own metrics."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim import testing
from sim.games import (
    DEFAULT_GAME,
    REGISTRY,
    GameError,
    game_names,
    get_game,
    register_game,
    unregister_game,
)

ROOT = Path(__file__).parents[2]
TOY = "toy=examples.toy.spec"


@pytest.fixture(scope="module")
def cli():
    """The CLI module with the toy registered by ``LOBA_GAMES`` (read whenever ``--game`` is
    checked: a CLI imported earlier in the session sees it too)."""
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(ROOT))  # examples/ is not an installed package
    path = os.environ.get("PYTHONPATH")
    mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), path])))  # (Dask workers)
    mp.setenv("LOBA_GAMES", TOY)
    yield importlib.import_module("cli")
    mp.undo()


@pytest.fixture(scope="module")
def toy(cli):
    return get_game("toy")


def invoke(cli, *args) -> str:
    r = CliRunner().invoke(cli.cli, [str(a) for a in args])
    assert r.exit_code == 0, (r.output, r.exception)
    return r.output


@pytest.fixture(scope="module")
def runs(cli, tmp_path_factory):
    """Two toy runs on the same seeds: the standard rules (with the hands table) and a last
    trick worth 3 points."""
    d = tmp_path_factory.mktemp("toy")
    base = ["simulate", "--game", "toy", "--games", 400, "--seed", 7]
    out = invoke(cli, *base, "--out", d / "a", "--rounds")
    invoke(cli, *base, "--set", "last_trick=3", "--out", d / "b", "--rounds", "--quiet")
    return d, out


# ------------------------------------------------------------------ the registration
def test_the_toy_is_not_shipped_and_registers_in_one_line(monkeypatch):
    monkeypatch.delenv("LOBA_GAMES", raising=False)
    assert game_names() == list(REGISTRY) == ["loba", "moon"] and DEFAULT_GAME == "loba"
    with pytest.raises(GameError, match="Unknown game 'toy'"):
        get_game("toy")
    monkeypatch.syspath_prepend(str(ROOT))
    register_game("toy", "examples.toy.spec")
    assert os.environ["LOBA_GAMES"] == TOY  # (the processes this one starts know it too)
    assert game_names() == ["loba", "moon", "toy"] and get_game("toy").title == "Toy Tricks"
    register_game("toy", "examples.toy.spec")  # again: nothing changes
    assert game_names() == ["loba", "moon", "toy"] and get_game(None).name == "loba"
    unregister_game("toy")
    assert "LOBA_GAMES" not in os.environ and game_names() == ["loba", "moon"]


@pytest.mark.parametrize(
    "env, needle",
    [
        ("toy", "is not a game registration"),
        ("toy=", "is not a game registration"),
        ("Toy Tricks=x", "is not a game registration"),
        ("moon=examples.toy.spec", "'moon' is a shipped game"),
    ],
)
def test_a_bad_registration_is_one_sentence(monkeypatch, env, needle):
    monkeypatch.setenv("LOBA_GAMES", env)
    with pytest.raises(GameError, match=needle):
        game_names()


def test_a_registration_naming_no_game_is_one_sentence(monkeypatch):
    monkeypatch.setenv("LOBA_GAMES", "toy=examples.no_such_game.spec,moon2=sim.moon.spec")
    with pytest.raises(GameError, match="cannot be loaded from 'examples.no_such_game.spec'"):
        get_game("toy")
    with pytest.raises(GameError, match="not the GameSpec of a game named 'moon2'"):
        get_game("moon2")
    assert get_game("moon").name == "moon"


def test_a_cli_process_plays_the_toy_only_when_registered(cli):
    env = {**os.environ}
    cmd = [sys.executable, "-m", "cli", "simulate", "--game", "toy", "--games", "50", "--quiet"]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    env.pop("LOBA_GAMES")
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Invalid value for '--game'" in r.stderr


# ------------------------------------------------------------------ the conformance harness
def test_harness_schema(toy):
    testing.check_schema(toy)


def test_harness_determinism(toy):
    testing.check_determinism(toy, games=120)


def test_harness_playouts_every_preset_policy_and_player_count(toy):
    stats = testing.check_playouts(toy, games=1, seed=5)
    assert stats["games"] == 3 * 3 * 3 and stats["events"] > 10 * 27


def test_harness_backends_write_the_same_bytes(toy, tmp_path):
    testing.check_backends(toy, tmp_path, games=60)


def test_the_auditor_catches_a_wrong_trick(toy):
    from sim.policies import parse_seats

    events = toy.replay(toy.rules.make("loose"), parse_seats("greedy,random,low", game=toy), 1, 2)
    assert toy.audit(events) == []
    trick = next(e for e in events if e["type"] == "trick")
    trick["winner"] = (trick["winner"] + 1) % 3
    assert any(p.startswith("[T3]") and "trick won by" in p for p in toy.audit(events))


# ------------------------------------------------------------------ the commands
def test_simulate_writes_a_toy_run(runs):
    d, out = runs
    assert "tricks won by their leader" in out and "mean hands/game" in out
    man = json.loads((d / "a" / "manifest.json").read_text())
    assert man["game"] == "toy" and man["rules_id"] == "toy:standard"
    assert (d / "a" / "hands.parquet").is_dir()


def test_summarize_shows_the_toys_metrics(cli, runs):
    d, _ = runs
    out = invoke(cli, "summarize", d / "a")
    for metric in ("winning margin", "hands swept by one seat", "win share of the first leader"):
        assert metric in out


def test_compare_states_the_toys_differences(cli, runs):
    d, _ = runs
    out = invoke(cli, "compare", d / "a", d / "b")
    assert "winning margin (points over the runner-up) is higher" in out
    assert "toy:standard(last_trick=3)" in out


def test_sweep_varies_a_toy_knob(cli, tmp_path):
    out = invoke(cli, "sweep", "--game", "toy", "--vary", "last_trick=1,3", "--games", 200,
                 "--out", tmp_path / "s")  # fmt: skip
    assert "lead_win_share" in out and "margin" in out and "first_leader_share" in out
    assert (tmp_path / "s" / "sweep.png").stat().st_size > 0
    head = (tmp_path / "s" / "summary.csv").read_text().splitlines()[0]
    assert "last_trick" in head and "margin_diff" in head


def test_report_has_the_toys_sections(cli, runs, tmp_path):
    d, _ = runs
    invoke(cli, "report", d / "a", d / "b", "--output", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    for text in ("Toy Tricks", "winning margin", "First-leader advantage", "hands swept"):
        assert text in html


def test_replay_and_audit(cli, runs, tmp_path):
    d, _ = runs
    text = invoke(cli, "replay", d / "a", "--index", 3)
    assert text.startswith("Toy Tricks, toy:standard, seed 7 game 3") and "trick 3:" in text
    trace = invoke(cli, "replay", d / "a", "--index", 3, "--format", "jsonl")
    events = [json.loads(line) for line in trace.splitlines()]
    assert events[0]["type"] == "game" and events[-1]["type"] == "end"
    (tmp_path / "g.jsonl").write_text(trace)
    assert invoke(cli, "audit", tmp_path / "g.jsonl").strip() == "ok"
    play = next(e for e in events if e["type"] == "play")
    play["seat"] = (play["seat"] + 1) % 3
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    r = CliRunner().invoke(cli.cli, ["audit", str(tmp_path / "bad.jsonl")])
    assert r.exit_code == 1 and "[T3]" in r.output and "out of turn" in r.output


def test_tournament_rates_the_toys_policies(cli):
    out = invoke(cli, "tournament", "--game", "toy", "--games", 100, "--resamples", 20,
                 "--format", "json")  # fmt: skip
    t = json.loads(out)
    assert t["game"] == "toy" and t["pool"] == ["random", "greedy", "low"]
    assert {p["policy"] for p in t["policies"]} == {"random", "greedy", "low"}


def test_bench_of_a_game_without_its_own(cli):
    out = invoke(cli, "bench", "--game", "toy", "--games", 500)
    assert "rules toy:standard" in out and "1 thread(s):" in out and "games/s" in out
    rows = out.splitlines()[out.splitlines().index(
        "end to end (a run directory written, as simulate --out) beside the kernel:") + 2:]
    assert rows and all(len(r.split()) == 4 for r in rows)  # no floor kernel: no floor ratio


def test_rules_policies_and_tables_list_the_toys_own(cli):
    assert "last_trick" in invoke(cli, "rules", "--game", "toy")
    assert "lead_high=1 (0..1)" in invoke(cli, "policies", "--game", "toy")
    assert "lead_wins" in invoke(cli, "tables", "--game", "toy")


def test_warm_plays_every_policy_and_add_on_rule_once(cli, toy):
    """``loba warm --game toy``: one game per built-in policy (and add-on rule), each named."""
    r = CliRunner().invoke(cli.cli, ["warm", "--game", "toy"])
    assert r.exit_code == 0, (r.output, r.exception)
    out = r.stdout  # (a cold cache's compile notice is on stderr)
    expected = {name for name, p in toy.policies.items() if not p.quick} | {
        f"{next(iter(toy.policies))}+{kind}={name}"
        for kind, (reg, _default) in toy.addons.items()
        for name, rule in reg.items()
        if rule.load is None
    }
    assert {line.split(":")[0].split(" ", 1)[1] for line in out.splitlines()} == expected
    assert all(line.startswith("toy ") and "ready in" in line for line in out.splitlines())

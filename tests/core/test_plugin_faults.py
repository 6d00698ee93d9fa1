"""One failure path for plug-in code in every command: a plug-in that raises, reads past an end
or crashes the process — in the first chunk or a later one, in a child process or not — ends
in one sentence naming the seat, its policy, the decision kind, the game and the error, exit
code 1 (it is not bad input), never a traceback, never a deleted run folder, never exit 0.

The plug-ins (tests/plugins/misbehave.py, moon_misbehave.py) play greedy's games but misbehave
at a rare decision that depends only on the seat's random stream; ``probe`` answers out of range
at the same decision, so the first game with a bad answer is the game the fault must be
reported in (an oracle independent of the diagnosis).
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest
from runs_util import end_cli, run_cli, start_cli

import sim
from sim.faults import PlayFault

PLUGINS = Path(__file__).parents[1] / "plugins"
LOBA = PLUGINS / "misbehave.py"
MOON = PLUGINS / "moon_misbehave.py"
GAMES, SEED = 400, 12
# per game: plug-in file, rules id, the other seats, the decision kind that misbehaves, and
# the parameters that arm it (rare enough that some games are played before the first fault)
GAMES_SETUP = {
    "loba": (LOBA, "pagat", "greedy,greedy", "play", ":armed=1:every=300"),
    "moon": (MOON, "moon:gamerules", "greedy,greedy", "bid", ""),
}
ERRORS = {"fail": "ValueError: fail misbehaves on purpose", "peek": "IndexError: index is out"}


def seats(game: str, name: str, armed: bool = True) -> str:
    plug, _, others, _, arm = GAMES_SETUP[game]
    return f"{plug}:{name}{arm if armed else ''},{others}"


@pytest.fixture(scope="module")
def first_bad():
    """Game -> the first game in which ``probe`` answers out of range (seat 0)."""
    out = {}
    for game, (_, rules, _, _, _) in GAMES_SETUP.items():
        res = sim.simulate(rules, seats(game, "probe"), games=GAMES, seed=SEED)
        df = res.seats.to_pandas()
        hit = df[(df["seat"] == 0) & (df["bad_answers"] > 0)]["game"]
        assert len(hit), f"{game}: the plug-ins never misbehave in this run: choose another SEED"
        out[game] = int(hit.min())
        assert out[game] > 0, f"{game}: the first game misbehaves: choose another SEED"
    return out


@pytest.mark.parametrize("isolate", ["0", "1"], ids=["in-process", "child"])
@pytest.mark.parametrize("name", sorted(ERRORS))
@pytest.mark.parametrize("game", sorted(GAMES_SETUP))
def test_the_fault_is_named_exactly(monkeypatch, first_bad, game, name, isolate):
    monkeypatch.setenv("LOBA_ISOLATE", isolate)
    _, rules, _, kind, _ = GAMES_SETUP[game]
    with pytest.raises(PlayFault) as info:
        sim.simulate(rules, seats(game, name), games=GAMES, seed=SEED, chunk_size=64)
    f = info.value
    assert (f.game, f.seat, f.kind) == (first_bad[game], 0, kind)
    assert f.error.startswith(ERRORS[name])
    assert str(f).startswith(f"Seat 0 ({seats(game, name).split(',')[0]}) raised {ERRORS[name]}")
    assert f" at a {kind} decision in game {first_bad[game]}" in str(f)


def test_an_unarmed_plugin_plays_the_same_games_as_the_probe_run_up_to_the_fault(first_bad):
    """The diagnosis plays games again: it must not change a game that does not fail."""
    g = first_bad["loba"]
    a = sim.simulate("pagat", seats("loba", "fail"), games=g, seed=SEED)
    b = sim.simulate("pagat", seats("loba", "probe"), games=g, seed=SEED)
    assert a.games.equals(b.games)
    assert a.seats.drop("policy").equals(b.seats.drop("policy"))  # (the labels differ)


def _commands(tmp: Path, game: str, first: int, name: str) -> dict[str, list]:
    """Every command that plays games, with the misbehaving plug-in in seat 0."""
    plug, _, _, _, arm = GAMES_SETUP[game]
    s = seats(game, name)
    g = ["--game", game]
    out = {
        "simulate": ["simulate", *g, "--seats", s, "--games", GAMES, "--seed", SEED],
        "simulate --out": [
            "simulate", *g, "--seats", s, "--games", GAMES, "--seed", SEED,
            "--chunk-size", 64, "--out", tmp / "run",
        ],
        "bench": ["bench", *g, "--seats", s, "--games", GAMES],
        "replay": ["replay", *g, "--seats", s, "--seed", SEED, "--index", first],
        "tournament": [
            "tournament", *g, "--seats-pool", f"{plug}:{name}{arm},greedy",
            "--games", 200, "--seed", SEED,
        ],
        "tune": [
            "tune", *g, f"{plug}:{name}" + (":armed=1" if game == "loba" else ""),
            "--param", "every=30..60", "--trials", 2, "--games", 200, "--seed", SEED,
        ],
    }  # fmt: skip
    if game == "loba":  # (the rebuy and the sweep of a Loba knob)
        out["rebuy-value"] = ["rebuy-value", "--seats", s, "--games", GAMES, "--seed", SEED]
        out["sweep"] = [
            "sweep", "--seats", s, "--games", GAMES, "--seed", SEED,
            "--vary", "elimination_score=101,151", "--out", tmp / "sweep",
        ]  # fmt: skip
    return out


FAULT = re.compile(
    r"Error: Seat \d \(\S+\) raised (ValueError|IndexError): .* at a (play|bid) decision in"
    r" game \d+( of [^;]*)?(; .*)?\."
)
# commands that play many runs say which one failed, right after the game (sim.faults)
WHERE = {"tournament": " of seating ", "sweep": " of the cell elimination_score=101 (1 of 2)"}


@pytest.mark.parametrize("game", sorted(GAMES_SETUP))
def test_every_command_names_a_raising_plugin_in_one_sentence(tmp_path, capsys, first_bad, game):
    cmds = _commands(tmp_path, game, first_bad[game], "fail")
    assert {"simulate", "bench", "replay", "tournament", "tune"} <= set(cmds)
    for what, args in cmds.items():
        code, out, err = run_cli(capsys, *args)
        lines = [ln for ln in err.splitlines() if ln.startswith("Error")]
        assert code == 1, f"{what}: exit {code}\n{err}"
        assert "Traceback" not in err and "Exception ignored" not in err, what
        assert len(lines) == 1 and FAULT.fullmatch(lines[0]), f"{what}: {err}"
        if what in WHERE:
            assert WHERE[what] in lines[0], f"{what}: {lines[0]}"
        if what == "replay":  # the game it was asked for is the one that fails
            assert f"game {first_bad[game]}." in lines[0]
            assert out == ""  # nothing of a game played on with fallbacks
    run = tmp_path / "run"
    assert (run / "manifest.json").is_file()  # the folder is kept, and can be resumed
    code, out, err = run_cli(capsys, "simulate", "--resume", run, "--quiet")
    assert code == 1 and FAULT.fullmatch(err.strip().splitlines()[-1]), err
    assert f"'loba simulate --resume {run}'" in err


def test_a_fault_in_a_later_chunk_keeps_the_finished_chunks(tmp_path, capsys, first_bad):
    g = first_bad["loba"]
    run = tmp_path / "run"
    code, _, err = run_cli(
        capsys, "simulate", "--seats", seats("loba", "peek"), "--games", GAMES,
        "--seed", SEED, "--chunk-size", 16, "--out", run,
    )  # fmt: skip
    done = g // 16
    assert code == 1
    assert err.strip().endswith(
        f"at a play decision in game {g}; the run stopped, the {done} finished chunks"
        f" ({done * 16} games) are kept in '{run}' and 'loba simulate --resume {run}' finishes"
        " the run once the policy is fixed."
    ), err
    code, out, _ = run_cli(capsys, "verify", run)
    assert code == 0, out


CRASHERS = {
    "bench": lambda s: ["bench", "--seats", s, "--games", 3000],
    "tournament": lambda s: ["tournament", "--seats-pool", s.split(",")[0] + ",greedy",
                             "--games", 400],
    "rebuy-value": lambda s: ["rebuy-value", "--seats", s, "--games", 3000],
    "simulate": lambda s: ["simulate", "--seats", s, "--games", 3000],
}  # fmt: skip


@pytest.mark.parametrize("what", sorted(CRASHERS))
def test_a_plugin_that_crashes_the_process_is_named(capsys, monkeypatch, what):
    monkeypatch.setenv("LOBA_TEST_MISBEHAVE", "1")
    s = f"{LOBA}:crash:every=40,greedy,greedy"
    code, _, err = run_cli(capsys, *CRASHERS[what](s))
    assert code == 1, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("Error: The process playing the games crashed (signal SIGSEGV)")
    assert f"(seat 0: {LOBA}:crash:every=40" in line
    assert "may have read or written out of bounds" in line


def test_replay_names_a_crash_and_stops_on_ctrl_c(capsys, monkeypatch, first_bad):
    monkeypatch.setenv("LOBA_TEST_MISBEHAVE", "1")
    # find a game that misbehaves with every=40 through the probe (same trigger)
    res = sim.simulate("pagat", f"{LOBA}:probe:every=40,greedy,greedy", games=200, seed=SEED)
    df = res.seats.to_pandas()
    g = int(df[(df["seat"] == 0) & (df["bad_answers"] > 0)]["game"].min())
    args = ["replay", "--seed", SEED, "--index", g]
    code, out, err = run_cli(capsys, *args, "--seats", f"{LOBA}:crash:every=40,greedy,greedy")
    assert code == 1 and out == "", err
    assert err.strip().startswith(
        f"Error: The process playing the games crashed (signal SIGSEGV) while replaying game {g}"
    )
    proc = start_cli(*args, "--seats", f"{LOBA}:hang:every=40,greedy,greedy",
                     env={"LOBA_TEST_MISBEHAVE": "1"})  # fmt: skip
    try:
        t = time.monotonic() + 240
        while not Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split():
            assert proc.poll() is None and time.monotonic() < t
            time.sleep(0.05)
        time.sleep(3)  # the child is in the game (it loops from its first decision of game g)
    finally:
        _, err = end_cli(proc, 30, signal.SIGINT)
    assert proc.returncode == 130, err
    assert err.strip().endswith("Interrupted."), err


def test_a_plugin_that_exits_while_imported_is_named(tmp_path, capsys):
    plug = tmp_path / "exits.py"
    plug.write_text("import sys\nsys.exit(3)\n")
    code, _, err = run_cli(capsys, "simulate", "--seats", f"{plug}:x,greedy", "--games", 10)
    assert code == 2
    assert err.strip() == (
        f"Error: Policy module '{plug}' failed to load: it called sys.exit(3) while being imported."
    )


def test_a_fault_in_one_of_many_runs_says_which_and_what_is_kept():
    from sim.faults import fault_context

    text = "Seat 2 (x.py:bad) raised ValueError: no at a play decision in game 7; the run stopped."
    with pytest.raises(PlayFault) as info:
        with fault_context(" of seating 3 of 12 (a,b,c; seed 5)", "; the seatings before it are"
                           " kept in 'out'"):  # fmt: skip
            raise PlayFault(text, 7, 2, "play", "ValueError: no")
    f = info.value
    assert str(f) == (
        "Seat 2 (x.py:bad) raised ValueError: no at a play decision in game 7 of seating 3 of 12"
        " (a,b,c; seed 5); the run stopped; the seatings before it are kept in 'out'."
    )
    assert (f.game, f.seat, f.kind, f.error) == (7, 2, "play", "ValueError: no")


def test_a_plugin_a_position_file_seats_plays_in_a_child(capsys, tmp_path):
    """The seats a position file names itself are plug-ins as much as --seats: a crash there
    ends in one sentence naming the seat, not in the death of the command."""
    example = Path(__file__).parents[2] / "examples" / "one_turn.toml"
    crash = f"{LOBA}:crash:armed=1:every=1"  # (every play decision: the first one crashes)
    text = example.read_text().replace('seats = ["greedy", "greedy", "greedy"]',
                                       f'seats = ["{crash}", "greedy", "greedy"]')  # fmt: skip
    assert crash in text
    f = tmp_path / "p.toml"
    f.write_text(text)
    code, out, err = run_cli(capsys, "replay", "--position", f, "--seed", 1, "--to-game-end")
    line = err.strip().splitlines()[-1]
    assert code == 1 and out == "", err
    assert line.startswith("Error: The process playing the games crashed (signal SIGSEGV)"), err
    assert f"seat 0: {crash}" in line

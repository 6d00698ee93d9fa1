"""The policy boundary (rules document A.8, sim/loba/api.py "The seal"): plug-ins that try
every cheat measured before the seal (tests/plugins/cheats.py) and what each now gets.

Before the seal (seat 0 cheating against three greedy, 4,000 games, fair share 0.238): zeroing
its hand at the discard won 1.000, rewriting its discard option to a card it does not hold
0.919, adding jokers to its hand 0.461; an out-of-range card id in its options made the engine
write into another hand; zeroing the shared policy stream changed how `random` seats played;
``hand[56:109]`` was the next seat's hand; writing ``params`` made two identical runs differ.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import sim
from sim.faults import PlayFault
from sim.loba.api import DECIDE_SIG
from sim.loba.layout import HIST_CAP, HIST_TURNS, HT, MAX_CARDS, MAX_SEATS, G, H, S
from sim.loba.play import Game
from sim.loba.rules import KNOBS
from sim.policies import SeatError, parse_seat
from sim.policies.api import compiled

CHEATS = str(Path(__file__).parents[1] / "plugins" / "cheats.py")


def _same_games(a, b) -> None:
    assert a.games.drop("rules_id").equals(b.games.drop("rules_id"))
    assert a.seats.drop("policy").equals(b.seats.drop("policy"))


@pytest.mark.parametrize(
    "name",
    [
        "zero_hand",
        "add_jokers",
        "foreign_discard",
        "write_melds",
        "write_pile",
        "write_pub",
        "write_params",
        "write_hist",
    ],
)
def test_writing_a_read_only_argument_does_not_compile(name):
    """Hand, melds, pile, pub, params, options and history are typed read-only: the cheats
    that wrote them (an empty hand, jokers added, a discard of a card not held or out of range,
    params shared by threads) are refused before a game is played."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cheats_ro", CHEATS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(TypeError, match="read-only"):
        compiled(mod.WRITERS[name], DECIDE_SIG)


def test_a_read_only_write_is_one_sentence_at_the_seat(tmp_path):
    mod = tmp_path / "w.py"
    mod.write_text(
        "from sim.policies.api import Policy, decision\n"
        "from sim.loba.policies import greedy_draw, greedy_play, greedy_discard\n"
        "@decision\n"
        "def d(hand, melds, pile, pub, params, rng, acts, n, hist, mem):\n"
        "    hand[0] = 1\n"
        "    return 0\n"
        "w = Policy('w', greedy_draw, greedy_play, d)\n"
    )
    with pytest.raises(SeatError, match="read-only") as err:
        parse_seat(f"{mod}:w")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "name", ["next_hand", "stale_acts", "past_pile", "past_melds", "past_hist", "past_rng"]
)
def test_reading_past_an_end_raises(name):
    """Every array is exactly as long as what it holds, and decision functions are compiled
    with bounds checks: reading the next seat's hand past one's own (``hand[56:109]``), stale
    option rows past ``n``, the pile, melds or history past their ends, or another stream
    after one's own stops the run with IndexError, named as the seat's fault."""
    with pytest.raises(PlayFault) as info:
        sim.simulate("pagat", f"{CHEATS}:{name}_policy,greedy,greedy", games=3, seed=1, threads=1)
    assert info.value.seat == 0 and info.value.error.startswith("IndexError: index is out of")


def test_the_view_is_exactly_what_it_holds_and_memory_persists():
    """Lengths are exact at every decision (else the checker answers out of range), and a
    seat's memory is kept from one of its decisions to the next: its decision counter adds up
    to the game's decisions."""
    res = sim.simulate("pagat", f"{CHEATS}:checker," * 3 + "greedy", games=200, seed=5)
    assert res.seats["bad_answers"].sum() == 0
    g = Game(seats=f"{CHEATS}:checker," * 3 + f"{CHEATS}:checker", seed=3)
    g.play()
    rebuys = int(g.st.s[:4, S.REBUYS].sum())  # the rebuy rule (always) decides those
    assert g.st.mem[:4, 15].sum() + rebuys == g.st.g[G.DECISIONS] > 0
    assert (g.st.mem[:4, :15] == 0).all()


def test_own_stream_and_memory_are_private():
    """A seat that zeroes its stream and floods its memory at every decision plays the same
    games as greedy: the `random` seats' play and every result are unchanged (each seat has
    its own stream, seeded from seed, game and seat)."""
    a = sim.simulate(
        "pagat",
        f"{CHEATS}:zero_rng+rebuy={CHEATS}:zero_rng_rebuy_rule,random,random,random",
        games=300,
        seed=7,
    )
    b = sim.simulate("pagat", "greedy+rebuy=always,random,random,random", games=300, seed=7)
    _same_games(a, b)


def test_seat_streams_are_distinct_and_not_the_deal_stream():
    g = Game(seats="random,random,random", seed=9, index=4)
    r = g.st.rng.reshape(-1, 2)
    assert r.shape[0] == 1 + MAX_SEATS
    assert len({tuple(x) for x in r.tolist()}) == r.shape[0]
    h = Game(seats="random,random,random", seed=9, index=4)
    assert (h.st.rng == g.st.rng).all()


def test_identical_two_thread_runs_are_identical_with_cheats():
    seats = f"{CHEATS}:zero_rng,random,{CHEATS}:checker,greedy"
    a = sim.simulate("pagat", seats, games=400, seed=3, threads=2, chunk_size=50)
    b = sim.simulate("pagat", seats, games=400, seed=3, threads=2, chunk_size=50)
    _same_games(a, b)


def test_history_records_the_round_publicly():
    """hist: the round's public events in order; stock draws hide the card."""
    g = Game(seats="greedy,greedy,greedy", seed=2, trace=True)
    g.step()  # deal
    for _ in range(6):
        g.step()
    n = int(g.st.g[G.HIST_N])
    rows = g.st.hist[:n]
    assert n > 0 and int(g.st.g[G.HIST_LOST]) == 0
    draws = rows[rows[:, H.TYPE] == HT.DRAW]
    assert len(draws) == 6
    from sim.loba.layout import DRAW

    stock = draws[draws[:, H.KIND] == DRAW.STOCK]
    assert (stock[:, H.CARD] == -1).all()
    assert (rows[rows[:, H.TYPE] == HT.DISCARD][:, H.CARD] >= 0).all()


def test_history_capacity_covers_the_default_turn_cap():
    """Per round at most a draw and a discard per turn, a play per card put down and a rebuy
    decision per seat: HIST_CAP covers the default max_turns_per_round; beyond it (the knob
    goes higher) rows are dropped and counted in G.HIST_LOST / PUB.HIST_LOST, never silently."""
    knob = next(k for k in KNOBS if k.name == "max_turns_per_round")
    assert HIST_TURNS == knob.default
    assert HIST_CAP >= 2 * knob.default + MAX_CARDS + MAX_SEATS


def test_bad_answers_are_in_the_run_summary(capsys):
    import cli

    wild = str(Path(__file__).parents[1] / "plugins" / "wild.py")
    code = cli.main(["simulate", "--games", "20", "--seats", f"{wild}:wild_policy,greedy"])
    out = capsys.readouterr().out
    assert code == 0
    lines = [ln for ln in out.splitlines() if "bad answer" in ln]
    assert len(lines) == 1 and "seat 0" in lines[0] and "wild_policy" in lines[0]
    code = cli.main(["simulate", "--games", "20", "--seats", "greedy,greedy"])
    assert "bad answer" not in capsys.readouterr().out


def test_wary_plays_and_differs_from_greedy_only_at_discards():
    res = sim.simulate("pagat", "wary,greedy,greedy,greedy", games=300, seed=1)
    assert res.seats["bad_answers"].sum() == 0
    base = sim.simulate("pagat", "greedy,greedy,greedy,greedy", games=300, seed=1)
    assert not res.games.drop("rules_id").equals(base.games.drop("rules_id"))
    assert pl.Series(res.games["winner"]).null_count() == 0
    assert np.isfinite(res.summary_dict()["seats"][0]["share"])

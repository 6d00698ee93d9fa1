"""A plug-in seat plays in an arena of its own (sim.loba.gate.ask_arena): its view is copied
into its own padded row of the game's scratch, and only its random stream and memory are copied
back. A helper compiled without bounds checks then reads its own copies (or zeros), never the
next seat's hand, and a write just before its stream or memory changes nothing of the game.
The game's own policies keep the zero-copy view (``GameSpec.plugged`` is false for them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sim
from sim.loba.layout import PARAMS_W, S
from sim.loba.play import Game
from sim.loba.spec import SPEC
from sim.policies import parse_seats

CHEATS = Path(__file__).parents[1] / "plugins" / "cheats.py"


def _seats(name: str) -> str:
    return f"{CHEATS}:{name},greedy,greedy"


def test_only_plugin_seats_are_flagged():
    rebuy = f"{CHEATS}:zero_rng_rebuy_rule"
    seats = parse_seats(f"{CHEATS}:plain,greedy,smart,greedy+rebuy={rebuy}", SPEC)
    _, params = SPEC.fn_tables(seats)
    assert params[: len(seats), PARAMS_W + 1].tolist() == [1, 0, 0, 1]


@pytest.mark.parametrize("seed", [1, 2])
def test_writes_before_its_stream_and_memory_change_nothing(seed):
    a = sim.simulate("pagat", _seats("poke_policy"), games=300, seed=seed)
    b = sim.simulate("pagat", _seats("plain"), games=300, seed=seed)
    assert a.games.equals(b.games)
    assert a.seats.drop("policy").equals(b.seats.drop("policy"))


def test_reading_past_its_hand_does_not_see_the_next_hand():
    g = Game(seats=_seats("peek_policy"), seed=4)
    seen = looked = 0
    while not g.done and looked < 400:
        seat = g.current
        g.step()
        if seat == 0 and g.st.s[0, S.HAND_N] > 0 and g.st.hands[1, :16].any():
            looked += 1
            seen += bool(np.array_equal(g.st.mem[0, :16], g.st.hands[1, :16]))
    assert looked > 20
    assert seen == 0  # (without the arena: every time — the next row of the game's hands)

"""Array layouts are sized from their parts, so a new field or knob can never overrun one."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games import game_names, get_game
from sim.loba import layout
from sim.loba.rules import RULE
from sim.loba.state import new_bufs
from sim.rules import Knob, RulesSpec

ENUMS = [
    name
    for name in dir(layout)
    if not name.startswith("_")
    and hasattr(getattr(layout, name), "_fields")
    and "SIZE" in getattr(layout, name)._fields
]


@pytest.mark.parametrize("name", ENUMS)
def test_layout_offsets_increase_and_size_covers_them(name):
    e = getattr(layout, name)
    offs = [getattr(e, f) for f in e._fields if f != "SIZE"]
    if name == "A":  # A.MELD, A.CARD, A.POS, A.MOVE are aliases of lay-off columns
        offs = offs[: e._fields.index("SIZE")]
    assert offs == sorted(offs) and len(set(offs)) == len(offs)
    assert all(o < e.SIZE for o in offs)


def test_public_view_holds_the_whole_rule_array():
    assert layout.PUB.SIZE == layout.PUB.RULES + RULE.SIZE
    for preset in get_game("loba").rules.presets:
        R = get_game("loba").rules.make(preset).to_array()
        assert R.shape == (RULE.SIZE,)
        pub = new_bufs(R).pub
        assert pub.shape == (layout.PUB.SIZE,)
        assert np.array_equal(pub[layout.PUB.RULES :], R)


@pytest.mark.parametrize("game", game_names())
def test_a_new_knob_widens_the_rule_array(game):
    spec = get_game(game).rules
    extra = Knob("zz_test_knob", 7, "A1", "a knob added by this test", lo=0, hi=9)
    wider = RulesSpec(
        spec.game, spec.knobs + (extra,), spec.presets, spec.default_preset, spec.version,
        spec.min_players, spec.max_players, spec.check, spec.check_table,
    )  # fmt: skip
    assert wider.index.SIZE == spec.index.SIZE + 1
    r = wider.make()
    assert r.to_array().shape == (wider.index.SIZE,) and r.to_array()[-1] == 7

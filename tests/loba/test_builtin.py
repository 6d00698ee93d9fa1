"""The engine's own copy of a policy (``Policy(builtin=...)``: greedy, in Loba) plays exactly
the games its decision functions play (:func:`sim.testing.check_builtins`), for every game of
the registry."""

from __future__ import annotations

import pytest

from sim.games import game_names, get_game
from sim.policies import parse_seats
from sim.testing import check_builtins, player_counts


@pytest.mark.parametrize("game", game_names())
def test_builtin_policies_play_the_same_games(game):
    spec = get_game(game)
    built = [p for p in spec.policies.values() if getattr(p, "builtin", 0)]
    cells = len(built) * len(spec.rules.presets) * len(player_counts(spec)) * 2
    assert check_builtins(spec) == cells


def test_loba_has_a_builtin_greedy():
    assert get_game("loba").policies["greedy"].builtin != 0


def test_a_plugin_declaring_a_builtin_id_is_still_called(tmp_path):
    # only the registry's own policy is answered by the engine's copy: a plug-in that declares
    # greedy's id plays its own functions (here random's)
    plugin = tmp_path / "impostor.py"
    plugin.write_text(
        "from sim.loba.layout import BUILTIN\n"
        "from sim.loba.policies import random_discard, random_draw, random_play\n"
        "from sim.policies.api import Policy\n"
        "impostor = Policy('impostor', random_draw, random_play, random_discard,"
        " builtin=BUILTIN.GREEDY)\n"
    )
    spec = get_game("loba")
    seats = parse_seats(f"greedy,{plugin}:impostor", game=spec)
    _, params = spec.fn_tables(seats)
    # (the last two columns: the builtin id, then the plug-in flag: asked through its arena)
    assert params[:2, -2:].tolist() == [[spec.policies["greedy"].builtin, 0], [0, 1]]

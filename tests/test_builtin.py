"""The engine's own copy of a policy (``Policy(builtin=...)``: greedy, in Loba) plays exactly
the games its decision functions play (:func:`sim.testing.check_builtins`), for every game of
the registry."""

from __future__ import annotations

import pytest

from sim.games import game_names, get_game
from sim.testing import check_builtins, player_counts


@pytest.mark.parametrize("game", game_names())
def test_builtin_policies_play_the_same_games(game):
    spec = get_game(game)
    built = [p for p in spec.policies.values() if getattr(p, "builtin", 0)]
    cells = len(built) * len(spec.rules.presets) * len(player_counts(spec)) * 2
    assert check_builtins(spec) == cells


def test_loba_has_a_builtin_greedy():
    assert get_game("loba").policies["greedy"].builtin != 0

"""The shipped conformance harness (sim/testing.py) over every registered game."""

from __future__ import annotations

import pytest

from sim import testing
from sim.games import game_names, get_game


@pytest.mark.parametrize("game", game_names())
def test_harness_schema(game):
    testing.check_schema(game)


@pytest.mark.parametrize("game", game_names())
def test_harness_determinism(game):
    testing.check_determinism(game, games=150)


@pytest.mark.parametrize("game", game_names())
def test_harness_playouts_every_preset_policy_and_player_count(game):
    spec = get_game(game)
    stats = testing.check_playouts(spec, games=1, seed=5)
    n_cells = len(spec.rules.presets) * len(spec.policies) * len(testing.player_counts(spec))
    assert stats["games"] == n_cells and stats["events"] > 10 * n_cells

"""The shipped conformance harness (sim/testing.py) over every registered game."""

from __future__ import annotations

import pytest
from conftest import local_dask_cluster

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


def test_readme_tables_are_the_declared_tables():
    """The docs' column lists (docs/runs.md) are generated from each game's table declaration."""
    from pathlib import Path

    from sim.schema import markdown

    root = Path(__file__).parents[2]
    readme = "".join(p.read_text() for p in [root / "README.md", *sorted(root.glob("docs/*.md"))])
    shown = 0
    for game in game_names():
        start = readme.find(f"<!-- tables:{game}")
        if start < 0:
            continue
        body = readme[readme.index("\n", start) + 1 : readme.index("<!-- /tables -->", start)]
        assert body == markdown(get_game(game).tables), f"README tables of {game} are stale"
        shown += 1
    assert shown >= 1


@pytest.fixture(scope="module")
def cluster():
    """One Dask worker process shared by every game's backend check."""
    with local_dask_cluster(1) as address:
        yield address


@pytest.mark.parametrize("game", game_names())
def test_harness_backends_write_the_same_bytes(game, tmp_path, cluster):
    testing.check_backends(game, tmp_path, scheduler=cluster)

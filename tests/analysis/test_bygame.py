"""One analysis registration per game: every registered game's spec names its analysis
(``GameSpec.analysis``), :func:`analysis.bygame.for_game` finds it, and the shared modules of
``analysis/`` neither import a game's analysis package nor name a game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis.bygame import GameAnalysis, analysis_of, for_game, registered, stated_metrics
from sim.games import DEFAULT_GAME, all_games, game_names, get_game

SHARED = sorted((Path(__file__).parents[2] / "analysis").glob("*.py"))


@pytest.mark.parametrize("name", game_names())
def test_each_game_names_its_analysis(name):
    spec = get_game(name)
    ga = for_game(name)
    assert isinstance(ga, GameAnalysis) and for_game(spec) is ga is analysis_of(name)
    module, _, attr = spec.analysis.partition(":")
    assert module.split(".")[:2] == ["analysis", name] and attr == "ANALYSIS"  # in its package
    assert ga.stated and set(ga.stated) <= set(stated_metrics())
    for panel in ga.sweep_panels:
        assert panel.column in {c for c, _ in ga.sweep_columns} | set(
            ga.sweep_experiment.names if ga.sweep_experiment else ()
        )


def test_the_default_game_comes_from_the_registry():
    assert for_game(None) is for_game(DEFAULT_GAME)
    assert [s.name for s, _ in registered()] == [s.name for s in all_games()]


@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.name)
def test_shared_modules_name_no_game(path):
    games = set(game_names())
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            assert not games & set(parts), f"{path.name}:{node.lineno} imports {node.module}"
            assert not games & {a.name for a in node.names}, f"{path.name}:{node.lineno}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                assert not games & set(a.name.split(".")), f"{path.name}:{node.lineno}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value.strip().lower() not in games, f"{path.name}:{node.lineno}"

"""The registry of games: name -> :class:`sim.game.GameSpec`.

The only module outside the game packages that names them. A game's package is imported the
first time its spec is asked for, so ``import sim`` stays light.
"""

from __future__ import annotations

import importlib

from .game import GameSpec

DEFAULT_GAME = "loba"
# name -> module exporting SPEC, relative to this package
REGISTRY = {"loba": ".loba.spec", "moon": ".moon.spec"}


class GameError(ValueError):
    """An unknown game name. One sentence."""


def game_names() -> list[str]:
    return list(REGISTRY)


def get_game(game=None) -> GameSpec:
    """The spec of ``game`` (a name, a spec, or None for the default game)."""
    if isinstance(game, GameSpec):
        return game
    name = DEFAULT_GAME if game is None else str(game).strip().lower()
    if name not in REGISTRY:
        raise GameError(f"Unknown game '{game}': choose one of {', '.join(REGISTRY)}.")
    return importlib.import_module(REGISTRY[name], __package__).SPEC


def all_games() -> list[GameSpec]:
    return [get_game(n) for n in REGISTRY]

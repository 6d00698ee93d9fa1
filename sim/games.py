"""The registry of games: name -> :class:`sim.game.GameSpec`.

The only module outside the game packages that names them. A game's package is imported the
first time its spec is asked for, so ``import sim`` stays light.

Outside games. A game that does not ship with the tool (its own package, anywhere on the
import path, with a module exporting ``SPEC``, a :class:`~sim.game.GameSpec` of that name)
plugs in with one registration, either of:

* from Python: ``register_game("toy", "examples.toy.spec")``;
* for a process and its children: the environment variable
  ``LOBA_GAMES="toy=examples.toy.spec"`` (several: ``"a=pkg.a.spec,b=pkg.b.spec"``), e.g.
  ``LOBA_GAMES=toy=examples.toy.spec loba simulate --game toy`` (the CLI reads the registry
  when it checks ``--game``; a game's own commands and the help texts are read when it is
  imported).

The environment variable is the one record of the outside games: :func:`register_game` writes
it into ``os.environ``, so the processes this one starts (the isolated run's child, Dask
workers) know the game too. An outside game can neither replace a shipped one nor become the
default; the shipped registry (:data:`REGISTRY`, :data:`DEFAULT_GAME`) never changes.
"""

from __future__ import annotations

import importlib
import os
import re

from .game import GameSpec

DEFAULT_GAME = "loba"
# name -> module exporting SPEC, relative to this package (the shipped games)
REGISTRY = {"loba": ".loba.spec", "moon": ".moon.spec"}
ENV = "LOBA_GAMES"  # outside games: "NAME=MODULE[,NAME=MODULE...]"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class GameError(ValueError):
    """An unknown game name. One sentence."""


def _entry(name: str, module: str, where: str) -> tuple[str, str]:
    """A checked (name, module) of an outside game; ``where``: how it was given, for errors."""
    name, module = str(name).strip().lower(), str(module).strip()
    if not _NAME.fullmatch(name) or not _MODULE.fullmatch(module):
        raise GameError(
            f"{where} is not a game registration: write NAME=MODULE, e.g. toy=examples.toy.spec."
        )
    if name in REGISTRY:
        raise GameError(f"{where}: '{name}' is a shipped game; an outside game needs a new name.")
    return name, module


def outside_games() -> dict[str, str]:
    """The outside games (name -> absolute module exporting SPEC), from ``LOBA_GAMES``."""
    out: dict[str, str] = {}
    for item in re.split(r"[,;\s]+", os.environ.get(ENV, "").strip()):
        if item:
            name, _, module = item.partition("=")
            name, module = _entry(name, module, f"{ENV} entry '{item}'")
            out[name] = module
    return out


def register_game(name: str, module: str) -> None:
    """Register the outside game ``name`` whose spec is ``module``'s ``SPEC`` (an absolute
    module name, importable when the spec is first asked for), in this process and the
    processes it starts (it is written into ``LOBA_GAMES``). Registering it again is a no-op;
    a shipped name or a malformed one is refused (:class:`GameError`)."""
    name, module = _entry(name, module, f"'{name}={module}'")
    games = {**outside_games(), name: module}
    os.environ[ENV] = ",".join(f"{k}={v}" for k, v in games.items())


def unregister_game(name: str) -> None:
    """Forget the outside game ``name`` (nothing if it is not registered)."""
    games = outside_games()
    games.pop(str(name).strip().lower(), None)
    if games:
        os.environ[ENV] = ",".join(f"{k}={v}" for k, v in games.items())
    else:
        os.environ.pop(ENV, None)


def game_names() -> list[str]:
    """The shipped games, then the outside games in registration order."""
    return [*REGISTRY, *outside_games()]


def get_game(game=None) -> GameSpec:
    """The spec of ``game`` (a name, a spec, or None for the default game)."""
    if isinstance(game, GameSpec):
        return game
    name = DEFAULT_GAME if game is None else str(game).strip().lower()
    if name in REGISTRY:
        return importlib.import_module(REGISTRY[name], __package__).SPEC
    outside = outside_games()
    if name not in outside:
        raise GameError(f"Unknown game '{game}': choose one of {', '.join(game_names())}.")
    try:
        spec = importlib.import_module(outside[name]).SPEC
    except (ImportError, AttributeError) as e:
        raise GameError(
            f"The game '{name}' ({ENV}) cannot be loaded from '{outside[name]}': {e}."
        ) from None
    if not isinstance(spec, GameSpec) or spec.name != name:
        raise GameError(f"'{outside[name]}.SPEC' is not the GameSpec of a game named '{name}'.")
    return spec


def all_games() -> list[GameSpec]:
    return [get_game(n) for n in game_names()]

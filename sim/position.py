"""Positions as files, any game: read a position (TOML file, TOML text or dict), tell which
game it is by its ``game`` key, and hand it to that game's reader
(:attr:`sim.game.GameSpec.positions`; docs/positions.md).

What the games' readers share lives here: :class:`PositionError` (one sentence naming the
field), :func:`read_position` (the file or text as a dict), :func:`position_rules` (its
``rules``) and :func:`whole` (a bounded whole number).
"""

from __future__ import annotations

import tomllib
from pathlib import Path


class PositionError(ValueError):
    """A position that cannot be read or cannot occur. One sentence naming the field."""


def read_position(source, keys=None) -> tuple[dict, str]:
    """(the position's keys as a dict, how to name it in a sentence) of a TOML file path,
    TOML text or a dict; ``keys``: the fields allowed (an unknown one is refused)."""
    if isinstance(source, dict):
        data, where = dict(source), "the position"
    else:
        s = str(source)
        if "\n" in s or "=" in s:
            text, where = s, "the position"
        else:
            p = Path(s)
            if not p.is_file():
                raise PositionError(f"Position file '{p}' does not exist.")
            try:
                text, where = p.read_text(), f"'{p}'"
            except (OSError, UnicodeDecodeError) as e:
                raise PositionError(f"Position file '{p}' cannot be read ({e}).") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise PositionError(f"{where} is not valid TOML ({e}).") from None
    unknown = [k for k in data if keys is not None and k not in keys]
    if unknown:
        raise PositionError(
            f"{where}: unknown field '{unknown[0]}' (the fields are: {', '.join(keys)})."
        )
    return data, where


def position_rules(value, game: str):
    """The rule set a position's ``rules`` names: a preset, a canonical id, or a knob table
    ``{ preset = "...", knob = value }``."""
    from .games import get_game
    from .setup import parse_rules_id

    if isinstance(value, dict):
        knobs = dict(value)
        return get_game(game).rules.make(knobs.pop("preset", None), **knobs)
    return parse_rules_id(str(value), game)


def position_seats(seats, game: str, n: int, rule: str = "") -> list[str]:
    """The ``seats`` of a position file: a list (or comma-separated string) of ``n`` seat
    strings of ``game``, each one a seat the game knows; one sentence naming the field
    otherwise."""
    from .policies import SeatError, parse_seats

    if isinstance(seats, str):
        seats = seats.split(",")
    if not isinstance(seats, list) or len(seats) != n:
        raise PositionError(f"'seats' must name one policy per seat ({n}){rule}.")
    if not all(isinstance(s, str) for s in seats):
        raise PositionError("'seats' must be seat strings such as \"greedy\".")
    try:
        parse_seats([s.strip() for s in seats], game=game)
    except SeatError as e:
        raise PositionError(f"'seats': {e}") from None
    return seats


def whole(value, name: str, lo: int, hi: int) -> int:
    """``value`` if it is a whole number from ``lo`` to ``hi``, else one sentence naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise PositionError(f"'{name}' must be a whole number from {lo} to {hi}, not {value!r}.")
    return value


def position_game(source):
    """The :class:`~sim.game.GameSpec` of the game a position names (``game``, default
    Loba), if that game reads positions."""
    from .games import DEFAULT_GAME, game_names, get_game

    name = read_position(source)[0].get("game", DEFAULT_GAME)
    if not isinstance(name, str) or name.strip().lower() not in game_names():
        raise PositionError(f"'game' = {name!r} is not a game: one of {', '.join(game_names())}.")
    spec = get_game(name)
    if spec.positions is None:
        raise PositionError(f"'game' = {name!r}: {spec.title} positions cannot be read.")
    return spec

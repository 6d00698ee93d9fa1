"""Simulate and analyse card and tile games: rules, compiled kernels, policies, batch runs.

Games are values (:class:`sim.game.GameSpec`) registered in :mod:`sim.games`; everything here
works for any of them.

>>> import sim
>>> res = sim.simulate("pagat", "greedy,greedy,greedy,greedy", games=1000, seed=1)
>>> res.games.head()
"""

from .files import RunDirError
from .game import GameSpec
from .games import GameError, game_names, get_game
from .policies import SeatError, parse_seat, parse_seats
from .results import Results
from .rules import RuleError, RuleSet
from .runner import simulate
from .setup import Setup, make_rules, parse_rules_id

__all__ = [
    "GameError",
    "GameSpec",
    "Results",
    "RuleError",
    "RuleSet",
    "RunDirError",
    "SeatError",
    "Setup",
    "game_names",
    "get_game",
    "make_rules",
    "parse_rules_id",
    "parse_seat",
    "parse_seats",
    "simulate",
]

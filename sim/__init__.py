"""Loba de Menos simulator: rules, the compiled engine, policies and batch runs.

>>> import sim
>>> res = sim.simulate("pagat", "greedy,greedy,greedy,greedy", games=1000, seed=1)
>>> res.games.head()
"""

from .cards import CardError, card_str, parse_card, parse_cards
from .melds import check_meld
from .policies import SeatError, parse_seat, parse_seats
from .results import Results, RunDirError
from .rules import PRESETS, RULES_VERSION, RuleError, RuleSet, make_rules, parse_rules_id
from .runner import simulate

__all__ = [
    "PRESETS",
    "RULES_VERSION",
    "CardError",
    "Results",
    "RuleError",
    "RuleSet",
    "RunDirError",
    "SeatError",
    "card_str",
    "check_meld",
    "make_rules",
    "parse_card",
    "parse_cards",
    "parse_rules_id",
    "parse_seat",
    "parse_seats",
    "simulate",
]

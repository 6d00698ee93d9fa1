"""Array layouts shared by the Toy Tricks kernel, its policies and the trace.

Cards: id 0..15, suit ``id // 8`` (0 = S, 1 = H), rank ``id % 8`` (shown 1..8).
"""

from __future__ import annotations

from sim.events import EV  # noqa: F401  (the shared event layout: EV.ROUND is the hand number)
from sim.rules import make_enum

from .rules import RULE

MAX_SEATS = 4
N_CARDS = 16
RANKS = 8
HAND_SIZE = 3  # cards per seat per hand = tricks per hand ([T2])
SUITS = "SH"

# game scalars (int64[G.SIZE])
G = make_enum(
    "G",
    ["HAND", "FIRST_LEADER", "LEADER", "TRICK", "WINNER", "END", "DECISIONS", "TRICKS",
     "LEAD_WINS"],
)  # fmt: skip
# seat scalars (int64[MAX_SEATS, S.SIZE])
S = make_enum("S", ["SCORE", "TRICKS", "POINTS", "TRICKS_TOTAL", "LEADS", "PLACE", "BAD"])
END = make_enum("END", ["NONE", "TARGET", "CAP"])

# the public view a policy gets (int32[PUB.SIZE]); TRICK_CARDS + j: the j-th card of the trick
# under way (j < NPLAYED), SCORE + q: seat q's score, RULES + RULE.*: the rule set
PUB = make_enum(
    "PUB",
    ["SEAT", "N_PLAYERS", "HAND", "TRICK", "LEADER", "NPLAYED", "TRICK_CARDS", "SCORE", "RULES"],
    {"TRICK_CARDS": MAX_SEATS, "SCORE": MAX_SEATS, "RULES": RULE.SIZE},
)

# events (EV.TYPE):
# START  a=first leader b=players;  DEAL  seat=leader, payload: each seat's cards in seat order
# PLAY   seat a=card b=trick;       TRICK seat=winner a=trick b=points
# SCORE  payload: the scores after the hand;  BAD seat a=the out-of-range answer
# END    seat=winner (-1 unfinished) a=END.* b=hands
E = make_enum("E", ["NONE", "START", "DEAL", "PLAY", "TRICK", "SCORE", "BAD", "END"])

N_RNG = 2 + 2 * MAX_SEATS  # the deal stream, then one policy stream per seat


def card_str(c: int) -> str:
    return f"{c % RANKS + 1}{SUITS[c // RANKS]}"

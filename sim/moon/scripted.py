"""A scripted policy for scenario tests and examples: it does what its parameters say.

Parameters (slot order): ``bid`` (0 = pass, or 4/5/6/7/21), ``discard`` (a tile id, -1 = any),
``trump`` (contract code 0-8), ``play`` (0 = the lowest legal tile id, 1 = the highest). When
what it wants is not among the options it answers -1, which the engine reads as the first
option and counts as a bad answer — so a test can see that an option was not offered.
"""

from __future__ import annotations

from ..policies.api import Policy, decision
from .layout import DEC, PUB, A


@decision
def script_bid(own, pub, played, params, rng, acts, n):
    want = int(params[0])
    for i in range(n):
        if acts[i, A.BID] == want:
            return i
    return -1


@decision
def script_trump(own, pub, played, params, rng, acts, n):
    d = int(params[1])
    c = int(params[2])
    dec = pub[PUB.DECISION]
    for i in range(n):
        if dec == DEC.TRUMP:
            if acts[i, A.TRUMP] == c:
                return i
        elif dec == DEC.DISCARD:
            if acts[i, A.TILE] == d or d < 0:
                return i
        elif acts[i, A.TRUMP] == c and (acts[i, A.TILE] == d or d < 0):
            return i
    return -1


@decision
def script_play(own, pub, played, params, rng, acts, n):
    return n - 1 if params[3] > 0 else 0


SCRIPT = Policy(
    "script",
    bid=script_bid,
    trump=script_trump,
    play=script_play,
    params={"bid": 0.0, "discard": -1.0, "trump": 8.0, "play": 0.0},
    doc="does what its parameters say (tests)",
    game="moon",
)

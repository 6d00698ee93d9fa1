"""The Toy Tricks decision signature and its built-in policies.

One decision kind, ``play``, of signature :data:`DECIDE_SIG`::

    def play(own, pub, params, rng, acts, n) -> int

``own`` int8[16]: 1 for each card held; ``pub`` int32[PUB.SIZE]: the public view
(:data:`~.layout.PUB`); ``params`` float64[8]: the seat's parameters; ``rng`` uint64[2]: the
seat's own stream; ``acts[:n]`` int16: the legal cards ([T3]), ascending. It returns the index
of its choice; an answer outside ``0 .. n-1`` is read as the first option and counted.

* ``random``  uniform among the legal cards.
* ``greedy``  leads its highest card (``lead_high`` = 1) or its lowest (0); following, plays the
  cheapest card that beats the trick so far, else its lowest.
* ``low``     always its lowest card.
"""

from __future__ import annotations

from numba import types

from sim.policies.api import Policy, decision
from sim.rng import below

from .layout import PUB, RANKS

DECISIONS = ("play",)
DECIDE_SIG = types.int64(
    types.int8[::1],  # own
    types.int32[::1],  # pub
    types.float64[::1],  # params
    types.uint64[::1],  # rng
    types.int16[::1],  # acts
    types.int64,  # n
)


@decision
def random_play(own, pub, params, rng, acts, n):
    return below(rng, n)


@decision
def low_play(own, pub, params, rng, acts, n):
    best = 0
    for i in range(1, n):
        if acts[i] % RANKS < acts[best] % RANKS:
            best = i
    return best


@decision
def greedy_play(own, pub, params, rng, acts, n):
    if pub[PUB.NPLAYED] == 0:
        best = 0
        for i in range(1, n):
            r, b = acts[i] % RANKS, acts[best] % RANKS
            if (r > b) if params[0] >= 0.5 else (r < b):
                best = i
        return best
    led = pub[PUB.TRICK_CARDS]
    top = led
    for j in range(1, pub[PUB.NPLAYED]):
        c = pub[PUB.TRICK_CARDS + j]
        if c // RANKS == led // RANKS and c > top:
            top = c
    best = -1
    for i in range(n):
        c = acts[i]
        if c // RANKS == led // RANKS and c > top and (best < 0 or c < acts[best]):
            best = i
    return best if best >= 0 else low_play(own, pub, params, rng, acts, n)


POLICIES = {
    "random": Policy("random", play=random_play, doc="uniform among legal cards", game="toy"),
    "greedy": Policy(
        "greedy",
        play=greedy_play,
        params={"lead_high": 1.0},
        ranges={"lead_high": (0.0, 1.0)},
        doc="leads high (lead_high=1) or low; wins a trick as cheaply as it can",
        game="toy",
    ),
    "low": Policy("low", play=low_play, doc="always its lowest card", game="toy"),
}

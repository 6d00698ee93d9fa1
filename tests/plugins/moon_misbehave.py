"""Moon plug-ins that misbehave on purpose (tests/core/test_plugin_faults.py): greedy's decisions,
except that with ``armed=1`` a bid raises (``fail``: ValueError) or reads past the end of its
hand (``peek``: the bounds check's IndexError) at a rare decision, and ``probe`` answers out of
range there instead (a bad answer, counted per seat: the first game with one is the game the
others misbehave in). Which decision is the rare one depends only on the seat's random stream
(read, never advanced)."""

import numba
import numpy as np

from sim.moon.policies import greedy_bid, greedy_play, greedy_trump
from sim.policies.api import Policy


def _rare(params, rng):
    return params[0] > 0 and rng[0] % np.uint64(params[1]) == 0


rare = numba.njit(_rare)


@numba.njit(boundscheck=True)
def fail_bid(own, pub, played, params, rng, acts, n):
    if rare(params, rng):
        raise ValueError("fail misbehaves on purpose")
    return greedy_bid(own, pub, played, params, rng, acts, n)


@numba.njit(boundscheck=True)
def peek_bid(own, pub, played, params, rng, acts, n):
    if rare(params, rng):
        return greedy_bid(own, pub, played, params, rng, acts, n) + own[n + 99]
    return greedy_bid(own, pub, played, params, rng, acts, n)


@numba.njit(boundscheck=True)
def probe_bid(own, pub, played, params, rng, acts, n):
    if rare(params, rng):
        return -5
    return greedy_bid(own, pub, played, params, rng, acts, n)


PARAMS = {"armed": 1.0, "every": 40.0}


def _policy(name, bid, doc):
    return Policy(
        name, bid=bid, trump=greedy_trump, play=greedy_play, params=PARAMS, doc=doc, game="moon"
    )


fail = _policy("fail", fail_bid, "greedy, but a rare bid raises ValueError")
peek = _policy("peek", peek_bid, "greedy, but a rare bid reads past the end of its hand")
probe = _policy("probe", probe_bid, "greedy, but a rare bid answers out of range")

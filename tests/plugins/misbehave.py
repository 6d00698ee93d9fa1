"""Plug-ins that misbehave on purpose (tests/core/test_interrupt.py): greedy's decisions, except
that when armed they hang (``hang``: a play decision loops forever), crash the process (``crash``:
a play decision writes far out of bounds, a segmentation fault), raise (``fail``: ValueError)
or read past an end (``peek``: the bounds check's IndexError) at a rare decision.

Armed by the environment of the process that loads this file: ``LOBA_TEST_MISBEHAVE=1``. The
switch is a parameter default (read when the seat is parsed, not frozen into compiled code), so
the same seat string resumed without it plays exactly greedy's games. Which decision is the
rare one depends only on the game's policy random stream (read, never advanced), so an armed
run misbehaves at the same game every time; ``every`` sets how rare (about one decision in
``every``).
"""

import os

import numba
import numpy as np

from sim.loba.greedy import best_discard, best_play
from sim.loba.policies import greedy_draw
from sim.policies.api import Policy, decision

ARMED = 1.0 if os.environ.get("LOBA_TEST_MISBEHAVE", "") not in ("", "0") else 0.0


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n)


@decision
def hang_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if params[0] > 0 and rng[0] % np.uint64(params[1]) == 0:
        x = np.int64(0)
        while pub[0] >= 0:  # never false (a seat number), and Numba cannot know it
            x += hand[x % 53] + 1
            rng[1] ^= np.uint64(x)  # a store: the loop cannot be dropped
    return best_play(acts, n)


@numba.njit(boundscheck=False)
def _poke(a, i):
    a[i] = 1  # no bounds check here (a decision function's own code has them)


@decision
def crash_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if params[0] > 0 and rng[0] % np.uint64(params[1]) == 0:
        far = np.int64(1) << np.int64(42)
        _poke(mem, far)  # 32 TiB past the seat's memory: unmapped memory, SIGSEGV
        _poke(mem, -far)
    return best_play(acts, n)


@decision
def fail_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if params[0] > 0 and rng[0] % np.uint64(params[1]) == 0:
        raise ValueError("fail misbehaves on purpose")
    return best_play(acts, n)


@decision
def peek_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if params[0] > 0 and rng[0] % np.uint64(params[1]) == 0:
        return best_play(acts, n + hand[99])  # past the end of the hand: IndexError
    return best_play(acts, n)


@decision
def probe_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """Where ``hang``/``crash`` would misbehave, answer out of range instead (a bad answer,
    counted per seat): the first game with one is the game they misbehave in."""
    if rng[0] % np.uint64(params[1]) == 0:
        return -5
    return best_play(acts, n)


DOC = "greedy, but armed by LOBA_TEST_MISBEHAVE=1 it {} at about one decision in `every`"


def _greedy_but(name: str, play, doc: str, armed: float = ARMED) -> Policy:
    return Policy(name, draw, play, discard, params={"armed": armed, "every": 600.0}, doc=doc)


hang = _greedy_but("hang", hang_play, DOC.format("loops forever"))
crash = _greedy_but("crash", crash_play, DOC.format("writes out of bounds (segfault)"))
probe = _greedy_but(
    "probe", probe_play, "greedy, but answers out of range where the others misbehave", 1.0
)
fail = _greedy_but("fail", fail_play, DOC.format("raises ValueError"))
peek = _greedy_but("peek", peek_play, DOC.format("reads past the end of its hand (IndexError)"))

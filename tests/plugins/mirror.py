"""A plug-in that re-exports greedy's decisions under a new name: running it through the
plug-in path must give exactly greedy's games."""

from sim.loba.greedy import best_discard, out_or_largest
from sim.loba.policies import greedy_draw
from sim.policies.api import Policy, decision


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)


@decision
def play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return out_or_largest(hand, melds, pub, acts, n)


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n)


mirror = Policy("mirror", draw, play, discard)
not_a_policy = 42

"""A scripted plug-in that wants to discard a joker at every discard ([A24] tests).

It always draws the stock when it has the choice, never plays a card it is not made to play
(a taken discard must go down, [A12]: then it takes the first option), and at the discard it
picks the joker whenever the engine offers it, else the first option (the lowest card
identity). Whether a joker reached the pile thus tells exactly whether the engine offered it.
"""

from sim.loba.layout import DRAW, JOKER, PUB
from sim.policies.api import Policy, decision


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(n):
        if acts[i, 0] == DRAW.STOCK:
            return i
    return 0


@decision
def play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 0 if pub[PUB.TAKEN] >= 0 else -1


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(n):
        if acts[i, 0] == JOKER:
            return i
    return 0


joker_dumper = Policy("joker_dumper", draw, play, discard)

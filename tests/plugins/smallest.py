"""A test plug-in that puts down its smallest meld first ([A9]: any legal meld may go down).

It draws the stock when it has the choice, plays the option that puts the fewest cards down
(new melds before lay-offs, the first on a tie) until no play is left, and discards the first
option. Whatever it achieves, it achieves through the engine's option list alone.
"""

from sim.loba.layout import DRAW, PLAY, A
from sim.policies.api import Policy, decision


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(n):
        if acts[i, 0] == DRAW.STOCK:
            return i
    return 0


@decision
def play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    best = 0
    key = 1 << 30
    for i in range(n):
        k = acts[i, A.N] + (100 if acts[i, A.TYPE] == PLAY.LAYOFF else 0)
        if k < key:
            key = k
            best = i
    return best


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 0


smallest = Policy("smallest", draw, play, discard)

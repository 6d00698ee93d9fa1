"""An example plug-in policy, written outside ``sim/``: "cautious".

It melds and lays off like ``greedy`` (reusing its helpers), but it never takes the discard
(taking one shows the table what you collect) and, once any opponent holds ``alarm`` cards or
fewer, it discards its highest-value card regardless of usefulness, to cut its penalty.

Use it from the command line::

    loba simulate --seats examples/cautious.py:cautious,greedy,greedy,greedy --games 20000
    loba simulate --seats examples/cautious.py:cautious:alarm=2,greedy --games 20000

or from Python::

    import sim
    sim.simulate("pagat", "examples/cautious.py:cautious,greedy", games=1000)

Each decision function takes ``(hand, melds, pile, pub, params, rng, acts, n, hist, mem)`` and
returns an option index (see ``sim/loba/api.py`` for the arguments). ``@decision`` compiles it
with the plug-in signature, so the kernel calls it directly, without Python in the loop.
"""

from sim.loba.cards import JOKER
from sim.loba.greedy import best_discard, best_play
from sim.loba.layout import DRAW, PUB
from sim.loba.policies.hold import opponent_close
from sim.loba.rules import RULE
from sim.policies.api import Policy, decision


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(n):
        if acts[i, 0] == DRAW.STOCK:
            return i
    return 0


@decision
def play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_play(acts, n)


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    danger = opponent_close(pub, params[0])
    if not danger:
        return best_discard(hand, pub, acts, n)
    best = 0
    best_v = -1
    for i in range(n):
        c = acts[i, 0]
        if c == JOKER:
            v = 0  # a joker may only be discarded when the hand is all jokers anyway
        else:
            r = c % 13 + 1
            v = pub[PUB.RULES + RULE.ACE_VALUE] if r == 1 else min(r, 10)
        if v > best_v:
            best_v = v
            best = i
    return best


cautious = Policy(
    name="cautious",
    draw=draw,
    play=play,
    discard=discard,
    params={"alarm": 3.0},
    doc="greedy melds, never takes the discard, dumps high cards when an opponent is close",
)

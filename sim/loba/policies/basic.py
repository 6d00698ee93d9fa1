"""``random`` and ``greedy``: the plain policies.

* ``random``  uniform among the legal options at every decision (plays include "stop").
* ``greedy``  takes the discard whenever it may, plays everything it can as soon as it can
  (largest meld first; the high end for an ambiguous joker, [A18]) — but when some first play
  followed by largest-first play empties its hand (or leaves one card to discard), it plays
  that one: it goes out whenever such an ordering exists; discards its most costly useless card.

Greedy's choices themselves live in :mod:`sim.loba.greedy` (the engine carries a copy of
them: ``BUILTIN``); these are the decision functions a seat is handed.
"""

from __future__ import annotations

from ...policies.api import decision
from ...rng import below
from ..greedy import discard_choice, draw_choice, play_choice
from ..layout import PUB

# ---------------------------------------------------------------- random


@decision
def random_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return below(rng, n)


@decision
def random_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if pub[PUB.TAKEN] >= 0:
        return below(rng, n)
    return below(rng, n + 1) - 1  # -1 = stop


@decision
def random_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return below(rng, n)


# ---------------------------------------------------------------- greedy


@decision
def greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return draw_choice(hand, melds, pub, acts, n)


@decision
def greedy_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return play_choice(hand, melds, pub, acts, n)


@decision
def greedy_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return discard_choice(hand, melds, pub, acts, n)

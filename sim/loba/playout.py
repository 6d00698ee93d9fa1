"""smart's play-outs: the same plays as :func:`sim.loba.greedy.play_out` (largest new meld
first, then the first lay-off), without searching for a new meld where none can be.

A play only takes cards out of the hand, and a hand with no new meld has none in any part of
it ([A15]-[A18]: a meld of the smaller hand is one of the larger; under
``go_out_needs_discard`` its size limit only falls as well). So once the search finds no meld
a play-out looks at lay-offs only, and ``fewest_left`` (:mod:`sim.loba.policies.smart`) asks
once per decision whether its hand holds a new meld at all (:func:`option_out_from`): when it
holds none, no play-out searches for one. ``tests/loba/test_playout.py`` checks the
play-outs against greedy's.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from ..stack import stack_array
from .layout import HAND_W, MAX_MELDS, N_IDS, PLAY, PUB, A, M
from .moves import apply_play, best_layoff, copy_rows2, largest_new_meld, rules_into
from .rules import RULE

_N_RULES = RULE.SIZE
_A_SIZE = A.SIZE
_M_SIZE = M.SIZE


@kernel
def play_out_from(h, hn, ms, nm, R, melded, seat, row, meldable):
    """:func:`~sim.loba.greedy.play_out` of hand ``h`` (``hn`` cards) on table ``ms`` (both
    changed in place); ``meldable`` false: the hand holds no new meld (then none is searched
    for). Returns the cards left."""
    while hn > 0:
        if not (meldable and largest_new_meld(h, hn, R, row)):
            meldable = False  # (none in any smaller hand either)
            if not melded or not best_layoff(h, hn, ms, nm, R, row):
                break
        hn -= row[A.N]
        if row[A.TYPE] == PLAY.MELD:
            melded = True
        nm = apply_play(h, ms, nm, row, seat)
    return hn


@kernel(inline="always")
def option_out_from(hand, hn, melds, nm, R, melded, seat, act, h, ms, row, meldable):
    """:func:`~sim.loba.greedy.option_out`: play ``act`` from ``hand`` (``hn`` cards) and
    ``melds[:nm]`` on the scratch ``h`` and ``ms``, then largest-first; ``meldable`` false:
    ``hand`` holds no new meld. Returns the cards left (``h``: the hand left)."""
    for c in range(N_IDS):
        h[c] = hand[c]
    copy_rows2(melds, ms, nm)
    nm2 = apply_play(h, ms, nm, act, seat)
    melded = melded or act[A.TYPE] == PLAY.MELD
    return play_out_from(h, hn - act[A.N], ms, nm2, R, melded, seat, row, meldable)


@kernel(readonly=("hand", "melds", "pub", "acts"))
def any_goes_out(hand, hn, melds, pub, acts, n, must, meldable):
    """Whether some option of ``acts[:n]`` (every play of ``hand``, ``hn`` cards; ``meldable``:
    one of them is a new meld) followed by largest-first play leaves at most one card and puts
    a card of identity ``must`` down (-1: any): ``greedy.going_out(...)[0] >= 0``, stopping at
    the first option that does. (Its scratch is on its own stack.)"""
    R = rules_into(pub, stack_array(_N_RULES, 0, np.int64))
    h = stack_array(HAND_W, 0, np.int8)
    for c in range(N_IDS, HAND_W):  # (the padding read eight counts at a time: zeros)
        h[c] = 0
    row = stack_array(1, _A_SIZE, np.int16)[0]
    ms = stack_array(MAX_MELDS, _M_SIZE, np.int16)
    nm = pub[PUB.NMELDS]
    seat = pub[PUB.SEAT]
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    for i in range(n):
        left = option_out_from(hand, hn, melds, nm, R, melded, seat, acts[i], h, ms, row, meldable)
        if left <= 1 and not (must >= 0 and h[must] >= hand[must]):
            return True
    return False

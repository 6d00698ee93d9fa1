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

from ..jit import kernel
from .layout import N_IDS, PLAY, A
from .moves import apply_play, best_layoff, copy_rows2, largest_new_meld


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

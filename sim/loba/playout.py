"""smart's play-outs: the same plays as :func:`sim.loba.greedy.play_out` (largest new meld
first, then the first lay-off), without searching for a new meld where none can be.

A play only takes cards out of the hand, and a hand with no new meld has none in any part of
it ([A15]-[A18]: a meld of the smaller hand is one of the larger; under
``go_out_needs_discard`` its size limit only falls as well). So once the search finds no meld
a play-out looks at lay-offs only, and ``fewest_left`` (:mod:`sim.loba.policies.smart`) asks
once per decision whether its hand holds a new meld at all (:func:`option_out_from`): when it
holds none, no play-out searches for one.

When it holds one, the decision's largest meld (``top``, found once) is the first play of
every play-out whose option leaves it whole (:func:`meld_whole`): the melds of the smaller hand
are melds of the larger (the same keys), so none beats ``top`` and none equal comes before it
in the search's order; the search is skipped for that step. ``tests/loba/test_playout.py``
checks the play-outs against greedy's.
"""

from __future__ import annotations

from ..jit import kernel
from .layout import JOKER, MELD, N_IDS, PLAY, A
from .moves import (
    apply_play,
    best_layoff,
    copy_rows2,
    largest_new_meld,
    pierna_count,
    popcount,
    pos_card,
)
from .rules import RULE


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
def meld_whole(h, hn, R, top):
    """Does the hand ``h`` (``hn`` cards) still hold every card of the new meld ``top`` (an
    option row), within the size limit ([A26])?"""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and top[A.N] > hn - 1:
        return False
    if top[A.KIND] == MELD.PIERNA:
        r = int(top[A.KEY])
        for s in range(4):
            if pierna_count(top[A.LO], s) > h[s * 13 + r - 1]:
                return False
        return True
    s = int(top[A.KEY])
    jm = int(top[A.JMASK])
    for p in range(int(top[A.LO]), int(top[A.HI]) + 1):
        if not (jm >> p) & 1 and h[pos_card(p, s)] == 0:
            return False
    return h[JOKER] >= popcount(jm)


@kernel(inline="always")
def option_out_from(hand, hn, melds, nm, R, melded, seat, act, h, ms, row, meldable, top):
    """:func:`~sim.loba.greedy.option_out`: play ``act`` from ``hand`` (``hn`` cards) and
    ``melds[:nm]`` on the scratch ``h`` and ``ms``, then largest-first; ``meldable`` false:
    ``hand`` holds no new meld, else ``top`` is its largest (``moves.largest_new_meld``).
    Returns the cards left (``h``: the hand left)."""
    for c in range(N_IDS):
        h[c] = hand[c]
    copy_rows2(melds, ms, nm)
    nm = apply_play(h, ms, nm, act, seat)
    melded = melded or act[A.TYPE] == PLAY.MELD
    hn -= act[A.N]
    if meldable and hn > 0 and meld_whole(h, hn, R, top):
        hn -= top[A.N]  # the play-out's first play, without the search
        melded = True
        nm = apply_play(h, ms, nm, top, seat)
    return play_out_from(h, hn, ms, nm, R, melded, seat, row, meldable)

"""``hold``: plays for the one-turn bonus ([A28]).

* ``hold``    keeps its melds in hand until it can go out in one turn (for the [A28] bonus), and
  takes the discard when that lets it go out at once; unless an opponent holds ``patience``
  cards or fewer, or it has already put cards down this round; then it plays like ``greedy``.
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...jit import jit, kernel
from ...policies.api import decision
from ..greedy import array_type, best_discard, going_out, may_go_out, out_or_largest
from ..layout import DRAW, HAND_W, N_IDS, PUB, ST, A
from ..moves import gen_layoffs, gen_new_melds, options_bound, view_rules
from ..playout import way_out
from ..rules import RULE
from .basic import greedy_draw


@kernel
def opponent_close(pub, patience):
    me = pub[PUB.SEAT]
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE and pub[PUB.HAND_N + q] <= patience:
            return True
    return False


@jit(
    types.boolean(
        array_type(types.int8, 1, True),
        array_type(types.int16, 2, True),
        array_type(types.int16, 1, True),
        array_type(types.int32, 1, True),
    )
)
def take_goes_out(hand, melds, pile, pub):
    """Would taking the top discard let the seat go out this turn (placing it)?"""
    top = pile[pub[PUB.PILE_N] - 1]
    R = view_rules(pub)
    h = np.zeros(HAND_W, dtype=np.int8)
    hn = 1
    for i in range(N_IDS):
        h[i] = hand[i]
        hn += hand[i]
    h[top] += 1
    opts = np.empty((options_bound(R), A.SIZE), dtype=np.int16)
    n = gen_new_melds(h, hn, R, opts, 0)
    if pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
        n = gen_layoffs(h, hn, melds, pub[PUB.NMELDS], R, opts, n)
    if not may_go_out(h[:N_IDS], melds, pub, opts, n):
        return False
    return way_out(h[:N_IDS], melds, pub, opts, n, top, True) >= 0


@kernel
def hold_mode_greedy(hand, melds, pub, params):
    return pub[PUB.PLACED] == 1 or opponent_close(pub, params[0])


@decision
def hold_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if hold_mode_greedy(hand, melds, pub, params):
        return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
    for i in range(n):  # the discard, when it lets the seat go out at once ([A28] bonus)
        if acts[i, 0] == DRAW.DISCARD and take_goes_out(hand, melds, pile, pub):
            return i
    return 0


@decision
def hold_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if pub[PUB.TAKEN] >= 0 or hold_mode_greedy(hand, melds, pub, params):
        return out_or_largest(hand, melds, pub, acts, n)
    if may_go_out(hand, melds, pub, acts, n):
        k = going_out(hand, melds, pub, acts, n, -1)[0]
        if k >= 0:
            return k
    return -1


@decision
def hold_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n)

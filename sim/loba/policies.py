"""Built-in policies (DESIGN.md "Policies") and rebuy rules, written against the plug-in API.

* ``random``  uniform among the legal options at every decision (plays include "stop").
* ``greedy``  takes the discard whenever it may, plays everything it can as soon as it can
  (largest meld first; the high end for an ambiguous joker, [A18]), discards its most costly
  useless card.
* ``hold``    keeps its melds in hand until it can go out in one turn (for the [A28] bonus),
  unless an opponent holds ``patience`` cards or fewer, or it has already put cards down this
  round; then it plays like ``greedy``.

Rebuy rules: ``always``, ``never``, ``if_opponents:k=K`` (rebuy only while at least K other
players are still under the limit).
"""

from __future__ import annotations

import numpy as np

from ..jit import jit, kernel
from ..policies.api import AddOnRule, Policy, addon_slot, decision
from ..rng import below
from .cards import rank_of, suit_of
from .engine import copy_rows2
from .layout import DRAW, JOKER, MAX_ACTS, MAX_MELDS, PLAY, PUB, ST, A, M
from .moves import apply_play, gen_layoffs, gen_new_melds
from .rules import RULE

REBUY_SLOT0 = addon_slot(0)  # the rebuy rule's parameters (the only add-on of a Loba seat)

# ---------------------------------------------------------------- random


@decision
def random_draw(hand, melds, pile, pub, params, rng, acts, n):
    return below(rng, n)


@decision
def random_play(hand, melds, pile, pub, params, rng, acts, n):
    if pub[PUB.TAKEN] >= 0:
        return below(rng, n)
    return below(rng, n + 1) - 1  # -1 = stop


@decision
def random_discard(hand, melds, pile, pub, params, rng, acts, n):
    return below(rng, n)


# ---------------------------------------------------------------- greedy


@kernel
def best_play(acts, n):
    """Largest new meld first (ties: higher top position, [A18]); then the first lay-off."""
    best = -1
    key = -1
    for i in range(n):
        if acts[i, A.TYPE] == PLAY.MELD:
            k = acts[i, A.N] * 100 + acts[i, A.HI]
        else:
            k = 1 if acts[i, A.KEY] == JOKER else 2
        if k > key:
            key = k
            best = i
    return best


@kernel(inline="always")
def card_cost(cid, hand, pub):
    """Penalty value of ``cid`` minus how much it helps a future meld (greedy's discard key)."""
    if cid == JOKER:
        return -1000
    r = rank_of(cid)
    s = suit_of(cid)
    v = pub[PUB.RULES + RULE.ACE_VALUE] if r == 1 else min(r, 10)
    # branch-free (the tests on held cards mispredict): 2 per other suit with this rank ...
    useful = -2  # the card itself
    for t in range(4):
        useful += 2 * (hand[t * 13 + r - 1] > 0)
    # ... 3 per same-suit neighbour one position away, 1 per neighbour two away; position p
    # is the card s*13 + p - 1, position 14 the ace; an ace's neighbours are 2, 3 and K, Q
    b = s * 13
    if r == 1:
        useful += 3 * ((hand[b + 1] > 0) + (hand[b + 12] > 0)) + (hand[b + 2] > 0)
        useful += hand[b + 11] > 0
    else:
        useful += 3 * ((hand[b + r - 2] > 0) + (hand[b + r % 13] > 0))
        if r > 2:
            useful += hand[b + r - 3] > 0
        if r < 13:
            useful += hand[b + (r + 1) % 13] > 0
    return v - 4 * useful


@kernel
def best_discard(hand, pub, acts, n):
    best = 0
    key = -(1 << 30)
    for i in range(n):
        k = card_cost(acts[i, 0], hand, pub) * 64 + acts[i, 0] % 13
        if k > key:
            key = k
            best = i
    return best


@decision
def greedy_draw(hand, melds, pile, pub, params, rng, acts, n):
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            return i
    return 0


@decision
def greedy_play(hand, melds, pile, pub, params, rng, acts, n):
    return best_play(acts, n)


@decision
def greedy_discard(hand, melds, pile, pub, params, rng, acts, n):
    return best_discard(hand, pub, acts, n)


# ---------------------------------------------------------------- hold


@kernel
def opponent_close(pub, patience):
    me = pub[PUB.SEAT]
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE and pub[PUB.HAND_N + q] <= patience:
            return True
    return False


@jit
def greedy_leaves(hand, melds, pub):
    """Cards left in hand after playing greedily from here (on copies)."""
    h = hand.copy()
    ms = np.empty((MAX_MELDS, M.SIZE), dtype=np.int16)
    nm = pub[PUB.NMELDS]
    copy_rows2(melds, ms, nm)  # not ms[:nm] = ...: slice assignment compiles slowly
    R = np.empty(RULE.SIZE, dtype=np.int64)
    for i in range(RULE.SIZE):
        R[i] = pub[PUB.RULES + i]
    acts = np.empty((MAX_ACTS, A.SIZE), dtype=np.int16)
    hn = 0
    for i in range(h.shape[0]):
        hn += h[i]
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    while hn > 0:
        n = gen_new_melds(h, hn, R, acts, 0)
        if melded:
            n = gen_layoffs(h, hn, ms, nm, R, acts, n)
        if n == 0:
            break
        k = best_play(acts, n)
        hn -= acts[k, A.N]
        if acts[k, A.TYPE] == PLAY.MELD:
            melded = True
        nm = apply_play(h, ms, nm, acts[k], pub[PUB.SEAT])
    return hn


@kernel
def hold_mode_greedy(hand, melds, pub, params):
    return pub[PUB.PLACED] == 1 or opponent_close(pub, params[0])


@decision
def hold_draw(hand, melds, pile, pub, params, rng, acts, n):
    if hold_mode_greedy(hand, melds, pub, params):
        return greedy_draw(hand, melds, pile, pub, params, rng, acts, n)
    return 0


@decision(alloc=True)
def hold_play(hand, melds, pile, pub, params, rng, acts, n):
    if pub[PUB.TAKEN] >= 0 or hold_mode_greedy(hand, melds, pub, params):
        return best_play(acts, n)
    if greedy_leaves(hand, melds, pub) <= 1:
        return best_play(acts, n)
    return -1


@decision
def hold_discard(hand, melds, pile, pub, params, rng, acts, n):
    return best_discard(hand, pub, acts, n)


# ---------------------------------------------------------------- rebuy rules


@decision
def rebuy_always(hand, melds, pile, pub, params, rng, acts, n):
    return 1


@decision
def rebuy_never(hand, melds, pile, pub, params, rng, acts, n):
    return 0


@decision
def rebuy_if_opponents(hand, melds, pile, pub, params, rng, acts, n):
    me = pub[PUB.SEAT]
    k = 0
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE:
            k += 1
    return 1 if k >= params[REBUY_SLOT0] else 0


POLICIES = {
    "random": Policy(
        "random", random_draw, random_play, random_discard, doc="uniform among legal options"
    ),
    "greedy": Policy(
        "greedy",
        greedy_draw,
        greedy_play,
        greedy_discard,
        doc="plays all it can, discards its costliest useless card",
    ),
    "hold": Policy(
        "hold",
        hold_draw,
        hold_play,
        hold_discard,
        params={"patience": 3.0},
        ranges={"patience": (0, 200)},  # cards in an opponent's hand
        doc="holds melds to go out in one turn unless an opponent has <= patience cards",
    ),
}

REBUY_RULES = {
    "always": AddOnRule("always", rebuy_always, {}, "always rebuy when allowed"),
    "never": AddOnRule("never", rebuy_never, {}, "never rebuy"),
    "if_opponents": AddOnRule(
        "if_opponents",
        rebuy_if_opponents,
        {"k": 2.0},
        "rebuy while at least k others are under the limit",
        ranges={"k": (0, 4)},  # other players at a table of at most five
    ),
}

"""Built-in policies (DESIGN.md "Policies") and rebuy rules, written against the plug-in API.

* ``random``  uniform among the legal options at every decision (plays include "stop").
* ``greedy``  takes the discard whenever it may, plays everything it can as soon as it can
  (largest meld first; the high end for an ambiguous joker, [A18]), discards its most costly
  useless card.
* ``hold``    keeps its melds in hand until it can go out in one turn (for the [A28] bonus),
  unless an opponent holds ``patience`` cards or fewer, or it has already put cards down this
  round; then it plays like ``greedy``.
* ``wary``    ``greedy`` that reads the round's history (``hist``) and keeps what it learnt in
  its memory (``mem``): at the discard it avoids a card the next active player showed it can
  use (the rank of a discard it took or a pierna it put down, a suit neighbour of a discard it
  took, an end of an escalera it put down), when a card it could not use costs at most
  ``margin`` more by greedy's discard key (ties broken as greedy does). Measured against three
  ``greedy`` (100,000 games, seed 1, the same games with ``greedy`` in seat 0): win share
  25.19% [24.93%, 25.46%] against 25.21%; paired difference -0.02 points, 95% CI [-0.15,
  +0.11]: no detectable gain (it plays differently in 24% of the games). On 20,000 games (seed
  0, greedy 25.2%) ``margin`` 0-3 measured the same, 10 lost (23.7%) and never giving such a
  card at any cost (1000) lost more (22.7%).

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
from .layout import DRAW, HT, JOKER, MAX_ACTS, MAX_MELDS, MELD, PLAY, PUB, ST, A, H, M
from .moves import apply_play, gen_layoffs, gen_new_melds
from .rules import RULE

REBUY_SLOT0 = addon_slot(0)  # the rebuy rule's parameters (the only add-on of a Loba seat)

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
def greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            return i
    return 0


@decision
def greedy_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_play(acts, n)


@decision
def greedy_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
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
def hold_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if hold_mode_greedy(hand, melds, pub, params):
        return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
    return 0


@decision(alloc=True)
def hold_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if pub[PUB.TAKEN] >= 0 or hold_mode_greedy(hand, melds, pub, params):
        return best_play(acts, n)
    if greedy_leaves(hand, melds, pub) <= 1:
        return best_play(acts, n)
    return -1


@decision
def hold_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n)


# ---------------------------------------------------------------- wary

# wary's memory (mem slots): the round it last read, history rows read, then what it learnt
# of the next player this round: cards they could use (a 53-bit mask, exact in a float64) and
# the escaleras they put down (meld ids 0-31, 32-63: two 32-bit masks)
W_ROUND, W_ROWS, W_CARDS, W_ESC_LO, W_ESC_HI = 0, 1, 2, 3, 4


@kernel
def next_active_seat(pub):
    """The next seat to the left that is still in the game (who may take my discard)."""
    me = pub[PUB.SEAT]
    np_ = pub[PUB.NP]
    for k in range(1, np_ + 1):
        q = (me + k) % np_
        if pub[PUB.STATUS + q] == ST.ACTIVE:
            return q
    return me


@kernel
def rank_bits(r):
    """The four cards of rank ``r``, as a card mask."""
    m = 0
    for u in range(4):
        m |= 1 << (u * 13 + r - 1)
    return m


@kernel
def wary_scan(hist, pub, mem):
    """Read the history rows not read yet into ``mem``: the next player's discard takes (the
    same rank, and the suit neighbours, become dangerous) and melds (a pierna's rank; an
    escalera's id, whose current ends are dangerous). Returns (cards mask, escalera ids)."""
    if mem[W_ROUND] != pub[PUB.ROUND]:
        for i in range(5):
            mem[i] = 0.0
        mem[W_ROUND] = pub[PUB.ROUND]
    q = next_active_seat(pub)
    cards = np.int64(mem[W_CARDS])
    esc = np.int64(mem[W_ESC_LO]) | (np.int64(mem[W_ESC_HI]) << 32)
    for i in range(int(mem[W_ROWS]), hist.shape[0]):
        if hist[i, H.SEAT] != q:
            continue
        t = hist[i, H.TYPE]
        if t == HT.DRAW and hist[i, H.KIND] == DRAW.DISCARD and hist[i, H.CARD] != JOKER:
            d = hist[i, H.CARD]
            r = rank_of(d)
            b = suit_of(d) * 13
            cards |= rank_bits(r) | (1 << (b + (r - 2) % 13)) | (1 << (b + r % 13))
        elif t == HT.MELD:
            if hist[i, H.KIND] == MELD.PIERNA:
                cards |= rank_bits(hist[i, H.KEY])
            else:
                esc |= 1 << hist[i, H.MELD]
    mem[W_ROWS] = hist.shape[0]
    mem[W_CARDS] = cards
    mem[W_ESC_LO] = esc & 0xFFFFFFFF
    mem[W_ESC_HI] = (esc >> 32) & 0xFFFFFFFF
    return cards, esc


@kernel
def extends(melds, esc, c):
    """Whether natural ``c`` extends one of the escaleras in ``esc`` (ids) at an end."""
    r = rank_of(c)
    s = suit_of(c)
    for i in range(melds.shape[0]):
        if (esc >> i) & 1 == 0 or melds[i, M.KIND] != MELD.ESCALERA or melds[i, M.KEY] != s:
            continue
        lo = melds[i, M.LO]
        hi = melds[i, M.HI]
        if r == lo - 1 or r == hi + 1 or (r == 1 and hi == 13):
            return True
    return False


@decision
def wary_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """greedy's discard, unless the next player could use it: then the best card it could not
    use, if that costs at most ``margin`` more (greedy's card cost: penalty points minus 4 per
    helping card held)."""
    cards, esc = wary_scan(hist, pub, mem)
    b = best_discard(hand, pub, acts, n)
    c = acts[b, 0]
    if c == JOKER or ((cards >> c) & 1 == 0 and not extends(melds, esc, c)):
        return b
    best = -1
    key = -(1 << 30)
    for i in range(n):
        c = acts[i, 0]
        if c == JOKER or (cards >> c) & 1 == 1 or extends(melds, esc, c):
            continue
        k = card_cost(c, hand, pub) * 64 + c % 13
        if k > key:
            key = k
            best = i
    if (
        best < 0
        or card_cost(acts[b, 0], hand, pub) - card_cost(acts[best, 0], hand, pub) > params[0]
    ):
        return b
    return best


# ---------------------------------------------------------------- rebuy rules


@decision
def rebuy_always(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 1


@decision
def rebuy_never(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 0


@decision
def rebuy_if_opponents(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
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
    "wary": Policy(
        "wary",
        greedy_draw,
        greedy_play,
        wary_discard,
        params={"margin": 2.0},
        ranges={"margin": (0, 1000)},  # card-cost points (greedy's discard key)
        doc="greedy, but avoids feeding the next player a card its takes or melds show it uses",
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

"""smart's play-outs: the same plays as :func:`sim.loba.greedy.play_out` (largest new meld
first, then the first lay-off), without searching for a new meld where none can be.

A play only takes cards out of the hand, and a hand with no new meld has none in any part of
it ([A15]-[A18]: a meld of the smaller hand is one of the larger; under
``go_out_needs_discard`` its size limit only falls as well). So once the search finds no meld
a play-out looks at lay-offs only, and ``fewest_left`` (:mod:`sim.loba.policies.smart`) asks
once per decision whether its hand holds a new meld at all (:func:`option_out_from`): when it
holds none, no play-out searches for one.

And a play-out need not be played where it cannot matter: on a complete option list (every
play of the hand) :func:`leave_bounds` bounds from below, for every option at once, the cards
its play-out leaves, and :func:`way_out` (``greedy.going_out``'s answer: is there an option
after which largest-first goes out, and which) plays out only the options whose bound is
below two cards: greedy's going-out search, smart's while it holds for the bonus, and the
``hold``/``smart`` draw's. ``tests/loba/test_playout.py`` checks the play-outs against
greedy's, the bounds against the play-outs, and ``way_out`` against ``going_out``.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from ..stack import stack_array
from .layout import HAND_W, JOKER, MAX_MELDS, MELD, N_IDS, PLAY, PUB, A, M
from .moves import (
    _GATHER,
    _HIGH_BITS,
    _ONES_7E,
    _ONES_7F,
    apply_play,
    best_layoff,
    copy_rows2,
    largest_new_meld,
    pierna_count,
    popcount,
    popcount64,
    rules_into,
    table_keys,
)
from .rules import RULE

_N_RULES = RULE.SIZE
_A_SIZE = A.SIZE
_M_SIZE = M.SIZE


@kernel(inline="always")
def play_key(act):
    """The play-outs' order of an option: a new meld by its size, then its top position
    (greedy's :func:`best_play`); every lay-off 0."""
    return act[A.N] * 100 + act[A.HI] if act[A.TYPE] == PLAY.MELD else 0


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


# ---------------------------------------------------------------- bounds on what a play-out leaves
# A play-out only puts down new melds of the hand left (each a meld of the decision's hand, so
# on a complete option list) and lay-offs (onto a pierna of the card's rank or an escalera of
# its suit: the table's, the option's, or one of those new melds). So after option i, a card
# of the hand left that no option compatible with i holds (enough copies left for both, and
# jokers) and whose rank and suit no such meld has stays in hand: their count is a lower bound
# on the cards the play-out leaves (``tests/loba/test_playout.py`` checks it against the
# play-outs themselves).

_BOUND_MAX = 64  # options given bounds (a longer list is played out in full)
_NATURALS = (1 << JOKER) - 1
_RANK_CARDS = 0x8004002001  # bit r - 1 of a rank mask, once per suit: the rank's naturals


@kernel(inline="always")
def option_needs(act):
    """(identities the option puts down, those it puts down twice, its jokers, its pierna's
    rank as a bit, its escalera's suit as a bit, whether it is a new meld)."""
    if act[A.TYPE] == PLAY.LAYOFF:
        c = int(act[A.KEY])
        if c == JOKER:
            return 0, 0, 1, 0, 0, False
        return 1 << c, 0, 0, 0, 0, False
    if act[A.KIND] == MELD.PIERNA:
        r = int(act[A.KEY])
        a1 = 0
        a2 = 0
        for s in range(4):
            k = pierna_count(act[A.LO], s)
            b = 1 << (s * 13 + r - 1)
            a1 |= b if k >= 1 else 0
            a2 |= b if k >= 2 else 0
        return a1, a2, 0, 1 << r, 0, True
    s = int(act[A.KEY])
    win = (2 << int(act[A.HI])) - (1 << int(act[A.LO]))
    jm = int(act[A.JMASK]) & win
    nat = win ^ jm
    a1 = ((nat >> 1) & 0x1FFF) << (13 * s)
    ace = ((nat >> 14) & 1) << (13 * s)  # the ace above the king: a second copy if low too
    return a1 | ace, a1 & ace, popcount(jm), 0, 1 << s, True


@kernel(inline="always")
def hand_twice(hand):
    """(identities held, identities held twice or more) of a decision's hand (N_IDS counts),
    the first 48 counts eight at a time."""
    h1 = 0
    h2 = 0
    w = hand[:48].view(np.uint64)
    for k in range(6):
        a = ((w[k] + _ONES_7F) & _HIGH_BITS) >> np.uint64(7)
        b = ((w[k] + _ONES_7E) & _HIGH_BITS) >> np.uint64(7)
        h1 |= int((a * _GATHER) >> np.uint64(56)) << (8 * k)
        h2 |= int((b * _GATHER) >> np.uint64(56)) << (8 * k)
    for i in range(48, N_IDS):
        h1 |= int(hand[i] > 0) << i
        h2 |= int(hand[i] > 1) << i
    return h1, h2


@kernel(inline="always")
def leave_bounds(hand, melds, nm, acts, n, decks, out):
    """``out[i]``: a lower bound on the cards option ``i`` of the complete list ``acts[:n]``
    followed by largest-first play leaves (above). False (no bounds) when the list is longer
    than ``out`` or a hand may hold three copies of a card (``decks`` > 2)."""
    if n > out.shape[0] or decks > 2:
        return False
    info = stack_array(_BOUND_MAX, 3, np.int64)
    h1, h2 = hand_twice(hand)
    hj = int(hand[JOKER])
    ranks, suits = table_keys(melds, nm)
    for i in range(n):
        a1, a2, nj, pr, su, meld = option_needs(acts[i])
        info[i, 0] = a1
        info[i, 1] = a2
        info[i, 2] = nj | (pr << 8) | (su << 24) | (int(meld) << 40)
    for i in range(n):
        a1 = info[i, 0]
        a2 = info[i, 1]
        nj = info[i, 2] & 0xFF
        rk = ranks | ((info[i, 2] >> 8) & 0xFFFF)
        st = suits | ((info[i, 2] >> 24) & 0xF)
        placed = 0
        for j in range(n):
            x = info[j, 2]
            if j == i or not (x >> 40) & 1:
                continue
            b1 = info[j, 0]
            if (a1 & b1 & ~h2) | (a2 & b1) | (a1 & info[j, 1]) or nj + (x & 0xFF) > hj:
                continue  # not both: too few copies, or jokers
            placed |= b1
            rk |= (x >> 8) & 0xFFFF
            st |= (x >> 24) & 0xF
        lay = ((rk >> 1) & 0x1FFF) * _RANK_CARDS
        for t in range(4):
            lay |= ((st >> t) & 1) * (0x1FFF << (13 * t))
        placed |= lay
        left1 = ((h1 & ~a1) | (h2 & ~a2)) & _NATURALS & ~placed  # held once or more after i
        left2 = h2 & ~a1 & _NATURALS & ~placed  # twice after i
        b = popcount64(left1) + popcount64(left2)
        if st == 0:
            b += hj - nj  # no escalera to take a joker
        out[i] = b
    return True


@kernel(readonly=("hand", "melds", "pub", "acts"))
def way_out(hand, melds, pub, acts, n, must, first):
    """``greedy.going_out(hand, melds, pub, acts, n, must)[0]`` of a complete option list
    (every new meld of the hand, [A15]-[A18], and the lay-offs), or with ``first`` the first
    option that goes out (a way out exists when going_out finds one). An option whose bound
    (:func:`leave_bounds`) is two cards or more is not played out: it cannot go out, and no
    option that leaves two beats one that goes out. (Scratch on its own stack.)"""
    R = rules_into(pub, stack_array(_N_RULES, 0, np.int64))
    h = stack_array(HAND_W, 0, np.int8)
    for c in range(N_IDS, HAND_W):  # (the padding read eight counts at a time: zeros)
        h[c] = 0
    row = stack_array(1, _A_SIZE, np.int16)[0]
    ms = stack_array(MAX_MELDS, _M_SIZE, np.int16)
    bound = stack_array(_BOUND_MAX, 0, np.int64)
    nm = pub[PUB.NMELDS]
    bounded = leave_bounds(hand, melds, nm, acts, n, R[RULE.DECKS], bound)
    seat = pub[PUB.SEAT]
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    hn = 0
    meldable = False
    for c in range(N_IDS):
        hn += int(hand[c])
    for i in range(n):
        meldable |= acts[i, A.TYPE] == PLAY.MELD
    best = -1
    best_left = 2  # (only an option that goes out is kept: fewest_after's answer among them)
    best_key = -1
    for i in range(n):
        if bounded and bound[i] >= 2:
            continue
        key = play_key(acts[i])
        if best_left == 0 and key <= best_key:
            continue  # (no option leaves fewer than none)
        left = option_out_from(hand, hn, melds, nm, R, melded, seat, acts[i], h, ms, row, meldable)
        if left > 1 or (must >= 0 and h[must] >= hand[must]):
            continue
        if left < best_left or (left == best_left and key > best_key):
            if first:
                return i
            best = i
            best_left = left
            best_key = key
    return best

"""smart's play-outs with the meld search kept by group: the same plays as
:func:`sim.loba.greedy.play_out` (largest new meld first, then the first lay-off), searching
again only where a play changed the hand.

:func:`~sim.loba.moves.largest_new_meld` picks the first meld of greatest key (size, then top
position) in its loops' order: the piernas rank by rank, then the escaleras suit by suit. That
is the first greatest of the seventeen groups' own bests in that order (:data:`NG`: a pierna
group per rank, then an escalera group per suit), and a group's best depends only on the
hand's cards of its rank (a pierna group) or its suit and the jokers held (an escalera group;
the size limit never binds while the limit is the hand's size: a meld's cards are in hand).
So a play-out keeps each group's best (:func:`groups_of`) and after a play searches again only
the groups whose cards it put down (:func:`touched`); a group with no meld has none in any
smaller hand, so it is never searched again. Under ``go_out_needs_discard`` the limit is one
card less than the hand and moves with every play: every group with a meld is searched again.

``fewest_left`` (:mod:`sim.loba.policies.smart`) finds the groups of its hand once per decision
and plays each option out from them (:func:`option_out_groups`).
``tests/loba/test_playout_groups.py`` checks both against the plain forms.
"""

from __future__ import annotations

from ..jit import kernel
from .cards import rank_of, suit_of
from .layout import JOKER, MELD, N_IDS, PLAY, A
from .moves import (
    apply_play,
    best_layoff,
    bit_index,
    copy_rows2,
    has_window,
    pierna_count,
    popcount,
    suit_positions,
    window_bits,
)
from .rules import PIERNA, RULE

NG = 17  # groups: piernas of ranks 1..13 (group r - 1), escaleras of suits 0..3 (13 + s)
ALL_GROUPS = (1 << NG) - 1
_ESC_GROUPS = 0xF << 13


@kernel(inline="always")
def _pack(lo, hi, jm, size):
    return lo | (hi << 8) | (jm << 16) | (size << 32)


@kernel(inline="always")
def pierna_group(hand, r, decks, limit, exactly_three):
    """(key, payload) of the largest pierna of rank ``r`` (key -1: none), as
    :func:`~sim.loba.moves.largest_new_meld` would find it among the piernas of that rank."""
    h0 = int(min(hand[r - 1], decks))
    h1 = int(min(hand[13 + r - 1], decks))
    h2 = int(min(hand[26 + r - 1], decks))
    h3 = int(min(hand[39 + r - 1], decks))
    best = -1
    pay = 0
    if h0 + h1 + h2 + h3 < 3:
        return best, pay
    for c0 in range(h0 + 1):
        for c1 in range(h1 + 1):
            for c2 in range(h2 + 1):
                for c3 in range(h3 + 1):
                    k = c0 + c1 + c2 + c3
                    if k < 3 or k > limit or k * 100 <= best:
                        continue
                    ns = (c0 > 0) + (c1 > 0) + (c2 > 0) + (c3 > 0)
                    if ns == 4 or (exactly_three and ns != 3):
                        continue
                    best = k * 100
                    pay = _pack(c0 | (c1 << 2) | (c2 << 4) | (c3 << 6), 0, 0, k)
    return best, pay


@kernel(inline="always")
def escalera_group(m, J, mn, limit):
    """(key, payload) of the largest escalera of a suit with held positions ``m`` and ``J``
    jokers at most (key -1: none), as :func:`~sim.loba.moves.largest_new_meld` finds it."""
    best = -1
    pay = 0
    c = popcount(m & 0x3FFE)
    if c < 2 or c + J < mn or not has_window(m, J, mn):
        return best, pay
    for lo in range(1, 15):
        if not ((m >> lo) & 1) and J == 0:
            continue
        top = min(14, lo + 12, lo + limit - 1)
        for hi in range(lo + mn - 1, top + 1):
            wb = window_bits(lo, hi)
            held = m & wb
            nat = popcount(held)
            length = hi - lo + 1
            gaps = length - nat
            if gaps > J:
                break
            if nat < 2:
                continue
            if length * 100 + hi > best:
                best = length * 100 + hi
                pay = _pack(lo, hi, wb & ~m, length)
    return best, pay


@kernel(readonly=("hand",))
def regroup(hand, hand_n, R, gk, gp, dirty):
    """Search again the groups in ``dirty`` (bit g) that still had a meld (``gk[g] >= 0``):
    their keys into ``gk``, their melds into ``gp``."""
    limit = hand_n - 1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else hand_n
    exactly_three = R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    decks = R[RULE.DECKS]
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])
    mn = R[RULE.ESCALERA_MIN]
    x = dirty
    while x:
        low = x & -x
        x ^= low
        g = bit_index(low)
        if gk[g] < 0:
            continue
        if limit < 3:
            gk[g] = -1
        elif g < 13:
            gk[g], gp[g] = pierna_group(hand, g + 1, decks, limit, exactly_three)
        else:
            gk[g], gp[g] = escalera_group(suit_positions(hand, g - 13), J, mn, limit)


@kernel(readonly=("hand",))
def groups_of(hand, hand_n, R, gk, gp):
    """Every group's largest meld (:func:`pierna_group`, :func:`escalera_group`) into ``gk``
    (keys, -1: none) and ``gp`` (the meld)."""
    for g in range(NG):
        gk[g] = 0
    regroup(hand, hand_n, R, gk, gp, ALL_GROUPS)


@kernel(inline="always")
def best_group(gk, gp, row):
    """:func:`~sim.loba.moves.largest_new_meld` from the groups: the first greatest key, its
    meld written into ``row``. Returns whether there is one."""
    g = -1
    key = -1
    for i in range(NG):
        if gk[i] > key:
            key = gk[i]
            g = i
    if g < 0:
        return False
    p = gp[g]
    row[A.TYPE] = PLAY.MELD
    if g < 13:
        row[A.KIND] = MELD.PIERNA
        row[A.KEY] = g + 1
    else:
        row[A.KIND] = MELD.ESCALERA
        row[A.KEY] = g - 13
    row[A.LO] = p & 0xFF
    row[A.HI] = (p >> 8) & 0xFF
    row[A.JMASK] = (p >> 16) & 0xFFFF
    row[A.N] = (p >> 32) & 0xFF
    return True


@kernel(inline="always")
def touched(act, R):
    """The groups (bit g) whose cards the play ``act`` puts down: a pierna's rank and the
    suits it uses, an escalera's suit and the ranks of its naturals, every escalera when a
    joker goes down; every group under ``go_out_needs_discard`` (the size limit moves)."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1:
        return ALL_GROUPS
    if act[A.TYPE] == PLAY.LAYOFF:
        cid = int(act[A.KEY])
        if cid == JOKER:
            return _ESC_GROUPS
        return (1 << (rank_of(cid) - 1)) | (1 << (13 + suit_of(cid)))
    if act[A.KIND] == MELD.PIERNA:
        d = 1 << (int(act[A.KEY]) - 1)
        for s in range(4):
            if pierna_count(act[A.LO], s) > 0:
                d |= 1 << (13 + s)
        return d
    win = window_bits(int(act[A.LO]), int(act[A.HI]))
    jm = int(act[A.JMASK]) & win
    nat = win ^ jm
    d = (1 << (13 + int(act[A.KEY]))) | ((nat >> 1) & 0x1FFF) | ((nat >> 14) & 1)
    if jm:
        d |= _ESC_GROUPS
    return d


@kernel
def play_out_groups(h, hn, ms, nm, R, melded, seat, row, gk, gp):
    """:func:`~sim.loba.greedy.play_out` of hand ``h`` (``hn`` cards) whose groups are
    ``gk``/``gp`` (changed in place, as ``h`` and ``ms`` are); returns the cards left."""
    while hn > 0:
        if not best_group(gk, gp, row):
            if not melded or not best_layoff(h, hn, ms, nm, R, row):
                break
        hn -= row[A.N]
        if row[A.TYPE] == PLAY.MELD:
            melded = True
        d = touched(row, R)
        nm = apply_play(h, ms, nm, row, seat)
        regroup(h, hn, R, gk, gp, d)
    return hn


@kernel(inline="always")
def option_out_groups(hand, hn, melds, nm, R, melded, seat, act, h, ms, row, gk0, gp0, gk, gp):
    """:func:`~sim.loba.greedy.option_out` (play ``act`` from ``hand``, ``hn`` cards, and
    ``melds[:nm]`` on the scratch ``h`` and ``ms``, then largest-first) from the hand's groups
    ``gk0``/``gp0`` (:func:`groups_of`, kept; ``gk``/``gp`` scratch). Returns the cards
    left (``h``: the hand left)."""
    for c in range(N_IDS):
        h[c] = hand[c]
    for g in range(NG):
        gk[g] = gk0[g]
        gp[g] = gp0[g]
    copy_rows2(melds, ms, nm)
    nm2 = apply_play(h, ms, nm, act, seat)
    hn2 = hn - act[A.N]
    regroup(h, hn2, R, gk, gp, touched(act, R))
    melded = melded or act[A.TYPE] == PLAY.MELD
    return play_out_groups(h, hn2, ms, nm2, R, melded, seat, row, gk, gp)

"""The options a Loba seat has on its turn: every play it may make ([A9], [A15]-[A22]: new
melds, then lay-offs, :func:`gen_plays`), whether it may take the top discard ([A11]/[A12]:
:func:`take_ok`, a cheap necessary test first), and the plays that keep a taken discard
placeable (:func:`keep_placeable`). Lay-offs are looked for only where the table's masks
(:func:`meld_wants`, kept in ``G.LAY_*`` by :func:`lay_wants`) say a card of the hand fits.
"""

from __future__ import annotations

from ..jit import kernel
from .cards import rank_of, suit_of
from .greedy import best_play_key
from .layout import HAND_W, JOKER, MELD, PLAY, A, G, M, S, TakeScratch
from .moves import (
    apply_play,
    copy_rows,
    copy_rows2,
    gen_layoffs_wanted,
    gen_new_melds_with,
    has_window,
    held_bits,
    pierna_accepts,
    popcount,
    pos_card,
    suit_bits,
)
from .rules import PIERNA, RULE, TAKE
from .takes import can_place, places

NO_MELD = -2  # gen_plays: lay-offs only (the hand holds no new meld)


@kernel(inline="always")
def may_layoff(st, R, seat):
    """[A20] lay-offs need a meld of one's own this round (unless the knob is off)."""
    return R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or st.s[seat, S.MELDED] == 1


@kernel(readonly=("meld",))
def meld_wants(meld, R):
    """(lay, near, ends) of one table meld. ``lay``: bit c set when a card of identity c may be
    laid off on it now, exactly the cards :func:`sim.loba.moves.gen_layoffs` looks for on it
    ([A21], [A22]). ``near`` and ``ends``: what :func:`take_may_work` asks of it: the naturals
    it takes (bit 58 + s as well when it is an escalera of suit s with room for a joker), and
    the naturals of an escalera that start a chain of lay-offs on it (the same naturals: just
    past an end, or an end joker's card)."""
    w = 0
    if meld[M.KIND] == MELD.PIERNA:
        r = int(meld[M.KEY])
        for s in range(4):
            if pierna_accepts(meld, s, R):
                w |= 1 << (s * 13 + r - 1)
        return w, w, 0
    s = int(meld[M.KEY])
    lo = int(meld[M.LO])
    hi = int(meld[M.HI])
    jm = int(meld[M.JMASK])
    if hi - lo + 1 >= 13:
        return 0, 0, 0
    w = 0
    if lo > 1:
        w |= 1 << pos_card(lo - 1, s)
    if hi < 14:
        w |= 1 << pos_card(hi + 1, s)
    if R[RULE.JOKER_END_MOVE] == 1:  # [A22] the natural an end joker stands for
        if (jm >> lo) & 1 and hi < 14:
            w |= 1 << pos_card(lo, s)
        if (jm >> hi) & 1 and lo > 1:
            w |= 1 << pos_card(hi, s)
    # a natural goes onto an escalera only at an end or as an end joker's card (never inside
    # it: [A19], [A21]); the same naturals of the hand start a chain of lay-offs on it
    near = w
    if popcount(jm) < R[RULE.JOKERS_PER_ESCALERA]:
        w |= 1 << JOKER
        near |= 1 << (58 + s)
    return w, near, w & ~(1 << JOKER)


@kernel(readonly=("melds",))
def lay_wants(g, melds, R, changed):
    """Keep ``G.LAY_WANT``, ``G.TK_NEAR`` and ``G.TK_ENDS`` (:func:`meld_wants` of the whole
    table) right after the table changed: meld ``changed`` only (a play touches one meld), or
    every meld when they are not known (``G.LAY_OK`` is 0) or ``changed`` is -1. (The game's
    ``g`` and melds, not the whole state: a call passes every array it is given.)"""
    nm = g[G.NMELDS]
    if g[G.LAY_OK] == 0 or changed < 0:
        for i in range(nm):
            g[G.LAY_W + i], g[G.TK_D + i], g[G.TK_E + i] = meld_wants(melds[i], R)
        g[G.LAY_OK] = 1
    elif changed < nm:
        g[G.LAY_W + changed], g[G.TK_D + changed], g[G.TK_E + changed] = meld_wants(
            melds[changed], R
        )
    w = 0
    near = 0
    ends = 0
    for i in range(nm):
        w |= g[G.LAY_W + i]
        near |= g[G.TK_D + i]
        ends |= g[G.TK_E + i]
    g[G.LAY_WANT] = w
    g[G.TK_NEAR] = near
    g[G.TK_ENDS] = ends


@kernel(inline="always")
def gen_plays(st, R, seat, acts):
    """Every play the seat may make now (new melds, then lay-offs); returns how many."""
    return gen_plays_with(st, R, seat, acts, -1, held_bits(st.hands[seat])[0])[0]


@kernel(inline="always")
def gen_plays_with(st, R, seat, acts, only, held):
    """Every play the seat may make now (new melds, then lay-offs); returns (how many, how
    many are new melds). ``only``: -1 looks everywhere; a card identity looks only at melds
    that hold it (:func:`sim.loba.moves.gen_new_melds_with`); ``NO_MELD`` looks at lay-offs
    only. :func:`~sim.loba.engine.play_turn` passes the card drawn when the hand was meld-free
    before it. ``held``: the identities the hand holds (:func:`sim.loba.moves.held_bits`)."""
    hand = st.hands[seat]
    hn = st.s[seat, S.HAND_N]
    n = 0
    if only >= 0 and only != JOKER and no_meld_with(hand, R, only, held):
        pass  # (most searches after a meld-free turn: no call)
    elif only != NO_MELD:
        n = gen_new_melds_with(hand, hn, R, acts, 0, only)
    new = n
    if may_layoff(st, R, seat):
        if st.g[G.LAY_OK] == 0:
            lay_wants(st.g, st.melds, R, -1)
        # no card of the hand fits a table meld (most searches): no lay-off to look for; else
        # only the melds that take a card of the hand
        if held & st.g[G.LAY_WANT]:
            nm = st.g[G.NMELDS]
            wants = st.g[G.LAY_W : G.LAY_W + nm]
            n = gen_layoffs_wanted(hand, hn, st.melds, nm, R, acts, n, wants, held)
    return n, new


@kernel(inline="always")
def no_meld_with(hand, R, c, held):
    """True when the hand has no new meld holding the natural ``c``: no pierna of its rank has
    three cards, and no escalera window of its suit has two naturals and few enough gaps (the
    tests :func:`sim.loba.moves.gen_new_melds_with` makes first; False: search)."""
    r = rank_of(c)
    d = R[RULE.DECKS]
    k = min(hand[r - 1], d) + min(hand[12 + r], d) + min(hand[25 + r], d) + min(hand[38 + r], d)
    if k >= 3:
        return False
    m = suit_bits(held, suit_of(c))
    cnt = popcount(m & 0x3FFE)
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])
    mn = R[RULE.ESCALERA_MIN]
    return cnt < 2 or cnt + J < mn or not has_window(m, J, mn)


@kernel(inline="always")
def take_may_work(st, R, seat, c, held):
    """Cheap necessary condition for :func:`take_ok` (most turns fail it): ``c`` is a joker,
    or :func:`meld_may_work`, or (unless [A11] ``new_meld_only``) :func:`layoff_may_work`.
    ``held``: the identities the hand holds (:func:`sim.loba.moves.held_bits`)."""
    if c == JOKER or meld_may_work(st.hands[seat], R, c, held):
        return True
    return R[RULE.DISCARD_TAKE] != TAKE.NEW_MELD_ONLY and layoff_may_work(st, R, seat, c, held)


@kernel(inline="always")
def meld_may_work(hand, R, c, held):
    """Necessary for a new meld holding the natural ``c`` from ``hand`` + ``c``: two other
    suits of its rank (or, under ``not_all_four``, two cards of its rank), or an escalera
    window of its suit with ``c``."""
    r = rank_of(c)
    s = suit_of(c)
    others = 0
    total = 0
    for t in range(4):
        k = hand[t * 13 + r - 1]
        total += k
        if t != s and k > 0:
            others += 1
    if others >= 2 or (R[RULE.PIERNA_SUITS] == PIERNA.NOT_ALL_FOUR and total >= 2):
        return True
    m = suit_bits(held, s) | (1 << r)
    if r == 1:
        m |= 1 << 14
    return has_window(m, min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA]), R[RULE.ESCALERA_MIN])


@kernel(inline="always")
def layoff_may_work(st, R, seat, c, held):
    """Necessary for laying the natural ``c`` off this turn: a pierna of its rank that takes
    its suit now (lay-offs never make a pierna take a suit it refused), or an escalera of its
    suit (shorter than 13) that takes c now, or with room for a joker the hand holds, or that
    takes a natural of the hand (a chain of lay-offs on it starts with one); from the table's
    masks (meld_wants), not a pass over the melds. And a seat that must meld first ([A20])
    with a hand marked meld-free (``S.MELD_FREE``, still that of its last turn here:
    play_turn) has no meld to make: a new meld would hold ``c``, which then is not laid off."""
    hand = st.hands[seat]
    if st.s[seat, S.MELD_FREE] == 1 and not may_layoff(st, R, seat):
        return False
    if st.g[G.LAY_OK] == 0:
        lay_wants(st.g, st.melds, R, -1)
    near = st.g[G.TK_NEAR]
    s = suit_of(c)
    if (near >> c) & 1 or (hand[JOKER] > 0 and (near >> (58 + s)) & 1):
        return True
    return (held & st.g[G.TK_ENDS] & (0x1FFF << (13 * int(s)))) != 0


@kernel
def take_ok(st, R, seat, c, bufs):
    """[A11]/[A12] may ``seat`` take the top discard ``c``: can some legal sequence of this
    turn's plays put it on the table (:func:`sim.loba.takes.can_place`, on a trial hand)?"""
    held = held_bits(st.hands[seat])[0]
    return take_may_work(st, R, seat, c, held) and take_search(st, R, seat, c, bufs)


@kernel(inline="always")
def take_search(st, R, seat, c, bufs):
    """:func:`take_ok` once :func:`take_may_work` holds. The turn asks the inlined necessary
    condition first and calls this only when it holds (a third of the turns): a call passes
    the whole state and scratch."""
    hand = st.hands[seat]
    hand[c] += 1  # as if taken, for the search only
    hn = st.s[seat, S.HAND_N] + 1
    lay = may_layoff(st, R, seat)
    ok = can_place(
        hand, hn, st.melds, st.g[G.NMELDS], lay, R, c, bufs.plan, bufs.rest, bufs.seen, bufs.queue
    )
    hand[c] -= 1
    return ok


@kernel(inline="always")
def take_scratch(bufs):
    """The arrays of the scratch ``bufs`` that the take rule's trials use
    (:class:`~sim.loba.layout.TakeScratch`)."""
    return TakeScratch(bufs.hand, bufs.melds, bufs.plan, bufs.rest, bufs.seen, bufs.queue)


@kernel(inline="always")
def owed_view(st, R, seat, bufs):
    """What the owed play's out-of-line work reads ([A12]): the seat's hand, the table and its
    meld count, the seat's card count, whether it may lay off now, and the take rule's
    scratch (:func:`take_scratch`), not the whole state and scratch."""
    lay = may_layoff(st, R, seat)
    return st.hands[seat], st.melds, st.g[G.NMELDS], st.s[seat, S.HAND_N], lay, take_scratch(bufs)


@kernel(inline="always")
def keeps_placeable(hand, melds, nm, seat, R, c, act, hn, lay, ts):
    """Does the play ``act`` put the taken discard ``c`` down, or leave a sequence that does
    ([A12])? (``hn``: the seat's cards; ``lay``: it may lay off now; ``ts``: a
    :class:`~sim.loba.layout.TakeScratch`.)"""
    if places(act, hand, c, R):
        return True
    sh, sm = ts.hand, ts.melds
    copy_rows(hand, sh, HAND_W)
    copy_rows2(melds, sm, nm)
    nm2 = apply_play(sh, sm, nm, act, seat)
    lay2 = lay or act[A.TYPE] == PLAY.MELD
    hn2 = hn - act[A.N]
    return can_place(sh, hn2, sm, nm2, lay2, R, c, ts.plan, ts.rest, ts.seen, ts.queue)


@kernel(inline="always")
def keep_placeable(st, R, seat, c, acts, n, bufs):
    """While the taken discard ``c`` is still in hand, keep only the plays that put it down or
    leave a sequence that does ([A12]); returns how many remain (compacted to the front).
    (The work is out of line, :func:`keep_placeable_on`, handed only the arrays it reads.)"""
    return keep_placeable_on(seat, R, c, acts, n, *owed_view(st, R, seat, bufs))


@kernel
def keep_placeable_on(seat, R, c, acts, n, hand, melds, nm, hn, lay, ts):
    """:func:`keep_placeable` on the seat's hand and the table (``nm`` melds)."""
    m = 0
    for i in range(n):
        if keeps_placeable(hand, melds, nm, seat, R, c, acts[i], hn, lay, ts):
            if m != i:
                copy_rows(acts[i], acts[m], A.SIZE)
            m += 1
    return m


@kernel(inline="always")
def best_placeable(st, R, seat, c, acts, n, bufs):
    """``(k, more)``: greedy's largest play (``greedy.best_play``'s order: the largest new
    meld, ties to the first listed, then the first natural lay-off, then the first joker one)
    among those :func:`keep_placeable` keeps, found by testing the plays in that order and
    stopping at the first kept (-1: none); ``more``: whether another play is kept too (then
    the choice was a decision). The plays themselves are not moved; at most 64 of them.
    (The work is out of line, :func:`best_placeable_on`, handed only the arrays it reads.)"""
    return best_placeable_on(seat, R, c, acts, n, *owed_view(st, R, seat, bufs))


@kernel
def best_placeable_on(seat, R, c, acts, n, hand, melds, nm, hn, lay, ts):
    """:func:`best_placeable` on the seat's hand and the table (``nm`` melds)."""
    best = -1
    tried = 0  # the plays tested (``n`` <= 64)
    while True:
        k = -1
        key = -1
        for i in range(n):
            if (tried >> i) & 1:
                continue
            x = best_play_key(acts[i])
            if x > key:
                key = x
                k = i
        if k < 0:
            return -1, False
        tried |= 1 << k
        if keeps_placeable(hand, melds, nm, seat, R, c, acts[k], hn, lay, ts):
            best = k
            break
    # another kept play: one that puts the card down is found without a search, so those
    # are looked for first (whether one exists, not which: the order does not matter)
    for i in range(n):
        if not (tried >> i) & 1 and places(acts[i], hand, c, R):
            return best, True
    for i in range(n):
        if (tried >> i) & 1:
            continue
        if keeps_placeable(hand, melds, nm, seat, R, c, acts[i], hn, lay, ts):
            return best, True
    return best, False

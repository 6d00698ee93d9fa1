"""``wary`` and ``careful``: greedy whose discard reads what the seat has seen.

* ``wary``    ``greedy`` that reads the round's history (``hist``) and keeps what it learnt in
  its memory (``mem``): at the discard it avoids a card the next active player showed it can
  use (the rank of a discard it took or a pierna it put down, a suit neighbour of a discard it
  took, an end of an escalera it put down), when a card it could not use costs at most
  ``margin`` more by greedy's discard key (ties broken as greedy does).
* ``careful`` ``greedy`` whose discard counts what it has seen: a card helps a meld only while
  a card that would complete it is unseen (hand, pile, table); a card that extends a meld on
  the table is kept (``keep`` points: it is a lay-off once the seat has melded) and more so
  when the next active player may take it to lay it off (``danger``); a card of a rank the
  next player discarded this round (read from ``hist`` into ``mem``) costs ``safe`` less.
"""

from __future__ import annotations

import numpy as np

from ...jit import kernel
from ...policies.api import decision
from ..cards import rank_of, suit_of
from ..greedy import _LANE_ONES, best_discard, card_cost, lanes_of
from ..layout import DRAW, HT, JOKER, MELD, PUB, ST, H, M
from ..moves import _GATHER, _HIGH_BITS, _ONES_7E, _ONES_7F, pos_card
from ..rules import PIERNA, RULE, TAKE

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


# ---------------------------------------------------------------- careful

C_ROUND, C_ROWS, C_NEXT, C_RANKS = 0, 1, 2, 3  # careful's memory: see careful_scan


@kernel(inline="always")
def _seen_add(v1, v2, v3, b):
    """Saturating bit-sliced counters: bit x of vk is set when k copies of x were added."""
    return v1 | b, v2 | (v1 & b), v3 | (v2 & b)


@kernel
def known_copies(hand, melds, pile):
    """Masks (>= 1, >= 2, >= 3 copies) of the naturals the seat can see: its hand, the
    discard pile and the table."""
    v1 = 0
    v2 = 0
    v3 = 0
    for c in range(JOKER):
        for _ in range(min(int(hand[c]), 3)):
            v1, v2, v3 = _seen_add(v1, v2, v3, 1 << int(c))
    for i in range(pile.shape[0]):
        c = pile[i]
        if c >= 0 and c != JOKER:
            v1, v2, v3 = _seen_add(v1, v2, v3, 1 << int(c))
    for i in range(melds.shape[0]):
        if melds[i, M.KIND] == MELD.PIERNA:
            r = melds[i, M.KEY]
            for s in range(4):
                for _ in range(min(int(melds[i, M.C0 + s]), 3)):
                    v1, v2, v3 = _seen_add(v1, v2, v3, 1 << int(s * 13 + r - 1))
        else:
            s = melds[i, M.KEY]
            for p in range(melds[i, M.LO], melds[i, M.HI] + 1):
                if not (melds[i, M.JMASK] >> p) & 1:
                    v1, v2, v3 = _seen_add(v1, v2, v3, 1 << int(pos_card(p, s)))
    return v1, v2, v3


@kernel(inline="always")
def all_seen(x, decks, v1, v2, v3):
    """Every copy of natural ``x`` is in sight (none left to draw)."""
    if decks <= 1:
        return (v1 >> x) & 1 == 1
    if decks == 2:
        return (v2 >> x) & 1 == 1
    return (v3 >> x) & 1 == 1


@kernel
def careful_scan(hist, pub, mem):
    """Read the history rows not read yet into ``mem``: the ranks the next active player
    discarded this round (bit r of ``mem[C_RANKS]``). Returns that mask."""
    q = next_active_seat(pub)
    if mem[C_ROUND] != pub[PUB.ROUND] or mem[C_NEXT] != q or mem[C_ROWS] > hist.shape[0]:
        mem[C_ROUND] = pub[PUB.ROUND]
        mem[C_NEXT] = q
        mem[C_ROWS] = 0.0
        mem[C_RANKS] = 0.0
    ranks = int(mem[C_RANKS])
    for i in range(int(mem[C_ROWS]), hist.shape[0]):
        if hist[i, H.SEAT] == q and hist[i, H.TYPE] == HT.DISCARD and hist[i, H.CARD] != JOKER:
            ranks |= 1 << int(rank_of(hist[i, H.CARD]))
    mem[C_ROWS] = hist.shape[0]
    mem[C_RANKS] = ranks
    return ranks


@kernel
def extends_table(melds, pub, c):
    """Does natural ``c`` extend a meld on the table (a lay-off for whoever may lay off:
    an escalera end of its suit, a pierna of its rank that takes its suit, [A21])?"""
    r = rank_of(c)
    s = suit_of(c)
    decks = pub[PUB.RULES + RULE.DECKS]
    three = pub[PUB.RULES + RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    for i in range(melds.shape[0]):
        if melds[i, M.KIND] == MELD.PIERNA:
            if melds[i, M.KEY] != r or melds[i, M.C0 + s] >= decks:
                continue
            if melds[i, M.C0 + s] > 0:
                return True
            ns = 0
            for t in range(4):
                ns += melds[i, M.C0 + t] > 0
            if not three and ns < 3:
                return True
        elif melds[i, M.KEY] == s:
            lo = melds[i, M.LO]
            hi = melds[i, M.HI]
            if hi - lo + 1 >= 13:
                continue
            if r == lo - 1 or r == hi + 1 or (r == 1 and hi == 13):
                return True
    return False


@kernel
def may_take_to_lay_off(melds, pub, q):
    """May seat ``q`` take a discard to lay it off ([A11], [A20]: a meld of its own first)?"""
    if pub[PUB.RULES + RULE.DISCARD_TAKE] == TAKE.NEW_MELD_ONLY:
        return False
    if pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0:
        return True
    for i in range(melds.shape[0]):
        if melds[i, M.OWNER] == q:
            return True
    return False


@kernel
def live_help(c, hand, pub, v1, v2, v3):
    """How much natural ``c`` helps a meld in ``hand`` (greedy's "useful", counted only while a
    card that would complete the meld is unseen): 2 per other suit of its rank held (a pierna,
    while a suit the hand lacks is unseen), 3 per same-suit neighbour one position away (while
    a card at either end of the pair is unseen), 1 per neighbour two away (while the card
    between is unseen); jokers aside."""
    decks = pub[PUB.RULES + RULE.DECKS]
    r = rank_of(c)
    s = suit_of(c)
    useful = 0
    # partners of a pierna: other suits of the rank, while a third suit is unseen
    held = 0
    for t in range(4):
        if hand[t * 13 + r - 1] > 0:
            held += 1
    if held >= 2:
        live = False
        for t in range(4):
            if hand[t * 13 + r - 1] == 0 and not all_seen(t * 13 + r - 1, decks, v1, v2, v3):
                live = True
        useful += 2 * (held - 1) if live else 0
    # run neighbours: one or two positions away, while a card between or beyond is unseen
    ps = (1, 14) if r == 1 else (r, r)
    for j in range(2 if r == 1 else 1):
        p = ps[j]
        for d in (-2, -1, 1, 2):
            x = p + d
            if x < 1 or x > 14 or hand[pos_card(x, s)] == 0:
                continue
            if d == 1 or d == -1:
                a = min(p, x) - 1
                b = max(p, x) + 1
                ok = (a >= 1 and not all_seen(pos_card(a, s), decks, v1, v2, v3)) or (
                    b <= 14 and not all_seen(pos_card(b, s), decks, v1, v2, v3)
                )
                useful += 3 if ok else 0
            else:
                mid = (p + x) // 2
                useful += 0 if all_seen(pos_card(mid, s), decks, v1, v2, v3) else 1
    return useful


@kernel
def careful_terms(cost, c, melds, pub, feeds, ranks, danger, safe, keep):
    """``cost`` with careful's table and history terms: ``keep`` less for a card that extends
    a table meld, ``danger`` less again when the next player (``feeds``) may take it to lay it
    off, ``safe`` more for a rank the next player discarded this round (``ranks``)."""
    if extends_table(melds, pub, c):
        cost -= keep  # a lay-off for me once I have melded
        if feeds:
            cost -= danger  # and for the next player now
    if (ranks >> rank_of(c)) & 1:
        cost += safe
    return cost


# ---------------------------------------------------------------- careful's discard as bits
# The same numbers as known_copies, live_help and extends_table (the plain forms above, which
# the tests check these against), from masks built once per discard instead of a pass over
# the hand, the pile and the table for every option.

_NATURALS = (1 << JOKER) - 1
_ONES_7D = np.uint64(0x7D7D7D7D7D7D7D7D)


@kernel(inline="always")
def _seen_merge(v1, v2, v3, t1, t2, t3):
    """Saturating bit-sliced counts (>= 1, >= 2, >= 3 copies) ``v`` plus counts ``t``."""
    return v1 | t1, v2 | t2 | (v1 & t1), v3 | t3 | (v2 & t1) | (v1 & t2)


@kernel(inline="always")
def _bytes_over(w, add):
    """Bit k: byte k of the word ``w`` plus ``add`` reaches 0x80 (a count over a threshold)."""
    a = ((w + add) & _HIGH_BITS) >> np.uint64(7)
    return int((a * _GATHER) >> np.uint64(56))


@kernel(inline="always")
def hand_copies(hand):
    """Masks (>= 1, >= 2, >= 3 copies) of the naturals in ``hand``, eight counts at a time."""
    h1 = 0
    h2 = 0
    h3 = 0
    w = hand[:48].view(np.uint64)
    for k in range(6):
        h1 |= _bytes_over(w[k], _ONES_7F) << (8 * k)
        h2 |= _bytes_over(w[k], _ONES_7E) << (8 * k)
        h3 |= _bytes_over(w[k], _ONES_7D) << (8 * k)
    for i in range(48, JOKER):
        h1 |= int(hand[i] >= 1) << i
        h2 |= int(hand[i] >= 2) << i
        h3 |= int(hand[i] >= 3) << i
    return h1, h2, h3


@kernel(inline="always")
def seen_masks(hand, melds, pile, pub):
    """(naturals of which every copy is in sight, naturals that extend a table meld):
    :func:`known_copies` read at the game's deck count, and :func:`extends_table` for every
    natural at once."""
    decks = pub[PUB.RULES + RULE.DECKS]
    three = pub[PUB.RULES + RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    v1, v2, v3 = hand_copies(hand)
    for i in range(pile.shape[0]):
        c = pile[i]
        if c >= 0 and c != JOKER:
            v1, v2, v3 = _seen_add(v1, v2, v3, 1 << int(c))
    ext = 0
    for i in range(melds.shape[0]):
        if melds[i, M.KIND] == MELD.PIERNA:
            r = int(melds[i, M.KEY])
            t1 = 0
            t2 = 0
            t3 = 0
            ns = 0
            for s in range(4):
                k = int(melds[i, M.C0 + s])
                b = 1 << (s * 13 + r - 1)
                t1 |= b if k >= 1 else 0
                t2 |= b if k >= 2 else 0
                t3 |= b if k >= 3 else 0
                ns += k > 0
            v1, v2, v3 = _seen_merge(v1, v2, v3, t1, t2, t3)
            # a suit of the rank the pierna takes: one it holds (below the deck count), or a
            # new one while it may grow a suit ([A21])
            for s in range(4):
                k = int(melds[i, M.C0 + s])
                if k < decks and (k > 0 or (not three and ns < 3)):
                    ext |= 1 << (s * 13 + r - 1)
        else:
            s = int(melds[i, M.KEY])
            lo = int(melds[i, M.LO])
            hi = int(melds[i, M.HI])
            win = (2 << hi) - (1 << lo)
            nat = win ^ (int(melds[i, M.JMASK]) & win)
            v1, v2, v3 = _seen_add(v1, v2, v3, ((nat >> 1) & 0x1FFF) << (13 * s))
            if (nat >> 14) & 1:  # an ace high as well as low: a second copy
                v1, v2, v3 = _seen_add(v1, v2, v3, 1 << (13 * s))
            if hi - lo + 1 < 13:  # its ends: rank lo - 1, rank hi + 1 (the ace after a king)
                if lo >= 2:
                    ext |= 1 << (13 * s + lo - 2)
                if hi <= 12:
                    ext |= 1 << (13 * s + hi)
                elif hi == 13:
                    ext |= 1 << (13 * s)
    seen = v1 if decks <= 1 else (v2 if decks == 2 else v3)
    return seen & _NATURALS, ext


@kernel(inline="always")
def live_help_lanes(held, unseen, r, s):
    """:func:`live_help` of the natural of rank ``r``, suit ``s`` from the hand's lanes
    (``held``, :func:`~sim.loba.greedy.lanes_of`) and the unseen naturals' lanes
    (``unseen``)."""
    useful = 0
    y = (held >> r) & _LANE_ONES  # the rank held, per suit
    u = (unseen >> r) & _LANE_ONES
    nh = (y + (y >> 16) + (y >> 32) + (y >> 48)) & 7
    if nh >= 2 and (u & ~y) != 0:  # a pierna, while a suit the hand lacks is unseen
        useful += 2 * (nh - 1)
    m = ((held >> (16 * s)) & 0xFFFF) << 2  # bit p + 2: position p held
    v = ((unseen >> (16 * s)) & 0xFFFF) << 2  # ... unseen (none outside 1..14)
    useful += _run_help(m, v, r)
    if r == 1:
        useful += _run_help(m, v, 14)
    return useful


@kernel(inline="always")
def _run_help(m, v, p):
    """live_help's run neighbours of position ``p``: 3 per held neighbour one away while a
    card beyond either end of the pair is unseen, 1 per held neighbour two away while the card
    between is unseen (lanes shifted up by two)."""
    up = ((m >> (p + 3)) & 1) * (((v >> (p + 1)) | (v >> (p + 4))) & 1)
    down = ((m >> (p + 1)) & 1) * ((v >> p | (v >> (p + 3))) & 1)
    return 3 * (up + down) + ((m >> (p + 4)) & (v >> (p + 3)) & 1) + ((m >> p) & (v >> (p + 1)) & 1)


@kernel(inline="always")
def _in_64ths(x):
    """``x`` is a whole number of 64ths below 2**30 in size (so sums of a few of them times
    small integers are exact in a float64)."""
    y = x * 64.0
    return abs(y) < 1073741824.0 and np.floor(y) == y


@kernel
def careful_pick(hand, melds, pile, pub, params, acts, n, hist, mem, weight):
    """careful's discard (below) with each penalty point weighing ``weight`` (smart's hurry);
    ``params[0:3]`` = danger, safe, keep."""
    ranks = careful_scan(hist, pub, mem)
    q = next_active_seat(pub)
    seen, ext = seen_masks(hand, melds, pile, pub)
    held_l = lanes_of(hand_copies(hand)[0])
    unseen_l = lanes_of(~seen & _NATURALS)
    feeds = may_take_to_lay_off(melds, pub, q)
    ace = pub[PUB.RULES + RULE.ACE_VALUE]
    danger = params[0]
    safe = params[1]
    keep = params[2]
    # the key in integers (64ths) when every weight is a whole number of 64ths: then each
    # float operation below is exact and int(cost * 64) is that integer (the defaults are)
    exact = _in_64ths(weight) and _in_64ths(danger) and _in_64ths(safe) and _in_64ths(keep)
    w64 = int(weight * 64) if exact else 0
    d64 = int(danger * 64) if exact and feeds else 0
    s64 = int(safe * 64) if exact else 0
    k64 = int(keep * 64) if exact else 0
    best = 0
    key = -(1 << 40)
    for i in range(n):
        c = int(acts[i, 0])
        if c == JOKER:
            k = -1000 * 64
        elif exact:
            r = rank_of(c)
            v = ace if r == 1 else min(r, 10)
            k = w64 * v - 256 * live_help_lanes(held_l, unseen_l, r, suit_of(c)) + c % 13
            k -= ((ext >> c) & 1) * (k64 + d64)
            k += ((ranks >> r) & 1) * s64
        else:
            r = rank_of(c)
            v = ace if r == 1 else min(r, 10)
            cost = weight * v - 4 * live_help_lanes(held_l, unseen_l, r, suit_of(c))
            if (ext >> c) & 1:
                cost -= keep  # a lay-off for me once I have melded
                if feeds:
                    cost -= danger  # and for the next player now
            if (ranks >> r) & 1:
                cost += safe
            k = int(cost * 64) + c % 13
        if k > key:
            key = k
            best = i
    return best


@decision
def careful_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """greedy's discard key, made careful with what the seat has seen: a helping card counts
    only while a card that would complete the meld is still unseen (hand, pile, table), a card
    the next player could lay off on the table costs ``danger`` more points, and one of a rank
    the next player discarded this round (the history) ``safe`` points less."""
    return careful_pick(hand, melds, pile, pub, params, acts, n, hist, mem, 1.0)

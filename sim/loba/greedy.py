"""Greedy's choices as kernels: its play (go out this turn if some order of plays does, else
the largest meld) and its discard (the card of highest penalty value that helps no meld).

The ``greedy`` policy (:mod:`sim.loba.policies`) is these functions behind the decision
signature; the engine also calls them directly for a seat that plays greedy
(:func:`greedy_choice`, :data:`sim.loba.layout.BUILTIN`), with the same arguments and the
same answers, and mc's playouts and ``smart`` build on them.
"""

from __future__ import annotations

import numpy as np
from numba import types

from ..jit import kernel
from ..stack import stack_array
from .cards import rank_of, suit_of
from .layout import DEC, DRAW, HAND_W, JOKER, MAX_MELDS, MELD, N_IDS, PLAY, PUB, A, M
from .moves import (
    _GATHER,
    _HIGH_BITS,
    _ONES_7F,
    _layoff_row,
    apply_play,
    best_layoff,
    bit_index,
    copy_rows2,
    escalera_suits,
    has_window,
    largest_new_meld,
    lo_span,
    pierna_accepts,
    pierna_count,
    popcount,
    popcount64,
    pos_card,
    rules_into,
    suit_bits,
    suit_masks,
    table_keys,
    top_index,
    window_bits,
)
from .playout import play_key, way_out
from .rules import PIERNA, RULE


@kernel(inline="always")
def best_play_key(act):
    """Greedy's order of the plays: a new meld by its size, then its top position (above
    every lay-off); a natural lay-off before a joker's."""
    if act[A.TYPE] == PLAY.MELD:
        return act[A.N] * 100 + act[A.HI]
    return 1 if act[A.KEY] == JOKER else 2


@kernel(readonly=("acts",))
def best_play(acts, n):
    """Largest new meld first (ties: higher top position, [A18]); then the first lay-off."""
    best = -1
    key = -1
    for i in range(n):
        k = best_play_key(acts[i])
        if k > key:
            key = k
            best = i
    return best


@kernel(readonly=("acts",))
def cards_covered(acts, n):
    """Bit c set when some option puts a card of identity c down."""
    cover = 0
    for i in range(n):
        if acts[i, A.TYPE] == PLAY.LAYOFF:
            cover |= 1 << int(acts[i, A.KEY])
        elif acts[i, A.KIND] == MELD.PIERNA:
            r = int(acts[i, A.KEY])
            for s in range(4):
                if pierna_count(acts[i, A.LO], s) > 0:
                    cover |= 1 << (s * 13 + r - 1)
        else:  # positions lo..hi: a joker where JMASK says, else the natural (moves.pos_card)
            s = int(acts[i, A.KEY])
            win = (2 << int(acts[i, A.HI])) - (1 << int(acts[i, A.LO]))
            jm = int(acts[i, A.JMASK]) & win
            nat = win ^ jm
            cover |= (((nat >> 1) & 0x1FFF) | ((nat >> 14) & 1)) << (13 * s)
            if jm:
                cover |= 1 << JOKER
    return cover


@kernel(inline="always")
def held_ids(hand):
    """Bit c: identity c held, for a decision's hand (N_IDS counts), the first 48 counts read
    eight at a time as :func:`suit_lanes` does."""
    held = 0
    w = hand[:48].view(np.uint64)
    for k in range(6):
        a = ((w[k] + _ONES_7F) & _HIGH_BITS) >> np.uint64(7)
        held |= int((a * _GATHER) >> np.uint64(56)) << (8 * k)
    for i in range(48, N_IDS):
        held |= int(hand[i] > 0) << i
    return held


@kernel(readonly=("hand",))
def loose_cards(hand, cover):
    """Cards of the hand whose identity is not in ``cover`` (the held identities outside it,
    one bit each, instead of a pass over all N_IDS counts)."""
    loose = 0
    x = held_ids(hand) & ~cover
    while x:
        low = x & -x
        loose += hand[bit_index(low)]
        x ^= low
    return loose


@kernel
def play_out(h, ms, nm, R, melded, seat, opts):
    """Play largest-first from hand ``h`` and table ``ms`` (changed in place) until no play
    is left; returns the cards left in hand. ``opts``: scratch of one option row or more."""
    hn = 0
    for i in range(N_IDS):
        hn += h[i]
    row = opts[0]
    while hn > 0:
        # best_play of every option: a new meld (key >= 300) before any lay-off (<= 2),
        # each found without listing the options (tests/loba/test_largest_meld.py)
        if not largest_new_meld(h, hn, R, row):
            if not melded or not best_layoff(h, hn, ms, nm, R, row):
                break
        hn -= row[A.N]
        if row[A.TYPE] == PLAY.MELD:
            melded = True
        nm = apply_play(h, ms, nm, row, seat)
    return hn


@kernel(inline="always")
def option_out(hand, melds, nm, R, melded, seat, act, h, ms, opts):
    """Play ``act`` from ``hand`` and ``melds[:nm]`` on the scratch ``h`` and ``ms``, then
    largest-first (:func:`play_out`); returns the cards left (``h``: the hand left)."""
    for c in range(N_IDS):
        h[c] = hand[c]
    copy_rows2(melds, ms, nm)
    nm2 = apply_play(h, ms, nm, act, seat)
    return play_out(h, ms, nm2, R, melded or act[A.TYPE] == PLAY.MELD, seat, opts)


@kernel(readonly=("hand",))
def largest_meld_cover(hand, hand_n, R, only, held, row):
    """``(found, cover)``: :func:`~sim.loba.moves.largest_new_meld` among the new melds
    :func:`~sim.loba.moves.gen_new_melds_with` lists for ``only`` (-1: every one; a natural:
    the piernas of its rank, then the escaleras of its suit; the joker: the escaleras), written
    into ``row``; and ``cover``, a superset of the cards those melds put down (bit c: every
    natural of a pierna's rank or of an escalera window, the joker when one is in it),
    which is all :func:`may_go_out`'s test needs. The same loops as the list, each meld's key
    compared instead of emitted, so the engine's own greedy plays without the list
    (``engine.greedy_play``). ``held``: the identities the hand holds."""
    limit = hand_n - 1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else hand_n
    if limit < 3:
        return False, 0
    exactly_three = R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    decks = R[RULE.DECKS]
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])
    mn = R[RULE.ESCALERA_MIN]
    if only >= 0 and only != JOKER:  # one rank, one suit (as gen_new_melds_with)
        ranks = 1 << rank_of(only)
        s0 = int(suit_of(only))  # (int: NumPy scalars as plain Python)
        lanes = int(suit_bits(held, s0)) << (16 * s0)
        suits = 1 << s0
    else:
        masks = suit_masks(hand)
        m0, m1, m2, m3 = masks[0], masks[1], masks[2], masks[3]
        ma, mb, mc, md = m0 & 0x3FFE, m1 & 0x3FFE, m2 & 0x3FFE, m3 & 0x3FFE
        ranks = (ma & mb & (mc | md)) | (mc & md & (ma | mb))
        if not exactly_three:
            if decks <= 2:
                ranks |= ((ma & (mb | mc | md)) | (mb & (mc | md)) | (mc & md)) & masks[4]
            else:
                ranks = 0x3FFE
        if only == JOKER:  # a joker is in no pierna
            ranks = 0
        lanes = int(m0) | (int(m1) << 16) | (int(m2) << 32) | (int(m3) << 48)
        suits = escalera_suits(lanes, J, mn)  # (no loop turn for the others)
    best_key = -1
    kind = 0
    key = 0
    lo_ = 0
    hi_ = 0
    jm_ = 0
    size = 0
    cover = 0
    while ranks:  # [A15] piernas, as _piernas_of lists them
        low = ranks & -ranks
        ranks ^= low
        r = bit_index(low)
        h0 = int(min(hand[r - 1], decks))
        h1 = int(min(hand[13 + r - 1], decks))
        h2 = int(min(hand[26 + r - 1], decks))
        h3 = int(min(hand[39 + r - 1], decks))
        if h0 + h1 + h2 + h3 < 3:
            continue
        cover |= ((held >> (r - 1)) & 0x0008004002001) << (r - 1)  # the rank's naturals
        if (h0 + h1 + h2 + h3) * 100 <= best_key:
            continue
        for c0 in range(h0 + 1):
            for c1 in range(h1 + 1):
                for c2 in range(h2 + 1):
                    for c3 in range(h3 + 1):
                        k = c0 + c1 + c2 + c3
                        if k < 3 or k > limit or k * 100 <= best_key:
                            continue
                        ns = (c0 > 0) + (c1 > 0) + (c2 > 0) + (c3 > 0)
                        if ns == 4 or (exactly_three and ns != 3):
                            continue
                        best_key = k * 100
                        kind = MELD.PIERNA
                        key = r
                        lo_ = c0 | (c1 << 2) | (c2 << 4) | (c3 << 6)
                        hi_ = 0
                        jm_ = 0
                        size = k
    while suits:  # [A16]/[A17] escaleras, as _escaleras_of lists them (suit by suit)
        low = suits & -suits
        suits ^= low
        s = bit_index(low)
        m = (lanes >> (16 * s)) & 0xFFFF
        c = popcount(m & 0x3FFE)
        if c < 2 or c + J < mn or not has_window(m, J, mn):
            continue
        # from each lo only its longest window can be the largest (the most cards, then
        # the highest top, grow together) or add to the cover (the shorter ones hold fewer
        # naturals, and a joker only where it has one): it ends before the (J + 1)-th gap
        lo0, lo1 = lo_span(m, J)
        for lo in range(lo0, lo1 + 1):
            if not ((m >> lo) & 1) and J == 0:
                continue
            gap = ~m & 0x7FFF & -(1 << lo)  # the gaps at positions lo..14
            for _ in range(J):
                gap &= gap - 1
            hi = min(bit_index(gap & -gap) - 1 if gap else 14, lo + 12, lo + limit - 1)
            if hi < lo + mn - 1:
                continue
            wb = window_bits(lo, hi)
            held_w = m & wb
            nat = popcount(held_w)
            if nat < 2:
                continue
            length = hi - lo + 1
            gaps = length - nat
            cover |= (((held_w >> 1) & 0x1FFF) | ((held_w >> 14) & 1)) << (13 * s)
            if gaps > 0 or min(J - gaps, nat - 2) > 0:  # a joker in it (meld_cover's)
                cover |= 1 << JOKER
            if length * 100 + hi > best_key:
                best_key = length * 100 + hi
                kind = MELD.ESCALERA
                key = s
                lo_ = lo
                hi_ = hi
                jm_ = wb & ~m
                size = length
    if best_key < 0:
        return False, cover
    row[A.TYPE] = PLAY.MELD
    row[A.KIND] = kind
    row[A.KEY] = key
    row[A.LO] = lo_
    row[A.HI] = hi_
    row[A.JMASK] = jm_
    row[A.N] = size
    return True, cover


@kernel(readonly=("hand", "melds", "wants"))
def best_layoff_wanted(hand, hand_n, melds, nm, R, row, wants, held):
    """:func:`~sim.loba.moves.best_layoff`, looking only at the melds ``i`` that take a card
    the hand holds (``wants[i] & held``, as :func:`~sim.loba.moves.gen_layoffs_wanted`): the
    same lay-off (the melds it skips have none)."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and hand_n <= 1:
        return False
    jm_i = -1  # the first joker lay-off: its meld and position
    jm_p = 0
    for i in range(nm):
        if not (wants[i] & held):
            continue
        if melds[i, M.KIND] == MELD.PIERNA:
            r = int(melds[i, M.KEY])
            for s in range(4):
                cid = s * 13 + r - 1
                if hand[cid] > 0 and pierna_accepts(melds[i], s, R):
                    return _layoff_row(row, i, cid, -1, 0)
            continue
        s = int(melds[i, M.KEY])
        lo = int(melds[i, M.LO])
        hi = int(melds[i, M.HI])
        jm = int(melds[i, M.JMASK])
        if hi - lo + 1 >= 13:
            continue
        if lo > 1 and hand[pos_card(lo - 1, s)] > 0:
            return _layoff_row(row, i, pos_card(lo - 1, s), lo - 1, 0)
        if hi < 14 and hand[pos_card(hi + 1, s)] > 0:
            return _layoff_row(row, i, pos_card(hi + 1, s), hi + 1, 0)
        if R[RULE.JOKER_END_MOVE] == 1:
            if (jm >> lo) & 1 and hi < 14 and hand[pos_card(lo, s)] > 0:
                return _layoff_row(row, i, pos_card(lo, s), lo, hi + 1)
            if (jm >> hi) & 1 and lo > 1 and hand[pos_card(hi, s)] > 0:
                return _layoff_row(row, i, pos_card(hi, s), hi, lo - 1)
        if jm_i < 0 and hand[JOKER] > 0 and popcount(jm) < R[RULE.JOKERS_PER_ESCALERA]:
            if lo > 1:
                jm_i = i
                jm_p = lo - 1
            elif hi < 14:
                jm_i = i
                jm_p = hi + 1
    if jm_i >= 0:
        return _layoff_row(row, jm_i, JOKER, jm_p, 0)
    return False


@kernel(inline="always")
def may_go_out_masks(hand, held, cover, melds, nm, must_meld):
    """:func:`may_go_out` from the identities ``held`` and ``cover`` (a superset of the cards
    the options put down: the test then holds at least whenever it holds on the list);
    ``must_meld``: lay-offs wait for the seat's own meld ([A20]) and it has none yet. The
    loose cards are counted from masks: two identities or more are two cards or more."""
    x = held & ~cover
    nx = popcount64(x)
    if nx == 0 or (nx == 1 and hand[bit_index(x)] <= 1):
        return True
    if not must_meld:
        return False
    ranks, suits = table_keys(melds, nm)
    table = ((ranks >> 1) & 0x1FFF) * 0x8004002001  # the naturals of those ranks ...
    for t in range(4):  # ... and of those suits
        table |= ((suits >> t) & 1) * (0x1FFF << (13 * t))
    y = x & ~table & ((1 << JOKER) - 1)
    ny = popcount64(y)
    if ny >= 2:
        return False
    loose = hand[bit_index(y)] if ny == 1 else 0
    if hand[JOKER] > 0 and not (cover >> JOKER) & 1 and suits == 0:
        loose += hand[JOKER]
    return loose <= 1


@kernel(readonly=("hand", "melds", "pub", "acts"))
def may_go_out(hand, melds, pub, acts, n):
    """Cheap necessary condition for going out this turn: every card but one is put down by
    some option (or, before the seat's own meld, by a lay-off it could then make)."""
    cover = cards_covered(acts, n)
    return may_go_out_with(hand, melds, pub, cover, loose_cards(hand, cover))


@kernel(readonly=("hand", "melds", "pub"))
def may_go_out_with(hand, melds, pub, cover, loose):
    """:func:`may_go_out` of the options whose cards are ``cover`` (:func:`cards_covered`),
    ``loose`` (:func:`loose_cards` of the hand outside it) given: ``smart`` has both already,
    and asks without a second pass over the options."""
    if loose <= 1:
        return True
    if pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
        return False  # the options already hold every lay-off
    # which loose cards a lay-off could take: an escalera of their suit or a pierna of their
    # rank (a superset is enough here): the table's suits and ranks as masks, then one pass
    # over the loose cards held
    ranks, suits = table_keys(melds, pub[PUB.NMELDS])
    left = 0
    x = held_ids(hand) & ~cover & ((1 << JOKER) - 1)
    while x:
        low = x & -x
        x ^= low
        c = bit_index(low)
        if not ((ranks >> rank_of(c)) & 1 or (suits >> suit_of(c)) & 1):
            left += hand[c]
    if hand[JOKER] > 0 and not (cover >> JOKER) & 1 and suits == 0:
        left += hand[JOKER]
    return left <= 1


def array_type(dtype, ndim, readonly):
    return types.Array(dtype, ndim, "C", readonly=readonly)


# scratch shapes as plain ints (sim.stack.stack_array takes constants)
_N_RULES = RULE.SIZE
_A_SIZE = A.SIZE
_M_SIZE = M.SIZE


@kernel(readonly=("hand", "melds", "pub", "acts"))
def going_out(hand, melds, pub, acts, n, must):
    """``(i, left)``: the option ``i`` after which playing largest-first leaves the fewest
    cards (``left``; ties: greedy's order), when that lets the seat go out this turn (at most
    one card left, to discard) and puts a card of identity ``must`` down (-1: any); else
    ``(-1, left)``. Call it when :func:`may_go_out` holds. (Its scratch is on its own stack,
    :func:`~sim.stack.stack_array`: nothing allocated, no reference counts; the work is done
    in :func:`fewest_after`.)"""
    R = rules_into(pub, stack_array(_N_RULES, 0, np.int64))
    h = stack_array(HAND_W, 0, np.int8)
    for c in range(N_IDS, HAND_W):  # (the padding read eight counts at a time: zeros)
        h[c] = 0
    opts = stack_array(1, _A_SIZE, np.int16)  # (play_out needs one option row)
    ms = stack_array(MAX_MELDS, _M_SIZE, np.int16)
    return fewest_after(hand, melds, pub, acts, n, must, R, h, opts, ms)


@kernel(readonly=("hand", "melds", "pub", "acts"))
def fewest_after(hand, melds, pub, acts, n, must, R, h, opts, ms):
    """:func:`going_out` on its scratch (``h``, ``opts``, ``ms``)."""
    nm = pub[PUB.NMELDS]
    seat = pub[PUB.SEAT]
    hn = 0
    for i in range(N_IDS):
        hn += hand[i]
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    best = -1
    best_left = hn + 1
    best_key = -1
    key = 0
    for i in range(n):
        key = play_key(acts[i])
        if best_left == 0 and key <= best_key:
            continue  # (no option leaves fewer than none: this one cannot win; not played out)
        left = option_out(hand, melds, nm, R, melded, seat, acts[i], h, ms, opts)
        if must >= 0 and h[must] >= hand[must]:
            continue
        if left < best_left or (left == best_left and key > best_key):
            best = i
            best_left = left
            best_key = key
    if best_left <= 1:
        return best, best_left
    return -1, best_left


@kernel(inline="always")
def out_or_largest(hand, melds, pub, acts, n):
    """Greedy's play: a play that leads to going out this turn if there is one (searched only
    when :func:`may_go_out`), else the largest."""
    if n >= 2 and may_go_out(hand, melds, pub, acts, n):  # one option: nothing to order
        if pub[PUB.TAKEN] < 0:  # every play of the hand listed: bounds skip some play-outs
            k = way_out(hand, melds, pub, acts, n, -1, False)
        else:
            k = going_out(hand, melds, pub, acts, n, -1)[0]
        if k >= 0:
            return k
    return best_play(acts, n)


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


_LANE_ONES = 0x0001000100010001
_LANE_RANKS = 0x3FFE3FFE3FFE3FFE  # positions 1..13 of every lane
_LANE_BIT1 = 0x0002000200020002  # position 1 (the ace) of every lane


@kernel(inline="always")
def lanes_of(held):
    """The naturals ``held`` (bit c: identity c) as four 16-bit lanes (suit s in bits
    16s..16s+15): bit p of a lane is escalera position p (1..14, the ace at 1 and at 14)."""
    lanes = 0
    for s in range(4):
        m = ((held >> (13 * s)) & 0x1FFF) << 1
        lanes |= (m | ((m & 2) << 13)) << (16 * s)
    return lanes


@kernel(inline="always")
def suit_lanes(hand):
    """:func:`lanes_of` a decision's hand (53 counts, read by :func:`held_ids`)."""
    return lanes_of(held_ids(hand))


@kernel(inline="always")
def natural_key(lanes, r, s, ace):
    """Greedy's discard key of the natural of rank ``r``, suit ``s``: ``64 *`` :func:`card_cost`
    ``+ r - 1`` (ties: the higher rank), from the hand's :func:`lanes_of` instead of hand
    look-ups: the same numbers. The rank's other suits and the suit's neighbours (3 per
    position one away, 1 per position two away; an ace's are 2, 3 and K, Q: positions 1 and
    14 of its lane) are counted with ``popcnt`` on the lanes, which hold no bit at a lane's
    positions 0 and 15 (so the next lane's bits never count)."""
    v = ace if r == 1 else min(r, 10)
    m = lanes >> (16 * s)  # the suit's lane in bits 0..15 (other suits above: never read)
    useful = 2 * popcount64((lanes >> r) & _LANE_ONES) - 2  # this rank in each suit
    useful += 3 * popcount64(((m << 1) >> r) & 5) + popcount64(((m << 2) >> r) & 0x11)
    ace_x = 3 * ((m >> 13) & 1) + ((m >> 12) & 1)  # an ace's K and Q (position 14's)
    useful += ace_x if r == 1 else 0
    return (v - 4 * useful) * 64 + r - 1


@kernel(inline="always")
def best_discard(hand, pub, acts, n):
    """The option of highest :func:`card_cost` (ties: the higher rank, then the first), keyed
    by :func:`natural_key`."""
    lanes = suit_lanes(hand)
    ace = pub[PUB.RULES + RULE.ACE_VALUE]
    best = 0
    key = -(1 << 30)
    for i in range(n):
        c = int(acts[i, 0])  # (int: the same arithmetic compiled or not, NUMBA_DISABLE_JIT)
        k = -1000 * 64 if c == JOKER else natural_key(lanes, rank_of(c), suit_of(c), ace)
        if k > key:
            key = k
            best = i
    return best


@kernel(inline="always")
def discard_natural(held, ace):
    """:func:`best_discard`'s card when the options are the naturals ``held`` (bit c), with or
    without the joker (its key, -64000, is below every natural's), found without an option
    list: the naturals in the options' order (suit by suit, rank by rank), each rank and suit
    read from its bit in the lanes (one loop: a loop per suit mispredicted its exit four
    times). The engine's own greedy discards with it."""
    lanes = lanes_of(held)
    # a natural with no card of its rank in another suit and none of its suit within two
    # positions has useful 0, so its key is 64 * value + rank - 1; every other natural's
    # is at most 64 * (highest value - 4) + 12. When the best of those lone naturals is
    # above that, it is the card (found from the masks, no loop over the hand)
    near = (lanes << 1) | (lanes >> 1) | (lanes << 2) | (lanes >> 2)
    near |= (near >> 13) & _LANE_BIT1  # an ace's K and Q (position 14), read at position 1
    l0, l1 = lanes & 0xFFFF, (lanes >> 16) & 0xFFFF
    l2, l3 = (lanes >> 32) & 0xFFFF, (lanes >> 48) & 0xFFFF
    two = (l0 & (l1 | l2 | l3)) | (l1 & (l2 | l3)) | (l2 & l3)  # ranks in two suits or more
    lone = lanes & ~near & ~(two * _LANE_ONES) & _LANE_RANKS
    if lone:
        top = -1
        tkey = -(1 << 30)
        fold = (lone | (lone >> 16) | (lone >> 32) | (lone >> 48)) & 0x3FFC  # ranks 2..13
        if fold:
            r = top_index(fold)
            tkey = 64 * min(r, 10) + r - 1
            top = (bit_index(lone & (_LANE_ONES << r)) >> 4) * 13 + r - 1
        aces = lone & _LANE_BIT1
        if aces and 64 * ace > tkey:
            tkey = 64 * ace
            top = (bit_index(aces & -aces) >> 4) * 13
        if tkey > 64 * (max(10, ace) - 4) + 12:
            return top
    best = -1
    key = -(1 << 30)
    x = lanes & _LANE_RANKS  # one loop over the lanes' positions 1..13: bit 16s + r
    while x:
        low = x & -x
        x ^= low
        b = bit_index(low)
        s, r = b >> 4, b & 15
        k = natural_key(lanes, r, s, ace)
        if k > key:
            key = k
            best = s * 13 + r - 1
    return best


@kernel(inline="always")
def draw_choice(hand, melds, pub, acts, n):
    """Greedy's draw: take the discard whenever it is offered (it is only offered where it may
    be taken and put down this turn)."""
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            return i
    return 0


@kernel(inline="always")
def discard_choice(hand, melds, pub, acts, n):
    """Greedy's discard: :func:`best_discard`, with the arguments every choice takes."""
    return best_discard(hand, pub, acts, n)


# Greedy's answer to each decision among options ``acts[:n]`` (n >= 2), as its decision
# functions give it; all take ``(hand, melds, pub, acts, n)``. Of the public view they read the
# rules and, for a play, the seat, its meld flag and the table's meld count: the caller fills
# those.
play_choice = out_or_largest


@kernel(inline="always")
def greedy_choice(decision, hand, melds, pub, acts, n):
    """Greedy's answer to ``decision`` (DEC.*): the engine's own greedy (``gate.decide``).
    Naming the choice at each decision instead compiles the engine about 1-2 CPU s faster
    but costs about 1% per turn (measured: docs/performance.md)."""
    if decision == DEC.DISCARD:
        return best_discard(hand, pub, acts, n)
    if decision == DEC.PLAY:
        return out_or_largest(hand, melds, pub, acts, n)
    return draw_choice(hand, melds, pub, acts, n)

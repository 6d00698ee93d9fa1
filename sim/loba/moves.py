"""Meld rules of Loba de Menos as compiled array code: judging, enumerating and applying plays.

Input contract (all functions): ``hand`` is ``int8[53]`` card counts (sim.loba.cards
identities); ``melds`` is ``int16[MAX_MELDS, M.SIZE]`` with ``nm`` rows in use (sim.loba.layout
``M.*``); ``R`` is the ``int64`` rule array of :meth:`sim.rules.RuleSet.to_array`; ``acts`` is
``int16[k, A.SIZE]`` play rows (``A.*``, k >= :func:`options_bound`). Positions 1..14 are
escalera positions (1 = low ace, 14 = high ace).

The option list built here is the engine's canonical set of legal plays ([A9]: any legal meld,
not only the largest): every new meld from hand (every choice of copies per suit for a pierna;
every window of an escalera with every placement of its jokers, also on a position whose
natural the hand keeps), and every single-card lay-off (natural or joker at either end, the
[A22] joker jump). Identical cards are interchangeable, so each distinct play appears once.
Under the ``go_out_needs_discard`` variant ([A26]) plays that would empty the hand are absent.
Any sequence of plays a player could make at the table is a sequence of these options, so
every end-of-turn table the rules allow is reachable by a policy.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from ..jit import DISABLED, jit, kernel
from .cards import rank_of, suit_of
from .layout import HAND_W, JOKER, MAX_MELDS, MELD, PLAY, PUB, A, M
from .rules import PIERNA, RULE

# reasons a card multiset is not a meld (texts in sim.loba.melds.REASONS)
OK = 0
BAD_TOO_FEW = 1
BAD_FEW_NATURALS = 2
BAD_JOKER_IN_PIERNA = 3
BAD_PIERNA_SUITS = 4
BAD_ALL_FOUR = 5
BAD_SUIT_COPIES = 6
BAD_MIXED = 7
BAD_DUP_RANK = 8
BAD_TOO_MANY_JOKERS = 9
BAD_SHORT = 10
BAD_GAPS = 11
BAD_TOO_LONG = 12

POP = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.int8)


@intrinsic
def _ctpop64(typingctx, x):
    """LLVM's ``ctpop`` of a 64-bit integer (one ``popcnt``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.int64)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [v])

    return types.int64(x), codegen


if DISABLED:

    def popcount(x):
        """Set bits among the low 32 of ``x``."""
        v = int(x)
        return int(POP[v & 0xFFFF] + POP[(v >> 16) & 0xFFFF])

else:

    @kernel
    def popcount(x):
        """Set bits among the low 32 of ``x``: one ``popcnt`` (a table look-up per 16 bits
        before)."""
        return _ctpop64(np.int64(x) & 0xFFFFFFFF)


if DISABLED:

    def bit_index(low):
        """Index of the single set bit of ``low`` (a power of two below 2**63)."""
        return int(low).bit_length() - 1

else:

    @kernel
    def bit_index(low):
        """Index of the single set bit of ``low`` (a power of two below 2**63): one ``tzcnt``
        (LLVM's ``cttz``), where a de Bruijn multiply and a table load were before."""
        return trailing_zeros(np.int64(low))


if DISABLED:

    def top_index(x):
        """Index of the highest set bit of ``x`` (0 < x < 2**63)."""
        return int(x).bit_length() - 1

else:

    @kernel
    def top_index(x):
        """Index of the highest set bit of ``x`` (0 < x < 2**63): one ``lzcnt``."""
        return 63 - leading_zeros(np.int64(x))


if DISABLED:

    def popcount64(x):
        """Set bits of the 64-bit word ``x``."""
        return bin(int(x) & 0xFFFFFFFFFFFFFFFF).count("1")

else:

    @kernel(inline="always")
    def popcount64(x):
        """Set bits of the 64-bit word ``x``: one ``popcnt``."""
        return _ctpop64(np.int64(x))


@kernel(inline="always")
def table_keys(melds, nm):
    """(bit r: a pierna of rank r on the table, bit s: an escalera of suit s) of
    ``melds[:nm]``: the melds a lay-off of a card of that rank or suit could go onto."""
    ranks = 0
    suits = 0
    for i in range(nm):
        if melds[i, M.KIND] == MELD.PIERNA:
            ranks |= 1 << int(melds[i, M.KEY])
        else:
            suits |= 1 << int(melds[i, M.KEY])
    return ranks, suits


_LANES_1 = 0x0001000100010001  # bit 0 of each 16-bit lane


@kernel(inline="always")
def escalera_suits(lanes, J, mn):
    """Bit s set when suit s may hold an escalera: :func:`has_window`'s bit tests on the four
    suits' positions at once (``lanes``: suit s's :func:`suit_bits` in bits 16s..16s+15),
    each shift masked to its lane; every suit where ``has_window`` slides a count. A suit
    whose bit is clear has no escalera (the searches then skip it without a turn of their
    suit loop, whose tests mispredict)."""
    w = 0
    if mn <= J + 2:
        for d in range(1, max(mn, J + 2)):
            w |= lanes & (lanes >> d) & (((1 << (16 - d)) - 1) * _LANES_1)
    elif mn == 3:
        w = lanes & (lanes >> 1) & (lanes >> 2) & (0x3FFF * _LANES_1)
    else:
        return 15
    suits = 0
    for t in range(4):
        suits |= int(((w >> (16 * t)) & 0xFFFF) != 0) << t
    return suits


@kernel(inline="always")
def lo_span(m, J):
    """The first positions ``lo`` an escalera window of held positions ``m`` (two or more)
    can start at and still hold two naturals with at most ``J`` gaps: from the lowest held
    position less ``J`` (a window starting lower has more than ``J`` gaps before it) to the
    highest held position less one (one starting there holds one natural at most). The
    window loops start only there; the windows they skip are the ones they would skip."""
    return max(1, bit_index(m & -m) - J), top_index(m) - 1


@kernel
def pos_card(p, s):
    """Identity of the natural at escalera position ``p`` (1..14) of suit ``s``."""
    if p == 14:
        return s * 13
    return s * 13 + p - 1


@kernel
def suit_positions(hand, s):
    """Bit p (1..14) set when the hand holds the natural of suit ``s`` at position p."""
    m = 0
    base = s * 13
    for r in range(13):  # branch-free: the loop unrolls into compares and shifts
        m |= int(hand[base + r] > 0) << (r + 1)
    return m | ((m & 2) << 13)


_ONES_7F = np.uint64(0x7F7F7F7F7F7F7F7F)
_ONES_7E = np.uint64(0x7E7E7E7E7E7E7E7E)
_HIGH_BITS = np.uint64(0x8080808080808080)
_GATHER = np.uint64(0x0102040810204080)  # byte k's low bit -> bit 56 + k


@kernel(inline="always")
def held_bits(hand):
    """(bit i: identity i held, bit i: held twice or more). A state's hand row (HAND_W counts)
    is read eight counts at a time: counts are < 127, so adding 0x7F / 0x7E to a byte sets its
    top bit exactly when it holds >= 1 / >= 2, with no carry into the next byte. Any other
    hand is read one count at a time."""
    held = 0
    two = 0
    if hand.shape[0] == HAND_W:
        w = hand.view(np.uint64)
        for k in range(HAND_W // 8):
            x = w[k]
            a = ((x + _ONES_7F) & _HIGH_BITS) >> np.uint64(7)
            b = ((x + _ONES_7E) & _HIGH_BITS) >> np.uint64(7)
            held |= int((a * _GATHER) >> np.uint64(56)) << (8 * k)
            two |= int((b * _GATHER) >> np.uint64(56)) << (8 * k)
    else:
        for i in range(hand.shape[0]):
            held |= int(hand[i] > 0) << i
            two |= int(hand[i] > 1) << i
    return held, two


@kernel(inline="always")
def held_after(hand, held, act):
    """``held_bits(hand)[0]`` after the play ``act`` was made from a hand that held ``held``:
    only the identities the play put down can have left the hand, so only those are read
    (a pierna's rank in every suit, an escalera's window in its suit and the joker)."""
    if act[A.TYPE] == PLAY.LAYOFF:
        c = int(act[A.CARD])
        return held & ~(int(hand[c] == 0) << c)
    if act[A.KIND] == MELD.PIERNA:
        t = 0x0008004002001 << (int(act[A.KEY]) - 1)
    else:
        jm = int(act[A.JMASK])
        win = (2 << int(act[A.HI])) - (1 << int(act[A.LO]))
        nat = win & ~jm  # the naturals' positions: p is identity 13 s + p - 1, 14 the ace
        t = (((nat >> 1) & 0x1FFF) | ((nat >> 14) & 1)) << (13 * int(act[A.KEY]))
        t |= int(jm != 0) << JOKER
    x = t & held
    while x:
        low = x & -x
        x ^= low
        if hand[bit_index(low)] == 0:
            held ^= low
    return held


@kernel(inline="always")
def suit_bits(held, s):
    """:func:`suit_positions` of suit ``s`` from the identities ``held`` (bit c, as
    :func:`held_bits` gives them)."""
    m = ((held >> (13 * int(s))) & 0x1FFF) << 1  # (int: NumPy scalars as plain Python)
    return m | ((m & 2) << 13)


@kernel(inline="always")
def suit_masks(hand):
    """:func:`suit_positions` of the four suits, and the ranks (bit r) held twice or more in
    some suit, from :func:`held_bits`."""
    held, two = held_bits(hand)
    dup = ((two | (two >> 13) | (two >> 26) | (two >> 39)) & 0x1FFF) << 1
    return suit_bits(held, 0), suit_bits(held, 1), suit_bits(held, 2), suit_bits(held, 3), dup


@kernel
def window_bits(lo, hi):
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


@kernel(inline="always")
def has_window(m, J, mn):
    """Is there a run window (>= ``mn`` positions) of mask m with >= 2 naturals and at most
    J gaps?

    When ``mn <= J + 2`` that is two naturals at most ``max(mn, J + 2) - 1`` positions apart
    (a window of that length around them fits in 1..14 and has at most J gaps); otherwise the
    window is ``mn`` long and needs ``mn - J`` >= 3 naturals. Bit tricks for the common cases,
    a sliding count for the rest; tests/loba/test_oracle_melds.py checks it against a brute force.
    """
    if mn <= J + 2:
        for d in range(1, max(mn, J + 2)):
            if m & (m >> d):
                return True
        return False
    if mn == 3:  # J == 0: three in a row
        return (m & (m >> 1) & (m >> 2)) != 0
    need = mn - J
    cnt = 0
    for p in range(1, 15):
        cnt += (m >> p) & 1
        if p > mn:
            cnt -= (m >> (p - mn)) & 1
        if p >= mn and cnt >= need:
            return True
    return False


@kernel
def judge_meld(counts, R):
    """Judge a multiset of cards as a new meld laid down from hand ([A15]-[A18]).

    Returns ``(reason, kind, key, lo, hi, jmask)``: ``reason`` is ``OK`` (0) or a ``BAD_*``
    code. For an escalera, ``lo..hi`` are its positions and ``jmask`` where its jokers stand
    (extra jokers go to the high end, or the low end when the high end is impossible, [A18]).
    For a pierna, ``key`` is the rank and ``lo`` the mask of suits used. When an ace reads
    legally both low and high (the rules do not say which to take), the reading whose naturals
    leave fewer gaps for jokers wins, and low on a tie.
    """
    jokers = counts[JOKER]
    nat = 0
    for i in range(52):
        nat += counts[i]
    n = nat + jokers
    if n < 3:
        return BAD_TOO_FEW, -1, 0, 0, 0, 0
    if nat < 2:
        return BAD_FEW_NATURALS, -1, 0, 0, 0, 0
    decks = R[RULE.DECKS]
    # one rank?
    rank = -1
    one_rank = True
    suit = -1
    one_suit = True
    for i in range(52):
        if counts[i] > 0:
            r = rank_of(i)
            s = suit_of(i)
            if rank == -1:
                rank = r
            elif r != rank:
                one_rank = False
            if suit == -1:
                suit = s
            elif s != suit:
                one_suit = False
    if one_rank:
        if jokers > 0:
            return BAD_JOKER_IN_PIERNA, -1, 0, 0, 0, 0
        smask = 0
        for s in range(4):
            c = counts[s * 13 + rank - 1]
            if c > decks:
                return BAD_SUIT_COPIES, -1, 0, 0, 0, 0
            if c > 0:
                smask |= 1 << s
        ns = popcount(smask)
        if R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE:
            if ns != 3:
                return BAD_PIERNA_SUITS, -1, 0, 0, 0, 0
        elif ns == 4:
            return BAD_ALL_FOUR, -1, 0, 0, 0, 0
        return OK, MELD.PIERNA, rank, smask, 0, 0
    if not one_suit:
        return BAD_MIXED, -1, 0, 0, 0, 0
    # escalera of `suit`
    for i in range(13):
        if counts[suit * 13 + i] > 1:
            return BAD_DUP_RANK, -1, 0, 0, 0, 0
    if jokers > R[RULE.JOKERS_PER_ESCALERA]:
        return BAD_TOO_MANY_JOKERS, -1, 0, 0, 0, 0
    if n < R[RULE.ESCALERA_MIN]:
        return BAD_SHORT, -1, 0, 0, 0, 0
    if n > 13:
        return BAD_TOO_LONG, -1, 0, 0, 0, 0
    m = suit_positions(counts, suit)
    best_gaps = 99
    best_lo = 0
    best_hi = 0
    for ace_high in range(2):
        mm = m
        if m & 2:
            if ace_high == 1:
                mm = m & ~2
            else:
                mm = m & ~(1 << 14)
        elif ace_high == 1:
            continue
        lo = 1
        while not (mm >> lo) & 1:
            lo += 1
        hi = 14
        while not (mm >> hi) & 1:
            hi -= 1
        gaps = (hi - lo + 1) - nat
        if gaps <= jokers and gaps < best_gaps:
            best_gaps = gaps
            best_lo = lo
            best_hi = hi
    if best_gaps == 99:
        return BAD_GAPS, -1, 0, 0, 0, 0
    lo = best_lo
    hi = best_hi
    mm = m & window_bits(lo, hi)
    jmask = window_bits(lo, hi) & ~mm
    extra = jokers - best_gaps
    while extra > 0:  # [A18] extra jokers at the high end, else the low end
        if hi < 14:
            hi += 1
            jmask |= 1 << hi
        elif lo > 1:
            lo -= 1
            jmask |= 1 << lo
        else:
            return BAD_TOO_LONG, -1, 0, 0, 0, 0
        extra -= 1
    return OK, MELD.ESCALERA, suit, lo, hi, jmask


@kernel
def _emit(acts, n, typ, kind, key, lo, hi, jmask, k):
    """Write one option row if it fits (:func:`options_bound` sizes ``acts`` so that it always
    does); returns the new count."""
    if n < acts.shape[0]:
        acts[n, A.TYPE] = typ
        acts[n, A.KIND] = kind
        acts[n, A.KEY] = key
        acts[n, A.LO] = lo
        acts[n, A.HI] = hi
        acts[n, A.JMASK] = jmask
        acts[n, A.N] = k
    return n + 1


@kernel
def pierna_count(lo, s):
    """Copies of suit ``s`` in a pierna option (``A.LO`` packs two bits per suit)."""
    return (int(lo) >> (2 * s)) & 3


@kernel
def _emit_escalera(acts, n, s, lo, hi, gaps, held, extra, length):
    """The escalera lo..hi of suit s with jokers in ``gaps`` and, for up to ``extra`` more
    jokers, every choice of held positions they stand on instead of the natural ([A17]: any
    position). Four nested levels cover ``jokers_per_escalera`` <= 4 (its knob bound)."""
    n = _emit(acts, n, PLAY.MELD, MELD.ESCALERA, s, lo, hi, gaps, length)
    if extra < 1:
        return n
    a = held
    while a:
        la = a & -a
        a ^= la
        n = _emit(acts, n, PLAY.MELD, MELD.ESCALERA, s, lo, hi, gaps | la, length)
        if extra < 2:
            continue
        b = a
        while b:
            lb = b & -b
            b ^= lb
            n = _emit(acts, n, PLAY.MELD, MELD.ESCALERA, s, lo, hi, gaps | la | lb, length)
            if extra < 3:
                continue
            c = b
            while c:
                lc = c & -c
                c ^= lc
                m3 = gaps | la | lb | lc
                n = _emit(acts, n, PLAY.MELD, MELD.ESCALERA, s, lo, hi, m3, length)
                if extra < 4:
                    continue
                d = c
                while d:
                    ld = d & -d
                    d ^= ld
                    n = _emit(acts, n, PLAY.MELD, MELD.ESCALERA, s, lo, hi, m3 | ld, length)
    return n


@kernel
def gen_new_melds(hand, hand_n, R, acts, n):
    """Every new meld of the hand (:func:`gen_new_melds_with`, no card required)."""
    return gen_new_melds_with(hand, hand_n, R, acts, n, -1)


@kernel
def gen_new_melds_with(hand, hand_n, R, acts, n, only):
    """Append every new meld the hand can put down ([A9]: any legal meld, [A15]-[A18]); returns
    the new count.

    Piernas: every choice of copies per suit that [A15] allows (row ``A.LO`` packs the copies,
    two bits per suit). Escaleras: every window of positions with at least two naturals, and
    every placement of at most ``jokers_per_escalera`` jokers in it: on the gaps, and on
    positions whose natural the hand holds but keeps. Identical cards are interchangeable, so
    each distinct meld appears once. Under [A26] ``go_out_needs_discard``, melds that would
    empty the hand are left out.

    ``only`` >= 0 (a card identity) looks only where a meld holding that card can be: the
    piernas of its rank and the escaleras of its suit (every suit, and no pierna, for the
    joker). The engine passes the card drawn this turn when the hand had no meld before it
    (``S.MELD_FREE``): then every meld of the hand holds it, and the list is the same.
    """
    limit = hand_n - 1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else hand_n  # most cards in a meld
    if limit < 3:
        return n
    exactly_three = R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    decks = R[RULE.DECKS]
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])  # [A16]/[A17] escaleras
    mn = R[RULE.ESCALERA_MIN]
    if only >= 0 and only != JOKER:  # one rank, one suit: no masks of the whole hand
        n = _piernas_of(hand, rank_of(only), decks, limit, exactly_three, acts, n)
        s = suit_of(only)
        return _escaleras_of(acts, n, s, suit_positions(hand, s), J, mn, limit)
    masks = suit_masks(hand)
    ma, mb, mc, md = masks[0] & 0x3FFE, masks[1] & 0x3FFE, masks[2] & 0x3FFE, masks[3] & 0x3FFE
    ranks = (ma & mb & (mc | md)) | (mc & md & (ma | mb))  # three suits or more
    if not exactly_three:  # or three cards in two suits (a pair), or three copies of one card
        if decks <= 2:
            ranks |= ((ma & (mb | mc | md)) | (mb & (mc | md)) | (mc & md)) & masks[4]
        else:
            ranks = 0x3FFE
    if only == JOKER:  # a joker is in no pierna
        ranks = 0
    while ranks:  # [A15] piernas
        low = ranks & -ranks
        ranks ^= low
        n = _piernas_of(hand, bit_index(low), decks, limit, exactly_three, acts, n)
    lanes = int(masks[0]) | (int(masks[1]) << 16) | (int(masks[2]) << 32) | (int(masks[3]) << 48)
    esc = escalera_suits(lanes, J, mn)
    while esc:  # (the suits that may hold one, in order: no loop turn for the others)
        low = esc & -esc
        esc ^= low
        s = bit_index(low)
        n = _escaleras_of(acts, n, s, masks[s], J, mn, limit)
    return n


@kernel(inline="always")
def _piernas_of(hand, r, decks, limit, exactly_three, acts, n):
    """[A15] every pierna of rank ``r``: every choice of copies per suit."""
    h0 = min(hand[r - 1], decks)
    h1 = min(hand[13 + r - 1], decks)
    h2 = min(hand[26 + r - 1], decks)
    h3 = min(hand[39 + r - 1], decks)
    if h0 + h1 + h2 + h3 < 3:
        return n
    for c0 in range(h0 + 1):
        for c1 in range(h1 + 1):
            for c2 in range(h2 + 1):
                for c3 in range(h3 + 1):
                    k = c0 + c1 + c2 + c3
                    if k < 3 or k > limit:
                        continue
                    ns = (c0 > 0) + (c1 > 0) + (c2 > 0) + (c3 > 0)
                    if ns == 4 or (exactly_three and ns != 3):
                        continue
                    packed = c0 | (c1 << 2) | (c2 << 4) | (c3 << 6)
                    n = _emit(acts, n, PLAY.MELD, MELD.PIERNA, r, packed, 0, 0, k)
    return n


@kernel(inline="always")
def _escaleras_of(acts, n, s, m, J, mn, limit):
    """[A16]/[A17] every escalera of suit ``s`` (held positions ``m``) with ``J`` jokers at
    most: every window with two naturals or more, every placement of its jokers."""
    c = popcount(m & 0x3FFE)
    if c < 2 or c + J < mn or not has_window(m, J, mn):
        return n
    lo0, lo1 = lo_span(m, J)
    for lo in range(lo0, lo1 + 1):
        if not ((m >> lo) & 1) and J == 0:
            continue
        top = min(14, lo + 12, lo + limit - 1)
        for hi in range(lo + mn - 1, top + 1):
            wb = window_bits(lo, hi)
            held = m & wb
            nat = popcount(held)
            length = hi - lo + 1
            gaps = length - nat
            if gaps > J:  # longer windows from lo have as many gaps or more
                break
            if nat < 2:
                continue
            extra = min(J - gaps, nat - 2)
            n = _emit_escalera(acts, n, s, lo, hi, wb & ~m, held, extra, length)
    return n


@kernel(readonly=("hand",))
def largest_new_meld(hand, hand_n, R, row):
    """The new meld greedy's order (``greedy.best_play``: the most cards, then the highest top
    position, then the first) picks among :func:`gen_new_melds`' options, written into the
    option row ``row``, found without listing the options: the same loops, each meld's key
    compared instead of emitted (a meld's other joker placements come after it with the same
    key). Returns whether the hand has a new meld. ``tests/loba/test_largest_meld.py`` checks
    it against the list."""
    limit = hand_n - 1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else hand_n
    if limit < 3:
        return False
    exactly_three = R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    decks = R[RULE.DECKS]
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])
    mn = R[RULE.ESCALERA_MIN]
    masks = suit_masks(hand)
    ma, mb, mc, md = masks[0] & 0x3FFE, masks[1] & 0x3FFE, masks[2] & 0x3FFE, masks[3] & 0x3FFE
    ranks = (ma & mb & (mc | md)) | (mc & md & (ma | mb))
    if not exactly_three:
        if decks <= 2:
            ranks |= ((ma & (mb | mc | md)) | (mb & (mc | md)) | (mc & md)) & masks[4]
        else:
            ranks = 0x3FFE
    best_key = -1
    kind = 0
    key = 0
    lo_ = 0
    hi_ = 0
    jm_ = 0
    size = 0
    while ranks:  # [A15] piernas, as _piernas_of lists them
        low = ranks & -ranks
        ranks ^= low
        r = bit_index(low)
        # (int: as plain Python the int8 counts would wrap at 4 * 100; compiled they are int64)
        h0 = int(min(hand[r - 1], decks))
        h1 = int(min(hand[13 + r - 1], decks))
        h2 = int(min(hand[26 + r - 1], decks))
        h3 = int(min(hand[39 + r - 1], decks))
        if h0 + h1 + h2 + h3 < 3 or (h0 + h1 + h2 + h3) * 100 <= best_key:
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
    for s in range(4):  # [A16]/[A17] escaleras, as _escaleras_of lists them
        m = masks[s]
        c = popcount(m & 0x3FFE)
        if c < 2 or c + J < mn or not has_window(m, J, mn):
            continue
        lo0, lo1 = lo_span(m, J)
        for lo in range(lo0, lo1 + 1):
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
                if length * 100 + hi > best_key:
                    best_key = length * 100 + hi
                    kind = MELD.ESCALERA
                    key = s
                    lo_ = lo
                    hi_ = hi
                    jm_ = wb & ~m
                    size = length
    if best_key < 0:
        return False
    row[A.TYPE] = PLAY.MELD
    row[A.KIND] = kind
    row[A.KEY] = key
    row[A.LO] = lo_
    row[A.HI] = hi_
    row[A.JMASK] = jm_
    row[A.N] = size
    return True


@kernel(readonly=("hand",))
def meld_cover(hand, hand_n, R):
    """:func:`~sim.loba.greedy.cards_covered` of :func:`gen_new_melds`' options (bit c: some
    new meld puts a card of identity c down), found without listing them: the same loops,
    each meld's cards or'ed in (an escalera's other joker placements put down fewer naturals
    and a joker). ``tests/loba/test_largest_meld.py`` checks it against the list."""
    limit = hand_n - 1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else hand_n
    if limit < 3:
        return 0
    exactly_three = R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE
    decks = R[RULE.DECKS]
    J = min(hand[JOKER], R[RULE.JOKERS_PER_ESCALERA])
    mn = R[RULE.ESCALERA_MIN]
    masks = suit_masks(hand)
    ma, mb, mc, md = masks[0] & 0x3FFE, masks[1] & 0x3FFE, masks[2] & 0x3FFE, masks[3] & 0x3FFE
    ranks = (ma & mb & (mc | md)) | (mc & md & (ma | mb))
    if not exactly_three:
        if decks <= 2:
            ranks |= ((ma & (mb | mc | md)) | (mb & (mc | md)) | (mc & md)) & masks[4]
        else:
            ranks = 0x3FFE
    cover = 0
    while ranks:  # [A15] piernas, as _piernas_of lists them
        low = ranks & -ranks
        ranks ^= low
        r = bit_index(low)
        h0 = min(hand[r - 1], decks)
        h1 = min(hand[13 + r - 1], decks)
        h2 = min(hand[26 + r - 1], decks)
        h3 = min(hand[39 + r - 1], decks)
        if h0 + h1 + h2 + h3 < 3:
            continue
        for c0 in range(h0 + 1):
            for c1 in range(h1 + 1):
                for c2 in range(h2 + 1):
                    for c3 in range(h3 + 1):
                        k = c0 + c1 + c2 + c3
                        if k < 3 or k > limit:
                            continue
                        ns = (c0 > 0) + (c1 > 0) + (c2 > 0) + (c3 > 0)
                        if ns == 4 or (exactly_three and ns != 3):
                            continue
                        b = int(c0 > 0) | (int(c1 > 0) << 13) | (int(c2 > 0) << 26)
                        cover |= (b | (int(c3 > 0) << 39)) << (r - 1)
    for s in range(4):  # [A16]/[A17] escaleras, as _escaleras_of lists them
        m = masks[s]
        c = popcount(m & 0x3FFE)
        if c < 2 or c + J < mn or not has_window(m, J, mn):
            continue
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
                cover |= (((held >> 1) & 0x1FFF) | ((held >> 14) & 1)) << (13 * s)
                if gaps > 0 or min(J - gaps, nat - 2) > 0:
                    cover |= 1 << JOKER
    return cover


@kernel(readonly=("hand", "melds"))
def layoff_cover(hand, hand_n, melds, nm, R):
    """:func:`~sim.loba.greedy.cards_covered` of :func:`gen_layoffs`' options (bit c: some
    lay-off puts a card of identity c down), found without listing them."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and hand_n <= 1:
        return 0
    cover = 0
    for i in range(nm):
        if melds[i, M.KIND] == MELD.PIERNA:
            r = int(melds[i, M.KEY])
            for s in range(4):
                cid = s * 13 + r - 1
                if hand[cid] > 0 and pierna_accepts(melds[i], s, R):
                    cover |= 1 << cid
            continue
        s = int(melds[i, M.KEY])
        lo = int(melds[i, M.LO])
        hi = int(melds[i, M.HI])
        jm = int(melds[i, M.JMASK])
        if hi - lo + 1 >= 13:
            continue
        if lo > 1 and hand[pos_card(lo - 1, s)] > 0:
            cover |= 1 << pos_card(lo - 1, s)
        if hi < 14 and hand[pos_card(hi + 1, s)] > 0:
            cover |= 1 << pos_card(hi + 1, s)
        if R[RULE.JOKER_END_MOVE] == 1:
            if (jm >> lo) & 1 and hi < 14 and hand[pos_card(lo, s)] > 0:
                cover |= 1 << pos_card(lo, s)
            if (jm >> hi) & 1 and lo > 1 and hand[pos_card(hi, s)] > 0:
                cover |= 1 << pos_card(hi, s)
        if hand[JOKER] > 0 and popcount(jm) < R[RULE.JOKERS_PER_ESCALERA]:
            if lo > 1 or hi < 14:
                cover |= 1 << JOKER
    return cover


@kernel(readonly=("pub",))
def rules_into(pub, R):
    """:func:`view_rules` into ``R`` (scratch of ``RULE.SIZE``), allocating nothing."""
    for i in range(RULE.SIZE):
        R[i] = pub[PUB.RULES + i]
    return R


@jit(readonly=("pub",))
def view_rules(pub):
    """The rule array (``RULE.*``) a decision's public view carries at ``PUB.RULES``, as the
    engine's own ``int64[RULE.SIZE]`` (for the move generators a policy calls)."""
    R = np.empty(RULE.SIZE, dtype=np.int64)
    for i in range(RULE.SIZE):
        R[i] = pub[PUB.RULES + i]
    return R


@kernel
def options_bound(R):
    """Most play options one decision can have under rules ``R``, whatever the hand: every
    escalera window of every suit with every joker placement, every pierna, and up to six
    lay-offs per table meld. Sizes the option buffer (state.new_bufs)."""
    J = min(R[RULE.JOKERS], R[RULE.JOKERS_PER_ESCALERA])
    d = R[RULE.DECKS]
    esc = 0
    for length in range(R[RULE.ESCALERA_MIN], 14):
        ways = 0
        comb = 1  # C(length, j)
        for j in range(min(J, length - 2) + 1):
            ways += comb
            comb = comb * (length - j) // (j + 1)
        esc += (15 - length) * ways
    if R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE:
        pierna = 4 * d * d * d
    else:
        pierna = 4 * d + 6 * d * d + 4 * d * d * d
    return 4 * esc + 13 * pierna + MAX_MELDS * 6


@kernel(readonly=("meld",))
def pierna_accepts(meld, s, R):
    """[A21] may a card of suit ``s`` (and the pierna's rank) be laid off on this pierna?"""
    c = meld[M.C0 + s]
    if c >= R[RULE.DECKS]:
        return False
    if c > 0:
        return True
    if R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE:
        return False
    ns = 0
    for t in range(4):
        if meld[M.C0 + t] > 0:
            ns += 1
    return ns < 3


@kernel(readonly=("hand", "melds"))
def gen_layoffs(hand, hand_n, melds, nm, R, acts, n):
    """Append every single-card lay-off the hand can make ([A21], [A22]); returns the count."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and hand_n <= 1:
        return n
    for i in range(nm):
        n = _layoffs_on(hand, melds, i, R, acts, n)
    return n


@kernel(readonly=("hand", "melds", "wants"))
def gen_layoffs_wanted(hand, hand_n, melds, nm, R, acts, n, wants, held):
    """:func:`gen_layoffs`, looking only at the melds ``i`` that take a card the hand holds
    (``wants[i] & held``: ``wants[i]`` the cards meld i takes, options.meld_wants, and ``held``
    the cards held): the same rows in the same order."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and hand_n <= 1:
        return n
    for i in range(nm):
        if wants[i] & held:
            n = _layoffs_on(hand, melds, i, R, acts, n)
    return n


@kernel(inline="always")
def _layoff_row(row, i, cid, p, newp):
    row[A.TYPE] = PLAY.LAYOFF
    row[A.KIND] = i
    row[A.KEY] = cid
    row[A.LO] = p
    row[A.HI] = newp
    row[A.JMASK] = 0
    row[A.N] = 1
    return True


@kernel(readonly=("hand", "melds"))
def best_layoff(hand, hand_n, melds, nm, R, row):
    """The lay-off greedy's order (``greedy.best_play``: a natural before a joker, then the
    first) picks among :func:`gen_layoffs`' options, written into ``row``, found without
    listing them: the first natural lay-off in their order, else the first joker one.
    Returns whether the hand has a lay-off. ``tests/loba/test_largest_meld.py`` checks it
    against the list."""
    if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 and hand_n <= 1:
        return False
    jm_i = -1  # the first joker lay-off: its meld and position
    jm_p = 0
    for i in range(nm):
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
def _layoffs_on(hand, melds, i, R, acts, n):
    """The lay-offs of the hand onto table meld ``i``, appended to ``acts[:n]``."""
    if melds[i, M.KIND] == MELD.PIERNA:
        r = int(melds[i, M.KEY])
        for s in range(4):
            cid = s * 13 + r - 1
            if hand[cid] > 0 and pierna_accepts(melds[i], s, R):
                n = _emit(acts, n, PLAY.LAYOFF, i, cid, -1, 0, 0, 1)
        return n
    s = int(melds[i, M.KEY])
    lo = int(melds[i, M.LO])
    hi = int(melds[i, M.HI])
    jm = int(melds[i, M.JMASK])
    if hi - lo + 1 >= 13:
        return n
    if lo > 1:
        cid = pos_card(lo - 1, s)
        if hand[cid] > 0:
            n = _emit(acts, n, PLAY.LAYOFF, i, cid, lo - 1, 0, 0, 1)
    if hi < 14:
        cid = pos_card(hi + 1, s)
        if hand[cid] > 0:
            n = _emit(acts, n, PLAY.LAYOFF, i, cid, hi + 1, 0, 0, 1)
    if R[RULE.JOKER_END_MOVE] == 1:  # [A22] the natural of an end joker sends it to the other end
        if (jm >> lo) & 1 and hi < 14:
            cid = pos_card(lo, s)
            if hand[cid] > 0:
                n = _emit(acts, n, PLAY.LAYOFF, i, cid, lo, hi + 1, 0, 1)
        if (jm >> hi) & 1 and lo > 1:
            cid = pos_card(hi, s)
            if hand[cid] > 0:
                n = _emit(acts, n, PLAY.LAYOFF, i, cid, hi, lo - 1, 0, 1)
    if hand[JOKER] > 0 and popcount(jm) < R[RULE.JOKERS_PER_ESCALERA]:  # [A21] a new end
        if lo > 1:
            n = _emit(acts, n, PLAY.LAYOFF, i, JOKER, lo - 1, 0, 0, 1)
        if hi < 14:
            n = _emit(acts, n, PLAY.LAYOFF, i, JOKER, hi + 1, 0, 0, 1)
    return n


@kernel(readonly=("act",))
def apply_play(hand, melds, nm, act, seat):
    """Carry out one play row; returns the new meld count. The play must be legal."""
    if act[A.TYPE] == PLAY.MELD:
        if nm >= MAX_MELDS:
            return nm
        row = melds[nm]
        for c in range(M.OWNER + 1):
            row[c] = 0
        row[M.KIND] = act[A.KIND]
        row[M.KEY] = act[A.KEY]
        row[M.OWNER] = seat
        if act[A.KIND] == MELD.PIERNA:
            r = int(act[A.KEY])
            k = 0
            for s in range(4):
                take = pierna_count(act[A.LO], s)
                row[M.C0 + s] = take
                k += take
                hand[s * 13 + r - 1] -= take
            row[M.N] = k
        else:
            s = int(act[A.KEY])
            lo = int(act[A.LO])
            hi = int(act[A.HI])
            jm = int(act[A.JMASK])
            for p in range(lo, hi + 1):
                if (jm >> p) & 1:
                    hand[JOKER] -= 1
                else:
                    hand[pos_card(p, s)] -= 1
            row[M.LO] = lo
            row[M.HI] = hi
            row[M.JMASK] = jm
            row[M.N] = hi - lo + 1
        return nm + 1
    i = int(act[A.KIND])
    cid = int(act[A.KEY])
    hand[cid] -= 1
    row = melds[i]
    row[M.N] += 1
    if row[M.KIND] == MELD.PIERNA:
        row[M.C0 + suit_of(cid)] += 1
        return nm
    p = int(act[A.LO])
    newp = int(act[A.HI])
    if newp > 0:  # [A22] joker jumps from p to newp, the natural takes p
        row[M.JMASK] = (row[M.JMASK] & ~(1 << p)) | (1 << newp)
        p = newp
    elif cid == JOKER:
        row[M.JMASK] |= 1 << p
    if p < row[M.LO]:
        row[M.LO] = p
    if p > row[M.HI]:
        row[M.HI] = p
    return nm


@kernel
def consumes(act, hand, c):
    """Does this play put a card of identity ``c`` on the table?"""
    if act[A.TYPE] == PLAY.LAYOFF:
        return act[A.KEY] == c
    if c == JOKER:
        return act[A.KIND] == MELD.ESCALERA and act[A.JMASK] != 0
    r = rank_of(c)
    s = suit_of(c)
    if act[A.KIND] == MELD.PIERNA:
        return act[A.KEY] == r and pierna_count(act[A.LO], s) > 0
    if act[A.KEY] != s:
        return False
    lo = int(act[A.LO])
    hi = int(act[A.HI])
    jm = int(act[A.JMASK])
    if r == 1:
        return (lo <= 1 and not (jm >> 1) & 1) or (hi >= 14 and not (jm >> 14) & 1)
    return lo <= r <= hi and not (jm >> r) & 1


@kernel
def hand_value(hand, ace_value, joker_value):
    """[A3] penalty value of the cards in a hand."""
    v = 0
    for s in range(4):
        b = s * 13
        v += hand[b] * ace_value
        for r in range(2, 14):
            v += hand[b + r - 1] * min(r, 10)
    return v + hand[JOKER] * joker_value


def list_plays(hand, melds, melded, R) -> np.ndarray:
    """Every legal play (rows ``A.*``) for a hand of 53 counts, the table ``melds`` (its rows
    in use) and ``melded`` (the seat may lay off, [A20]): new melds first, then lay-offs.
    The Python face of :func:`gen_new_melds` / :func:`gen_layoffs`."""
    R = np.asarray(R, dtype=np.int64)
    h = np.zeros(HAND_W, dtype=np.int8)
    h[: len(hand)] = hand
    nm = len(melds)
    table = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    table[:nm] = melds
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    hn = int(h.sum())
    n = gen_new_melds(h, hn, R, acts, 0)
    if melded:
        n = gen_layoffs(h, hn, table, nm, R, acts, n)
    return acts[:n].copy()


@kernel
def copy_rows(src, dst, n):
    """dst[:n] = src[:n] for 1-D arrays, without a temporary (no allocation)."""
    for i in range(n):
        dst[i] = src[i]


@kernel(readonly=("src",))
def copy_rows2(src, dst, n):
    """dst[:n, :] = src[:n, :] for 2-D arrays, without a temporary (no allocation)."""
    for i in range(n):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]

"""The discard-take rule of Loba de Menos ([A11]/[A12]) as compiled array code.

A seat may take the top discard ``c`` exactly when some legal sequence of this turn's plays puts
a card of identity ``c`` on the table (identical cards are interchangeable), and while it still
holds it, every play it makes must leave such a sequence open. :func:`can_place` decides that
for a hand that holds ``c``. It is exact, not a heuristic; the reasoning (checked against a
brute-force search over play sequences in ``tests/loba/test_take_rule.py``):

* **A new meld with c.** Any meld built this turn from hand cards, laid off onto or not, ends as
  a legal meld of hand cards, and every legal meld can be put down directly ([A9]; a joker may
  stand on any position). So "c ends in a meld made this turn" is "some meld from the hand holds
  c", and the smallest one decides whether it fits in the cards the turn may use.
* **A lay-off of c onto a table pierna** works iff it works now: lay-offs only add copies and
  suits, which never makes a pierna accept a card it refused.
* **A lay-off of c onto a table escalera** may need other lay-offs first on that same escalera
  (naturals and jokers extending it toward c, [A22] joker jumps that move an end joker to the
  other end). Lay-offs elsewhere never help. :func:`chain_reaches` searches those sequences: the
  escalera's state (lo, hi, joker positions) fixes which hand cards it has used, so a
  breadth-first search over states is exact.
* **A joker** (c = the joker) goes as a new end onto any escalera with a free joker slot and
  fewer than 13 cards; extending it first never helps.
* **[A20]**: lay-offs need a meld of one's own this round, possibly put down earlier this turn.
  When the seat has none, one of its melds not holding c must go first, and the cards it uses
  are not available to the chain: :func:`can_place` tries each.
* **[A26]** ``go_out_needs_discard``: the plays may not empty the hand, so the cards the turn
  may put down are one fewer than the hand holds.
"""

from __future__ import annotations

from ..jit import kernel
from .cards import rank_of, suit_of
from .layout import HAND_W, JOKER, MELD, PLAY, A, M
from .moves import (
    consumes,
    gen_new_melds,
    has_window,
    pierna_accepts,
    pierna_count,
    popcount,
    pos_card,
    suit_positions,
    window_bits,
)
from .rules import PIERNA, RULE, TAKE

NO_MELD = 99  # "no meld holds the card" (larger than any hand the knobs allow)


@kernel
def smallest_meld_with(hand, c, R):
    """Fewest cards of a new meld from ``hand`` (which holds ``c``) that holds identity ``c``
    ([A15]-[A17]); :data:`NO_MELD` if there is none."""
    decks = R[RULE.DECKS]
    jpe = R[RULE.JOKERS_PER_ESCALERA]
    mn = R[RULE.ESCALERA_MIN]
    J = min(hand[JOKER], jpe)
    best = NO_MELD
    if c == JOKER:  # an escalera holding at least one joker
        if J == 0:
            return best
        for s in range(4):
            m = suit_positions(hand, s)
            for lo in range(1, 15):
                for hi in range(lo + mn - 1, min(14, lo + 12) + 1):
                    length = hi - lo + 1
                    if length >= best:
                        break
                    gaps = length - popcount(m & window_bits(lo, hi))
                    used = max(gaps, 1)
                    if used > J:
                        break
                    if length - used >= 2:
                        best = length
                        break
        return best
    r = rank_of(c)
    s = suit_of(c)
    others = 0
    spare = min(hand[c], decks) - 1  # other copies of c itself that may join it
    for t in range(4):
        k = hand[t * 13 + r - 1]
        if t != s and k > 0:
            others += 1
            spare += min(k, decks)
    if R[RULE.PIERNA_SUITS] == PIERNA.EXACTLY_THREE:
        if others >= 2:
            return 3
    elif spare >= 2:
        return 3
    m = suit_positions(hand, s)
    if not has_window(m, J, mn):
        return best
    for k in range(2 if r == 1 else 1):
        p = 14 if (r == 1 and k == 1) else r
        for lo in range(max(1, p - 12), p + 1):
            for hi in range(max(p, lo + mn - 1), min(14, lo + 12) + 1):
                length = hi - lo + 1
                if length >= best:
                    break
                nat = popcount(m & window_bits(lo, hi))
                if length - nat > J:
                    break
                if nat >= 2:
                    best = length
                    break
    return best


@kernel
def search_bound(R):
    """Most escalera states :func:`chain_reaches` can visit: (lo, hi) windows times the ways
    to place the jokers an escalera may hold. Sizes its queue (state.new_bufs)."""
    J = min(R[RULE.JOKERS_PER_ESCALERA], R[RULE.JOKERS])
    ways = 0
    comb = 1  # C(14, j)
    for j in range(J + 1):
        ways += comb
        comb = comb * (14 - j) // (j + 1)
    return 105 * ways


@kernel
def _slot(seen, key):
    """The slot of ``key`` in the open-addressing set ``seen`` (-1 = empty), or the empty
    slot where it belongs."""
    mask = seen.shape[0] - 1
    h = (key * 0x9E3779B1) & mask
    while seen[h] != -1 and seen[h] != key:
        h = (h + 1) & mask
    return h


@kernel
def chain_reaches(hand, meld, R, c, budget, seen, queue):
    """Can lay-offs from ``hand`` onto the escalera ``meld`` (an M row) end with a lay-off of
    the natural ``c``, using at most ``budget`` cards (c included)? ([A21], [A22])

    Breadth-first over the escalera's states (lo, hi, joker positions); a state fixes the hand
    cards it has used (the naturals it holds beyond the original ones, its extra jokers), so
    states are visited once. Moves: a natural or a joker at either end, and the [A22] jump (the
    natural of an end joker sends it to the other end). ``seen`` (all -1, a power of two at
    least twice :func:`search_bound`) and ``queue`` (:func:`search_bound` long) are scratch;
    ``seen`` is all -1 again on return.
    """
    s = int(meld[M.KEY])
    jpe = R[RULE.JOKERS_PER_ESCALERA]
    move = R[RULE.JOKER_END_MOVE] == 1
    lo0 = int(meld[M.LO])
    hi0 = int(meld[M.HI])
    jm0 = int(meld[M.JMASK])
    len0 = hi0 - lo0 + 1
    orig_nat = window_bits(lo0, hi0) & ~jm0
    j0 = popcount(jm0)
    hand_j = hand[JOKER]
    if len0 >= 13 or budget < 1:
        return False
    # most calls end here: no first lay-off (natural or joker at an end, or a jump) exists
    first = hand_j > 0 and j0 < jpe
    if hi0 < 14:
        first = first or hand[pos_card(hi0 + 1, s)] > 0
    if lo0 > 1:
        first = first or hand[pos_card(lo0 - 1, s)] > 0
    if move and lo0 > 1 and (jm0 >> hi0) & 1:
        first = first or hand[pos_card(hi0, s)] > 0
    if move and hi0 < 14 and (jm0 >> lo0) & 1:
        first = first or hand[pos_card(lo0, s)] > 0
    if not first:
        return False
    start = lo0 | (hi0 << 4) | (jm0 << 8)
    seen[_slot(seen, start)] = start
    queue[0] = start
    head = 0
    tail = 1
    found = False
    while head < tail and not found:
        key = queue[head]
        head += 1
        lo = key & 15
        hi = (key >> 4) & 15
        jm = key >> 8
        length = hi - lo + 1
        placed = length - len0  # cards laid off so far
        if length >= 13 or placed + 1 > budget:
            continue
        used = (window_bits(lo, hi) & ~jm) & ~orig_nat  # naturals laid off so far
        jokers_left = hand_j - (popcount(jm) - j0)
        for k in range(6):
            # k: 0/1 natural at the high/low end, 2/3 joker at the high/low end,
            #    4/5 the natural of the high/low end joker (it jumps to the other end)
            if k == 0 or k == 2:
                if hi == 14:
                    continue
                p = hi + 1
            elif k == 1 or k == 3:
                if lo == 1:
                    continue
                p = lo - 1
            elif k == 4:
                if not move or not (jm >> hi) & 1 or lo == 1:
                    continue
                p = hi
            else:
                if not move or not (jm >> lo) & 1 or hi == 14:
                    continue
                p = lo
            if k == 2 or k == 3:
                if jokers_left <= 0 or popcount(jm) >= jpe:
                    continue
                nlo = min(lo, p)
                nhi = max(hi, p)
                njm = jm | (1 << p)
            else:
                cid = pos_card(p, s)
                if hand[cid] == 0 or (used >> p) & 1:
                    continue
                if cid == c:
                    found = True
                    break
                if k < 2:
                    nlo = min(lo, p)
                    nhi = max(hi, p)
                    njm = jm
                elif k == 4:
                    nlo = lo - 1
                    nhi = hi
                    njm = (jm & ~(1 << hi)) | (1 << (lo - 1))
                else:
                    nlo = lo
                    nhi = hi + 1
                    njm = (jm & ~(1 << lo)) | (1 << (hi + 1))
            nkey = nlo | (nhi << 4) | (njm << 8)
            h = _slot(seen, nkey)
            if seen[h] == nkey:
                continue
            seen[h] = nkey
            queue[tail] = nkey
            tail += 1
    # leave the set empty for the next search: newest first, so that every key still in the
    # set when it is looked up has the probe chain it was inserted with (linear probing)
    for i in range(tail - 1, -1, -1):
        seen[_slot(seen, queue[i])] = -1
    return found


@kernel
def layoff_reaches(hand, melds, nm, R, c, budget, seen, queue):
    """Can ``c`` be laid off onto some table meld this turn, with lay-offs only (at most
    ``budget`` cards, c included)? The seat may lay off. ``seen``, ``queue``: the scratch of
    :func:`chain_reaches`."""
    if budget < 1:
        return False
    if c == JOKER:
        jpe = R[RULE.JOKERS_PER_ESCALERA]
        for i in range(nm):
            if melds[i, M.KIND] == MELD.ESCALERA and popcount(melds[i, M.JMASK]) < jpe:
                if melds[i, M.HI] - melds[i, M.LO] + 1 < 13:
                    return True
        return False
    r = rank_of(c)
    s = suit_of(c)
    for i in range(nm):
        if melds[i, M.KIND] == MELD.PIERNA:
            if melds[i, M.KEY] == r and pierna_accepts(melds[i], s, R):
                return True
        elif melds[i, M.KEY] == s and chain_reaches(hand, melds[i], R, c, budget, seen, queue):
            return True
    return False


@kernel
def meld_cards_out(hand, act):
    """Take the cards of the new-meld option ``act`` out of ``hand``."""
    if act[A.KIND] == MELD.PIERNA:
        r = int(act[A.KEY])
        for s in range(4):
            hand[s * 13 + r - 1] -= pierna_count(act[A.LO], s)
        return
    s = int(act[A.KEY])
    jm = int(act[A.JMASK])
    for p in range(int(act[A.LO]), int(act[A.HI]) + 1):
        if (jm >> p) & 1:
            hand[JOKER] -= 1
        else:
            hand[pos_card(p, s)] -= 1


@kernel
def can_place(hand, hand_n, melds, nm, may_lay, R, c, plan, rest, seen, queue):
    """[A11]/[A12] Can some legal sequence of plays from here put a card of identity ``c``
    (held in ``hand``) on the table this turn? ``may_lay``: the seat may lay off now ([A20]);
    ``plan``, ``rest``, ``seen`` and ``queue`` (the arrays of that name of a
    :class:`~sim.loba.layout.Scratch`) are used as scratch (the four of them, not the whole
    scratch: a call passes every field of its arrays, measured in docs/performance.md)."""
    if hand[c] == 0:  # no copy left to put down (under new_meld_only a lay-off of c is no
        return False  # placing: the taken card laid off is then lost for a new meld)
    budget = hand_n - (1 if R[RULE.GO_OUT_NEEDS_DISCARD] == 1 else 0)  # [A26]
    if smallest_meld_with(hand, c, R) <= budget:
        return True
    if R[RULE.DISCARD_TAKE] == TAKE.NEW_MELD_ONLY or budget < 1:
        return False
    if may_lay:
        return layoff_reaches(hand, melds, nm, R, c, budget, seen, queue)
    # [A20] a meld of one's own first (one without c: a meld with c is the case above)
    if budget < 4 or not layoff_reaches(hand, melds, nm, R, c, budget - 3, seen, queue):
        return False
    opts = plan
    n = gen_new_melds(hand, hand_n, R, opts, 0)
    for i in range(min(n, opts.shape[0])):
        k = opts[i, A.N]
        if k + 1 > budget or consumes(opts[i], hand, c):
            continue
        for j in range(HAND_W):
            rest[j] = hand[j]
        meld_cards_out(rest, opts[i])
        if layoff_reaches(rest, melds, nm, R, c, budget - k, seen, queue):
            return True
    return False


@kernel
def places(act, hand, c, R):
    """Does the play ``act`` satisfy the take of ``c`` ([A11]: under ``new_meld_only`` only a
    new meld does)?"""
    if R[RULE.DISCARD_TAKE] == TAKE.NEW_MELD_ONLY and act[A.TYPE] != PLAY.MELD:
        return False
    return consumes(act, hand, c)

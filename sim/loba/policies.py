"""Built-in policies (DESIGN.md "Policies") and rebuy rules, written against the plug-in API.

* ``random``  uniform among the legal options at every decision (plays include "stop").
* ``greedy``  takes the discard whenever it may, plays everything it can as soon as it can
  (largest meld first; the high end for an ambiguous joker, [A18]) — but when some first play
  followed by largest-first play empties its hand (or leaves one card to discard), it plays
  that one: it goes out whenever such an ordering exists; discards its most costly useless card.
* ``hold``    keeps its melds in hand until it can go out in one turn (for the [A28] bonus), and
  takes the discard when that lets it go out at once; unless an opponent holds ``patience``
  cards or fewer, or it has already put cards down this round; then it plays like ``greedy``.
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
* ``smart``   ``careful``'s discard (dead cards counted with ``known_copies``, a card kept only
  while it can still complete a meld, no lay-off fed to the next player, the next player's
  discards read from ``hist`` into ``mem``: ``danger``, ``safe``, ``keep``), plus four things.
  It holds its melds for the one-turn bonus ([A28], as ``hold``) while nothing of its own is on
  the table, every opponent holds more than ``patience`` cards and at most ``reach`` cards of
  its hand are loose (no play puts them down): then it stops without playing unless some
  ordering goes out at once. It takes the discard whenever the engine offers it (the card then
  goes onto the table, [A11]/[A12], so it always advances a meld), except while holding with at
  most ``grab`` loose cards before the draw, when it takes it only to go out at once and else
  draws from the stock. When it plays, it plays the option after which playing largest-first
  leaves the fewest cards in hand, then the fewest points (``greedy``: the largest meld). And
  when an opponent holds ``close`` cards or fewer, each penalty point weighs ``1 + dump`` in
  its discard key.

* ``mc``      search (:mod:`sim.loba.search`): at the draw, at every play decision
  (which play, or stop) and at the discard it samples ``n`` hidden worlds from its own view and
  history (the unseen cards dealt to the opponents' hand sizes and the stock; a card an
  opponent visibly took from the discard pile and still holds stays in that hand), plays each
  of at most ``width`` candidates out to the end of the round in every world (the same worlds
  for every candidate: common random numbers), opponents by ``greedy`` and itself by its fast
  policy (``play`` 1: ``smart``, 0: ``greedy``), and keeps the fast policy's own choice unless a
  candidate's mean value beats it by more than ``z`` standard errors of the paired gain (the
  value: ``opp`` times the opponents' mean penalty of the round minus its own). Rebuys stay
  with the seat's rebuy rule. Cost and strength: docs/performance.md ("The search policy mc").

Rebuy rules: ``always``, ``never``, ``if_opponents:k=K`` (rebuy only while at least K other
players are still under the limit), ``table:PATH`` (rebuy where a state-level rebuy-value table
says the value is positive, else decline; cells it lacks rebuy: :mod:`sim.loba.rebuy_table`).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..jit import DISABLED, jit, kernel
from ..policies.api import AddOnRule, Policy, addon_slot, decision
from ..rng import below
from .cards import rank_of, suit_of
from .greedy import (
    array_type,
    best_discard,
    best_play,
    card_cost,
    cards_covered,
    discard_choice,
    draw_choice,
    going_out,
    loose_cards,
    may_go_out,
    option_out,
    out_or_largest,
    play_choice,
)
from .layout import (
    BUILTIN,
    DRAW,
    HAND_W,
    HT,
    JOKER,
    MAX_MELDS,
    MAX_SEATS,
    MELD,
    N_IDS,
    PLAY,
    PUB,
    ST,
    A,
    H,
    M,
    SeatFns,
)
from .moves import (
    gen_layoffs,
    gen_new_melds,
    hand_value,
    options_bound,
    pos_card,
    view_rules,
)
from .rebuy_table import PARAM_NAMES, load_table, rebuy_cell, table_says_rebuy
from .rules import PIERNA, RULE, TAKE
from .search import F_SELF, forced, mc_choose

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


@decision
def greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return draw_choice(hand, melds, pub, acts, n)


@decision
def greedy_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return play_choice(hand, melds, pub, acts, n)


@decision
def greedy_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return discard_choice(hand, melds, pub, acts, n)


# ---------------------------------------------------------------- hold


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
    return going_out(h[:N_IDS], melds, pub, opts, n, top)[0] >= 0


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


@kernel
def careful_pick(hand, melds, pile, pub, params, acts, n, hist, mem, weight):
    """careful's discard (below) with each penalty point weighing ``weight`` (smart's hurry);
    ``params[0:3]`` = danger, safe, keep."""
    ranks = careful_scan(hist, pub, mem)
    q = next_active_seat(pub)
    v1, v2, v3 = known_copies(hand, melds, pile)
    feeds = may_take_to_lay_off(melds, pub, q)
    best = 0
    key = -(1 << 40)
    for i in range(n):
        c = int(acts[i, 0])
        if c == JOKER:
            k = -1000 * 64
        else:
            r = rank_of(c)
            v = pub[PUB.RULES + RULE.ACE_VALUE] if r == 1 else min(r, 10)
            cost = weight * v - 4 * live_help(c, hand, pub, v1, v2, v3)
            cost = careful_terms(cost, c, melds, pub, feeds, ranks, params[0], params[1], params[2])
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


# ---------------------------------------------------------------- smart

# smart's parameter slots, in the order of its ``params``
S_DANGER, S_SAFE, S_KEEP, S_PATIENCE, S_REACH, S_GRAB, S_CLOSE, S_DUMP = range(8)

# (hand, melds, pub) as a decision function hands them over (read-only)
_VIEW = (
    array_type(types.int8, 1, True),
    array_type(types.int16, 2, True),
    array_type(types.int32, 1, True),
)


@kernel
def fewest_opponent_cards(pub):
    """The fewest cards any other active player holds (a large number when none is left)."""
    me = pub[PUB.SEAT]
    m = 1 << 20
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE and pub[PUB.HAND_N + q] < m:
            m = pub[PUB.HAND_N + q]
    return m


@jit(types.int64(*_VIEW))
def loose_in_hand(hand, melds, pub):
    """Cards of the hand that no play open to the seat now puts down (new melds, and lay-offs
    once it may lay off, [A20]): what it still lacks to go out in one turn."""
    R = view_rules(pub)
    h = np.zeros(HAND_W, dtype=np.int8)
    hn = 0
    for i in range(N_IDS):
        h[i] = hand[i]
        hn += hand[i]
    opts = np.empty((options_bound(R), A.SIZE), dtype=np.int16)
    n = gen_new_melds(h, hn, R, opts, 0)
    if pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
        n = gen_layoffs(h, hn, melds, pub[PUB.NMELDS], R, opts, n)
    return loose_cards(hand, cards_covered(opts, n))


@jit(types.int64(*_VIEW, array_type(types.int16, 2, True), types.int64))
def fewest_left(hand, melds, pub, acts, n):
    """The option after which playing largest-first leaves the fewest cards in hand, then the
    fewest penalty points ([A3]); ties: greedy's order (largest meld, high end). Going out, when
    some ordering does, leaves the fewest cards of all."""
    R = view_rules(pub)
    nm = pub[PUB.NMELDS]
    seat = pub[PUB.SEAT]
    h = np.zeros(HAND_W, dtype=np.int8)
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    opts = np.empty((options_bound(R), A.SIZE), dtype=np.int16)
    ms = np.empty((MAX_MELDS, M.SIZE), dtype=np.int16)
    best = -1
    best_key = np.int64(1) << 62
    for i in range(n):
        left = option_out(hand, melds, nm, R, melded, seat, acts[i], h, ms, opts)
        points = hand_value(h, R[RULE.ACE_VALUE], R[RULE.JOKER_VALUE])
        g = acts[i, A.N] * 100 + acts[i, A.HI] if acts[i, A.TYPE] == PLAY.MELD else 0
        key = (np.int64(left) * 100000 + points) * 10000 - g
        if key < best_key:
            best_key = key
            best = i
    return best


@kernel
def smart_holding(pub, params):
    """Still playing for the one-turn bonus ([A28]): nothing of the seat's on the table this
    round, and every opponent holds more than ``patience`` cards."""
    return pub[PUB.PLACED] == 0 and fewest_opponent_cards(pub) > params[S_PATIENCE]


@kernel(readonly=("hand", "melds", "pile", "pub", "params", "acts"))
def smart_take(hand, melds, pile, pub, params, acts, n):
    """smart's draw (below)."""
    stock = 0
    take = -1
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            take = i
        else:
            stock = i
    if take < 0:
        return stock
    if not smart_holding(pub, params) or loose_in_hand(hand, melds, pub) > params[S_GRAB]:
        return take
    return take if take_goes_out(hand, melds, pile, pub) else stock


@kernel(readonly=("hand", "melds", "pub", "params", "acts"))
def smart_next(hand, melds, pub, params, acts, n):
    """smart's play (below)."""
    if pub[PUB.TAKEN] < 0 and smart_holding(pub, params):
        if loose_cards(hand, cards_covered(acts, n)) <= params[S_REACH]:
            if may_go_out(hand, melds, pub, acts, n):
                k = going_out(hand, melds, pub, acts, n, -1)[0]
                if k >= 0:
                    return k
            return -1
    if n >= 2:
        return fewest_left(hand, melds, pub, acts, n)
    return best_play(acts, n)


@kernel(readonly=("hand", "melds", "pile", "pub", "params", "acts", "hist"))
def smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem):
    """smart's discard (below)."""
    weight = 1.0
    if fewest_opponent_cards(pub) <= params[S_CLOSE]:
        weight += params[S_DUMP]
    return careful_pick(hand, melds, pile, pub, params, acts, n, hist, mem, weight)


@decision
def smart_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """The discard when it is offered (so it goes onto the table this turn, [A11]/[A12]),
    unless the seat holds for the bonus and is close to it (at most ``grab`` cards its melds
    do not use): then only when it goes out at once."""
    return smart_take(hand, melds, pile, pub, params, acts, n)


@decision
def smart_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """Holding for the bonus with at most ``reach`` cards no play puts down: go out if some
    ordering does, else stop. Otherwise play everything, each time the play after which
    largest-first leaves the fewest cards (then points) in hand."""
    return smart_next(hand, melds, pub, params, acts, n)


@decision
def smart_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """careful's discard (``danger``, ``safe``, ``keep``), in a hurry when an opponent holds
    ``close`` cards or fewer: each penalty point then weighs ``1 + dump``."""
    return smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem)


# ---------------------------------------------------------------- mc (search)

# mc's parameter slots: worlds sampled per decision, candidates searched at most, the standard
# errors a candidate must gain over the fast policy's choice, the weight of the opponents'
# penalty in the value, and its fast policy (0 greedy, 1 smart: its own play in the playouts)
MC_WORLDS, MC_WIDTH, MC_Z, MC_OPP, MC_PLAY = 0, 1, 2, 3, 4
SMART_PARAMS = np.array(
    [6.0, 2.0, 6.0, 3.0, 6.0, 3.0, 2.0, 2.0], dtype=np.float64
)  # smart's defaults (checked against its Policy below)


@kernel
def po_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer (search.forced) once, then greedy's draw (smart's for
    the mc seat with play=smart)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_take(hand, melds, pile, pub, params, acts, n)
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            return i
    return 0


@kernel
def po_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer once, then greedy's play (or smart's)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_next(hand, melds, pub, params, acts, n)
    return out_or_largest(hand, melds, pub, acts, n)


@kernel
def po_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer once, then greedy's discard (or smart's)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem)
    return best_discard(hand, pub, acts, n)


@intrinsic
def playout_fns(typingctx):
    """The playout's :class:`~sim.loba.layout.SeatFns`: the po_* functions at every seat.
    Typed as tuples of the functions themselves, so the engine calls them directly; the value
    is a placeholder the calls never read. (A tuple of the functions built in compiled code
    would hold their run-time addresses, which Numba cannot cache: mc would compile again in
    every process.)"""
    kinds = (po_draw, po_play, po_discard, po_draw)
    tup = types.NamedTuple([types.UniTuple(types.Dispatcher(f), MAX_SEATS) for f in kinds], SeatFns)

    def codegen(context, builder, sig, args):
        return cgutils.get_null_value(context.get_value_type(sig.return_type))

    return tup(), codegen


if DISABLED:  # plain Python (NUMBA_DISABLE_JIT=1): the functions themselves

    def playout_fns():
        kinds = (po_draw, po_play, po_discard, po_draw)
        return SeatFns(*((f,) * MAX_SEATS for f in kinds))


@jit
def mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc):
    """Search candidates ``idx[:nc]`` (option indices into ``acts``; ``stops[i] = 1``: stop)
    and return the chosen one's index (or -1: stop)."""
    cands = np.zeros((nc, A.SIZE), dtype=np.int16)
    for i in range(nc):
        if stops[i] == 0:
            for j in range(A.SIZE):
                cands[i, j] = acts[idx[i], j]
    worlds = max(int(params[MC_WORLDS]), 1)
    own = SMART_PARAMS[:8] if params[MC_PLAY] == 1.0 else SMART_PARAMS[:0]
    b = mc_choose(
        hand, melds, pile, pub, hist, rng, mem, cands, stops, nc, worlds, params[MC_Z],
        params[MC_OPP], own, playout_fns(),
    )  # fmt: skip
    return idx[b]


@kernel
def put_first(idx, stops, k, first):
    """Candidates: ``first`` (an option index, -1: stop) at ``k``, unless already listed;
    returns the new count."""
    for i in range(k):
        if idx[i] == first:
            return k
    idx[k] = first
    stops[k] = 1 if first < 0 else 0
    return k + 1


@decision(alloc=True)
def mc_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """Take the discard or draw from the stock: the one whose playouts score best."""
    if params[MC_PLAY] == 1.0:
        first = smart_take(hand, melds, pile, pub, SMART_PARAMS, acts, n)
    else:
        first = 0
        for i in range(n):
            if acts[i, 0] == DRAW.DISCARD:
                first = i  # greedy's choice first (it wins ties)
    if n <= 1 or params[MC_WIDTH] < 2:
        return first
    idx = np.zeros(n, dtype=np.int64)
    stops = np.zeros(n, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    for i in range(n):
        k = put_first(idx, stops, k, i)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, n)


@decision(alloc=True)
def mc_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """A play or stop: the fast policy's choice, then greedy's, stopping (when allowed) and the
    other plays in order, at most ``width`` of them, searched."""
    may_stop = pub[PUB.TAKEN] < 0
    g = out_or_largest(hand, melds, pub, acts, n)
    first = g
    if params[MC_PLAY] == 1.0:
        first = smart_next(hand, melds, pub, SMART_PARAMS, acts, n)
    total = n + (1 if may_stop else 0)
    nc = min(int(params[MC_WIDTH]), total)
    if nc <= 1:
        return first
    idx = np.zeros(total, dtype=np.int64)
    stops = np.zeros(total, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    k = put_first(idx, stops, k, g)
    if may_stop:
        k = put_first(idx, stops, k, -1)
    for i in range(n):
        k = put_first(idx, stops, k, i)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc)


@decision(alloc=True)
def mc_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """A discard: the fast policy's choice and the cards greedy would rather throw, at most
    ``width`` of them, searched."""
    nc = min(int(params[MC_WIDTH]), n)
    first = best_discard(hand, pub, acts, n)
    if params[MC_PLAY] == 1.0:
        first = smart_throw(hand, melds, pile, pub, SMART_PARAMS, acts, n, hist, mem)
    if nc <= 1:
        return first
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        c = int(acts[i, 0])
        keys[i] = card_cost(c, hand, pub) * 64 + c % 13
    idx = np.zeros(n, dtype=np.int64)
    stops = np.zeros(n, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    while k < nc:  # greedy's order
        b = -1
        for i in range(n):
            if keys[i] > -(1 << 40) and (b < 0 or keys[i] > keys[b]):
                b = i
        keys[b] = -(1 << 40)
        k = put_first(idx, stops, k, b)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc)


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


@decision
def rebuy_table(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return table_says_rebuy(params, REBUY_SLOT0, rebuy_cell(pub))


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
        builtin=BUILTIN.GREEDY,
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
    "careful": Policy(
        "careful",
        greedy_draw,
        greedy_play,
        careful_discard,
        params={"danger": 6.0, "safe": 2.0, "keep": 6.0},
        ranges={"danger": (0, 1000), "safe": (0, 1000), "keep": (0, 1000)},  # card-cost points
        doc="greedy that counts the cards it has seen and the next player's discards",
    ),
    "smart": Policy(
        "smart",
        smart_draw,
        smart_play,
        smart_discard,
        params={
            "danger": 6.0,
            "safe": 2.0,
            "keep": 6.0,
            "patience": 3.0,
            "reach": 6.0,
            "grab": 3.0,
            "close": 2.0,
            "dump": 2.0,
        },
        ranges={
            "danger": (0, 1000),  # card-cost points, as careful's
            "safe": (0, 1000),
            "keep": (0, 1000),
            "patience": (0, 200),  # cards in an opponent's hand (200: never hold)
            "reach": (0, 200),  # cards no play puts down
            "grab": (-1, 200),  # likewise (-1: always take the discard)
            "close": (0, 200),  # cards in an opponent's hand
            "dump": (0, 100),  # extra weight per penalty point
        },
        doc="careful that holds for the one-turn bonus, orders its plays, dumps points late",
    ),
    "mc": Policy(
        "mc",
        mc_draw,
        mc_play,
        mc_discard,
        params={"n": 16.0, "width": 8.0, "z": 2.0, "opp": 1.0, "play": 1.0},
        ranges={
            "n": (1, 256),  # hidden worlds sampled per decision (every option on the same ones)
            "width": (1, 64),  # options searched at most (greedy's preferred first; 1: greedy)
            "z": (0, 10),  # standard errors an option must gain over greedy's choice (0: best)
            "opp": (0, 1),  # weight of the opponents' mean penalty in the value (0: own only)
            "play": (0, 1),  # its fast policy: 0 greedy, 1 smart (its own play in the playouts)
        },
        doc="search: plays each option out to the round's end in n worlds sampled from its view",
        quick="n=1:width=2",  # registry-wide checks (every preset x player count, no JIT)
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
    "table": AddOnRule(
        "table",
        rebuy_table,
        dict.fromkeys(PARAM_NAMES, 0.0),  # the table's decline bits, read from the file
        "rebuy where a 'rebuy-value --mode state --save' table's value is > 0 (else decline;"
        " cells it lacks: rebuy)",
        load=load_table,
    ),
}

assert tuple(SMART_PARAMS) == tuple(POLICIES["smart"].params.values())

"""The Loba de Menos state machine: deal, turns, round scoring, elimination, rebuys, the pot.

One function per phase: :func:`deal_round` ([A5]-[A8]), :func:`play_turn` ([A9]-[A14],
[A20]-[A26]), :func:`score_round` ([A27]-[A28]), :func:`settle_round` ([A29]-[A33]);
:func:`step` makes one transition (``sim.loba.kernel.play_game`` runs them to the end of a
game). All of them work on a :class:`State` (sim.loba.layout), so a game can be copied at
any point and played on.

Policies are called through one tuple of first-class functions per decision kind (draw, play,
discard) and one for the rebuy rule (one entry per seat), all of signature
:data:`sim.loba.api.DECIDE_SIG`, always through the one gate :func:`decide`; they receive only
the deciding seat's hand, the table melds, the discard pile and the public array ``pub`` (rules
document A.8), never another hand or the stock order.
"""

from __future__ import annotations

import numpy as np

from ..events import ev, ev_push, new_trace, tracing  # noqa: F401  (new_trace: re-exported)
from ..jit import jit, kernel
from ..rng import below, shuffle
from .cards import rank_of, suit_of
from .greedy import discard_natural, greedy_choice
from .layout import (
    AR_ACTS,
    AR_HAND,
    AR_HIST,
    AR_MELDS,
    AR_MEM,
    AR_PARAMS,
    AR_PILE,
    AR_PUB,
    AR_RNG,
    ARENA_PAD,
    BUILTIN,
    DEC,
    DRAW,
    HAND_W,
    HIST_CAP,
    HT,
    JOKER,
    MAX_CARDS,
    MAX_MELDS,
    MAX_SEATS,
    MELD,
    MEM_N,
    N_IDS,
    PARAMS_W,
    PH,
    PLAY,
    PUB,
    RR,
    RS,
    ST,
    TAT,
    VOID,
    A,
    E,
    G,
    H,
    M,
    S,
    Scratch,
    State,
)
from .moves import (
    apply_play,
    bit_index,
    copy_rows,
    copy_rows2,
    gen_layoffs_wanted,
    gen_new_melds_with,
    hand_value,
    has_window,
    held_bits,
    options_bound,
    pierna_accepts,
    popcount,
    pos_card,
    suit_bits,
)
from .rules import JOKER_DISCARD, PIERNA, RULE, TAKE
from .takes import can_place, places, search_bound

NO_MELD = -2  # gen_plays: lay-offs only (the hand holds no new meld)
TURN_ON = 0
TURN_OUT = 1
TURN_VOID = 2
HIST_PAD = 64  # zero rows before and after the history (policies are handed its first rows)


@jit
def new_state():
    """A blank game state (all arrays zeroed)."""
    return State(
        np.zeros((MAX_SEATS, HAND_W), dtype=np.int8),
        np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16),
        np.zeros(MAX_CARDS, dtype=np.int16),
        np.zeros(MAX_CARDS, dtype=np.int16),
        np.zeros(G.SIZE, dtype=np.int64),
        np.zeros((MAX_SEATS, S.SIZE), dtype=np.int64),
        np.zeros(2 + 2 * MAX_SEATS, dtype=np.uint64),
        np.zeros((HIST_CAP + 2 * HIST_PAD, H.SIZE), dtype=np.int16)[HIST_PAD : HIST_PAD + HIST_CAP],
        np.zeros((MAX_SEATS, MEM_N), dtype=np.float64),
    )


@kernel
def copy_state(src, dst):
    """Copy every array of ``src`` into ``dst`` (fork a game). Loops, not slice assignment:
    Numba compiles a broadcasting assignment with its error messages (seconds of compile)."""
    for q in range(src.hands.shape[0]):
        copy_rows(src.hands[q], dst.hands[q], src.hands.shape[1])
    copy_rows2(src.melds, dst.melds, src.melds.shape[0])
    copy_rows(src.stock, dst.stock, src.stock.shape[0])
    copy_rows(src.pile, dst.pile, src.pile.shape[0])
    copy_rows(src.g, dst.g, G.LAY_W)  # the scalars; of the per-meld masks, the melds in use
    nm = min(src.g[G.NMELDS], MAX_MELDS)
    for i in range(nm):
        dst.g[G.LAY_W + i] = src.g[G.LAY_W + i]
        dst.g[G.TK_D + i] = src.g[G.TK_D + i]
        dst.g[G.TK_E + i] = src.g[G.TK_E + i]
    copy_rows2(src.s, dst.s, src.s.shape[0])
    copy_rows(src.rng, dst.rng, src.rng.shape[0])
    copy_rows2(src.mem, dst.mem, src.mem.shape[0])
    copy_rows2(src.hist, dst.hist, min(src.g[G.HIST_N], HIST_CAP))


@kernel
def ev_stock(tr, st, i):
    """Payload: the stock, top first."""
    for k in range(st.g[G.STOCK_N] - 1, -1, -1):
        ev_push(tr, i, st.stock[k])


@kernel
def next_active(st, seat):
    """[A5]/[A8] the next seat clockwise (to the left) that is still in the game."""
    return next_seat(st.g, st.s, seat)


@kernel(inline="always")
def next_seat(g, s, seat):
    """:func:`next_active` from the game's ``g`` and ``s`` arrays (the turn loop inlines it: a
    call with the whole state passes every array of it)."""
    np_ = g[G.NP]
    for k in range(1, np_ + 1):
        q = (seat + k) % np_
        if s[q, S.STATUS] == ST.ACTIVE:
            return q
    return seat


@kernel
def n_active(st):
    c = 0
    for q in range(st.g[G.NP]):
        if st.s[q, S.STATUS] == ST.ACTIVE:
            c += 1
    return c


@kernel
def start_game(st, R, n_players, first_dealer):
    """[A4] stakes into the pot, [A5] first dealer (seeded random unless given)."""
    g = st.g
    s = st.s
    g[:] = 0
    s[:, :] = 0
    st.mem[:, :] = 0
    g[G.NP] = n_players
    g[G.WINNER] = -1
    g[G.TAKEN] = -1
    g[G.OUT] = -1
    g[G.DECK_N] = 52 * R[RULE.DECKS] + R[RULE.JOKERS]
    for q in range(n_players):
        s[q, S.STATUS] = ST.ACTIVE
        s[q, S.PAID] = R[RULE.STAKE]
        s[q, S.ELIM_ROUND] = -1
        g[G.POT] += R[RULE.STAKE]
    if first_dealer < 0:
        first_dealer = below(st.rng, n_players)
    g[G.DEALER] = first_dealer
    g[G.FIRST_DEALER] = first_dealer
    g[G.PHASE] = PH.DEAL


@kernel
def deal_round(st, R, deck, deck_n, tr):
    """[A6]-[A7]: deal from ``deck[:deck_n]`` (top first) if ``deck_n > 0``, else shuffle."""
    g = st.g
    n = g[G.DECK_N]
    stock = st.stock
    if deck_n > 0:
        for i in range(n):
            stock[n - 1 - i] = deck[i]
    else:
        k = 0
        for cid in range(52):
            for _ in range(R[RULE.DECKS]):
                stock[k] = cid
                k += 1
        for _ in range(R[RULE.JOKERS]):
            stock[k] = JOKER
            k += 1
        shuffle(st.rng, stock, n)
    g[G.STOCK_N] = n
    st.hands[:, :] = 0
    st.melds[:, :] = 0
    st.pile[:] = -1
    g[G.NMELDS] = 0
    g[G.LAY_OK] = 0
    g[G.TURN] = 0
    g[G.RESHUFFLES] = 0
    g[G.TAKEN] = -1
    g[G.HIST_N] = 0
    g[G.HIST_LOST] = 0
    g[G.TURN_AT] = TAT.DRAW
    for q in range(g[G.NP]):
        st.s[q, S.HAND_N] = 0
        st.s[q, S.MELDED] = 0
        st.s[q, S.PLACED] = 0
        st.s[q, S.MELD_FREE] = 0
        st.s[q, S.PENALTY] = 0
        st.s[q, S.BONUS] = 0
    first = next_seat(g, st.s, g[G.DEALER])
    for _ in range(R[RULE.HAND_SIZE]):  # one card at a time, from the dealer's left
        q = first
        while True:
            c = stock[g[G.STOCK_N] - 1]
            g[G.STOCK_N] -= 1
            st.hands[q, c] += 1
            st.s[q, S.HAND_N] += 1
            q = next_seat(g, st.s, q)
            if q == first:
                break
    st.pile[0] = stock[g[G.STOCK_N] - 1]  # [A7] up-card, a joker included
    g[G.STOCK_N] -= 1
    g[G.PILE_N] = 1
    g[G.CUR] = first  # [A8]
    if tracing(tr):
        i = ev(tr, E.DEAL, g[G.ROUND], -1, g[G.DEALER], st.pile[0], 0, 0)
        for q in range(g[G.NP]):
            ev_push(tr, i, st.s[q, S.HAND_N])
            for c in range(N_IDS):
                for _ in range(st.hands[q, c]):
                    ev_push(tr, i, c)
        ev_stock(tr, st, i)


@kernel
def rebuild_stock(st, R, tr):
    """[A13] rebuild an empty stock from the discard pile; False when nothing can be moved."""
    g = st.g
    pn = g[G.PILE_N]
    keep = 1 if R[RULE.RESHUFFLE_KEEP_TOP] == 1 else 0
    if pn - keep <= 0:
        return False
    k = pn - keep
    for i in range(k):
        st.stock[i] = st.pile[i]
    shuffle(st.rng, st.stock, k)
    if keep == 1:
        st.pile[0] = st.pile[pn - 1]
    for i in range(keep, pn):
        st.pile[i] = -1
    g[G.PILE_N] = keep
    g[G.STOCK_N] = k
    g[G.RESHUFFLES] += 1
    g[G.RESHUFFLES_TOTAL] += 1
    if tracing(tr):
        ev_stock(tr, st, ev(tr, E.REBUILD, g[G.ROUND], -1, 0, 0, 0, 0))
    return True


@kernel(inline="always")
def fill_pub(st, R, seat, pub, decision):
    """The public view of RULES.md A.8 for ``seat``."""
    g = st.g
    s = st.s
    pub[PUB.SEAT] = seat
    pub[PUB.NP] = g[G.NP]
    pub[PUB.STOCK_N] = g[G.STOCK_N]
    pub[PUB.PILE_N] = g[G.PILE_N]
    pub[PUB.ROUND] = g[G.ROUND]
    pub[PUB.TURN] = g[G.TURN]
    pub[PUB.DEALER] = g[G.DEALER]
    pub[PUB.MELDED] = s[seat, S.MELDED]
    pub[PUB.PLACED] = s[seat, S.PLACED]
    pub[PUB.TAKEN] = g[G.TAKEN]
    pub[PUB.NMELDS] = g[G.NMELDS]
    pub[PUB.DECISION] = decision
    pub[PUB.REBUY_SCORE] = g[G.REBUY_SCORE] if decision == DEC.REBUY else 0
    act = 0
    for q in range(MAX_SEATS):
        if q < g[G.NP]:
            pub[PUB.HAND_N + q] = s[q, S.HAND_N]
            pub[PUB.SCORE + q] = s[q, S.SCORE]
            pub[PUB.REBUYS + q] = s[q, S.REBUYS]
            pub[PUB.STATUS + q] = s[q, S.STATUS]
            if s[q, S.STATUS] != ST.OUT:
                act += 1
        else:
            pub[PUB.HAND_N + q] = 0
            pub[PUB.SCORE + q] = 0
            pub[PUB.REBUYS + q] = 0
            pub[PUB.STATUS + q] = ST.OUT
    pub[PUB.ACTIVE] = act
    pub[PUB.HIST_LOST] = g[G.HIST_LOST]


@kernel(inline="always")
def hist_add(st, t, seat, card, meld, kind, key, p0, p1, p2, p3):
    """Append a row to the round's public history (layout ``H``); count it when full."""
    g = st.g
    i = g[G.HIST_N]
    if i >= HIST_CAP:
        g[G.HIST_LOST] += 1
        return
    row = st.hist[i]
    row[H.TYPE] = t
    row[H.SEAT] = seat
    row[H.TURN] = g[G.TURN]
    row[H.CARD] = card
    row[H.MELD] = meld
    row[H.KIND] = kind
    row[H.KEY] = key
    row[H.P0] = p0
    row[H.P1] = p1
    row[H.P2] = p2
    row[H.P3] = p3
    g[G.HIST_N] = i + 1


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
    only. :func:`play_turn` passes the card drawn when the hand was meld-free before it.
    ``held``: the identities the hand holds (:func:`sim.loba.moves.held_bits`)."""
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
def do_play(st, seat, act, R, tr):
    """Apply a legal play for ``seat`` and keep the counters right."""
    hand = st.hands[seat]
    if st.g[G.TAKEN] >= 0 and places(act, hand, st.g[G.TAKEN], R):
        st.g[G.TAKEN] = -1  # [A12] a card of the taken identity reached the table
    nm = st.g[G.NMELDS]
    st.g[G.NMELDS] = apply_play(hand, st.melds, nm, act, seat)
    if st.g[G.LAY_OK] == 1:  # else computed in full before the next lay-off search
        lay_wants(st.g, st.melds, R, nm if act[A.TYPE] == PLAY.MELD else act[A.MELD])
    if act[A.TYPE] == PLAY.MELD:
        row = st.melds[nm]
        if row[M.KIND] == MELD.ESCALERA:
            p3 = 0
            p0, p1, p2 = row[M.LO], row[M.HI], row[M.JMASK]
        else:
            p0, p1, p2, p3 = row[M.C0], row[M.C0 + 1], row[M.C0 + 2], row[M.C0 + 3]
        hist_add(st, HT.MELD, seat, -1, nm, row[M.KIND], row[M.KEY], p0, p1, p2, p3)
    else:
        hist_add(st, HT.LAYOFF, seat, act[A.CARD], act[A.MELD], 0, 0, act[A.POS], act[A.MOVE], 0, 0)
    if tracing(tr):
        if act[A.TYPE] == PLAY.MELD:
            row = st.melds[nm]
            i = ev(tr, E.MELD, st.g[G.ROUND], seat, nm, row[M.KIND], row[M.KEY], 0)
            if row[M.KIND] == MELD.ESCALERA:
                ev_push(tr, i, row[M.LO])
                ev_push(tr, i, row[M.HI])
                ev_push(tr, i, row[M.JMASK])
            else:
                for t in range(4):
                    ev_push(tr, i, row[M.C0 + t])
        else:
            if tracing(tr):
                ev(
                    tr,
                    E.LAYOFF,
                    st.g[G.ROUND],
                    seat,
                    act[A.KIND],
                    act[A.KEY],
                    act[A.LO],
                    act[A.HI],
                )
    st.s[seat, S.HAND_N] -= act[A.N]  # the cards the play puts down (a lay-off: one)
    st.s[seat, S.PLACED] = 1
    if act[A.TYPE] == PLAY.MELD:
        st.s[seat, S.MELDED] = 1
    return act[A.N]


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
    ok = can_place(hand, hn, st.melds, st.g[G.NMELDS], may_layoff(st, R, seat), R, c, bufs)
    hand[c] -= 1
    return ok


@kernel
def keep_placeable(st, R, seat, c, acts, n, bufs):
    """While the taken discard ``c`` is still in hand, keep only the plays that put it down or
    leave a sequence that does ([A12]); returns how many remain (compacted to the front)."""
    hand = st.hands[seat]
    sh, sm = bufs.hand, bufs.melds
    nm = st.g[G.NMELDS]
    hn = st.s[seat, S.HAND_N]
    lay = may_layoff(st, R, seat)
    m = 0
    for i in range(n):
        ok = places(acts[i], hand, c, R)
        if not ok:
            copy_rows(hand, sh, HAND_W)
            copy_rows2(st.melds, sm, nm)
            nm2 = apply_play(sh, sm, nm, acts[i], seat)
            lay2 = lay or acts[i, A.TYPE] == PLAY.MELD
            ok = can_place(sh, hn - acts[i, A.N], sm, nm2, lay2, R, c, bufs)
        if ok:
            if m != i:
                copy_rows(acts[i], acts[m], A.SIZE)
            m += 1
    return m


@kernel(inline="always")
def decide(fn_of, st, R, seat, bufs, params, acts, n, decision, may_stop):
    """The one gate every decision passes: fill the public view, count the decision, hand the
    seat's function its sealed view (sim.loba.api), and check its answer.

    The view is exact-length slices of the game's own arrays (the seat's hand, the melds and
    the pile in use, its parameter row, the options, the history so far), all typed read-only
    in the signature, so a decision function that writes into one does not compile, and one
    that reads past an end raises (decision functions are bounds-checked); only the seat's own
    random stream and memory are writable. An answer outside ``0 .. n-1`` is a bad answer,
    counted per seat (``S.BAD_ANSWERS``): it reads as the documented fallback, the first
    option, or "stop" where stopping is an option (``may_stop``: plays, where -1 stops).

    Three ways to answer, by the seat's parameter row past ``PARAMS_W``: a policy the engine
    has its own copy of (:data:`BUILTIN`: greedy) is answered by that copy, directly; a
    plug-in seat (the flag after it) by :func:`ask_arena`, through copies in its own arena;
    any other seat by :func:`ask_seat`, out of line, on the game's own arrays (no copy).
    ``tests/loba/test_builtin.py`` checks that all three play the same games."""
    pub = bufs.pub
    st.g[G.DECISIONS] += 1
    # (the rebuy is the seat's add-on rule, not its policy)
    if decision != DEC.REBUY and own_greedy(params, seat):
        # the engine's own greedy: the same answer as greedy's functions, without the call
        # through the table and with only the fields of the view greedy reads
        pub[PUB.SEAT] = seat
        pub[PUB.MELDED] = st.s[seat, S.MELDED]
        pub[PUB.NMELDS] = st.g[G.NMELDS]
        nm = st.g[G.NMELDS]
        return greedy_choice(decision, st.hands[seat, :N_IDS], st.melds[:nm], pub, acts[:n], n)
    if plugged(params, seat):
        return ask_arena(
            fn_of[seat], st, R, seat, pub, params, acts, n, decision, may_stop, bufs.arena[seat]
        )
    return ask_seat(fn_of[seat], st, R, seat, pub, params, acts, n, decision, may_stop)


@kernel(inline="always")
def own_greedy(params, seat):
    """Does the engine answer ``seat`` with its own greedy (:data:`BUILTIN`)?"""
    return params.shape[1] > PARAMS_W and params[seat, PARAMS_W] == BUILTIN.GREEDY


@kernel(inline="always")
def plugged(params, seat):
    """Does ``seat`` run plug-in code (its parameter row's flag after the builtin id)? Then it
    is asked through its arena (:func:`ask_arena`)."""
    return params.shape[1] > PARAMS_W + 1 and params[seat, PARAMS_W + 1] > 0


@kernel
def answer(st, seat, k, n, may_stop):
    """A seat's answer ``k`` checked: an option, "stop" where stopping is one, or a bad answer
    (counted) read as the fallback."""
    if k >= 0 and k < n:
        return k
    if may_stop and k == -1:
        return -1
    st.s[seat, S.BAD_ANSWERS] += 1
    return -1 if may_stop else 0


@kernel(inline="always")
def copy_bytes(src, dst, off, count):
    """The first ``count`` elements of the C-contiguous array ``src`` (in its flat order),
    byte by byte into ``dst[off:]`` (a loop the compiler turns into a block copy)."""
    sb = src.reshape(src.size).view(np.uint8)
    for i in range(count * src.itemsize):
        dst[off + i] = sb[i]


@kernel
def ask_arena(fn, st, R, seat, pub, params, acts, n, decision, may_stop, arena):
    """:func:`ask_seat` for a plug-in seat: its view is copied into its own arena (a byte row
    of the game's scratch, one per seat, :data:`~sim.loba.layout.ARENA_PAD` bytes of padding
    at each end) and only its random stream and memory are copied back. A function compiled
    without bounds checks that reads past an end then reads its own copies or zeros, never
    another seat's hand, and one that writes before its stream changes nothing of the game.
    (Raw pointers reach anything: untrusted code belongs in a process of its own.)"""
    fill_pub(st, R, seat, pub, decision)
    nm = st.g[G.NMELDS]
    npile = st.g[G.PILE_N]
    nh = min(st.g[G.HIST_N], HIST_CAP)
    copy_bytes(st.hands[seat], arena, AR_HAND, N_IDS)
    hand = arena[AR_HAND : AR_HAND + N_IDS].view(np.int8)
    copy_bytes(st.melds, arena, AR_MELDS, nm * M.SIZE)
    melds = arena[AR_MELDS : AR_MELDS + nm * M.SIZE * 2].view(np.int16).reshape((nm, M.SIZE))
    copy_bytes(st.pile, arena, AR_PILE, npile)
    pile = arena[AR_PILE : AR_PILE + npile * 2].view(np.int16)
    copy_bytes(pub, arena, AR_PUB, PUB.SIZE)
    pv = arena[AR_PUB : AR_PUB + PUB.SIZE * 4].view(np.int32)
    w = min(params.shape[1], PARAMS_W)
    pp = arena[AR_PARAMS : AR_PARAMS + w * 8].view(np.float64)
    for i in range(w):
        pp[i] = params[seat, i]
    r = 2 + 2 * seat
    rng = arena[AR_RNG : AR_RNG + 16].view(np.uint64)
    rng[0] = st.rng[r]
    rng[1] = st.rng[r + 1]
    copy_bytes(st.hist, arena, AR_HIST, nh * H.SIZE)
    hist = arena[AR_HIST : AR_HIST + nh * H.SIZE * 2].view(np.int16).reshape((nh, H.SIZE))
    mem = arena[AR_MEM : AR_MEM + MEM_N * 8].view(np.float64)
    for i in range(MEM_N):
        mem[i] = st.mem[seat, i]
    copy_bytes(acts, arena, AR_ACTS, n * A.SIZE)
    av = arena[AR_ACTS : AR_ACTS + n * A.SIZE * 2].view(np.int16).reshape((n, A.SIZE))
    k = fn(hand, melds, pile, pv, pp, rng, av, n, hist, mem)
    st.rng[r] = rng[0]
    st.rng[r + 1] = rng[1]
    for i in range(MEM_N):
        st.mem[seat, i] = mem[i]
    return answer(st, seat, k, n, may_stop)


@kernel
def ask_seat(fn, st, R, seat, pub, params, acts, n, decision, may_stop):
    """:func:`decide` for a seat the engine has no copy of: the call through the table."""
    fill_pub(st, R, seat, pub, decision)
    r = 2 + 2 * seat
    k = fn(
        st.hands[seat, :N_IDS],
        st.melds[: st.g[G.NMELDS]],
        st.pile[: st.g[G.PILE_N]],
        pub,
        params[seat, : min(params.shape[1], PARAMS_W)],
        st.rng[r : r + 2],
        acts[:n],
        n,
        st.hist[: min(st.g[G.HIST_N], HIST_CAP)],
        st.mem[seat],
    )
    return answer(st, seat, k, n, may_stop)


@kernel(inline="always")
def finish_turn(st, R, seat, fns, params, bufs, tr, plays, drawn, free, held):
    """The rest of a turn after the draw: the plays (unless ``plays`` is false: a position set
    up at the discard), then the discard. ``drawn``/``free``: the card drawn, and whether the
    hand held no meld before it (the search then looks only where that card can be);
    ``held``: the identities the hand holds (:func:`sim.loba.moves.held_bits`, kept from the
    draw on: a turn without plays reads the hand's counts once)."""
    g = st.g
    s = st.s
    hand = st.hands[seat]
    acts = bufs.acts
    if plays:
        # [A9] any number of plays, in any order
        # while the taken discard is in hand ([A12]) the seat may not stop, and may only make plays
        # that put it down or keep a way to do so open: its policy chooses how
        new = -1
        while s[seat, S.HAND_N] > 0:
            only = -1
            if new == 0:  # no new meld in the hand: none after a play either (it only has less)
                only = NO_MELD
            elif free:
                only = drawn if hand[drawn] > 0 else NO_MELD
            n, new = gen_plays_with(st, R, seat, acts, only, held)
            owed = g[G.TAKEN] >= 0
            if owed:
                n = keep_placeable(st, R, seat, g[G.TAKEN], acts, n, bufs)
            if n == 0:
                break
            if owed and n == 1:
                k = 0
            else:
                k = decide(fns.play, st, R, seat, bufs, params, acts, n, DEC.PLAY, not owed)
            if k < 0:
                break
            do_play(st, seat, acts[k], R, tr)
            held = held_bits(hand)[0]
        if s[seat, S.HAND_N] == 0:
            return TURN_OUT  # [A25] out by plays
        if new == 0 and R[RULE.GO_OUT_NEEDS_DISCARD] == 0:
            s[seat, S.MELD_FREE] = 1
    # discard ([A24] jokers only when the hand is all jokers, unless allowed)
    hn = s[seat, S.HAND_N]
    only_jokers = hand[JOKER] == hn
    held &= (1 << JOKER) - 1  # the naturals held, one bit each
    joker = hand[JOKER] > 0 and (R[RULE.JOKER_DISCARD] != JOKER_DISCARD.LAST_ONLY or only_jokers)
    if held and (joker or held & (held - 1)) and own_greedy(params, seat):
        # a decision (two options or more) for the engine's own greedy: its card without the
        # option list (greedy.discard_natural: the card decide would answer; -2.8% per turn)
        g[G.DECISIONS] += 1
        cid = discard_natural(held, R[RULE.ACE_VALUE])
    else:
        n = 0
        while held:
            low = held & -held
            acts[n, 0] = bit_index(low)
            n += 1
            held ^= low
        if joker:
            acts[n, 0] = JOKER
            n += 1
        k = 0
        if n > 1:
            k = decide(fns.discard, st, R, seat, bufs, params, acts, n, DEC.DISCARD, False)
        cid = acts[k, 0]
    hand[cid] -= 1
    s[seat, S.HAND_N] -= 1
    st.pile[g[G.PILE_N]] = cid
    g[G.PILE_N] += 1
    hist_add(st, HT.DISCARD, seat, cid, 0, 0, 0, 0, 0, 0, 0)
    if tracing(tr):
        ev(tr, E.DISCARD, g[G.ROUND], seat, 0, cid, 0, 0)
    if s[seat, S.HAND_N] == 0:
        return TURN_OUT  # [A25] out by the last discard
    return TURN_ON


@kernel(inline="always")
def play_turn(st, R, seat, fns, params, bufs, tr):
    """One turn of ``seat`` ([A9]-[A14], [A20]-[A26]). Returns TURN_ON, TURN_OUT or TURN_VOID."""
    g = st.g
    s = st.s
    hand = st.hands[seat]
    acts = bufs.acts
    # a hand with no meld at the end of its last turn can only make melds that hold the card
    # drawn now (what is left of it is a part of that hand; [A26]'s limit aside, so the mark
    # is only kept with the knob off): the search looks there only, with the same result
    free = s[seat, S.MELD_FREE] == 1
    at = g[G.TURN_AT]  # TAT.DRAW but in a position set up mid-turn (sim.loba.position)
    drawn = -1
    held = held_bits(hand)[0]
    if at != TAT.DRAW:
        g[G.TURN_AT] = TAT.DRAW
        s[seat, S.MELD_FREE] = 0
        free = False
    else:
        if g[G.STOCK_N] == 0:
            rebuild_stock(st, R, tr)  # [A13]
        top = st.pile[g[G.PILE_N] - 1] if g[G.PILE_N] > 0 else -1
        can_take = top >= 0 and take_may_work(st, R, seat, top, held)  # (reads the mark)
        s[seat, S.MELD_FREE] = 0
        if can_take:
            can_take = take_search(st, R, seat, top, bufs)
        if g[G.STOCK_N] == 0 and not can_take:
            g[G.VOID_REASON] = VOID.STOCK  # [A14]
            return TURN_VOID
        nopt = 0
        if g[G.STOCK_N] > 0:
            acts[nopt, 0] = DRAW.STOCK
            nopt += 1
        if can_take:
            acts[nopt, 0] = DRAW.DISCARD
            nopt += 1
        ch = 0
        if nopt > 1:
            ch = decide(fns.draw, st, R, seat, bufs, params, acts, nopt, DEC.DRAW, False)
        if acts[ch, 0] == DRAW.DISCARD:
            drawn = top
            g[G.PILE_N] -= 1
            st.pile[g[G.PILE_N]] = -1
            hand[top] += 1
            held |= 1 << int(top)
            s[seat, S.HAND_N] += 1
            g[G.TAKEN] = top
            hist_add(st, HT.DRAW, seat, top, 0, DRAW.DISCARD, 0, 0, 0, 0, 0)
            if tracing(tr):
                ev(tr, E.DRAW, g[G.ROUND], seat, DRAW.DISCARD, top, 0, 0)
        else:
            g[G.STOCK_N] -= 1
            drawn = st.stock[g[G.STOCK_N]]
            hand[drawn] += 1
            held |= 1 << int(drawn)
            s[seat, S.HAND_N] += 1
            hist_add(st, HT.DRAW, seat, -1, 0, DRAW.STOCK, 0, 0, 0, 0, 0)
            if tracing(tr):
                ev(tr, E.DRAW, g[G.ROUND], seat, DRAW.STOCK, st.stock[g[G.STOCK_N]], 0, 0)
    return finish_turn(st, R, seat, fns, params, bufs, tr, at != TAT.DISCARD, drawn, free, held)


@kernel
def score_round(st, R, out):
    """[A27]/[A28] apply the round's penalties and the one-turn bonus all at once."""
    s = st.s
    for q in range(st.g[G.NP]):
        if s[q, S.STATUS] != ST.ACTIVE:
            continue
        if q == out:
            pen = -R[RULE.ONE_TURN_BONUS] if s[q, S.BONUS] == 1 else 0
        else:
            pen = hand_value(st.hands[q], R[RULE.ACE_VALUE], R[RULE.JOKER_VALUE])
        old = s[q, S.SCORE]
        new = old + pen
        if R[RULE.HAS_SCORE_FLOOR] == 1 and new < R[RULE.SCORE_FLOOR]:
            new = R[RULE.SCORE_FLOOR]
        s[q, S.PENALTY] = new - old
        s[q, S.SCORE] = new
    if out >= 0 and s[out, S.BONUS] == 1:
        st.g[G.BONUSES] += 1


@kernel
def settle_round(st, R, fns, params, bufs, rstat, tr):
    """[A29]-[A33] mark over, resolve rebuys, eliminate, and end the game if one is left.

    ``rstat[q]`` receives each seat's round status (RS_*).
    """
    acts = bufs.acts
    g = st.g
    s = st.s
    np_ = g[G.NP]
    n_over = 0
    n_surv = 0
    target = -(1 << 40)
    for q in range(np_):
        if s[q, S.STATUS] != ST.ACTIVE:
            rstat[q] = RS.ELIMINATED
            continue
        rstat[q] = RS.ACTIVE
        if s[q, S.SCORE] >= R[RULE.ELIMINATION_SCORE]:
            s[q, S.STATUS] = ST.OVER
            n_over += 1
            if tracing(tr):
                ev(tr, E.OVER, g[G.ROUND], q, s[q, S.SCORE], 0, 0, 0)
        else:
            n_surv += 1
            if s[q, S.SCORE] > target:
                target = s[q, S.SCORE]
    if n_over > 0:
        rebuy_open = n_surv >= 2 or (n_surv == 1 and R[RULE.REBUY_WITH_ONE_SURVIVOR] == 1)  # [A31]
        for q in range(np_):
            if s[q, S.STATUS] != ST.OVER:
                continue
            yes = 0
            if rebuy_open and s[q, S.REBUYS] < R[RULE.MAX_REBUYS]:  # [A30]
                acts[0, 0] = 0
                acts[1, 0] = 1
                g[G.REBUY_SCORE] = target
                yes = decide(fns.rebuy, st, R, q, bufs, params, acts, 2, DEC.REBUY, False)
                hist_add(st, HT.REBUY, q, 0, 0, yes, 0, s[q, S.REBUYS] + yes, 0, 0, 0)
            if yes == 1:
                s[q, S.REBUYS] += 1
                s[q, S.PAID] += R[RULE.REBUY_COST]
                g[G.POT] += R[RULE.REBUY_COST]
                s[q, S.SCORE] = target
                rstat[q] = RS.REBOUGHT
                if tracing(tr):
                    ev(tr, E.REBUY, g[G.ROUND], q, target, g[G.POT], s[q, S.REBUYS], 0)
            else:  # [A32]
                rstat[q] = RS.OVER
        for q in range(np_):
            if s[q, S.STATUS] == ST.OVER:
                if rstat[q] == RS.REBOUGHT:
                    s[q, S.STATUS] = ST.ACTIVE
                else:
                    s[q, S.STATUS] = ST.OUT
                    s[q, S.ELIM_ROUND] = g[G.ROUND]
                    if tracing(tr):
                        ev(tr, E.ELIM, g[G.ROUND], q, s[q, S.SCORE], 0, 0, 0)
    if n_active(st) <= 1:  # [A33]
        for q in range(np_):
            if s[q, S.STATUS] == ST.ACTIVE:
                g[G.WINNER] = q
                s[q, S.WON] = g[G.POT]
        g[G.DONE] = 1


@kernel
def finish_places(st):
    """Place 1 = winner; the others by how long they lasted (ties share a place)."""
    s = st.s
    np_ = st.g[G.NP]
    big = 1 << 30
    for q in range(np_):
        kq = big if s[q, S.ELIM_ROUND] < 0 else s[q, S.ELIM_ROUND]
        better = 0
        for o in range(np_):
            ko = big if s[o, S.ELIM_ROUND] < 0 else s[o, S.ELIM_ROUND]
            if ko > kq:
                better += 1
        s[q, S.PLACE] = better + 1


@jit
def new_bufs(R, arena=True):
    """The :class:`~sim.loba.layout.Scratch` arrays of one game (the view's rules filled in).
    ``arena``: room for the plug-in seats' arenas (a search's playouts, whose seats are all the
    game's own, need none)."""
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    for i in range(RULE.SIZE):
        pub[PUB.RULES + i] = R[i]
    k = options_bound(R)
    states = search_bound(R)
    width = 1
    while width < 2 * states:
        width *= 2
    return Scratch(
        np.empty((k, A.SIZE), dtype=np.int16),  # rows are written before they are read
        np.empty((k, A.SIZE), dtype=np.int16),
        pub,
        np.zeros(HAND_W, dtype=np.int8),
        np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16),
        np.zeros(MAX_SEATS, dtype=np.int64),
        np.zeros(HAND_W, dtype=np.int8),
        np.full(width, -1, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros((MAX_SEATS, AR_ACTS + k * A.SIZE * 2 + ARENA_PAD if arena else 0), np.uint8),
    )


@kernel
def end_round(st, R, out, tr):
    """A round ended (``out`` went out, or -1: void). Score it at once ([A27]-[A28]); the
    settlement ([A29]-[A33]) is the next step, PH.SETTLE, so a game can be forked right
    before its rebuy decisions."""
    g = st.g
    g[G.OUT] = out
    if out < 0:  # [A14] void: no score changes
        g[G.VOIDS] += 1
        for q in range(g[G.NP]):
            st.s[q, S.PENALTY] = 0
        if tracing(tr):
            ev(tr, E.VOID, g[G.ROUND], -1, g[G.VOID_REASON], 0, 0, 0)
    else:
        score_round(st, R, out)
        if tracing(tr):
            ev(tr, E.OUT, g[G.ROUND], out, st.s[out, S.BONUS], 0, 0, 0)
            i = ev(tr, E.SCORE, g[G.ROUND], -1, 0, 0, 0, 0)
            for q in range(g[G.NP]):
                ev_push(tr, i, st.s[q, S.PENALTY] if st.s[q, S.STATUS] == ST.ACTIVE else 0)
            for q in range(g[G.NP]):
                ev_push(tr, i, st.s[q, S.SCORE])
    g[G.PHASE] = PH.SETTLE


@kernel
def settle(st, R, fns, params, bufs, rounds_rows, tr):
    """PH.SETTLE: over / rebuys / elimination / end of game ([A29]-[A33]); record the round;
    pass the deal ([A5])."""
    g = st.g
    s = st.s
    rstat = bufs.rstat
    out = g[G.OUT]
    # most rounds put nobody over the limit: then settle_round changes nothing but the round
    # statuses (and the game goes on while two seats are active), so they are set here, without
    # a call that passes the state, the seats' functions and the scratch (measured: about 1 us)
    quiet = True
    act = 0
    for q in range(g[G.NP]):
        if s[q, S.STATUS] == ST.ACTIVE:
            act += 1
            if s[q, S.SCORE] >= R[RULE.ELIMINATION_SCORE]:
                quiet = False
    if out < 0 or (quiet and act >= 2):
        for q in range(g[G.NP]):
            rstat[q] = RS.ACTIVE if s[q, S.STATUS] == ST.ACTIVE else RS.ELIMINATED
    else:
        settle_round(st, R, fns, params, bufs, rstat, tr)
    r = g[G.ROUND] - 1
    if r < rounds_rows.shape[0]:
        for q in range(g[G.NP]):
            row = rounds_rows[r, q]
            row[RR.DEALER] = g[G.DEALER]
            row[RR.WENT_OUT] = 1 if q == out else 0
            row[RR.ONE_TURN_BONUS] = 1 if q == out and s[q, S.BONUS] == 1 else 0
            row[RR.PENALTY] = s[q, S.PENALTY] if rstat[q] != RS.ELIMINATED else 0
            row[RR.SCORE_AFTER] = s[q, S.SCORE]
            row[RR.STATUS] = rstat[q]
            row[RR.TURNS] = g[G.TURN]
            row[RR.RESHUFFLES] = g[G.RESHUFFLES]
            row[RR.VOID] = 1 if out < 0 else 0
    if g[G.DONE] == 1:
        finish_places(st)
        g[G.PHASE] = PH.DONE
        if tracing(tr):
            ev(tr, E.END, g[G.ROUND], g[G.WINNER], g[G.WINNER], g[G.ROUND], g[G.POT], 0)
    else:
        g[G.DEALER] = next_seat(g, s, g[G.DEALER])  # [A5]
        g[G.PHASE] = PH.DEAL


@kernel(inline="always")
def turn_loop(st, R, fns, params, bufs, tr, limit):
    """PH.TURN: play up to ``limit`` turns, fewer when the round ends (it is then scored,
    [A27]-[A28]). Returns the phase. The turn loop, with :func:`play_turn` inlined, so that a
    batch pays one call per round instead of one per turn (measured: -15% per turn); compiled
    as :func:`play_turns` (the engine's) and as the search policy's playout
    (:func:`sim.loba.search.playout_turns`, typed on other functions).
    """
    g = st.g
    s = st.s
    for _ in range(limit):
        if g[G.PHASE] != PH.TURN:
            break
        seat = g[G.CUR]
        placed_before = s[seat, S.PLACED] if g[G.TURN_AT] == TAT.DRAW else g[G.PLACED_BEFORE]
        res = play_turn(st, R, seat, fns, params, bufs, tr)
        g[G.TURN] += 1
        g[G.TURNS] += 1
        if res == TURN_OUT:
            s[seat, S.BONUS] = 1 if placed_before == 0 else 0  # [A28]
            end_round(st, R, seat, tr)
        elif res == TURN_VOID:
            end_round(st, R, -1, tr)
        elif g[G.TURN] >= R[RULE.MAX_TURNS_PER_ROUND]:
            g[G.VOID_REASON] = VOID.TURN_CAP  # [A14]
            end_round(st, R, -1, tr)
        else:
            g[G.CUR] = next_seat(g, s, seat)
    return g[G.PHASE]


@kernel
def play_turns(st, R, fns, params, bufs, tr, limit):
    """The engine's :func:`turn_loop` (its own function and cache entry: the search policy's
    copy, typed on functions Numba pickles by value, would otherwise be read back with it in
    every process)."""
    return turn_loop(st, R, fns, params, bufs, tr, limit)


@kernel
def step(st, R, fns, params, decks, rounds_rows, bufs, tr, turns):
    """Advance the game by one transition: PH.DEAL deals, PH.TURN plays one turn (and scores
    the round if it ends), PH.SETTLE settles the round (rebuys, elimination, game end).

    ``decks[r]`` (top first), when ``r < len(decks)`` and the row starts with a card >= 0,
    is the deck of round r+1 instead of a shuffle. ``rounds_rows[r, q, RR_*]`` receives each
    round's per-seat record when it has room. ``turns``: :func:`play_turns`, handed over as a
    first-class function (:class:`sim.loba.kernel.Engine`: the two compile apart). Returns the
    new phase (PH_*).
    """
    g = st.g
    s = st.s
    phase = g[G.PHASE]
    if phase == PH.DEAL:
        r = g[G.ROUND]
        if r >= R[RULE.MAX_ROUNDS_PER_GAME]:  # [A14b] unfinished: the pot goes back
            for q in range(g[G.NP]):
                s[q, S.WON] = s[q, S.PAID]
            g[G.DONE] = 1
            finish_places(st)
            g[G.PHASE] = PH.DONE
            if tracing(tr):
                ev(tr, E.END, r, -1, -1, r, g[G.POT], 0)
            return PH.DONE
        g[G.ROUND] += 1
        k = min(r, decks.shape[0] - 1)
        dn = g[G.DECK_N] if (r < decks.shape[0] and decks[k, 0] >= 0) else 0
        deal_round(st, R, decks[k], dn, tr)
        g[G.VOID_REASON] = VOID.NONE
        g[G.PHASE] = PH.TURN
        return PH.TURN
    if phase == PH.TURN:
        return turns(st, R, fns, params, bufs, tr, 1)
    if phase == PH.SETTLE:
        settle(st, R, fns, params, bufs, rounds_rows, tr)
    return g[G.PHASE]

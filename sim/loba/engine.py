"""The Loba de Menos state machine: deal, turns, round scoring, elimination, rebuys, the pot.

One function per phase: :func:`deal_round` ([A5]-[A8]), :func:`play_turn` ([A9]-[A14],
[A20]-[A26]), :func:`score_round` ([A27]-[A28]), :func:`settle_round` ([A29]-[A33]); and
:func:`play_game` runs them to the end of a game. All of them work on a :class:`State`
(sim.loba.layout), so a game can be copied at any point and played on.

Policies are called through four tuples of first-class functions (one entry per seat), all of
signature :data:`sim.policies.api.DECIDE_SIG`; they receive only the deciding seat's hand, the
table melds, the discard pile and the public array ``pub`` (RULES.md A.8), never another hand
or the stock order.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit, kernel
from ..rng import below, shuffle
from ..rules import (
    JOKER_DISCARD_LAST_ONLY,
    PIERNA_NOT_ALL_FOUR,
    R_ACE_VALUE,
    R_DECKS,
    R_DISCARD_TAKE,
    R_ELIM,
    R_ESCALERA_MIN,
    R_GO_OUT_DISCARD,
    R_HAND_SIZE,
    R_HAS_FLOOR,
    R_JOKER_DISCARD,
    R_JOKER_VALUE,
    R_JOKERS,
    R_JOKERS_PER_ESC,
    R_LAYOFF_OWN_MELD,
    R_MAX_REBUYS,
    R_MAX_ROUNDS,
    R_MAX_TURNS,
    R_ONE_TURN_BONUS,
    R_PIERNA_SUITS,
    R_REBUY_COST,
    R_REBUY_ONE_SURVIVOR,
    R_RESHUFFLE_KEEP_TOP,
    R_SCORE_FLOOR,
    R_SIZE,
    R_STAKE,
    TAKE_NEW_MELD_ONLY,
)
from .layout import (
    A_HI,
    A_KEY,
    A_KIND,
    A_LO,
    A_TYPE,
    AF,
    DEC_DISCARD,
    DEC_DRAW,
    DEC_PLAY,
    DEC_REBUY,
    DRAW_DISCARD,
    DRAW_STOCK,
    EF,
    EV_A,
    EV_B,
    EV_C,
    EV_D,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAW,
    EV_ELIM,
    EV_END,
    EV_LAYOFF,
    EV_LEN,
    EV_MELD,
    EV_OFF,
    EV_OUT,
    EV_OVER,
    EV_REBUILD,
    EV_REBUY,
    EV_ROUND,
    EV_SCORE,
    EV_SEAT,
    EV_TYPE,
    EV_VOID,
    G_BONUSES,
    G_CUR,
    G_DEALER,
    G_DECISIONS,
    G_DECK_N,
    G_DONE,
    G_FIRST_DEALER,
    G_NMELDS,
    G_NP,
    G_OUT,
    G_PHASE,
    G_PILE_N,
    G_POT,
    G_RESHUFFLES,
    G_RESHUFFLES_TOTAL,
    G_ROUND,
    G_STOCK_N,
    G_TAKEN,
    G_TURN,
    G_TURNS,
    G_VOID_REASON,
    G_VOIDS,
    G_WINNER,
    GF,
    HAND_W,
    JOKER,
    M_C0,
    M_HI,
    M_JMASK,
    M_KEY,
    M_KIND,
    M_LO,
    MAX_ACTS,
    MAX_CARDS,
    MAX_MELDS,
    MAX_SEATS,
    MELD_ESCALERA,
    MF,
    N_IDS,
    PH_DEAL,
    PH_DONE,
    PH_SETTLE,
    PH_TURN,
    PLAY_LAYOFF,
    PLAY_MELD,
    PUB_ACTIVE,
    PUB_DEALER,
    PUB_DECISION,
    PUB_HAND_N,
    PUB_MELDED,
    PUB_NMELDS,
    PUB_NP,
    PUB_PILE_N,
    PUB_PLACED,
    PUB_REBUY_SCORE,
    PUB_REBUYS,
    PUB_ROUND,
    PUB_RULES,
    PUB_SCORE,
    PUB_SEAT,
    PUB_SIZE,
    PUB_STATUS,
    PUB_STOCK_N,
    PUB_TAKEN,
    PUB_TURN,
    RR_BONUS,
    RR_DEALER,
    RR_OUT,
    RR_PENALTY,
    RR_RESHUFFLES,
    RR_SCORE,
    RR_STATUS,
    RR_TURNS,
    RR_VOID,
    RS_ACTIVE,
    RS_ELIMINATED,
    RS_OVER,
    RS_REBOUGHT,
    S_BONUS,
    S_ELIM_ROUND,
    S_HAND_N,
    S_MELDED,
    S_PAID,
    S_PENALTY,
    S_PLACE,
    S_PLACED,
    S_REBUYS,
    S_SCORE,
    S_STATUS,
    S_WON,
    SF,
    ST_ACTIVE,
    ST_OUT,
    ST_OVER,
    VOID_NONE,
    VOID_STOCK,
    VOID_TURN_CAP,
    State,
)
from .moves import (
    apply_play,
    bit_index,
    consumes,
    gen_layoffs,
    gen_new_melds,
    hand_value,
    has_window,
    held_bits,
    popcount,
    pos_card,
    suit_positions,
)

TURN_ON = 0
TURN_OUT = 1
TURN_VOID = 2


@jit
def new_state():
    """A blank game state (all arrays zeroed)."""
    return State(
        np.zeros((MAX_SEATS, HAND_W), dtype=np.int8),
        np.zeros((MAX_MELDS, MF), dtype=np.int16),
        np.zeros(MAX_CARDS, dtype=np.int16),
        np.zeros(MAX_CARDS, dtype=np.int16),
        np.zeros(GF, dtype=np.int64),
        np.zeros((MAX_SEATS, SF), dtype=np.int64),
        np.zeros(4, dtype=np.uint64),
    )


@jit
def copy_state(src, dst):
    """Copy every array of ``src`` into ``dst`` (fork a game)."""
    dst.hands[:] = src.hands
    dst.melds[:] = src.melds
    dst.stock[:] = src.stock
    dst.pile[:] = src.pile
    dst.g[:] = src.g
    dst.s[:] = src.s
    dst.rng[:] = src.rng


@kernel
def copy_rows(src, dst, n):
    """dst[:n] = src[:n] for 1-D arrays, without a temporary (no allocation)."""
    for i in range(n):
        dst[i] = src[i]


@kernel
def copy_rows2(src, dst, n):
    """dst[:n, :] = src[:n, :] for 2-D arrays, without a temporary (no allocation)."""
    for i in range(n):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@kernel
def ev(tr, typ, rnd, seat, a, b, c, d):
    """Append one event row; returns its index (-1 when off or full: cnt[2] marks overflow)."""
    evs, pay, cnt = tr
    i = cnt[0]
    if i >= evs.shape[0]:
        if evs.shape[0] > 0:
            cnt[2] = 1
        return -1
    evs[i, EV_TYPE] = typ
    evs[i, EV_ROUND] = rnd
    evs[i, EV_SEAT] = seat
    evs[i, EV_A] = a
    evs[i, EV_B] = b
    evs[i, EV_C] = c
    evs[i, EV_D] = d
    evs[i, EV_OFF] = cnt[1]
    evs[i, EV_LEN] = 0
    cnt[0] = i + 1
    return i


@kernel
def ev_push(tr, i, value):
    """Append ``value`` to the payload of event ``i``."""
    evs, pay, cnt = tr
    if i < 0:
        return
    j = cnt[1]
    if j >= pay.shape[0]:
        cnt[2] = 1
        return
    pay[j] = value
    cnt[1] = j + 1
    evs[i, EV_LEN] += 1


@kernel
def ev_stock(tr, st, i):
    """Payload: the stock, top first."""
    for k in range(st.g[G_STOCK_N] - 1, -1, -1):
        ev_push(tr, i, st.stock[k])


@kernel
def next_active(st, seat):
    """[A5]/[A8] the next seat clockwise (to the left) that is still in the game."""
    np_ = st.g[G_NP]
    for k in range(1, np_ + 1):
        q = (seat + k) % np_
        if st.s[q, S_STATUS] == ST_ACTIVE:
            return q
    return seat


@kernel
def n_active(st):
    c = 0
    for q in range(st.g[G_NP]):
        if st.s[q, S_STATUS] == ST_ACTIVE:
            c += 1
    return c


@kernel
def start_game(st, R, n_players, first_dealer):
    """[A4] stakes into the pot, [A5] first dealer (seeded random unless given)."""
    g = st.g
    s = st.s
    g[:] = 0
    s[:, :] = 0
    g[G_NP] = n_players
    g[G_WINNER] = -1
    g[G_TAKEN] = -1
    g[G_OUT] = -1
    g[G_DECK_N] = 52 * R[R_DECKS] + R[R_JOKERS]
    for q in range(n_players):
        s[q, S_STATUS] = ST_ACTIVE
        s[q, S_PAID] = R[R_STAKE]
        s[q, S_ELIM_ROUND] = -1
        g[G_POT] += R[R_STAKE]
    if first_dealer < 0:
        first_dealer = below(st.rng, n_players)
    g[G_DEALER] = first_dealer
    g[G_FIRST_DEALER] = first_dealer
    g[G_PHASE] = PH_DEAL


@kernel
def deal_round(st, R, deck, deck_n, tr):
    """[A6]-[A7]: deal from ``deck[:deck_n]`` (top first) if ``deck_n > 0``, else shuffle."""
    g = st.g
    n = g[G_DECK_N]
    stock = st.stock
    if deck_n > 0:
        for i in range(n):
            stock[n - 1 - i] = deck[i]
    else:
        k = 0
        for cid in range(52):
            for _ in range(R[R_DECKS]):
                stock[k] = cid
                k += 1
        for _ in range(R[R_JOKERS]):
            stock[k] = JOKER
            k += 1
        shuffle(st.rng, stock, n)
    g[G_STOCK_N] = n
    st.hands[:, :] = 0
    st.melds[:, :] = 0
    st.pile[:] = -1
    g[G_NMELDS] = 0
    g[G_TURN] = 0
    g[G_RESHUFFLES] = 0
    g[G_TAKEN] = -1
    for q in range(g[G_NP]):
        st.s[q, S_HAND_N] = 0
        st.s[q, S_MELDED] = 0
        st.s[q, S_PLACED] = 0
        st.s[q, S_PENALTY] = 0
        st.s[q, S_BONUS] = 0
    first = next_active(st, g[G_DEALER])
    for _ in range(R[R_HAND_SIZE]):  # one card at a time, from the dealer's left
        q = first
        while True:
            c = stock[g[G_STOCK_N] - 1]
            g[G_STOCK_N] -= 1
            st.hands[q, c] += 1
            st.s[q, S_HAND_N] += 1
            q = next_active(st, q)
            if q == first:
                break
    st.pile[0] = stock[g[G_STOCK_N] - 1]  # [A7] up-card, a joker included
    g[G_STOCK_N] -= 1
    g[G_PILE_N] = 1
    g[G_CUR] = first  # [A8]
    if tr is not None:
        i = ev(tr, EV_DEAL, g[G_ROUND], -1, g[G_DEALER], st.pile[0], 0, 0)
        for q in range(g[G_NP]):
            ev_push(tr, i, st.s[q, S_HAND_N])
            for c in range(N_IDS):
                for _ in range(st.hands[q, c]):
                    ev_push(tr, i, c)
        ev_stock(tr, st, i)


@kernel
def rebuild_stock(st, R, tr):
    """[A13] rebuild an empty stock from the discard pile; False when nothing can be moved."""
    g = st.g
    pn = g[G_PILE_N]
    keep = 1 if R[R_RESHUFFLE_KEEP_TOP] == 1 else 0
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
    g[G_PILE_N] = keep
    g[G_STOCK_N] = k
    g[G_RESHUFFLES] += 1
    g[G_RESHUFFLES_TOTAL] += 1
    if tr is not None:
        ev_stock(tr, st, ev(tr, EV_REBUILD, g[G_ROUND], -1, 0, 0, 0, 0))
    return True


@kernel(inline="always")
def fill_pub(st, R, seat, pub, decision):
    """The public view of RULES.md A.8 for ``seat``."""
    g = st.g
    s = st.s
    pub[PUB_SEAT] = seat
    pub[PUB_NP] = g[G_NP]
    pub[PUB_STOCK_N] = g[G_STOCK_N]
    pub[PUB_PILE_N] = g[G_PILE_N]
    pub[PUB_ROUND] = g[G_ROUND]
    pub[PUB_TURN] = g[G_TURN]
    pub[PUB_DEALER] = g[G_DEALER]
    pub[PUB_MELDED] = s[seat, S_MELDED]
    pub[PUB_PLACED] = s[seat, S_PLACED]
    pub[PUB_TAKEN] = g[G_TAKEN]
    pub[PUB_NMELDS] = g[G_NMELDS]
    pub[PUB_DECISION] = decision
    act = 0
    for q in range(MAX_SEATS):
        if q < g[G_NP]:
            pub[PUB_HAND_N + q] = s[q, S_HAND_N]
            pub[PUB_SCORE + q] = s[q, S_SCORE]
            pub[PUB_REBUYS + q] = s[q, S_REBUYS]
            pub[PUB_STATUS + q] = s[q, S_STATUS]
            if s[q, S_STATUS] != ST_OUT:
                act += 1
        else:
            pub[PUB_HAND_N + q] = 0
            pub[PUB_SCORE + q] = 0
            pub[PUB_REBUYS + q] = 0
            pub[PUB_STATUS + q] = ST_OUT
    pub[PUB_ACTIVE] = act


@kernel(inline="always")
def may_layoff(st, R, seat):
    """[A20] lay-offs need a meld of one's own this round (unless the knob is off)."""
    return R[R_LAYOFF_OWN_MELD] == 0 or st.s[seat, S_MELDED] == 1


@kernel(inline="always")
def gen_plays(st, R, seat, acts):
    """Every play the seat may make now (new melds, then lay-offs)."""
    hand = st.hands[seat]
    hn = st.s[seat, S_HAND_N]
    n = gen_new_melds(hand, hn, R, acts, 0)
    if may_layoff(st, R, seat):
        n = gen_layoffs(hand, hn, st.melds, st.g[G_NMELDS], R, acts, n)
    return n


@kernel(inline="always")
def do_play(st, seat, act, tr):
    """Apply a legal play for ``seat`` and keep the counters right."""
    hand = st.hands[seat]
    before = 0
    for i in range(N_IDS):
        before += hand[i]
    if st.g[G_TAKEN] >= 0 and consumes(act, hand, st.g[G_TAKEN]):
        st.g[G_TAKEN] = -1  # [A12] a card of the taken identity reached the table
    nm = st.g[G_NMELDS]
    st.g[G_NMELDS] = apply_play(hand, st.melds, nm, act, seat)
    if tr is not None:
        if act[A_TYPE] == PLAY_MELD:
            row = st.melds[nm]
            i = ev(tr, EV_MELD, st.g[G_ROUND], seat, nm, row[M_KIND], row[M_KEY], 0)
            if row[M_KIND] == MELD_ESCALERA:
                ev_push(tr, i, row[M_LO])
                ev_push(tr, i, row[M_HI])
                ev_push(tr, i, row[M_JMASK])
            else:
                for t in range(4):
                    ev_push(tr, i, row[M_C0 + t])
        else:
            if tr is not None:
                ev(
                    tr,
                    EV_LAYOFF,
                    st.g[G_ROUND],
                    seat,
                    act[A_KIND],
                    act[A_KEY],
                    act[A_LO],
                    act[A_HI],
                )
    after = 0
    for i in range(N_IDS):
        after += hand[i]
    st.s[seat, S_HAND_N] = after
    st.s[seat, S_PLACED] = 1
    if act[A_TYPE] == PLAY_MELD:
        st.s[seat, S_MELDED] = 1
    return before - after


@kernel
def _chain_to(hand, melds, nm, R, c, plan, k):
    """[A12]/[A21] lay hand cards onto one escalera toward the natural ``c``, then ``c``.

    Works on the given (scratch) hand and melds; appends the plays to ``plan`` from row ``k``
    and returns the new row count, or -1 when no escalera can be reached this way.
    """
    if c == JOKER:
        return -1
    s = c // 13
    r = c % 13 + 1
    jpe = R[R_JOKERS_PER_ESC]
    for i in range(nm):
        if melds[i, M_KIND] != MELD_ESCALERA or melds[i, M_KEY] != s:
            continue
        lo = int(melds[i, M_LO])
        hi = int(melds[i, M_HI])
        free_j = jpe - popcount(melds[i, M_JMASK])
        for side in range(2):
            p = r
            if r == 1:
                p = 14 if side == 1 else 1
            if side == 1 and p <= hi + 1:
                continue
            if side == 0 and p >= lo - 1:
                continue
            if side == 1 and p - lo + 1 > 13:
                continue
            if side == 0 and hi - p + 1 > 13:
                continue
            # positions strictly between the end and p
            need_j = 0
            ok = True
            a = hi + 1 if side == 1 else p + 1
            b = p - 1 if side == 1 else lo - 1
            for q in range(a, b + 1):
                cq = pos_card(q, s)
                if hand[cq] == 0 or cq == c:
                    need_j += 1
            if need_j > free_j or need_j > hand[JOKER]:
                ok = False
            if not ok:
                continue
            kk = k
            rng_a = a if side == 1 else b
            step = 1 if side == 1 else -1
            q = rng_a
            for _ in range(b - a + 1):
                cq = pos_card(q, s)
                if hand[cq] > 0 and cq != c:
                    card = cq
                else:
                    card = JOKER
                plan[kk, A_TYPE] = PLAY_LAYOFF
                plan[kk, A_KIND] = i
                plan[kk, A_KEY] = card
                plan[kk, A_LO] = q
                plan[kk, A_HI] = 0
                kk += 1
                q += step
            plan[kk, A_TYPE] = PLAY_LAYOFF
            plan[kk, A_KIND] = i
            plan[kk, A_KEY] = c
            plan[kk, A_LO] = p
            plan[kk, A_HI] = 0
            return kk + 1
    return -1


@kernel(inline="always")
def take_may_work(st, R, seat, c):
    """Cheap necessary condition for :func:`plan_take` (most turns fail it)."""
    if c == JOKER:
        return True
    hand = st.hands[seat]
    r = c % 13 + 1
    s = c // 13
    others = 0
    total = 0
    for t in range(4):
        k = hand[t * 13 + r - 1]
        total += k
        if t != s and k > 0:
            others += 1
    if others >= 2 or (R[R_PIERNA_SUITS] == PIERNA_NOT_ALL_FOUR and total >= 2):
        return True
    m = suit_positions(hand, s)
    m |= 1 << r
    if r == 1:
        m |= 1 << 14
    if has_window(m, min(hand[JOKER], R[R_JOKERS_PER_ESC]), R[R_ESCALERA_MIN]):
        return True
    if R[R_DISCARD_TAKE] == TAKE_NEW_MELD_ONLY:
        return False
    for i in range(st.g[G_NMELDS]):
        if st.melds[i, M_KIND] != MELD_ESCALERA:
            if st.melds[i, M_KEY] == r:
                return True
        elif st.melds[i, M_KEY] == s:
            lo = int(st.melds[i, M_LO])
            hi = int(st.melds[i, M_HI])
            for k in range(2 if r == 1 else 1):
                p = r if r != 1 else (1 if k == 0 else 14)
                if lo - 1 <= p <= hi + 1:
                    return True
                if p > hi + 1 and (hand[pos_card(hi + 1, s)] > 0 or hand[JOKER] > 0):
                    return True
                if p < lo - 1 and (hand[pos_card(lo - 1, s)] > 0 or hand[JOKER] > 0):
                    return True
    return False


@kernel
def plan_take(st, R, seat, c, plan, acts, sh, sm):
    """[A11]/[A12] can ``seat`` take the top discard ``c`` and put it on the table this turn?

    Returns 0 if not. Returns 1 when some single play right after the draw puts ``c`` down (the
    policy then chooses among those plays). Returns k > 1 when a sequence is needed: ``plan``
    rows 0..k-1 hold it (a meld of one's own first, [A20], and/or lay-offs that extend an
    escalera toward ``c``). The search covers: a new meld with ``c``; a direct lay-off of
    ``c`` (ends, [A22] joker move); a meld from hand first; a chain of lay-offs onto one
    escalera. ``sh`` / ``sm`` are scratch hand / meld arrays.
    """
    hand = st.hands[seat]
    hn = st.s[seat, S_HAND_N] + 1
    keep_one = R[R_GO_OUT_DISCARD] == 1
    copy_rows(hand, sh, N_IDS)
    sh[c] += 1
    nm = st.g[G_NMELDS]
    n = gen_new_melds(sh, hn, R, acts, 0)
    if R[R_DISCARD_TAKE] == TAKE_NEW_MELD_ONLY:
        for i in range(n):
            if consumes(acts[i], sh, c):
                return 1
        return 0
    melded = may_layoff(st, R, seat)
    nmeld = n
    if melded:
        n = gen_layoffs(sh, hn, st.melds, nm, R, acts, n)
    for i in range(n):
        if consumes(acts[i], sh, c):
            return 1
    if melded:
        copy_rows2(st.melds, sm, nm)
        k = _chain_to(sh, sm, nm, R, c, plan, 0)
        if k > 0 and not (keep_one and hn - k < 1):
            return k
        return 0
    # a meld of one's own first (one not using c), then a lay-off or a chain
    for j in range(nmeld):
        if consumes(acts[j], sh, c):
            continue
        copy_rows(hand, sh, N_IDS)
        sh[c] += 1
        copy_rows2(st.melds, sm, nm)
        copy_rows(acts[j], plan[0], AF)
        used = acts[j, 6]
        nm2 = apply_play(sh, sm, nm, acts[j], seat)
        k = _chain_to(sh, sm, nm2, R, c, plan, 1)
        if k < 0:
            n2 = gen_layoffs(sh, hn - used, sm, nm2, R, acts[nmeld:], 0)
            for i in range(n2):
                if acts[nmeld + i, A_KEY] == c:
                    copy_rows(acts[nmeld + i], plan[1], AF)
                    k = 2
                    break
        if k > 0 and not (keep_one and hn - used - (k - 1) < 1):
            return k
    return 0


@kernel(inline="always")
def _decide(fn, st, R, seat, pub, params, acts, n, decision):
    fill_pub(st, R, seat, pub, decision)
    st.g[G_DECISIONS] += 1
    return fn(st.hands[seat, :N_IDS], st.melds, st.pile, pub, params[seat], st.rng[2:], acts, n)


@kernel(inline="always")
def play_turn(st, R, seat, draw_fns, play_fns, discard_fns, params, acts, plan, pub, sh, sm, tr):
    """One turn of ``seat`` ([A9]-[A14], [A20]-[A26]). Returns TURN_ON, TURN_OUT or TURN_VOID."""
    g = st.g
    s = st.s
    hand = st.hands[seat]
    if g[G_STOCK_N] == 0:
        rebuild_stock(st, R, tr)  # [A13]
    top = st.pile[g[G_PILE_N] - 1] if g[G_PILE_N] > 0 else -1
    kplan = 0
    if top >= 0 and take_may_work(st, R, seat, top):
        kplan = plan_take(st, R, seat, top, plan, acts, sh, sm)
    if g[G_STOCK_N] == 0 and kplan == 0:
        g[G_VOID_REASON] = VOID_STOCK  # [A14]
        return TURN_VOID
    nopt = 0
    if g[G_STOCK_N] > 0:
        acts[nopt, 0] = DRAW_STOCK
        nopt += 1
    if kplan > 0:
        acts[nopt, 0] = DRAW_DISCARD
        nopt += 1
    ch = 0
    if nopt > 1:
        ch = _decide(draw_fns[seat], st, R, seat, pub, params, acts, nopt, DEC_DRAW)
        if ch < 0 or ch >= nopt:
            ch = 0
    if acts[ch, 0] == DRAW_DISCARD:
        g[G_PILE_N] -= 1
        st.pile[g[G_PILE_N]] = -1
        hand[top] += 1
        s[seat, S_HAND_N] += 1
        g[G_TAKEN] = top
        if tr is not None:
            ev(tr, EV_DRAW, g[G_ROUND], seat, DRAW_DISCARD, top, 0, 0)
        if kplan == 1:  # the policy picks which play puts the card down
            n = gen_plays(st, R, seat, acts)
            m = 0
            only_melds = R[R_DISCARD_TAKE] == TAKE_NEW_MELD_ONLY
            for i in range(n):
                if only_melds and acts[i, A_TYPE] != PLAY_MELD:
                    continue
                if consumes(acts[i], hand, top):
                    copy_rows(acts[i], acts[m], AF)
                    m += 1
            k = 0
            if m > 1:
                k = _decide(play_fns[seat], st, R, seat, pub, params, acts, m, DEC_PLAY)
                if k < 0 or k >= m:
                    k = 0
            if m > 0:  # plan_take found this play; m == 0 would be an engine bug
                do_play(st, seat, acts[k], tr)
        else:
            for i in range(kplan):
                do_play(st, seat, plan[i], tr)
        g[G_TAKEN] = -1
    else:
        g[G_STOCK_N] -= 1
        hand[st.stock[g[G_STOCK_N]]] += 1
        s[seat, S_HAND_N] += 1
        if tr is not None:
            ev(tr, EV_DRAW, g[G_ROUND], seat, DRAW_STOCK, st.stock[g[G_STOCK_N]], 0, 0)
    # [A9] any number of plays, in any order
    while s[seat, S_HAND_N] > 0:
        n = gen_plays(st, R, seat, acts)
        if n == 0:
            break
        k = _decide(play_fns[seat], st, R, seat, pub, params, acts, n, DEC_PLAY)
        if k < 0 or k >= n:
            break
        do_play(st, seat, acts[k], tr)
    if s[seat, S_HAND_N] == 0:
        return TURN_OUT  # [A25] out by plays
    # discard ([A24] jokers only when the hand is all jokers, unless allowed)
    hn = s[seat, S_HAND_N]
    only_jokers = hand[JOKER] == hn
    n = 0
    held = held_bits(hand)[0] & ((1 << JOKER) - 1)  # the naturals held, one bit each
    while held:
        low = held & -held
        acts[n, 0] = bit_index(low)
        n += 1
        held ^= low
    if hand[JOKER] > 0 and (R[R_JOKER_DISCARD] != JOKER_DISCARD_LAST_ONLY or only_jokers):
        acts[n, 0] = JOKER
        n += 1
    k = 0
    if n > 1:
        k = _decide(discard_fns[seat], st, R, seat, pub, params, acts, n, DEC_DISCARD)
        if k < 0 or k >= n:
            k = 0
    cid = acts[k, 0]
    hand[cid] -= 1
    s[seat, S_HAND_N] -= 1
    st.pile[g[G_PILE_N]] = cid
    g[G_PILE_N] += 1
    if tr is not None:
        ev(tr, EV_DISCARD, g[G_ROUND], seat, 0, cid, 0, 0)
    if s[seat, S_HAND_N] == 0:
        return TURN_OUT  # [A25] out by the last discard
    return TURN_ON


@kernel
def score_round(st, R, out):
    """[A27]/[A28] apply the round's penalties and the one-turn bonus all at once."""
    s = st.s
    for q in range(st.g[G_NP]):
        if s[q, S_STATUS] != ST_ACTIVE:
            continue
        if q == out:
            pen = -R[R_ONE_TURN_BONUS] if s[q, S_BONUS] == 1 else 0
        else:
            pen = hand_value(st.hands[q], R[R_ACE_VALUE], R[R_JOKER_VALUE])
        old = s[q, S_SCORE]
        new = old + pen
        if R[R_HAS_FLOOR] == 1 and new < R[R_SCORE_FLOOR]:
            new = R[R_SCORE_FLOOR]
        s[q, S_PENALTY] = new - old
        s[q, S_SCORE] = new
    if out >= 0 and s[out, S_BONUS] == 1:
        st.g[G_BONUSES] += 1


@kernel
def settle_round(st, R, rebuy_fns, params, bufs, rstat, tr):
    """[A29]-[A33] mark over, resolve rebuys, eliminate, and end the game if one is left.

    ``rstat[q]`` receives each seat's round status (RS_*).
    """
    acts, pub = bufs[0], bufs[2]
    g = st.g
    s = st.s
    np_ = g[G_NP]
    n_over = 0
    n_surv = 0
    target = -(1 << 40)
    for q in range(np_):
        if s[q, S_STATUS] != ST_ACTIVE:
            rstat[q] = RS_ELIMINATED
            continue
        rstat[q] = RS_ACTIVE
        if s[q, S_SCORE] >= R[R_ELIM]:
            s[q, S_STATUS] = ST_OVER
            n_over += 1
            if tr is not None:
                ev(tr, EV_OVER, g[G_ROUND], q, s[q, S_SCORE], 0, 0, 0)
        else:
            n_surv += 1
            if s[q, S_SCORE] > target:
                target = s[q, S_SCORE]
    if n_over > 0:
        rebuy_open = n_surv >= 2 or (n_surv == 1 and R[R_REBUY_ONE_SURVIVOR] == 1)  # [A31]
        for q in range(np_):
            if s[q, S_STATUS] != ST_OVER:
                continue
            yes = 0
            if rebuy_open and s[q, S_REBUYS] < R[R_MAX_REBUYS]:  # [A30]
                acts[0, 0] = 0
                acts[1, 0] = 1
                fill_pub(st, R, q, pub, DEC_REBUY)
                pub[PUB_REBUY_SCORE] = target
                g[G_DECISIONS] += 1
                yes = rebuy_fns[q](
                    st.hands[q, :N_IDS], st.melds, st.pile, pub, params[q], st.rng[2:], acts, 2
                )
            if yes == 1:
                s[q, S_REBUYS] += 1
                s[q, S_PAID] += R[R_REBUY_COST]
                g[G_POT] += R[R_REBUY_COST]
                s[q, S_SCORE] = target
                rstat[q] = RS_REBOUGHT
                if tr is not None:
                    ev(tr, EV_REBUY, g[G_ROUND], q, target, g[G_POT], s[q, S_REBUYS], 0)
            else:  # [A32]
                rstat[q] = RS_OVER
        for q in range(np_):
            if s[q, S_STATUS] == ST_OVER:
                if rstat[q] == RS_REBOUGHT:
                    s[q, S_STATUS] = ST_ACTIVE
                else:
                    s[q, S_STATUS] = ST_OUT
                    s[q, S_ELIM_ROUND] = g[G_ROUND]
                    if tr is not None:
                        ev(tr, EV_ELIM, g[G_ROUND], q, s[q, S_SCORE], 0, 0, 0)
    if n_active(st) <= 1:  # [A33]
        for q in range(np_):
            if s[q, S_STATUS] == ST_ACTIVE:
                g[G_WINNER] = q
                s[q, S_WON] = g[G_POT]
        g[G_DONE] = 1


@kernel
def finish_places(st):
    """Place 1 = winner; the others by how long they lasted (ties share a place)."""
    s = st.s
    np_ = st.g[G_NP]
    big = 1 << 30
    for q in range(np_):
        kq = big if s[q, S_ELIM_ROUND] < 0 else s[q, S_ELIM_ROUND]
        better = 0
        for o in range(np_):
            ko = big if s[o, S_ELIM_ROUND] < 0 else s[o, S_ELIM_ROUND]
            if ko > kq:
                better += 1
        s[q, S_PLACE] = better + 1


@jit
def new_bufs(R):
    """Scratch arrays for one game: acts, plan, pub (rules filled in), hand, melds, statuses."""
    pub = np.zeros(PUB_SIZE, dtype=np.int32)
    for i in range(R_SIZE):
        pub[PUB_RULES + i] = R[i]
    return (
        np.zeros((MAX_ACTS, AF), dtype=np.int16),
        np.zeros((MAX_CARDS, AF), dtype=np.int16),
        pub,
        np.zeros(HAND_W, dtype=np.int8),
        np.zeros((MAX_MELDS, MF), dtype=np.int16),
        np.zeros(MAX_SEATS, dtype=np.int64),
    )


@jit
def new_trace(ev_cap, pay_cap):
    """An event trace buffer: events int32[ev_cap, EF], payload int16[pay_cap], counters
    int64[3] (events, payload used, overflow). Pass it as ``tr`` to :func:`step` /
    :func:`play_game`; pass ``None`` for no trace (the batch kernel): Numba then compiles every
    ``if tr is not None`` block away, so batches pay nothing for tracing."""
    return (
        np.zeros((ev_cap, EF), dtype=np.int32),
        np.zeros(pay_cap, dtype=np.int16),
        np.zeros(3, dtype=np.int64),
    )


@kernel
def end_round(st, R, out, tr):
    """A round ended (``out`` went out, or -1: void). Score it at once ([A27]-[A28]); the
    settlement ([A29]-[A33]) is the next step, PH_SETTLE, so a game can be forked right
    before its rebuy decisions."""
    g = st.g
    g[G_OUT] = out
    if out < 0:  # [A14] void: no score changes
        g[G_VOIDS] += 1
        for q in range(g[G_NP]):
            st.s[q, S_PENALTY] = 0
        if tr is not None:
            ev(tr, EV_VOID, g[G_ROUND], -1, g[G_VOID_REASON], 0, 0, 0)
    else:
        score_round(st, R, out)
        if tr is not None:
            ev(tr, EV_OUT, g[G_ROUND], out, st.s[out, S_BONUS], 0, 0, 0)
            i = ev(tr, EV_SCORE, g[G_ROUND], -1, 0, 0, 0, 0)
            for q in range(g[G_NP]):
                ev_push(tr, i, st.s[q, S_PENALTY] if st.s[q, S_STATUS] == ST_ACTIVE else 0)
            for q in range(g[G_NP]):
                ev_push(tr, i, st.s[q, S_SCORE])
    g[G_PHASE] = PH_SETTLE


@kernel
def settle(st, R, rebuy_fns, params, bufs, rounds_rows, tr):
    """PH_SETTLE: over / rebuys / elimination / end of game ([A29]-[A33]); record the round;
    pass the deal ([A5])."""
    g = st.g
    s = st.s
    rstat = bufs[5]
    out = g[G_OUT]
    if out < 0:
        for q in range(g[G_NP]):
            rstat[q] = RS_ACTIVE if s[q, S_STATUS] == ST_ACTIVE else RS_ELIMINATED
    else:
        settle_round(st, R, rebuy_fns, params, bufs, rstat, tr)
    r = g[G_ROUND] - 1
    if r < rounds_rows.shape[0]:
        for q in range(g[G_NP]):
            row = rounds_rows[r, q]
            row[RR_DEALER] = g[G_DEALER]
            row[RR_OUT] = 1 if q == out else 0
            row[RR_BONUS] = 1 if q == out and s[q, S_BONUS] == 1 else 0
            row[RR_PENALTY] = s[q, S_PENALTY] if rstat[q] != RS_ELIMINATED else 0
            row[RR_SCORE] = s[q, S_SCORE]
            row[RR_STATUS] = rstat[q]
            row[RR_TURNS] = g[G_TURN]
            row[RR_RESHUFFLES] = g[G_RESHUFFLES]
            row[RR_VOID] = 1 if out < 0 else 0
    if g[G_DONE] == 1:
        finish_places(st)
        g[G_PHASE] = PH_DONE
        if tr is not None:
            ev(tr, EV_END, g[G_ROUND], g[G_WINNER], g[G_WINNER], g[G_ROUND], g[G_POT], 0)
    else:
        g[G_DEALER] = next_active(st, g[G_DEALER])  # [A5]
        g[G_PHASE] = PH_DEAL


@kernel
def play_turns(st, R, draw_fns, play_fns, discard_fns, params, bufs, tr, limit):
    """PH_TURN: play up to ``limit`` turns, fewer when the round ends (it is then scored,
    [A27]-[A28]). Returns the phase. The turn loop lives here, with :func:`play_turn` inlined,
    so that a batch pays one call per round instead of one per turn (measured: -15% per turn).
    """
    acts, plan, pub, sh, sm = bufs[0], bufs[1], bufs[2], bufs[3], bufs[4]
    g = st.g
    s = st.s
    for _ in range(limit):
        if g[G_PHASE] != PH_TURN:
            break
        seat = g[G_CUR]
        placed_before = s[seat, S_PLACED]
        res = play_turn(
            st, R, seat, draw_fns, play_fns, discard_fns, params, acts, plan, pub, sh, sm, tr
        )
        g[G_TURN] += 1
        g[G_TURNS] += 1
        if res == TURN_OUT:
            s[seat, S_BONUS] = 1 if placed_before == 0 else 0  # [A28]
            end_round(st, R, seat, tr)
        elif res == TURN_VOID:
            end_round(st, R, -1, tr)
        elif g[G_TURN] >= R[R_MAX_TURNS]:
            g[G_VOID_REASON] = VOID_TURN_CAP  # [A14]
            end_round(st, R, -1, tr)
        else:
            g[G_CUR] = next_active(st, seat)
    return g[G_PHASE]


@kernel
def step(st, R, draw_fns, play_fns, discard_fns, rebuy_fns, params, decks, rounds_rows, bufs, tr):
    """Advance the game by one transition: PH_DEAL deals, PH_TURN plays one turn (and scores
    the round if it ends), PH_SETTLE settles the round (rebuys, elimination, game end).

    ``decks[r]`` (top first), when ``r < len(decks)`` and the row starts with a card >= 0,
    is the deck of round r+1 instead of a shuffle. ``rounds_rows[r, q, RR_*]`` receives each
    round's per-seat record when it has room. Returns the new phase (PH_*).
    """
    g = st.g
    s = st.s
    phase = g[G_PHASE]
    if phase == PH_DEAL:
        r = g[G_ROUND]
        if r >= R[R_MAX_ROUNDS]:  # [A14b] unfinished: the pot goes back
            for q in range(g[G_NP]):
                s[q, S_WON] = s[q, S_PAID]
            g[G_DONE] = 1
            finish_places(st)
            g[G_PHASE] = PH_DONE
            if tr is not None:
                ev(tr, EV_END, r, -1, -1, r, g[G_POT], 0)
            return PH_DONE
        g[G_ROUND] += 1
        k = min(r, decks.shape[0] - 1)
        dn = g[G_DECK_N] if (r < decks.shape[0] and decks[k, 0] >= 0) else 0
        deal_round(st, R, decks[k], dn, tr)
        g[G_VOID_REASON] = VOID_NONE
        g[G_PHASE] = PH_TURN
        return PH_TURN
    if phase == PH_TURN:
        return play_turns(st, R, draw_fns, play_fns, discard_fns, params, bufs, tr, 1)
    if phase == PH_SETTLE:
        settle(st, R, rebuy_fns, params, bufs, rounds_rows, tr)
    return g[G_PHASE]


@kernel
def play_game(
    st, R, draw_fns, play_fns, discard_fns, rebuy_fns, params, decks, rounds_rows, bufs, tr
):
    """Run :func:`step` until the game is over (a round's turns in one :func:`play_turns`)."""
    while st.g[G_PHASE] != PH_DONE:
        if st.g[G_PHASE] == PH_TURN:
            play_turns(st, R, draw_fns, play_fns, discard_fns, params, bufs, tr, R[R_MAX_TURNS] + 1)
        else:
            step(
                st,
                R,
                draw_fns,
                play_fns,
                discard_fns,
                rebuy_fns,
                params,
                decks,
                rounds_rows,
                bufs,
                tr,
            )

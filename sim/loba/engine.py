"""The Loba de Menos state machine: deal, turns, round scoring, elimination, rebuys, the pot.

One function per phase: :func:`deal_round` ([A5]-[A8]), :func:`play_turn` ([A9]-[A14],
[A20]-[A26]), :func:`score_round` ([A27]-[A28]), :func:`settle_round` ([A29]-[A33]);
:func:`step` makes one transition, or all of them to the end of the game
(``sim.loba.kernel.play_game`` asks it for that: one call a game). All of them work on a
:class:`State` (sim.loba.layout), so a game can be copied at any point and played on.
Beside it: :mod:`sim.loba.state` (a blank state and scratch, forking, the start of a game,
the seats' order, the history), :mod:`sim.loba.options` (the plays a seat may make, whether
it may take the discard) and :mod:`sim.loba.gate` (the decision gate).

Policies are called through one tuple of first-class functions per decision kind (draw, play,
discard) and one for the rebuy rule (one entry per seat), all of signature
:data:`sim.loba.api.DECIDE_SIG`, always through the one gate :func:`~sim.loba.gate.decide`;
they receive only the deciding seat's hand, the table melds, the discard pile and the public
array ``pub`` (rules document A.8), never another hand or the stock order.
"""

from __future__ import annotations

import numpy as np

from ..events import ev, ev_push, tracing
from ..jit import kernel
from ..rng import shuffle
from ..stack import stack_array
from .gate import decide, own_greedy
from .greedy import (
    best_layoff_wanted,
    discard_natural,
    largest_meld_cover,
    may_go_out,
    may_go_out_masks,
)
from .layout import (
    DEC,
    DRAW,
    HT,
    JOKER,
    MAX_SEATS,
    MELD,
    N_IDS,
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
    M,
    S,
)
from .moves import apply_play, bit_index, hand_value, held_after, held_bits
from .options import (
    NO_MELD,
    best_placeable,
    gen_plays_with,
    keep_placeable,
    lay_wants,
    may_layoff,
    no_meld_with,
    take_may_work,
    take_search,
)
from .rules import JOKER_DISCARD, RULE
from .state import hist_add, n_active, next_seat
from .takes import places

TURN_ON = 0
TURN_OUT = 1
TURN_VOID = 2


@kernel
def ev_stock(tr, st, i):
    """Payload: the stock, top first."""
    for k in range(st.g[G.STOCK_N] - 1, -1, -1):
        ev_push(tr, i, st.stock[k])


@kernel(inline="always")
def deal_round(st, R, deck, deck_n, tr):
    """[A6]-[A7]: deal from ``deck[:deck_n]`` (top first) if ``deck_n > 0``, else shuffle.
    (Inlined into the step, as :func:`settle` is.)"""
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
    order = stack_array(MAX_SEATS, 0, np.int64)  # the seats dealt to, from the dealer's left
    na = 0
    q = first
    while True:
        order[na] = q
        na += 1
        q = next_seat(g, st.s, q)
        if q == first:
            break
    k = g[G.STOCK_N]
    for _ in range(R[RULE.HAND_SIZE]):  # one card at a time, from the dealer's left
        for j in range(na):
            k -= 1
            st.hands[order[j], stock[k]] += 1
    g[G.STOCK_N] = k
    for j in range(na):
        st.s[order[j], S.HAND_N] = R[RULE.HAND_SIZE]
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
def greedy_play(st, R, seat, acts, only, held):
    """The engine's own greedy's play when nothing is owed ([A12]), without listing the
    options :func:`~sim.loba.options.gen_plays_with` would list for ``only``: ``(0, new)``
    with its play in ``acts[0]`` (the largest new meld, else the first natural lay-off, else
    the first joker one: ``greedy.best_play`` of the list), ``(-1, 0)`` when there is no
    play, ``(-2, new)`` when greedy would look for a way out this turn (``greedy.may_go_out``
    on a superset of the cards the options cover: list them, and ask the gate). ``new``: 1
    when the list holds a new meld (what the turn asks of its count)."""
    hand = st.hands[seat]
    hn = st.s[seat, S.HAND_N]
    row = acts[0]
    found = False
    cover = 0
    if only == NO_MELD or (only >= 0 and only != JOKER and no_meld_with(hand, R, only, held)):
        pass
    else:
        found, cover = largest_meld_cover(hand, hn, R, only, held, row)
    lw = 0
    lay = may_layoff(st, R, seat)
    if lay:
        if st.g[G.LAY_OK] == 0:
            lay_wants(st.g, st.melds, R, -1)
        lw = held & st.g[G.LAY_WANT]  # (a superset of the cards the lay-offs put down)
    new = 1 if found else 0
    if not found and lw == 0:
        return -1, 0
    nm = st.g[G.NMELDS]
    if may_go_out_masks(hand, held, cover | lw, st.melds, nm, not lay):
        return -2, new
    if found:
        return 0, new
    wants = st.g[G.LAY_W : G.LAY_W + nm]
    if best_layoff_wanted(hand, hn, st.melds, nm, R, row, wants, held):
        return 0, new
    return -1, 0


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
            k = -2
            if g[G.TAKEN] < 0 and own_greedy(params, seat):
                # the engine's own greedy, nothing owed: its play without the option list
                # unless it may go out (greedy_play); the same answer and decision count
                k, new = greedy_play(st, R, seat, acts, only, held)
                if k == -1:
                    break
                if k == 0:
                    g[G.DECISIONS] += 1
            if k == -2:
                n, new = gen_plays_with(st, R, seat, acts, only, held)
                owed = g[G.TAKEN] >= 0
                if owed and 2 <= n <= 64 and own_greedy(params, seat):
                    # the engine's own greedy owes the taken card: unless it may go out, its
                    # play is the largest the rule keeps, found without testing every play
                    # (options.best_placeable; the same answer and decision count)
                    pub = bufs.pub
                    pub[PUB.MELDED] = s[seat, S.MELDED]
                    pub[PUB.NMELDS] = g[G.NMELDS]
                    nm = g[G.NMELDS]
                    if not may_go_out(hand[:N_IDS], st.melds[:nm], pub, acts[:n], n):
                        k, more = best_placeable(st, R, seat, g[G.TAKEN], acts, n, bufs)
                        if k < 0:
                            break
                        if more:
                            g[G.DECISIONS] += 1
                if k == -2:
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
            held = held_after(hand, held, acts[k])
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


@kernel(inline="always")
def settle(st, R, fns, params, bufs, rounds_rows, tr):
    """PH.SETTLE: over / rebuys / elimination / end of game ([A29]-[A33]); record the round;
    pass the deal ([A5]). (Inlined into the step: a call would pass the state, the seats'
    functions and the scratch, about 250 words, once a round.)"""
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
            out = seat
        elif res == TURN_VOID:
            out = -1
        elif g[G.TURN] >= R[RULE.MAX_TURNS_PER_ROUND]:
            g[G.VOID_REASON] = VOID.TURN_CAP  # [A14]
            out = -1
        else:
            g[G.CUR] = next_seat(g, s, seat)
            continue
        end_round(st, R, out, tr)
    return g[G.PHASE]


@kernel
def play_turns(st, R, fns, params, bufs, tr, limit):
    """The engine's :func:`turn_loop` (its own function and cache entry: the search policy's
    copy, typed on functions Numba pickles by value, would otherwise be read back with it in
    every process)."""
    return turn_loop(st, R, fns, params, bufs, tr, limit)


@kernel(inline="always")
def transition(st, R, fns, params, decks, rounds_rows, bufs, tr, turns, limit):
    """One transition of :func:`step` (a PH.TURN phase: up to ``limit`` turns)."""
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
        return turns(st, R, fns, params, bufs, tr, limit)
    if phase == PH.SETTLE:
        settle(st, R, fns, params, bufs, rounds_rows, tr)
    return g[G.PHASE]


@kernel
def step(st, R, fns, params, decks, rounds_rows, bufs, tr, turns, to_end):
    """Advance the game by one transition: PH.DEAL deals, PH.TURN plays one turn (and scores
    the round if it ends), PH.SETTLE settles the round (rebuys, elimination, game end); with
    ``to_end`` true, play on to the end of the game (a round's turns in one call of
    ``turns``): a batch then pays one call per game to get here, not three per round, each
    passing every array of the state and the scratch (measured: docs/performance.md).

    ``decks[r]`` (top first), when ``r < len(decks)`` and the row starts with a card >= 0,
    is the deck of round r+1 instead of a shuffle. ``rounds_rows[r, q, RR_*]`` receives each
    round's per-seat record when it has room. ``turns``: :func:`play_turns`, handed over as a
    first-class function (:class:`sim.loba.kernel.Engine`: the two compile apart). Returns the
    new phase (PH_*).
    """
    limit = R[RULE.MAX_TURNS_PER_ROUND] + 1 if to_end else 1
    while True:
        phase = transition(st, R, fns, params, decks, rounds_rows, bufs, tr, turns, limit)
        if not to_end or phase == PH.DONE:
            return phase

"""The one gate every decision of a Loba seat passes (:func:`decide`).

It fills the public view (RULES.md A.8, :func:`fill_pub`), counts the decision, hands the
seat's function its sealed view (:mod:`sim.loba.api`) and checks the answer (:func:`answer`:
a bad one is counted and read as the documented fallback). A seat is answered by the engine's
own greedy, through its arena (a plug-in, :func:`ask_arena`) or through the table of
first-class functions on the game's own arrays (:func:`ask_seat`).
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from .greedy import greedy_choice
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
    BUILTIN,
    DEC,
    HIST_CAP,
    MAX_SEATS,
    MEM_N,
    N_IDS,
    PARAMS_W,
    PUB,
    ST,
    A,
    G,
    H,
    M,
    S,
)


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
    any other seat by :func:`ask_seat`, inlined, on the game's own arrays (no copy).
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
        pub[PUB.TAKEN] = st.g[G.TAKEN]
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
def answer(s, seat, k, n, may_stop):
    """A seat's answer ``k`` checked: an option, "stop" where stopping is one, or a bad answer
    (counted in the seats' rows ``s``) read as the fallback. (``s``, not the whole state: a
    call passes every field of every array it is handed.)"""
    if k >= 0 and k < n:
        return k
    if may_stop and k == -1:
        return -1
    s[seat, S.BAD_ANSWERS] += 1
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
    return answer(st.s, seat, k, n, may_stop)


@kernel(inline="always")
def ask_seat(fn, st, R, seat, pub, params, acts, n, decision, may_stop):
    """:func:`decide` for a seat the engine has no copy of: the call through the table,
    inlined at each decision (an out-of-line call passed the whole state once more, about
    110 words a decision: -5.5% per turn for 4 x ``smart``, measured in docs/performance.md)."""
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
    return answer(st.s, seat, k, n, may_stop)

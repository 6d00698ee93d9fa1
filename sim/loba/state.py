"""The state of one Loba game and its scratch arrays: a blank :class:`~.layout.State` and
:class:`~.layout.Scratch`, forking (:func:`copy_state`), the start of a game ([A4]-[A5]), the
seats' order ([A5], [A8]) and the round's public history (layout ``H``). The phases that change
the state are :mod:`sim.loba.engine`'s.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit, kernel
from ..rng import below
from .layout import (
    AR_ACTS,
    ARENA_PAD,
    HAND_W,
    HIST_CAP,
    MAX_CARDS,
    MAX_MELDS,
    MAX_SEATS,
    MEM_N,
    PH,
    PUB,
    ST,
    A,
    G,
    H,
    M,
    S,
    Scratch,
    State,
)
from .moves import copy_rows, copy_rows2, options_bound
from .rules import RULE
from .takes import search_bound

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
def next_active(st, seat):
    """[A5]/[A8] the next seat clockwise (to the left) that is still in the game."""
    return next_seat(st.g, st.s, seat)


@kernel(inline="always")
def next_seat(g, s, seat):
    """:func:`next_active` from the game's ``g`` and ``s`` arrays (the turn loop inlines it: a
    call with the whole state passes every array of it)."""
    np_ = g[G.NP]
    for k in range(1, np_ + 1):
        q = seat + k  # (seat + k) % np_ without a division: seat < np_, k <= np_
        if q >= np_:
            q -= np_
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

"""The Toy Tricks engine: one compiled entry, :func:`run_games`, for batches and replays.

``run_games(R, n, seed, start, count, fns, params, games, seats, hands, tr)`` plays games
``start .. start+count-1`` of run ``seed`` with ``n`` players into row ``i`` of the record
arrays (:mod:`.schema`'s ``Table.empty_array``; ``hands`` is ``(1, 0, ...)`` when not
recorded). ``fns``: one ``play`` function per seat (:data:`~.policies.DECIDE_SIG`, padded to
:data:`~.layout.MAX_SEATS`); ``params`` float64[MAX_SEATS, k]; ``tr`` a
:class:`sim.events.Trace` (:data:`sim.events.NO_TRACE` in a batch). Game ``start+i`` draws
only from the streams of ``(seed, start+i)`` (:func:`sim.rng.seed_game`): the deal stream and
one stream per seat. The signature is fixed, so every seating shares one compiled kernel; it
releases the GIL.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types

from sim.events import NO_TRACE, ev, ev_push, tracing
from sim.jit import jit, kernel
from sim.rng import below, seed_game, shuffle

from .layout import END, HAND_SIZE, MAX_SEATS, N_CARDS, N_RNG, PUB, RANKS, E, G, S
from .policies import DECIDE_SIG
from .rules import RULE
from .schema import GR, HR, SR


@kernel
def decide(fn, q, n, R, g, s, hands, trick, params, rng, bufs, tr):
    """Ask seat ``q`` to choose among ``bufs[1][:n]`` (the legal cards); it gets copies of its
    cards, the public view, its parameters and its own stream. Returns the chosen card."""
    pub, acts, opts, own, pp, prng = bufs
    for i in range(RULE.SIZE):
        pub[PUB.RULES + i] = R[i]
    pub[PUB.SEAT] = q
    pub[PUB.N_PLAYERS] = n
    pub[PUB.HAND] = g[G.HAND]
    pub[PUB.TRICK] = g[G.TRICK]
    pub[PUB.LEADER] = g[G.LEADER]
    pub[PUB.NPLAYED] = trick[MAX_SEATS]
    for j in range(MAX_SEATS):
        pub[PUB.TRICK_CARDS + j] = trick[j] if j < trick[MAX_SEATS] else -1
        pub[PUB.SCORE + j] = s[j, S.SCORE]
    for i in range(n):
        acts[i] = opts[i]
    for c in range(N_CARDS):
        own[c] = hands[q, c]
    for i in range(pp.shape[0]):
        pp[i] = params[q, i] if i < params.shape[1] else 0.0
    prng[0] = rng[2 + 2 * q]
    prng[1] = rng[3 + 2 * q]
    g[G.DECISIONS] += 1
    ans = fn(own, pub, pp, prng, acts, n)
    rng[2 + 2 * q] = prng[0]
    rng[3 + 2 * q] = prng[1]
    if ans < 0 or ans >= n:
        s[q, S.BAD] += 1
        if tracing(tr):
            ev(tr, E.BAD, g[G.HAND], q, ans, 0, 0, 0)
        ans = 0
    return opts[ans]


@kernel
def play_hand(R, n, fns, params, g, s, hands, trick, rng, bufs, deck, tr):
    """[T2] deal, [T3] three tricks, [T4] scoring of one hand."""
    g[G.HAND] += 1
    h = g[G.HAND]
    for c in range(N_CARDS):
        deck[c] = c
    shuffle(rng[0:2], deck, N_CARDS)
    hands[:, :] = 0
    for q in range(n):
        s[q, S.TRICKS] = 0
        s[q, S.POINTS] = 0
        for k in range(HAND_SIZE):
            hands[q, deck[q * HAND_SIZE + k]] = 1
    leader = (g[G.FIRST_LEADER] + h - 1) % n
    if tracing(tr):
        i = ev(tr, E.DEAL, h, leader, 0, 0, 0, 0)
        for q in range(n):
            for c in range(N_CARDS):
                if hands[q, c]:
                    ev_push(tr, i, c)
    opts = bufs[2]
    for k in range(HAND_SIZE):
        g[G.TRICK] = k
        g[G.LEADER] = leader
        trick[MAX_SEATS] = 0
        for j in range(n):
            q = (leader + j) % n
            m = 0
            led = trick[0] // RANKS if j > 0 else -1
            if R[RULE.FOLLOW] == 1 and j > 0:
                for c in range(led * RANKS, (led + 1) * RANKS):
                    if hands[q, c]:
                        opts[m] = c
                        m += 1
            if m == 0:
                for c in range(N_CARDS):
                    if hands[q, c]:
                        opts[m] = c
                        m += 1
            card = (
                opts[0]
                if m == 1
                else decide(fns[q], q, m, R, g, s, hands, trick, params, rng, bufs, tr)
            )
            hands[q, card] = 0
            trick[j] = card
            trick[MAX_SEATS] = j + 1
            if tracing(tr):
                ev(tr, E.PLAY, h, q, card, k, 0, 0)
        best = 0
        for j in range(1, n):
            if trick[j] // RANKS == trick[0] // RANKS and trick[j] > trick[best]:
                best = j
        w = (leader + best) % n
        pts = R[RULE.LAST_TRICK] if k == HAND_SIZE - 1 else 1
        s[w, S.TRICKS] += 1
        s[w, S.TRICKS_TOTAL] += 1
        s[w, S.POINTS] += pts
        s[w, S.SCORE] += pts
        s[leader, S.LEADS] += 1
        g[G.TRICKS] += 1
        if w == leader:
            g[G.LEAD_WINS] += 1
        if tracing(tr):
            ev(tr, E.TRICK, h, w, k, pts, 0, 0)
        leader = w
    if tracing(tr):
        i = ev(tr, E.SCORE, h, -1, 0, 0, 0, 0)
        for q in range(n):
            ev_push(tr, i, s[q, S.SCORE])


@kernel
def play_game(R, n, fns, params, g, s, hands, trick, rng, bufs, deck, rows, tr):
    """A whole game: hands until [T5] a single highest score reaches the target, or [T6] the cap."""
    g[:] = 0
    s[:, :] = 0
    g[G.WINNER] = -1
    g[G.FIRST_LEADER] = below(rng[0:2], n)
    if tracing(tr):
        ev(tr, E.START, 0, -1, g[G.FIRST_LEADER], n, 0, 0)
    while True:
        play_hand(R, n, fns, params, g, s, hands, trick, rng, bufs, deck, tr)
        h = g[G.HAND]
        if h <= rows.shape[0]:
            lead = (g[G.FIRST_LEADER] + h - 1) % n
            for q in range(n):
                rows[h - 1, q, HR.LED] = 1 if q == lead else 0
                rows[h - 1, q, HR.TRICKS] = s[q, S.TRICKS]
                rows[h - 1, q, HR.POINTS] = s[q, S.POINTS]
                rows[h - 1, q, HR.SCORE] = s[q, S.SCORE]
        best = 0
        for q in range(1, n):
            if s[q, S.SCORE] > s[best, S.SCORE]:
                best = q
        ties = 0
        for q in range(n):
            if s[q, S.SCORE] == s[best, S.SCORE]:
                ties += 1
        if s[best, S.SCORE] >= R[RULE.TARGET] and ties == 1:
            g[G.WINNER] = best
            g[G.END] = END.TARGET
            break
        if h >= R[RULE.MAX_HANDS_PER_GAME]:
            g[G.END] = END.CAP
            break
    for q in range(n):
        better = 0
        for o in range(n):
            if o != q and s[o, S.SCORE] > s[q, S.SCORE]:
                better += 1
        s[q, S.PLACE] = better + 1
    if tracing(tr):
        ev(tr, E.END, g[G.HAND], g[G.WINNER], g[G.END], g[G.HAND], 0, 0)


TRACE_TYPE = numba.typeof(NO_TRACE)
SIG = types.void(
    types.int64[::1],  # R
    types.int64,  # n
    types.uint64,  # seed
    types.int64,  # start
    types.int64,  # count
    types.UniTuple(types.FunctionType(DECIDE_SIG), MAX_SEATS),  # fns
    types.float64[:, ::1],  # params
    types.int64[:, ::1],  # games
    types.int64[:, :, ::1],  # seats
    types.int32[:, :, :, ::1],  # hands
    TRACE_TYPE,
)


@jit(SIG)
def run_games(R, n, seed, start, count, fns, params, games, seats, hands, tr):
    """See the module docstring."""
    g = np.zeros(G.SIZE, dtype=np.int64)
    s = np.zeros((MAX_SEATS, S.SIZE), dtype=np.int64)
    held = np.zeros((MAX_SEATS, N_CARDS), dtype=np.int8)
    trick = np.zeros(MAX_SEATS + 1, dtype=np.int64)
    rng = np.zeros(N_RNG, dtype=np.uint64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    bufs = (
        np.zeros(PUB.SIZE, dtype=np.int32),
        np.zeros(HAND_SIZE, dtype=np.int16),
        np.zeros(HAND_SIZE, dtype=np.int16),
        np.zeros(N_CARDS, dtype=np.int8),
        np.zeros(8, dtype=np.float64),
        np.zeros(2, dtype=np.uint64),
    )
    record = hands.shape[0] == count
    for i in range(count):
        rows = hands[i] if record else hands[0]
        seed_game(rng, seed, start + i)
        play_game(R, n, fns, params, g, s, held, trick, rng, bufs, deck, rows, tr)
        row = games[i]
        row[GR.WINNER] = g[G.WINNER]
        row[GR.END] = g[G.END]
        row[GR.HANDS] = g[G.HAND]
        row[GR.FIRST_LEADER] = g[G.FIRST_LEADER]
        row[GR.TRICKS] = g[G.TRICKS]
        row[GR.LEAD_WINS] = g[G.LEAD_WINS]
        row[GR.DECISIONS] = g[G.DECISIONS]
        for q in range(n):
            r = seats[i, q]
            r[SR.FINAL_SCORE] = s[q, S.SCORE]
            r[SR.PLACE] = s[q, S.PLACE]
            r[SR.TRICKS] = s[q, S.TRICKS_TOTAL]
            r[SR.LEADS] = s[q, S.LEADS]
            r[SR.BAD_ANSWERS] = s[q, S.BAD]


def play_batch(R, n_players, seed, start, count, fns, params, outs):
    """The game protocol's kernel entry (:mod:`sim.game`) over :func:`run_games`."""
    games, seats, hands = outs
    run_games(
        R, n_players, np.uint64(seed), start, count, fns[0], params, games, seats, hands, NO_TRACE
    )

"""The Three-Player Moon state machine: deal, auction, widow and trump, tricks, scoring, end.

One function per phase: :func:`deal_hand` ([B3], [B4] rotation), :func:`auction` ([B4]),
:func:`declare` ([B5]), :func:`play_tricks` ([B6]-[B8]), :func:`score_hand` ([B9]) and
:func:`settle` ([B10], [B11]); :func:`step` advances one phase (one trick while playing) and
:func:`play_game` runs a game to its end. All of them work on a :class:`~.layout.State`, so a
game can be copied at any point and played on.

Policies are called through ``fns``, a tuple of one ``(bid, trump, play)`` tuple of first-class
functions per seat, all of signature :data:`sim.moon.api.DECIDE_SIG`, by one gate,
:func:`decide`: it fills the public view, hands the policy *copies* of its own tiles, the view,
the record of play, its parameters and the options, calls it on the seat's own random stream,
and reads an out-of-range answer as the first option (counted in ``S.BAD``). The engine applies
its own copy of the option, so nothing a policy writes reaches the game (rules document B.5).
A play with exactly one legal tile is made without asking.

Random streams: ``rng[0:2]`` deals and picks the first bidder (seeded from (seed, game) like
:func:`sim.rng.seed_game`'s deal stream); ``rng[2+2q:4+2q]`` is seat q's policy stream, seeded
from (seed, game, q).
"""

from __future__ import annotations

import numpy as np

from ..events import ev, ev_push, new_trace  # noqa: F401  (new_trace: re-exported)
from ..jit import jit, kernel
from ..rng import POLICY_STREAM, below, seed_stream, shuffle, splitmix64
from .api import N_PARAMS
from .layout import (
    BIDS,
    DEC,
    DOUBLES,
    END,
    HAND_SIZE,
    MAX_ACTS,
    MAX_SEATS,
    MOON_BID,
    N_CONTRACTS,
    N_RNG,
    N_TILES,
    N_TRICKS,
    PASS,
    PH,
    PL,
    PUB,
    A,
    E,
    G,
    S,
    Scratch,
    State,
)
from .rules import ALL_PASS, MADE_SCORES, MOON, RULE
from .schema import HR
from .tricks import bit, legal_mask, low_index, trick_winner

_BIDS = np.array(BIDS, dtype=np.int64)


# ---------------------------------------------------------------- buffers


@jit
def new_state():
    """A blank game state (all arrays zeroed)."""
    return State(
        np.zeros((MAX_SEATS, N_TILES), dtype=np.int8),
        np.full(PL.SIZE, -1, dtype=np.int16),
        np.zeros(G.SIZE, dtype=np.int64),
        np.zeros((MAX_SEATS, S.SIZE), dtype=np.int64),
        np.zeros(N_RNG, dtype=np.uint64),
    )


@jit
def copy_state(src, dst):
    """Copy every array of ``src`` into ``dst`` (fork a game)."""
    dst.hands[:] = src.hands
    dst.played[:] = src.played
    dst.g[:] = src.g
    dst.s[:] = src.s
    dst.rng[:] = src.rng


@jit
def new_bufs(R):
    """The :class:`~.layout.Scratch` arrays of one game."""
    return Scratch(
        np.zeros(PUB.SIZE, dtype=np.int32),
        np.zeros((MAX_ACTS, A.SIZE), dtype=np.int16),
        np.zeros((MAX_ACTS, A.SIZE), dtype=np.int16),
        np.zeros(N_TILES, dtype=np.int8),
        np.zeros(PL.SIZE, dtype=np.int16),
        np.zeros(N_PARAMS, dtype=np.float64),
        np.zeros(N_TILES, dtype=np.int64),
        np.zeros(2, dtype=np.uint64),
        np.zeros(MAX_SEATS, dtype=np.int8),
    )


@kernel
def seed_streams(rng, seed, index):
    """Seed game ``index`` of run ``seed``: the deal stream ``rng[0:2]`` (as
    :func:`sim.rng.seed_game`) and one policy stream per seat, ``rng[2+2q:4+2q]``."""
    seed_stream(rng[0:2], seed, index)
    base = splitmix64(np.uint64(seed) ^ POLICY_STREAM)
    for q in range(MAX_SEATS):
        seed_stream(rng[2 + 2 * q : 4 + 2 * q], base ^ np.uint64(q + 1), index)


# ---------------------------------------------------------------- the policy gate


@kernel(inline="always")
def fill_pub(st, R, seat, dec, pub):
    """The public view of ``seat`` (rules document B.5), every slot written afresh (a policy
    may have scribbled on the last one)."""
    g = st.g
    for i in range(RULE.SIZE):
        pub[PUB.RULES + i] = R[i]
    s = st.s
    pub[PUB.SEAT] = seat
    pub[PUB.DECISION] = dec
    pub[PUB.HAND] = g[G.HAND]
    pub[PUB.OPENER] = g[G.OPENER]
    pub[PUB.BIDDER] = g[G.BIDDER]
    pub[PUB.BID] = g[G.BID]
    pub[PUB.TRUMP] = g[G.TRUMP]
    mine = seat == g[G.BIDDER]
    pub[PUB.WIDOW] = g[G.WIDOW] if mine and dec != DEC.TRUMP else -1
    pub[PUB.DISCARD] = g[G.DISCARD] if mine else -1
    pub[PUB.TRICK] = g[G.TRICK]
    pub[PUB.LEADER] = g[G.LEADER]
    npl = g[G.NPLAYED]
    pub[PUB.NPLAYED] = npl
    k = npl % MAX_SEATS
    pub[PUB.LED] = st.played[PL.TILE + npl - k] if k > 0 else -1
    for q in range(MAX_SEATS):
        pub[PUB.CALLS + q] = s[q, S.SAID]
        pub[PUB.TRICKS + q] = s[q, S.TRICKS]
        pub[PUB.SCORE + q] = s[q, S.SCORE]
    for j in range(N_TRICKS):
        pub[PUB.WINNERS + j] = g[G.WINNERS + j]


@kernel(inline="always")
def decide(fn, st, R, seat, dec, params, bufs, n, tr):
    """Ask ``seat``'s function ``fn`` to choose among the engine's options ``opts[:n]``;
    returns the chosen row index (the first option for an out-of-range answer). Everything
    handed over is a copy (its stream too, copied back after the call), except to a seat
    marked in ``bufs.trust`` (one of the game's own policies, which only read what they are
    handed): it reads the game's own arrays, its tiles, the record of play, its parameter row,
    its stream and the options, and a copy of the public view (the same answers, without the
    copying: ``tests/moon/test_moon_tables.py`` plays the same games both ways)."""
    pub, opts = bufs.pub, bufs.opts
    fill_pub(st, R, seat, dec, pub)
    r = 2 + 2 * seat
    st.g[G.DECISIONS] += 1
    if bufs.trust[seat] != 0:
        ans = fn(st.hands[seat], pub, st.played, params[seat], st.rng[r : r + 2], opts, n)
    else:
        acts, own, played, pp, prng = bufs.acts, bufs.own, bufs.played, bufs.params, bufs.rng
        for i in range(n):
            acts[i, 0] = opts[i, 0]
            acts[i, 1] = opts[i, 1]
        for t in range(N_TILES):
            own[t] = st.hands[seat, t]
        for i in range(PL.SIZE):
            played[i] = st.played[i]
        for i in range(N_PARAMS):
            pp[i] = params[seat, i]
        prng[0] = st.rng[r]
        prng[1] = st.rng[r + 1]
        ans = fn(own, pub, played, pp, prng, acts, n)
        st.rng[r] = prng[0]  # the seat's own stream moves on
        st.rng[r + 1] = prng[1]
    if ans < 0 or ans >= n:
        st.s[seat, S.BAD] += 1
        if tr is not None:
            ev(tr, E.BAD, st.g[G.HAND], seat, dec, ans, 0, 0)
        ans = 0
    return ans


# ---------------------------------------------------------------- phases


@kernel
def start_game(st, first_bidder, tr):
    """A new game on the streams already seeded in ``st.rng``: scores 0; [B4] first bidder
    uniformly random from the deal stream unless ``first_bidder`` >= 0 is given."""
    g = st.g
    s = st.s
    g[:] = 0
    s[:, :] = 0
    st.hands[:, :] = 0
    st.played[:] = -1
    g[G.WINNER] = -1
    g[G.BIDDER] = -1
    g[G.TRUMP] = -1
    g[G.WIDOW] = -1
    g[G.DISCARD] = -1
    g[G.LEADER] = -1
    for j in range(N_TRICKS):
        g[G.WINNERS + j] = -1
    for q in range(MAX_SEATS):
        s[q, S.SAID] = -1
    if first_bidder < 0:
        first_bidder = below(st.rng[0:2], MAX_SEATS)
    g[G.FIRST_BIDDER] = first_bidder
    g[G.PHASE] = PH.DEAL
    if tr is not None:
        ev(tr, E.START, 0, -1, first_bidder, 0, 0, 0)


@kernel
def deal_hand(st, deck, use_deck, tiles, tr):
    """[B3] seven tiles to each seat, the 22nd is the widow; [B4] the hand's opener is the
    first bidder of the game moved one seat clockwise per hand (redeals included). ``deck``
    (int8[N_TILES]): seat 0 gets deck[0:7], seat 1 deck[7:14], seat 2 deck[14:21], the widow
    is deck[21]; ``use_deck`` false means shuffle on the deal stream instead."""
    g = st.g
    s = st.s
    for i in range(N_TILES):
        tiles[i] = deck[i] if use_deck else i
    if not use_deck:
        shuffle(st.rng[0:2], tiles, N_TILES)
    g[G.HAND] += 1
    h = g[G.HAND]
    st.hands[:, :] = 0
    for q in range(MAX_SEATS):
        bits = 0
        for k in range(HAND_SIZE):
            t = tiles[q * HAND_SIZE + k]
            st.hands[q, t] = 1
            bits |= bit(t)
        s[q, S.BITS] = bits
        s[q, S.TRICKS] = 0
        s[q, S.SAID] = -1
        s[q, S.DELTA] = 0
    st.played[:] = -1
    g[G.WIDOW] = tiles[N_TILES - 1]
    g[G.OPENER] = (g[G.FIRST_BIDDER] + h - 1) % MAX_SEATS
    g[G.BIDDER] = -1
    g[G.BID] = 0
    g[G.TRUMP] = -1
    g[G.DISCARD] = -1
    g[G.TRICK] = 0
    g[G.LEADER] = -1
    g[G.NPLAYED] = 0
    g[G.MADE] = 0
    for j in range(N_TRICKS):
        g[G.WINNERS + j] = -1
    g[G.PHASE] = PH.BID
    if tr is not None:
        i = ev(tr, E.DEAL, h, g[G.OPENER], 0, 0, 0, 0)
        for q in range(MAX_SEATS):
            for t in range(N_TILES):
                if st.hands[q, t] != 0:
                    ev_push(tr, i, t)
        ev_push(tr, i, g[G.WIDOW])


@kernel
def auction(st, R, fns, params, bufs, tr):
    """[B4] one circuit from the opener: each seat passes or bids strictly higher (4, 5, 6, 7,
    21); 21 ends the auction at once. All pass: ``redeal`` voids the hand; ``force_last``
    denies the last seat the pass. Seats that have spoken (``S.SAID``: a hand set up
    mid-auction, :mod:`.position`) keep their calls."""
    g = st.g
    s = st.s
    opts = bufs.opts
    h = g[G.HAND]
    bidder = -1
    for k in range(MAX_SEATS):
        q = (g[G.OPENER] + k) % MAX_SEATS
        if s[q, S.SAID] >= 0:  # spoke before (a hand set up mid-auction, .position)
            if s[q, S.SAID] != PASS:
                bidder = q
            continue
        n = 0
        if not (k == MAX_SEATS - 1 and bidder < 0 and R[RULE.ALL_PASS] == ALL_PASS.FORCE_LAST):
            opts[0, 0] = PASS
            opts[0, 1] = 0
            n = 1
        for j in range(_BIDS.shape[0]):
            if _BIDS[j] > g[G.BID]:
                opts[n, 0] = _BIDS[j]
                opts[n, 1] = 0
                n += 1
        i = decide(fns[q][0], st, R, q, DEC.BID, params, bufs, n, tr)
        b = opts[i, 0]
        s[q, S.SAID] = b
        if tr is not None:
            ev(tr, E.BID, h, q, b, 0, 0, 0)
        if b != PASS:
            s[q, S.BIDS] += 1
            bidder = q
            g[G.BID] = b
            if b == MOON_BID:
                break
    g[G.BIDDER] = bidder
    if bidder < 0:
        g[G.REDEALS] += 1
        g[G.PHASE] = PH.SETTLE
        if tr is not None:
            ev(tr, E.REDEAL, h, -1, 0, 0, 0, 0)
    else:
        s[bidder, S.BIDS_WON] += 1
        if g[G.BID] == MOON_BID:
            g[G.MOONS_TRIED] += 1
            s[bidder, S.MOONS_TRIED] += 1
        g[G.PHASE] = PH.DECLARE


@kernel(inline="always")
def contract_ok(R, c):
    """[B5] the contracts the bidder may name: 0-6, doubles (unless forbidden), no trump."""
    return c != DOUBLES or R[RULE.ALLOW_DOUBLES_TRUMP] == 1


@kernel(inline="always")
def take_widow(st, b, tr):
    """[B5] the bidder ``b`` takes the widow into its hand."""
    w = st.g[G.WIDOW]
    st.hands[b, w] = 1
    st.s[b, S.BITS] |= bit(w)
    if tr is not None:
        ev(tr, E.WIDOW, st.g[G.HAND], b, w, 0, 0, 0)


@kernel
def declare(st, R, fns, params, bufs, tr):
    """[B5] the bidder takes the widow, discards one tile face down (possibly the widow; dead
    for the hand) and names trump; with ``trump_before_widow`` it names trump first. A step
    already done (trump named, the widow in the bidder's hand: a hand set up mid-declaration,
    :mod:`.position`) is not done again."""
    g = st.g
    opts = bufs.opts
    h = g[G.HAND]
    b = g[G.BIDDER]
    hand = st.hands[b]
    if R[RULE.TRUMP_BEFORE_WIDOW] == 1:
        if g[G.TRUMP] < 0:  # not named yet (a hand set up mid-declaration may have named it)
            n = 0
            for c in range(N_CONTRACTS):
                if contract_ok(R, c):
                    opts[n, 0] = -1
                    opts[n, 1] = c
                    n += 1
            i = decide(fns[b][1], st, R, b, DEC.TRUMP, params, bufs, n, tr)
            g[G.TRUMP] = opts[i, 1]
            if tr is not None:
                ev(tr, E.TRUMP, h, b, g[G.TRUMP], 0, 0, 0)
        if hand[g[G.WIDOW]] == 0:
            take_widow(st, b, tr)
        n = 0
        for t in range(N_TILES):
            if hand[t] != 0:
                opts[n, 0] = t
                opts[n, 1] = g[G.TRUMP]
                n += 1
        i = decide(fns[b][1], st, R, b, DEC.DISCARD, params, bufs, n, tr)
        d = opts[i, 0]
        hand[d] = 0
        st.s[b, S.BITS] &= ~bit(d)
        g[G.DISCARD] = d
        if tr is not None:
            ev(tr, E.DISCARD, h, b, d, 0, 0, 0)
    else:
        if hand[g[G.WIDOW]] == 0:  # not taken yet (a hand set up mid-declaration may hold it)
            take_widow(st, b, tr)
        n = 0
        for t in range(N_TILES):
            if hand[t] != 0:
                for c in range(N_CONTRACTS):
                    if contract_ok(R, c):
                        opts[n, 0] = t
                        opts[n, 1] = c
                        n += 1
        i = decide(fns[b][1], st, R, b, DEC.DECLARE, params, bufs, n, tr)
        d = opts[i, 0]
        hand[d] = 0
        st.s[b, S.BITS] &= ~bit(d)
        g[G.DISCARD] = d
        g[G.TRUMP] = opts[i, 1]
        if tr is not None:
            ev(tr, E.DISCARD, h, b, d, 0, 0, 0)
            ev(tr, E.TRUMP, h, b, g[G.TRUMP], 0, 0, 0)
    g[G.LEADER] = b  # [B7] the bidder leads the first trick
    g[G.PHASE] = PH.PLAY


@kernel
def play_tricks(st, R, fns, params, bufs, tr, limit):
    """[B7] up to ``limit`` tricks of the hand under way: the leader, then leader+1, leader+2,
    each playing a legal tile (a trick set up with tiles already down goes on from them,
    :mod:`.position`); [B8] the winner takes the trick and leads the next. After the
    seventh trick the hand is scored ([B9]) and the phase becomes PH.SETTLE. The trick loop
    lives here so that a batch pays one call per hand (each call passes every array)."""
    g = st.g
    s = st.s
    opts = bufs.opts
    h = g[G.HAND]
    trump = g[G.TRUMP]
    for _ in range(limit):
        if g[G.PHASE] != PH.PLAY:
            break
        leader = g[G.LEADER]
        k = g[G.TRICK]
        lead = -1
        t0 = -1
        t1 = -1
        t2 = -1
        j0 = g[G.NPLAYED] - MAX_SEATS * k  # tiles down already (a hand set up mid-trick)
        if j0 > 0:
            t0 = st.played[PL.TILE + MAX_SEATS * k]
            lead = t0
            if j0 > 1:
                t1 = st.played[PL.TILE + MAX_SEATS * k + 1]
        for j in range(j0, MAX_SEATS):
            q = (leader + j) % MAX_SEATS
            m = legal_mask(s[q, S.BITS], lead, trump)
            if m & (m - 1) == 0:  # one legal tile: played without asking
                t = low_index(m)
            else:
                n = 0
                while m != 0:  # the legal tiles in id order
                    opts[n, 0] = low_index(m)
                    opts[n, 1] = 0
                    m &= m - 1
                    n += 1
                t = opts[decide(fns[q][2], st, R, q, DEC.PLAY, params, bufs, n, tr), 0]
            st.hands[q, t] = 0
            s[q, S.BITS] &= ~bit(t)
            p = g[G.NPLAYED]
            st.played[PL.TILE + p] = t
            st.played[PL.SEAT + p] = q
            st.played[PL.BY + t] = q
            g[G.NPLAYED] = p + 1
            if tr is not None:
                ev(tr, E.PLAY, h, q, t, k, 0, 0)
            if j == 0:
                lead = t
                t0 = t
            elif j == 1:
                t1 = t
            else:
                t2 = t
        w = (leader + trick_winner(t0, t1, t2, trump)) % MAX_SEATS
        s[w, S.TRICKS] += 1
        g[G.WINNERS + k] = w
        g[G.TRICK] = k + 1
        g[G.LEADER] = w
        if tr is not None:
            ev(tr, E.TRICK, h, w, k, 0, 0, 0)
        if k + 1 == N_TRICKS:
            score_hand(st, R, tr)
            g[G.PHASE] = PH.SETTLE


@kernel
def score_hand(st, R, tr):
    """[B9] each opponent +1 per trick; bidder 4-7 made: + tricks (``made_scores=bid``: + the
    bid), set: - bid; 21: +21 for all 7 tricks, else -21."""
    g = st.g
    s = st.s
    b = g[G.BIDDER]
    bid = g[G.BID]
    tk = s[b, S.TRICKS]
    for q in range(MAX_SEATS):
        s[q, S.DELTA] = s[q, S.TRICKS] if q != b else 0
        s[q, S.TRICKS_TOTAL] += s[q, S.TRICKS]
    if bid == MOON_BID:
        made = tk == N_TRICKS
        s[b, S.DELTA] = MOON_BID if made else -MOON_BID
        if made:
            g[G.MOONS_MADE] += 1
            s[b, S.MOONS_MADE] += 1
    else:
        made = tk >= bid
        if made:
            s[b, S.DELTA] = tk if R[RULE.MADE_SCORES] == MADE_SCORES.TRICKS else bid
        else:
            s[b, S.DELTA] = -bid
    g[G.MADE] = 1 if made else 0
    if made:
        s[b, S.MADE] += 1
    else:
        s[b, S.SET] += 1
    for q in range(MAX_SEATS):
        s[q, S.SCORE] += s[q, S.DELTA]
    if tr is not None:
        i = ev(tr, E.SCORE, g[G.HAND], b, bid, tk, g[G.MADE], 0)
        for q in range(MAX_SEATS):
            ev_push(tr, i, s[q, S.DELTA])
        for q in range(MAX_SEATS):
            ev_push(tr, i, s[q, S.SCORE])


@kernel
def game_winner(st, R):
    """[B10] after a hand: S = seats with score >= target. The bidder in S who made the bid
    wins; else the single highest score in S wins; none (or a tie for the highest): -1.
    [B9] ``moon=instant``: a made moon wins at once. Returns (winner, END.*)."""
    g = st.g
    s = st.s
    b = g[G.BIDDER]
    if b >= 0 and g[G.MADE] == 1:
        if g[G.BID] == MOON_BID and R[RULE.MOON] == MOON.INSTANT:
            return b, END.MOON
        if s[b, S.SCORE] >= R[RULE.TARGET]:
            return b, END.TARGET
    best = -1
    top = 0
    ties = 0
    for q in range(MAX_SEATS):
        v = s[q, S.SCORE]
        if v >= R[RULE.TARGET]:
            if best < 0 or v > top:
                best = q
                top = v
                ties = 1
            elif v == top:
                ties += 1
    if best >= 0 and ties == 1:
        return best, END.TARGET
    return -1, END.NONE


@kernel
def finish_places(st):
    """Place 1 = the winner; the others by final score (ties share a place). An unfinished
    game places every seat by score."""
    s = st.s
    w = st.g[G.WINNER]
    for q in range(MAX_SEATS):
        if q == w:
            s[q, S.PLACE] = 1
            continue
        better = 1 if w >= 0 else 0
        for o in range(MAX_SEATS):
            if o != w and o != q and s[o, S.SCORE] > s[q, S.SCORE]:
                better += 1
        s[q, S.PLACE] = better + 1


@kernel
def settle(st, R, hands_rows, tr):
    """PH.SETTLE: record the hand, test the end of the game ([B10]) and the cap ([B11])."""
    g = st.g
    s = st.s
    h = g[G.HAND]
    r = h - 1
    if r < hands_rows.shape[0]:
        row = hands_rows[r]
        b = g[G.BIDDER]
        row[HR.OPENER] = g[G.OPENER]
        row[HR.REDEAL] = 1 if b < 0 else 0
        row[HR.BIDDER] = b
        row[HR.BID] = g[G.BID] if b >= 0 else 0
        row[HR.TRUMP] = g[G.TRUMP] if b >= 0 else -1
        row[HR.DISCARD] = g[G.DISCARD] if b >= 0 else -1
        row[HR.WIDOW_KEPT] = 1 if b >= 0 and g[G.DISCARD] != g[G.WIDOW] else 0
        row[HR.TRICKS_0] = s[0, S.TRICKS]
        row[HR.TRICKS_1] = s[1, S.TRICKS]
        row[HR.TRICKS_2] = s[2, S.TRICKS]
        row[HR.MADE] = g[G.MADE]
        row[HR.SCORE_0] = s[0, S.SCORE]
        row[HR.SCORE_1] = s[1, S.SCORE]
        row[HR.SCORE_2] = s[2, S.SCORE]
    w, why = game_winner(st, R)
    if w < 0 and h >= R[RULE.MAX_HANDS_PER_GAME]:
        why = END.CAP  # [B11] unfinished: no winner
    if w >= 0 or why == END.CAP:
        g[G.WINNER] = w
        g[G.END] = why
        finish_places(st)
        g[G.PHASE] = PH.DONE
        if tr is not None:
            ev(tr, E.END, h, w, why, h, 0, 0)
    else:
        g[G.PHASE] = PH.DEAL


@kernel
def step(st, R, fns, params, decks, hands_rows, bufs, tr):
    """Advance the game by one transition: PH.DEAL deals, PH.BID runs the auction,
    PH.DECLARE the widow and trump, PH.PLAY one trick (and scores the hand after the
    seventh), PH.SETTLE records the hand and tests the end. Returns the new phase.

    ``decks[r]`` (int8[N_TILES], see :func:`deal_hand`), when ``r < len(decks)`` and the row
    starts with a tile >= 0, is hand r+1's deal instead of a shuffle. ``hands_rows[r]``
    receives hand r+1's record when it has room."""
    g = st.g
    phase = g[G.PHASE]
    if phase == PH.DEAL:
        r = g[G.HAND]
        k = min(r, decks.shape[0] - 1)
        deal_hand(st, decks[k], r < decks.shape[0] and decks[k, 0] >= 0, bufs.tiles, tr)
    elif phase == PH.BID:
        auction(st, R, fns, params, bufs, tr)
    elif phase == PH.DECLARE:
        declare(st, R, fns, params, bufs, tr)
    elif phase == PH.PLAY:
        play_tricks(st, R, fns, params, bufs, tr, 1)
    elif phase == PH.SETTLE:
        settle(st, R, hands_rows, tr)
    return g[G.PHASE]


@kernel
def play_game(st, R, fns, params, decks, hands_rows, bufs, tr):
    """Run the game to its end: :func:`step`'s transitions, called directly, with a hand's
    tricks in one call (every call passes every array of the state and the buffers, which
    costs more than most of the work; measured: -35% time per hand)."""
    g = st.g
    while True:
        phase = g[G.PHASE]
        if phase == PH.PLAY:
            play_tricks(st, R, fns, params, bufs, tr, N_TRICKS)
        elif phase == PH.BID:
            auction(st, R, fns, params, bufs, tr)
        elif phase == PH.DECLARE:
            declare(st, R, fns, params, bufs, tr)
        elif phase == PH.SETTLE:
            settle(st, R, hands_rows, tr)
        elif phase == PH.DEAL:
            r = g[G.HAND]
            k = min(r, decks.shape[0] - 1)
            deal_hand(st, decks[k], r < decks.shape[0] and decks[k, 0] >= 0, bufs.tiles, tr)
        else:
            break

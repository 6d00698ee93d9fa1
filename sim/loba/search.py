"""The search policy ``mc``'s machinery: hidden worlds sampled from one seat's view, and each
option played out to the end of the round in them.

A decision of ``mc`` (:mod:`sim.loba.policies`) hands :func:`mc_choose` its view and a short
list of candidate options. :func:`mc_choose` draws ``worlds`` seeds from the seat's own random
stream, and for every seed builds a whole :class:`~sim.loba.layout.State` from the view alone
(:func:`build_world`): the seat's own hand, the table, the discard pile and the public row as
they are; every card the seat cannot see (the deck less its hand, the table and the pile) is
shuffled and dealt to the opponents, to their hand sizes, and the rest becomes the stock; a card
an opponent visibly took from the discard pile (the history) and has not visibly put down or
thrown since stays in that opponent's hand. Nothing else is read: the policy never sees the
game's own state (the engine hands it only the sealed view, :mod:`sim.loba.api`).

Each candidate is then played in each world (the same worlds for every candidate: common random
numbers) by the engine's own turn code (:func:`~sim.loba.engine.turn_loop`) until the round ends:
the opponents by ``greedy`` (``field``: ``smart``), the mc seat by its fast policy (``greedy`` or
``smart``, the ``po_*`` functions of :mod:`sim.loba.policies.mc`), its first decision answered with
the candidate (:func:`forced`, through its memory in the world, so the world's engine regenerates
the options itself). A candidate's value in a world is ``opp`` times the opponents' mean penalty of
the round minus the seat's own (going out scores 0, or the one-turn bonus, [A27]-[A28]; a void round
scores 0 for everyone). :func:`pick` keeps candidate 0 (the fast policy's own choice) unless
another's mean paired gain over it exceeds ``z`` standard errors; then the best such. With ``batch``
B > 0 (``deep``) it looks after every B worlds and stops playing the candidates whose mean paired
gain over candidate 0 is not above zero (:func:`prune`), and stops the search once candidate 0 alone
is left, so the worlds go to the decisions that are contested. ``field`` plays the opponents by
``smart`` instead of ``greedy``; ``elim`` weighs reaching the elimination score in the value
(:func:`round_value`).

The engine code compiled here is a copy of its own (typed on the playout's functions), so the
main engine (:func:`sim.loba.kernel.drive`) is neither bigger nor slower for the other policies.
"""

from __future__ import annotations

import numpy as np

from ..events import new_trace
from ..jit import jit, kernel
from ..rng import below, next_u64, seed_stream
from .engine import turn_loop
from .layout import (
    DEC,
    DRAW,
    HAND_W,
    HT,
    JOKER,
    MAX_CARDS,
    MAX_SEATS,
    MELD,
    MEM_N,
    N_IDS,
    PARAMS_W,
    PH,
    PUB,
    ST,
    TAT,
    A,
    G,
    H,
    M,
    S,
)
from .moves import pos_card, view_rules
from .rules import RULE
from .state import new_bufs, new_state

# A playout world's memory for the mc seat (mem[seat] of the world's State; slots 0-3 are
# careful's and smart's, which may play on for it): the answer forced at its first decision.
# ON: the decision (DEC.*) + 1 while not used yet, else 0; STOP: 1 = stop playing (a play
# decision); ROW: the option row (A.SIZE slots; draw and discard: column 0); MISS: the forced
# option was not among the world's options (never, tested); SELF: 1 = the mc seat (its fast
# policy plays on for it)
F_ON, F_STOP, F_ROW = 4, 5, 6
F_MISS = F_ROW + A.SIZE
F_SELF = F_MISS + 1
assert F_SELF < MEM_N

# The real mc seat's memory (its own, kept between decisions; slots 0-3 as above): counters
# for tests and reports
MC_SEARCHES, MC_PLAYOUTS, MC_MISSES = 13, 14, 15

# Where a world starts the mc seat's turn, by the decision being searched
AT = np.array([TAT.DRAW, TAT.PLAY, TAT.DISCARD], dtype=np.int64)
assert (DEC.DRAW, DEC.PLAY, DEC.DISCARD) == (0, 1, 2)


@kernel
def forced(pub, acts, n, mem):
    """In a playout: the stored answer of the mc seat's first decision (the index of the
    option equal to the stored row, or -1: stop), once; -2 when nothing is forced."""
    if mem[F_ON] != pub[PUB.DECISION] + 1:
        return -2
    mem[F_ON] = 0.0
    if mem[F_STOP] == 1.0:
        return -1
    w = A.SIZE if pub[PUB.DECISION] == DEC.PLAY else 1
    for i in range(n):
        same = True
        for j in range(w):
            if acts[i, j] != mem[F_ROW + j]:
                same = False
                break
        if same:
            return i
    mem[F_MISS] += 1.0
    return -2


@kernel(readonly=("hand", "melds", "pile", "pub"))
def unseen(hand, melds, pile, pub, cnt):
    """``cnt[c]``: copies of identity ``c`` the seat cannot see (the deck less its hand, the
    table and the pile); returns their total."""
    decks = pub[PUB.RULES + RULE.DECKS]
    for c in range(JOKER):
        cnt[c] = decks
    cnt[JOKER] = pub[PUB.RULES + RULE.JOKERS]
    for c in range(N_IDS):
        cnt[c] -= hand[c]
    for i in range(pile.shape[0]):
        if pile[i] >= 0:
            cnt[pile[i]] -= 1
    for i in range(melds.shape[0]):
        if melds[i, M.KIND] == MELD.PIERNA:
            r = melds[i, M.KEY]
            for s in range(4):
                cnt[s * 13 + r - 1] -= melds[i, M.C0 + s]
        else:
            s = melds[i, M.KEY]
            jm = int(melds[i, M.JMASK])
            for p in range(melds[i, M.LO], melds[i, M.HI] + 1):
                if (jm >> p) & 1:
                    cnt[JOKER] -= 1
                else:
                    cnt[pos_card(p, s)] -= 1
    total = 0
    for c in range(N_IDS):
        if cnt[c] < 0:  # never with a consistent view; a world then simply lacks the card
            cnt[c] = 0
        total += cnt[c]
    return total


@kernel(inline="always")
def _drop(known, q, c, k):
    known[q, c] = max(known[q, c] - k, 0)


@kernel(readonly=("hist", "pub"))
def read_history(hist, pub, known, placed):
    """From the round's public history: ``known[q, c]``, copies of ``c`` seat ``q`` took from
    the discard pile and has not put on the table or discarded since (so it still holds them);
    ``placed[q]``: ``q`` put cards down this round; returns whether the seat to move put cards
    down before this turn."""
    me = pub[PUB.SEAT]
    before = False
    for q in range(MAX_SEATS):
        placed[q] = 0
        for c in range(N_IDS):
            known[q, c] = 0
    for i in range(hist.shape[0]):
        t = hist[i, H.TYPE]
        q = hist[i, H.SEAT]
        if q < 0 or q >= MAX_SEATS:
            continue
        if t == HT.DRAW:
            if hist[i, H.KIND] == DRAW.DISCARD and hist[i, H.CARD] >= 0:
                known[q, hist[i, H.CARD]] += 1
        elif t == HT.DISCARD or t == HT.LAYOFF:
            if t == HT.LAYOFF:
                placed[q] = 1
                if q == me and hist[i, H.TURN] < pub[PUB.TURN]:
                    before = True
            if hist[i, H.CARD] >= 0:
                _drop(known, q, hist[i, H.CARD], 1)
        elif t == HT.MELD:
            placed[q] = 1
            if q == me and hist[i, H.TURN] < pub[PUB.TURN]:
                before = True
            key = int(hist[i, H.KEY])
            if hist[i, H.KIND] == MELD.PIERNA:
                for s in range(4):
                    _drop(known, q, s * 13 + key - 1, hist[i, H.P0 + s])
            else:
                jm = int(hist[i, H.P2])
                for p in range(hist[i, H.P0], hist[i, H.P1] + 1):
                    _drop(known, q, JOKER if (jm >> p) & 1 else pos_card(p, key), 1)
    return before


@kernel(readonly=("hand", "melds", "pile", "pub", "known", "placed", "cnt"))
def build_world(st, hand, melds, pile, pub, known, placed, before, cnt, pool, seed, at):
    """Fill ``st`` with the world of ``seed``: the view as it is, the unseen cards ``cnt``
    shuffled (``pool`` is scratch) and dealt to the opponents to their hand sizes (the cards
    ``known`` to be in a hand first), the rest to the stock; the seat to move about to act at
    ``at`` (TAT.*). Reads nothing but the view."""
    me = pub[PUB.SEAT]
    np_ = pub[PUB.NP]
    g = st.g
    s = st.s
    for i in range(g.shape[0]):
        g[i] = 0
    for q in range(MAX_SEATS):
        for j in range(s.shape[1]):
            s[q, j] = 0
        for c in range(HAND_W):
            st.hands[q, c] = 0
        for j in range(MEM_N):
            st.mem[q, j] = 0.0
    # the unseen cards less the known ones, shuffled with the world's own stream
    seed_stream(st.rng[0:2], seed, 0)
    k = 0
    for c in range(N_IDS):
        left = cnt[c]
        for q in range(np_):
            if q != me:
                left -= known[q, c]
        for _ in range(max(left, 0)):
            pool[k] = c
            k += 1
    for i in range(k - 1, 0, -1):  # Fisher-Yates
        j = below(st.rng[0:2], i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    seed_stream(st.rng[0:2], seed, 1)  # the world's deal stream (stock rebuilds, [A13])
    for q in range(MAX_SEATS):
        seed_stream(st.rng[2 + 2 * q : 4 + 2 * q], seed, 2 + q)
    # hands
    for c in range(N_IDS):
        st.hands[me, c] = hand[c]
    for q in range(np_):
        s[q, S.SCORE] = pub[PUB.SCORE + q]
        s[q, S.REBUYS] = pub[PUB.REBUYS + q]
        s[q, S.STATUS] = pub[PUB.STATUS + q]
        s[q, S.ELIM_ROUND] = -1
        s[q, S.PLACED] = placed[q]
        if q == me or pub[PUB.STATUS + q] != ST.ACTIVE:
            continue
        want = pub[PUB.HAND_N + q]
        have = 0
        for c in range(N_IDS):
            x = min(known[q, c], want - have)
            st.hands[q, c] += x
            have += x
        while have < want and k > 0:
            k -= 1
            st.hands[q, pool[k]] += 1
            have += 1
        s[q, S.HAND_N] = have
    hn = 0
    for c in range(N_IDS):
        hn += hand[c]
    s[me, S.HAND_N] = hn
    s[me, S.PLACED] = pub[PUB.PLACED]
    for i in range(melds.shape[0]):
        s[melds[i, M.OWNER], S.MELDED] = 1
    s[me, S.MELDED] = pub[PUB.MELDED]
    # the stock: what is left (as many as the view's stock holds)
    sn = min(k, pub[PUB.STOCK_N])
    for i in range(sn):
        st.stock[i] = pool[i]
    # the table and the pile as they are
    for i in range(melds.shape[0]):
        for j in range(M.SIZE):
            st.melds[i, j] = melds[i, j]
    for i in range(MAX_CARDS):
        st.pile[i] = pile[i] if i < pile.shape[0] else -1
    g[G.NP] = np_
    g[G.ROUND] = pub[PUB.ROUND]
    g[G.DEALER] = pub[PUB.DEALER]
    g[G.CUR] = me
    g[G.TURN] = pub[PUB.TURN]
    g[G.STOCK_N] = sn
    g[G.PILE_N] = pile.shape[0]
    g[G.NMELDS] = melds.shape[0]
    g[G.LAY_OK] = 0  # the engine's per-meld lay-off and take masks: recomputed for this table
    g[G.WINNER] = -1
    g[G.OUT] = -1
    g[G.TAKEN] = pub[PUB.TAKEN]
    g[G.DECK_N] = 52 * pub[PUB.RULES + RULE.DECKS] + pub[PUB.RULES + RULE.JOKERS]
    g[G.PHASE] = PH.TURN
    g[G.TURN_AT] = at
    g[G.PLACED_BEFORE] = 1 if before else 0


@kernel
def round_value(st, me, opp, elim, limit):
    """``opp`` times the opponents' mean penalty this round, minus the seat's own (0 for a void
    round); a seat whose score reaches ``limit`` (the elimination score) with this round's
    penalty counts ``elim`` points more (the opponents too, weighted ``opp``)."""
    if st.g[G.OUT] < 0:
        return 0.0
    tot = 0.0
    k = 0
    for q in range(st.g[G.NP]):
        if q != me and st.s[q, S.STATUS] == ST.ACTIVE:
            tot += st.s[q, S.PENALTY]
            if elim != 0.0 and st.s[q, S.SCORE] >= limit:
                tot += elim
            k += 1
    own = st.s[me, S.PENALTY] + (elim if elim != 0.0 and st.s[me, S.SCORE] >= limit else 0.0)
    return opp * (tot / k if k > 0 else 0.0) - own


@kernel
def playout_turns(st, R, fns, params, bufs, tr, limit):
    """The engine's turn loop typed on the playout's functions (apart from the engine's own
    :func:`~sim.loba.engine.play_turns`, whose cache it would otherwise share)."""
    return turn_loop(st, R, fns, params, bufs, tr, limit)


@jit(readonly=("hand", "melds", "pile", "pub", "hist", "cands", "stops", "own", "field"))
def mc_choose(
    hand, melds, pile, pub, hist, rng, mem, cands, stops, nc, worlds, z, opp, own, fns,
    field, elim, batch,
):  # fmt: skip
    """The index (< ``nc``) of the candidate chosen by :func:`pick` (``z``) from the values
    over ``worlds`` sampled worlds (module docstring); ``cands[i]`` an option row
    (``stops[i] = 1``: stop playing), ``fns`` the playout's
    :class:`~sim.loba.layout.SeatFns`; ``own``: the mc seat's parameters in the playouts
    (empty: greedy plays on for it, else smart's); ``field``: the opponents' (empty: greedy,
    else smart's); ``elim``: :func:`round_value`'s elimination weight. ``batch`` > 0: look
    after every ``batch`` worlds and stop playing a candidate (other than 0) whose mean paired
    gain over candidate 0 is not above zero (every world the same: no gain), and stop the
    search when candidate 0 alone is left. Counts into the seat's ``mem``."""
    me = pub[PUB.SEAT]
    R = view_rules(pub)
    kind = pub[PUB.DECISION]
    at = AT[kind]
    st = new_state()
    bufs = new_bufs(R, False)  # (no plug-in arena: the playouts' seats have no flag)
    tr = new_trace(0, 0)
    params = np.zeros((MAX_SEATS, PARAMS_W), dtype=np.float64)
    cnt = np.zeros(N_IDS, dtype=np.int64)
    known = np.zeros((MAX_SEATS, N_IDS), dtype=np.int64)
    placed = np.zeros(MAX_SEATS, dtype=np.int64)
    pool = np.zeros(MAX_CARDS, dtype=np.int64)
    unseen(hand, melds, pile, pub, cnt)
    before = read_history(hist, pub, known, placed)
    seeds = np.empty(worlds, dtype=np.uint64)
    for w in range(worlds):
        seeds[w] = next_u64(rng)
    vals = np.zeros((worlds, nc), dtype=np.float64)
    alive = np.ones(nc, dtype=np.int64)
    cap = R[RULE.MAX_TURNS_PER_ROUND] + 1
    limit = float(R[RULE.ELIMINATION_SCORE])
    for q in range(MAX_SEATS):
        if q != me:
            for j in range(field.shape[0]):
                params[q, j] = field[j]
    done = worlds
    for w in range(worlds):
        for i in range(nc):
            if alive[i] == 0:
                continue
            build_world(st, hand, melds, pile, pub, known, placed, before, cnt, pool, seeds[w], at)
            if field.shape[0] > 0:
                for q in range(MAX_SEATS):
                    if q != me:
                        st.mem[q, F_SELF] = 1.0
            f = st.mem[me]
            f[F_ON] = kind + 1
            f[F_STOP] = stops[i]
            f[F_SELF] = 1.0 if own.shape[0] > 0 else 0.0
            for j in range(own.shape[0]):
                params[me, j] = own[j]
            for j in range(A.SIZE):
                f[F_ROW + j] = cands[i, j]
            playout_turns(st, R, fns, params, bufs, tr, cap)
            vals[w, i] = round_value(st, me, opp, elim, limit)
            mem[MC_PLAYOUTS] += 1.0
            mem[MC_MISSES] += f[F_MISS] + (f[F_ON] > 0)  # not used at all: also a miss
        if batch > 0 and (w + 1) % batch == 0 and w + 1 < worlds:
            left = prune(vals[: w + 1], alive)
            if left <= 1:
                done = w + 1
                break
    mem[MC_SEARCHES] += 1.0
    if batch > 0:
        return pick_alive(vals[:done], z, alive)
    return pick(vals, z)


@kernel
def gain_se(vals, i):
    """Candidate ``i``'s mean paired gain over candidate 0 in ``vals[world, candidate]`` and
    its standard error."""
    worlds = vals.shape[0]
    m = 0.0
    for w in range(worlds):
        m += vals[w, i] - vals[w, 0]
    m /= worlds
    v = 0.0
    for w in range(worlds):
        d = vals[w, i] - vals[w, 0] - m
        v += d * d
    return m, np.sqrt(v / max(worlds - 1, 1) / worlds)


@kernel
def prune(vals, alive):
    """Stop candidates (``alive[i] = 0``) whose mean gain over candidate 0 is not above zero;
    returns how many are left (candidate 0 included)."""
    left = 1
    for i in range(1, vals.shape[1]):
        if alive[i] == 1:
            m, _ = gain_se(vals, i)
            if m <= 0.0:
                alive[i] = 0
            else:
                left += 1
    return left


@kernel
def pick_alive(vals, z, alive):
    """:func:`pick` among the candidates still ``alive``."""
    best = 0
    gain = 0.0
    for i in range(1, vals.shape[1]):
        if alive[i] == 1:
            m, se = gain_se(vals, i)
            if m > gain and m > z * se:
                best = i
                gain = m
    return best


@kernel
def pick(vals, z):
    """The candidate (column of ``vals[world, candidate]``) with the best mean whose paired
    gain over candidate 0 (the fast policy's own choice) is more than ``z`` standard errors
    (0: the best mean); 0 when none is."""
    best = 0
    gain = 0.0
    for i in range(1, vals.shape[1]):
        m, se = gain_se(vals, i)
        if m > gain and m > z * se:
            best = i
            gain = m
    return best

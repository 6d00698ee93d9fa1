"""``pimc``: perfect-information Monte Carlo for Three-Player Moon (as GIB plays bridge).

At every decision it deals the tiles it cannot see in ``samples`` ways consistent with its
view (:func:`sample_deal`), solves each deal double-dummy (:mod:`.solver`) and takes the
option of best mean value over the deals (the same deals for every option).

**What it sees** is what the engine hands every Moon policy (:mod:`.api`, rules document B.5):
its own tiles, the calls, trump, the tiles played and by whom, tricks taken; the bidder also its
widow and discard. From that (:func:`read_view`): the hidden tiles (all 22 less its own, the
tiles played and, for the bidder, its discard), how many each other seat holds now (7 less the
tiles it played), one more hidden slot when a tile lies face down that it has not seen (the
widow during the auction and before a ``trump_before_widow`` bidder takes it; the bidder's
discard, for a defender) and each seat's *voids*: a seat that did not follow the suit led holds
no tile that follows it ([B7]), then or later. Nothing else: the calls do not bias the deals.

**Sampling** is exactly uniform over the deals consistent with that view: a tile only one
other seat may hold goes to it, the face-down slot (any tile may lie there) is drawn with
probability proportional to the number of ways the rest can then be dealt (binomial counts),
and the tiles either seat may hold are shuffled and split to the seats' sizes. The draws come
from the seat's own random stream alone.

**Values.** A deal's double-dummy value is the bidder's tricks T ([B9] scoring is monotone in
T: :mod:`.solver`); an outcome is worth ``score(bid, T) + T / 100`` to the bidder, where
``score`` is the contract's points (+T or +bid when made, -bid when set; +-21 for the moon) and
T / 100 prefers more tricks among equal scores (the opponents score the rest). The defenders
play as one side: an outcome is worth minus that to either defender, who also counts its own
tricks (each trick a defender takes is its point, [B9]): ``selfish`` times its double-dummy tricks
from the trick under way with itself against the other two, a second solve. Without it a
defender lets the other defender take the tricks, and when a weak bidder is set the other
defender gains as much as it does (against ``random`` and ``count``, ``selfish`` 0 won 61% of 200
games, 1 74.5%, 2 75%).

* **play**: each legal tile, in each deal, solved after it is played; the highest mean wins
  (ties: the cheapest tile). A trump whose next higher trump still possibly in play is also
  its own option is worth the same in every deal and is not solved again.
* **declare** (widow in hand: discard and contract): the three contracts of strongest trump
  holding (:func:`contract_order`), each with its cheapest discard (its lowest off-trump
  tile), over the deals; the best of them, and the second too when its mean is within a point
  of the best's, are then tried with every discard but a trump, on the same deals; the best
  (discard, contract). ``trump_before_widow``: the contract over deals that include the widow
  (each contract with its cheapest discard), then the discard over deals of the opponents'
  tiles.
* **bid** (the risk-aware rule): in each deal (the opponents' tiles and the widow) the seat's
  best tricks as bidder T* = the most, over the four contracts of its strongest trump
  holdings, that it takes with the widow and that contract's cheapest discard, leading the
  first trick. A bid L is worth its
  expected points ``E_L = mean score(L, T*)``: the estimated chance of making L times what it
  scores, less the chance of being set times L (the moon: +-21 on T* = 7; under
  ``moon=instant`` a made moon is worth what the seat lacks of the target, 21 at least). It
  calls the legal bid of highest ``E_L`` when that beats ``caution`` points, else passes.
  Passing is not worth 0 but about ``caution``: another seat then takes the contract, and a
  bidder averages some five points a hand (the default -3 was the best of -6, -3, 0.5 and 3
  against two ``count`` seats). When passing voids the hand (the seat speaks last and nobody
  has bid: a redeal, [B4]) the bar is 0; when passing is not allowed (``force_last``) it
  calls the best bid.

Parameters (slot order): ``samples`` (16; 1-256) deals per decision; ``budget`` (0: none; up to
1e9) solver nodes per decision, after which no further deal is drawn (one at least is always
solved); ``caution`` (-3; -21 to 21) the expected points a bid must beat; ``selfish`` (1;
0-10) the weight of a defender's own tricks in its play; ``batch`` (0: off; 0-256) and ``cut``
(2; 0-10): every ``batch`` deals a play or a declaration (its second stage) stops solving the
options whose mean paired difference from the best so far, plus ``cut`` standard errors, is
below zero (:func:`thin`), and stops when one is left; off by default, so ``pimc`` takes every
option to every deal (``batch=4``: about a fifth less time a game, 76.5% of 1,000 games won
against two ``count`` beside 77.6% without, paired -1.1 +- 1.5 points: docs/performance.md).

**Cost.** Nearly all of it is the solver's, whole hands from the first lead: a declaration
(three contracts, then every discard of the best) about 60% of a hand, then the plays of the
first two tricks and the bid (docs/moon.md, "Cost").
"""

from __future__ import annotations

import numpy as np

from ..jit import jit, kernel
from ..policies.api import decision
from ..rng import below
from .layout import (
    DEC,
    DOUBLES,
    HAND_SIZE,
    MAX_SEATS,
    MOON_BID,
    N_CONTRACTS,
    N_TILES,
    PASS,
    PL,
    PUB,
    A,
)
from .rules import MADE_SCORES, MOON, RULE
from .solver import (
    ORDER,
    POWER,
    RANKPOS,
    ST_NODES,
    TRUMP_LEN,
    bid_score,
    new_work,
    popcount,
    search,
    solve,
    solve_after,
)
from .tricks import FOLLOW, bit, bits_of, led_suit

TT_BITS = 15  # the solver's table for one decision: 2**15 entries (512 KiB)
P_SAMPLES, P_BUDGET, P_CAUTION, P_SELFISH, P_BATCH, P_CUT = 0, 1, 2, 3, 4, 5
PARAMS = {
    "samples": 16.0,
    "budget": 0.0,
    "caution": -3.0,
    "selfish": 1.0,
    "batch": 0.0,
    "cut": 2.0,
}
RANGES = {
    "samples": (1, 256),
    "budget": (0, 1e9),
    "caution": (-21, 21),
    "selfish": (0, 10),
    "batch": (0, 256),
    "cut": (0, 10),
}
TIE = 0.01  # the value of one trick among equal scores
STAGE1 = 3  # declaring: contracts tried with their cheapest discard (the strongest holdings)
STAGE2 = 2  # ... of which the best are tried with every discard,
STAGE2_GAP = 1.0  # ... the second only if its mean is within this many points of the first's
BID_CONTRACTS = 4  # bidding: contracts tried in each deal (the strongest holdings)

# the view as read by read_view: V[...] slots of an int64 array
V_SEAT, V_BIDDER, V_TRUMP, V_BID, V_OWN, V_HIDDEN, V_EXTRA = 0, 1, 2, 3, 4, 5, 6
V_NEED = 7  # + seat: tiles the seat holds now (its own slot: its own count)
V_VOID = 10  # + seat: tiles the seat cannot hold (voids shown)
V_BTRICKS = 13  # the bidder's tricks so far this hand
V_SIZE = 14

_ALL = (1 << N_TILES) - 1


# ---------------------------------------------------------------- the view


@kernel
def read_view(own, pub, played, v):
    """Fill ``v`` (int64[V_SIZE]) from the seat's view: see the module docstring. Only the
    arguments a Moon policy is handed are read."""
    s = pub[PUB.SEAT]
    b = pub[PUB.BIDDER]
    c = pub[PUB.TRUMP]
    dec = pub[PUB.DECISION]
    mine = bits_of(own)
    v[V_SEAT] = s
    v[V_BIDDER] = b
    v[V_TRUMP] = c
    v[V_BID] = pub[PUB.BID]
    v[V_OWN] = mine
    seen = mine
    for t in range(N_TILES):
        if played[PL.BY + t] >= 0:
            seen |= bit(t)
    if s == b and pub[PUB.DISCARD] >= 0:
        seen |= bit(pub[PUB.DISCARD])
    if s == b and pub[PUB.WIDOW] >= 0:
        seen |= bit(pub[PUB.WIDOW])
    v[V_HIDDEN] = _ALL & ~seen
    npl = pub[PUB.NPLAYED]
    for q in range(MAX_SEATS):
        v[V_VOID + q] = 0
        v[V_NEED + q] = HAND_SIZE
    for k in range(npl):
        q = played[PL.SEAT + k]
        v[V_NEED + q] -= 1
        if k % MAX_SEATS != 0:
            led = led_suit(played[PL.TILE + k - k % MAX_SEATS], c)
            t = played[PL.TILE + k]
            if (FOLLOW[c, led] >> t) & 1 == 0:
                v[V_VOID + q] |= FOLLOW[c, led]
    v[V_NEED + s] = popcount(mine)
    # a face-down tile this seat has not seen: the widow (auction; a trump_before_widow
    # bidder naming trump) or the bidder's discard (a defender, once play begins)
    if b < 0 or dec == DEC.TRUMP:
        v[V_EXTRA] = 1
    elif s != b and dec == DEC.PLAY:
        v[V_EXTRA] = 1
    else:
        v[V_EXTRA] = 0
    v[V_BTRICKS] = pub[PUB.TRICKS + b] if b >= 0 else 0


# ---------------------------------------------------------------- sampling


@kernel
def choose(n, k):
    if k < 0 or k > n:
        return np.int64(0)
    r = np.int64(1)
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@kernel
def ways(hidden, a1, a2, n1):
    """Ways to deal ``hidden`` to two seats, the first taking ``n1`` and the rest going to the
    second, each tile to a seat that may hold it (``a1``, ``a2``: the tiles each may hold)."""
    only1 = popcount(hidden & a1 & ~a2)
    only2 = popcount(hidden & a2 & ~a1)
    both = popcount(hidden & a1 & a2)
    if only1 + only2 + both != popcount(hidden):
        return np.int64(0)
    return choose(both, n1 - only1)


@kernel
def deal_two(rng, hidden, a1, a2, n1, tiles):
    """Deal ``hidden`` to two seats uniformly among the ways :func:`ways` counts: returns the
    first seat's tiles (bits); the second takes the rest. ``tiles`` is scratch."""
    first = hidden & a1 & ~a2
    free = hidden & a1 & a2
    m = 0
    for t in range(N_TILES):
        if (free >> t) & 1:
            tiles[m] = t
            m += 1
    k = n1 - popcount(first)
    for i in range(k):  # a partial Fisher-Yates: the first k of a uniform shuffle
        j = i + below(rng, m - i)
        x = tiles[i]
        tiles[i] = tiles[j]
        tiles[j] = x
        first |= bit(tiles[i])
    return first


@kernel
def sample_deal(rng, v, h, tiles):
    """One deal consistent with the view ``v`` (:func:`read_view`), uniformly: every seat's
    tiles now into ``h`` (int64[3] bits; the seat's own as they are). Returns the face-down
    tile drawn (-1 when there is none to draw). Falls back to ignoring the voids if they
    cannot all be met (never, for a view the engine made)."""
    s = v[V_SEAT]
    q1 = (s + 1) % MAX_SEATS
    q2 = (s + 2) % MAX_SEATS
    hidden = v[V_HIDDEN]
    n1 = v[V_NEED + q1]
    a1 = _ALL & ~v[V_VOID + q1]
    a2 = _ALL & ~v[V_VOID + q2]
    h[s] = v[V_OWN]
    down = -1
    if v[V_EXTRA] == 1:
        total = np.int64(0)
        for t in range(N_TILES):
            if (hidden >> t) & 1:
                total += ways(hidden & ~bit(t), a1, a2, n1)
        if total == 0:
            a1 = _ALL
            a2 = _ALL
            total = choose(popcount(hidden) - 1, n1) * popcount(hidden)
        r = below(rng, total)
        for t in range(N_TILES):
            if (hidden >> t) & 1:
                w = ways(hidden & ~bit(t), a1, a2, n1)
                if r < w:
                    down = t
                    break
                r -= w
        hidden &= ~bit(down)
    elif ways(hidden, a1, a2, n1) == 0:
        a1 = _ALL
        a2 = _ALL
    h[q1] = deal_two(rng, hidden, a1, a2, n1, tiles)
    h[q2] = hidden & ~h[q1]
    return down


# ---------------------------------------------------------------- values


@kernel
def outcome(v, bid, tricks, made_tricks):
    """What the bidder's ``tricks`` on ``bid`` are worth to the deciding seat (module
    docstring): score + TIE x tricks for the bidder, minus that for a defender."""
    x = float(bid_score(bid, tricks, made_tricks)) + TIE * tricks
    return x if v[V_SEAT] == v[V_BIDDER] else -x


@kernel
def cheapest_discard(hand, c):
    """The tile of ``hand`` (bits) to lay away under contract ``c`` without looking further:
    its lowest off-trump tile, or its lowest trump when it holds nothing else."""
    for k in range(N_TILES - 1, -1, -1):
        t = ORDER[c, k]
        if (hand >> t) & 1:
            return t
    return -1


@kernel
def contract_ok(pub, c):
    return c != DOUBLES or pub[PUB.RULES + RULE.ALLOW_DOUBLES_TRUMP] == 1


@kernel
def spent(ws, params, k):
    """The node budget is spent after ``k`` deals (at least one is always solved)."""
    return params[P_BUDGET] > 0 and k >= 1 and ws.stats[ST_NODES] >= params[P_BUDGET]


@kernel
def n_samples(params):
    k = np.int64(params[P_SAMPLES])
    return k if k >= 1 else np.int64(1)


@kernel
def best_row(val, n, acts, c):
    """The option of highest value (ties: the cheapest tile under ``c``)."""
    best = 0
    for i in range(1, n):
        if val[i] > val[best] + 1e-9:
            best = i
        elif val[i] > val[best] - 1e-9 and POWER[c, acts[i, A.TILE]] < POWER[c, acts[best, A.TILE]]:
            best = i
    return best


@kernel
def batch_of(params):
    """Deals between two looks at the options (0: never look, every option every deal)."""
    return np.int64(params[P_BATCH])


@kernel
def thin(dv, done, alive, n, lead, cut):
    """Drop from ``alive`` every option but ``lead`` that is clearly behind it over the
    ``done`` deals so far (``dv[k, i]``: option i's value in deal k): its mean paired
    difference from ``lead`` plus ``cut`` standard errors is below zero (an option never
    ahead of ``lead`` and behind it somewhere goes at once). Returns how many are left."""
    left = 0
    for i in range(n):
        if not alive[i]:
            continue
        if i != lead:
            mu = 0.0
            for k in range(done):
                mu += dv[k, i] - dv[k, lead]
            mu /= done
            var = 0.0
            for k in range(done):
                x = dv[k, i] - dv[k, lead] - mu
                var += x * x
            se = np.sqrt(var / (done - 1) / done) if done > 1 else 0.0
            if mu + cut * se < -1e-9:
                alive[i] = False
                continue
        left += 1
    return left


@kernel
def best_alive(val, alive, n, acts, c):
    """:func:`best_row` among the options still ``alive``."""
    best = -1
    for i in range(n):
        if not alive[i]:
            continue
        if best < 0 or val[i] > val[best] + 1e-9:
            best = i
        elif val[i] > val[best] - 1e-9 and POWER[c, acts[i, A.TILE]] < POWER[c, acts[best, A.TILE]]:
            best = i
    return best


@kernel
def tricks_as_bidder(ws, h, c, s, d, gen, guess):
    """The seat ``s``'s double-dummy tricks as bidder under ``c``, discarding ``d`` from
    ``h[s]`` (put back after), leading the first trick."""
    h[s] &= ~bit(d)
    t = solve(ws, h, c, s, s, 0, -1, -1, gen, guess)
    h[s] |= bit(d)
    return t


# ---------------------------------------------------------------- play


@decision(alloc=True)
def pimc_play(own, pub, played, params, rng, acts, n):
    if n == 1:
        return 0
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    ws = new_work(TT_BITS)
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    val = np.zeros(n)
    s = v[V_SEAT]
    c = v[V_TRUMP]
    b = v[V_BIDDER]
    made_tricks = pub[PUB.RULES + RULE.MADE_SCORES] == MADE_SCORES.TRICKS
    npl = pub[PUB.NPLAYED]
    pos = npl % MAX_SEATS
    t0 = played[PL.TILE + npl - pos] if pos > 0 else -1
    t1 = played[PL.TILE + npl - pos + 1] if pos > 1 else -1
    leader = pub[PUB.LEADER]
    rep = same_trumps(v, acts, n, c, t0, t1)
    mine = params[P_SELFISH] if s != b else 0.0
    guess = np.int64(2)
    guess_own = np.int64(1)
    m = n_samples(params)
    bt = batch_of(params)
    dv = np.zeros((m, n))
    alive = np.empty(n, dtype=np.bool_)
    for i in range(n):
        alive[i] = rep[i] == i
    for k in range(m):
        if spent(ws, params, k):
            break
        sample_deal(rng, v, h, tiles)
        for i in range(n):
            if not alive[i]:
                continue
            t = acts[i, A.TILE]
            guess = solve_after(ws, h, c, b, leader, pos, t0, t1, s, t, 2 * k + 1, guess)
            x = outcome(v, v[V_BID], v[V_BTRICKS] + guess, made_tricks)
            val[i] += x
            if mine != 0.0:  # a defender's own tricks: itself against the other two
                guess_own = solve_after(ws, h, c, s, leader, pos, t0, t1, s, t, 2 * k + 2,
                                        guess_own)  # fmt: skip
                val[i] += mine * guess_own
                x += mine * guess_own
            dv[k, i] = x
        if bt > 0 and (k + 1) % bt == 0 and k + 1 < m:
            lead = best_alive(val, alive, n, acts, c)
            if thin(dv, k + 1, alive, n, lead, params[P_CUT]) == 1:
                break
    for i in range(n):
        val[i] = val[rep[i]]
        alive[i] = alive[rep[i]]
    return best_alive(val, alive, n, acts, c)


@jit
def same_trumps(v, acts, n, c, t0, t1):
    """For each option, the option it is worth the same as in every deal (itself, mostly): a
    trump whose next higher trump that may still be in play (held, unseen or on the trick:
    ``t0``, ``t1``) is also an option of this seat is interchangeable with it ([B6]-[B8]:
    no other tile can fall between them)."""
    rep = np.arange(n)
    live = v[V_OWN] | v[V_HIDDEN]
    if t0 >= 0:
        live |= bit(t0)
    if t1 >= 0:
        live |= bit(t1)
    prev = -1
    for j in range(TRUMP_LEN[c]):
        t = ORDER[c, j]
        if (live >> t) & 1 == 0:
            continue
        i = -1
        for x in range(n):
            if acts[x, A.TILE] == t:
                i = x
        if i >= 0 and prev >= 0:
            rep[i] = rep[prev]
        prev = i
    return rep


# ---------------------------------------------------------------- declare


@jit
def contract_order(pub, hand, order):
    """The allowed contracts into ``order``, from the strongest trump holding in ``hand``
    (bits) down (each held trump counts 16 less its place in the trump order: length first,
    height next; no trump last); returns how many."""
    key = np.zeros(N_CONTRACTS, dtype=np.int64)
    m = 0
    for c in range(N_CONTRACTS):
        if not contract_ok(pub, c):
            continue
        x = 0
        for j in range(N_TILES):
            t = ORDER[c, j]
            if POWER[c, t] < 100:
                break
            if (hand >> t) & 1:
                x += 16 - RANKPOS[c, t]
        i = m
        while i > 0 and key[i - 1] < x:
            order[i] = order[i - 1]
            key[i] = key[i - 1]
            i -= 1
        order[i] = c
        key[i] = x
        m += 1
    return m


@jit
def declare_choice(own, pub, played, params, rng, acts, n):
    """(discard, contract) for the bidder holding the widow (DEC.DECLARE): module docstring."""
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    ws = new_work(TT_BITS)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    m = n_samples(params)
    deals = np.zeros((m, MAX_SEATS), dtype=np.int64)
    last = np.full(m, v[V_BID] if v[V_BID] <= HAND_SIZE else HAND_SIZE, dtype=np.int64)
    s = v[V_SEAT]
    hand = v[V_OWN]
    made_tricks = pub[PUB.RULES + RULE.MADE_SCORES] == MADE_SCORES.TRICKS
    order = np.zeros(N_CONTRACTS, dtype=np.int64)
    n_c = min(contract_order(pub, hand, order), STAGE1)
    # stage 1: the likeliest contracts, each with its cheapest discard, deal by deal (the
    # budget counts from here)
    cval = np.zeros(n_c)
    s1 = np.zeros((m, n_c))
    k_done = 0
    for k in range(m):
        if spent(ws, params, k):
            break
        sample_deal(rng, v, deals[k], tiles)
        k_done += 1
        for j in range(n_c):
            c = order[j]
            d = cheapest_discard(hand, c)
            last[k] = tricks_as_bidder(ws, deals[k], c, s, d, 1 + k * N_CONTRACTS + c, last[k])
            s1[k, j] = outcome(v, v[V_BID], last[k], made_tricks)
            cval[j] += s1[k, j]
    # stage 2: the best of them with every discard but a trump, on the same deals
    picked = np.zeros(STAGE2, dtype=np.int64)
    n_p = 0
    top = -1e18
    for _ in range(STAGE2):
        j = 0
        for x in range(1, n_c):
            if cval[x] > cval[j]:
                j = x
        if cval[j] <= -1e17 or cval[j] < top - STAGE2_GAP * k_done:
            break
        if top < -1e17:
            top = cval[j]
        cval[j] = -1e18
        picked[n_p] = j
        n_p += 1
    # the candidates (contract, discard) in the order they are compared (ties: the first
    # of lowest power)
    cand_c = np.zeros(STAGE2 * HAND_SIZE + STAGE2, dtype=np.int64)
    cand_d = np.zeros_like(cand_c)
    cand_j = np.zeros_like(cand_c)
    nc = 0
    for p in range(n_p):
        c = order[picked[p]]
        d0 = cheapest_discard(hand, c)
        for d in range(N_TILES):
            if (hand >> d) & 1 == 0 or (POWER[c, d] >= 100 and d != d0):
                continue
            cand_c[nc] = c
            cand_d[nc] = d
            cand_j[nc] = picked[p] if d == d0 else -1
            nc += 1
    val = np.zeros(nc)
    dv = np.zeros((k_done, nc))
    alive = np.ones(nc, dtype=np.bool_)
    bt = batch_of(params)
    for k in range(k_done):
        for i in range(nc):
            if not alive[i]:
                continue
            if cand_j[i] >= 0:  # solved in stage 1
                x = s1[k, cand_j[i]]
            else:
                c = cand_c[i]
                last[k] = tricks_as_bidder(ws, deals[k], c, s, cand_d[i],
                                           1 + k * N_CONTRACTS + c, last[k])  # fmt: skip
                x = outcome(v, v[V_BID], last[k], made_tricks)
            val[i] += x
            dv[k, i] = x
        if bt > 0 and (k + 1) % bt == 0 and k + 1 < k_done:
            if thin(dv, k + 1, alive, nc, best_declared(val, alive, nc, cand_c, cand_d),
                    params[P_CUT]) == 1:  # fmt: skip
                break
    i = best_declared(val, alive, nc, cand_c, cand_d)
    return cand_d[i], cand_c[i]


@kernel
def best_declared(val, alive, nc, cand_c, cand_d):
    """The candidate (contract, discard) of highest value among those ``alive`` (ties: the
    first of lowest power)."""
    best = -1
    for i in range(nc):
        if not alive[i]:
            continue
        c = cand_c[i]
        d = cand_d[i]
        if (
            best < 0
            or val[i] > val[best] + 1e-9
            or (val[i] > val[best] - 1e-9 and POWER[c, d] < POWER[cand_c[best], cand_d[best]])
        ):
            best = i
    return best


@jit
def trump_first_choice(own, pub, played, params, rng, acts, n):
    """The contract named before the widow is seen (DEC.TRUMP, ``trump_before_widow``): each
    contract over deals of the widow and the opponents' tiles, with its cheapest discard."""
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    ws = new_work(TT_BITS)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    val = np.zeros(n)
    s = v[V_SEAT]
    made_tricks = pub[PUB.RULES + RULE.MADE_SCORES] == MADE_SCORES.TRICKS
    guess = np.int64(3)
    for k in range(n_samples(params)):
        if spent(ws, params, k):
            break
        w = sample_deal(rng, v, h, tiles)
        h[s] |= bit(w)
        for i in range(n):
            c = acts[i, A.TRUMP]
            d = cheapest_discard(h[s], c)
            guess = tricks_as_bidder(ws, h, c, s, d, 1 + k * N_CONTRACTS + c, guess)
            val[i] += outcome(v, v[V_BID], guess, made_tricks)
    best = 0
    for i in range(1, n):
        if val[i] > val[best] + 1e-9:
            best = i
    return best


@jit
def discard_choice(own, pub, played, params, rng, acts, n):
    """The discard once trump is named (DEC.DISCARD): each held tile over deals of the
    opponents' tiles."""
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    ws = new_work(TT_BITS)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    val = np.zeros(n)
    s = v[V_SEAT]
    c = v[V_TRUMP]
    made_tricks = pub[PUB.RULES + RULE.MADE_SCORES] == MADE_SCORES.TRICKS
    guess = np.int64(3)
    for k in range(n_samples(params)):
        if spent(ws, params, k):
            break
        sample_deal(rng, v, h, tiles)
        for i in range(n):
            guess = tricks_as_bidder(ws, h, c, s, acts[i, A.TILE], k + 1, guess)
            val[i] += outcome(v, v[V_BID], guess, made_tricks)
    return best_row(val, n, acts, c)


@decision(alloc=True)
def pimc_trump(own, pub, played, params, rng, acts, n):
    dec = pub[PUB.DECISION]
    if dec == DEC.TRUMP:
        return trump_first_choice(own, pub, played, params, rng, acts, n)
    if dec == DEC.DISCARD:
        return discard_choice(own, pub, played, params, rng, acts, n)
    d, c = declare_choice(own, pub, played, params, rng, acts, n)
    for i in range(n):
        if acts[i, A.TILE] == d and acts[i, A.TRUMP] == c:
            return i
    return 0


# ---------------------------------------------------------------- bid


@jit
def best_tricks(own, pub, played, params, rng, out, floor):
    """The seat's double-dummy tricks as bidder, T*, in each of up to ``len(out)`` deals of
    the opponents' tiles and the widow (the best allowed contract, each with its cheapest
    discard), or ``floor`` when T* is less (the caller tells no lower count apart): into
    ``out``; returns how many deals were solved. Each contract is a run of null-window tests
    "more than the best so far?" from ``floor`` up."""
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    v[V_BIDDER] = v[V_SEAT]  # (as the bidder would see it)
    ws = new_work(TT_BITS)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    s = v[V_SEAT]
    # contracts from the strongest trump holding (a likely best first, the others tested)
    order = np.zeros(N_CONTRACTS, dtype=np.int64)
    m = min(contract_order(pub, v[V_OWN], order), BID_CONTRACTS)
    done = 0
    for k in range(out.shape[0]):
        if spent(ws, params, k):
            break
        w = sample_deal(rng, v, h, tiles)
        h[s] |= bit(w)
        best = np.int64(floor)
        for j in range(m):
            c = order[j]
            d = cheapest_discard(h[s], c)
            g = 1 + k * N_CONTRACTS + c
            h[s] &= ~bit(d)
            while best < HAND_SIZE and (
                search(ws, h, c, s, s, 0, -1, -1, best, best + 1, g, 0) > best
            ):
                best += 1
            h[s] |= bit(d)
        out[k] = best
        done += 1
    return done


@kernel
def bid_value(bid, tricks, made_tricks, moon_instant, lacks):
    """[B9] what bidding ``bid`` is worth with ``tricks`` as bidder: the contract's points; a
    made moon under ``moon=instant`` wins the game, worth what the seat ``lacks`` of the
    target, 21 at least."""
    x = bid_score(bid, tricks, made_tricks)
    if bid == MOON_BID and x > 0 and moon_instant and lacks > x:
        return lacks
    return x


@kernel
def pass_voids(pub):
    """Passing voids the hand: the seat speaks last, nobody has bid and all pass redeals [B4]."""
    said = 0
    for q in range(MAX_SEATS):
        if pub[PUB.CALLS + q] >= 0:
            said += 1
    return said == MAX_SEATS - 1 and pub[PUB.BID] == 0


@decision(alloc=True)
def pimc_bid(own, pub, played, params, rng, acts, n):
    m = n_samples(params)
    tstar = np.zeros(m, dtype=np.int64)
    # every legal bid is set below its lowest (the moon: below seven tricks): fewer tricks are
    # told apart no further
    low = MOON_BID
    for i in range(n):
        if acts[i, A.BID] != PASS and acts[i, A.BID] < low:
            low = acts[i, A.BID]
    done = best_tricks(own, pub, played, params, rng, tstar, min(low, HAND_SIZE) - 1)
    made_tricks = pub[PUB.RULES + RULE.MADE_SCORES] == MADE_SCORES.TRICKS
    instant = pub[PUB.RULES + RULE.MOON] == MOON.INSTANT
    lacks = pub[PUB.RULES + RULE.TARGET] - pub[PUB.SCORE + pub[PUB.SEAT]]
    best = -1
    best_e = -1e18
    for i in range(n):
        bid = acts[i, A.BID]
        if bid == PASS:
            continue
        e = 0.0
        for k in range(done):
            e += bid_value(bid, tstar[k], made_tricks, instant, lacks)
        e /= done
        if e > best_e + 1e-9:
            best_e = e
            best = i
    bar = 0.0 if pass_voids(pub) else params[P_CAUTION]
    if acts[0, A.BID] == PASS and (best < 0 or best_e <= bar):
        return 0
    return best if best >= 0 else 0

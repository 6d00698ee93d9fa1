"""Built-in Moon policies, written against the plug-in API (:mod:`sim.moon.api`).

* ``random``  uniform among the legal options at every decision.
* ``greedy``  a middle baseline: with k >= 3 tiles of its best number it bids the lowest bid
  that beats the auction, if that bid is at most k + 1 (never 21); as bidder names that number
  trump and discards its lowest off-trump tile; plays its highest legal tile as bidder, its
  lowest as a defender.
* ``count``   counts sure tricks (:func:`estimate`): its top trumps in an unbroken run from the
  top, the trumps it keeps once the opponents' are drawn, and walkers (side tiles that head
  their suit once the tiles above them are held or gone). It bids the lowest bid that wins the
  auction when ``estimate + margin`` reaches it, and 21 only with a laydown (7 sure tricks);
  picks the discard and trump with the best estimate; as bidder leads trumps while opponents
  may hold any, then walkers; leads walkers as a defender; otherwise plays the cheapest tile
  that beats the trick so far, or sheds its lowest tile. Played tiles (and its own discard)
  count as gone, so tiles become top as the hand goes on.
* ``pimc``    search (:mod:`.pimc`): at every decision it deals the tiles it cannot see in
  ``samples`` ways consistent with its view, solves each deal double-dummy (:mod:`.solver`)
  and takes the option of best mean value; it bids the legal bid of highest expected score
  when that beats passing by ``caution`` points.

Tile "power" (:data:`POWER`), the ordering for "highest" / "lowest" / "cheapest": a trump is
100 + its trump rank, any other tile 10 x high + low. Parameters live in :data:`POLICIES`'
dicts (slot order); ``count`` has ``margin`` (default 0.5); ``pimc`` has ``samples`` (16),
``budget`` (0: none), ``caution`` (-3), ``selfish`` (1), ``batch`` (0: off) and ``cut`` (2).
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from ..policies.api import Policy, decision
from ..rng import below
from .layout import (
    DEC,
    DOUBLES,
    LED_TRUMP,
    MAX_SEATS,
    MOON_BID,
    N_CONTRACTS,
    N_TILES,
    NO_TRUMP,
    PASS,
    PL,
    PUB,
    A,
)
from .pimc import PARAMS as PIMC_PARAMS
from .pimc import RANGES as PIMC_RANGES
from .pimc import pimc_bid, pimc_play, pimc_trump
from .rules import RULE
from .tiles import HI, LO
from .tricks import KEY, LED_OF, bit, bits_of, low_index, popcount

# ---------------------------------------------------------------- tables (plain Python)


def _is_trump(t: int, c: int) -> bool:
    h, lo = int(HI[t]), int(LO[t])
    if c == NO_TRUMP:
        return False
    if c == DOUBLES:
        return h == lo
    return c in (h, lo)


def _trump_rank(t: int, c: int) -> int:
    h, lo = int(HI[t]), int(LO[t])
    if c == DOUBLES:
        return h
    if h == lo:
        return 7
    return lo if h == c else h


def _suit_rank(t: int, s: int) -> int:
    h, lo = int(HI[t]), int(LO[t])
    if h == lo:
        return 7 if h == s else -1
    return lo if h == s else (h if lo == s else -1)


def _tables():
    is_tr = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int8)
    power = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int64)
    t_order = np.full((N_CONTRACTS, 8), -1, dtype=np.int64)
    t_len = np.zeros(N_CONTRACTS, dtype=np.int64)
    s_order = np.full((N_CONTRACTS, 7, 8), -1, dtype=np.int64)
    s_len = np.zeros((N_CONTRACTS, 7), dtype=np.int64)
    for c in range(N_CONTRACTS):
        trumps = [t for t in range(N_TILES) if _is_trump(t, c)]
        trumps.sort(key=lambda t: -_trump_rank(t, c))
        t_len[c] = len(trumps)
        t_order[c, : len(trumps)] = trumps
        for t in range(N_TILES):
            is_tr[c, t] = _is_trump(t, c)
            power[c, t] = 100 + _trump_rank(t, c) if is_tr[c, t] else 10 * HI[t] + LO[t]
        for s in range(7):
            ts = [t for t in range(N_TILES) if not _is_trump(t, c) and _suit_rank(t, s) >= 0]
            ts.sort(key=lambda t: -_suit_rank(t, s))
            s_len[c, s] = len(ts)
            s_order[c, s, : len(ts)] = ts
    return is_tr, power, t_order, t_len, s_order, s_len


IS_TRUMP, POWER, TRUMP_ORDER, TRUMP_LEN, SUIT_ORDER, SUIT_LEN = _tables()
# SUIT_LEAD[c, s]: bits of the tiles that lead suit s under contract c (non-trumps, high end s)
SUIT_LEAD = np.array(
    [
        [sum(1 << t for t in range(N_TILES) if not IS_TRUMP[c, t] and HI[t] == s) for s in range(7)]
        for c in range(N_CONTRACTS)
    ],
    dtype=np.int64,
)
_HI = HI


def _above_tables():
    """TRUMP_BITS[c]: the trumps of contract c as bits; T_ABOVE[c, t]: the trumps ranked above
    trump t; S_ABOVE[c, t]: for a tile t that is not trump, the tiles above it in the suit it
    leads (its higher number), as bits. What :func:`estimate` and :func:`is_walker` read in
    place of walking the orders tile by tile."""
    trump_bits = np.zeros(N_CONTRACTS, dtype=np.int64)
    t_above = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int64)
    s_above = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int64)
    for c in range(N_CONTRACTS):
        order = [int(t) for t in TRUMP_ORDER[c, : TRUMP_LEN[c]]]
        for i, t in enumerate(order):
            trump_bits[c] |= 1 << t
            t_above[c, t] = sum(1 << u for u in order[:i])
        for x in range(7):
            order = [int(t) for t in SUIT_ORDER[c, x, : SUIT_LEN[c, x]]]
            for i, t in enumerate(order):
                if HI[t] == x:
                    s_above[c, t] = sum(1 << u for u in order[:i])
    return trump_bits, t_above, s_above


TRUMP_BITS, T_ABOVE, S_ABOVE = _above_tables()
ALL_TILES = (1 << N_TILES) - 1


# ---------------------------------------------------------------- shared helpers


@kernel
def bidder_view(pub):
    return pub[PUB.SEAT] == pub[PUB.BIDDER]


@kernel
def extreme(acts, n, trump, highest):
    """Index of the option tile with the highest (or lowest) power under ``trump``."""
    c = trump if trump >= 0 else NO_TRUMP
    best = 0
    key = POWER[c, acts[0, A.TILE]]
    for i in range(1, n):
        k = POWER[c, acts[i, A.TILE]]
        if (k > key) if highest else (k < key):
            key = k
            best = i
    return best


@kernel
def led_of(tile, trump):
    """[B7] the suit a lead calls (LED_TRUMP for a trump)."""
    if IS_TRUMP[trump, tile]:
        return LED_TRUMP
    return np.int64(_HI[tile])


@kernel
def key_in_trick(tile, led, trump):
    """[B8] strength of ``tile`` in a trick led ``led``: trumps above followers, -1 else."""
    if IS_TRUMP[trump, tile]:
        return POWER[trump, tile]
    if led != LED_TRUMP:
        r = -1
        h = _HI[tile]
        lo = LO[tile]
        if h == lo:
            r = 7 if h == led else -1
        elif h == led:
            r = lo
        elif lo == led:
            r = h
        return np.int64(r)
    return np.int64(-1)


# ---------------------------------------------------------------- random


@decision
def random_bid(own, pub, played, params, rng, acts, n):
    return below(rng, n)


@decision
def random_trump(own, pub, played, params, rng, acts, n):
    return below(rng, n)


@decision
def random_play(own, pub, played, params, rng, acts, n):
    return below(rng, n)


# ---------------------------------------------------------------- greedy


@kernel
def best_number(own):
    """The number 0-6 borne by most held tiles (ties: the higher number) and that count."""
    best = 0
    cnt = -1
    for x in range(7):
        c = 0
        for t in range(N_TILES):
            if own[t] != 0 and (_HI[t] == x or LO[t] == x):
                c += 1
        if c >= cnt:
            cnt = c
            best = x
    return best, cnt


@kernel
def lowest_bid(acts, n):
    """Index of the lowest bid of 4-7 among the options, -1 if none."""
    for i in range(n):
        if acts[i, A.BID] != PASS and acts[i, A.BID] != MOON_BID:
            return i
    return -1


@decision
def greedy_bid(own, pub, played, params, rng, acts, n):
    x, cnt = best_number(own)
    if cnt >= 3:
        i = lowest_bid(acts, n)
        if i >= 0 and acts[i, A.BID] <= min(cnt + 1, 7):
            return i
    return 0


@kernel
def pick_row(acts, n, tile, trump):
    for i in range(n):
        if acts[i, A.TILE] == tile and acts[i, A.TRUMP] == trump:
            return i
    return 0


@kernel
def cheapest_discard(own, trump):
    """The held tile of lowest power under ``trump``, off-trump tiles first."""
    best = -1
    key = 1 << 30
    for t in range(N_TILES):
        if own[t] != 0 and POWER[trump, t] < key:
            key = POWER[trump, t]
            best = t
    return best


@decision
def greedy_trump(own, pub, played, params, rng, acts, n):
    dec = pub[PUB.DECISION]
    if dec == DEC.DISCARD:
        return pick_row(acts, n, cheapest_discard(own, pub[PUB.TRUMP]), pub[PUB.TRUMP])
    x, cnt = best_number(own)
    if dec == DEC.TRUMP:
        return pick_row(acts, n, -1, x)
    return pick_row(acts, n, cheapest_discard(own, x), x)


@decision
def greedy_play(own, pub, played, params, rng, acts, n):
    return extreme(acts, n, pub[PUB.TRUMP], bidder_view(pub))


# ---------------------------------------------------------------- count


@kernel
def estimate(own, gone, c):
    """Sure (and half-sure) tricks of the tiles ``own`` (bits) under contract ``c`` when
    leading, with the tiles ``gone`` (bits) out of play: top trumps in an unbroken run, trumps
    kept after the opponents' are drawn, walkers (counted fully once the opponents' trumps are
    drawn, half while we can outlast them, not at all otherwise) and second-best side tiles (a
    quarter each). Removing a tile from ``own`` never raises it (:func:`best_declaration`
    relies on that).

    From bits: ``k`` the held trumps with no unseen trump above them (:data:`T_ABOVE`), ``m``
    the held trumps, ``o`` the unseen ones; a held side tile counts 1 with no unseen tile above
    it in the suit it leads and 1/4 with one (:data:`S_ABOVE`). The same value, to the bit, as
    walking the orders (:func:`estimate_walk`, the tests); every term is a multiple of 1/4."""
    live = ALL_TILES & ~gone
    mine = own & live
    unseen = live & ~own
    tb = TRUMP_BITS[c]
    held = mine & tb
    m = popcount(held)
    o = popcount(unseen & tb)
    k = 0
    x = held
    while x != 0:
        t = low_index(x)
        x &= x - 1
        if T_ABOVE[c, t] & unseen == 0:
            k += 1
    left = o - k if o > k else 0
    r = m - k
    tricks = float(k + (r - left if r > left else 0))
    if left == 0:
        side = 1.0
    elif r > left:
        side = 0.5
    else:
        side = 0.0
    walk = 0
    if side > 0.0:
        x = mine & ~tb
        while x != 0:
            t = low_index(x)
            x &= x - 1
            a = S_ABOVE[c, t] & unseen
            if a == 0:
                walk += 4
            elif a & (a - 1) == 0:
                walk += 1
    e = tricks + side * (walk * 0.25)
    return e if e < 7.0 else 7.0


@kernel
def estimate_walk(own, gone, c):
    """:func:`estimate` as first written, walking the trump and suit orders tile by tile (the
    reference the tests hold the bit form to)."""
    k = 0
    m = 0
    o = 0
    for i in range(TRUMP_LEN[c]):
        t = TRUMP_ORDER[c, i]
        if (gone >> t) & 1:
            continue
        if (own >> t) & 1:
            m += 1
            if o == 0:
                k += 1
        else:
            o += 1
    left = o - k if o > k else 0
    r = m - k
    tricks = float(k + (r - left if r > left else 0))
    if left == 0:
        side = 1.0
    elif r > left:
        side = 0.5
    else:
        side = 0.0
    walk = 0.0
    if side > 0.0:
        for s in range(7):
            if (own & SUIT_LEAD[c, s]) == 0:
                continue
            above = 0
            for i in range(SUIT_LEN[c, s]):
                t = SUIT_ORDER[c, s, i]
                if (gone >> t) & 1:
                    continue
                if (own >> t) & 1:
                    if _HI[t] == s:
                        if above == 0:
                            walk += 1.0
                        else:
                            walk += 0.25
                else:
                    above += 1
                    if above > 1:
                        break
    e = tricks + side * walk
    return e if e < 7.0 else 7.0


@kernel
def gone_bits(pub, played):
    """Tiles out of play as this seat knows it: played this hand, and its own discard."""
    b = 0
    for p in range(pub[PUB.NPLAYED]):  # (the tiles of PL.TILE are those with PL.BY set)
        b |= bit(played[PL.TILE + p])
    if pub[PUB.DISCARD] >= 0:
        b |= bit(pub[PUB.DISCARD])
    return b


@kernel
def contract_allowed(pub, c):
    return c != DOUBLES or pub[PUB.RULES + RULE.ALLOW_DOUBLES_TRUMP] == 1


@decision
def count_bid(own, pub, played, params, rng, acts, n):
    hand = bits_of(own)
    best = 0.0
    for c in range(N_CONTRACTS):
        if contract_allowed(pub, c):
            e = estimate(hand, 0, c)
            if e > best:
                best = e
    if best >= 7.0:
        for i in range(n):
            if acts[i, A.BID] == MOON_BID:
                return i
    i = lowest_bid(acts, n)
    if i >= 0 and best + params[0] >= acts[i, A.BID]:
        return i
    return 0


@kernel
def declaration_key(hand, gone, d, c):
    """What :func:`count_trump` maximises: the estimate after discarding ``d`` (-1: none yet),
    then the cheaper discard, then the longer trump suit."""
    if d >= 0:
        hand &= ~bit(d)
        gone |= bit(d)
    e = estimate(hand, gone, c) * 1000.0
    if d >= 0:
        e -= POWER[c, d]
    return e + popcount(hand & TRUMP_BITS[c]) * 0.01


@kernel
def contract_bound(hand, pub, c):
    """The most contract ``c`` can score in :func:`best_declaration` (its estimate with all 8
    tiles: a discard never adds to it); -1e18 for a contract the rules forbid."""
    return estimate(hand, 0, c) * 1000.0 + 0.5 if contract_allowed(pub, c) else -1e18


@kernel
def best_declaration(hand, pub):
    """(discard, contract) of best :func:`declaration_key` over the held tiles and allowed
    contracts. Each contract is bounded by its estimate with all 8 tiles (a discard never adds
    to it), so only contracts that could still win are tried tile by tile, best bound first
    (the first contract of the highest bound; a tried one no longer counts)."""
    best_d = -1
    best_c = -1
    best = -1e18
    bound = (
        contract_bound(hand, pub, 0),
        contract_bound(hand, pub, 1),
        contract_bound(hand, pub, 2),
        contract_bound(hand, pub, 3),
        contract_bound(hand, pub, 4),
        contract_bound(hand, pub, 5),
        contract_bound(hand, pub, 6),
        contract_bound(hand, pub, 7),
        contract_bound(hand, pub, 8),
    )
    tried = 0
    for _ in range(N_CONTRACTS):
        c = 0
        top = -1e18 if tried & 1 else bound[0]
        for x in range(1, N_CONTRACTS):
            v = -1e18 if (tried >> x) & 1 else bound[x]
            if v > top:
                top = v
                c = x
        if top <= best:
            break
        tried |= 1 << c
        x = hand
        while x != 0:
            d = low_index(x)
            x &= x - 1
            k = declaration_key(hand, 0, d, c)
            if k > best:
                best = k
                best_d = d
                best_c = c
    return best_d, best_c


@decision
def count_trump(own, pub, played, params, rng, acts, n):
    hand = bits_of(own)
    dec = pub[PUB.DECISION]
    if dec == DEC.DECLARE:
        d, c = best_declaration(hand, pub)
        return pick_row(acts, n, d, c)
    best = 0
    key = -1e18
    for i in range(n):
        k = declaration_key(hand, 0, acts[i, A.TILE], acts[i, A.TRUMP])
        if k > key:
            key = k
            best = i
    return best


@kernel
def is_walker(own, gone, tile, c):
    """A non-trump tile that heads the suit it leads: every tile above it is held or gone."""
    if IS_TRUMP[c, tile]:
        return False
    return S_ABOVE[c, tile] & ~(own | gone) == 0


@kernel
def act_of(acts, n, tile):
    """The index of the option that plays ``tile`` (-1: none)."""
    for i in range(n):
        if acts[i, A.TILE] == tile:
            return i
    return -1


@kernel
def top_power(mask, c):
    """The tile of highest :data:`POWER` under ``c`` among the bits ``mask`` (> 0)."""
    best = -1
    key = -1
    while mask != 0:
        t = low_index(mask)
        mask &= mask - 1
        if POWER[c, t] > key:
            key = POWER[c, t]
            best = t
    return best


@decision
def count_play(own, pub, played, params, rng, acts, n):
    c = pub[PUB.TRUMP]
    lead = pub[PUB.LED]
    if lead < 0:
        hand = bits_of(own)
        gone = gone_bits(pub, played)
        options = 0  # the options' tiles as bits
        for i in range(n):
            options |= bit(acts[i, A.TILE])
        tb = TRUMP_BITS[c]
        unseen = ALL_TILES & ~(hand | gone)
        if bidder_view(pub) and unseen & tb != 0 and options & tb != 0:
            return act_of(acts, n, top_power(options & tb, c))  # pull trumps: our highest
        walkers = 0  # side tiles that head the suit they lead
        x = options & ~tb
        while x != 0:
            t = low_index(x)
            x &= x - 1
            if S_ABOVE[c, t] & unseen == 0:
                walkers |= bit(t)
        if walkers != 0:
            return act_of(acts, n, top_power(walkers, c))
        if bidder_view(pub):  # no side walker: a trump that heads the trumps left, if any
            x = tb & ~gone
            while x != 0:
                t = low_index(x)
                x &= x - 1
                if T_ABOVE[c, t] & ~gone == 0:  # the highest trump still in play
                    if (hand >> t) & 1:
                        i = act_of(acts, n, t)
                        if i >= 0:
                            return i
                    break
        return extreme(acts, n, c, False)
    # following: the cheapest tile that beats the trick so far, else the lowest
    npl = pub[PUB.NPLAYED]
    first = npl - npl % MAX_SEATS
    key = KEY[c, LED_OF[c, lead]]  # [B8] strength in this trick (ordered as key_in_trick)
    top = -1
    for p in range(first, npl):
        k = key[played[PL.TILE + p]]
        if k > top:
            top = k
    best = -1
    cost = 1 << 30
    for i in range(n):
        t = acts[i, A.TILE]
        if key[t] > top and POWER[c, t] < cost:
            cost = POWER[c, t]
            best = i
    if best >= 0:
        return best
    return extreme(acts, n, c, False)


# ---------------------------------------------------------------- registry

POLICIES: dict[str, Policy] = {
    "random": Policy(
        "random",
        bid=random_bid,
        trump=random_trump,
        play=random_play,
        doc="uniform among legal options",
        game="moon",
    ),
    "greedy": Policy(
        "greedy",
        bid=greedy_bid,
        trump=greedy_trump,
        play=greedy_play,
        doc="bids with 3+ tiles of a number; bidder plays high, defenders low",
        game="moon",
    ),
    "count": Policy(
        "count",
        bid=count_bid,
        trump=count_trump,
        play=count_play,
        params={"margin": 0.5},
        doc="counts sure tricks to bid, declare and play; margin = optimism when bidding",
        game="moon",
    ),
    "pimc": Policy(
        "pimc",
        bid=pimc_bid,
        trump=pimc_trump,
        play=pimc_play,
        params=PIMC_PARAMS,
        ranges=PIMC_RANGES,
        doc="search: deals the hidden tiles `samples` ways from its view, solves each"
        " double-dummy, takes the best mean; bids the best expected score beating `caution`",
        game="moon",
        quick="samples=2",  # registry-wide checks (every preset, no JIT)
    ),
}

"""An exact double-dummy solver for a Three-Player Moon hand in progress: every hand known.

The bidder plays against the two defenders as one side (each defender sees every tile and
plays for the side). The value of a position is the number of tricks the bidder takes from
the trick under way to the end of the hand when the bidder plays to maximise it and the
defenders to minimise it. Every contract's score ([B9]) is a nondecreasing function of the
bidder's tricks (a bid of 4-7: + tricks or + the bid when made, - the bid when set; the moon,
bid 21: +21 for all seven, else -21), so the minimax of the tricks is also the minimax of the
score: one exact number serves every contract and every scoring knob, and :func:`bid_score`
turns it into points.

The rules are the engine's own compiled functions: [B7] who may play what
(:func:`~.tricks.legal_mask`), [B8] who wins a trick (:func:`~.tricks.trick_winner`); a
contract is 0-6 (a number), :data:`~.layout.DOUBLES` or :data:`~.layout.NO_TRUMP` ([B6]).

Search (:func:`search`): fail-soft alpha-beta over single plays, three plies a trick, with

* a transposition table at trick boundaries. The tiles still in play and the leader say
  everything about a position once the deal is fixed (each tile's owner is its owner in the
  deal), so the key is those 22 bits, the leader and a *generation* number that the caller
  moves on whenever the deal, the contract or the bidder changes (:func:`next_generation`);
  nothing has to be cleared between solves. An entry holds a lower and an upper bound of the
  value and the best lead found;
* move ordering: the table's best lead first, then the leads that no other seat's tile of
  their suit beats, the trumps, the rest (each from the strongest tile down); a
  follower tries the tiles that win the trick so far (the cheapest first) and then the rest
  from the cheapest up, except that a defender whose partner already holds the trick plays
  low first;
* equivalent trumps: of two trumps in one hand with no other seat's trump still in play
  between them, only the higher is tried (they are interchangeable in every line);
* bounds: a position with r tricks left is worth 0..r (also when the table has no entry);
  a trump above every trump the other side holds wins the trick it is played to (a trump
  beats any other tile, [B8], and every tile is played), so the bidder takes at least its
  such trumps and at most r less the larger count of one defender's; the leader's side
  takes at least the leader's sure tricks (:func:`sure_tricks`: the tiles no other seat's
  tile beats when led, cashed keeping the lead; all of them while the other side holds no
  trump, else its top trumps and the tops of one suit that every opponent holding a trump
  must follow); the last trick is counted, not searched;
* :func:`solve` finds the exact value by null-window searches (MTD(f)), each one a test
  "at least k?" that the table's bounds answer quickly the second time.

Work arrays (:class:`Work`, :func:`new_work`) are allocated once by the caller and reused for
any number of solves; :func:`solve` and the other entry points are compiled functions that
compiled code (a policy, :mod:`.pimc`) calls directly; :func:`solve_hands` is the Python
entry for tests and tools. Nothing here is compiled until a caller first needs it.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..jit import jit, kernel
from .layout import DOUBLES, MAX_SEATS, MOON_BID, N_CONTRACTS, N_TILES, N_TRICKS, NO_TRUMP
from .tiles import HI, LO
from .tricks import FOLLOW, KEY, LED_OF, bit, legal_mask, low_index, trick_winner
from .tricks import popcount as _popcount

TT_BITS = 16  # transposition table entries: 2**TT_BITS (1 MiB of keys and values)
MAX_PLY = 3 * N_TRICKS + 3  # plies of one search, with room for a root's own

Work = namedtuple("Work", ["key", "val", "moves", "keys", "stats"])
Work.__doc__ = """The solver's work arrays: ``key`` / ``val`` int64[2**bits] the transposition
table (key: tiles in play | leader << 22 | generation << 24; val: lower bound | upper bound <<
8 | best lead << 16), ``moves`` int64[MAX_PLY, N_TILES] one move list per ply and ``keys``
the same shape (their ordering keys), ``stats``
int64[4]: nodes searched, the current generation, table hits, solves."""

ST_NODES, ST_GEN, ST_HITS, ST_SOLVES = 0, 1, 2, 3
_KEY_SHIFT_LEADER = 22
_KEY_SHIFT_GEN = 24
_MULT = np.uint64(0x9E3779B97F4A7C15)


# ---------------------------------------------------------------- tables (plain Python)


def _power_table() -> np.ndarray:
    """POWER[c, t]: a tile's strength for ordering moves under contract c ([B6]): a trump is
    100 + its trump rank, any other tile 10 x high + low, a double 5 more (an ordering
    heuristic only: [B8] strength in a trick is :func:`.tricks.play_key`)."""
    out = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int64)
    for c in range(N_CONTRACTS):
        for t in range(N_TILES):
            h, lo = int(HI[t]), int(LO[t])
            if c == NO_TRUMP:
                trump = False
            elif c == DOUBLES:
                trump = h == lo
            else:
                trump = c in (h, lo)
            if trump:
                rank = h if c == DOUBLES else (7 if h == lo else (lo if h == c else h))
                out[c, t] = 100 + rank
            else:
                out[c, t] = 10 * h + lo + (5 if h == lo else 0)
    return out


POWER = _power_table()
# ORDER[c]: the tiles from the strongest down under contract c
ORDER = np.array([sorted(range(N_TILES), key=lambda t: -POWER[c, t]) for c in range(N_CONTRACTS)])
# RANKPOS[c, t]: the place of tile t in ORDER[c]; TRUMP_LEN[c]: the trumps (ORDER[c]'s first)
RANKPOS = np.argsort(ORDER, axis=1).astype(np.int64)
TRUMP_LEN = (POWER >= 100).sum(axis=1).astype(np.int64)


def _above_table() -> np.ndarray:
    """ABOVE[c, t]: the tiles that beat tile t, not a trump, when it is led under contract c
    ([B8]: the other tiles of the suit it calls that rank above it; trumps left out); 0 for a
    trump."""
    out = np.zeros((N_CONTRACTS, N_TILES), dtype=np.int64)
    for c in range(N_CONTRACTS):
        for t in range(N_TILES):
            if POWER[c, t] >= 100:
                continue
            led = LED_OF[c, t]
            for u in range(N_TILES):
                if POWER[c, u] < 100 and KEY[c, led, u] > KEY[c, led, t]:
                    out[c, t] |= 1 << u
    return out


ABOVE = _above_table()
# TRUMPS[c]: the trumps under contract c; BEATS[c, t]: the tiles that beat t when it is led,
# but for trumps on a lead not of trumps (ABOVE, or for a trump the trumps above it)
TRUMPS = np.array([sum(1 << int(t) for t in ORDER[c, : (POWER[c] >= 100).sum()]) for c in
                   range(N_CONTRACTS)], dtype=np.int64)  # fmt: skip
# LEADS[c, t]: the tiles, not trumps, that call the suit tile t calls when led (0 for a trump)
LEADS = np.array([[sum(1 << int(u) for u in range(N_TILES) if POWER[c, u] < 100 and
                       LED_OF[c, u] == LED_OF[c, t]) if POWER[c, t] < 100 else 0
                   for t in range(N_TILES)]
                  for c in range(N_CONTRACTS)], dtype=np.int64)  # fmt: skip
BEATS = ABOVE.copy()
for _c in range(N_CONTRACTS):
    for _j in range(int((POWER[_c] >= 100).sum())):
        BEATS[_c, ORDER[_c, _j]] = sum(1 << int(u) for u in ORDER[_c, :_j])


# ---------------------------------------------------------------- work arrays


@jit
def new_work(bits):
    """Fresh :class:`Work` arrays with a table of ``2**bits`` entries."""
    n = np.int64(1) << bits
    return Work(
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros((MAX_PLY, N_TILES), dtype=np.int64),
        np.zeros((MAX_PLY, N_TILES), dtype=np.int64),
        np.zeros(4, dtype=np.int64),
    )


@kernel
def next_generation(ws):
    """Start a new generation of table entries (a new deal, contract or bidder): the entries
    of earlier ones no longer match. Returns it."""
    ws.stats[ST_GEN] += 1
    return ws.stats[ST_GEN]


# ---------------------------------------------------------------- helpers


popcount = _popcount  # set bits of a non-negative int64
lowest_tile = low_index  # the id of the lowest set bit of ``x`` (> 0)


@kernel
def _slot(key, mask):
    return np.int64((np.uint64(key) * _MULT) >> np.uint64(40)) & mask


@kernel
def _gen_moves(ws, ply, legal, inplay, c, first, top_key, led, low_first, leading):
    """The moves of ``legal`` into ``ws.moves[ply]``, best guess first; returns how many.

    Leading: ``first`` (the table's best lead, if legal), then the tiles no other seat's tile
    of the suit they call can beat (trumps aside), then the trumps, then the rest, each group
    from the strongest down.
    Following: with ``low_first`` (the partner holds the trick) from the cheapest up; else the
    tiles that beat ``top_key`` (the trick's best so far, [B8]) cheapest first, then the rest
    cheapest first. A trump is left out when the next higher trump still in play (``inplay``:
    the hands and the trick under way) is also in ``legal``: the two are interchangeable
    in every line (same suit, no tile of another seat between them, [B6]-[B8])."""
    mv = ws.moves[ply]
    n = 0
    x = legal
    while x != 0:
        t = lowest_tile(x)
        x &= x - 1
        p = RANKPOS[c, t]
        if p < TRUMP_LEN[c]:
            j = p - 1
            while j >= 0 and (inplay >> ORDER[c, j]) & 1 == 0:
                j -= 1
            if j >= 0 and (legal >> ORDER[c, j]) & 1:
                continue
        if leading:
            if t == first:
                k = -200
            elif p < TRUMP_LEN[c]:
                k = p
            elif ABOVE[c, t] & inplay & ~legal == 0:
                k = p - 100
            else:
                k = p + 100
        elif low_first:
            k = -p
        elif KEY[c, led, t] > top_key:
            k = -p - 100
        else:
            k = -p
        i = n
        while i > 0 and ws.keys[ply, i - 1] > k:
            mv[i] = mv[i - 1]
            ws.keys[ply, i] = ws.keys[ply, i - 1]
            i -= 1
        mv[i] = t
        ws.keys[ply, i] = k
        n += 1
    return n


# ---------------------------------------------------------------- the search


@kernel
def sure_tricks(h, c, bidder, leader):
    """Tricks the leader's side is sure of from a trick boundary (``h``, ``c``, ``bidder``,
    ``leader`` as :func:`search`), by the leader's "tops", the tiles of its that no other
    seat's tile beats when led (:data:`BEATS`), cashed one by one keeping the lead (a partner
    void in the suit discards rather than trumps): all of them while the other side holds no
    trump; else its top trumps and the tops of one suit, as many as every opponent holding a
    trump can follow (an opponent that must follow cannot trump)."""
    others = (h[0] | h[1] | h[2]) & ~h[leader]
    x = h[leader]
    tops = 0
    while x != 0:
        t = lowest_tile(x)
        x &= x - 1
        if BEATS[c, t] & others == 0:
            tops |= bit(t)
    if tops == 0:
        return np.int64(0)
    if leader == bidder:
        o1 = h[(bidder + 1) % MAX_SEATS]
        o2 = h[(bidder + 2) % MAX_SEATS]
    else:
        o1 = h[bidder]
        o2 = np.int64(0)
    tr = TRUMPS[c]
    if (o1 | o2) & tr == 0:
        return popcount(tops)
    ks = 0
    y = tops & ~tr
    while y != 0:
        t = lowest_tile(y)
        f = FOLLOW[c, LED_OF[c, t]]
        y &= ~LEADS[c, t]
        m = popcount(tops & LEADS[c, t])
        if o1 & tr != 0 and popcount(o1 & f) < m:
            m = popcount(o1 & f)
        if o2 & tr != 0 and popcount(o2 & f) < m:
            m = popcount(o2 & f)
        if m > ks:
            ks = m
    return popcount(tops & tr) + ks


@kernel
def search(ws, h, c, bidder, leader, pos, t0, t1, alpha, beta, gen, ply):
    """The bidder's tricks from the trick under way to the end, searched in the window
    (``alpha``, ``beta``), fail-soft: a result <= alpha is an upper bound, >= beta a lower
    bound, anything between exact.

    ``h`` int64[3]: each seat's tiles as bits (changed during the search, restored after);
    ``c`` the contract; ``leader`` led the trick under way, on which ``pos`` tiles are down
    (``t0``, then ``t1``; -1 for none); ``gen`` the table generation (:func:`next_generation`);
    ``ply`` the move list to use (0 at the root)."""
    ws.stats[ST_NODES] += 1
    # (the recursive calls pass typed constants: Numba matches a recursive call to the frame
    # being compiled by its argument types, and a literal 1 is not an int64)
    ZERO = np.int64(0)
    ONE = np.int64(1)
    TWO = np.int64(2)
    NONE = np.int64(-1)
    if pos == 0:
        r = popcount(h[leader])
        if r == 0:
            return np.int64(0)
        if r == 1:  # the last trick: nothing left to choose
            a = lowest_tile(h[leader])
            b = lowest_tile(h[(leader + 1) % MAX_SEATS])
            d = lowest_tile(h[(leader + 2) % MAX_SEATS])
            w = (leader + trick_winner(a, b, d, c)) % MAX_SEATS
            return np.int64(1) if w == bidder else np.int64(0)
        key = (h[0] | h[1] | h[2]) | (leader << _KEY_SHIFT_LEADER) | (gen << _KEY_SHIFT_GEN)
        mask = ws.key.shape[0] - 1
        i = _slot(key, mask)
        lo = np.int64(0)
        hi = r
        first = -1
        if ws.key[i] == key:
            ws.stats[ST_HITS] += 1
            v = ws.val[i]
            lo = v & 0xFF
            hi = (v >> 8) & 0xFF
            first = (v >> 16) & 0xFF
        # top trumps: each trump above every trump of the other side wins its trick
        kb = 0
        kd1 = 0
        kd2 = 0
        d1 = (bidder + 1) % MAX_SEATS
        seen_b = False
        seen_d = False
        for j in range(TRUMP_LEN[c]):
            t = ORDER[c, j]
            if (h[bidder] >> t) & 1:
                if not seen_d:
                    kb += 1
                seen_b = True
            elif (h[d1] >> t) & 1:
                if not seen_b:
                    kd1 += 1
                seen_d = True
            elif (h[(bidder + 2) % MAX_SEATS] >> t) & 1:
                if not seen_b:
                    kd2 += 1
                seen_d = True
            if seen_b and seen_d:
                break
        if kb > lo:
            lo = np.int64(kb)
        kd = kd1 if kd1 > kd2 else kd2
        if r - kd < hi:
            hi = r - kd
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        # the leader's sure tricks
        k = sure_tricks(h, c, bidder, leader)
        if leader == bidder:
            if k > lo:
                lo = k
        elif r - k < hi:
            hi = r - k
        if lo >= beta or lo == hi:  # (the bounds 0..r hold without an entry as well)
            return lo
        if hi <= alpha:
            return hi
        a0 = alpha if alpha > lo else lo
        b0 = beta if beta < hi else hi
        maxi = leader == bidder
        inplay = h[0] | h[1] | h[2]
        n = _gen_moves(ws, ply, h[leader], inplay, c, first, 0, 0, False, True)
        best = np.int64(-1) if maxi else np.int64(99)
        best_t = -1
        a = a0
        b = b0
        for k in range(n):
            t = ws.moves[ply, k]
            h[leader] &= ~bit(t)
            v = search(ws, h, c, bidder, leader, ONE, t, NONE, a, b, gen, ply + 1)
            h[leader] |= bit(t)
            if maxi:
                if v > best:
                    best = v
                    best_t = t
                if v > a:
                    a = v
            else:
                if v < best:
                    best = v
                    best_t = t
                if v < b:
                    b = v
            if a >= b:
                break
        nlo = lo
        nhi = hi
        if best <= a0:
            nhi = best if best < nhi else nhi
        elif best >= b0:
            nlo = best if best > nlo else nlo
        else:
            nlo = best
            nhi = best
        ws.key[i] = key
        ws.val[i] = nlo | (nhi << 8) | (best_t << 16)
        return best
    seat = (leader + pos) % MAX_SEATS
    legal = legal_mask(h[seat], t0, c)
    led = LED_OF[c, t0]
    top = KEY[c, led, t0]
    win = 0
    if pos == 2:
        k1 = KEY[c, led, t1]
        if k1 > top:
            top = k1
            win = 1
    holder = (leader + win) % MAX_SEATS
    partner_holds = seat != bidder and holder != bidder and holder != seat
    inplay = h[0] | h[1] | h[2] | bit(t0)
    if pos == 2:
        inplay |= bit(t1)
    n = _gen_moves(ws, ply, legal, inplay, c, -1, top, led, partner_holds, False)
    maxi = seat == bidder
    best = np.int64(-1) if maxi else np.int64(99)
    a = alpha
    b = beta
    for k in range(n):
        t = ws.moves[ply, k]
        h[seat] &= ~bit(t)
        if pos == 1:
            v = search(ws, h, c, bidder, leader, TWO, t0, t, a, b, gen, ply + 1)
        else:
            w = (leader + trick_winner(t0, t1, t, c)) % MAX_SEATS
            g = np.int64(1) if w == bidder else np.int64(0)
            v = g + search(ws, h, c, bidder, w, ZERO, NONE, NONE, a - g, b - g, gen, ply + 1)
        h[seat] |= bit(t)
        if maxi:
            if v > best:
                best = v
            if v > a:
                a = v
        else:
            if v < best:
                best = v
            if v < b:
                b = v
        if a >= b:
            break
    return best


@kernel
def solve(ws, h, c, bidder, leader, pos, t0, t1, gen, guess):
    """The exact value (bidder's tricks from the trick under way to the end) of the position
    :func:`search` describes; ``gen`` as there. Null-window searches (MTD(f)) close in on it
    from ``guess`` (any number; the nearer the value, the fewer searches)."""
    ws.stats[ST_SOLVES] += 1
    lower = np.int64(0)
    upper = np.int64(N_TRICKS)
    g = np.int64(guess)
    while lower < upper:
        beta = g + 1 if g <= lower else (g if g <= upper else upper)
        g = search(ws, h, c, bidder, leader, pos, t0, t1, beta - 1, beta, gen, 0)
        if g < beta:
            upper = g
        else:
            lower = g
    return g


@kernel
def solve_after(ws, h, c, bidder, leader, pos, t0, t1, seat, t, gen, guess):
    """The exact value of the position after ``seat`` (the one to move: ``(leader + pos) %
    3``) plays ``t`` — which must be legal and held (it is taken out of ``h`` and put back) —
    counted from the trick under way, as :func:`solve` (``guess`` as there)."""
    h[seat] &= ~bit(t)
    if pos == 0:
        v = solve(ws, h, c, bidder, leader, 1, t, -1, gen, guess)
    elif pos == 1:
        v = solve(ws, h, c, bidder, leader, 2, t0, t, gen, guess)
    else:
        w = (leader + trick_winner(t0, t1, t, c)) % MAX_SEATS
        g = np.int64(1) if w == bidder else np.int64(0)
        v = g + solve(ws, h, c, bidder, w, 0, -1, -1, gen, guess - g)
    h[seat] |= bit(t)
    return v


@kernel
def bid_score(bid, tricks, made_tricks):
    """[B9] the bidder's points for ``tricks`` taken on ``bid``: 4-7 made, + tricks
    (``made_tricks``) or + the bid; set, - the bid; the moon (21), +21 for all 7, else -21."""
    if bid == MOON_BID:
        return np.int64(MOON_BID) if tricks == N_TRICKS else np.int64(-MOON_BID)
    if tricks >= bid:
        return np.int64(tricks) if made_tricks else np.int64(bid)
    return np.int64(-bid)


# ---------------------------------------------------------------- Python entry


@jit
def _solve_py(h, c, bidder, leader, pos, t0, t1, bits):
    ws = new_work(bits)
    g = next_generation(ws)
    v = solve(ws, h, c, bidder, leader, pos, t0, t1, g, 2)
    return v, ws.stats[ST_NODES]


def solve_hands(hands, trump: int, bidder: int, leader: int, current=(), bits: int = TT_BITS):
    """The exact double-dummy value from Python: ``hands`` three iterables of tile ids (each
    seat's tiles now), ``trump`` the contract, ``leader`` the seat that led (or leads) the trick
    under way and ``current`` the tiles already played to it, in order. Returns (the bidder's
    tricks from the trick under way to the end, nodes searched)."""
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    for q in range(MAX_SEATS):
        for t in hands[q]:
            h[q] |= 1 << int(t)
    cur = [int(t) for t in current]
    t0 = cur[0] if len(cur) > 0 else -1
    t1 = cur[1] if len(cur) > 1 else -1
    v, nodes = _solve_py(h, int(trump), int(bidder), int(leader), len(cur), t0, t1, int(bits))
    return int(v), int(nodes)


@jit
def _move_values_py(h, c, bidder, leader, pos, t0, t1, bits, out):
    ws = new_work(bits)
    g = next_generation(ws)
    seat = (leader + pos) % MAX_SEATS
    legal = legal_mask(h[seat], t0 if pos > 0 else -1, c)
    n = 0
    for t in range(N_TILES):
        if (legal >> t) & 1:
            out[n, 0] = t
            out[n, 1] = solve_after(ws, h, c, bidder, leader, pos, t0, t1, seat, t, g, 2)
            n += 1
    return n


def move_values(hands, trump: int, bidder: int, leader: int, current=(), bits: int = TT_BITS):
    """The exact value of every legal play of the seat to move, from Python (arguments as
    :func:`solve_hands`): ``{tile: the bidder's tricks from the trick under way to the end
    after that play}``."""
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    for q in range(MAX_SEATS):
        for t in hands[q]:
            h[q] |= 1 << int(t)
    cur = [int(t) for t in current]
    t0 = cur[0] if len(cur) > 0 else -1
    t1 = cur[1] if len(cur) > 1 else -1
    out = np.zeros((N_TILES, 2), dtype=np.int64)
    n = _move_values_py(h, int(trump), int(bidder), int(leader), len(cur), t0, t1, int(bits), out)
    return {int(out[i, 0]): int(out[i, 1]) for i in range(n)}

"""The double-dummy solver (sim/moon/solver.py) against a plain-Python minimax.

The oracle here plays every line of a small ending (2-4 tricks left) by the auditor's
independent reading of the rules ([B7] who may follow, [B8] who wins: sim/moon/auditor.py,
which imports nothing of the kernel) and takes the bidder's best against the defenders' best.
The solver's value of the position, and of every legal play in it, must equal the oracle's on
many generated endings under each of the nine contracts (trump 0-6, doubles, no trump), from
every point of a trick. Its line of play, scored trick by trick with the engine's own
:func:`sim.moon.tricks.trick_winner`, must take exactly the tricks it promised.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from sim.moon import auditor as aud
from sim.moon.layout import DOUBLES, MAX_SEATS, MOON_BID, N_CONTRACTS, NO_TRUMP, TRUMP_NAMES
from sim.moon.solver import bid_score, move_values, solve_hands
from sim.moon.tiles import HI, LO, N_TILES
from sim.moon.tricks import trick_winner

PAIR = [(int(HI[t]), int(LO[t])) for t in range(N_TILES)]


# ---------------------------------------------------------------- the oracle


def legal(hand: frozenset, lead: int, name: str) -> list[int]:
    """[B7] by the auditor: the tiles of ``hand`` that may be played to a trick led ``lead``."""
    if lead < 0:
        return sorted(hand)
    called = aud.called_suit(PAIR[lead], name)
    ok = [t for t in hand if aud.can_follow(PAIR[t], called, name)]
    return sorted(ok or hand)


def oracle(hands, name: str, bidder: int, leader: int, current=()) -> int:
    """The bidder's tricks from the trick under way to the end, bidder maximising and the
    defenders minimising, every line played out (memoised on the position)."""

    @cache
    def value(hs: tuple, leader: int, cur: tuple) -> int:
        if len(cur) == MAX_SEATS:
            w = (leader + aud.winner_of([PAIR[t] for t in cur], name)) % MAX_SEATS
            return int(w == bidder) + value(hs, w, ())
        seat = (leader + len(cur)) % MAX_SEATS
        if not hs[seat]:
            return 0
        vals = []
        for t in legal(hs[seat], cur[0] if cur else -1, name):
            nh = list(hs)
            nh[seat] = hs[seat] - {t}
            vals.append(value(tuple(nh), leader, cur + (t,)))
        return max(vals) if seat == bidder else min(vals)

    return value(tuple(frozenset(int(t) for t in h) for h in hands), leader, tuple(current))


def ending(rng, tricks: int):
    """A random ending: ``tricks`` tricks left, a random bidder and leader, and 0-2 tiles
    already down on the trick under way (legal ones). Returns (hands, bidder, leader, current,
    contract)."""
    c = int(rng.integers(N_CONTRACTS))
    name = TRUMP_NAMES[c]
    tiles = [int(t) for t in rng.permutation(N_TILES)[: MAX_SEATS * tricks]]
    hands = [set(tiles[q * tricks : (q + 1) * tricks]) for q in range(MAX_SEATS)]
    bidder = int(rng.integers(MAX_SEATS))
    leader = int(rng.integers(MAX_SEATS))
    cur = []
    for j in range(int(rng.integers(3))):
        q = (leader + j) % MAX_SEATS
        opts = legal(frozenset(hands[q]), cur[0] if cur else -1, name)
        t = opts[int(rng.integers(len(opts)))]
        hands[q].discard(t)
        cur.append(t)
    return [sorted(h) for h in hands], bidder, leader, cur, c


def all_contracts():
    return pytest.mark.parametrize("contract", range(N_CONTRACTS), ids=list(TRUMP_NAMES))


# ---------------------------------------------------------------- the tests


@all_contracts()
@pytest.mark.parametrize("tricks,deals", [(2, 60), (3, 40), (4, 12)])
def test_b6_b7_b8_solver_equals_minimax_on_endings(contract, tricks, deals):
    """The value of the position and of every legal play ([B7]) equal the oracle's."""
    rng = np.random.default_rng(1000 * contract + tricks)
    done = 0
    while done < deals:
        hands, bidder, leader, cur, c = ending(rng, tricks)
        if c != contract:
            continue
        name = TRUMP_NAMES[c]
        v, nodes = solve_hands(hands, c, bidder, leader, cur)
        assert v == oracle(hands, name, bidder, leader, cur), (hands, name, bidder, leader, cur)
        assert 0 <= v <= tricks and nodes >= 1
        seat = (leader + len(cur)) % MAX_SEATS
        mv = move_values(hands, c, bidder, leader, cur)
        assert sorted(mv) == legal(frozenset(hands[seat]), cur[0] if cur else -1, name)
        for t, val in mv.items():
            nh = [list(h) for h in hands]
            nh[seat].remove(t)
            assert val == oracle(nh, name, bidder, leader, [*cur, t]), (hands, name, cur, t)
        assert v == (max(mv.values()) if seat == bidder else min(mv.values()))
        done += 1


@pytest.mark.parametrize("tricks", [3, 4])
def test_b6_b8_the_leaders_sure_tricks_equal_minimax(tricks):
    """The solver's bound for a leader holding tiles no other seat's tile beats when led (it
    cashes them keeping the lead: all of them while the other side holds no trump, else its top
    trumps and the tops of one suit while every opponent holding a trump can follow it): on
    endings at a trick boundary where the leader holds such tiles, bidder or defender leading,
    the other side with trumps or without, every contract, the value and the value of every
    lead equal the oracle's."""
    from sim.moon.solver import BEATS, TRUMPS

    rng = np.random.default_rng(77 + tricks)
    seen = dict.fromkeys(itertools.product((True, False), repeat=2), 0)
    while min(seen.values()) < 15:
        c = int(rng.integers(N_CONTRACTS))
        tiles = [int(t) for t in rng.permutation(N_TILES)[: MAX_SEATS * tricks]]
        hands = [sorted(tiles[q * tricks : (q + 1) * tricks]) for q in range(MAX_SEATS)]
        bidder = int(rng.integers(MAX_SEATS))
        leader = int(rng.integers(MAX_SEATS))
        opp = [q for q in range(MAX_SEATS) if (q == bidder) != (leader == bidder)]
        trumpless = not any(int(TRUMPS[c]) >> t & 1 for q in opp for t in hands[q])
        others = {t for q in range(MAX_SEATS) if q != leader for t in hands[q]}
        sure = [t for t in hands[leader] if not any(int(BEATS[c, t]) >> u & 1 for u in others)]
        kind = (leader == bidder, trumpless)
        if not sure or seen[kind] >= 15:
            continue
        name = TRUMP_NAMES[c]
        assert solve_hands(hands, c, bidder, leader)[0] == oracle(hands, name, bidder, leader)
        for t, val in move_values(hands, c, bidder, leader).items():
            nh = [list(h) for h in hands]
            nh[leader].remove(t)
            assert val == oracle(nh, name, bidder, leader, [t]), (hands, name, bidder, t)
        seen[kind] += 1


@pytest.mark.parametrize("tricks", [3, 4, 5])
def test_b6_b8_sure_tricks_never_exceed_the_minimax(tricks):
    """The bound itself (:func:`sim.moon.solver.sure_tricks`): wherever it promises the
    leader's side k tricks, the oracle's value gives that side at least k (the bidder leading:
    value >= k; a defender: tricks - value >= k); checked on positions where it promises
    something, the other side with trumps and without."""
    from sim.moon.solver import TRUMPS, sure_tricks

    rng = np.random.default_rng(500 + tricks)
    seen = dict.fromkeys(itertools.product((True, False), repeat=2), 0)
    want = 40 if tricks < 5 else 12
    while min(seen.values()) < want:
        c = int(rng.integers(N_CONTRACTS))
        tiles = [int(t) for t in rng.permutation(N_TILES)[: MAX_SEATS * tricks]]
        hands = [sorted(tiles[q * tricks : (q + 1) * tricks]) for q in range(MAX_SEATS)]
        bidder = int(rng.integers(MAX_SEATS))
        leader = int(rng.integers(MAX_SEATS))
        h = np.array([sum(1 << t for t in hs) for hs in hands], dtype=np.int64)
        k = int(sure_tricks(h, c, bidder, leader))
        opp = [q for q in range(MAX_SEATS) if (q == bidder) != (leader == bidder)]
        kind = (leader == bidder, not any(int(TRUMPS[c]) >> t & 1 for q in opp for t in hands[q]))
        if k == 0 or seen[kind] >= want:
            continue
        v = oracle(hands, TRUMP_NAMES[c], bidder, leader)
        side = v if leader == bidder else tricks - v
        assert side >= k, (hands, TRUMP_NAMES[c], bidder, leader, k, v)
        seen[kind] += 1


def play_line(hands, c, bidder, leader):
    """The solver's line of play from a trick boundary: each seat plays a tile whose value is
    the position's (its side's best). Returns the tricks' winners by the engine's
    trick_winner ([B8]) and the value at each trick boundary."""
    hands = [list(h) for h in hands]
    winners, values = [], []
    while hands[leader]:
        values.append(solve_hands(hands, c, bidder, leader)[0])
        cur = []
        for j in range(MAX_SEATS):
            seat = (leader + j) % MAX_SEATS
            mv = move_values(hands, c, bidder, leader, cur)
            want = max(mv.values()) if seat == bidder else min(mv.values())
            t = min(t for t, v in mv.items() if v == want)
            hands[seat].remove(t)
            cur.append(t)
        w = (leader + int(trick_winner(cur[0], cur[1], cur[2], c))) % MAX_SEATS
        winners.append(w)
        leader = w
    return winners, values


@all_contracts()
def test_b8_solver_line_takes_the_tricks_it_promised(contract):
    """Whole hands (7 tricks): the value at each trick boundary is the bidder's tricks of the
    line from there, each trick won as the engine's trick_winner says."""
    rng = np.random.default_rng(77 + contract)
    for _ in range(6):
        tiles = [int(t) for t in rng.permutation(N_TILES)]
        hands = [tiles[0:7], tiles[7:14], tiles[14:21]]
        bidder = int(rng.integers(MAX_SEATS))
        winners, values = play_line(hands, contract, bidder, bidder)
        assert len(winners) == 7
        for k, v in enumerate(values):
            assert v == sum(w == bidder for w in winners[k:]), (hands, contract, k)


def test_solver_small_table_gives_the_same_values():
    """A transposition table of 16 entries (constant replacement) changes no value: entries
    only ever hold bounds of the position their key names."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        tiles = [int(t) for t in rng.permutation(N_TILES)]
        c = int(rng.integers(N_CONTRACTS))
        hands = [tiles[0:5], tiles[5:10], tiles[10:15]]
        big = solve_hands(hands, c, 1, 2)[0]
        assert solve_hands(hands, c, 1, 2, bits=4)[0] == big
        assert solve_hands(hands, c, 1, 2, bits=0)[0] == big


def test_b7_solver_five_trick_deals_equal_minimax():
    """Five tricks from the first lead (the oracle's reach in a few seconds), trump
    contracts."""
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(12):
        tiles = [int(t) for t in rng.permutation(N_TILES)]
        hands = [tiles[0:5], tiles[5:10], tiles[10:15]]
        c = int(rng.integers(7))
        v = solve_hands(hands, c, 0, 0)[0]
        assert v == oracle(hands, TRUMP_NAMES[c], 0, 0)
        checked += 1
    assert checked == 12


def test_b9_bid_score_every_contract_kind():
    """[B9] 4-7: + tricks (or + the bid) when made, - the bid when set; 21: +-21."""
    for bid in (4, 5, 6, 7):
        for tk in range(8):
            want_tricks = tk if tk >= bid else -bid
            want_bid = bid if tk >= bid else -bid
            assert bid_score(bid, tk, True) == want_tricks
            assert bid_score(bid, tk, False) == want_bid
    for tk in range(8):
        want = MOON_BID if tk == 7 else -MOON_BID
        assert bid_score(MOON_BID, tk, True) == want == bid_score(MOON_BID, tk, False)
    assert DOUBLES == 7 and NO_TRUMP == 8


@all_contracts()
def test_solver_table_entries_bound_their_positions(contract):
    """After a whole-hand solve, every transposition-table entry's bounds hold the value of
    the position its key names, solved afresh: the table never lies, whatever windows the
    search asked it under (a regression: an empty window once stored a bound as exact)."""
    from sim.moon.solver import ST_GEN, new_work, next_generation, solve

    rng = np.random.default_rng(300 + contract)
    checked = 0
    for _ in range(6):
        tiles = [int(t) for t in rng.permutation(N_TILES)]
        hands = [tiles[0:7], tiles[7:14], tiles[14:21]]
        owner = {t: q for q in range(MAX_SEATS) for t in hands[q]}
        h = np.array([sum(1 << t for t in hs) for hs in hands], dtype=np.int64)
        ws = new_work(12)
        g = next_generation(ws)
        solve(ws, h, contract, 0, 0, 0, -1, -1, g, 2)
        assert ws.stats[ST_GEN] == g
        keys = np.nonzero(ws.key)[0]
        checked += len(keys)
        for i in keys:
            key, val = int(ws.key[i]), int(ws.val[i])
            inplay, leader = key & ((1 << 22) - 1), (key >> 22) & 3
            lo, hi = val & 0xFF, (val >> 8) & 0xFF
            now = [
                [t for t in range(N_TILES) if inplay >> t & 1 and owner[t] == q] for q in range(3)
            ]
            assert lo <= solve_hands(now, contract, 0, leader)[0] <= hi, (now, leader, lo, hi)
    assert checked > 60, checked

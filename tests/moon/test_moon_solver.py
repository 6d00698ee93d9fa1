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


# ---------------------------------------------------------------- the sure-tricks bound, aimed
#
# sure_tricks (sim/moon/solver.py) has three branches: no tops (0); the other side holds no
# trump (every top); the other side holds trumps (the top trumps plus the tops of one suit, as
# many as every trump-holding opponent can follow). A bound that only prunes hides its bugs:
# a count too high shows only where the search trusts it against a better line, a count too
# low never changes a value. So the cases below are built to sit in each branch, and each is
# checked three ways: (a) the bound never exceeds the leader side's minimax (the oracle's),
# (b) the solver's value equals the oracle's, (c) the bound equals the documented rule
# computed afresh from the auditor's reading of [B6]-[B8] (:func:`reference_sure`), which
# catches a bound that is merely too cautious.

TID = {p: t for t, p in enumerate(PAIR)}


def tiles(text: str) -> list[int]:
    """Tile ids of ``"6-4 5-5"``."""
    return [TID[aud.read_tile(x)] for x in text.split()]


def sides(bidder: int, leader: int) -> tuple[list[int], list[int]]:
    """(the leader's side, the other side): the bidder alone against the two defenders."""
    mine = [q for q in range(MAX_SEATS) if (q == bidder) == (leader == bidder)]
    return mine, [q for q in range(MAX_SEATS) if q not in mine]


def reference_sure(hands, name: str, bidder: int, leader: int) -> int:
    """The bound as its docstring states it, by the auditor's rules: the leader's tops (a
    trump above every other seat's trump; a non-trump that no other seat's tile of the suit it
    calls outranks); all of them if the other side holds no trump, else the top trumps plus,
    for the best suit s, the tops calling s, at most as many as each trump-holding opponent
    holds tiles following s."""
    trumps = aud.trump_order(name)
    others = [PAIR[t] for q in range(MAX_SEATS) if q != leader for t in hands[q]]

    def is_top(p):
        if p in trumps:
            return all(trumps.index(o) > trumps.index(p) for o in others if o in trumps)
        order = aud.suit_order(aud.called_suit(p, name), name)
        return all(order.index(o) > order.index(p) for o in others if o in order)

    tops = [PAIR[t] for t in hands[leader] if is_top(PAIR[t])]
    holders = [q for q in sides(bidder, leader)[1] if any(PAIR[t] in trumps for t in hands[q])]
    if not holders:
        return len(tops)
    best = 0
    for s in range(7):
        n = sum(1 for p in tops if p not in trumps and aud.called_suit(p, name) == s)
        for q in holders:
            n = min(n, sum(aud.can_follow(PAIR[t], s, name) for t in hands[q]))
        best = max(best, n)
    return sum(p in trumps for p in tops) + best


def kernel_sure(hands, c: int, bidder: int, leader: int) -> int:
    from sim.moon.solver import sure_tricks

    h = np.array([sum(1 << t for t in hs) for hs in hands], dtype=np.int64)
    return int(sure_tricks(h, c, bidder, leader))


SCENARIOS = ("must_follow", "short", "void", "trumpless")


def aimed_ending(rng, tricks: int, c: int, bidder_leads: bool, scenario: str):
    """An ending at a trick boundary built for one branch of the bound, or None when the
    draw does not fit (the caller draws again). The leader holds the k best tiles calling a
    suit s (the tiles of s ranked above them out of play) and maybe the top trumps; then

    * ``must_follow``: the other side holds a trump, every opponent holding one at least k
      tiles following s (the tops all count);
    * ``short``: an opponent with a trump follows s fewer than k times but at least once;
    * ``void``: an opponent with a trump is void in s (it ruffs the first top);
    * ``trumpless``: the other side holds no trump (every top counts).

    An opponent without a trump may be void in s; a defender leading may have a partner void
    in s (with trumps, without, or holding nothing but trumps); the other tiles are drawn from
    the rest, the opponents' and the partner's never following s or being trumps (their counts
    stay as built), some of them chosen to follow the low suits of the leader's tops."""
    name = TRUMP_NAMES[c]
    trumps = [TID[p] for p in aud.trump_order(name)]
    bidder = int(rng.integers(MAX_SEATS))
    leader = bidder if bidder_leads else (bidder + 1 + int(rng.integers(2))) % MAX_SEATS
    mine, opp = sides(bidder, leader)
    partner = [q for q in mine if q != leader]
    s = int(rng.integers(7))
    order = [TID[p] for p in aud.suit_order(s, name)]
    calling = [t for t in order if aud.called_suit(PAIR[t], name) == s]
    if len(calling) < 2:
        return None
    k = int(rng.integers(1, min(len(calling), tricks) + 1))
    if scenario == "short" and k < 2:
        k = 2
    if k > min(len(calling), tricks):
        return None
    pick = sorted(int(x) for x in rng.choice(len(calling), size=k, replace=False))
    tops = [calling[i] for i in pick]
    lowest = order.index(tops[-1])
    gone = set(order[:lowest]) - set(tops)  # out of play: the tops stay tops
    below = list(order[lowest + 1 :])
    rng.shuffle(below)
    hands = [[] for _ in range(MAX_SEATS)]
    hands[leader] = list(tops)
    spare_trumps = list(trumps)
    if trumps and scenario != "trumpless" and len(hands[leader]) < tricks and rng.random() < 0.4:
        j = int(rng.integers(1, 3))
        j = min(j, tricks - len(hands[leader]), len(trumps) - 1)
        hands[leader] += trumps[:j]
        spare_trumps = trumps[j:]
    spare_trumps = [t for t in spare_trumps if t not in gone]
    rng.shuffle(spare_trumps)
    if scenario != "trumpless":
        if not spare_trumps:
            return None
        holders = [q for q in opp if rng.random() < 0.6] or [opp[int(rng.integers(len(opp)))]]
        if len(opp) == 1:
            holders = opp
        target = holders[int(rng.integers(len(holders)))]
    else:
        holders, target = [], None
    for q in opp:  # nt trumps, nf tiles following s (an opponent without trumps: any nf)
        nt = 1 + int(rng.integers(2)) if q in holders else 0
        if q != target:
            must = scenario == "must_follow" and q in holders
            nf = k + int(rng.integers(2)) if must else int(rng.integers(k + 2))
        elif scenario == "void":
            nf = 0
        elif scenario == "short":
            nf = int(rng.integers(1, k))
        else:
            nf = k + int(rng.integers(2))
        for _ in range(nt):
            if spare_trumps and len(hands[q]) < tricks:
                hands[q].append(spare_trumps.pop())
        for _ in range(nf):
            if below and len(hands[q]) < tricks:
                hands[q].append(below.pop())
    for q in partner:
        plan = ("void_trumps", "void_plain", "all_trumps", "any")[int(rng.integers(4))]
        if plan == "all_trumps":
            while spare_trumps and len(hands[q]) < tricks:
                hands[q].append(spare_trumps.pop())
            if len(hands[q]) < tricks:
                return None
        elif plan == "void_trumps" and spare_trumps:
            hands[q].append(spare_trumps.pop())
        elif plan == "any":
            for _ in range(int(rng.integers(3))):
                if below and len(hands[q]) < tricks:
                    hands[q].append(below.pop())
    used = {t for hs in hands for t in hs} | set(order)  # (no tile of s is handed out now)
    rest = [t for t in range(N_TILES) if t not in used and t not in trumps]
    rng.shuffle(rest)
    lows = {int(LO[t]) for t in tops}

    def trap(t):  # about half the tiles bearing a low number of the tops go first
        return rng.random() < 0.5 and (int(HI[t]) in lows or int(LO[t]) in lows)

    rest.sort(key=lambda t: not trap(t))
    for q in [*opp, *partner, leader]:
        while len(hands[q]) < tricks:
            if not rest:
                return None
            hands[q].append(rest.pop(0))
    hands = [sorted(hs) for hs in hands]
    if branch_of(hands, c, bidder, leader, s, k, target) != scenario:
        return None  # a count cut short by a full hand or too few tiles left
    return hands, bidder, leader, s, k, target


def branch_of(hands, c: int, bidder: int, leader: int, s: int, k: int, target) -> str:
    """Which scenario a built ending is in, read afresh from its tiles (so a generator that
    drifts from its promise fails here rather than testing something else)."""
    name = TRUMP_NAMES[c]
    trumps = aud.trump_order(name)
    opp = sides(bidder, leader)[1]
    holders = [q for q in opp if any(PAIR[t] in trumps for t in hands[q])]
    if not holders:
        return "trumpless"
    n = sum(aud.can_follow(PAIR[t], s, name) for t in hands[target])
    if n == 0:
        return "void"
    if n < k:
        return "short"
    if all(sum(aud.can_follow(PAIR[t], s, name) for t in hands[q]) >= k for q in holders):
        return "must_follow"
    return "other"


def check_bound(hands, c: int, bidder: int, leader: int, tricks: int) -> int:
    """(a) the oracle gives the leader's side at least the bound's tricks, (b) the solver's
    value is the oracle's, (c) the bound equals the documented rule. Returns the bound."""
    name = TRUMP_NAMES[c]
    k = kernel_sure(hands, c, bidder, leader)
    v = oracle(hands, name, bidder, leader)
    why = (hands, name, bidder, leader, k, v)
    assert (v if leader == bidder else tricks - v) >= k, ("(a) bound above the minimax", *why)
    assert solve_hands(hands, c, bidder, leader)[0] == v, ("(b) solver", *why)
    assert k == reference_sure(hands, name, bidder, leader), ("(c) not the documented rule", *why)
    return k


@pytest.mark.parametrize("bidder_leads", [True, False], ids=["bidder", "defender"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_b6_b8_sure_tricks_aimed_at_each_branch(scenario, bidder_leads):
    """Endings of 2-5 tricks built for one branch of the bound (:func:`aimed_ending`), under
    number trumps, doubles and (trumpless only, where it has no trumps at all) no trump:
    the bound is the documented rule, never more than the minimax, and the solver exact."""
    rng = np.random.default_rng(9000 + 10 * SCENARIOS.index(scenario) + bidder_leads)
    contracts = list(range(8)) + ([NO_TRUMP] if scenario == "trumpless" else [])
    plan = [(2, 10), (3, 14), (4, 10), (5, 2)]
    positive = 0
    for tricks, want in plan:
        done = 0
        while done < want:
            c = contracts[int(rng.integers(len(contracts)))]
            built = aimed_ending(rng, tricks, c, bidder_leads, scenario)
            if built is None:
                continue
            hands, bidder, leader, s, k, target = built
            assert all(len(hs) == tricks for hs in hands)
            assert branch_of(hands, c, bidder, leader, s, k, target) == scenario
            positive += check_bound(hands, c, bidder, leader, tricks) > 0
            done += 1
    assert positive >= 10, positive


def literal_bound(hands: str, c: int, bidder: int, leader: int) -> tuple[int, int]:
    """(the bound, the leader side's minimax tricks) of a literal ending at a trick boundary,
    ``hands`` the three seats' tiles separated by ``/``; the bound is also checked against
    :func:`reference_sure` and the solver against the oracle."""
    hs = [tiles(x) for x in hands.split("/")]
    tricks = len(hs[leader])
    k = check_bound(hs, c, bidder, leader, tricks)
    v = oracle(hs, TRUMP_NAMES[c], bidder, leader)
    return k, v if leader == bidder else tricks - v


def test_b7_b8_sure_tricks_a_void_opponent_with_a_trump_ruffs_the_tops():
    """Trump 6, the bidder (seat 0) leads holding 5-5 5-4 1-1: all three are tops (no other
    seat holds a 5 or a 1 but the trump 6-1). Defender 1 holds the trump 6-1 and is void in
    both 5 and 1, so any of them led is ruffed: no top counts (bound 0, although the other
    defender, void in 5 without a trump, could not ruff). By hand the bidder takes nothing:
    defender 1 ruffs the lead and leads 4-3; the bidder must follow suit 4 with 5-4 if it
    still holds it and 4-4 wins; the last trick is led by defender 2 (2-2 or 3-3) and the
    bidder cannot follow. (Counting defender 1's suit-4 tiles, the low suit of 5-4, would
    claim 2.)"""
    k, side = literal_bound("5-5 5-4 1-1 / 6-1 4-3 4-2 / 4-4 3-3 2-2", 6, 0, 0)
    assert (k, side) == (0, 0)


def test_b7_b8_sure_tricks_an_opponent_with_a_trump_must_follow():
    """Trump 6, the bidder leads holding 5-5 5-4 2-2, tops all. Defender 1 holds 6-1 and two
    tiles that follow 5 (5-3, 5-2): it must follow two leads of 5, so the two 5-tops count
    (bound 2); the 2-2 does not add (5-2 follows both 2 and 5: one suit only is counted).
    Defender 2 has no trump. By hand the bidder takes exactly 2: in whatever order it leads,
    defender 1 follows twice (5-2 to the 2-2 or to a 5) and ruffs the third lead."""
    k, side = literal_bound("5-5 5-4 2-2 / 6-1 5-3 5-2 / 3-3 4-4 3-1", 6, 0, 0)
    assert (k, side) == (2, 2)


def test_b7_b8_sure_tricks_top_trump_then_the_suit_the_opponent_follows():
    """Trump 6: the bidder's 6-6 is a top trump (it draws defender 1's 6-1) and defender 1
    then must follow 5 twice: bound 1 + 2 = 3, all the tricks."""
    k, side = literal_bound("6-6 5-5 5-4 / 6-1 5-3 5-2 / 4-4 3-3 2-2", 6, 0, 0)
    assert (k, side) == (3, 3)


def test_b7_b8_sure_tricks_an_opponent_short_in_the_suit():
    """Trump 6, the bidder leads 5-5 5-4 5-3 (tops). Defender 2 holds the trump 6-2 and one
    tile of 5 (5-1): it follows the first 5 and ruffs the second, so one top counts (bound
    1); defender 1, void in 5 but with no trump, is no threat. By hand the bidder takes 1:
    the first 5 wins (defender 2 must play 5-1), the second is ruffed, and defender 2 then
    leads 4-4, which the bidder's last 5 cannot beat (5-4 follows 4 but ranks below the
    double; 5-3 cannot follow)."""
    k, side = literal_bound("5-5 5-4 5-3 / 3-3 2-2 2-1 / 6-2 5-1 4-4", 6, 0, 0)
    assert (k, side) == (1, 1)


def test_b6_b8_sure_tricks_partner_trumps_are_not_the_other_sides():
    """A defender (seat 0) leads 5-5 5-4 under trump 6 against the bidder (seat 1), who holds
    no trump. The partner (seat 2) holds the trump 6-1 and is void in 5: it discards 2-2 on
    the first top and may ruff its own side's second; either way both tricks are the
    defenders' and the bound is every top, 2 (the partner's trump is not the other side's)."""
    k, side = literal_bound("5-5 5-4 / 5-3 3-3 / 6-1 2-2", 6, 1, 0)
    assert (k, side) == (2, 2)


def test_b6_b8_sure_tricks_a_partner_of_trumps_only_must_ruff():
    """As above, but the partner holds nothing but trumps (6-1 6-2) and must ruff its side's
    top: the trick is still the defenders', and so is the next (its trump lead, the bidder
    holding none): bound 2, both tricks."""
    k, side = literal_bound("5-5 5-4 / 5-3 5-2 / 6-1 6-2", 6, 1, 0)
    assert (k, side) == (2, 2)


def test_b6_b8_sure_tricks_doubles_leave_their_suits():
    """[B6] doubles trump: 6-6 is a trump, not a 6, so the bidder's 6-5 and 6-4 are the tops
    of suit 6. Defender 1 holds 6-6 and one 6 (6-3): it follows the first lead and ruffs the
    second (bound 1, the value 1); defender 2 (5-4 4-1) holds no trump."""
    k, side = literal_bound("6-5 6-4 / 6-6 6-3 / 5-4 4-1", DOUBLES, 0, 0)
    assert (k, side) == (1, 1)


def test_b6_b8_sure_tricks_no_trump_counts_every_top():
    """[B6] no trump: the doubles top their suits and nothing ruffs, so the bidder's 6-6,
    6-5 (no other 6 above it) and 5-5 all count: bound 3, all three tricks."""
    k, side = literal_bound("6-6 6-5 5-5 / 6-4 5-4 1-1 / 6-3 5-3 2-2", NO_TRUMP, 0, 0)
    assert (k, side) == (3, 3)


def test_b7_b8_sure_tricks_one_suits_followers_do_not_cover_another():
    """Trump 4. The bidder leads holding 4-4 (the top trump), 1-1 (top of 1), 2-2 and 2-1
    (tops of 2: 6-2, 5-2 and 3-2 are out of play). Defender 1 holds the trumps 4-1 and 4-2
    and two 1s (3-1, 5-1) but no 2; defender 2 holds no trump. The bound: 1 top trump + the
    best suit, 1 (one 1-top, which defender 1 must follow) rather than 2 (defender 1 follows
    2 zero times): 2 in all. It must not borrow defender 1's 1s for the 2s (that says 3). By
    hand the bidder takes exactly 2: 4-4 and 1-1 win; the 4-4 draws only one of defender 1's
    two trumps and defender 1 follows the 1-1 with a 1, so it still holds a trump when the
    first 2 is led (at the third trick at the latest) and ruffs it; then it leads its 3-1 or
    5-1, a suit the bidder lacks, for the last trick too."""
    k, side = literal_bound("1-1 2-1 2-2 4-4 / 3-1 4-1 4-2 5-1 / 5-3 5-5 6-1 6-6", 4, 0, 0)
    assert (k, side) == (2, 2)

"""The ``pimc`` policy (sim/moon/pimc.py): what it reads of the hand, how it deals the tiles it
cannot see, and that it never reads one.

* [B7] voids: a seat that did not follow the suit led is dealt no tile that follows it.
* The deals are uniform over every deal consistent with the view (checked against an
  enumeration of them on a small view).
* B.5: games that differ only in tiles the pimc seat cannot see (the other hands, the widow it
  has not taken, the bidder's discard), dealt again consistently with everything it has seen
  (its own tiles, the calls, the tiles played and the voids they show), get the same answer
  from it, with its random stream unchanged, at every kind of decision.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from sim.moon.engine import copy_state, new_state
from sim.moon.layout import DEC, MAX_SEATS, N_TILES, PH, PL, PUB, G, S
from sim.moon.pimc import (
    V_BIDDER,
    V_EXTRA,
    V_HIDDEN,
    V_NEED,
    V_OWN,
    V_SEAT,
    V_SIZE,
    V_VOID,
    read_view,
    sample_deal,
)
from sim.moon.play import Game
from sim.moon.rules import SPEC
from sim.moon.tricks import FOLLOW, led_suit, legal_list


def bits(tiles) -> int:
    return sum(1 << int(t) for t in tiles)


def tiles_of(b: int) -> list[int]:
    return [t for t in range(N_TILES) if b >> t & 1]


# ---------------------------------------------------------------- the view and the deals


def view_at(g: Game, seat: int, dec: int) -> np.ndarray:
    """What read_view makes of ``seat``'s view of the game now (the engine's own fill_pub)."""
    from sim.moon.engine import fill_pub

    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    fill_pub(g.st, g.R, seat, dec, pub)
    own = g.st.hands[seat].copy()
    played = g.st.played.copy()
    v = np.zeros(V_SIZE, dtype=np.int64)
    read_view(own, pub, played, v)
    return v


def voids_shown(st, trump: int) -> list[int]:
    """[B7] each seat's void tiles from the hand's record of play, read in Python."""
    out = [0] * MAX_SEATS
    npl = int(st.g[G.NPLAYED])
    for k in range(npl):
        if k % 3:
            lead = int(st.played[PL.TILE + k - k % 3])
            t = int(st.played[PL.TILE + k])
            mask = int(FOLLOW[trump, led_suit(lead, trump)])
            if not mask >> t & 1:
                out[int(st.played[PL.SEAT + k])] |= mask
    return out


def play_until(g: Game, trick: int, extra: int, rng) -> None:
    """Play on (the game's own policies) to trick ``trick`` of the hand under way, then put
    ``extra`` (0-2) random legal tiles on that trick by hand, as the engine would."""
    while g.phase != PH.PLAY:
        g.step()
    while g.st.g[G.TRICK] < trick:
        g.step()
    st = g.st
    c = int(st.g[G.TRUMP])
    for j in range(extra):
        q = (int(st.g[G.LEADER]) + j) % MAX_SEATS
        npl = int(st.g[G.NPLAYED])
        lead = int(st.played[PL.TILE + npl - j]) if j else -1
        opts = legal_list(g.hand_of(q), lead, c)
        t = opts[int(rng.integers(len(opts)))]
        st.hands[q, t] = 0
        st.s[q, S.BITS] &= ~(1 << t)
        st.played[PL.TILE + npl] = t
        st.played[PL.SEAT + npl] = q
        st.played[PL.BY + t] = q
        st.g[G.NPLAYED] = npl + 1


def games_in_play(n: int, seed: int = 3):
    """(game, seat to move, view) at random points of the tricks of played hands."""
    rng = np.random.default_rng(seed)
    out = []
    i = 0
    while len(out) < n:
        g = Game(None, ("count", "greedy", "count"), seed=seed, index=i, trace=False)
        i += 1
        g.step()  # deal
        g.step()  # auction
        if g.phase != PH.DECLARE:
            continue
        play_until(g, int(rng.integers(0, 6)), int(rng.integers(0, 3)), rng)
        npl = int(g.st.g[G.NPLAYED])
        seat = (int(g.st.g[G.LEADER]) + npl % 3) % MAX_SEATS
        out.append((g, seat, view_at(g, seat, DEC.PLAY)))
    return out


def test_b5_b7_view_counts_the_hidden_tiles_and_the_voids():
    for g, seat, v in games_in_play(40):
        st = g.st
        b = int(st.g[G.BIDDER])
        assert v[V_SEAT] == seat and v[V_BIDDER] == b and v[V_OWN] == bits(g.hand_of(seat))
        others = [q for q in range(MAX_SEATS) if q != seat]
        hidden = bits(t for q in others for t in g.hand_of(q))
        if seat != b:  # a defender has not seen the bidder's discard
            hidden |= 1 << int(st.g[G.DISCARD])
        assert v[V_HIDDEN] == hidden
        assert v[V_EXTRA] == (0 if seat == b else 1)
        for q in others:
            assert v[V_NEED + q] == len(g.hand_of(q))
        want = voids_shown(st, int(st.g[G.TRUMP]))
        for q in range(MAX_SEATS):
            assert v[V_VOID + q] == want[q]
            assert not v[V_VOID + q] & bits(g.hand_of(q))  # the truth is consistent with them


def test_b7_deals_meet_the_view():
    """Every deal: the seat's own tiles as they are, each other seat its count of hidden tiles
    and none it is void in, every hidden tile dealt once (one face down when one is)."""
    tiles = np.zeros(N_TILES, dtype=np.int64)
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    rng = np.array([7, 11], dtype=np.uint64)
    for _, seat, v in games_in_play(40, seed=4):
        for _ in range(20):
            down = sample_deal(rng, v, h, tiles)
            assert h[seat] == v[V_OWN]
            dealt = 0
            for q in range(MAX_SEATS):
                if q == seat:
                    continue
                assert bin(int(h[q])).count("1") == v[V_NEED + q]
                assert not h[q] & v[V_VOID + q]
                assert not dealt & h[q]
                dealt |= int(h[q])
            if v[V_EXTRA]:
                assert down >= 0 and not dealt >> down & 1
                dealt |= 1 << down
            else:
                assert down == -1
            assert dealt == v[V_HIDDEN]


def test_deals_are_uniform_over_the_consistent_deals():
    """A small view (7 hidden tiles: 3 and 3 to the two other seats, one face down; seat 1
    void in three of them, seat 2 in one): the frequency of each consistent deal against the
    uniform distribution over all of them (chi-square)."""
    hidden = [0, 2, 5, 9, 13, 17, 21]
    v = np.zeros(V_SIZE, dtype=np.int64)
    v[V_SEAT] = 0
    v[V_OWN] = bits([1, 3, 4])
    v[V_HIDDEN] = bits(hidden)
    v[V_NEED + 1] = 3
    v[V_NEED + 2] = 3
    v[V_EXTRA] = 1
    v[V_VOID + 1] = bits([0, 2, 5])
    v[V_VOID + 2] = bits([21])
    deals = []
    for down in hidden:
        rest = [t for t in hidden if t != down]
        for one in itertools.combinations(rest, 3):
            two = [t for t in rest if t not in one]
            if not bits(one) & v[V_VOID + 1] and not bits(two) & v[V_VOID + 2]:
                deals.append((down, bits(one)))
    index = {d: i for i, d in enumerate(deals)}
    counts = np.zeros(len(deals))
    h = np.zeros(MAX_SEATS, dtype=np.int64)
    tiles = np.zeros(N_TILES, dtype=np.int64)
    rng = np.array([12345, 678], dtype=np.uint64)
    n = 200 * len(deals)
    for _ in range(n):
        down = sample_deal(rng, v, h, tiles)
        counts[index[(int(down), int(h[1]))]] += 1  # (a KeyError: an inconsistent deal)
    assert len(deals) > 10
    assert stats.chisquare(counts).pvalue > 1e-3


# ---------------------------------------------------------------- B.5: it never reads a hidden tile


def redeal_hidden(st, seat: int, rng, keep_voids: bool = True):
    """A copy of the game state in which the tiles ``seat`` cannot see are dealt again at
    random, consistently with its view: the same own tiles, calls and record of play; each
    other seat as many tiles as before and none of a suit it showed void in; the widow (before
    the bidder takes it) and, for a defender once play began, the bidder's discard among the
    hidden tiles. Returns the copy, or None when the deal came out the same."""
    out = new_state()
    copy_state(st, out)
    g = st.g
    b = int(g[G.BIDDER])
    phase = int(g[G.PHASE])
    others = [q for q in range(MAX_SEATS) if q != seat]
    hidden = [t for q in others for t in range(N_TILES) if st.hands[q, t]]
    sizes = [int(st.hands[q].sum()) for q in others]
    widow_hidden = phase == PH.BID or (phase == PH.DECLARE and seat != b)
    discard_hidden = phase == PH.PLAY and seat != b
    if widow_hidden:
        hidden.append(int(g[G.WIDOW]))
    if discard_hidden:
        hidden.append(int(g[G.DISCARD]))
    voids = voids_shown(st, int(g[G.TRUMP])) if phase == PH.PLAY else [0] * MAX_SEATS
    for _ in range(10000):
        perm = [int(t) for t in rng.permutation(hidden)]
        parts = [perm[: sizes[0]], perm[sizes[0] : sizes[0] + sizes[1]]]
        if all(not bits(p) & voids[q] for p, q in zip(parts, others, strict=True)):
            break
    else:
        raise AssertionError("no consistent deal found")
    for p, q in zip(parts, others, strict=True):
        out.hands[q, :] = 0
        for t in p:
            out.hands[q, t] = 1
        out.s[q, S.BITS] = bits(p)
    rest = perm[sizes[0] + sizes[1] :]
    if widow_hidden:
        out.g[G.WIDOW] = rest[0]
    if discard_hidden:
        out.g[G.DISCARD] = rest[0]
        out.g[G.WIDOW] = rest[0]  # (a consistent story: the bidder laid the widow away)
    same = all((out.hands[q] == st.hands[q]).all() for q in others)
    return None if same else out


def pimc_answer(g: Game, st, seat: int):
    """Step ``g`` from state ``st`` (one transition) and return what ``seat`` decided and its
    random stream after."""
    copy_state(st, g.st)
    before = int(g.st.g[G.NPLAYED])
    phase = g.phase
    g.step()
    r = (int(g.st.rng[2 + 2 * seat]), int(g.st.rng[3 + 2 * seat]))
    if phase == PH.BID:
        return int(g.st.s[seat, S.SAID]), r
    if phase == PH.DECLARE:
        return (int(g.st.g[G.DISCARD]), int(g.st.g[G.TRUMP])), r
    for k in range(before, int(g.st.g[G.NPLAYED])):
        if g.st.played[PL.SEAT + k] == seat:
            return int(g.st.played[PL.TILE + k]), r
    raise AssertionError("the seat did not play")


@pytest.mark.parametrize("preset", ["gamerules", "pagat"])
def test_b5_pimc_answers_the_same_whatever_the_hidden_tiles(preset):
    """At the seat's first call of an auction it opens, at its declaration (widow and discard,
    or trump first then discard under pagat) and at plays in every position of a trick, the
    game and a copy with the hidden tiles dealt again give the same answer and leave its
    random stream in the same state."""
    rules = SPEC.make(preset)
    rng = np.random.default_rng(17)
    seen = {"bid": 0, "declare": 0, "play": 0}
    for i in range(12):
        for seat in range(MAX_SEATS):
            seats = ["count"] * MAX_SEATS
            seats[seat] = "pimc:samples=4"
            g = Game(rules, seats, seed=5, index=i, trace=False)
            other = Game(rules, seats, seed=5, index=i, trace=False)
            g.step()  # deal
            if int(g.st.g[G.OPENER]) == seat:  # its call is the auction's first
                alt = redeal_hidden(g.st, seat, rng)
                if alt is not None:
                    base = new_state()
                    copy_state(g.st, base)
                    assert pimc_answer(other, alt, seat) == pimc_answer(g, base, seat)
                    seen["bid"] += 1
                    copy_state(base, g.st)
            g.step()  # the auction
            if g.phase != PH.DECLARE:
                continue
            if int(g.st.g[G.BIDDER]) == seat:
                alt = redeal_hidden(g.st, seat, rng)
                if alt is not None:
                    base = new_state()
                    copy_state(g.st, base)
                    assert pimc_answer(other, alt, seat) == pimc_answer(g, base, seat)
                    seen["declare"] += 1
                    copy_state(base, g.st)
            g.step()  # the declaration
            for trick in range(6):
                # tiles down before the seat's turn, as the engine would have played them
                k = (seat - int(g.st.g[G.LEADER])) % MAX_SEATS
                base = new_state()
                copy_state(g.st, base)
                play_until(g, trick, k, rng)
                alt = redeal_hidden(g.st, seat, rng)
                npl = int(g.st.g[G.NPLAYED])
                lead = int(g.st.played[PL.TILE + npl - k]) if k else -1
                asked = len(legal_list(g.hand_of(seat), lead, int(g.st.g[G.TRUMP]))) > 1
                if alt is not None and asked:
                    mid = new_state()
                    copy_state(g.st, mid)
                    assert pimc_answer(other, alt, seat) == pimc_answer(g, mid, seat)
                    seen["play"] += 1
                copy_state(base, g.st)
                g.step()  # the trick, by the game's own policies
    assert seen["bid"] >= 5 and seen["declare"] >= 5 and seen["play"] >= 50, seen


def test_pimc_budget_stops_drawing_deals():
    """A node budget of 1 is spent by the first deal's solves: every decision then rests on one
    deal, so the games are those of ``samples=1`` (the same draws from the seat's stream)."""
    from sim.moon.batch import play_batch

    rules = SPEC.make(max_hands_per_game=30)
    a = play_batch(rules, ["pimc:budget=1", "count", "greedy"], seed=21, count=4, hands_cap=30)
    b = play_batch(rules, ["pimc:samples=1", "count", "greedy"], seed=21, count=4, hands_cap=30)
    c = play_batch(rules, ["pimc:samples=3", "count", "greedy"], seed=21, count=4, hands_cap=30)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_thin_drops_only_the_options_clearly_behind():
    """``batch`` looks (:func:`sim.moon.pimc.thin`): an option behind the best in every deal
    so far goes; one equal to it in every deal stays (the tie-break decides at the end), and so
    does one whose mean is behind by less than ``cut`` standard errors of the paired
    differences; a larger ``cut`` keeps more, ``cut=0`` drops any mean behind."""
    from sim.moon.pimc import thin

    lead = np.array([1.0, -4.0, 5.0, 1.0, -4.0, 5.0, 1.0, 5.0])
    dv = np.stack([lead, lead - 1.0, lead, lead + np.array([3, -3, 3, -3, 3, -3, 3, -4.0])], 1)
    alive = np.ones(4, dtype=np.bool_)
    assert thin(dv, 8, alive, 4, 0, 2.0) == 3
    assert alive.tolist() == [True, False, True, True]
    alive[:] = True
    assert thin(dv, 8, alive, 4, 0, 0.0) == 2
    assert alive.tolist() == [True, False, True, False]
    alive[:] = True
    alive[2] = False  # an option already dropped stays dropped
    assert thin(dv, 8, alive, 4, 0, 2.0) == 2 and not alive[2]


def test_pimc_batch_off_or_not_reached_plays_as_before():
    """``batch=0`` (the default) and a ``batch`` of at least ``samples`` never look: the games
    are those of ``pimc`` without it, draw for draw; with looks it still plays whole games."""
    from sim.moon.batch import play_batch

    rules = SPEC.make(max_hands_per_game=30)
    base = play_batch(rules, ["pimc:samples=4", "count", "greedy"], seed=23, count=4, hands_cap=30)
    for seat in ("pimc:samples=4:batch=0", "pimc:samples=4:batch=4", "pimc:samples=4:batch=9"):
        got = play_batch(rules, [seat, "count", "greedy"], seed=23, count=4, hands_cap=30)
        assert all(np.array_equal(x, y) for x, y in zip(base, got, strict=True)), seat
    looked = play_batch(rules, ["pimc:samples=8:batch=2:cut=0", "count", "greedy"], seed=23,
                        count=4, hands_cap=30)  # fmt: skip
    assert len(looked) == len(base)

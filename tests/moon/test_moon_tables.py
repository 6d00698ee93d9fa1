"""The speed tables of Moon's kernel and ``count`` against the functions they replace: the
trick tables (:data:`sim.moon.tricks.KEY`, :data:`~sim.moon.tricks.LED_OF`) against
:func:`~sim.moon.tricks.play_key` / :func:`~sim.moon.tricks.led_suit` for every contract,
led suit and tile, and ``count``'s estimate from bits (:func:`sim.moon.policies.estimate`)
against the tile-by-tile walk it replaced, to the bit, on random hands and gone sets."""

from __future__ import annotations

import numpy as np

from sim.moon.layout import LED_TRUMP, N_CONTRACTS
from sim.moon.policies import IS_TRUMP, estimate, estimate_walk, is_walker
from sim.moon.tiles import N_TILES
from sim.moon.tricks import KEY, LED_OF, led_suit, play_key


def test_trick_tables_are_the_rules():
    for c in range(N_CONTRACTS):
        for t in range(N_TILES):
            assert LED_OF[c, t] == led_suit(t, c)
            for led in range(LED_TRUMP + 1):
                assert KEY[c, led, t] == play_key(t, led, c), (c, led, t)


def test_estimate_from_bits_is_the_walk():
    rng = np.random.default_rng(7)
    for _ in range(20_000):
        perm = rng.permutation(N_TILES)
        a, g = int(rng.integers(0, 9)), int(rng.integers(0, 15))
        own = sum(1 << int(t) for t in perm[:a])
        gone = sum(1 << int(t) for t in perm[a : a + g])
        if rng.random() < 0.1:  # held tiles counted as gone are skipped, as before
            gone |= own & int(rng.integers(0, 1 << N_TILES))
        c = int(rng.integers(0, N_CONTRACTS))
        assert estimate(own, gone, c) == estimate_walk(own, gone, c), (own, gone, c)


def test_walker_from_bits():
    from sim.moon.policies import SUIT_LEN, SUIT_ORDER
    from sim.moon.tiles import HI

    rng = np.random.default_rng(8)
    for _ in range(3000):
        perm = rng.permutation(N_TILES)
        own = sum(1 << int(t) for t in perm[:7])
        gone = sum(1 << int(t) for t in perm[7 : 7 + int(rng.integers(0, 15))])
        c = int(rng.integers(0, N_CONTRACTS))
        for tile in (int(t) for t in perm[:7]):
            want = False
            if not IS_TRUMP[c, tile]:
                s = int(HI[tile])
                for i in range(SUIT_LEN[c, s]):
                    t = int(SUIT_ORDER[c, s, i])
                    if t == tile:
                        want = True
                        break
                    if not ((own | gone) >> t) & 1:
                        break
            assert bool(is_walker(own, gone, tile, c)) == want


def test_own_policies_play_the_same_games_on_views_as_on_copies():
    """The gate hands the game's own policies the game's arrays (``bufs.trust``) instead of
    copies: every record is the same as with copies, under rules that exercise every decision
    kind (trump before the widow: the separate trump and discard decisions)."""
    from sim.moon.batch import resolve_rules, seat_tables
    from sim.moon.kernel import run_games
    from sim.moon.schema import GAMES, HANDS, SEATS

    for rules, seats, count in (
        ("gamerules", ["count", "greedy", "random"], 300),
        ("gamerules(trump_before_widow=true)", ["count", "count", "greedy"], 300),
        ("pagat", ["random", "count", "greedy"], 100),
        ("gamerules", ["pimc:samples=2", "count", "greedy"], 4),
    ):
        R = resolve_rules(rules).to_array()
        fns, params = seat_tables(seats)
        got = []
        for trust in (np.zeros(3, np.int8), np.ones(3, np.int8)):
            g, s = GAMES.empty_array(count, 3), SEATS.empty_array(count, 3)
            h = HANDS.empty_array(count, 3, 40)
            run_games(R, np.uint64(5), 11, count, fns, params, g, s, h, trust)
            got.append((g, s, h))
        for a, b in zip(*got, strict=True):
            assert np.array_equal(a, b), (rules, seats)

"""[B6]-[B8] brute force: the kernel's trick maths against the auditor's independent reading,
on every ordered trick of three distinct tiles (22 x 21 x 20 = 9,240) under each of the nine
contracts (trump 0-6, doubles, no trump)."""

from __future__ import annotations

import itertools

import numpy as np

from sim.moon import auditor as aud
from sim.moon.layout import DOUBLES, LED_TRUMP, N_CONTRACTS, NO_TRUMP, TRUMP_NAMES
from sim.moon.tiles import HI, LO, N_TILES
from sim.moon.tricks import (
    FOLLOW,
    follows,
    is_trump,
    led_suit,
    legal_mask,
    legal_plays,
    trick_winner,
)

PAIR = [(int(HI[t]), int(LO[t])) for t in range(N_TILES)]


def test_b6_b7_suit_membership_matches_the_auditor():
    for c in range(N_CONTRACTS):
        name = TRUMP_NAMES[c]
        trumps = set(aud.trump_order(name))
        for t in range(N_TILES):
            assert bool(is_trump(t, c)) == (PAIR[t] in trumps)
            called = aud.called_suit(PAIR[t], name)
            led = int(led_suit(t, c))
            assert (led == LED_TRUMP) == (called == "trump")
            if called != "trump":
                assert led == called
            for u in range(N_TILES):
                assert bool(follows(u, led, c)) == aud.can_follow(PAIR[u], called, name)
        for led in range(LED_TRUMP + 1):
            for u in range(N_TILES):
                assert bool(FOLLOW[c, led] >> u & 1) == bool(follows(u, led, c))


def test_b8_every_ordered_trick_under_every_contract():
    n = 0
    for c in range(N_CONTRACTS):
        name = TRUMP_NAMES[c]
        for a, b, d in itertools.permutations(range(N_TILES), 3):
            want = aud.winner_of([PAIR[a], PAIR[b], PAIR[d]], name)
            assert trick_winner(a, b, d, c) == want, (PAIR[a], PAIR[b], PAIR[d], name)
            n += 1
    assert n == 9 * 9240


def test_b7_legal_plays_match_the_auditor_on_random_hands():
    rng = np.random.default_rng(7)
    out = np.zeros(N_TILES, dtype=np.int64)
    for _ in range(3000):
        c = int(rng.integers(N_CONTRACTS))
        name = TRUMP_NAMES[c]
        tiles = rng.permutation(N_TILES)
        k = int(rng.integers(1, 9))
        hand = tiles[:k]
        lead = int(tiles[k]) if rng.random() < 0.8 else -1
        mask = np.zeros(N_TILES, dtype=np.int8)
        mask[hand] = 1
        got = set(out[: legal_plays(mask, lead, c, out)].tolist())
        bits = int(legal_mask(int(sum(1 << int(t) for t in hand)), lead, c))
        assert {t for t in range(N_TILES) if bits >> t & 1} == got  # the engine's bit version
        if lead < 0:
            want = set(hand.tolist())
        else:
            called = aud.called_suit(PAIR[lead], name)
            want = {int(t) for t in hand if aud.can_follow(PAIR[t], called, name)}
            want = want or set(hand.tolist())
        assert got == want
    assert DOUBLES == 7 and NO_TRUMP == 8

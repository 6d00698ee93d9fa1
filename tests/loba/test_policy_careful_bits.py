"""careful's discard from masks (``seen_masks``, ``live_help_lanes``) gives the same numbers as
its plain forms (``known_copies``, ``live_help``, ``extends_table``) on random hands, piles
and tables, under every deck count and both pierna rules: the bit form is what the games are
played with, the plain form what it is checked against."""

from __future__ import annotations

import numpy as np
import pytest

from sim.loba.cards import rank_of, suit_of
from sim.loba.greedy import lanes_of
from sim.loba.layout import HAND_W, HT, JOKER, MAX_MELDS, MELD, N_IDS, PUB, ST, A, H, M
from sim.loba.policies import careful as C
from sim.loba.rules import RULE
from sim.setup import make_rules


def random_view(rng, decks, pierna):
    R = make_rules(decks=decks, pierna_suits=pierna).to_array()
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.RULES : PUB.RULES + len(R)] = R
    hand = np.zeros(HAND_W, dtype=np.int8)
    for c in rng.integers(0, N_IDS, rng.integers(1, 16)):
        hand[c] = min(hand[c] + 1, decks)
    pile = rng.integers(-1, N_IDS, rng.integers(0, 30)).astype(np.int16)
    nm = int(rng.integers(0, 12))
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    for i in range(nm):
        if rng.random() < 0.5:
            melds[i, M.KIND] = MELD.PIERNA
            melds[i, M.KEY] = rng.integers(1, 14)
            melds[i, M.C0 : M.C0 + 4] = rng.integers(0, decks + 1, 4)
        else:
            melds[i, M.KIND] = MELD.ESCALERA
            melds[i, M.KEY] = rng.integers(0, 4)
            lo = int(rng.integers(1, 13))
            hi = int(rng.integers(lo + 2, 15)) if rng.random() < 0.8 else 14
            lo = 1 if hi - lo > 13 else lo
            melds[i, M.LO], melds[i, M.HI] = lo, hi
            melds[i, M.JMASK] = int(rng.integers(0, 1 << 15)) & int(rng.integers(0, 1 << 15))
    for a in (hand, pile, melds, pub):
        a.flags.writeable = False
    return hand[:N_IDS], melds[:nm], pile, pub


@pytest.mark.parametrize("decks", [1, 2, 3])
@pytest.mark.parametrize("pierna", ["exactly_three", "not_all_four"])
def test_the_bit_form_gives_the_plain_forms_numbers(decks, pierna):
    rng = np.random.default_rng(decks * 10 + len(pierna))
    for _ in range(300):
        hand, melds, pile, pub = random_view(rng, decks, pierna)
        v1, v2, v3 = C.known_copies(hand, melds, pile)
        seen, ext = C.seen_masks(hand, melds, pile, pub)
        assert seen == (v1 if decks <= 1 else v2 if decks == 2 else v3) & ((1 << JOKER) - 1)
        held = lanes_of(C.hand_copies(hand)[0])
        unseen = lanes_of(~seen & ((1 << JOKER) - 1))
        for c in range(JOKER):
            assert bool((ext >> c) & 1) == C.extends_table(melds, pub, c), (c, melds)
            if hand[c] > 0:
                want = C.live_help(c, hand, pub, v1, v2, v3)
                assert C.live_help_lanes(held, unseen, rank_of(c), suit_of(c)) == want, c


def plain_pick(hand, melds, pile, pub, params, acts, n, ranks, weight):
    """careful's discard from its plain forms, in floats: the key of every option (the
    reference for ``careful_pick``, which reads the masks and skips a card whose bound cannot
    beat the best so far)."""
    v1, v2, v3 = C.known_copies(hand, melds, pile)
    feeds = C.may_take_to_lay_off(melds, pub, C.next_active_seat(pub))
    ace = pub[PUB.RULES + RULE.ACE_VALUE]
    best, key = 0, -(1 << 40)
    for i in range(n):
        c = int(acts[i, 0])
        if c == JOKER:
            k = -1000 * 64
        else:
            r = rank_of(c)
            v = ace if r == 1 else min(r, 10)
            cost = weight * v - 4 * C.live_help(c, hand, pub, v1, v2, v3)
            cost = C.careful_terms(cost, c, melds, pub, feeds, ranks, *params[:3])
            k = int(cost * 64) + c % 13
        if k > key:
            best, key = i, k
    return best


@pytest.mark.parametrize("decks", [1, 2, 3])
@pytest.mark.parametrize("pierna", ["exactly_three", "not_all_four"])
def test_careful_pick_is_the_plain_key(decks, pierna):
    """careful_pick (integer key in 64ths, cards that cannot win skipped; or floats) picks the
    option of the plain float key, under careful's and smart's weights and others (a negative
    keep: nothing skipped; weights not in 64ths: the float path)."""
    rng = np.random.default_rng(decks * 7 + len(pierna))
    weights = [
        ((6.0, 2.0, 6.0), 1.0),
        ((6.0, 2.0, 6.0), 3.0),
        ((1.5, -2.0, 0.25), 1.0),
        ((6.0, 2.0, -9.0), 1.0),
        ((0.3, 2.0, 6.0), 1.1),
        ((0.0, 0.0, 0.0), 0.5),
    ]
    skipped = 0
    for t in range(300):
        hand, melds, pile, pub = random_view(rng, decks, pierna)
        pub = pub.copy()
        pub[PUB.NP] = 4
        pub[PUB.SEAT] = 0
        pub[PUB.STATUS : PUB.STATUS + 4] = ST.ACTIVE
        held = [c for c in range(JOKER) if hand[c] > 0]
        acts = np.zeros((len(held) + 1, A.SIZE), dtype=np.int16)
        acts[: len(held), 0] = held
        n = len(held)
        if hand[JOKER] > 0 or rng.random() < 0.2:
            acts[n, 0] = JOKER
            n += 1
        if n < 2:
            continue
        hist = np.zeros((int(rng.integers(0, 6)), H.SIZE), dtype=np.int16)
        hist[:, H.TYPE] = HT.DISCARD
        hist[:, H.SEAT] = 1  # the next player's discards: their ranks are safe
        hist[:, H.CARD] = rng.integers(0, JOKER, len(hist))
        ranks = 0
        for c in hist[:, H.CARD]:
            ranks |= 1 << rank_of(int(c))
        for params, weight in weights:
            p = np.array([*params, 3.0, 6.0, 3.0, 2.0, 2.0])
            mem = np.zeros(8)
            k = C.careful_pick(hand, melds, pile, pub, p, acts, n, hist, mem, weight)
            assert k == plain_pick(hand, melds, pile, pub, p, acts, n, ranks, weight), (t, params)
        skipped += n > 3
    assert skipped > 100

"""The engine's own greedy plays without the option list (``engine.greedy_play``): its
pieces against the lists they stand for. ``largest_meld_cover`` finds what ``best_play``
picks from ``gen_new_melds_with``'s list for the same ``only`` (every meld, one card's rank
and suit, the joker's escaleras) and covers at least the cards that list covers;
``best_layoff_wanted`` finds ``best_layoff``'s lay-off looking only at the melds the table's
masks say take a card of the hand; ``may_go_out_masks`` holds whenever ``may_go_out`` holds
on the list; ``discard_natural`` is ``best_discard`` of the naturals held; with a taken
discard owed ([A12]), ``best_placeable`` finds ``best_play`` of what ``keep_placeable``
keeps, and whether it keeps two plays or more; ``held_after`` a play is ``held_bits`` of the
hand the play leaves. Rules as in test_largest_meld.py."""

from __future__ import annotations

import numpy as np
import pytest
from loba_random import RULE_VARIANTS, random_hand, random_table

from sim.loba.greedy import (
    best_discard,
    best_layoff_wanted,
    best_play,
    cards_covered,
    discard_natural,
    largest_meld_cover,
    may_go_out,
    may_go_out_masks,
)
from sim.loba.layout import JOKER, MAX_MELDS, MELD, N_IDS, PLAY, PUB, A, G, M, S
from sim.loba.moves import (
    apply_play,
    best_layoff,
    gen_layoffs,
    gen_new_melds_with,
    held_after,
    held_bits,
    options_bound,
)
from sim.loba.options import best_placeable, gen_plays_with, keep_placeable, meld_wants
from sim.loba.rules import RULE
from sim.loba.state import new_bufs, new_state
from sim.setup import make_rules

RULES = RULE_VARIANTS


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_largest_meld_cover_is_best_play_of_the_list(preset, over):
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(31 * over + len(preset))
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    row = np.zeros(A.SIZE, dtype=np.int16)
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.RULES : PUB.RULES + RULE.SIZE] = R
    none = np.zeros((0, M.SIZE), dtype=np.int16)
    found = tested = 0
    for t in range(1200):
        hand = random_hand(rng, rules.decks, int(rng.integers(1, 5)), 22)
        hn = int(hand[:N_IDS].sum())
        held = held_bits(hand)[0]
        x = [i for i in range(N_IDS) if hand[i] > 0]
        for only in (-1, JOKER, x[int(rng.integers(0, len(x)))]):
            n = gen_new_melds_with(hand, hn, R, acts, 0, only)
            row[:] = -7
            ok, cover = largest_meld_cover(hand, hn, R, only, held, row)
            assert ok == (n > 0), (t, only)
            exact = cards_covered(acts, n)
            assert exact & ~cover == 0, (t, only)
            if n:
                found += 1
                assert list(row) == list(acts[best_play(acts, n)]), (t, only)
                melds, nm = random_table(rng, rules.decks) if t % 2 else (none, 0)
                for melded in (0, 1):  # the go-out test on the masks holds when on the list
                    pub[PUB.MELDED] = melded
                    pub[PUB.NMELDS] = nm
                    if may_go_out(hand[:N_IDS], melds[:nm], pub, acts[:n], n):
                        must = R[RULE.LAYOFF_REQUIRES_OWN_MELD] != 0 and melded == 0
                        assert may_go_out_masks(hand, held, cover, melds, nm, must), t
                        tested += 1
    assert found > 300 and tested > 20


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", [0, 2, 5])
def test_best_layoff_wanted_is_best_layoff(preset, over):
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(11 * over + len(preset))
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    row = np.zeros(A.SIZE, dtype=np.int16)
    row2 = np.zeros(A.SIZE, dtype=np.int16)
    wants = np.zeros(MAX_MELDS, dtype=np.int64)
    found = 0
    for t in range(1500):
        hand = random_hand(rng, rules.decks, 4, 8)
        melds, nm = random_table(rng, rules.decks)
        for i in range(nm):
            wants[i] = meld_wants(melds[i], R)[0]
        hn = int(hand[:N_IDS].sum())
        held = held_bits(hand)[0]
        n = gen_layoffs(hand, hn, melds, nm, R, acts, 0)
        row[:] = -7
        row2[:] = -7
        ok = best_layoff_wanted(hand, hn, melds, nm, R, row, wants[:nm], held)
        assert ok == best_layoff(hand, hn, melds, nm, R, row2) == (n > 0), t
        assert list(row) == list(row2), t
        found += n > 0
    assert found > 300


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_a12_best_placeable_is_best_play_of_what_the_rule_keeps(preset, over):
    """The engine's greedy owing a taken discard: the largest play the rule keeps, tested in
    greedy's order, is ``best_play`` of ``keep_placeable``'s list (the same row), and
    ``more`` says whether that list holds two plays or more (a decision, then)."""
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(41 * over + len(preset))
    st = new_state()
    bufs = new_bufs(R)
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    kept = np.zeros_like(acts)
    cases = decisions = refused = 0
    for t in range(500):
        hand = random_hand(rng, rules.decks, int(rng.integers(1, 5)), 16)
        c = int(rng.choice(np.flatnonzero(hand[:N_IDS])))  # the taken card
        st.hands[0] = hand
        st.melds[:], nm = random_table(rng, rules.decks, owners=True)
        st.g[G.NMELDS] = nm
        st.g[G.LAY_OK] = 0
        st.g[G.TAKEN] = c
        st.s[0, S.HAND_N] = int(hand[:N_IDS].sum())
        st.s[0, S.MELDED] = int(rng.random() < 0.5)
        n = gen_plays_with(st, R, 0, acts, -1, held_bits(hand)[0])[0]
        if not 2 <= n <= 64:
            continue
        kept[:n] = acts[:n]
        m = keep_placeable(st, R, 0, c, kept, n, bufs)
        k, more = best_placeable(st, R, 0, c, acts, n, bufs)
        assert np.array_equal(st.hands[0], hand), t  # (the hand as it was)
        assert (k >= 0) == (m > 0) and more == (m >= 2), (t, k, m, more)
        if m:
            assert list(acts[k]) == list(kept[best_play(kept, m)]), t
        cases += 1
        decisions += more
        refused += m < n
    assert cases > 50 and decisions > 10 and refused > 10, (cases, decisions, refused)


@pytest.mark.parametrize("ace", [1, 10, 11, 15, 20])
def test_discard_natural_is_best_discard_of_the_naturals(ace):
    """The engine's greedy discards without a list: ``best_discard``'s card among the naturals
    held (and a joker, whose key is below them all), for every ace value's place among the
    ranks' bounds; hands with pairs of a rank, runs, aces low and high, and lone cards."""
    rng = np.random.default_rng(ace)
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.RULES + RULE.ACE_VALUE] = ace
    acts = np.zeros((N_IDS, A.SIZE), dtype=np.int16)
    picked = set()
    for t in range(3000):
        hand = random_hand(rng, 2, int(rng.integers(1, 5)), 14, natural=0.95)
        held = held_bits(hand)[0] & ((1 << JOKER) - 1)
        if held & (held - 1) == 0:
            continue
        cards = [c for c in range(JOKER) if (held >> c) & 1] + ([JOKER] if hand[JOKER] else [])
        acts[: len(cards), 0] = cards
        want = cards[best_discard(hand[:N_IDS], pub, acts, len(cards))]
        assert discard_natural(held, ace) == want, (t, cards)
        picked.add(want % 13)
    assert len(picked) == 13, sorted(picked)  # every rank was the card some time


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_held_after_a_play_is_held_bits_of_the_hand_left(preset, over):
    """The turn keeps the identities held across its plays (``held_after``: only the cards a
    play put down are read again): for every play of generated hands and tables (new melds
    with jokers and duplicates, lay-offs), the same bits as ``held_bits`` of the new hand."""
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(53 * over + len(preset))
    st = new_state()
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    kinds = set()
    for t in range(300):
        hand = random_hand(rng, rules.decks, int(rng.integers(1, 5)), 18, natural=0.85)
        st.hands[0] = hand
        st.melds[:], nm = random_table(rng, rules.decks, owners=True)
        st.g[G.NMELDS] = nm
        st.g[G.LAY_OK] = 0
        st.s[0, S.HAND_N] = int(hand[:N_IDS].sum())
        st.s[0, S.MELDED] = 1
        held = held_bits(hand)[0]
        n = gen_plays_with(st, R, 0, acts, -1, held)[0]
        for i in range(n):
            h = hand.copy()
            melds = st.melds.copy()
            apply_play(h, melds, nm, acts[i], 0)
            assert held_after(h, held, acts[i]) == held_bits(h)[0], (t, list(acts[i]))
            kinds.add(int(acts[i, A.KIND]) if acts[i, A.TYPE] == PLAY.MELD else -1)
    assert kinds == {MELD.PIERNA, MELD.ESCALERA, -1}, kinds  # new melds of each kind, lay-offs

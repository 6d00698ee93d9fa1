"""The engine's own greedy plays without the option list (``engine.greedy_play``): its
pieces against the lists they stand for. ``largest_meld_cover`` finds what
``best_play`` picks from ``gen_new_melds_with``'s list for the same ``only`` (every meld, one
card's rank and suit, the joker's escaleras) and covers at least the cards that list
covers; ``best_layoff_wanted`` finds ``best_layoff``'s lay-off looking only at the melds the
table's masks say take a card of the hand; ``may_go_out_masks`` holds whenever
``may_go_out`` holds on the list. Rules as in test_largest_meld.py."""

from __future__ import annotations

import numpy as np
import pytest
from loba_random import RULE_VARIANTS, random_hand, random_table

from sim.loba.greedy import (
    best_layoff_wanted,
    best_play,
    cards_covered,
    largest_meld_cover,
    may_go_out,
    may_go_out_masks,
)
from sim.loba.layout import JOKER, MAX_MELDS, N_IDS, PUB, A, M
from sim.loba.moves import best_layoff, gen_layoffs, gen_new_melds_with, held_bits, options_bound
from sim.loba.options import meld_wants
from sim.loba.rules import RULE
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

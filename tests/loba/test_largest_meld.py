"""``largest_new_meld`` and ``best_layoff`` (the play-outs' next play, found without listing
every option) pick the row greedy's order picks from the full list (``best_play`` over
``gen_new_melds``, ``gen_layoffs``), and ``meld_cover`` and ``layoff_cover`` (smart's hold
test) give the cards the full lists cover (``cards_covered``), on random hands and tables,
under rules that move every branch of the generators: decks, jokers per escalera, the
shortest escalera, both pierna rules, go-out-needs-discard."""

from __future__ import annotations

import numpy as np
import pytest

from sim.loba.greedy import best_play, cards_covered
from sim.loba.layout import HAND_W, JOKER, MAX_MELDS, MELD, N_IDS, A, M
from sim.loba.moves import (
    best_layoff,
    gen_layoffs,
    gen_new_melds,
    largest_new_meld,
    layoff_cover,
    meld_cover,
    options_bound,
)
from sim.setup import make_rules

RULES = [
    {},
    {"decks": 1, "jokers": 2, "pierna_suits": "not_all_four"},
    {"decks": 3, "jokers": 8, "jokers_per_escalera": 4, "pierna_suits": "not_all_four"},
    {"decks": 2, "jokers_per_escalera": 2, "escalera_min": 4, "go_out_needs_discard": True},
    {"decks": 3, "jokers_per_escalera": 0, "escalera_min": 5},
    {"decks": 2, "jokers_per_escalera": 3, "escalera_min": 3, "pierna_suits": "not_all_four"},
]


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_largest_new_meld_is_best_play_of_the_full_list(preset, over):
    R = make_rules(preset, **RULES[over]).to_array()
    decks = make_rules(preset, **RULES[over]).decks
    rng = np.random.default_rng(100 * over + len(preset))
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    row = np.zeros(A.SIZE, dtype=np.int16)
    found = 0
    for t in range(1500):
        hand = np.zeros(HAND_W, dtype=np.int8)
        suits = rng.integers(1, 5)  # few suits: long escaleras; many cards: big piernas
        for _ in range(rng.integers(1, 22)):
            c = int(rng.integers(0, 13 * suits)) if rng.random() < 0.9 else JOKER
            hand[c] = min(hand[c] + 1, decks if c != JOKER else 8)
        hn = int(hand[:N_IDS].sum())
        n = gen_new_melds(hand, hn, R, acts, 0)
        row[:] = -7
        ok = largest_new_meld(hand, hn, R, row)
        assert ok == (n > 0), t
        assert meld_cover(hand, hn, R) == cards_covered(acts, n), t
        assert meld_cover(hand[:N_IDS], hn, R) == cards_covered(acts, n), t
        if n:
            found += 1
            k = best_play(acts, n)
            assert list(row) == list(acts[k]), (t, hand[:N_IDS].nonzero())
    assert found > 300


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", [0, 2, 5])
def test_best_layoff_is_best_play_of_the_full_list(preset, over):
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(7 * over + len(preset))
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    row = np.zeros(A.SIZE, dtype=np.int16)
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    found = jokers = 0
    for t in range(1500):
        hand = np.zeros(HAND_W, dtype=np.int8)
        for _ in range(rng.integers(1, 8)):
            c = int(rng.integers(0, 52)) if rng.random() < 0.85 else JOKER
            hand[c] = min(hand[c] + 1, rules.decks if c != JOKER else 8)
        melds[:] = 0
        nm = int(rng.integers(0, 10))
        for i in range(nm):
            if rng.random() < 0.4:
                melds[i, M.KIND] = MELD.PIERNA
                melds[i, M.KEY] = rng.integers(1, 14)
                melds[i, M.C0 : M.C0 + 4] = rng.integers(0, rules.decks + 1, 4)
            else:
                melds[i, M.KIND] = MELD.ESCALERA
                melds[i, M.KEY] = rng.integers(0, 4)
                lo = int(rng.integers(1, 13))
                hi = min(14, lo + int(rng.integers(2, 13)))
                melds[i, M.LO], melds[i, M.HI] = lo, hi
                w = (2 << hi) - (1 << lo)
                jm = int(rng.integers(0, 1 << 15)) & int(rng.integers(0, 1 << 15))
                melds[i, M.JMASK] = w & jm
        hn = int(hand[:N_IDS].sum())
        n = gen_layoffs(hand, hn, melds, nm, R, acts, 0)
        row[:] = -7
        assert best_layoff(hand, hn, melds, nm, R, row) == (n > 0), t
        assert layoff_cover(hand, hn, melds, nm, R) == cards_covered(acts, n), t
        if n:
            found += 1
            k = best_play(acts, n)
            jokers += int(acts[k, A.KEY] == JOKER)
            assert list(row) == list(acts[k]), t
    assert found > 300 and jokers > 10

"""``largest_new_meld`` and ``best_layoff`` (the play-outs' next play, found without listing
every option) pick the row greedy's order picks from the full list (``best_play`` over
``gen_new_melds``, ``gen_layoffs``), and ``meld_cover`` and ``layoff_cover`` (smart's hold
test) give the cards the full lists cover (``cards_covered``), on random hands and tables,
under rules that move every branch of the generators: decks, jokers per escalera, the
shortest escalera, both pierna rules, go-out-needs-discard."""

from __future__ import annotations

import numpy as np
import pytest
from loba_random import RULE_VARIANTS, random_hand, random_table

from sim.loba.greedy import best_play, cards_covered
from sim.loba.layout import HAND_W, JOKER, MAX_MELDS, N_IDS, A, M
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

RULES = RULE_VARIANTS


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
        hand = random_hand(rng, rules.decks, 4, 8, natural=0.85)
        nm = random_table(rng, rules.decks, melds)[1]
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

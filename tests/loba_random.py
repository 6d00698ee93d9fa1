"""Random Loba hands and tables for the tests that check a fast meld or play search against
the option lists it stands for (test_largest_meld.py, test_greedy_play.py, test_playout.py):
duplicate cards up to the decks, jokers, piernas with any suits, escaleras with jokers in
them, under rule variants that move every meld knob."""

from __future__ import annotations

import numpy as np

from sim.loba.layout import HAND_W, JOKER, MAX_MELDS, MELD, M

RULE_VARIANTS = [  # over a preset: decks, jokers, escalera sizes, pierna suits
    {},
    {"decks": 1, "jokers": 2, "pierna_suits": "not_all_four"},
    {"decks": 3, "jokers": 8, "jokers_per_escalera": 4, "pierna_suits": "not_all_four"},
    {"decks": 2, "jokers_per_escalera": 2, "escalera_min": 4, "go_out_needs_discard": True},
    {"decks": 3, "jokers_per_escalera": 0, "escalera_min": 5},
    {"decks": 2, "jokers_per_escalera": 3, "escalera_min": 3, "pierna_suits": "not_all_four"},
]


def random_hand(rng, decks: int, suits: int, most: int, natural: float = 0.9) -> np.ndarray:
    """1 .. most-1 cards of the first ``suits`` suits (a card a natural with probability
    ``natural``, else a joker), each held at most ``decks`` times (jokers 8)."""
    hand = np.zeros(HAND_W, dtype=np.int8)
    for _ in range(rng.integers(1, most)):
        c = int(rng.integers(0, 13 * suits)) if rng.random() < natural else JOKER
        hand[c] = min(hand[c] + 1, decks if c != JOKER else 8)
    return hand


def random_table(
    rng, decks: int, melds: np.ndarray | None = None, owners: bool = False
) -> tuple[np.ndarray, int]:
    """(melds, count): up to 9 melds written into ``melds`` (cleared first; a new array when
    None): piernas of random suits, escaleras of 3-14 ranks with random jokers in them, and
    (``owners``) each meld's owner, one of four seats."""
    if melds is None:
        melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    melds[:] = 0
    nm = int(rng.integers(0, 10))
    for i in range(nm):
        if rng.random() < 0.4:
            melds[i, M.KIND] = MELD.PIERNA
            melds[i, M.KEY] = rng.integers(1, 14)
            melds[i, M.C0 : M.C0 + 4] = rng.integers(0, decks + 1, 4)
        else:
            melds[i, M.KIND] = MELD.ESCALERA
            melds[i, M.KEY] = rng.integers(0, 4)
            lo = int(rng.integers(1, 13))
            hi = min(14, lo + int(rng.integers(2, 13)))
            melds[i, M.LO], melds[i, M.HI] = lo, hi
            jm = int(rng.integers(0, 1 << 15)) & int(rng.integers(0, 1 << 15))
            melds[i, M.JMASK] = ((2 << hi) - (1 << lo)) & jm
        if owners:
            melds[i, M.OWNER] = rng.integers(0, 4)
    return melds, nm

"""[A9] The engine's shortcut for a hand that held no meld: the option list stays complete.

A seat whose hand held no new meld at the end of its last turn (``S.MELD_FREE``) can only make
new melds that hold the card it draws now: whatever else is left in hand is a part of the old,
meld-free hand. The engine then searches only the piernas of that card's rank and the escaleras
of its suit (``moves.gen_new_melds_with(..., only=card)``), and none at all once no copy of
the card is left. These tests check that the list is the very same, row for row:

* on generated hands for every preset of the registry and the knob variants of
  ``take_bruteforce.rule_variants`` (jokers, duplicates, three decks, [A26]);
* inside whole games, run as plain Python (``NUMBA_DISABLE_JIT=1``) with every policy of the
  registry: each search the engine makes is repeated without the shortcut and compared.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from take_bruteforce import rule_variants

from sim.loba import moves
from sim.loba.layout import HAND_W, JOKER, A

VARIANTS = rule_variants()
NAMES = sorted(VARIANTS)
N_HANDS = 300  # meld-free hands per rule variant


def meld_free_hand(rng: random.Random, deck: list[int], R_all) -> list[int]:
    """A hand of the deck's cards with no new meld of any size (cards go back to ``deck``
    until none is left); the cards in hand are taken out of ``deck``."""
    rng.shuffle(deck)
    hand = [0] * HAND_W
    for _ in range(rng.randint(4, 16)):
        hand[deck.pop()] += 1
    acts = np.zeros((moves.options_bound(R_all), A.SIZE), dtype=np.int16)
    while moves.gen_new_melds(np.array(hand, dtype=np.int8), sum(hand), R_all, acts, 0):
        c = rng.choice([c for c in range(JOKER + 1) if hand[c] > 0])
        hand[c] -= 1
        deck.append(c)
    return hand


@pytest.mark.parametrize("name", NAMES)
def test_a9_melds_with_the_drawn_card_are_every_meld(name):
    rules = VARIANTS[name]
    R = rules.to_array()
    R_all = rules.replace(go_out_needs_discard=False).to_array()  # "no meld of any size"
    rng = random.Random(f"meld-free-{name}")
    full = np.zeros((moves.options_bound(R), A.SIZE), dtype=np.int16)
    part = np.zeros_like(full)
    found = 0
    for _ in range(N_HANDS):
        deck = [c for c in range(JOKER) for _ in range(rules.decks)] + [JOKER] * rules.jokers
        hand = meld_free_hand(rng, deck, R_all)
        c = rng.choice(deck)  # the card drawn: any card still unseen, a joker too
        hand[c] += 1
        h = np.array(hand, dtype=np.int8)
        n = moves.gen_new_melds(h, sum(hand), R, full, 0)
        k = moves.gen_new_melds_with(h, sum(hand), R, part, 0, c)
        assert k == n and (part[:k] == full[:n]).all(), (name, hand, c)
        found += n > 0
    assert found > N_HANDS // 20  # the drawn card made melds in a fair share of the cases


ENGINE_CHECK = r"""
import sys
import numpy as np
import sim
from sim.games import get_game
from sim.loba import engine
from sim.testing import quick_seat

real = engine.gen_plays_with
calls = {"short": 0, "none": 0, "melds": 0}

def checked(st, R, seat, acts, only, held):
    # the identities the turn carries from its draw on are the hand's
    assert held == engine.held_bits(st.hands[seat])[0], (held, st.hands[seat])
    n, new = real(st, R, seat, acts, only, held)
    if only != -1:
        calls["none" if only == engine.NO_MELD else "short"] += 1
        full = np.zeros_like(acts)
        n2, new2 = real(st, R, seat, full, -1, held)
        assert (n, new) == (n2, new2) and (acts[:n] == full[:n2]).all(), (only, n, n2)
        calls["melds"] += new > 0
    return n, new

engine.gen_plays_with = checked
policies = [quick_seat("loba", p) for p in sorted(get_game("loba").policies)]
for preset in get_game("loba").rules.presets:
    for i, p in enumerate(policies):
        seats = ",".join(policies[(i + k) % len(policies)] for k in range(4))
        sim.simulate(preset, seats, games=6, seed=31 + i, threads=1)
print(calls["short"], calls["none"], calls["melds"])
"""


def test_a9_engine_shortcut_matches_the_full_search_in_games():
    """Every policy of the registry sits at the table; each shortcut search is redone in full."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore", PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, "-c", ENGINE_CHECK], env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-3000:]
    short, none, melds = (int(x) for x in out.stdout.split()[-3:])
    assert short > 500 and none > 50 and melds > 20, out.stdout

"""Conformance play-outs: every preset x built-in policy x 2-5 players, invariants after every
turn (see tests/conformance.py), plus a sample with the JIT off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conformance
import pytest

from sim.games import get_game
from sim.loba.rules import PRESETS
from sim.setup import make_rules
from sim.testing import quick_seat

POLICIES = list(get_game("loba").policies)  # the registry: a new policy is covered


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_conformance_preset_policy_players(preset, policy, n):
    seats = ",".join([quick_seat("loba", policy)] * n)
    stats = conformance.run(make_rules(preset), seats, games=2, seed=1000 + n)
    assert stats["games"] == 2 and stats["rounds"] >= 2


@pytest.mark.parametrize("preset", list(PRESETS))
def test_conformance_mixed_seats_and_rebuy_rules(preset):
    seats = "greedy+rebuy=never,hold:patience=1,random+rebuy=if_opponents:k=2,greedy"
    stats = conformance.run(make_rules(preset), seats, games=4, seed=7)
    assert stats["games"] == 4


@pytest.mark.parametrize(
    "overrides",
    [
        {"reshuffle_keep_top": False, "go_out_needs_discard": True},
        {"score_floor": 0, "one_turn_bonus": 25, "rebuy_with_one_survivor": True},
        {"layoff_requires_own_meld": False, "joker_end_move": False, "hand_size": 13},
        {"decks": 1, "jokers": 2, "hand_size": 7, "elimination_score": 51},
        {"max_turns_per_round": 40, "max_rounds_per_game": 6},
    ],
)
def test_conformance_rule_variants(overrides):
    stats = conformance.run(make_rules("pagat", **overrides), "greedy,random,hold", games=3, seed=3)
    assert stats["games"] == 3


def test_conformance_without_jit():
    """A small sample with NUMBA_DISABLE_JIT=1: the same code, as plain Python."""
    here = Path(__file__).parents[1]
    code = (
        "import conformance\n"
        "from sim.setup import make_rules\n"
        "r = make_rules('pagat', elimination_score=40)\n"
        "s = conformance.run(r, 'greedy,random,hold', 1, 5)\n"
        "s2 = conformance.run(make_rules('rami', elimination_score=30), 'greedy,hold', 1, 6)\n"
        "print('games', s['games'] + s2['games'], 'rounds', s['rounds'] + s2['rounds'])\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(here))
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=here.parent,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("games 2 rounds ")

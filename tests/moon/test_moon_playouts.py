"""Play-outs: every preset x every built-in policy, each game's trace re-checked by the
independent auditor; traced games equal the batch kernel's rows; results do not depend on how
a run is cut into chunks; what a policy sees is what B.5 allows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sim.moon.auditor import audit
from sim.moon.batch import frames, play_batch
from sim.moon.layout import DEC, N_TILES, PL, PUB, G
from sim.moon.play import record
from sim.moon.policies import POLICIES
from sim.moon.rules import RULE, SPEC
from sim.moon.schema import GR, HR, SR
from sim.policies.api import Policy, decision
from sim.testing import quick_seat

GAMES = 200
SEARCH_GAMES = 20  # for a search policy (pimc), at its cheap setting (Policy.quick)
CAP = 40  # hands per traced game (max_hands_per_game): random seats would play 500


def seat_and_games(policy: str, games: int = GAMES, search: int = SEARCH_GAMES):
    """The seat string registry-wide checks give ``policy`` (a search policy's cheap setting)
    and how many games to play with it."""
    seat = quick_seat("moon", policy)
    return seat, (games if seat == policy else search)


@pytest.mark.parametrize("preset", list(SPEC.presets))
@pytest.mark.parametrize("policy", list(POLICIES))
def test_playouts_pass_the_auditor(preset, policy):
    rules = SPEC.make(preset, max_hands_per_game=CAP)
    seat, n = seat_and_games(policy)
    seats = [seat] * 3
    games, seats_rows, _ = play_batch(rules, seats, seed=101, count=n)
    for i in range(n):
        g = record(rules, seats, 101, i)
        ev = g.events()
        assert audit(ev) == [], (preset, policy, i)
        assert (g.winner if g.winner is not None else -1) == games[i, GR.WINNER]
        assert g.hand_no == games[i, GR.HANDS]
        assert g.scores == seats_rows[i, :, SR.FINAL_SCORE].tolist()
    assert (seats_rows[:, :, SR.BAD_ANSWERS] == 0).all()


def test_mixed_seats_full_length_games():
    seats = ["count", "greedy", "random"]
    rules = SPEC.make()
    games, seats_rows, hands = play_batch(rules, seats, seed=3, count=300, hands_cap=600)
    for i in range(0, 300, 10):
        assert audit(record(rules, seats, 3, i).events()) == []
    n = games[:, GR.HANDS]
    assert (n >= 1).all() and (n <= 500).all()
    played = hands[:, :, HR.REDEAL] == 0
    tricks = hands[:, :, HR.TRICKS_0] + hands[:, :, HR.TRICKS_1] + hands[:, :, HR.TRICKS_2]
    live = np.arange(hands.shape[1])[None, :] < n[:, None]
    assert (tricks[live & played] == 7).all()
    assert (tricks[live & ~played] == 0).all()
    assert (hands[:, :, HR.REDEAL][live].sum(axis=None)) == games[:, GR.REDEALS].sum()
    finished = games[:, GR.WINNER] >= 0
    w = games[finished, GR.WINNER]
    assert (seats_rows[finished][np.arange(w.size), w, SR.PLACE] == 1).all()
    assert (seats_rows[:, :, SR.TRICKS].sum(axis=1) == 7 * (n - games[:, GR.REDEALS])).all()
    fr = frames(games, seats_rows, hands, start=0, seed=3, rules=rules, labels=seats)
    assert fr["games"].height == 300 and fr["seats"].height == 900
    assert fr["hands"].height == int(n.sum())
    assert fr["games"]["rules_id"][0] == "moon:gamerules"


@pytest.mark.parametrize("policy", list(POLICIES))
def test_determinism_whatever_the_split(policy):
    seat, n = seat_and_games(policy, 300, 30)
    seats = [seat, "count", "greedy"]
    rules = SPEC.make("bid", max_hands_per_game=60)
    whole = play_batch(rules, seats, seed=99, start=0, count=n, hands_cap=60)
    cut = (0, 1, 2 * n // 5, 2 * n // 5 + 1, n)
    parts = [
        play_batch(rules, seats, seed=99, start=a, count=b - a, hands_cap=60)
        for a, b in itertools.pairwise(cut)
    ]
    for k in range(3):
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts]))
    a = 2 * n // 3
    again = play_batch(rules, seats, seed=99, start=a, count=5, hands_cap=60)
    for k in range(3):
        assert np.array_equal(again[k], whole[k][a : a + 5])
    other = play_batch(rules, seats, seed=100, start=0, count=n, hands_cap=60)
    assert not np.array_equal(other[0], whole[0])


# ---------------------------------------------------------------- B.5 the policies' view


@decision
def spy_bid(own, pub, played, params, rng, acts, n):
    """A bad answer (99) whenever the view shows more than B.5 allows."""
    held = 0
    for t in range(N_TILES):
        held += own[t]
    if held != 7 or pub[PUB.WIDOW] != -1 or pub[PUB.DISCARD] != -1 or pub[PUB.TRUMP] != -1:
        return 99
    for t in range(N_TILES):
        if played[PL.BY + t] != -1:
            return 99
    if pub[PUB.RULES + RULE.TARGET] != 21:
        return 99
    # vandalism: writing into the copies changes nothing in the game nor the next view
    for t in range(N_TILES):
        own[t] = 1
    acts[0, 0] = 21
    pub[PUB.BID] = 21
    pub[PUB.RULES + RULE.TARGET] = 99
    played[PL.BY] = 2
    rng[0] = 0
    return n - 1 if n > 1 else 0


@decision
def spy_trump(own, pub, played, params, rng, acts, n):
    held = 0
    for t in range(N_TILES):
        held += own[t]
    mine = pub[PUB.SEAT] == pub[PUB.BIDDER]
    if not mine:
        return 99
    dec = pub[PUB.DECISION]
    if dec == DEC.TRUMP:
        if held != 7 or pub[PUB.WIDOW] != -1:
            return 99
    elif held != 8 or pub[PUB.WIDOW] < 0 or own[pub[PUB.WIDOW]] != 1:
        return 99
    acts[0, 0] = 0
    return n - 1


@decision
def spy_play(own, pub, played, params, rng, acts, n):
    held = 0
    for t in range(N_TILES):
        held += own[t]
    npl = pub[PUB.NPLAYED]
    k = npl % 3
    mine = pub[PUB.SEAT] == pub[PUB.BIDDER]
    if held != 7 - pub[PUB.TRICK]:
        return 99
    if mine != (pub[PUB.WIDOW] >= 0) or mine != (pub[PUB.DISCARD] >= 0):
        return 99
    seen = 0
    for t in range(N_TILES):
        if played[PL.BY + t] >= 0:
            seen += 1
            if own[t] != 0:
                return 99
    if seen != npl:
        return 99
    if (k == 0) != (pub[PUB.LED] < 0):
        return 99
    if pub[PUB.RULES + RULE.TARGET] != 21:
        return 99
    for i in range(n):
        acts[i, 0] = 0  # vandalism
        own[i] = 0
    pub[PUB.RULES + RULE.TARGET] = 5
    return 0


SPY = Policy("spy", bid=spy_bid, trump=spy_trump, play=spy_play, doc="checks its view", game="moon")


@pytest.mark.parametrize("preset", list(SPEC.presets))
def test_b5_policies_see_only_what_b5_allows(preset):
    rules = SPEC.make(preset, max_hands_per_game=30)
    games, seats, _ = play_batch(rules, [SPY, "count", SPY], seed=5, count=100)
    assert (seats[:, :, SR.BAD_ANSWERS] == 0).all()
    for i in range(0, 100, 20):
        assert audit(record(rules, [SPY, "count", SPY], 5, i).events()) == []


@decision
def wild(own, pub, played, params, rng, acts, n):
    return n + 5 if pub[PUB.DECISION] == DEC.PLAY else -3


def test_out_of_range_answers_read_as_first_option_and_counted():
    pol = Policy("wild", bid=wild, trump=wild, play=wild, game="moon")
    rules = SPEC.make(max_hands_per_game=20)
    games, seats, _ = play_batch(rules, [pol, "count", "count"], seed=8, count=50)
    assert (seats[:, 0, SR.BAD_ANSWERS] > 0).all()
    assert (seats[:, 1:, SR.BAD_ANSWERS] == 0).all()
    ev = record(rules, [pol, "count", "count"], 8, 0).events()
    assert audit(ev) == []
    bad = [e for e in ev if e["type"] == "bad_answer"]
    assert bad and all(e["seat"] == 0 for e in bad)
    # the first bid option is a pass: the wild seat never bids
    assert all(e["bid"] == "pass" for e in ev if e["type"] == "bid" and e["seat"] == 0)


def test_plain_python_mode_plays_the_same_games():
    """NUMBA_DISABLE_JIT=1 (readable tracebacks, coverage) runs the very same games."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json; from sim.moon.batch import play_batch;"
        "g, s, h = play_batch('bid(max_hands_per_game=25)', ['count', 'greedy', 'random'],"
        " seed=21, start=7, count=3, hands_cap=25);"
        "print(json.dumps([g.tolist(), s.tolist(), h.tolist()]))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "ignore"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    plain = json.loads(out.stdout.strip().splitlines()[-1])
    compiled = play_batch(
        "bid(max_hands_per_game=25)", ["count", "greedy", "random"], 21, 7, 3, hands_cap=25
    )
    assert plain == [a.tolist() for a in compiled]


def test_stepping_equals_playing():
    """Game.step (one deal, auction, declaration, trick or settlement per call) follows the
    very same game as the batch loop."""
    from sim.moon.play import Game

    rules = SPEC.make("pagat")
    for i in range(4):
        a = Game(rules, ["count", "greedy", "random"], seed=13, index=i).play()
        b = Game(rules, ["count", "greedy", "random"], seed=13, index=i)
        steps = 0
        while not b.done:
            b.step()
            steps += 1
        assert a.events() == b.events() and a.scores == b.scores
        assert steps > 7 * b.hand_no - 7 * int(b.st.g[G.REDEALS])
        assert a.hand_records() == b.hand_records()

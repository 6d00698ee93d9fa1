"""Reproducibility: same rules, seats, seed and games => bit-identical tables, whatever the
thread count or chunk size; game i is the same game alone or in a batch."""

from __future__ import annotations

import pytest

import sim
from sim.loba.play import Game


def _run(**kw):
    return sim.simulate("pagat", "greedy,hold,random", games=600, seed=42, record_rounds=True, **kw)


def test_threads_one_vs_two_identical():
    a = _run(threads=1)
    b = _run(threads=2)
    assert a.games.equals(b.games) and a.seats.equals(b.seats) and a.rounds.equals(b.rounds)


def test_chunk_sizes_identical():
    a = _run(chunk_size=7)
    b = _run(chunk_size=256)
    assert a.games.equals(b.games) and a.seats.equals(b.seats) and a.rounds.equals(b.rounds)


def test_game_is_same_alone_or_in_batch():
    batch = sim.simulate("rami", "greedy,greedy,greedy,greedy", games=50, seed=5)
    one = sim.simulate("rami", "greedy,greedy,greedy,greedy", games=1, seed=5, start=37)
    assert one.games.row(0) == batch.games.row(37)
    g = Game("rami", "greedy,greedy,greedy,greedy", seed=5, index=37).play()
    row = batch.games.row(37, named=True)
    assert (g.winner, g.round, g.pot) == (row["winner"], row["rounds"], row["pot"])


def test_different_seeds_differ():
    a = sim.simulate("pagat", "greedy,greedy", games=100, seed=1)
    b = sim.simulate("pagat", "greedy,greedy", games=100, seed=2)
    assert not a.games.equals(b.games)


def test_forked_game_replays_identically():
    g = Game("pagat", "greedy,random,hold", seed=3)
    for _ in range(40):
        g.step()
    f = g.fork()
    g.play()
    f.play()
    assert (g.winner, g.round, g.scores(), g.pot) == (f.winner, f.round, f.scores(), f.pot)


def test_fork_at_rebuy_decision_plays_both_branches_on_common_random_numbers():
    g = Game("pagat", "greedy,greedy,greedy,greedy", seed=8)
    while g.play_to_settle() and not g.rebuy_decisions():
        g.step()
    seats = g.rebuy_decisions()
    assert seats, "a 4-player greedy game reaches a rebuy decision"
    q = seats[0]
    others = {o: True for o in seats if o != q}
    yes = g.fork().settle_with({**others, q: True})
    no = g.fork().settle_with({**others, q: False})
    assert yes.rebuys(q) == g.rebuys(q) + 1 and yes.status(q) == 0
    assert no.status(q) == 2 and no.rebuys(q) == g.rebuys(q)
    assert yes.pot == no.pot + 1 == g.pot + len(seats)
    # same random stream afterwards: the next deal of the two branches draws the same numbers
    assert (yes.st.rng == no.st.rng).all()
    yes.play()
    no.play()
    assert yes.done and no.done
    # and replaying the 'yes' branch again gives the same game
    again = g.fork().settle_with({**others, q: True}).play()
    assert (again.winner, again.round, again.pot) == (yes.winner, yes.round, yes.pot)


def _same_state(a: Game, b: Game) -> bool:
    return all(
        (getattr(a.st, f) == getattr(b.st, f)).all() for f in ("hands", "melds", "g", "s", "rng")
    )


def test_compiled_round_and_settle_drivers_equal_stepping_one_at_a_time():
    """Game.play_round / play_to_settle run in compiled code; they stop where a Python loop of
    step() calls stops, in the same state."""
    a = Game("pagat", "greedy,random,hold", seed=5)
    b = Game("pagat", "greedy,random,hold", seed=5)
    from sim.loba.layout import PH

    for _ in range(4):
        a.play_round()
        if b.phase == PH.DEAL:
            b.step()
        while b.phase in (PH.TURN, PH.SETTLE):
            b.step()
        assert _same_state(a, b)
    a.play_to_settle()
    while not b.done and b.phase != PH.SETTLE:
        b.step()
    assert b.phase == PH.SETTLE and _same_state(a, b)


def test_rebuy_branches_equal_forks_settled_and_played_from_python():
    import numpy as np

    from sim.loba.layout import S
    from sim.rng import seed_game

    g = Game("pagat", "greedy,hold,greedy,random", seed=8)
    while g.play_to_rebuy() and not g.rebuy_decisions():
        g.step()
    q = g.rebuy_decisions()[0]
    before = g.fork()
    out = g.rebuy_branches(q, 3, seed=77, base=1000)
    assert _same_state(g, before)  # the game itself is untouched
    for k in range(3):
        for b, choice in enumerate((True, False)):
            f = g.fork()
            seed_game(f.st.rng, np.uint64(77), 1000 + k)
            f.settle_with({q: choice}).play()
            assert out[k, b] == f.st.s[q, S.WON] - f.st.s[q, S.PAID]
            assert out[k, 2 + b] == (f.winner == q)
    again = g.rebuy_branches(q, 3, seed=77, base=1000)
    assert (again == out).all()
    others = [s for s in range(4) if s not in g.rebuy_decisions()]
    with pytest.raises(ValueError, match="no rebuy decision"):
        g.rebuy_branches(others[0], 2, seed=1)


@pytest.mark.parametrize("count", [1, 127, 128, 129, 1000, 8192])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_in_slices_covers_every_game_once(count, threads):
    import threading

    from sim.chunks import in_slices

    seen = []
    lock = threading.Lock()

    def record(lo, hi):
        with lock:
            seen.append((lo, hi))

    in_slices(record, count, threads)
    covered = sorted(i for lo, hi in seen for i in range(lo, hi))
    assert covered == list(range(count))
    assert all(hi > lo for lo, hi in seen)


@pytest.mark.parametrize("n", [0, 1, 2, 54, 108, 432])
def test_shuffle_is_fisher_yates_on_below(n):
    """``rng.shuffle`` keeps its stream in registers: the same draws (``below`` at every step,
    from the top down) and the same stream after it as the plain Fisher-Yates loop."""
    import numpy as np

    from sim.rng import below, seed_stream, shuffle

    for seed in range(20):
        s1 = np.zeros(2, dtype=np.uint64)
        seed_stream(s1, seed, n)
        s2 = s1.copy()
        a1 = np.arange(n, dtype=np.int16)
        a2 = a1.copy()
        shuffle(s1, a1, n)
        for i in range(n - 1, 0, -1):
            j = below(s2, i + 1)
            a2[i], a2[j] = a2[j], a2[i]
        assert np.array_equal(a1, a2) and np.array_equal(s1, s2), (seed, n)

"""Reproducibility: same rules, seats, seed and games => bit-identical tables, whatever the
thread count or chunk size; game i is the same game alone or in a batch."""

from __future__ import annotations

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

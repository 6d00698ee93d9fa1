"""``loba bench``: kernel throughput against a floor kernel, single-thread and all threads.

The floor kernel only shuffles, deals and lets each player draw the top of the stock and
discard a card, with the same per-game random streams and the same number of turns as the
measured run; the ratio of the two per-turn costs says what the rules and policies cost.
Figures are printed, never asserted (machines are shared and noisy).
"""

from __future__ import annotations

import time

import numpy as np

from ..chunks import MAX_THREADS, in_slices, run_chunk, set_threads
from ..game import BenchFigure
from ..jit import jit
from ..policies import parse_seats
from ..rng import below, seed_stream, shuffle
from .layout import GR, JOKER, MAX_CARDS


@jit
def _floor_game(seed, index, n_players, hand_size, deck_n, turns, rng, deck, hands):
    seed_stream(rng, seed, index)
    done = 0
    while done < turns:
        k = 0
        for cid in range(52):
            deck[k] = cid
            deck[k + 1] = cid
            k += 2
        while k < deck_n:
            deck[k] = JOKER
            k += 1
        shuffle(rng, deck, deck_n)
        hands[:, :] = 0
        top = deck_n
        for _ in range(hand_size):
            for q in range(n_players):
                top -= 1
                hands[q, deck[top]] += 1
        seat = 0
        while top > 0 and done < turns:
            top -= 1
            hands[seat, deck[top]] += 1
            j = below(rng, 53)
            while hands[seat, j] == 0:
                j = (j + 1) % 53
            hands[seat, j] -= 1
            seat = (seat + 1) % n_players
            done += 1
    return done


@jit
def _floor_games(seed, lo, out, n_players, hand_size, deck_n, turns):
    rng = np.zeros(2, dtype=np.uint64)
    deck = np.zeros(MAX_CARDS, dtype=np.int16)
    hands = np.zeros((n_players, 53), dtype=np.int16)
    for i in range(out.shape[0]):
        out[i] = _floor_game(seed, lo + i, n_players, hand_size, deck_n, turns, rng, deck, hands)


def floor_kernel(seed, count, n_players, hand_size, deck_n, turns):
    """The floor: shuffle, deal, draw/discard only, on the same threads as the real kernel."""
    out = np.zeros(count, dtype=np.int64)
    in_slices(
        lambda a, b: _floor_games(seed, a, out[a:b], n_players, hand_size, deck_n, turns), count
    )
    return out


def run_bench(spec, rules, seats, games: int, seed: int = 12345):
    """Yield report lines. ``spec``: Loba's GameSpec (``spec.bench`` hands it over)."""
    seat_list = parse_seats(seats, game=spec)
    n = len(seat_list)
    rules.check_players(n)
    R = rules.to_array()
    tables = spec.fn_tables(seat_list)
    t0 = time.perf_counter()
    labels = [s.label for s in seat_list]
    run_chunk(spec, R, n, seed, 0, 2, tables, 0, labels)
    floor_kernel(seed, 2, n, rules.hand_size, 52 * rules.decks + rules.jokers, 10)
    first = time.perf_counter() - t0
    yield f"rules {rules.id}, seats {','.join(s.label for s in seat_list)}, {games} games"
    yield f"first call (compile or cache load): {first:.2f} s"
    top = MAX_THREADS
    results = {}
    for threads in sorted({1, top}):
        set_threads(threads)
        t = time.perf_counter()
        g = run_chunk(spec, R, n, seed, 0, games, tables, 0, labels)[0]
        dt = time.perf_counter() - t
        turns = int(g[:, GR.TURNS].sum())
        decisions = int(g[:, GR.DECISIONS].sum())
        tpg = turns / games
        t = time.perf_counter()
        floor_kernel(
            seed, games, n, rules.hand_size, 52 * rules.decks + rules.jokers, int(round(tpg))
        )
        fdt = time.perf_counter() - t
        ns_turn = dt / turns * 1e9 * threads
        floor_ns = fdt / (games * round(tpg)) * 1e9 * threads
        results[threads] = games / dt
        yield (
            f"threads {threads}: {games / dt:,.0f} games/s, {turns / dt:,.0f} turns/s, "
            f"{decisions / dt:,.0f} decisions/s, {tpg:.1f} turns/game, "
            f"{ns_turn:.0f} ns/turn/core"
        )
        yield (
            f"  floor kernel: {games / fdt:,.0f} games/s, {floor_ns:.0f} ns/turn/core; "
            f"kernel/floor = {ns_turn / floor_ns:.1f}x per turn"
        )
        yield BenchFigure(threads, games / dt, ns_turn / floor_ns)
    if top > 1:
        yield f"scaling {top} threads / 1 thread: {results[top] / results[1]:.2f}x"
    set_threads(None)

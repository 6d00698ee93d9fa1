"""Batches of games: validation, seating, threads, chunking, progress.

:func:`simulate` is the Python entry point. It validates everything first (a bad rule, seat or
count raises :class:`RuleError` / :class:`SeatError` / ``ValueError`` with one sentence), then
runs the compiled kernel chunk by chunk. Game ``i`` of a run always draws from the random
stream of ``(seed, i)``, so any thread count or chunk size gives bit-identical tables.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numba
import numpy as np

from .loba.kernel import run_games
from .loba.layout import GR_SIZE, MAX_SEATS, RR_SIZE, SR_SIZE
from .policies import Seat, parse_seats
from .results import Results
from .rules import RuleSet, make_rules, parse_rules_id

DEFAULT_CHUNK = 8192
ROUNDS_CHUNK = 512  # per-round records take max_rounds_per_game x seats rows per game


def resolve_rules(rules) -> RuleSet:
    if rules is None:
        return make_rules()
    if isinstance(rules, RuleSet):
        return rules
    return parse_rules_id(str(rules))


def seat_tables(seats: list[Seat]):
    """The kernel's per-seat function tuples and parameter matrix (padded to MAX_SEATS)."""
    pad = list(seats) + [seats[0]] * (MAX_SEATS - len(seats))
    draw = tuple(s.policy.draw for s in pad)
    play = tuple(s.policy.play for s in pad)
    discard = tuple(s.policy.discard for s in pad)
    rebuy = tuple(s.rebuy.decide for s in pad)
    params = np.ascontiguousarray(np.stack([s.param_array() for s in pad]))
    return draw, play, discard, rebuy, params


def set_threads(threads: int | None) -> int:
    """Use ``threads`` worker threads (None: all the machine's); returns the count in use."""
    top = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = top
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"--threads must be a whole number of at least 1, not {threads}.")
    numba.set_num_threads(min(threads, top))
    return min(threads, top)


def run_chunk(R, n_players, seed, start, count, tables, record_rounds: int):
    """Play games ``start .. start+count-1``; returns (games, seats, rounds) arrays."""
    draw, play, discard, rebuy, params = tables
    games = np.zeros((count, GR_SIZE), dtype=np.int64)
    seats = np.zeros((count, MAX_SEATS, SR_SIZE), dtype=np.int64)
    if record_rounds:
        rounds = np.zeros((count, record_rounds, MAX_SEATS, RR_SIZE), dtype=np.int32)
    else:
        rounds = np.zeros((1, 0, MAX_SEATS, RR_SIZE), dtype=np.int32)
    run_games(
        R,
        n_players,
        np.uint64(seed),
        start,
        count,
        draw,
        play,
        discard,
        rebuy,
        params,
        games,
        seats,
        rounds,
    )
    return games, seats, rounds


def simulate(
    rules=None,
    seats="greedy,greedy,greedy,greedy",
    games: int = 1000,
    seed: int = 0,
    threads: int | None = None,
    record_rounds: bool = False,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    start: int = 0,
) -> Results:
    """Play ``games`` complete games and return their :class:`Results`.

    ``rules``: a RuleSet, a rules id string (``"pagat(elimination_score=151)"``) or None
    (pagat). ``seats``: a comma-separated seat string or a list (one entry per player, 2-5).
    ``progress(done, total)`` is called after every chunk.
    """
    rules = resolve_rules(rules)
    seat_list = parse_seats(seats)
    n = len(seat_list)
    rules.check_players(n)
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise ValueError(f"The number of games must be a whole number of at least 1, not {games}.")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
        raise ValueError(f"The seed must be a whole number from 0 to 2^63-1, not {seed}.")
    used_threads = set_threads(threads)
    R = rules.to_array()
    tables = seat_tables(seat_list)
    rr = rules.max_rounds_per_game if record_rounds else 0
    chunk = chunk_size or (ROUNDS_CHUNK if record_rounds else DEFAULT_CHUNK)
    parts = []
    run_chunk(R, n, seed, start, 1, tables, rr)  # load (or compile) the kernel before timing
    t0 = time.perf_counter()
    done = 0
    while done < games:
        k = min(chunk, games - done)
        parts.append(run_chunk(R, n, seed, start + done, k, tables, rr))
        done += k
        if progress is not None:
            progress(done, games)
    elapsed = time.perf_counter() - t0
    g = np.concatenate([p[0] for p in parts])
    s = np.concatenate([p[1] for p in parts])
    r = np.concatenate([p[2] for p in parts]) if record_rounds else None
    return Results.from_arrays(
        rules=rules,
        seats=seat_list,
        seed=int(seed),
        start=start,
        games=g,
        seat_rows=s,
        round_rows=r,
        elapsed=elapsed,
        threads=used_threads,
    )


def cpu_count() -> int:
    return os.cpu_count() or 1

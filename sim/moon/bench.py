"""Throughput of the Moon batch kernel: ``python -m sim.moon.bench [games] [threads]``.

Plays ``games`` games of ``moon:gamerules`` with three ``count`` seats (and the other built-in
policies) on 1 and ``threads`` Python threads (the kernel releases the GIL), after a warm-up
call that compiles or loads the kernel, and prints complete games per second.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .batch import resolve_rules, seat_tables
from .kernel import run_games
from .layout import MAX_SEATS
from .schema import GAMES, HANDS, SEATS


def games_per_second(rules, policies, games: int, threads: int = 1, seed: int = 1) -> float:
    rs = resolve_rules(rules)
    R = rs.to_array()
    fns, params = seat_tables(policies)
    g = GAMES.empty_array(games, MAX_SEATS)
    s = SEATS.empty_array(games, MAX_SEATS)
    h = HANDS.empty_array(1, MAX_SEATS, 0)
    run_games(R, np.uint64(seed), 0, 8, fns, params, g[:8], s[:8], h)  # compile / load

    def part(k: int) -> None:
        a, b = games * k // threads, games * (k + 1) // threads
        run_games(R, np.uint64(seed), a, b - a, fns, params, g[a:b], s[a:b], h)

    t = time.perf_counter()
    if threads == 1:
        part(0)
    else:
        with ThreadPoolExecutor(threads) as ex:
            list(ex.map(part, range(threads)))
    return games / (time.perf_counter() - t)


def run_bench(rules, seats, games: int, seed: int = 12345, threads: int = 2):
    """Yield report lines: games/s of ``seats`` under ``rules`` on 1 and ``threads`` threads."""
    from .batch import seat_label, seat_list

    rs = resolve_rules(rules)
    ss = seat_list(seats)
    t0 = time.perf_counter()
    games_per_second(rs, ss, 8, 1, seed)
    yield f"rules {rs.id}, seats {','.join(seat_label(s) for s in ss)}, {games} games"
    yield f"first call (compile or cache load): {time.perf_counter() - t0:.2f} s"
    for th in sorted({1, threads}):
        yield f"{th} thread(s): {games_per_second(rs, ss, games, th, seed):,.0f} games/s"


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 100_000
    threads = int(argv[1]) if len(argv) > 1 else 2
    for pol in ("count", "greedy", "random"):
        n = games if pol != "random" else max(games // 50, 100)
        for th in sorted({1, threads}):
            gps = games_per_second("gamerules", [pol] * 3, n, th)
            print(f"{pol:>7} x3, {th} thread(s): {gps:,.0f} games/s")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Cost of the plug-in arena (sim.loba.gate.ask_arena), measured in one process: the same
seats, the same engine, the same chunks of games, with the seat's arena flag on and off
(alternating, one thread, CPU time), and the same games either way.

    python tests/tools/arena_ab.py [SEAT] [--reps 20] [--games 1000]

SEAT is a plug-in seat (default tests/plugins/smallest.py:smallest); the other three seats are
greedy. Reports ns per turn with and without the arena and the median paired ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("seat", nargs="?", default=str(ROOT / "tests/plugins/smallest.py:smallest"))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--games", type=int, default=1000)
    a = ap.parse_args()

    from sim.chunks import run_chunk, set_threads
    from sim.loba.layout import GR, PARAMS_W
    from sim.loba.spec import SPEC
    from sim.policies import parse_seats
    from sim.setup import resolve_rules

    set_threads(1)
    seats = parse_seats(f"{a.seat},greedy,greedy,greedy", game=SPEC)
    R = resolve_rules("pagat").to_array()
    fns, on = SPEC.fn_tables(seats)
    off = on.copy()
    off[:, PARAMS_W + 1] = 0
    assert on[0, PARAMS_W + 1] == 1, "the seat is not a plug-in"
    for p in (on, off):  # compile / load
        run_chunk(SPEC, R, 4, 1, 0, 4, (fns, p), 0)
    ns = {"arena": [], "direct": []}
    ratios = []
    for rep in range(a.reps):
        order = [("arena", on), ("direct", off)][:: 1 if rep % 2 else -1]
        got, turns = {}, {}
        for name, p in order:
            t = time.process_time()
            g = run_chunk(SPEC, R, 4, 7, rep * a.games, a.games, (fns, p), 0)[0]
            dt = time.process_time() - t
            turns[name] = int(g[:, GR.TURNS].sum())
            got[name] = 1e9 * dt / turns[name]
        assert turns["arena"] == turns["direct"], "the arena changed the games"
        for k in got:
            ns[k].append(got[k])
        ratios.append(got["arena"] / got["direct"])
    print(f"seat {a.seat} + 3 greedy, {a.reps} x {a.games} games, one thread, CPU time")
    for k, v in ns.items():
        print(f"  {k:6}: {statistics.median(v):7.1f} ns/turn (median of {len(v)})")
    print(f"  arena / direct: {statistics.median(ratios):.3f} (median of paired ratios)")


if __name__ == "__main__":
    main()

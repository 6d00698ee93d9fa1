"""The slow audit job: replay and audit many games of one game over every preset x registered
policy x player count (plus a mixed-seat cell per preset).

    python tests/tools/audit_many.py --games 100000 [--game loba|moon] [--workers 2] [--seed 1]
                               [--offset 0]

Blocks of games are audited in turn from every cell, so a run stopped early has covered every
cell alike. ``--offset K`` starts at game K of each cell: a long audit split into runs
(``--games 500000`` then ``--games 500000 --offset P``, P = the first run's games per cell)
audits different games. Every game is replayed with the kernel's event recording on and
re-checked by the game's independent auditor; prints how many were audited and every violation
found (exit 1 if any).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from sim.games import game_names, get_game
from sim.testing import cells as harness_cells

MIXED = {  # a cell per preset where seats differ (and, for Loba, rebuy rules)
    "loba": "greedy+rebuy=never,hold:patience=2,random,greedy+rebuy=if_opponents:k=2",
    "moon": "count,greedy,random",
}


def cells(game: str) -> list[tuple[str, str]]:
    spec = get_game(game)
    out = [(rules.id, seats) for rules, seats in harness_cells(spec)]
    mixed = MIXED.get(game)
    if mixed:
        out += [(spec.rules.make(p).id, mixed) for p in spec.rules.presets]
    return out


def work(args):
    rules_id, seats, seed, start, count = args
    from sim.setup import check_run

    spec, rules, seat_list = check_run(rules_id, seats, 1, seed)
    bad = []
    for g in range(start, start + count):
        problems = spec.audit(spec.replay(rules, seat_list, seed, g))
        if problems:
            bad.append((rules_id, seats, seed, g, problems[:3]))
    return count, bad


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--game", choices=game_names(), default="loba")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0, help="first game index of every cell")
    a = ap.parse_args()
    cs = cells(a.game)
    per = max(1, a.games // len(cs))
    block = 250
    first = a.offset
    print(f"{len(cs)} cells, games {first}..{first + per - 1} of each, seed {a.seed}", flush=True)
    jobs = [
        (r, s, a.seed, first + k, min(block, per - k))
        for k in range(0, per, block)
        for r, s in cs  # every cell in turn: a run stopped early covered them all alike
    ]
    t0 = time.time()
    done = 0
    bad = []
    with ProcessPoolExecutor(a.workers) as ex:
        for n, b in ex.map(work, jobs):
            done += n
            bad += b
            if done % 5000 < n:
                print(
                    f"{done} games audited, {len(bad)} with violations, {time.time() - t0:.0f} s",
                    flush=True,
                )
    print(
        f"audited {done} {a.game} games in {time.time() - t0:.0f} s over {len(cs)} cells: "
        f"{len(bad)} with violations"
    )
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

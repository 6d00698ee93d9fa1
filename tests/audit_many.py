"""The slow audit job: replay and audit many games over every preset x policy x 2-5 players.

    python tests/audit_many.py --games 100000 [--workers 2] [--seed 1]

Games are spread evenly over the 36 (preset, policy, players) cells plus mixed-seat cells;
prints how many were audited and every violation found (exit 1 if any).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sim.games import get_game

sys.path.insert(0, str(Path(__file__).parent))

LOBA = get_game("loba")
PRESETS = list(LOBA.rules.presets)  # the registries: a new preset or policy is covered
POLICIES = list(LOBA.policies)


def cells():
    out = []
    for preset in PRESETS:
        for pol in POLICIES:
            for n in range(LOBA.rules.min_players, LOBA.rules.max_players + 1):
                out.append((preset, ",".join([pol] * n)))
        out.append(
            (preset, "greedy+rebuy=never,hold:patience=2,random,greedy+rebuy=if_opponents:k=2")
        )
    return out


def work(args):
    preset, seats, seed, start, count = args
    from sim.loba import auditor
    from sim.trace import replay

    bad = []
    for g in range(start, start + count):
        problems = auditor.audit_events(replay(preset, seats, seed=seed, game=g))
        if problems:
            bad.append((preset, seats, seed, g, problems[:3]))
    return count, bad


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cs = cells()
    per = max(1, a.games // len(cs))
    block = 250
    jobs = [(p, s, a.seed, k, min(block, per - k)) for p, s in cs for k in range(0, per, block)]
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
        f"audited {done} games in {time.time() - t0:.0f} s over {len(cs)} cells: "
        f"{len(bad)} with violations"
    )
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

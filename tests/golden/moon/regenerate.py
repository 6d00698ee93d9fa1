"""Regenerate Moon's golden games — only when a rule change is intended (then bump Moon's
RULES_VERSION, ``sim/moon/rules.py``).

    python tests/golden/moon/regenerate.py

Writes one JSON Lines trace per case in CASES plus VERSION (the Moon RULES_VERSION they were
made with). tests/moon/test_moon_golden.py replays every case and compares it with its file, line
for line, byte for byte (the first line, the game's header, may list a knob added since at
its default).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

# (label, rules id, seats, seed, game): every preset, every built-in policy, and variant knobs
CASES = [
    ("gamerules", "moon:gamerules", "count,greedy,random", 11, 0),  # a moon bid
    ("pagat", "moon:pagat", "greedy,count,count", 12, 0),  # 9 hands, one redealt (all passed)
    ("bid", "moon:bid", "random,count,greedy", 13, 3),  # a moon bid; all passed: the last bids
    # a made moon wins the game at once
    ("instant-moon", "moon:gamerules(moon=instant,target=15)", "count,greedy,count", 14, 3),
    (
        "trump-first",
        "moon:gamerules(trump_before_widow=true,allow_doubles_trump=false,made_scores=bid)",
        "greedy,random,count",
        15,
        1,
    ),
    ("pimc", "moon:gamerules", "pimc,count,greedy", 16, 0),  # the search policy
]


def name(label, rules, seats, seed, game) -> str:
    return f"{label}-seed{seed}-game{game}.jsonl"


def main() -> int:
    here = str(HERE.parent.parent.parent)
    if here not in sys.path:  # (run as a script from anywhere)
        sys.path.insert(0, here)
    from sim.moon.rules import RULES_VERSION
    from sim.trace import replay, to_jsonl

    for old in HERE.glob("*.jsonl"):
        old.unlink()
    for case in CASES:
        _, rules, seats, seed, game = case
        events = replay(rules, seats, seed=seed, game=game)
        (HERE / name(*case)).write_text(to_jsonl(events))
    (HERE / "VERSION").write_text(f"{RULES_VERSION}\n")
    print(f"wrote {len(CASES)} Moon golden games (RULES_VERSION {RULES_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

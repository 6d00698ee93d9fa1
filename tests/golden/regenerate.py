"""Regenerate the golden games — only when a rule change is intended (then bump RULES_VERSION).

    python tests/golden/regenerate.py

Writes one JSON Lines trace per case in CASES plus VERSION (the RULES_VERSION they were made
with). tests/loba/test_audit.py replays every case and compares it with its file exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

# (preset, seats, seed, game)
CASES = [
    (preset, seats, seed, game)
    for preset in ("pagat", "classic", "rami")
    for seats, seed, game in (
        ("greedy,hold", 11, 0),
        ("greedy,random,hold", 12, 3),
        ("greedy+rebuy=never,hold:patience=2,random,greedy+rebuy=if_opponents:k=2", 13, 7),
        ("greedy,greedy,greedy,greedy,greedy", 14, 1),
    )
]


def name(preset, seats, seed, game) -> str:
    return f"{preset}-{len(seats.split(','))}p-seed{seed}-game{game}.jsonl"


def main() -> int:
    from sim.loba.rules import RULES_VERSION
    from sim.trace import replay, to_jsonl

    for old in HERE.glob("*.jsonl"):
        old.unlink()
    for preset, seats, seed, game in CASES:
        events = replay(preset, seats, seed=seed, game=game)
        (HERE / name(preset, seats, seed, game)).write_text(to_jsonl(events))
    (HERE / "VERSION").write_text(f"{RULES_VERSION}\n")
    print(f"wrote {len(CASES)} golden games (RULES_VERSION {RULES_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

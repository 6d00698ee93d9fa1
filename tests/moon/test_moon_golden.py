"""Moon's golden games: a few seeded games (every preset, every built-in policy, variant knobs)
stored as traces made by the engine, replayed and compared with their files byte for byte, so
that any change to how Moon is played shows up here. An intended change bumps Moon's
RULES_VERSION and regenerates them (tests/golden/moon/regenerate.py)."""

from __future__ import annotations

import json

from golden.moon.regenerate import CASES, HERE, name

from sim.moon.auditor import audit
from sim.moon.policies import POLICIES
from sim.moon.rules import RULES_VERSION, SPEC
from sim.setup import parse_rules_id
from sim.trace import replay, to_jsonl


def _same_header(now: dict, stored: dict) -> bool:
    """The first event names the same game: the same rule set and knobs, where a knob the
    stored file does not list (added since) must be at its default; everything else equal."""
    a, b = dict(now), dict(stored)
    if parse_rules_id(a.pop("rules_id")) != parse_rules_id(b.pop("rules_id")):
        return False
    ra, rb = a.pop("rules"), b.pop("rules")
    if any(ra[k] != (rb[k] if k in rb else SPEC.defaults[k]) for k in ra) or set(rb) - set(ra):
        return False
    return a == b


def _stored(case) -> list[str]:
    return (HERE / name(*case)).read_text().splitlines()


def test_moon_golden_games_are_unchanged():
    assert (HERE / "VERSION").read_text().strip() == str(RULES_VERSION), (
        "Moon's RULES_VERSION changed: regenerate with python tests/golden/moon/regenerate.py"
    )
    for case in CASES:
        _, rules, seats, seed, game = case
        stored = _stored(case)
        now = to_jsonl(replay(rules, seats, seed=seed, game=game)).splitlines()
        assert _same_header(json.loads(now[0]), json.loads(stored[0])), name(*case)
        assert now[1:] == stored[1:], (
            f"{name(*case)} changed: if intended, bump Moon's RULES_VERSION and regenerate"
        )
        assert audit([json.loads(x) for x in stored]) == []


def test_moon_golden_games_cover_the_presets_policies_and_endings():
    """What the golden games hold: every preset and built-in policy, knobs set away from their
    preset, a moon bid, a redealt hand, a forced last bid and a game won by a moon."""
    ids = [parse_rules_id(rules) for _, rules, *_ in CASES]
    assert {r.preset for r in ids} >= set(SPEC.presets)
    assert any(r.overrides for r in ids)
    assert {p for _, _, seats, *_ in CASES for p in seats.split(",")} == set(POLICIES)
    games = [[json.loads(x) for x in _stored(case)] for case in CASES]
    flat = [e for ev in games for e in ev]
    assert any(e["type"] == "bid" and e.get("bid") == 21 for e in flat)
    assert any(e["type"] == "redeal" for e in flat)
    assert any(ev[-1]["reason"] == "moon" for ev in games)
    forced = False
    for ev in games:
        by_hand: dict = {}
        for e in ev:
            if e["type"] == "bid":
                by_hand.setdefault(e["hand"], []).append(e["bid"])
        forced |= any(b[:2] == ["pass", "pass"] and b[2] != "pass" for b in by_hand.values())
    assert forced

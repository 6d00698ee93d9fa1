"""Issue "Every game can be replayed and audited": traces, replay, the independent auditor,
golden games."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from golden.regenerate import CASES, name
from golden.regenerate import HERE as GOLDEN

import sim
from sim.games import get_game
from sim.loba import auditor
from sim.loba.rules import PRESETS, RULES_VERSION
from sim.trace import replay, to_jsonl, to_text

ROOT = Path(__file__).parent.parent
POLICIES = list(get_game("loba").policies)  # the registry: a new policy is covered


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_auditor_passes_every_trace(preset, policy, n):
    """9 games per preset x policy x players: 324 audited games in CI."""
    seats = ",".join([policy] * n)
    for game in range(9):
        problems = auditor.audit_events(replay(preset, seats, seed=500 + n, game=game))
        assert problems == [], problems[:5]


def test_auditor_passes_mixed_seats_and_variants():
    cases = [
        ("pagat(go_out_needs_discard=true,reshuffle_keep_top=false)", "greedy,random,hold"),
        ("pagat(score_floor=0,rebuy_with_one_survivor=true,max_rebuys=5)", "greedy,greedy,random"),
        (
            "classic(joker_end_move=false,layoff_requires_own_meld=false)",
            "hold,greedy,random,greedy",
        ),
        ("rami(max_turns_per_round=30,max_rounds_per_game=5)", "random,random,random"),
    ]
    for rules, seats in cases:
        for game in range(4):
            problems = auditor.audit_events(replay(rules, seats, seed=77, game=game))
            assert problems == [], (rules, game, problems[:5])


def test_replay_is_the_same_game_as_in_the_batch():
    batch = sim.simulate("rami", "greedy,hold,random", games=40, seed=21)
    for game in (0, 17, 39):
        end = replay("rami", "greedy,hold,random", seed=21, game=game)[-1]
        row = batch.games.row(game, named=True)
        assert (end["winner"], end["rounds"], end["pot"]) == (
            row["winner"],
            row["rounds"],
            row["pot"],
        )


def _one_trace():
    return replay("pagat", "greedy,hold,random,greedy", seed=5, game=0)


def _tamper(events, kind, fn):
    ev = copy.deepcopy(events)
    for e in ev:
        if e["type"] == kind and fn(e):
            return ev
    raise AssertionError(f"no {kind} event to tamper with")


@pytest.mark.parametrize(
    "kind, change, rule",
    [
        ("draw", lambda e: e.update(card="JK" if e["card"] != "JK" else "2S") or True, "[A10]"),
        ("score", lambda e: e["penalties"].__setitem__(0, e["penalties"][0] + 1) or True, "[A27]"),
        ("rebuy", lambda e: e.update(score=e["score"] - 1) or True, "[A30]"),
        ("discard", lambda e: e.update(card="JK") or True, "does not hold"),
        ("deal", lambda e: e.update(dealer=(e["dealer"] + 1) % 4) or True, "[A5]"),
    ],
)
def test_auditor_catches_a_tampered_trace(kind, change, rule):
    events = _one_trace()
    assert auditor.audit_events(events) == []
    bad = _tamper(events, kind, change)
    problems = auditor.audit_events(bad)
    assert problems and any(rule in p for p in problems), problems[:3]


def test_auditor_catches_a_dropped_event():
    events = _one_trace()
    i = next(i for i, e in enumerate(events) if e["type"] == "draw" and e["round"] == 2)
    problems = auditor.audit_events(events[:i] + events[i + 1 :])
    assert problems


def test_auditor_catches_an_illegal_meld_and_layoff():
    events = _one_trace()
    i = next(i for i, e in enumerate(events) if e["type"] == "meld" and e["kind"] == "escalera")
    bad = copy.deepcopy(events)
    bad[i]["as"] = list(reversed(bad[i]["as"]))
    assert any("[A16]" in p or "listed" in p for p in auditor.audit_events(bad))
    j = next(i for i, e in enumerate(events) if e["type"] == "layoff" and e["end"] is not None)
    bad = copy.deepcopy(events)
    bad[j]["position"] = bad[j]["position"] + 5
    assert any("[A21]" in p for p in auditor.audit_events(bad))


def _same_header(now: dict, stored: dict) -> bool:
    """The header names the same game: the same rule set (an id from before the ``loba:``
    prefix reads as Loba's) and the same knobs, where a knob the stored file does not list
    (added since) must be at its default; everything else equal."""
    from sim.rules import parse_rules_id

    a, b = dict(now), dict(stored)
    if parse_rules_id(a.pop("rules_id"), "loba") != parse_rules_id(b.pop("rules_id"), "loba"):
        return False
    ra, rb = a.pop("rules"), b.pop("rules")
    spec = parse_rules_id(now["rules_id"]).spec
    if any(ra[k] != (rb[k] if k in rb else spec.defaults[k]) for k in ra) or set(rb) - set(ra):
        return False
    return a == b


def test_golden_games_are_unchanged():
    assert (GOLDEN / "VERSION").read_text().strip() == str(RULES_VERSION), (
        "RULES_VERSION changed: regenerate with python tests/golden/regenerate.py"
    )
    for preset, seats, seed, game in CASES:
        stored = [
            json.loads(x)
            for x in (GOLDEN / name(preset, seats, seed, game)).read_text().splitlines()
        ]
        now = json.loads(
            "[" + ",".join(to_jsonl(replay(preset, seats, seed=seed, game=game)).splitlines()) + "]"
        )
        assert _same_header(now[0], stored[0]) and now[1:] == stored[1:], (
            f"{name(preset, seats, seed, game)} changed: if intended, bump RULES_VERSION and "
            "regenerate"
        )
        assert auditor.audit_events(stored) == []


def test_trace_schema_fields():
    events = _one_trace()
    required = {
        "game": {"rules_id", "rules", "seed", "game", "players", "seats", "dealer"},
        "deal": {"round", "dealer", "hands", "upcard", "stock"},
        "draw": {"round", "seat", "from", "card"},
        "meld": {"round", "seat", "meld", "kind", "cards"},
        "layoff": {"round", "seat", "meld", "card", "end", "joker_moved"},
        "discard": {"round", "seat", "card"},
        "out": {"round", "seat", "one_turn"},
        "score": {"round", "penalties", "scores"},
        "end": {"winner", "rounds", "pot"},
    }
    seen = {e["type"] for e in events}
    assert required.keys() <= seen
    for e in events:
        assert required.get(e["type"], set()) <= e.keys()
    assert events[0]["type"] == "game" and events[-1]["type"] == "end"
    text = to_text(events)
    assert "goes out" in text and "wins the pot" in text


def test_replay_and_audit_from_the_command_line(tmp_path):
    trace = tmp_path / "t.jsonl"
    run = [sys.executable, "-c", "import cli; cli.run()"]
    out = subprocess.run(
        run
        + [
            "replay",
            "--rules",
            "classic",
            "--seats",
            "greedy,hold",
            "--seed",
            "3",
            "--game",
            "4",
            "--format",
            "jsonl",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0
    trace.write_text(out.stdout)
    res = subprocess.run(run + ["audit", str(trace)], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0 and res.stdout.strip() == "ok"
    lines = out.stdout.splitlines()
    lines = [ln for ln in lines if '"type":"discard"' not in ln]  # drop every discard
    trace.write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [sys.executable, "-m", "sim.loba.auditor", str(trace)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1 and res.stdout.strip()
    txt = subprocess.run(
        run + ["replay", "--seats", "greedy,hold", "--seed", "3", "--game", "4", "--round", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert txt.returncode == 0 and "== Round 2" in txt.stdout and "== Round 1" not in txt.stdout

"""Moon's rule set declaration, tables, check helpers and trace output."""

from __future__ import annotations

import json

import pytest

from sim.moon.auditor import audit
from sim.moon.check import legal_tiles, parse_contract, trick_winner_explained
from sim.moon.layout import DOUBLES, NO_TRUMP
from sim.moon.play import record
from sim.moon.rules import RULE, SPEC
from sim.moon.schema import GAMES, GR, HANDS, HR, SEATS, SR
from sim.moon.tiles import TileError
from sim.moon.trace import to_jsonl, to_text
from sim.rules import RuleError

KNOBS = {
    "all_pass": ("redeal", "B4"),
    "trump_before_widow": (False, "B5"),
    "allow_doubles_trump": (True, "B5"),
    "made_scores": ("tricks", "B9"),
    "moon": ("points", "B9"),
    "target": (21, "B10"),
    "max_hands_per_game": (500, "B11"),
}


def test_rules_every_knob_of_part_b_with_its_default():
    assert {k.name: (k.default, k.rule) for k in SPEC.knobs} == KNOBS
    assert SPEC.game == "moon" and SPEC.default_preset == "gamerules"
    assert SPEC.min_players == SPEC.max_players == 3
    assert RULE.SIZE == len(KNOBS)


def test_rules_presets_b6():
    assert SPEC.make().id == "moon:gamerules"
    p = SPEC.make("pagat")
    assert p.trump_before_widow is True and p.allow_doubles_trump is False
    b = SPEC.make("bid")
    assert b.made_scores == "bid" and b.all_pass == "force_last"
    assert SPEC.parse("moon:pagat(target=31)").target == 31
    assert SPEC.parse("bid(moon=instant)").id == "moon:bid(moon=instant)"
    arr = SPEC.make("bid", target=31).to_array()
    assert arr[RULE.TARGET] == 31 and arr[RULE.ALL_PASS] == 1 and arr[RULE.MADE_SCORES] == 1


def test_rules_refusals():
    with pytest.raises(RuleError, match="target"):
        SPEC.make(target=0)
    with pytest.raises(RuleError, match="all_pass"):
        SPEC.make(all_pass="shuffle")
    with pytest.raises(RuleError, match="preset"):
        SPEC.make("texas")
    with pytest.raises(RuleError):
        SPEC.parse("loba:pagat")


def test_tables_declare_the_kernel_layouts():
    assert GR.SIZE == sum(c.from_kernel for c in GAMES.columns)
    assert SR.SIZE == sum(c.from_kernel for c in SEATS.columns)
    assert HR.SIZE == sum(c.from_kernel for c in HANDS.columns)
    assert HANDS.level == "detail" and not HANDS.per_seat and HANDS.count_from == "hands"
    assert GAMES.empty_array(4, 3).shape == (4, GR.SIZE)
    assert SEATS.empty_array(4, 3).shape == (4, 3, SR.SIZE)
    assert HANDS.empty_array(4, 3, 10).shape == (4, 10, HR.SIZE)
    assert "hands" in GAMES.names and "bad_answers" in SEATS.names


def test_check_trick_winner_explained():
    w, why = trick_winner_explained("5", "6-4 5-5 6-6")
    assert w == 1 and "5-5" in why and "[B8]" in why
    w, why = trick_winner_explained("none", "4-6 6-5 6-6")
    assert w == 2 and "double" in why
    w, why = trick_winner_explained("doubles", "6-4 6-5 0-0")
    assert w == 2 and "only trump" in why
    w, why = trick_winner_explained("3", "6-4 2-1 5-1")
    assert w == 0 and "nobody else followed" in why
    w, why = trick_winner_explained("3", "6-4 2-1 6-5")
    assert w == 2 and "highest 6" in why
    with pytest.raises(TileError, match="3 tiles"):
        trick_winner_explained("3", "6-4 2-1")
    with pytest.raises(TileError, match="not a trump"):
        trick_winner_explained("seven", "6-4 2-1 5-1")


def test_check_legal_tiles():
    assert legal_tiles("none", "6-4", "4-4 1-6 2-4") == ["6-1"]
    assert legal_tiles("4", "6-6", "6-4 1-4 6-1 2-2") == ["6-1"]
    assert legal_tiles("4", "4-3", "6-1 1-4 2-2 4-4") == ["4-1", "4-4"]
    assert legal_tiles("doubles", "", "2-1 6-6") == ["2-1", "6-6"]
    assert legal_tiles("0", "-", "1-2") == ["2-1"]
    assert parse_contract("none") == NO_TRUMP and parse_contract("Doubles") == DOUBLES
    with pytest.raises(TileError):
        legal_tiles("4", "6-6", "6-6 1-1")


def test_trace_json_and_text():
    g = record("gamerules", ["count", "greedy", "random"], 4, 1)
    ev = g.events()
    assert audit(ev) == []
    assert ev[0]["type"] == "game" and ev[-1]["type"] == "end"
    lines = to_jsonl(ev).splitlines()
    assert [json.loads(x) for x in lines] == ev
    txt = to_text(ev)
    assert "Hand 1" in txt and "widow" in txt and "trick 1:" in txt
    types = {e["type"] for e in ev}
    assert {"game", "deal", "bid", "play", "trick", "end"} <= types


def test_auditor_catches_tampering():
    ev = record("gamerules", ["count"] * 3, 4, 2).events()
    assert audit(ev) == []
    play = next(i for i, e in enumerate(ev) if e["type"] == "trick")
    bad = [dict(e) for e in ev]
    bad[play]["winner"] = (bad[play]["winner"] + 1) % 3
    assert any("[B8]" in m for m in audit(bad))
    bad = [dict(e) for e in ev]
    sc = next(i for i, e in enumerate(bad) if e["type"] == "score")
    bad[sc]["deltas"] = [d + 1 for d in bad[sc]["deltas"]]
    assert any("[B9]" in m for m in audit(bad))
    bad = [dict(e) for e in ev]
    dl = next(i for i, e in enumerate(bad) if e["type"] == "deal")
    bad[dl]["opener"] = (bad[dl]["opener"] + 1) % 3
    assert any("[B4]" in m for m in audit(bad))
    bad = [e for e in ev if e["type"] != "end"]
    assert audit(bad) == ["The trace has no end event."]

"""Moon positions as files (sim/moon/position.py): loading, the one-sentence refusals,
`loba moves`, and `loba replay --position` from each phase, audited by sim/moon/auditor.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cli
from sim.moon.auditor import audit
from sim.moon.position import load_position, moves, replay_position
from sim.moon.tiles import parse_tile
from sim.position import PositionError

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "moon_play.toml"

# the deal behind every position below: seat 1 passes, seat 2 bids 5, seat 0 bids 21;
# seat 0 takes the widow 5-4, discards 3-1, names 6s
DEALT = [
    "6-6 6-5 6-4 5-5 4-4 1-1 3-1",
    "6-3 6-2 6-1 4-3 3-3 2-1 0-0",
    "5-3 5-2 5-1 4-2 4-1 3-2 2-2",
]
PLAY = {  # examples/moon_play.toml as a dict: seat 0 leads the third trick
    "game": "moon",
    "hand": 4,
    "opener": 1,
    "scores": [12, 9, 15],
    "phase": "play",
    "hands": ["6-4 5-5 5-4 4-4 1-1", "6-3 4-3 3-3 2-1 0-0", "5-3 5-2 5-1 4-2 4-1"],
    "widow": "5-4",
    "bids": ["pass", 5, 21],
    "trump": "6",
    "discard": "3-1",
    "tricks": [{"leader": 0, "tiles": "6-6 6-1 2-2"}, "6-5 6-2 3-2"],
}
BID = {"game": "moon", "phase": "bid", "opener": 1, "hands": DEALT, "widow": "5-4"}
BID["bids"] = ["pass"]
DECLARE = {**BID, "phase": "declare", "bids": ["pass", 5, 21]}


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def toml(v) -> str:
    """A value as TOML (inline tables for dicts)."""
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(toml(x) for x in v) + "]"
    return json.dumps(v)


def replayed(position, **kw) -> list[dict]:
    """The replay's events, checked clean by the auditor and ending with a finished hand
    (scored, or void when all passed)."""
    events = replay_position(position, **kw)
    assert audit(events) == []
    assert events[1]["type"] == "position" and events[-1]["type"] in ("stop", "end")
    assert any(e["type"] in ("score", "redeal") for e in events)
    return events


def test_the_example_loads_lists_its_moves_replays_and_audits_clean(capsys, tmp_path):
    pos = load_position(EXAMPLE)
    assert (pos.to_move, pos.bidder, pos.bid, pos.first_bidder) == (0, 0, 21, 1)
    assert [tr.winner for tr in pos.tricks] == [0, 0]
    code, out, _ = run(capsys, "moves", EXAMPLE)
    assert code == 0
    assert "seat 0 leads trick 3 (6s are trump): any tile [B7]" in out
    assert "5 options at phase 'play'" in out and "play 6-4" in out
    code, out, _ = run(capsys, "moves", EXAMPLE, "--json")
    m = json.loads(out)
    assert [o["play"] for o in m["options"]] == ["1-1", "4-4", "5-4", "5-5", "6-4"]
    assert m["tricks"] == [2, 0, 0] and m["trump"] == "6"
    code, out, _ = run(capsys, "replay", "--position", EXAMPLE, "--seed", "1")
    assert code == 0 and "from a set-up position at phase play, seat 0 to move" in out
    assert "trick 2: 0:6-5 1:6-2 2:3-2 -> seat 0" in out  # the position's tricks, then play on
    assert "trick 7:" in out and "seat 0 bid 21, took" in out
    code, out, _ = run(capsys, "replay", "--position", EXAMPLE, "--format", "jsonl")
    trace = tmp_path / "p.jsonl"
    trace.write_text(out)
    assert run(capsys, "audit", trace)[:2] == (0, "ok\n")


def test_b7_moves_mid_trick_say_who_must_follow():
    """Seat 0 led 6-4 (trump): seat 1 must follow with its last trump; seat 2, with none, may
    play any tile."""
    pos = {**PLAY, "hands": ["5-5 5-4 4-4 1-1", *PLAY["hands"][1:]], "current": "6-4"}
    m = moves(load_position(pos))
    assert m["seat"] == 1 and [o["play"] for o in m["options"]] == ["6-3"]
    assert "must follow trumps" in m["why"]
    pos = {**pos, "hands": [pos["hands"][0], "4-3 3-3 2-1 0-0", PLAY["hands"][2]]}
    pos["current"] = "6-4 6-3"
    m = moves(load_position(pos))
    assert m["seat"] == 2 and m["n"] == 5 and "cannot follow, so may play any tile" in m["why"]


def test_b4_b5_moves_of_the_auction_and_the_declaration():
    m = moves(load_position(BID))
    assert m["seat"] == 2 and [o["bid"] for o in m["options"]] == ["pass", 4, 5, 6, 7, 21]
    forced = {**BID, "rules": "bid", "bids": ["pass", "pass"]}
    m = moves(load_position(forced))
    assert m["seat"] == 0 and "pass" not in [o["bid"] for o in m["options"]]
    assert "may not pass" in m["why"]
    m = moves(load_position(DECLARE))  # 8 tiles (the widow too) x 9 contracts
    assert m["decision"] == "declare" and m["n"] == 72 and m["takes_widow"] == "5-4"
    tbw = {**DECLARE, "rules": "pagat"}  # trump first, no doubles
    m = moves(load_position(tbw))
    assert m["decision"] == "trump" and [o["trump"] for o in m["options"]] == [
        *"0123456",
        "no_trump",
    ]
    taken = {**tbw, "trump": "6", "widow_taken": True}
    taken["hands"] = [DEALT[0] + " 5-4", *DEALT[1:]]
    m = moves(load_position(taken))
    assert m["decision"] == "discard" and m["n"] == 8 and "takes_widow" not in m


@pytest.mark.parametrize(
    "position",
    [
        pytest.param(BID, id="bid"),
        pytest.param({**BID, "rules": "bid", "bids": ["pass", "pass"]}, id="bid-forced"),
        pytest.param(DECLARE, id="declare"),
        pytest.param({**DECLARE, "rules": "pagat"}, id="declare-trump-first"),
        pytest.param(
            {
                **DECLARE,
                "rules": "pagat",
                "trump": "6",
                "widow_taken": True,
                "hands": [DEALT[0] + " 5-4", *DEALT[1:]],
            },
            id="declare-discard",
        ),
        pytest.param(
            {**PLAY, "hands": ["5-5 5-4 4-4 1-1", *PLAY["hands"][1:]], "current": "6-4"},
            id="play-mid-trick",
        ),
    ],
)
def test_replay_from_each_phase_ends_the_hand_and_audits_clean(position):
    events = replayed(position, seats="random,count,greedy", seed=2)
    last = events[-1]  # the hand is over: the replay stops, or the game ended with it
    assert last["hand"] == position.get("hand", 1) and last["type"] in ("stop", "end")
    assert not any(e["type"] == "deal" for e in events)  # the hand goes on, nothing is dealt
    if position["phase"] == "bid":
        calls = [e for e in events if e["type"] == "bid"]
        assert [c["seat"] for c in calls][0] == (position["opener"] + len(position["bids"])) % 3
    if position["phase"] == "declare":
        widow = [e for e in events if e["type"] == "widow"]
        assert len(widow) == (0 if position.get("widow_taken") else 1)


def test_replay_to_the_game_end_deals_new_hands_and_audits_clean():
    """Seat 2 bid 4: nobody can reach 21 this hand, so new hands are dealt."""
    events = replayed({**DECLARE, "bids": ["pass", 4, "pass"]}, seed=3, to_game_end=True)
    assert events[-1]["type"] == "end" and events[-1]["hands"] > 1
    assert [e["hand"] for e in events if e["type"] == "deal"][0] == 2


def test_the_seed_varies_only_the_policies_choices():
    """Every tile of the hand is known: the seed changes what random seats choose, never the
    tiles (the position event, and so every hand, is the same)."""
    runs = [replay_position(BID, seats="random,random,random", seed=s) for s in range(6)]
    assert all(r[1] == runs[0][1] for r in runs)
    plays = {tuple((e["seat"], e["tile"]) for e in r if e["type"] == "play") for r in runs}
    assert len(plays) > 1
    for r in runs:
        assert audit(r) == []
        dealt = {parse_tile(t) for h in r[1]["hands"] for t in h} | {parse_tile(r[1]["widow"])}
        assert len(dealt) == 22
    again = replay_position(BID, seats="random,random,random", seed=4)
    assert again == runs[4]


def test_a_tampered_position_trace_is_caught_by_the_auditor():
    events = replay_position(EXAMPLE, seed=1)
    bad = json.loads(json.dumps(events))
    bad[1]["tricks"][0]["tiles"] = ["6-6", "0-0", "2-2"]  # seat 1 held 6-1: must follow trumps
    bad[1]["hands"][1] = ["6-3", "4-3", "3-3", "2-1", "6-1"]
    assert any("could follow trump" in p for p in audit(bad))
    bad = json.loads(json.dumps(events))
    bad[1]["hands"][2].append("3-1")  # a 23rd tile
    assert any("not the 22-tile set" in p for p in audit(bad))
    bad = json.loads(json.dumps(events))
    bad[1]["scores"] = [0, 0, 0]
    assert any("scores" in p for p in audit(bad))


@pytest.mark.parametrize(
    "change, needle",
    [
        (
            {"hands": ["6-4 5-5 5-4 4-4 1-1", "6-3 4-3 3-3 2-1 0-0", "5-3 5-2 5-1 4-2 6-4"]},
            "'hands[2]' holds 6-4, which 'hands[0]' holds already",
        ),
        (
            {"hands": ["6-4 5-5 5-4 4-4 3-0", *PLAY["hands"][1:]]},
            "'hands[0]': '3-0' is not in the 22-tile set",
        ),
        (
            {"hands": ["6-4 5-5 5-4 4-4", *PLAY["hands"][1:]]},
            "No field holds 1-1: each of the 22 tiles",
        ),
        (
            {"hands": ["6-4 5-5 5-4 4-4 1-1 0-0", "6-3 4-3 3-3 2-1", PLAY["hands"][2]]},
            "'hands[0]' holds 6 tiles, but seat 0 holds 5 here",
        ),
        ({"bids": ["pass", 5, 4]}, "'bids[2]' = 4 does not raise the high bid 5 [B4]"),
        ({"bids": [21, "pass"]}, "'bids[1]' comes after the auction ended"),
        ({"bids": ["pass", 3, 21]}, "'bids[1]' = 3 is not a call"),
        ({"bids": ["pass", "pass", "pass"]}, "'bids': all three passed"),
        ({"bids": ["pass", 5]}, "'phase' = \"play\", but the auction is still going"),
        (
            {
                "tricks": ["6-6 0-0 2-2", "6-5 6-2 3-2"],
                "hands": ["6-4 5-5 5-4 4-4 1-1", "6-3 4-3 3-3 2-1 6-1", PLAY["hands"][2]],
            },
            "'tricks[0]': seat 1 played 0-0 to a lead of 6-6 although it held 6-1 6-2 6-3, so"
            " it had to follow trumps [B7]",
        ),  # fmt: skip
        (
            {"tricks": ["6-6 6-1 2-2", {"leader": 1, "tiles": "6-5 6-2 3-2"}]},
            "'tricks[1].leader' = 1, but seat 0 won trick 1 and leads [B7]",
        ),
        ({"phase": "shuffle"}, "'phase' must be one of bid, declare, play"),
        ({"phase": "bid"}, "'discard' is only for phase \"play\""),
        ({"trump": "doubles", "rules": "pagat"}, "'trump' = \"doubles\" is not allowed"),
        ({"trump": "purple"}, "'trump': 'purple' is not a trump"),
        ({"widow_taken": False}, "'widow_taken' = false cannot be at phase \"play\""),
        ({"widow": "3-3"}, "'widow' 3-3 was taken, so the bidder (seat 0) holds it"),
        (
            {
                "hands": ["5-5 5-4 4-4 1-1", "4-3 3-3 2-1 0-0", "5-3 5-2 5-1 4-2"],
                "current": "6-4 6-3 4-1",
            },
            "'current' holds 3 tiles",
        ),  # fmt: skip
        ({"scores": [25, 9, 15]}, "'scores': seat 0 alone has the highest score, 25"),
        ({"opener": 3}, "'opener' must be a whole number from 0 to 2"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"game": "chess"}, "'game' = 'chess' is not a game"),
    ],
)
def test_a_bad_position_is_refused_in_one_sentence_naming_the_field(
    capsys, tmp_path, change, needle
):
    data = {**PLAY, **change}
    if change.get("game") is None:
        with pytest.raises(PositionError) as e:
            load_position(data)
        assert needle in str(e.value) and "\n" not in str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text("\n".join(f"{k} = {toml(v)}" for k, v in data.items()))
    code, _, err = run(capsys, "moves", f)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "replay", "--position", f)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_tie_at_the_top_above_the_target_plays_on():
    """[B10] an exact tie for the highest score at or above the target plays another hand."""
    assert load_position({**PLAY, "scores": [25, 25, 3]}).scores == [25, 25, 3]


def test_loba_only_options_are_refused_for_a_moon_position(capsys):
    code, _, err = run(capsys, "moves", EXAMPLE, "--after-draw", "9H")
    assert code == 2 and "--after-draw is for Loba positions" in err
    code, _, err = run(capsys, "replay", "--position", EXAMPLE, "--game", "loba")
    assert code == 2 and "leave out" in err

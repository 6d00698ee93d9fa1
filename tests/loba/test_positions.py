"""Positions as files (sim/loba/position.py): loading, the one-sentence refusals, `loba moves`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cli
from sim.loba.cards import JOKER, parse_card
from sim.loba.layout import MELD, G, M
from sim.loba.position import PositionError, load_position, moves

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "one_turn.toml"
BASE = {
    "rules": "pagat",
    "dealer": 2,
    "to_move": 0,
    "hands": [
        "4H 5H 6H 7H 8H 3S 3D 3C KD",
        "2C 4C 6C 8C 10C QC 2D 4D 6D",
        "AS 3H 5S 7S 9S JS KS AD 5D",
    ],
    "pile": "8D",
    "stock": "9H",
}


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_readme_example_loads_and_lists_its_moves(capsys):
    pos = load_position(EXAMPLE)
    assert pos.n == 3 and pos.to_move == 0 and pos.stock[0] == parse_card("9H")
    assert len(pos.stock) == 108 - 27 - 1  # the cards not named follow in canonical order
    code, out, _ = run(capsys, "moves", EXAMPLE, "--after-draw", "9H")
    assert code == 0
    assert "put down escalera 4H 5H 6H 7H 8H 9H" in out and "put down pierna 3S 3D 3C" in out
    code, out, _ = run(capsys, "moves", EXAMPLE, "--json")
    m = json.loads(out)
    assert m["phase"] == "draw" and [o["draw"] for o in m["options"]] == ["stock", "discard"]
    assert m["options"][1] == {
        "draw": "discard",
        "card": "8D",
        "takeable": False,
        "why": "no play this turn could put it on the table, so it may not be taken [A11]/[A12]",
    }


def test_a11_a_takeable_discard_is_listed_as_takeable():
    pos = load_position({**BASE, "pile": "9H", "stock": "KC"})
    take = moves(pos)["options"][1]
    assert take["card"] == "9H" and take["takeable"] is True


def test_position_puts_every_card_where_the_file_says():
    pos = load_position(
        {
            **BASE,
            "to_move": 1,
            "hands": ["4H 5H 6H 3S 3D 3C", BASE["hands"][1], BASE["hands"][2]],
            "table": [{"cards": "9S 10S JK(JS)", "owner": 0}, {"cards": "KH KD KC", "owner": 0}],
            "placed": [0],
            "scores": [10, 20, 30],
            "rebuys": [1, 0, 0],
        }
    )
    g = pos.game()
    assert g.current == 1 and g.dealer == 2 and g.scores() == [10, 20, 30]
    esc = g.st.melds[0]
    assert esc[M.KIND] == MELD.ESCALERA and (esc[M.LO], esc[M.HI]) == (9, 11)
    assert esc[M.JMASK] == 1 << 11  # the joker stands for JS, as written
    assert g.st.melds[1, M.KIND] == MELD.PIERNA and int(g.st.g[G.NMELDS]) == 2
    assert g.pot == 3 + 1  # three stakes and one rebuy
    assert g.card_census().tolist() == [2] * 52 + [4]


def test_a18_a_bare_joker_gets_the_engines_reading():
    hands = [BASE["hands"][0], "2C 4C 6C 8C 10C QC", BASE["hands"][2]]  # (9 less its meld)
    pos = load_position({**BASE, "hands": hands, "table": [{"cards": "5S 6S JK", "owner": 1}]})
    m = pos.table[0]
    assert m.cards == [parse_card("5S"), parse_card("6S"), JOKER]
    assert m.stands[-1] == parse_card("7S")  # [A18] the high end by default


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"pile": "8D JK JK JK JK JK"}, "one JK too many: the deck has 4"),
        (
            {"hands": ["4H 5H 6H 7H 8H 3S 3D 3C KD", "2C 4C 6C 8C 10C QC 2D 4D 6D 6D 6D", "AS"]},
            "one 6D too many",
        ),
        (
            {"table": ["KS KH KD KC"], "melded": [0], "placed": [0]},
            "'table[0]' is not a legal meld: [A15] a pierna must use exactly three different suits",
        ),
        ({"table": ["5S 7S JK(9S)"], "melded": [0]}, "do not make one run"),
        (
            {"hands": ["4H 5H 6H 7H 8H 3S 3D 3C", BASE["hands"][1], BASE["hands"][2]]},
            "'hands[0]' holds 8 cards, but seat 0 has put nothing on the table",
        ),
        (
            {
                "hands": ["4H 5H 6H 7H 8H 3S 3D 3C KD QD", BASE["hands"][1], BASE["hands"][2]],
                "placed": [0],
            },
            "'hands[0]' holds 10 cards, more than a game can give it",
        ),
        (
            {
                "hands": ["4H 5H 6H 7H 8H 3S 3D 3C KD", BASE["hands"][1], BASE["hands"][2]],
                "table": ["9C 9D 9H"],
                "melded": [0],
                "placed": [0],
            },
            "'hands[0]' holds 9 cards, but seat 0 has put cards on the table this round, a meld"
            " of at least 3 first, so it holds at most 6 [A9][A15][A16]",
        ),
        ({"hands": [""] + BASE["hands"][1:]}, "an active seat with no cards would have gone out"),
        ({"phase": "shuffle"}, "'phase' must be one of draw, play, discard"),
        ({"dealer": 7}, "'dealer' must be a whole number from 0 to 2"),
        ({"rules": "klondike"}, "Unknown Loba preset 'klondike'"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"status": ["active", "gone", "active"]}, "'status' must give"),
    ],
)
def test_a_bad_position_is_refused_in_one_sentence_naming_the_field(
    capsys, tmp_path, change, needle
):
    with pytest.raises(PositionError, match=None) as e:
        load_position({**BASE, **change})
    assert needle in str(e.value) and "\n" not in str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text("\n".join(f"{k} = {json.dumps(v)}" for k, v in {**BASE, **change}.items()))
    code, _, err = run(capsys, "moves", f)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_a_file_that_is_not_toml_or_missing_is_one_sentence(capsys, tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text("hands = [\n")
    code, _, err = run(capsys, "moves", f)
    assert code == 2 and "is not valid TOML" in err
    code, _, err = run(capsys, "moves", tmp_path / "none.toml")
    assert code == 2 and "does not exist" in err


def test_a28_the_readme_example_replays_to_a_one_turn_out_and_audits_clean(capsys, tmp_path):
    from sim.loba.auditor import audit_events

    code, out, _ = run(capsys, "replay", "--position", EXAMPLE, "--seed", "1")
    assert code == 0 and "from a set-up position" in out
    assert "seat 0 goes out in one turn (-10 bonus)" in out
    assert "stops at the end of the round" in out
    code, out, _ = run(
        capsys, "replay", "--position", EXAMPLE, "--seed", "4", "--to-game-end", "--format", "jsonl"
    )
    events = [json.loads(line) for line in out.splitlines()]
    assert events[1]["type"] == "position" and events[-1]["type"] == "end"
    assert audit_events(events) == []
    trace = tmp_path / "p.jsonl"
    trace.write_text(out)
    assert run(capsys, "audit", trace)[:2] == (0, "ok\n")


def test_the_seed_orders_only_the_stock_cards_the_file_leaves_open():
    a = load_position(EXAMPLE, shuffle=1).stock
    b = load_position(EXAMPLE, shuffle=2).stock
    assert a[0] == b[0] == parse_card("9H")  # named: stays on top
    assert a != b and sorted(a) == sorted(b)


def test_a_tampered_position_trace_is_caught_by_the_auditor():
    from sim.loba.auditor import audit_events
    from sim.loba.trace import replay_position

    events = replay_position(EXAMPLE, seed=1)
    events[1]["hands"][0].append("KD")  # a 109th card
    assert any("cards not conserved" in p for p in audit_events(events))


# ---------------------------------------------------------------- play on from mid-turn

AFTER_DRAW = {
    **BASE,
    "phase": "play",
    "hands": ["4H 5H 6H 7H 8H 9H 3S 3D 3C KD", *BASE["hands"][1:]],
}
AT_DISCARD = {
    **BASE,
    "phase": "discard",
    "hands": ["KD", *BASE["hands"][1:]],
    "table": [
        {"cards": "4H 5H 6H 7H 8H 9H", "owner": 0},
        {"cards": "3S 3D 3C", "owner": 0},
    ],
}


def replayed(position, seed=1):
    from sim.loba.auditor import audit_events
    from sim.loba.trace import replay_position

    events = replay_position(position, seed=seed)
    assert audit_events(events) == []
    return events


def test_a28_replay_from_after_the_draw_goes_out_in_one_turn():
    """Seat 0 has drawn 9H (phase "play"): no draw event, the melds, the discard, out in one
    turn with the bonus, and the trace audits clean."""
    events = replayed(AFTER_DRAW)
    assert events[1]["phase"] == "play"
    first = events[2]
    assert first["type"] == "meld" and first["seat"] == 0
    out = next(e for e in events if e["type"] == "out")
    assert out["seat"] == 0 and out["one_turn"] is True
    assert not any(e["type"] == "draw" and e["seat"] == 0 for e in events[:5])


def test_a28_replay_from_the_discard_after_melding_this_turn():
    """Seat 0 put both melds down this turn ('melded', not 'placed'): its discard of KD goes
    out with the one-turn bonus; had it put cards down before this turn ('placed'), no bonus."""
    events = replayed(AT_DISCARD)
    assert events[2]["type"] == "discard" and events[2]["card"] == "KD"
    assert next(e for e in events if e["type"] == "out")["one_turn"] is True
    events = replayed({**AT_DISCARD, "placed": [0]})
    assert next(e for e in events if e["type"] == "out")["one_turn"] is False


def test_a12_replay_after_taking_a_discard_puts_it_down():
    """Seat 0 took 9H from the pile (phase "play", taken = "9H"): the kernel must put it on
    the table this turn ([A12]); the auditor checks it does."""
    pos = {**AFTER_DRAW, "pile": "8D", "taken": "9H"}
    events = replayed(pos)
    assert events[1]["taken"] == "9H"
    melds = [e for e in events if e["type"] == "meld" and e["seat"] == 0]
    assert melds and any("9H" in m.get("cards", []) for m in melds)


def test_replay_from_mid_turn_in_text_says_where_the_turn_stands(capsys, tmp_path):
    import tomllib  # noqa: F401  (the file below is TOML)

    f = tmp_path / "p.toml"
    hands = ", ".join(f'"{h}"' for h in AT_DISCARD["hands"])
    f.write_text(
        'phase = "discard"\ndealer = 2\nto_move = 0\npile = "8D"\nstock = "9H"\n'
        f"hands = [{hands}]\n"
        'table = [{ cards = "4H 5H 6H 7H 8H 9H", owner = 0 }, { cards = "3S 3D 3C", owner = 0 }]\n'
    )
    code, out, _ = run(capsys, "replay", "--position", f, "--seed", "1")
    assert code == 0 and "seat 0 to move (about to discard)" in out
    assert "seat 0 goes out in one turn (-10 bonus)" in out


def test_a9_a15_a16_a_seat_that_has_put_cards_down_holds_at_least_three_fewer():
    """[A9] a turn draws one card and discards one; plays only take cards away, and a seat's
    first put-down is a meld of at least three cards ([A15], [A16]): once it has put cards
    down this round it holds at most hand_size - 3 (one more while on turn after its draw)."""
    melded = {"table": [{"cards": "9C 9D 9H", "owner": 1}], "melded": [1], "placed": [1]}
    six = "2C 4C 6C 8C 10C QC"
    ok = load_position({**BASE, **melded, "hands": [BASE["hands"][0], six, BASE["hands"][2]]})
    assert len(ok.hands[1]) == 6
    seven = six + " 2D"
    with pytest.raises(PositionError) as e:
        load_position({**BASE, **melded, "hands": [BASE["hands"][0], seven, BASE["hands"][2]]})
    assert str(e.value) == (
        "'hands[1]' holds 7 cards, but seat 1 has put cards on the table this round, a meld of"
        " at least 3 first, so it holds at most 6 [A9][A15][A16]."
    )
    # the seat on turn, after its draw, in the turn it put its first meld down: 10 - 3 = 7
    mover = {**BASE, "phase": "play", "table": ["9C 9D 9H"], "melded": [0]}
    seven0 = "4H 5H 6H 7H 8H 3S KD"
    assert len(load_position({**mover, "hands": [seven0, *BASE["hands"][1:]]}).hands[0]) == 7
    with pytest.raises(PositionError, match=r"holds 8 cards.*at most 7 \[A9\]"):
        load_position({**mover, "hands": [seven0 + " 2S", *BASE["hands"][1:]]})

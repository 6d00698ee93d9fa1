"""Three-Player Moon, rules document part B: one test (or more) per rule id, on literal deals.

Scenario games use the scripted policy (:mod:`sim.moon.scripted`): each seat's parameters say
what it bids, discards, names and how it plays, so a test reads as data, not as a lucky seed.
Every scenario trace is also re-checked by the independent auditor.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.moon.auditor import audit
from sim.moon.batch import play_batch
from sim.moon.engine import game_winner, new_state
from sim.moon.layout import DOUBLES, END, NO_TRUMP, PH, G, S
from sim.moon.play import Game, deal
from sim.moon.rules import SPEC
from sim.moon.schema import GR, SR
from sim.moon.scripted import SCRIPT
from sim.moon.tiles import (
    HI,
    LO,
    N_TILES,
    TileError,
    parse_tile,
    parse_tiles,
    suit_rank,
    suit_tiles,
    suits_of,
    tile_str,
)
from sim.moon.tricks import follows, is_trump, led_suit, legal_list, trick_winner
from sim.rules import RuleError

P = parse_tile

# Seat 0 holds every trump of 6 and the 5-5: with 6 trump it takes all 7 tricks whatever the
# order of play ([B6]: 6-6 .. 6-1 are the six trumps; 5-5 heads suit 5).
LAYDOWN = deal(
    [
        "6-6 6-5 6-4 6-3 6-2 6-1 5-5",
        "0-0 1-1 2-1 2-2 3-1 3-2 3-3",
        "4-1 4-2 4-3 5-1 5-2 5-3 5-4",
    ],
    "4-4",
)
# Seat 1 holds the 6-6: with 6 trump seat 0 can take at most 6 tricks.
SHORT = deal(
    [
        "6-5 6-4 6-3 6-2 6-1 5-5 5-4",
        "6-6 0-0 1-1 2-1 2-2 3-1 3-2",
        "3-3 4-1 4-2 4-3 5-1 5-2 5-3",
    ],
    "4-4",
)


def legal(hand, led, trump):
    """The legal tiles as a set of strings (tricks.legal_list answers in id order)."""
    return {tile_str(t) for t in legal_list(parse_tiles(hand), led, trump)}


def seat(bid=0, discard=-1, trump=NO_TRUMP, play=0):
    return (SCRIPT, {"bid": bid, "discard": discard, "trump": trump, "play": play})


def scenario(seats, decks, rules="gamerules", first_bidder=0, play_all=False, **kw):
    """Play one hand (or the game) of a literal deal; the trace must pass the auditor."""
    g = Game(rules, seats, decks=decks, first_bidder=first_bidder, **kw)
    if play_all:
        g.play()
    else:
        g.play_hand()
    assert audit(g.events(), finished=g.done) == []
    return g


def events_of(g, typ, hand=None):
    return [e for e in g.events() if e["type"] == typ and (hand is None or e.get("hand") == hand)]


def checked(g):
    """The events of a finished game, after the auditor found nothing wrong."""
    ev = g.events()
    assert audit(ev) == []
    return ev


# ---------------------------------------------------------------- B.1 tiles, seats, deal


def test_b1_tile_set_is_22_tiles_without_blank_non_doubles():
    names = [tile_str(t) for t in range(N_TILES)]
    assert len(set(names)) == 22
    assert "0-0" in names
    for n in range(1, 7):
        assert f"{n}-0" not in names
    assert sorted(names) == sorted(
        f"{a}-{b}" for a in range(7) for b in range(a + 1) if b > 0 or a == 0
    )


def test_b1_notation_high_first_and_input_either_order():
    assert tile_str(P("4-6")) == "6-4"
    assert P("4-6") == P("6-4")
    assert tile_str(P("5-5")) == "5-5"
    assert [tile_str(t) for t in parse_tiles("1-2, 6-6 3-4")] == ["2-1", "6-6", "4-3"]


def test_b1_unknown_and_repeated_tiles_are_refused():
    with pytest.raises(TileError, match="not in the 22-tile set"):
        P("3-0")
    with pytest.raises(TileError, match="not a tile"):
        P("7-1")
    with pytest.raises(TileError, match="appears twice"):
        parse_tiles("6-4 4-6")
    with pytest.raises(TileError):
        deal(["6-6 6-5 6-4 6-3 6-2 6-1 5-5"] * 3, "4-4")


def test_b1_exactly_three_players():
    rs = SPEC.make()
    rs.check_players(3)
    for n in (2, 4):
        with pytest.raises(RuleError, match="exactly 3"):
            rs.check_players(n)


def test_b2_suits_and_ranks():
    assert suits_of(P("6-4")) == (6, 4)
    assert suits_of(P("5-5")) == (5,)
    assert [tile_str(t) for t in suit_tiles(5)] == ["5-5", "6-5", "5-4", "5-3", "5-2", "5-1"]
    assert [tile_str(t) for t in suit_tiles(0)] == ["0-0"]
    assert suit_rank(P("5-5"), 5) == 7
    assert suit_rank(P("5-5"), 6) == -1
    assert suit_rank(P("6-5"), 5) > suit_rank(P("5-4"), 5)


def test_b3_deal_seven_each_and_the_widow():
    g = scenario([seat(bid=4, trump=6, discard=P("4-4")), seat(), seat()], [LAYDOWN])
    d = events_of(g, "deal")[0]
    assert d["hands"][0] == ["5-5", "6-1", "6-2", "6-3", "6-4", "6-5", "6-6"]
    assert d["widow"] == "4-4"
    assert all(len(h) == 7 for h in d["hands"])
    # seeded deals: 7-7-7 + widow, every tile once
    for i in range(20):
        gg = Game("gamerules", ["random"] * 3, seed=5, index=i)
        gg.step()
        hs = [gg.hand_of(q) for q in range(3)]
        assert [len(h) for h in hs] == [7, 7, 7]
        assert len(set(sum(hs, []))) == 21
        assert int(gg.st.g[G.WIDOW]) not in sum(hs, [])


# ---------------------------------------------------------------- B.2 bidding, widow, trump


def test_b4_first_bidder_is_uniform_and_rotates_every_hand():
    games, _, hands = play_batch("gamerules", ["greedy"] * 3, seed=11, count=3000, hands_cap=20)
    counts = np.bincount(games[:, GR.FIRST_BIDDER], minlength=3)
    assert counts.sum() == 3000 and counts.min() > 880, counts
    from sim.moon.schema import HR

    for i in range(200):
        for r in range(min(int(games[i, GR.HANDS]), 20)):
            assert hands[i, r, HR.OPENER] == (games[i, GR.FIRST_BIDDER] + r) % 3


def test_b4_redeal_is_void_counts_as_a_hand_and_passes_the_opener():
    rules = SPEC.make(max_hands_per_game=5)
    g = scenario([seat(), seat(), seat()], [LAYDOWN], rules=rules, first_bidder=1, play_all=True)
    ev = checked(g)
    assert [e["opener"] for e in ev if e["type"] == "deal"] == [1, 2, 0, 1, 2]
    assert len([e for e in ev if e["type"] == "redeal"]) == 5
    assert g.scores == [0, 0, 0]
    assert g.winner is None and int(g.st.g[G.REDEALS]) == 5 and g.hand_no == 5


def test_b4_bids_must_rise_strictly():
    # seat 1 opens 5; seat 2 wants 5 too: not offered (bad answer), read as the first option
    g = scenario([seat(), seat(bid=5, trump=6), seat(bid=5)], [LAYDOWN], first_bidder=1)
    bids = [(e["seat"], e["bid"]) for e in events_of(g, "bid")]
    assert bids == [(1, 5), (2, "pass"), (0, "pass")]
    assert int(g.st.s[2, S.BAD]) == 1 and int(g.st.s[1, S.BAD]) == 0


def test_b4_moon_bid_ends_the_auction_at_once():
    g = scenario(
        [seat(bid=21, trump=6, discard=P("4-4")), seat(bid=4), seat(bid=5)],
        [LAYDOWN],
        first_bidder=2,
    )
    bids = [(e["seat"], e["bid"]) for e in events_of(g, "bid")]
    assert bids == [(2, 5), (0, 21)]  # seat 1 never speaks


def test_b4_force_last_denies_the_last_pass():
    rules = SPEC.make(all_pass="force_last")
    g = scenario([seat(trump=6), seat(), seat()], [LAYDOWN], rules=rules, first_bidder=1)
    bids = [(e["seat"], e["bid"]) for e in events_of(g, "bid")]
    assert bids == [(1, "pass"), (2, "pass"), (0, 4)]  # seat 0's pass was not offered
    assert int(g.st.s[0, S.BAD]) == 1
    assert not events_of(g, "redeal")


def test_b4_force_last_only_when_all_before_passed():
    rules = SPEC.make(all_pass="force_last")
    g = scenario([seat(), seat(bid=4, trump=6), seat()], [LAYDOWN], rules=rules, first_bidder=1)
    bids = [(e["seat"], e["bid"]) for e in events_of(g, "bid")]
    assert bids == [(1, 4), (2, "pass"), (0, "pass")]
    assert int(g.st.s[:, S.BAD].sum()) == 0


def test_b5_widow_discard_then_trump_and_the_widow_may_be_discarded():
    g = scenario([seat(bid=4, trump=6, discard=P("4-4")), seat(), seat()], [LAYDOWN])
    ev = [e for e in g.events() if e["type"] in ("widow", "discard", "trump")]
    assert [e["type"] for e in ev] == ["widow", "discard", "trump"]
    assert ev[1]["tile"] == "4-4"
    rec = g.hand_records()[0]
    assert rec["discard"] == P("4-4") and rec["widow_kept"] == 0 and rec["trump"] == 6


def test_b5_discard_of_a_hand_tile_keeps_the_widow_and_it_is_dead():
    g = scenario([seat(bid=4, trump=6, discard=P("5-5")), seat(), seat()], [LAYDOWN])
    rec = g.hand_records()[0]
    assert rec["widow_kept"] == 1 and rec["discard"] == P("5-5")
    played = [e["tile"] for e in events_of(g, "play")]
    assert "5-5" not in played and "4-4" in played and len(played) == 21


def test_b5_trump_before_widow_order():
    rules = SPEC.make(trump_before_widow=True)
    g = scenario([seat(bid=4, trump=6, discard=P("4-4")), seat(), seat()], [LAYDOWN], rules=rules)
    ev = [e for e in g.events() if e["type"] in ("widow", "discard", "trump")]
    assert [e["type"] for e in ev] == ["trump", "widow", "discard"]
    assert ev[0]["trump"] == "6" and ev[2]["tile"] == "4-4"
    assert int(g.st.s[0, S.BAD]) == 0


def test_b5_doubles_trump_allowed_or_not():
    g = scenario([seat(bid=4, trump=DOUBLES, discard=P("4-4")), seat(), seat()], [LAYDOWN])
    assert events_of(g, "trump")[0]["trump"] == "doubles" and int(g.st.s[0, S.BAD]) == 0
    rules = SPEC.make("pagat")  # allow_doubles_trump=false (and trump before widow)
    g = scenario(
        [seat(bid=4, trump=DOUBLES, discard=P("4-4")), seat(), seat()], [LAYDOWN], rules=rules
    )
    assert events_of(g, "trump")[0]["trump"] == "0"  # doubles not offered: the first option
    assert int(g.st.s[0, S.BAD]) == 1


def test_b5_trump_zero_makes_the_double_blank_the_only_trump():
    assert [tile_str(t) for t in range(N_TILES) if is_trump(t, 0)] == ["0-0"]
    # seat 0 names 0 trump though seat 1 holds the 0-0: that tile wins whatever trick it is in
    g = scenario([seat(bid=4, trump=0, discard=P("4-4")), seat(), seat()], [LAYDOWN])
    assert events_of(g, "trump")[0]["trump"] == "0"
    plays = events_of(g, "play")
    k = next(e["trick"] for e in plays if e["tile"] == "0-0")
    assert next(e for e in events_of(g, "trick") if e["trick"] == k)["winner"] == 1


# ---------------------------------------------------------------- B.3 tricks


def test_b6_number_trump_takes_tiles_out_of_their_other_suit():
    # trump 5: 6-5 is a trump, not a 6
    assert is_trump(P("6-5"), 5) and not is_trump(P("6-4"), 5)
    assert led_suit(P("6-5"), 5) == 7  # a trump lead
    assert not follows(P("6-5"), 6, 5)
    assert legal("6-5 4-1", P("6-6"), 5) == {"6-5", "4-1"}
    # ranks: n-n high, then the other number descending
    assert trick_winner(P("5-1"), P("5-5"), P("6-5"), 5) == 1
    assert trick_winner(P("5-1"), P("5-2"), P("6-5"), 5) == 2


def test_b6_doubles_trump_leave_their_suits():
    assert all(is_trump(t, DOUBLES) == (HI[t] == LO[t]) for t in range(N_TILES))
    assert trick_winner(P("6-4"), P("6-6"), P("0-0"), DOUBLES) == 1  # 6-6 high
    assert trick_winner(P("1-1"), P("0-0"), P("2-2"), DOUBLES) == 2
    assert not follows(P("6-6"), 6, DOUBLES)  # 6-6 is not a 6 any more
    assert legal("6-6 2-1", P("6-4"), DOUBLES) == {"6-6", "2-1"}


def test_b6_no_trump_doubles_top_their_suits():
    assert not any(is_trump(t, NO_TRUMP) for t in range(N_TILES))
    assert trick_winner(P("6-4"), P("6-5"), P("6-6"), NO_TRUMP) == 2
    assert trick_winner(P("6-4"), P("4-4"), P("6-1"), NO_TRUMP) == 0  # 4-4 is not a 6


def test_b7_lead_calls_higher_number_and_follow_rule():
    assert led_suit(P("6-4"), NO_TRUMP) == 6
    assert led_suit(P("3-3"), NO_TRUMP) == 3
    # 6-4 led (calls 6): a 6 must be played if held; 4-x does not follow
    assert legal("4-4 6-1 4-2", P("6-4"), NO_TRUMP) == {"6-1"}
    # a double follows only its own number: 4-4 follows 4-3 (calls 4), 3-3 does not
    assert legal("4-4 2-1", P("4-3"), NO_TRUMP) == {"4-4"}
    assert legal("3-3 2-1", P("4-3"), NO_TRUMP) == {"3-3", "2-1"}
    # trump lead must be followed with a trump if able
    assert legal("5-1 2-1 6-6", P("5-3"), 5) == {"5-1"}
    # unable to follow: anything
    assert legal("2-1 3-2", P("6-6"), NO_TRUMP) == {"2-1", "3-2"}
    # leading: anything
    assert legal("2-1 3-2", -1, 4) == {"2-1", "3-2"}


def test_b7_bidder_leads_first_then_each_winner():
    g = scenario([seat(), seat(), seat(bid=4, trump=6, play=1)], [SHORT], first_bidder=1)
    ev = g.events()
    plays = [e for e in ev if e["type"] == "play"]
    wins = [e["winner"] for e in ev if e["type"] == "trick"]
    assert plays[0]["seat"] == 2
    for k in range(1, 7):
        assert plays[3 * k]["seat"] == wins[k - 1]
        assert [p["seat"] for p in plays[3 * k : 3 * k + 3]] == [
            (wins[k - 1] + j) % 3 for j in range(3)
        ]


def test_b8_highest_trump_wins():
    assert trick_winner(P("6-4"), P("3-1"), P("3-2"), 3) == 2  # trumps 3-1, 3-2: 3-2 higher
    assert trick_winner(P("3-3"), P("6-3"), P("6-6"), 3) == 0  # 3-3 heads the 3s
    assert trick_winner(P("6-6"), P("5-5"), P("0-0"), 0) == 2  # the lone trump 0-0


def test_b8_highest_of_led_suit_wins_without_trump():
    assert trick_winner(P("5-2"), P("5-4"), P("6-6"), 1) == 1  # 6-6 does not follow 5
    assert trick_winner(P("5-2"), P("4-4"), P("3-3"), 1) == 0  # nobody followed
    assert trick_winner(P("4-3"), P("6-4"), P("4-4"), NO_TRUMP) == 2


# ---------------------------------------------------------------- B.4 scoring, game end


def score_of(g):
    return events_of(g, "score")[0]


def test_b9_made_bid_scores_tricks_or_bid():
    g = scenario([seat(bid=4, trump=6, discard=P("4-4")), seat(), seat()], [LAYDOWN])
    e = score_of(g)
    assert e["made"] and e["tricks"] == 7 and e["deltas"] == [7, 0, 0]
    g = scenario(
        [seat(bid=4, trump=6, discard=P("4-4")), seat(), seat()], [LAYDOWN], rules=SPEC.make("bid")
    )
    assert score_of(g)["deltas"] == [4, 0, 0]


def test_b9_set_bidder_loses_the_bid_and_opponents_score_their_tricks():
    g = scenario([seat(bid=7, trump=6, discard=P("4-4")), seat(), seat()], [SHORT])
    e = score_of(g)
    t = g.tricks
    assert not e["made"] and t[0] <= 6 and t[1] >= 1
    assert e["deltas"] == [-7, t[1], t[2]]
    assert g.scores == [-7, t[1], t[2]]


def test_b9_moon_made_and_failed():
    g = scenario(
        [seat(bid=21, trump=6, discard=P("4-4")), seat(), seat()],
        [LAYDOWN],
        rules=SPEC.make(target=100),
    )
    assert score_of(g)["deltas"] == [21, 0, 0] and not g.done  # moon=points: play on
    g = scenario([seat(bid=21, trump=6, discard=P("4-4")), seat(), seat()], [SHORT])
    e = score_of(g)
    assert not e["made"] and e["deltas"][0] == -21


def test_b9_moon_instant_wins_the_game_at_once():
    g = scenario(
        [seat(bid=21, trump=6, discard=P("4-4")), seat(), seat()],
        [LAYDOWN],
        rules=SPEC.make(moon="instant", target=100),
        play_all=True,
    )
    ev = checked(g)
    assert g.winner == 0 and g.hand_no == 1 and int(g.st.g[G.END]) == END.MOON
    assert ev[-1]["reason"] == "moon"


def end_test(scores, bidder=-1, bid=0, made=0, **rules):
    st = new_state()
    st.s[:, S.SCORE] = scores
    st.g[G.BIDDER] = bidder
    st.g[G.BID] = bid
    st.g[G.MADE] = made
    w, why = game_winner(st, SPEC.make(**rules).to_array())
    return int(w)


def test_b10_nobody_at_target_plays_on():
    assert end_test([20, 19, -5], bidder=0, bid=4, made=1) == -1


def test_b10_bidder_who_made_it_wins_even_if_not_highest():
    assert end_test([21, 23, 0], bidder=0, bid=4, made=1) == 0


def test_b10_otherwise_highest_in_s_wins():
    assert end_test([21, 23, 0], bidder=2, bid=4, made=1) == 1  # bidder not in S
    assert end_test([22, 23, 0], bidder=0, bid=5, made=0) == 1  # bidder set
    assert end_test([25, 3, 0]) == 0


def test_b10_exact_tie_for_highest_plays_another_hand():
    assert end_test([23, 23, 0], bidder=2, bid=4, made=1) == -1
    assert end_test([23, 23, 25], bidder=2, bid=4, made=0) == 2  # the tie is not the highest
    assert end_test([30, 30, 31], target=31, bidder=0, bid=4, made=0) == 2
    # a real game: seats 0 and 1 tied at 25, seat 2 takes all 7 tricks -> another hand
    laydown_2 = LAYDOWN[7:14] + LAYDOWN[14:21] + LAYDOWN[:7] + LAYDOWN[21:]
    g = Game(
        "gamerules",
        [seat(), seat(), seat(bid=4, trump=6, discard=P("4-4"))],
        decks=[laydown_2],
        first_bidder=2,
    )
    g.st.s[0, S.SCORE] = 25
    g.st.s[1, S.SCORE] = 25
    g.play_hand()
    assert g.scores == [25, 25, 7] and not g.done and g.phase == PH.DEAL


def test_b10_target_knob():
    assert end_test([21, 0, 0], target=22) == -1
    assert end_test([22, 0, 0], target=22) == 0


def test_b11_cap_ends_unfinished():
    rules = SPEC.make(max_hands_per_game=3)
    games, seats, _ = play_batch(rules, ["random"] * 3, seed=2, count=300)
    assert (games[:, GR.HANDS] <= 3).all()
    unfinished = games[:, GR.WINNER] < 0
    assert unfinished.any()
    assert (games[unfinished, GR.HANDS] == 3).all()
    assert (games[unfinished, GR.END] == END.CAP).all()
    assert (seats[unfinished, :, SR.PLACE].min(axis=1) == 1).all()

"""Rules [A25]-[A33]: going out, round scoring, the one-turn bonus, elimination, rebuys, pot."""

from __future__ import annotations

from scenario import events, table

from sim.loba import options, state
from sim.loba.cards import parse_card
from sim.loba.layout import PLAY, ST, A, G
from sim.setup import make_rules

C = parse_card
DEAD = ["2S", "5H", "8D", "JC", "3H", "6D", "9C", "QS", "KD"]  # 2+5+8+10+3+6+9+10+10 = 63
OUT_BY_PLAYS = ["4S", "5S", "6S", "8H", "8D", "8C", "JK", "JH", "QH"]  # + KH drawn: all melded


def test_a25_out_by_plays_ends_round_without_discard():
    g = table(hands=[DEAD, OUT_BY_PLAYS], stock=["KH"], pile=["2C"], current=1)
    g.turn()
    assert g.hand_size(1) == 0 and g.pile() == [C("2C")]
    assert g.round == 1 and g.phase == 0 and int(g.st.g[G.OUT]) == 1  # round over at once


def test_a25_out_by_last_discard():
    g = table(hands=[DEAD, ["4S", "5S", "6S"]], stock=["KD"], pile=["2C"], current=1, placed=[1])
    g.turn()
    assert g.hand_size(1) == 0 and g.pile()[-1] == C("KD")


def test_a26_go_out_needs_discard_variant_keeps_a_card():
    rules = make_rules(go_out_needs_discard=True)
    g = table(rules, hands=[DEAD, ["4S", "5S", "6S"]], stock=["7S"], pile=["2C"], current=1)
    acts = state.new_bufs(g.R).acts
    g.st.hands[1, C("7S")] += 1
    g.st.s[1, 3] = 4
    n = options.gen_plays(g.st, g.R, 1, acts)
    # not the 4-card run: 4-5-6 or 5-6-7, each leaving a card to discard
    assert n == 2 and (acts[:n, A.TYPE] == PLAY.MELD).all() and (acts[:n, 6] == 3).all()
    g = table(rules, hands=[DEAD, ["4S", "5S", "6S"]], stock=["7S"], pile=["2C"], current=1)
    g.turn()
    # out by the discard: one 3-card run on the table, the fourth card on the pile
    (m,) = g.melds()
    assert g.hand_size(1) == 0 and len(m["cards"]) == 3 and len(g.pile()) == 2
    assert sorted(m["cards"] + g.pile()[-1:]) == [C("4S"), C("5S"), C("6S"), C("7S")]


def test_a27_round_score_is_cards_left_in_hand():
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, ["AS", "JK", "10H", "2D", "3C", "7H", "8S", "QD", "4C"]],
        seats="greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        placed=[1],
    )
    g.turn()
    # seat 1 out (had placed before: no bonus); seat 0 holds 63; seat 2: 10+10+10+2+3+7+8+10+4
    assert g.scores() == [63, 0, 64]


def test_a28_one_turn_bonus_and_negative_totals():
    g = table(hands=[DEAD, OUT_BY_PLAYS], stock=["KH"], pile=["2C"], current=1)
    g.turn()
    assert g.scores() == [63, -10]
    g = table(
        hands=[DEAD, OUT_BY_PLAYS], stock=["KH"], pile=["2C"], current=1, placed=[1], scores=[5, 5]
    )
    g.turn()
    assert g.scores() == [68, 5]  # something was on the table before this turn: no bonus
    g = table(
        make_rules(score_floor=0),
        hands=[DEAD, OUT_BY_PLAYS],
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[0, 4],
    )
    g.turn()
    assert g.scores() == [63, 0]  # floored at 0


def test_a28_bonus_also_when_last_card_is_discarded():
    g = table(hands=[DEAD, ["4S", "5S", "6S"]], stock=["KD"], pile=["2C"], current=1)
    g.turn()
    assert g.pile()[-1] == C("KD") and g.scores() == [63, -10]


def test_a29_all_scores_applied_then_over_marked():
    # seat 1 goes out with the bonus; seats 0 and 2 both cross 101 in the same round
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, DEAD],
        seats="greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 95, 40],
        rebuys=[2, 0, 2],
    )
    g.turn()
    assert g.scores() == [113, 85, 103]
    assert g.status(0) == ST.OUT and g.status(2) == ST.OUT and g.winner == 1


def test_a30_rebuy_takes_highest_survivor_score_and_pays():
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, ["2H", "3S"], DEAD],
        seats="greedy,greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30, 80, 10],
    )
    pot = g.pot
    g.turn()
    # after scoring: 113 (over), 20, 85, 73 -> seat 0 rebuys at 85 (highest not over)
    assert g.scores() == [85, 20, 85, 73]
    assert g.rebuys(0) == 1 and g.paid(0) == 2 and g.pot == pot + 1
    assert g.status(0) == ST.ACTIVE


def test_a30_simultaneous_rebuys_both_get_the_best_survivor_score_of_this_round():
    # seats 0 and 2 go over in the same round and both rebuy. After scoring: 113, 20, 123, 15.
    # Both must get 20, the best score among seats not over after this round's scoring and
    # before either rebuy: not 30 (seat 1's score before the round), not 113 or 123 (the other
    # over seat's), whatever the order in which the two rebuys are settled.
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, DEAD, ["2H", "3S"]],
        seats="greedy,greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30, 60, 10],
        trace=True,
    )
    pot = g.pot
    g.turn()
    assert [(e["seat"], e["score"]) for e in events(g, "over")] == [(0, 113), (2, 123)]
    assert [(e["seat"], e["score"], e["pot"]) for e in events(g, "rebuy")] == [
        (0, 20, pot + 1),
        (2, 20, pot + 2),
    ]
    assert g.scores() == [20, 20, 20, 15]
    assert [g.rebuys(q) for q in range(4)] == [1, 0, 1, 0]
    assert [g.paid(q) for q in range(4)] == [2, 1, 2, 1] and g.pot == pot + 2
    assert all(g.status(q) == ST.ACTIVE for q in range(4)) and g.winner is None


def test_a30_rebuy_cap_is_enforced_when_two_go_over():
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, DEAD, ["2H", "3S"]],
        seats="greedy,greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30, 60, 10],
        rebuys=[0, 0, 2, 0],
    )
    g.turn()
    # 113 and 123 over; survivors 20 and 15 -> seat 0 rebuys at 20, seat 2 has used 2 rebuys
    assert g.scores()[0] == 20 and g.status(0) == ST.ACTIVE and g.rebuys(0) == 1
    assert g.status(2) == ST.OUT and g.rebuys(2) == 2 and g.paid(2) == 1 + 2  # nothing more


def test_a30_rebuy_is_the_policys_choice():
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, ["2H"]],
        seats="greedy+rebuy=never,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30, 10],
    )
    g.turn()
    assert g.status(0) == ST.OUT and g.rebuys(0) == 0 and g.paid(0) == 1


def test_a31_no_rebuy_with_one_survivor_and_variant():
    g = table(hands=[DEAD, OUT_BY_PLAYS], stock=["KH"], pile=["2C"], current=1, scores=[50, 30])
    g.turn()
    assert g.winner == 1 and g.status(0) == ST.OUT and g.rebuys(0) == 0
    g = table(
        make_rules(rebuy_with_one_survivor=True),
        hands=[DEAD, OUT_BY_PLAYS],
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30],
    )
    g.turn()
    assert g.winner is None and g.rebuys(0) == 1 and g.scores() == [20, 20]


def test_a32_over_without_rebuy_is_out_for_good():
    g = table(
        hands=[DEAD, OUT_BY_PLAYS, ["2H"]],
        seats="greedy,greedy,greedy",
        stock=["KH"],
        pile=["2C"],
        current=1,
        scores=[50, 30, 10],
        rebuys=[2, 0, 0],
    )
    g.turn()
    assert g.status(0) == ST.OUT and g.st.s[0, 7] == 1  # eliminated in round 1
    g.turn()  # next deal: seat 0 gets no cards
    assert g.hand_size(0) == 0 and g.current != 0


def test_a33_last_player_takes_the_pot_and_net_is_pot_minus_paid():
    import sim

    res = sim.simulate(make_rules(stake=2, rebuy_cost=3), "greedy,greedy,greedy", games=300, seed=9)
    s = res.seats.join(res.games.select("game", "winner", "pot"), on="game")
    win = s.filter(s["seat"] == s["winner"])
    assert (win["won"] == win["pot"]).all()
    assert (s["paid"] == 2 + 3 * s["rebuys"]).all()
    assert (s["net"] == s["won"] - s["paid"]).all()
    assert (
        res.games["pot"]
        == 6
        + 3
        * res.seats.group_by("game")
        .agg(__import__("polars").col("rebuys").sum())
        .sort("game")["rebuys"]
    ).all()

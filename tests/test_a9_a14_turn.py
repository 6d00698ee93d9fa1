"""Rules [A9]-[A14b]: the turn, drawing, taking the discard, the stock, void rounds, the cap."""

from __future__ import annotations

import numpy as np
from scenario import ids, table

from sim.loba import engine
from sim.loba.cards import parse_card
from sim.loba.layout import MAX_ACTS, VOID, G
from sim.loba.play import Game, deal_order
from sim.rules import make_rules

C = parse_card
# a hand with no meld and nothing close to one (2 players, seat 1 on turn)
DEAD = ["2S", "5H", "8D", "JC", "3H", "6D", "9C", "QS", "KD"]


def plan_take(g, seat, card):
    acts = np.zeros((MAX_ACTS, 7), np.int16)
    plan = np.zeros((200, 7), np.int16)
    sh = np.zeros(53, np.int8)
    sm = np.zeros((64, 11), np.int16)
    return engine.plan_take(g.st, g.R, seat, C(card), plan, acts, sh, sm), plan


def test_a9_turn_is_draw_plays_discard():
    g = table(
        hands=[DEAD, ["4S", "5S", "6S", "9H", "9D", "9C", "2C", "7D", "10H"]],
        pile=["KC"],
        stock=["QH"],
        current=1,
    )
    g.turn()
    # seat 1 drew QH, put down 4-5-6S and the 9s, discarded one card: 9 - 6 + 1 - 1 = 3 left
    assert g.hand_size(1) == 3
    assert sorted(m["kind"] for m in g.melds()) == ["escalera", "pierna"]
    assert len(g.pile()) == 2


def test_a10_draw_takes_top_of_stock():
    g = table(hands=[DEAD, DEAD], pile=["KC"], stock=["AH", "AD"], current=1)
    g.turn()
    assert g.stock() == [C("AD")]
    assert C("AH") in [c for c in range(53) for _ in range(g.hand_counts(1)[c])] or g.pile()[
        -1
    ] == C("AH")


def test_a11_take_allowed_only_if_card_reaches_table():
    # 7S fits 5S 6S in hand: a new meld with it -> takeable
    g = table(
        hands=[DEAD, ["5S", "6S", "2H", "5D", "8C", "JD", "3C", "9H", "QC"]],
        pile=["7S"],
        stock=["KH"],
        current=1,
    )
    assert plan_take(g, 1, "7S")[0] == 1
    # KH fits nothing -> not takeable
    assert plan_take(g, 1, "8H")[0] == 0


def test_a11_layoff_take_needs_own_meld_and_new_meld_only_forbids_it():
    table_meld = [["5S", "6S", "7S"]]
    hand = ["2H", "5D", "8C", "JD", "3C", "9H", "QC", "KC", "4D"]
    g = table(hands=[DEAD, hand], melds=table_meld, pile=["8S"], stock=["KH"], current=1)
    assert plan_take(g, 1, "8S")[0] == 0  # [A20] no meld of its own this round
    g = table(
        hands=[DEAD, hand], melds=table_meld, pile=["8S"], stock=["KH"], current=1, melded=[1]
    )
    assert plan_take(g, 1, "8S")[0] == 1
    g = table(
        make_rules(discard_take="new_meld_only"),
        hands=[DEAD, hand],
        melds=table_meld,
        pile=["8S"],
        stock=["KH"],
        current=1,
        melded=[1],
    )
    assert plan_take(g, 1, "8S")[0] == 0
    # a meld from hand first, then the lay-off (Q1b): the engine finds the sequence
    hand2 = ["9D", "9C", "9H", "2H", "5D", "JD", "3C", "QC", "KC"]
    g = table(hands=[DEAD, hand2], melds=table_meld, pile=["8S"], stock=["KH"], current=1)
    k, plan = plan_take(g, 1, "8S")
    assert k == 2


def test_a11_take_through_a_chain_of_layoffs():
    # table 5-6-7S, hand holds 8S 9S: lay them off, then the taken 10S
    hand = ["8S", "9S", "2H", "5D", "JD", "3C", "QC", "KC", "4D"]
    g = table(
        hands=[DEAD, hand],
        melds=[["5S", "6S", "7S"]],
        pile=["10S"],
        stock=["KH"],
        current=1,
        melded=[1],
    )
    k, _ = plan_take(g, 1, "10S")
    assert k in (1, 3)  # 8S-9S-10S is also a new meld of its own
    g.turn()
    assert g.hand_counts(1)[C("10S")] == 0  # [A12] it reached the table


def test_a12_taken_card_never_stays_and_is_never_discarded():
    hand = ["5S", "6S", "2H", "5D", "8C", "JD", "3C", "9H", "QC"]
    g = table(hands=[DEAD, hand], pile=["KD", "7S"], stock=["KH"], current=1)
    g.turn()
    on_table = [c for m in g.melds() for c in m["cards"]]
    assert C("7S") in on_table
    assert g.pile()[-1] != C("7S") and g.hand_counts(1)[C("7S")] == 0
    assert g.pile()[0] == C("KD")  # the rest of the pile is untouched


def test_a13_rebuild_keeps_top_discard():
    g = table(hands=[DEAD, DEAD], pile=["AH", "2D", "3C", "7C"], stock=[], current=1)
    g.turn()
    assert g.st.g[G.RESHUFFLES] == 1
    # new stock = AH 2D 3C shuffled, 7C stays; seat 1 then drew one and discarded one
    assert len(g.stock()) == 2 and g.pile()[0] == C("7C") and len(g.pile()) == 2


def test_a13_rebuild_whole_pile_variant():
    g = table(
        make_rules(reshuffle_keep_top=False),
        hands=[DEAD, DEAD],
        pile=["AH", "2D", "3C", "7C"],
        stock=[],
        current=1,
    )
    g.turn()
    assert len(g.stock()) == 3 and len(g.pile()) == 1


def test_a14_void_when_nothing_can_be_drawn():
    g = table(hands=[DEAD, DEAD], pile=["AH"], stock=[], current=1, scores=[7, 9])
    g.turn()
    assert g.st.g[G.VOID_REASON] == VOID.STOCK
    assert g.scores() == [7, 9] and g.round == 1 and g.phase == 0  # next: a new deal
    assert g.dealer == 1  # the deal passed left


def test_a14_turn_cap_voids_the_round():
    rules = make_rules(max_turns_per_round=3)
    hands = [DEAD, ["2H", "5S", "8C", "JD", "3S", "6C", "9D", "QH", "KC"]]
    deck = deal_order(hands, "4C", ["10D", "7H", "4D", "10C"], dealer=0, rules=rules)
    g = Game(rules, "greedy,greedy", first_dealer=0, decks=[deck])
    g.turn()
    for _ in range(3):
        g.turn()
    assert g.st.g[G.VOID_REASON] == VOID.TURN_CAP
    assert g.scores() == [0, 0] and g.phase == 0


def test_a14b_round_cap_ends_game_unfinished_and_returns_pot():
    rules = make_rules(max_rounds_per_game=1)
    g = Game(rules, "greedy,greedy,greedy", seed=2).play()
    assert g.round == 1 and g.winner is None
    assert all(g.st.s[q, 9] == g.paid(q) for q in range(3))  # S.WON == S.PAID: net 0


def test_a14b_unfinished_games_are_counted():
    import sim

    res = sim.simulate(make_rules(max_rounds_per_game=2), "greedy,greedy,greedy", games=50, seed=1)
    assert res.games["winner"].null_count() == res.summary()["unfinished"] > 0
    assert (res.seats["net"] == 0).all()


def test_scenario_helper_ids_roundtrip():
    assert ids(["10H", "JK"]) == [C("10H"), 52]

"""Rules [A9]-[A14b]: the turn, drawing, taking the discard, the stock, void rounds, the cap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scenario import events, ids, table

from sim.loba import options, state
from sim.loba.cards import JOKER, parse_card
from sim.loba.layout import DRAW, MELD, PLAY, VOID, A, G, S
from sim.loba.moves import list_plays
from sim.loba.play import Game, deal_order
from sim.setup import make_rules

C = parse_card
# a hand with no meld and nothing close to one (2 players, seat 1 on turn)
DEAD = ["2S", "5H", "8D", "JC", "3H", "6D", "9C", "QS", "KD"]


def takeable(g, seat, card):
    """[A11]/[A12] the engine's take rule for ``seat`` and the discard ``card``."""
    return bool(options.take_ok(g.st, g.R, seat, C(card), state.new_bufs(g.R)))


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


def cs(text):
    """Sorted card identities of a space-separated card list."""
    return sorted(C(t) for t in text.split())


# smallest meld first
SMALLEST = f"{Path(__file__).parents[1] / 'plugins' / 'smallest.py'}:smallest"
GO_OUT_POLICIES = ["greedy", "hold", SMALLEST]


def one_turn(seat_policy, hand, draw):
    """Seat 1 (``seat_policy``) draws ``draw`` from the stock and plays its turn."""
    g = table(
        seats=["greedy", seat_policy], hands=[DEAD, hand], pile=["KD"], stock=[draw], current=1
    )
    g.turn()
    return g


@pytest.mark.parametrize("policy", GO_OUT_POLICIES)
def test_a9_two_escaleras_sharing_a_rank_go_out_in_one_turn(policy):
    # 5-6-7H + 7-8-9H + 3S 3D 3C, discard KC: out in one turn, with the [A28] bonus
    hand = ["5H", "6H", "7H", "7H", "8H", "9H", "3S", "3D", "3C"]
    g = one_turn(policy, hand, "KC")
    assert g.hand_size(1) == 0 and g.pile()[-1] == C("KC")
    assert sorted(sorted(m["cards"]) for m in g.melds()) == sorted(
        [cs("5H 6H 7H"), cs("7H 8H 9H"), cs("3S 3D 3C")]
    )
    assert g.st.s[1, S.BONUS] == 1 and g.st.s[1, S.SCORE] == -10


def option_paths_empty_hand(hand_cards, rules):
    """Is there a sequence of the engine's own options (new melds from hand) that empties the
    hand? Depth-first over :func:`sim.loba.moves.list_plays` and :func:`apply_play`."""
    from sim.loba.moves import apply_play

    R = rules.to_array()

    def dfs(hand):
        if hand.sum() == 0:
            return True
        for p in list_plays(hand, np.zeros((0, 11), np.int16), False, R):
            h = np.zeros(56, np.int8)
            h[:53] = hand
            apply_play(h, np.zeros((64, 11), np.int16), 0, p, 1)
            if dfs(h[:53].copy()):
                return True
        return False

    hand = np.zeros(53, np.int8)
    for c in hand_cards:
        hand[C(c)] += 1
    return dfs(hand)


@pytest.mark.parametrize("policy", ["greedy", "hold"])
def test_a9_two_piernas_of_one_rank(policy):
    # 7H 7H 7S 7S 7C 7D: one pierna would strand a seven ([A15] three suits); two do not
    hand = ["7H", "7H", "7S", "7S", "7C", "7D", "2D", "3D", "4D"]
    g = one_turn(policy, hand, "KC")
    assert g.hand_size(1) == 0
    piernas = sorted(sorted(m["cards"]) for m in g.melds() if m["kind"] == "pierna")
    assert piernas == sorted([cs("7H 7S 7C"), cs("7H 7S 7D")])
    # the six sevens alone go down through the option list (as two piernas only)
    assert option_paths_empty_hand(["7H", "7H", "7S", "7S", "7C", "7D"], make_rules())


@pytest.mark.parametrize("policy", GO_OUT_POLICIES)
def test_a9_play_order_that_goes_out(policy):
    # largest first (7H 7H 7S 7C) would strand 5H 6H; 7H 7S 7C + 5-6-7H + 2-3-4D goes out
    hand = ["7H", "7H", "7S", "7C", "5H", "6H", "2D", "3D", "4D"]
    g = one_turn(policy, hand, "9S")
    assert g.hand_size(1) == 0 and g.pile()[-1] == C("9S")


def test_a9_every_legal_meld_is_an_option():
    # sub-windows, a joker on a position whose natural stays in hand, every pierna
    hand = np.zeros(53, np.int8)
    for c in cs("5H 6H 7H 7H 8H 9H JK 3S 3D 3C 3C"):
        hand[c] += 1
    rules = make_rules()
    plays = list_plays(hand, np.zeros((0, 11), np.int16), False, rules.to_array())
    assert all(p[A.TYPE] == PLAY.MELD for p in plays)
    esc = {(int(p[A.LO]), int(p[A.HI]), int(p[A.JMASK])) for p in plays if p[A.KIND] == 1}
    assert {(5, 7, 0), (7, 9, 0), (5, 9, 0), (6, 8, 0), (5, 10, 1 << 10), (4, 9, 1 << 4)} <= esc
    assert (5, 7, 1 << 6) in esc  # 5-JK-7 keeps the 6H in hand
    assert len(esc) == len([p for p in plays if p[A.KIND] == 1])  # no duplicates
    piernas = sorted(int(p[A.N]) for p in plays if p[A.KIND] == 0)
    assert piernas == [3, 4]  # 3S 3D 3C with one club or with both


def test_a10_draw_takes_top_of_stock():
    g = table(hands=[DEAD, DEAD], pile=["KC"], stock=["AH", "AD"], current=1, trace=True)
    g.turn()
    assert [(e["seat"], e["source"], e["card"]) for e in events(g, "draw")] == [
        (1, DRAW.STOCK, C("AH"))
    ]
    assert g.stock() == [C("AD")]
    # greedy keeps AH (3H is a neighbour) and discards its costliest dead card, KD
    assert g.hand(1) == sorted(DEAD[:-1] + ["AH"], key=C) and g.pile() == [C("KC"), C("KD")]


def test_a10_take_is_the_top_of_the_discard_pile():
    # 7S (top) fits 5S 6S; 4S under it would fit too, but only the top may be taken
    hand = ["5S", "6S", "2H", "5D", "8C", "JD", "3C", "9H", "QC"]
    g = table(hands=[DEAD, hand], pile=["4S", "7S"], stock=["KH"], current=1, trace=True)
    g.turn()
    assert [(e["source"], e["card"]) for e in events(g, "draw")] == [(DRAW.DISCARD, C("7S"))]
    assert g.pile()[0] == C("4S") and g.stock() == [C("KH")]
    assert [m["cards"] for m in g.melds()] == [[C("5S"), C("6S"), C("7S")]]


def test_a11_take_allowed_only_if_card_reaches_table():
    # 7S fits 5S 6S in hand: a new meld with it -> takeable
    g = table(
        hands=[DEAD, ["5S", "6S", "2H", "5D", "8C", "JD", "3C", "9H", "QC"]],
        pile=["7S"],
        stock=["KH"],
        current=1,
    )
    assert takeable(g, 1, "7S")
    # KH fits nothing -> not takeable
    assert not takeable(g, 1, "8H")


def test_a11_layoff_take_needs_own_meld_and_new_meld_only_forbids_it():
    table_meld = [["5S", "6S", "7S"]]
    hand = ["2H", "5D", "8C", "JD", "3C", "9H", "QC", "KC", "4D"]
    g = table(hands=[DEAD, hand], melds=table_meld, pile=["8S"], stock=["KH"], current=1)
    assert not takeable(g, 1, "8S")  # [A20] no meld of its own this round
    g = table(
        hands=[DEAD, hand], melds=table_meld, pile=["8S"], stock=["KH"], current=1, melded=[1]
    )
    assert takeable(g, 1, "8S")
    g = table(
        make_rules(discard_take="new_meld_only"),
        hands=[DEAD, hand],
        melds=table_meld,
        pile=["8S"],
        stock=["KH"],
        current=1,
        melded=[1],
    )
    assert not takeable(g, 1, "8S")
    # a meld from hand first, then the lay-off (Q1b): the engine finds the sequence
    hand2 = ["9D", "9C", "9H", "2H", "5D", "JD", "3C", "QC", "KC"]
    g = table(hands=[DEAD, hand2], melds=table_meld, pile=["8S"], stock=["KH"], current=1)
    assert takeable(g, 1, "8S")


# no two of these within two ranks in a suit, no rank twice: no meld, with or without a joker
FILLER = ["2H", "6H", "10H", "5D", "JD", "3C", "7C", "QC"]


def test_a11_take_through_a_chain_of_layoffs():
    # table 5-6-7S; 9S is taken: it is no new meld (8S 9S is two cards) and no direct lay-off
    # (the end is 7), only the chain "lay off 8S, then 9S" puts it down ([A12])
    g = table(
        hands=[DEAD, ["8S"] + FILLER],
        melds=[["5S", "6S", "7S"]],
        pile=["KD", "9S"],
        stock=["KH"],
        current=1,
        melded=[1],
        trace=True,
    )
    assert takeable(g, 1, "9S")
    g.turn()  # greedy takes the discard and plays the chain (the only plays it is offered)
    evs = events(g, "draw", "layoff")
    assert [(e["type"], e["card"]) for e in evs] == [
        ("draw", C("9S")),
        ("layoff", C("8S")),
        ("layoff", C("9S")),
    ]
    assert evs[0]["source"] == DRAW.DISCARD
    assert g.melds()[0]["cards"] == [C(f"{r}S") for r in range(5, 10)]
    assert g.hand_counts(1)[C("9S")] == 0 and g.hand_size(1) == 8 - 1  # 8 filler, 1 discarded
    assert len(g.pile()) == 2 and g.pile()[0] == C("KD") and g.pile()[1] != C("9S")


def test_a11_chain_bridged_by_a_joker():
    # hand JK + filler, 9S taken: JK 9S is no meld; the chain lays JK(8S) off, then 9S
    g = table(
        hands=[DEAD, ["JK"] + FILLER],
        melds=[["5S", "6S", "7S"]],
        pile=["9S"],
        stock=["KH"],
        current=1,
        melded=[1],
        trace=True,
    )
    assert takeable(g, 1, "9S")
    g.turn()
    assert [(e["card"], e["position"]) for e in events(g, "layoff")] == [(JOKER, 8), (C("9S"), 9)]
    m = g.melds()[0]
    assert (m["lo"], m["hi"], m["joker_positions"]) == (5, 9, [8])


def test_a11_meld_of_ones_own_then_a_chain():
    # no meld of its own yet ([A20]): K K K first, then 8S, then 9S (the only plays offered)
    g = table(
        hands=[DEAD, ["KD", "KC", "KH", "8S", "2H", "6H", "5D", "3C", "7C"]],
        melds=[["5S", "6S", "7S"]],
        pile=["9S"],
        stock=["2D"],
        current=1,
        trace=True,
    )
    assert takeable(g, 1, "9S")
    g.turn()
    evs = events(g, "draw", "meld", "layoff")
    assert [e["type"] for e in evs] == ["draw", "meld", "layoff", "layoff"]
    assert (evs[1]["kind"], evs[1]["key"]) == (MELD.PIERNA, 13)
    assert [e["card"] for e in evs if e["type"] == "layoff"] == [C("8S"), C("9S")]
    assert g.melds()[0]["cards"] == [C(f"{r}S") for r in range(5, 10)]


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
    assert res.games["winner"].null_count() == res.summary_dict()["unfinished"] > 0
    assert (res.seats["net"] == 0).all()


def test_scenario_helper_ids_roundtrip():
    assert ids(["10H", "JK"]) == [C("10H"), 52]

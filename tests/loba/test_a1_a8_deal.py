"""Rules [A1]-[A8]: players, deck, values, stakes, the deal. Literal decks, not lucky seeds."""

from __future__ import annotations

import numpy as np
import pytest

from sim.loba.cards import JOKER, card_value, parse_card, parse_cards
from sim.loba.layout import EV, ST, E
from sim.loba.play import Game, deal_order, full_deck, stack_deck
from sim.rules import RuleError
from sim.setup import make_rules


def test_a1_two_to_five_players(pagat):
    for n in (2, 3, 4, 5):
        pagat.check_players(n)
    for n in (1, 6):
        with pytest.raises(RuleError, match=rf"2 to 5 players, not {n} \[A1\]"):
            pagat.check_players(n)


def test_a1_seats_are_clockwise_left_is_next_seat():
    g = Game(make_rules(), "greedy,greedy,greedy", first_dealer=1, decks=[stack_deck([])])
    g.turn()  # deal
    assert g.current == 2  # the player to the left of seat 1 is seat 2


def test_a2_deck_is_two_packs_and_four_jokers(pagat):
    deck = full_deck(pagat)
    assert len(deck) == 108 == 52 * pagat.decks + pagat.jokers
    assert deck.count(JOKER) == 4
    assert all(deck.count(c) == 2 for c in range(52))
    g = Game(pagat, "greedy,greedy,greedy,greedy", seed=5)
    g.turn()
    assert np.array_equal(g.card_census(), np.array([2] * 52 + [4]))


def test_a3_penalty_values():
    vals = {c: card_value(parse_card(c)) for c in ["2S", "9H", "10D", "JC", "QS", "KH", "AS", "JK"]}
    assert vals == {"2S": 2, "9H": 9, "10D": 10, "JC": 10, "QS": 10, "KH": 10, "AS": 10, "JK": 10}


def test_a4_every_player_pays_the_stake_into_the_pot():
    g = Game(make_rules(stake=3), "greedy,greedy,greedy", seed=1)
    assert g.pot == 9 and [g.paid(q) for q in range(3)] == [3, 3, 3]


def test_a5_first_dealer_is_seeded_and_covers_every_seat():
    firsts = [Game(make_rules(), "greedy,greedy,greedy,greedy", seed=s).dealer for s in range(400)]
    assert firsts == [
        Game(make_rules(), "greedy,greedy,greedy,greedy", seed=s).dealer for s in range(400)
    ]
    counts = np.bincount(firsts, minlength=4)
    assert counts.min() > 60  # every seat deals first about a quarter of the time


def test_a5_deal_passes_left_skipping_eliminated_players():
    # dealer 2; seat 0 (first to play) draws 10S and goes out at once; seat 1 holds 62 points,
    # seat 2 holds 34: with elimination at 61 and no rebuys, seat 1 is out for good.
    rules = make_rules(elimination_score=61, max_rebuys=0)
    hands = [
        ["5S", "6S", "7S", "8S", "9S", "KH", "KD", "KC", "2H"],
        ["AH", "3D", "5C", "7H", "9D", "JC", "4S", "6D", "8C"],
        ["2C", "3H", "4D", "5C", "6H", "2D", "3C", "4H", "5D"],
    ]
    deck = deal_order(hands, "QH", ["10S"], dealer=2, rules=rules)
    g = Game(rules, "greedy,greedy,greedy", first_dealer=2, decks=[deck])
    g.play_round()
    assert g.scores() == [-10, 62, 34]
    assert g.status(1) == ST.OUT and g.winner is None
    assert g.dealer == 0  # the deal passed left from seat 2 to seat 0
    g.turn()  # round 2 deal: seat 1 is skipped in the deal and in turn order
    assert g.round == 2 and g.current == 2 and g.hand_size(1) == 0


def test_a6_deal_one_card_at_a_time_from_dealers_left():
    top = parse_cards(
        [f"{r}S" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9"]]
        + [f"{r}H" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9"]]
        + [f"{r}D" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9"]]
    )
    g = Game(make_rules(), "greedy,greedy,greedy", first_dealer=0, decks=[stack_deck(top)])
    g.turn()
    # card i goes to seat (dealer + 1 + i) % 3
    for q in range(3):
        want = sorted(top[i] for i in range(27) if (1 + i) % 3 == q)
        have = sorted(c for c in range(53) for _ in range(int(g.hand_counts(q)[c])))
        assert have == want
    assert [g.hand_size(q) for q in range(3)] == [9, 9, 9]


def test_a7_next_card_is_the_upcard_and_a_joker_upcard_stays():
    top = ["2S"] * 2 + ["3S"] * 2 + ["4S"] * 2 + ["5S"] * 2 + ["6S"] * 2 + ["7S"] * 2 + ["8S"] * 2
    top += ["9S"] * 2 + ["10S"] * 2 + ["JK", "QD"]
    g = Game(make_rules(), "greedy,greedy", first_dealer=0, decks=[stack_deck(top)])
    g.turn()
    assert g.pile() == [JOKER]
    assert g.stock()[0] == parse_card("QD")
    assert len(g.stock()) == 108 - 18 - 1


# four hands with no meld and nothing the up-card or the stock's first cards could complete
# (no rank in more than two suits, no two cards of a suit within two ranks)
DEAD4 = [
    ["2S", "5S", "8S", "JS", "3H", "6H", "9H", "QH", "KD"],
    ["3S", "6S", "9S", "QS", "4H", "7H", "10H", "KH", "2D"],
    ["4S", "7S", "10S", "KS", "2H", "5H", "8H", "JH", "AC"],
    ["2C", "5C", "8C", "JC", "4D", "7D", "10D", "AD", "AH"],
]


def test_a8_player_left_of_dealer_plays_first_then_clockwise():
    for dealer in range(4):
        deck = deal_order(DEAD4, "6C", ["QC", "9C", "6D", "9D"], dealer=dealer)
        seats = "greedy,greedy,greedy,greedy"
        g = Game(make_rules(), seats, first_dealer=dealer, decks=[deck], trace=True)
        g.turn()  # deal
        assert g.current == (dealer + 1) % 4
        for k in range(1, 4):
            g.turn()
            assert g.current == (dealer + 1 + k) % 4
        evs, _, _ = g.trace_arrays()
        plays = [(int(e[EV.TYPE]), int(e[EV.SEAT])) for e in evs if e[EV.TYPE] != E.DEAL]
        first = (dealer + 1) % 4
        assert plays == [
            (t, (first + k) % 4) for k in range(3) for t in (E.DRAW, E.DISCARD)
        ]  # dealer+1, dealer+2, dealer+3 each drew and discarded, nothing else happened

"""Rules [A15]-[A24] as the engine applies them in play (the meld judge itself is compared
with the independent oracle in test_oracle_melds.py)."""

from __future__ import annotations

import numpy as np
from scenario import table

from sim.loba import engine
from sim.loba.cards import JOKER, parse_card
from sim.loba.layout import MAX_ACTS, PLAY, A
from sim.loba.melds import check_meld
from sim.rules import make_rules

C = parse_card
DEAD = ["2S", "5H", "8D", "JC", "3H", "6D", "9C", "QS", "KD"]


def plays(g, seat):
    acts = np.zeros((MAX_ACTS, 7), np.int16)
    n = engine.gen_plays(g.st, g.R, seat, acts)
    return acts[:n].copy()


def layoff_cards(g, seat):
    return sorted(int(a[A.KEY]) for a in plays(g, seat) if a[A.TYPE] == PLAY.LAYOFF)


def test_a15_pierna_exactly_three_suits_and_fourth_suit_never_joins():
    assert check_meld(["KS", "KH", "KD"])[0]
    assert check_meld(["KS", "KH", "KD", "KS", "KH", "KD"])[0]
    assert not check_meld(["KS", "KH", "KD", "KC"])[0]
    assert not check_meld(["KC", "KC", "KD"])[0]
    g = table(
        hands=[DEAD, ["KC", "KS", "2D", "5C", "8H", "JD", "3S", "7C", "QD"]],
        melds=[["KS", "KH", "KD"]],
        melded=[1],
        current=1,
    )
    assert layoff_cards(g, 1) == [C("KS")]  # KC (fourth suit) may not join


def test_a15_not_all_four_variant():
    classic = make_rules("classic")
    assert check_meld(["KC", "KC", "KD"], classic)[0]
    assert not check_meld(["KS", "KH", "KD", "KC"], classic)[0]
    g = table(
        classic,
        hands=[DEAD, ["KS", "KC", "2D", "5C", "8H", "JD", "3S", "7C", "QD"]],
        melds=[["KC", "KC", "KD"]],
        melded=[1],
        current=1,
    )
    assert layoff_cards(g, 1) == [C("KS")]  # KS makes three suits; KC would be a third club


def test_a16_escalera_rules():
    assert check_meld(["AS", "2S", "3S"]) == (True, "escalera AS 2S 3S")
    assert check_meld(["QS", "KS", "AS"]) == (True, "escalera QS KS AS")
    assert not check_meld(["KS", "AS", "2S"])[0]
    assert not check_meld(["5S", "6S"])[0]
    assert not check_meld(["5S", "6S", "6S", "7S"])[0]
    assert not check_meld(["5S", "6H", "7S"])[0]
    assert not check_meld(["5S", "6S", "7S"], make_rules("rami"))[0]  # escalera_min = 4


def test_a17_joker_rules():
    assert not check_meld(["5S", "5H", "JK"])[0]  # not in a pierna
    assert not check_meld(["5S", "JK", "JK"])[0]  # two naturals at least
    assert not check_meld(["5S", "6S", "JK", "JK"])[0]  # one joker per escalera
    assert check_meld(["5S", "6S", "JK", "JK"], make_rules("rami"))[0]
    assert check_meld(["5S", "JK", "7S"]) == (True, "escalera 5S JK(6S) 7S")


def test_a18_ambiguous_joker_goes_high_else_low():
    assert check_meld(["5S", "6S", "JK"]) == (True, "escalera 5S 6S JK(7S)")
    assert check_meld(["QS", "KS", "JK"]) == (True, "escalera QS KS JK(AS)")
    assert check_meld(["KS", "AS", "JK"]) == (True, "escalera JK(QS) KS AS")
    # greedy declares the high end when it melds 5-6-JK
    g = table(
        hands=[DEAD, ["5S", "6S", "JK", "2D", "9C", "8H", "KD", "3C", "QH"]],
        stock=["10D"],
        pile=["KC"],
        current=1,
    )
    g.turn()
    m = g.melds()[0]
    assert (m["lo"], m["hi"], m["joker_positions"]) == (5, 7, [7])


def test_a19_table_melds_only_grow():
    g = table(
        hands=[DEAD, ["8S", "9S", "4H", "KH", "2D", "5C", "JD", "3C", "QD"]],
        melds=[["5S", "6S", "7S"], ["4S", "4D", "4C"]],
        melded=[1],
        stock=["10S"],
        pile=["KC"],
        current=1,
    )
    before = [sorted(m["cards"]) for m in g.melds()]
    g.turn()
    after = [sorted(m["cards"]) for m in g.melds()]
    assert len(after) >= len(before)
    for b, a in zip(before, after, strict=False):
        assert all(a.count(c) >= b.count(c) for c in set(b))
    spades = sorted(c for m in g.melds() for c in m["cards"] if c < 13)
    assert spades == [C(f"{r}S") for r in range(4, 11)]  # 4S of the pierna, 5-10S in runs


def test_a20_layoff_requires_own_meld():
    hand = ["8S", "2D", "5C", "8H", "JD", "3C", "7C", "QD", "KH"]
    g = table(hands=[DEAD, hand], melds=[["5S", "6S", "7S"]], current=1)
    assert layoff_cards(g, 1) == []
    g = table(hands=[DEAD, hand], melds=[["5S", "6S", "7S"]], current=1, melded=[1])
    assert layoff_cards(g, 1) == [C("8S")]
    g = table(
        make_rules(layoff_requires_own_meld=False),
        hands=[DEAD, hand],
        melds=[["5S", "6S", "7S"]],
        current=1,
    )
    assert layoff_cards(g, 1) == [C("8S")]


def test_a21_layoffs_on_escalera_ends_and_joker_as_new_end():
    hand = ["4S", "8S", "JK", "9S", "2D", "5C", "JD", "3C", "QD"]
    g = table(hands=[DEAD, hand], melds=[["5S", "6S", "7S"]], current=1, melded=[1])
    cards = layoff_cards(g, 1)
    assert cards == sorted([C("4S"), C("8S"), JOKER, JOKER])  # 9S does not touch an end
    g = table(hands=[DEAD, hand], melds=[["5S", "JK", "7S"]], current=1, melded=[1])
    assert JOKER not in layoff_cards(g, 1)  # jokers_per_escalera = 1 already used
    g = table(
        hands=[DEAD, ["AS", "2D", "5C", "8H", "JD", "3C", "7C", "QD", "KH"]],
        melds=[["QS", "KS", "AS"]],
        current=1,
        melded=[1],
    )
    assert layoff_cards(g, 1) == [C("JS")] * 0 + []  # the ace is already high; no JS in hand


def test_a22_end_joker_jumps_to_other_end():
    # 5-6-7-8-JK(9) + 9S -> JK(4)-5-6-7-8-9
    hand = ["9S", "2D", "5C", "8H", "JD", "3C", "7C", "QD", "KH"]
    g = table(
        hands=[DEAD, hand],
        melds=[["5S", "6S", "7S", "8S", "JK"]],
        current=1,
        melded=[1],
        stock=["10D"],
        pile=["KC"],
    )
    g.turn()
    m = g.melds()[0]
    assert (m["lo"], m["hi"], m["joker_positions"]) == (4, 9, [4])


def test_a22_move_illegal_past_the_ace_and_middle_joker_frozen():
    hand = ["JS", "6S", "2D", "5C", "8H", "JD", "3C", "7C", "QD"]
    g = table(hands=[DEAD, hand], melds=[["JK", "QS", "KS", "AS"]], current=1, melded=[1])
    # JK stands for J at the low end; the other end is past the ace: JS cannot be laid off
    assert C("JS") not in layoff_cards(g, 1)
    g = table(hands=[DEAD, hand], melds=[["5S", "JK", "7S"]], current=1, melded=[1])
    assert C("6S") not in layoff_cards(g, 1)  # middle joker is frozen
    g = table(
        make_rules(joker_end_move=False),
        hands=[DEAD, ["9S"] + hand[1:]],
        melds=[["5S", "6S", "7S", "8S", "JK"]],
        current=1,
        melded=[1],
    )
    assert C("9S") not in layoff_cards(g, 1)


def test_a23_joker_never_returns_to_a_hand():
    import sim

    res = sim.simulate("pagat", "greedy,greedy,greedy", games=1, seed=4)
    assert res.games.height == 1
    g = table(
        hands=[DEAD, ["9S", "2D", "5C", "8H", "JD", "3C", "7C", "QD", "KH"]],
        melds=[["5S", "6S", "7S", "8S", "JK"]],
        current=1,
        melded=[1],
        stock=["10D"],
        pile=["KC"],
    )
    g.turn()
    assert g.hand_counts(1)[JOKER] == 0 and sum(m["cards"].count(JOKER) for m in g.melds()) == 1


def test_a24_joker_discard_last_only_and_allowed():
    hand = ["JK", "KH"]
    g = table(hands=[DEAD, hand], stock=["2C"], pile=["9D"], current=1)
    g.turn()
    assert g.hand_counts(1)[JOKER] == 1  # greedy would love to dump it, but may not
    g = table(hands=[DEAD, ["JK"]], stock=["JK"], pile=["9D"], current=1)
    g.turn()  # all jokers: one may go
    assert g.hand_counts(1)[JOKER] == 1 and g.pile()[-1] == JOKER
    g = table(
        make_rules("classic"),
        hands=[DEAD, ["JK", "2H"]],
        stock=["3C"],
        pile=["9D"],
        current=1,
        seats="random,random",
    )
    seen = set()
    for seed in range(30):
        g2 = table(
            make_rules("classic"),
            hands=[DEAD, ["JK", "2H"]],
            stock=["3C"],
            pile=["9D"],
            current=1,
            seats="random,random",
            seed=seed,
        )
        g2.turn()
        seen.add(g2.pile()[-1])
    assert JOKER in seen  # allowed under joker_discard=allowed
    assert g.hand_size(1) == 2

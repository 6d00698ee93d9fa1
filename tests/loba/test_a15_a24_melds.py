"""Rules [A15]-[A24] as the engine applies them in play (the meld judge itself is compared
with the independent oracle in test_oracle_melds.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from scenario import events, table

from sim.loba import options, state
from sim.loba.cards import JOKER, parse_card
from sim.loba.layout import PLAY, A, G, S
from sim.loba.melds import check_meld
from sim.loba.play import Game
from sim.loba.trace import decode, replay
from sim.setup import make_rules

C = parse_card
DEAD = ["2S", "5H", "8D", "JC", "3H", "6D", "9C", "QS", "KD"]


def plays(g, seat):
    acts = state.new_bufs(g.R).acts
    n = options.gen_plays(g.st, g.R, seat, acts)
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
        hands=[DEAD, ["KS", "4D", "2D", "5C", "8H", "JD", "3S", "7C", "QD"]],
        melds=[["KC", "KC", "KD"]],
        melded=[1],
        current=1,
    )
    assert layoff_cards(g, 1) == [C("KS")]  # KS makes three suits, not all four


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
        pile=["KH"],
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


def table_jokers(g):
    return sum(m["cards"].count(JOKER) for m in g.melds())


def test_a23_end_joker_moves_and_never_returns_to_the_hand_that_holds_its_natural():
    # seat 1 holds 9S (the card the end joker stands for) and a joker of its own: laying 9S
    # off moves the table joker to the low end ([A22]); nothing brings it back to the hand
    hand = ["9S", "JK", "3H", "10H", "2D", "6D", "KD", "9C", "QC"]  # JK fits no new meld
    g = table(
        hands=[DEAD, hand],
        melds=[["5S", "6S", "7S", "8S", "JK"]],
        current=1,
        melded=[1],
        stock=["10D"],
        pile=["KH"],
        trace=True,
    )
    g.turn()
    m = g.melds()[0]
    assert (m["lo"], m["hi"], m["joker_positions"]) == (4, 9, [4])
    assert [(e["card"], e["position"], e["joker_to"]) for e in events(g, "layoff")] == [
        (C("9S"), 9, 4)
    ]
    assert g.hand_counts(1)[JOKER] == 1  # its own joker only (it may not be discarded, [A24])
    assert g.hand_counts(1)[C("9S")] == 0 and table_jokers(g) == 1


def test_a23_middle_joker_is_not_exchanged_for_its_natural():
    # 5S JK(6S) 7S on the table; seat 1 holds 6S and a joker: no exchange, no lay-off of 6S
    hand = ["6S", "JK", "3H", "10H", "2D", "6D", "KD", "9C", "QC"]
    g = table(
        hands=[DEAD, hand],
        melds=[["5S", "JK", "7S"]],
        current=1,
        melded=[1],
        stock=["10D"],
        pile=["KH"],
    )
    g.turn()
    m = g.melds()[0]
    assert (m["lo"], m["hi"], m["joker_positions"]) == (5, 7, [6])
    assert g.hand_counts(1)[C("6S")] == 1 and g.hand_counts(1)[JOKER] == 1
    assert table_jokers(g) == 1


def test_a23_table_jokers_change_only_by_jokers_put_down_in_whole_games():
    # turn by turn through whole games: the jokers on the table after a turn are exactly those
    # before it plus the jokers the turn's events put down (melded or laid off); a joker that
    # went back to a hand, even if laid off again in the same turn, breaks the count
    turns = []
    for seed in range(4):
        g = Game(make_rules(), "greedy,greedy,greedy", seed=seed, trace=True)
        game_turns = []
        while not g.done:
            rnd, before, k0 = g.round, table_jokers(g), len(g.trace_arrays()[0])
            g.turn()
            if g.round == rnd:
                game_turns.append((k0, len(g.trace_arrays()[0]), before, table_jokers(g)))
        rows = decode(g)[1:]  # one dict per event row
        turns += [(rows[k0:k1], before, after) for k0, k1, before, after in game_turns]
    placed = moved = 0
    for evs, before, after in turns:
        put = sum(e["cards"].count("JK") for e in evs if e["type"] == "meld")
        put += sum(e["card"] == "JK" for e in evs if e["type"] == "layoff")
        assert after - before == put, evs
        placed += put
        moved += sum(e["type"] == "layoff" and e["joker_moved"] for e in evs)
    assert placed > 50 and moved > 5  # jokers did reach the table, and [A22] moves happened


DUMPER = f"{Path(__file__).parents[1] / 'plugins' / 'jokers.py'}:joker_dumper"  # wants to dump JK


def hand_of(g, seat):
    return sorted(c for c in range(53) for _ in range(int(g.hand_counts(seat)[c])))


def test_a24_joker_discard_last_only_not_offered_with_naturals_in_hand():
    # the scripted seat discards a joker whenever the engine offers one; it holds JK KH, draws
    # 2C (9D cannot be taken) and must discard KH (options KH, 2C), keeping the joker
    g = table(
        hands=[DEAD, ["JK", "KH"]], stock=["2C"], pile=["9D"], current=1, seats="greedy," + DUMPER
    )
    g.turn()
    assert g.pile() == [C("9D"), C("KH")]
    assert hand_of(g, 1) == sorted([JOKER, C("2C")])
    assert int(g.st.g[G.DECISIONS]) == 1 and int(g.st.s[1, S.BAD_ANSWERS]) == 0  # it chose


def test_a24_joker_discard_allowed_variant_offers_it():
    for rules in (make_rules(joker_discard="allowed"), make_rules("classic")):
        g = table(
            rules,
            hands=[DEAD, ["JK", "KH"]],
            stock=["2C"],
            pile=["9D"],
            current=1,
            seats="greedy," + DUMPER,
        )
        g.turn()
        assert g.pile() == [C("9D"), JOKER]
        assert hand_of(g, 1) == sorted([C("KH"), C("2C")])


def test_a24_all_jokers_may_discard_one():
    g = table(hands=[DEAD, ["JK"]], stock=["JK"], pile=["9D"], current=1, seats="greedy," + DUMPER)
    g.turn()
    assert g.pile() == [C("9D"), JOKER] and hand_of(g, 1) == [JOKER]
    # the same with greedy, which would never discard a joker if it had a choice
    g = table(hands=[DEAD, ["JK"]], stock=["JK"], pile=["9D"], current=1)
    g.turn()
    assert g.pile() == [C("9D"), JOKER] and hand_of(g, 1) == [JOKER]


def _joker_discards(events, seat):
    """(joker discards by ``seat`` while it held naturals too, discards by ``seat`` while it
    held a joker and naturals, joker discards by ``seat``), tracking hands from the events."""
    hands = []
    bad = chances = dumped = 0
    for e in events:
        t = e["type"]
        if t == "deal":
            hands = [Counter(h) for h in e["hands"]]
        elif t == "draw":
            hands[e["seat"]][e["card"]] += 1
        elif t == "meld":
            hands[e["seat"]] -= Counter(e["cards"])
        elif t == "layoff":
            hands[e["seat"]][e["card"]] -= 1
        elif t == "discard":
            h = hands[e["seat"]]
            mixed = h["JK"] > 0 and sum(k for c, k in h.items() if c != "JK") > 0
            if e["seat"] == seat:
                chances += mixed
                dumped += e["card"] == "JK"
                bad += e["card"] == "JK" and mixed
            h[e["card"]] -= 1
    return bad, chances, dumped


def test_a24_whole_games_with_a_seat_that_wants_to_dump_jokers():
    seats = f"{DUMPER},greedy,greedy"
    # last_only: over 6 games the seat held a joker and naturals at its discard 100+ times and
    # never got to dump the joker
    tally = [_joker_discards(replay("pagat", seats, seed=3, game=k), 0) for k in range(6)]
    bad, chances, _ = map(sum, zip(*tally, strict=True))
    assert bad == 0 and chances > 100
    # allowed: the same seat dumps the joker at every such discard (the engine offers it)
    tally = [
        _joker_discards(replay("pagat(joker_discard=allowed)", seats, seed=3, game=k), 0)
        for k in range(6)
    ]
    bad, chances, dumped = map(sum, zip(*tally, strict=True))
    assert bad == chances == dumped > 10

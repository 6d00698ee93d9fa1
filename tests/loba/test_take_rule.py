"""[A11]/[A12] The take rule: a seat may take the discard exactly when some legal sequence of this
turn's plays puts a card of that identity on the table.

The engine's answer (``sim.loba.options.take_ok``: its cheap necessary test, then the search
``sim.loba.takes.can_place``) is compared with the oracle's search over every sequence of
plays (:func:`sim.loba.oracle.take_witness`: new melds of any size, lay-offs, joker lay-offs,
[A22] joker jumps; [A20], [A26] and ``discard_take`` as the rule set says) on generated cases
for every preset and knob variant (``tests/take_bruteforce.py``, which runs the same comparison
at scale: ``python tests/take_bruteforce.py --cases 100000 --seed 1``). The literal cases below
are the ones an engine that only looked at maximal melds and single lay-offs got wrong.
"""

from __future__ import annotations

import numpy as np
import pytest
from take_bruteforce import encode_table, kernel_take, rule_variants, run

from sim.loba import oracle, takes
from sim.loba.cards import parse_card, parse_cards
from sim.loba.state import new_bufs

VARIANTS = rule_variants()
NAMES = sorted(VARIANTS)
N_CASES = 500  # per rule variant; the script runs 100,000+


@pytest.mark.parametrize("name", NAMES)
def test_a12_take_allowed_iff_some_sequence_places_it(name):
    rules = VARIANTS[name]
    counts, bad = run(N_CASES, f"take-{name}", {name: rules})
    assert not bad, f"{counts['disagreements']} disagreements, e.g.\n" + "\n".join(bad)
    # both answers are common, and the hard cases are there
    assert 0.15 * N_CASES < counts["allowed"] < 0.9 * N_CASES, counts
    assert counts["jokers on the table"] > 0.2 * N_CASES
    if rules.decks >= 2:
        assert counts["duplicate-heavy hand"] > 0.05 * N_CASES
    assert counts["unmelded seat"] > 0.2 * N_CASES
    if not rules.go_out_needs_discard:  # (the engine's meld-free shortcut, kernel_take)
        assert counts["unmelded seat, meld-free hand"] > 0.05 * N_CASES, counts
    if rules.discard_take == "meld_or_layoff":
        assert counts["c laid off"] > 0.05 * N_CASES
        chains = sum(counts[f"witness of {k} plays"] for k in (2, 3, "4+"))
        assert chains > 0.01 * N_CASES
        if rules.layoff_requires_own_meld:
            assert counts["unmelded seat melds first"] > 0
        if rules.joker_end_move and rules.jokers_per_escalera:
            assert counts["joker jump in witness"] > 0


# --------------------------------------------------------------------------- literal cases


def H(cards: str) -> list[int]:
    h = [0] * 53
    for c in parse_cards(cards):
        h[c] += 1
    return h


def T(*melds):
    """Table melds: ``("S", lo, hi, jokers)`` escaleras or card strings (piernas)."""
    out = []
    for m in melds:
        if isinstance(m, tuple):
            suit, lo, hi, jokers = m
            out.append(oracle.escalera_window("SHDC".index(suit), lo, hi, set(jokers)))
        else:
            cards = parse_cards(m)
            rank = oracle.rank_of(cards[0])
            out.append(oracle.Pierna(rank, tuple(cards.count(s * 13 + rank - 1) for s in range(4))))
    return out


def both(hand, table, melded, rules, c) -> tuple[bool, bool]:
    """(oracle, kernel) answers; the oracle's witness must replay as legal plays."""
    c = parse_card(c)
    w = oracle.take_witness(H(hand), table, melded, rules, c)
    return w is not None, kernel_take(H(hand), table, melded, rules, c)


PAGAT = VARIANTS["pagat"]


def test_a11_a22_take_after_a_joker_jump():
    """5S 6S 7S JK(8S) on the table, a melded seat holding 8S takes 3S: 8S goes where the joker
    was, the joker jumps to 4S ([A22]) and 3S goes on the new low end."""
    table = T(("S", 5, 8, {8}))
    assert both("8S 2H 9D", table, True, PAGAT, "3S") == (True, True)
    # no jump: the joker stays at 8, nothing reaches 3S
    assert both("8S 2H 9D", table, True, VARIANTS["no_joker_end_move"], "3S") == (False, False)
    # [A20]: not melded and no meld of its own in hand
    assert both("8S 2H 9D", table, False, PAGAT, "3S") == (False, False)
    # ... with one (any legal meld, here 9D 9H 9C) it may
    assert both("8S 9H 9D 9C 2H", table, False, PAGAT, "3S") == (True, True)
    # [A11] new_meld_only: a lay-off does not count
    assert both("8S 2H 9D", table, True, VARIANTS["new_meld_only"], "3S") == (False, False)


def test_a11_a19_a21_a22_what_an_escalera_takes():
    """5S 6S 7S JK(8S) on the table, a melded seat holding nothing near: it may take 4S (a new
    low end) and 8S (the joker's own card: the joker jumps, [A22]), never 6S, a card inside
    the escalera (a second 6S has nowhere to go, [A19]/[A21]: the engine's cheap test refuses
    it before any search). 9S and 10S go on only by a chain from the hand's 9S."""
    table = T(("S", 5, 8, {8}))
    assert both("2H 9D KC", table, True, PAGAT, "4S") == (True, True)
    assert both("2H 9D KC", table, True, PAGAT, "8S") == (True, True)
    assert both("2H 9D KC", table, True, PAGAT, "6S") == (False, False)
    assert both("2H 9D KC", table, True, PAGAT, "10S") == (False, False)
    assert both("9S 2H KC", table, True, PAGAT, "10S") == (True, True)
    # without the jump the joker's card has nowhere to go
    assert both("2H 9D KC", table, True, VARIANTS["no_joker_end_move"], "8S") == (False, False)


def test_a11_a21_joker_layoff_bridges_the_gap():
    """4S 5S 6S on the table, a melded seat holding a joker takes 8S: JK(7S), then 8S."""
    table = T(("S", 4, 6, ()))
    assert both("JK 2H 9D", table, True, PAGAT, "8S") == (True, True)
    assert both("JK 2H 9D", table, True, VARIANTS["jpe2+go_out"], "8S") == (True, True)
    # a joker already on it: one per escalera under pagat
    assert both("JK 2H 9D", T(("S", 4, 6, {4})), True, PAGAT, "8S") == (False, False)


def test_a12_a20_non_maximal_pierna_first():
    """An unmelded seat holding 7S 7S 7H 7D takes 8S onto 4S 5S 6S: it puts down 7S 7H 7D (not
    the four-card pierna, [A9]), lays off its other 7S, then 8S ([A20] its own meld first)."""
    table = T(("S", 4, 6, ()))
    assert both("7S 7S 7H 7D", table, False, PAGAT, "8S") == (True, True)
    # [A26]: the last play would empty the hand
    assert both("7S 7S 7H 7D", table, False, VARIANTS["go_out_needs_discard"], "8S") == (
        False,
        False,
    )
    # ... unless a card is left to discard
    assert both("7S 7S 7H 7D KC", table, False, VARIANTS["go_out_needs_discard"], "8S") == (
        True,
        True,
    )
    # one 7S only: the pierna needs it, nothing bridges 6S-8S
    assert both("7S 7H 7D KC", table, False, PAGAT, "8S") == (False, False)


def test_a12_identical_cards_are_interchangeable():
    """The seat holds a 5H already: the pierna 5S 5H 5D may use either copy; what counts is that
    a 5H reaches the table."""
    assert both("5H 5S 5D", [], False, PAGAT, "5H") == (True, True)
    # a 5H laid off from hand while the taken one stays is the same card identity ([A12])
    assert both("5H 2C", T("5S 5H 5D"), True, PAGAT, "5H") == (True, True)


def test_a12_a26_take_and_go_out():
    """[A25] going out on the turn that took the discard is allowed; under [A26] it is not."""
    assert both("5S 6S", [], False, PAGAT, "7S") == (True, True)
    assert both("5S 6S", [], False, VARIANTS["go_out_needs_discard"], "7S") == (False, False)
    assert both("5S 6S 9D", [], False, VARIANTS["go_out_needs_discard"], "7S") == (True, True)


def test_a12_taking_a_joker():
    """A joker may be taken if a joker reaches the table: in a new escalera or laid off."""
    assert both("5S 6S", [], False, PAGAT, "JK") == (True, True)
    assert both("2C", T(("H", 4, 6, ())), True, PAGAT, "JK") == (True, True)
    assert both("2C", T(("H", 4, 6, {6})), True, PAGAT, "JK") == (False, False)
    assert both("2C 9D", T(("H", 4, 6, ())), False, PAGAT, "JK") == (False, False)


def test_a12_a20_a22_own_meld_then_two_jumps():
    """An unmelded seat holding 8C JC 9S 9H 9D takes KC onto 9C 10C JK(JC): it puts down
    9S 9H 9D ([A20]), lays off JC (the joker jumps to 8C), 8C (it jumps back, to QC), then KC.
    (Found by tests/take_bruteforce.py: the kernel's chain search was asked twice, the second
    time with a visited-state set left dirty by the first.)"""
    table = T(("C", 9, 11, {11}))
    for name in ("classic", "pagat"):
        assert both("8C JC 2D 9S 9H 9D", table, False, VARIANTS[name], "KC") == (True, True)
    assert both("8C JC 2D", table, True, PAGAT, "KC") == (True, True)


def test_a12_two_escaleras_of_the_suit():
    """Two equal escaleras 8D 9D JK(10D): the chain onto either may reach KD (10D, 7D, QD)."""
    table = T(("D", 8, 10, {10}), ("D", 8, 10, {10}))
    assert both("10D 7D QD 2C", table, True, PAGAT, "KD") == (True, True)


def test_chain_search_leaves_its_scratch_clean():
    """``takes.chain_reaches`` documents that its visited-state set is all -1 again on return:
    the engine reuses the same scratch for every take of a game, so a stale entry would refuse
    later takes (the same search, asked again, must give the same answer)."""
    R = PAGAT.to_array()
    bufs = new_bufs(R)
    meld = encode_table(T(("C", 9, 11, {11})))[0]
    h = np.zeros(56, dtype=np.int8)
    for c in parse_cards("8C JC 2D KC"):
        h[c] += 1
    answers = [
        bool(takes.chain_reaches(h, meld, R, parse_card("KC"), 4, bufs.seen, bufs.queue))
        for _ in range(3)
    ]
    assert answers == [True, True, True]
    assert (bufs.seen == -1).all()

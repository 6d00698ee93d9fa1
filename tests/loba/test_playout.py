"""smart's play-outs (``sim.loba.playout``) against the plain forms they replace: playing every
option out with ``option_out_from`` (no meld search once none can be, none at all for a hand
without a new meld) leaves the same hand and table as ``greedy.option_out`` (a full search
every step), smart's ``fewest_left`` picks the option of its plain form and its going-out
pre-test (``may_go_out_with``) answers as ``greedy.may_go_out``; the bounds on what a play-out
leaves (``leave_bounds``) never exceed what it leaves, and ``way_out``, which skips the options
they rule out, answers as ``greedy.going_out``; on random hands (jokers, duplicate cards) and
tables under the rule variants of ``test_largest_meld.py``."""

from __future__ import annotations

import numpy as np
import pytest
from loba_random import RULE_VARIANTS, random_hand, random_table

from sim.loba.cards import rank_of, suit_of
from sim.loba.greedy import (
    cards_covered,
    going_out,
    loose_cards,
    may_go_out,
    may_go_out_with,
    option_out,
)
from sim.loba.layout import HAND_W, JOKER, MAX_MELDS, MELD, N_IDS, PLAY, PUB, A, M
from sim.loba.moves import (
    gen_layoffs,
    gen_new_melds,
    hand_value,
    largest_new_meld,
    options_bound,
)
from sim.loba.playout import leave_bounds, option_out_from, way_out
from sim.loba.policies.smart import fewest_left
from sim.loba.rules import RULE
from sim.setup import make_rules

RULES = RULE_VARIANTS


def _hand(rng, decks, most):
    return random_hand(rng, decks, int(rng.integers(1, 5)), most, natural=0.88)


def _case(preset, over, salt):
    """The rules of a preset and variant, a random stream, an option buffer, a table and a
    public view with the rules filled in."""
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.RULES : PUB.RULES + RULE.SIZE] = R
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    return rules, R, np.random.default_rng(salt), acts, melds, pub


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_option_out_from_is_option_out(preset, over):
    rules = make_rules(preset, **RULES[over])
    R = rules.to_array()
    rng = np.random.default_rng(17 * over + len(preset))
    acts = np.zeros((options_bound(R), A.SIZE), dtype=np.int16)
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    h1 = np.zeros(HAND_W, dtype=np.int8)
    h2 = np.zeros(HAND_W, dtype=np.int8)
    ms1 = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    ms2 = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    opts = np.zeros((1, A.SIZE), dtype=np.int16)
    row = np.zeros(A.SIZE, dtype=np.int16)
    plays = deep = nomeld = 0
    for t in range(300):
        hand = _hand(rng, rules.decks, 16)
        nm = random_table(rng, rules.decks, melds, owners=True)[1]
        hn = int(hand[:N_IDS].sum())
        melded = bool(rng.random() < 0.7)
        n = gen_new_melds(hand, hn, R, acts, 0)
        n = gen_layoffs(hand, hn, melds, nm, R, acts, n)
        view = hand[:N_IDS]
        meldable = largest_new_meld(view, hn, R, row)
        nomeld += not meldable
        for i in range(n):
            ms1[:] = 0
            ms2[:] = 0
            left1 = option_out(view, melds, nm, R, melded, 1, acts[i], h1, ms1, opts)
            left2 = option_out_from(
                view, hn, melds, nm, R, melded, 1, acts[i], h2, ms2, row, meldable
            )
            assert left1 == left2, (t, i)
            assert np.array_equal(h1[:N_IDS], h2[:N_IDS]), (t, i)
            assert np.array_equal(ms1, ms2), (t, i)
            plays += 1
            deep += hn - int(acts[i, A.N]) - left1 >= 2
    assert plays > 300 and deep > 30 and nomeld > 20, (plays, deep, nomeld)


def _fewest_left_plain(hand, melds, nm, R, melded, acts, n):
    """smart's fewest_left as it was: every option played out by greedy.option_out."""
    h = np.zeros(HAND_W, dtype=np.int8)
    ms = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    opts = np.zeros((1, A.SIZE), dtype=np.int16)
    best, best_key = -1, 1 << 62
    for i in range(n):
        g = int(acts[i, A.N]) * 100 + int(acts[i, A.HI]) if acts[i, A.TYPE] == PLAY.MELD else 0
        left = option_out(hand, melds, nm, R, melded, 1, acts[i], h, ms, opts)
        key = int(left) * 100000 + int(hand_value(h, R[RULE.ACE_VALUE], R[RULE.JOKER_VALUE]))
        key = key * 10000 - g
        if key < best_key:
            best, best_key = i, key
    return best


def _out_after(hand, melds, nm, R, melded, act):
    h = np.zeros(HAND_W, dtype=np.int8)
    ms = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    return (
        option_out(hand, melds, nm, R, melded, 1, act, h, ms, np.zeros((1, A.SIZE), np.int16)) <= 1
    )


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_fewest_left_is_the_plain_form(preset, over):
    """smart's fewest_left on views: the option of the plain form above."""
    rules, R, rng, acts, melds, pub = _case(preset, over, 5 * over + len(preset))
    outs = 0  # decisions whose option goes out
    for t in range(200):
        hand = _hand(rng, rules.decks, 16 if t % 2 else 7)  # (small hands go out more often)
        nm = random_table(rng, rules.decks, melds, owners=True)[1]
        hn = int(hand[:N_IDS].sum())
        pub[PUB.SEAT] = 1
        pub[PUB.NMELDS] = nm
        pub[PUB.MELDED] = int(rng.random() < 0.7)
        melded = R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
        n = gen_new_melds(hand, hn, R, acts, 0)
        if melded:
            n = gen_layoffs(hand, hn, melds, nm, R, acts, n)
        if rng.random() < 0.3 and n > 2:  # a part of the list (a taken discard's options)
            n = int(rng.integers(1, n))
        if n == 0:
            continue
        view, table, a = hand[:N_IDS], melds[:nm], acts[:n]
        want = _fewest_left_plain(view, melds, nm, R, melded, acts, n)
        assert fewest_left(view, table, pub, a, n) == want, t
        outs += want >= 0 and _out_after(view, melds, nm, R, melded, acts[want])
    assert outs >= 3, outs


def _may_go_out_plain(hand, melds, nm, R, melded, cover):
    """The pre-test card by card: every card but one is put down by some option (bit c of
    ``cover``), or, before the seat's own meld where lay-offs wait for it ([A20]), could be
    laid off later on a table pierna of its rank or escalera of its suit (a joker: on an
    escalera)."""
    loose = [c for c in range(N_IDS) for _ in range(hand[c]) if not (cover >> c) & 1]
    if len(loose) <= 1:
        return True
    if R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or melded == 1:
        return False
    ranks = {int(m[M.KEY]) for m in melds[:nm] if m[M.KIND] == MELD.PIERNA}
    suits = {int(m[M.KEY]) for m in melds[:nm] if m[M.KIND] != MELD.PIERNA}
    left = [
        c
        for c in loose
        if (c == JOKER and not suits)
        or (c != JOKER and rank_of(c) not in ranks and suit_of(c) not in suits)
    ]
    return len(left) <= 1


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_may_go_out_with_is_may_go_out(preset, over):
    """The going-out pre-test (``greedy.may_go_out``, and ``may_go_out_with`` from the cover
    smart already has) against its plain form, card by card."""
    rules, R, rng, acts, melds, pub = _case(preset, over, 9 * over + len(preset))
    yes = 0
    for t in range(400):
        hand = _hand(rng, rules.decks, 16 if t % 2 else 8)
        nm = random_table(rng, rules.decks, melds, owners=True)[1]
        hn = int(hand[:N_IDS].sum())
        pub[PUB.NMELDS] = nm
        pub[PUB.MELDED] = int(rng.random() < 0.5)
        n = gen_new_melds(hand, hn, R, acts, 0)
        if R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
            n = gen_layoffs(hand, hn, melds, nm, R, acts, n)
        view, table, a = hand[:N_IDS], melds[:nm], acts[:n]
        cover = cards_covered(a, n)
        want = _may_go_out_plain(view, melds, nm, R, pub[PUB.MELDED], cover)
        assert may_go_out(view, table, pub, a, n) == want, t
        assert may_go_out_with(view, table, pub, cover, loose_cards(view, cover)) == want, t
        yes += want
    assert 20 < yes < 380, yes


def _complete_list(rng, rules, R, acts, melds, pub, most):
    """A random hand and table, and every play of the hand (a complete list: every new meld,
    and the lay-offs once the seat may lay off)."""
    hand = _hand(rng, rules.decks, most)
    nm = random_table(rng, rules.decks, melds, owners=True)[1]
    hn = int(hand[:N_IDS].sum())
    pub[PUB.SEAT] = 1
    pub[PUB.NMELDS] = nm
    pub[PUB.MELDED] = int(rng.random() < 0.5)
    n = gen_new_melds(hand, hn, R, acts, 0)
    if R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
        n = gen_layoffs(hand, hn, melds, nm, R, acts, n)
    return hand, nm, n


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_leave_bounds_never_exceed_the_play_out(preset, over):
    """Every option's bound is at most the cards its play-out leaves (the bound rules an
    option out of a way out only when it cannot go out)."""
    rules, R, rng, acts, melds, pub = _case(preset, over, 23 * over + len(preset))
    h = np.zeros(HAND_W, dtype=np.int8)
    ms = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    opts = np.zeros((1, A.SIZE), dtype=np.int16)
    bound = np.zeros(64, dtype=np.int64)
    checked = cut = tight = 0
    for t in range(300):
        hand, nm, n = _complete_list(rng, rules, R, acts, melds, pub, 16 if t % 2 else 9)
        view = hand[:N_IDS]
        if not leave_bounds(view, melds, nm, acts, n, rules.decks, bound):
            assert rules.decks > 2 or n > 64, (t, n)
            continue
        melded = R[RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
        for i in range(n):
            left = option_out(view, melds, nm, R, melded, 1, acts[i], h, ms, opts)
            assert 0 <= bound[i] <= left, (t, i, int(bound[i]), int(left))
            checked += 1
            cut += bound[i] >= 2
            tight += bound[i] == left
    if rules.decks > 2:
        assert checked == 0
    else:
        assert checked > 300 and cut > 30 and tight > 20, (checked, cut, tight)


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
@pytest.mark.parametrize("over", range(len(RULES)))
def test_way_out_is_going_out(preset, over):
    """``way_out`` on a complete list: ``going_out``'s option (any card, or one that must go
    down), and with ``first`` an option exactly when going_out finds one."""
    rules, R, rng, acts, melds, pub = _case(preset, over, 31 * over + len(preset))
    outs = 0
    for t in range(300):
        hand, nm, n = _complete_list(rng, rules, R, acts, melds, pub, 14 if t % 2 else 7)
        if n == 0:
            continue
        view, table, a = hand[:N_IDS], melds[:nm], acts[:n]
        held = np.flatnonzero(view)
        for must in (-1, int(rng.choice(held))):
            want = going_out(view, table, pub, a, n, must)[0]
            assert way_out(view, table, pub, a, n, must, False) == want, (t, must)
            assert (way_out(view, table, pub, a, n, must, True) >= 0) == (want >= 0), (t, must)
            outs += want >= 0
    assert outs >= 5, outs

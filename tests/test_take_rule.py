"""[A11]/[A12] The engine allows taking the discard exactly when some legal sequence of plays
this turn puts it on the table. Compared with a brute-force search over play sequences built
from the independent oracle, on many generated tables and hands."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scenario import table

from sim.loba import engine, oracle
from sim.loba.layout import MAX_ACTS
from sim.rules import make_rules

SUIT = "SHDC"
RANK = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def name(c):
    return "JK" if c == 52 else RANK[c % 13] + SUIT[c // 13]


def brute_can_place(hand, tbl, melded, c, rules, depth=5):
    """Is there a legal sequence of plays (<= depth) that puts identity ``c`` on the table?"""
    layoff_ok = rules.discard_take == "meld_or_layoff"
    need_own = rules.layoff_requires_own_meld

    def places(h, t, m, d):
        for p in oracle.piernas_in_hand(h, rules):
            if c in p.cards():
                return True
        for e in oracle.escalera_windows_in_hand(h, rules):
            if c in e.cards():
                return True
        if d == 0:
            return False
        may_lay = m or not need_own
        if layoff_ok and may_lay:
            lay = oracle.legal_layoffs(t, h, rules)
            if any(card == c for (_, card, _, _) in lay):
                return True
            for i, card, pos, jt in lay:  # extend the melds c might go onto
                meld = t[i]
                if not isinstance(meld, oracle.Escalera) or meld.suit != c // 13:
                    continue
                h2 = list(h)
                h2[card] -= 1
                t2 = list(t)
                if card == 52:
                    t2[i] = oracle.Escalera(meld.suit, meld.naturals, meld.jokers | {pos})
                elif jt:
                    t2[i] = oracle.Escalera(
                        meld.suit, meld.naturals | {pos}, (meld.jokers - {pos}) | {jt}
                    )
                else:
                    t2[i] = oracle.Escalera(meld.suit, meld.naturals | {pos}, meld.jokers)
                if places(h2, t2, m, d - 1):
                    return True
        if layoff_ok and not may_lay:  # a meld of one's own first (not using c)
            cands = oracle.piernas_in_hand(h, rules) + oracle.escalera_windows_in_hand(h, rules)
            for meld in cands:
                cards = meld.cards()
                if c in cards:
                    continue
                h2 = list(h)
                for x in cards:
                    h2[x] -= 1
                if places(h2, t + [meld], True, d - 1):
                    return True
        return False

    return places(hand, tbl, melded, depth)


def random_case(rng: random.Random, rules):
    deck = [x for x in range(52) for _ in range(rules.decks)] + [52] * rules.jokers
    rng.shuffle(deck)
    c = rng.randrange(52)
    deck.remove(c)
    s, r = c // 13, c % 13 + 1
    melds = []
    for _ in range(rng.randrange(0, 4)):  # table escaleras near c, or a pierna of its rank
        if rng.random() < 0.7:
            lo = max(1, min(14 - 2, r + rng.randrange(-5, 3)))
            hi = min(14, lo + rng.randrange(2, 5))
            if hi - lo + 1 < rules.escalera_min:
                continue
            cards = [oracle.card_at(p, s) for p in range(lo, hi + 1)]
            if any(deck.count(x) < cards.count(x) for x in set(cards)):
                continue
            for x in cards:
                deck.remove(x)
            melds.append([name(x) for x in cards])
        else:
            suits = rng.sample(range(4), 3)
            cards = [t * 13 + r - 1 for t in suits]
            if any(x not in deck for x in cards):
                continue
            for x in cards:
                deck.remove(x)
            melds.append([name(x) for x in cards])
    near = [
        x for x in deck if x == 52 or (x // 13 == s and abs(x % 13 + 1 - r) <= 3) or x % 13 + 1 == r
    ]
    hand = rng.sample(near, min(len(near), rng.randrange(2, 6)))
    for x in hand:
        deck.remove(x)
    hand += rng.sample(deck, rng.randrange(3, 7))
    return [name(x) for x in hand], melds, name(c), rng.random() < 0.5


@pytest.mark.parametrize("preset", ["pagat", "classic", "rami"])
def test_a12_take_allowed_iff_some_sequence_places_it(preset):
    rules = make_rules(preset)
    rng = random.Random(1234)
    acts = np.zeros((MAX_ACTS, 7), np.int16)
    plan = np.zeros((200, 7), np.int16)
    sh = np.zeros(53, np.int8)
    sm = np.zeros((64, 11), np.int16)
    checked = feasible = 0
    for _ in range(400):
        hand, melds, c, melded = random_case(rng, rules)
        try:
            g = table(
                rules,
                hands=[["2S"], hand],
                melds=melds,
                pile=[c],
                stock=["KD"],
                current=1,
                melded=[1] if melded else [],
            )
        except AssertionError:
            continue  # a generated meld the rule set does not allow
        cid = oracle.to_ids([c])[0]
        k = engine.plan_take(g.st, g.R, 1, cid, plan, acts, sh, sm)
        h = [int(x) for x in g.hand_counts(1)]
        h[cid] += 1
        tbl = []
        for m in g.melds():
            if m["kind"] == "escalera":
                tbl.append(
                    oracle.escalera_window(m["suit"], m["lo"], m["hi"], m["joker_positions"])
                )
            else:
                tbl.append(
                    oracle.Pierna(
                        m["rank"], tuple(m["cards"].count(t * 13 + m["rank"] - 1) for t in range(4))
                    )
                )
        want = brute_can_place(h, tbl, melded, cid, rules)
        assert (k > 0) == want, (preset, hand, melds, c, melded, k, want)
        checked += 1
        feasible += want
    assert checked > 300 and 0.1 * checked < feasible < checked

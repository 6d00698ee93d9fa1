"""The compiled meld logic against the independent oracle (sim/loba/oracle.py), rules [A15]-[A22].

Three kernel entry points are compared with the oracle:

* ``check_meld`` (the kernel's ``judge_meld``): verdict and, for a legal meld, the exact text
  (escalera cards in order with each joker's stand-in, [A18] default placement);
* ``moves.gen_layoffs``: the exact set of single-card lay-offs ([A21], [A22]);
* ``moves.gen_new_melds`` (through ``moves.list_plays`` with an empty table): exactly the
  oracle's :func:`~sim.loba.oracle.all_new_melds`, each once ([A9]: any legal meld, not only
  the largest; every copy choice, every window, every joker placement).
  ``tests/loba/test_moves_complete.py`` compares whole option lists, lay-offs included.

Generated cases come from seeded ``random.Random`` streams; the literal tables below them are
named by rule id.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from take_bruteforce import encode_table as encode_rows

from sim.loba import moves, oracle
from sim.loba.cards import card_str, parse_card, position_card
from sim.loba.layout import MAX_MELDS, MELD, PLAY, A, M
from sim.loba.melds import check_meld
from sim.loba.oracle import JOKER, Escalera, Pierna, card_at, escalera_window, natural
from sim.setup import make_rules

C = parse_card

# every preset, both deck counts (and three), every joker allowance, both [A22] settings
RULESETS = {
    "pagat": make_rules("pagat"),
    "classic": make_rules("classic"),
    "rami": make_rules("rami"),
    "pagat_decks1": make_rules("pagat", decks=1),
    "classic_decks1": make_rules("classic", decks=1),
    "pagat_decks3": make_rules("pagat", decks=3),
    "classic_decks3": make_rules("classic", decks=3),
    "rami_no_move": make_rules("rami", joker_end_move=False),
    "pagat_no_move": make_rules("pagat", joker_end_move=False),
    "pagat_jpe0": make_rules("pagat", jokers_per_escalera=0),
    "pagat_jpe2": make_rules("pagat", jokers_per_escalera=2),
    "classic_jpe3_min5": make_rules("classic", jokers_per_escalera=3, escalera_min=5),
    "rami_jpe4": make_rules("rami", jokers_per_escalera=4, decks=1),
}
RULE_NAMES = sorted(RULESETS)
RULE_ERROR = re.compile(r"^\[A1[5-7]\]")


# --------------------------------------------------------------------------- kernel adapters


def hand_counts(cards) -> np.ndarray:
    h = np.zeros(53, dtype=np.int8)
    for c in cards:
        h[C(c) if isinstance(c, str) else c] += 1
    return h


def encode_table(table) -> tuple[np.ndarray, int]:
    """Oracle melds -> the kernel's int16 table rows, padded to MAX_MELDS, and their count."""
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    melds[: len(table)] = encode_rows(table)
    return melds, len(table)


def kernel_layoffs(table, hand, rules) -> list[tuple[int, int, int, int]]:
    melds, nm = encode_table(table)
    acts = np.zeros((8 * MAX_MELDS, A.SIZE), dtype=np.int16)
    n = moves.gen_layoffs(hand, int(hand.sum()), melds, nm, rules.to_array(), acts, 0)
    assert 0 <= n < len(acts)
    for i in range(n):
        assert acts[i, A.TYPE] == PLAY.LAYOFF and acts[i, A.N] == 1
    return sorted((int(a[A.KIND]), int(a[A.KEY]), int(a[A.LO]), int(a[A.HI])) for a in acts[:n])


def kernel_new_melds(hand, rules) -> list[tuple[int, ...]]:
    """The kernel's new-meld rows for ``hand`` (``moves.list_plays`` on an empty table)."""
    empty = np.zeros((0, M.SIZE), dtype=np.int16)
    acts = moves.list_plays(hand, empty, False, rules.to_array())
    return [tuple(int(x) for x in a) for a in acts]


def meld_row(meld) -> tuple[int, ...]:
    """An oracle meld as the kernel's new-meld row (pierna ``A.LO``: two bits per suit)."""
    if isinstance(meld, Pierna):
        packed = sum(meld.counts[s] << (2 * s) for s in range(4))
        return (PLAY.MELD, MELD.PIERNA, meld.rank, packed, 0, 0, meld.n)
    jm = sum(1 << p for p in meld.jokers)
    return (PLAY.MELD, MELD.ESCALERA, meld.suit, meld.lo, meld.hi, jm, meld.n)


def show(cards) -> str:
    return " ".join(card_str(c) for c in cards)


def ids_from_hand(hand) -> list[int]:
    return [c for c in range(53) for _ in range(int(hand[c]))]


# --------------------------------------------------------------------------- generators


def deck_pool(rules, max_jokers=4) -> list[int]:
    return [c for c in range(52) for _ in range(rules.decks)] + [JOKER] * min(
        rules.jokers, max_jokers
    )


def gen_meld_candidate(rng: random.Random, rules) -> list[int]:
    """A card list near the edge of legality (runs, sets, wraps, aces, jokers), or noise."""
    kind = rng.random()
    if kind < 0.5:  # run-like
        suit = rng.randrange(4)
        if rng.random() < 0.12:  # a wrap through the ace: K-A-2 and friends
            a = rng.randint(1, 3)
            b = rng.randint(1, 3)
            positions = list(range(14 - a + 1, 15)) + list(range(2, 2 + b))
        else:
            length = rng.choice([2, 3, 3, 4, 4, 5, 6, 7, 9, 12, 13, 14])
            lo = rng.choice([1, 1, 2, 15 - min(length, 14), rng.randint(1, 15 - min(length, 14))])
            lo = max(1, min(lo, 15 - min(length, 14)))
            positions = list(range(lo, min(14, lo + length - 1) + 1))
        cards = [card_at(p, suit) for p in positions]
        k = rng.choice([0, 0, 1, 1, 1, 2, 2, 3, 4])
        if rng.random() < 0.7:  # mostly within the rule set's allowance, sometimes one over
            k = min(k, rules.jokers_per_escalera + (rng.random() < 0.2))
        for _ in range(k):  # jokers in for naturals
            if cards and rng.random() < 0.6:
                cards.pop(rng.randrange(len(cards)))
            cards.append(JOKER)
        r = rng.random()
        if r < 0.06 and cards:  # off-suit card
            i = rng.randrange(len(cards))
            if cards[i] != JOKER:
                cards[i] = natural(oracle.rank_of(cards[i]), (suit + 1) % 4)
        elif r < 0.12 and cards:  # a repeated card
            cards.append(rng.choice(cards))
        elif r < 0.18:  # a stray ace of the suit
            cards.append(natural(1, suit))
    elif kind < 0.85:  # set-like
        rank = rng.randint(1, 13)
        cards = []
        for s in range(4):
            k = rng.choice([0, 0, 1, 1, 1, 2, 2, 3])
            if rng.random() < 0.8:
                k = min(k, rules.decks)
            cards += [natural(rank, s)] * k
        if rng.random() < 0.12:
            cards.append(JOKER)
        if rng.random() < 0.08:
            cards.append(natural(rng.randint(1, 13), rng.randrange(4)))
    else:  # noise
        cards = [rng.randrange(53) for _ in range(rng.randint(0, 6))]
    rng.shuffle(cards)
    return cards


def gen_escalera(rng: random.Random, rules) -> Escalera:
    """A random legal escalera, biased towards ace ends and end jokers."""
    while True:
        suit = rng.randrange(4)
        length = rng.randint(rules.escalera_min, 13)
        r = rng.random()
        if r < 0.25:
            lo = 1
        elif r < 0.5:
            lo = 15 - length
        else:
            lo = rng.randint(1, 15 - length)
        hi = lo + length - 1
        k = rng.randint(0, min(rules.jokers_per_escalera, length - 2))
        window = list(range(lo, hi + 1))
        jokers = set()
        for _ in range(k):
            if rng.random() < 0.5:
                jokers.add(rng.choice([lo, hi]))
            else:
                jokers.add(rng.choice(window))
        esc = escalera_window(suit, lo, hi, jokers)
        if oracle.escalera_problem(esc, rules) is None:
            return esc


def gen_pierna(rng: random.Random, rules) -> Pierna:
    """A random legal pierna."""
    while True:
        rank = rng.randint(1, 13)
        if rules.pierna_suits == "exactly_three":
            suits = rng.sample(range(4), 3)
        else:
            suits = rng.sample(range(4), rng.randint(1, 3))
        counts = [0, 0, 0, 0]
        for s in suits:
            counts[s] = rng.randint(1, rules.decks)
        if oracle.pierna_problem(rank, counts, rules) is None:
            return Pierna(rank, tuple(counts))


def gen_table_and_hand(rng: random.Random, rules):
    table = []
    for _ in range(rng.randint(1, 6)):
        table.append(gen_escalera(rng, rules) if rng.random() < 0.65 else gen_pierna(rng, rules))
    # cards that matter to this table, plus noise
    near = []
    for m in table:
        if isinstance(m, Pierna):
            near += [natural(m.rank, s) for s in range(4)]
        else:
            for p in (m.lo - 1, m.hi + 1, *m.jokers):
                if 1 <= p <= 14:
                    near.append(card_at(p, m.suit))
            near += [natural(1, m.suit), natural(13, m.suit)]
    hand = np.zeros(53, dtype=np.int8)
    cap = rules.decks
    for _ in range(rng.randint(1, 12)):
        r = rng.random()
        c = rng.choice(near) if r < 0.6 else (JOKER if r < 0.75 else rng.randrange(52))
        if c == JOKER:
            if hand[JOKER] < min(rules.jokers, 4):
                hand[JOKER] += 1
        elif hand[c] < cap:
            hand[c] += 1
    if hand.sum() == 0:
        hand[rng.randrange(52)] = 1
    return table, hand


def gen_hand(rng: random.Random, rules) -> np.ndarray:
    """A hand drawn from the deck, often concentrated on one suit or one rank."""
    pool = deck_pool(rules)
    size = rng.randint(3, 15)
    r = rng.random()
    if r < 0.35:  # suit-heavy: runs
        suit = rng.randrange(4)
        pool = [c for c in pool if c == JOKER or oracle.suit_of(c) == suit] * 1 + rng.sample(
            pool, 10
        )
    elif r < 0.6:  # rank-heavy: sets
        ranks = rng.sample(range(1, 14), 2)
        pool = [c for c in pool if c != JOKER and oracle.rank_of(c) in ranks] + rng.sample(pool, 8)
    hand = np.zeros(53, dtype=np.int8)
    cap = rules.decks
    for c in rng.sample(pool, min(size, len(pool))):
        if c == JOKER:
            if hand[JOKER] < min(rules.jokers, 4):
                hand[JOKER] += 1
        elif hand[c] < cap:
            hand[c] += 1
    return hand


# --------------------------------------------------------------------------- generated cases

# cases per rule set (13 rule sets)
N_JUDGE = 1000
N_LAYOFF = 500
N_NEW = 400


def test_oracle_card_model_matches_notation():
    """The oracle's own card arithmetic agrees with sim.loba.cards (notation only)."""
    for suit in range(4):
        for p in range(1, 15):
            assert card_at(p, suit) == position_card(p, suit)
    for cid in range(52):
        assert C(card_str(cid)) == cid == natural(oracle.rank_of(cid), oracle.suit_of(cid))


def judge_categories(cards, want) -> set[str]:
    """The edges a check_meld case exercises (for the coverage assertions)."""
    cats = set()
    nats = [c for c in cards if c != JOKER]
    one_suit = nats and len({oracle.suit_of(c) for c in nats}) == 1
    ranks = {oracle.rank_of(c) for c in nats}
    if one_suit and {13, 1, 2} <= ranks:
        cats.add("wrap K-A-2")
    if not want.ok:
        return cats | {"invalid"}
    if want.ambiguous:
        cats.add("ace low or high")
    m = want.meld
    if isinstance(m, Pierna):
        cats.add("pierna")
        if len(m.suits) < 3:
            cats.add("pierna in < 3 suits")
        if max(m.counts) > 1:
            cats.add("pierna with a repeated suit")
        return cats
    cats.add("escalera")
    if 1 in m.naturals:
        cats.add("A-2-3")
    if 14 in m.naturals:
        cats.add("Q-K-A")
    if m.lo in m.jokers:
        cats.add("joker at the low end")
    if m.hi in m.jokers:
        cats.add("joker at the high end")
    if any(m.lo < p < m.hi for p in m.jokers):
        cats.add("joker in the middle")
    if any(
        p in (1, 14) or (p == 2 and 1 in m.naturals) or (p == 13 and 14 in m.naturals)
        for p in m.jokers
    ):
        cats.add("joker next to an ace end")
    if len(m.jokers) >= 2:
        cats.add("two jokers")
    return cats


@pytest.mark.parametrize("name", RULE_NAMES)
def test_a15_a18_check_meld_matches_oracle(name):
    """[A15]-[A18]: verdict, and the exact text (placement of every joker) of a legal meld."""
    rules = RULESETS[name]
    rng = random.Random(f"judge-{name}")
    seen: dict[str, int] = {}
    for case in range(N_JUDGE):
        cards = gen_meld_candidate(rng, rules)
        arg = [card_str(c) for c in cards] if case % 2 else cards
        ok, text = check_meld(arg, rules)
        want = oracle.judge(cards, rules)
        assert ok == want.ok, (name, show(cards), text, want.text)
        if ok:
            # one reading of the ace, each joker where [A18] puts it
            assert text in want.texts, (name, show(cards), text, sorted(want.texts))
        else:
            assert RULE_ERROR.match(text), (name, show(cards), text)
        for c in judge_categories(cards, want):
            seen[c] = seen.get(c, 0) + 1
    # the generator reaches every edge the rule set allows, many times
    need = ["invalid", "pierna", "escalera", "A-2-3", "Q-K-A", "wrap K-A-2"]
    if rules.decks >= 2:
        need.append("pierna with a repeated suit")
        if rules.pierna_suits == "not_all_four":
            need.append("pierna in < 3 suits")  # e.g. KC KC KD
    if rules.jokers_per_escalera >= 1:
        need += [
            "joker at the low end",
            "joker at the high end",
            "joker in the middle",
            "joker next to an ace end",
        ]
    if rules.jokers_per_escalera >= 2:
        need.append("two jokers")
    assert {c: seen.get(c, 0) for c in need if seen.get(c, 0) < 8} == {}
    assert seen["invalid"] >= 150 and seen["escalera"] >= 80 and seen["pierna"] >= 40


@pytest.mark.parametrize("name", RULE_NAMES)
def test_a21_a22_gen_layoffs_matches_oracle(name):
    """[A21]/[A22]: the kernel's lay-offs are exactly the oracle's legal single-card lay-offs."""
    rules = RULESETS[name]
    rng = random.Random(f"layoff-{name}")
    seen: dict[str, int] = {}

    def count(cat, k=1):
        seen[cat] = seen.get(cat, 0) + k

    for _ in range(N_LAYOFF):
        table, hand = gen_table_and_hand(rng, rules)
        got = kernel_layoffs(table, hand, rules)
        want = sorted(oracle.legal_layoffs(table, hand, rules))
        assert got == want, (name, table, show(ids_from_hand(hand)))
        for _i, c, p, t in want:
            count("pierna" if p == -1 else "joker" if c == JOKER else "natural")
            count("end joker jumps", t != 0)
            count("ace low", c != JOKER and p == 1)
            count("ace high", c != JOKER and p == 14)
        for m in table:  # refusals the hand was in a position to try
            if isinstance(m, Pierna):
                count("pierna rank held", any(hand[natural(m.rank, s)] for s in range(4)))
            else:
                for q in m.jokers:
                    if hand[card_at(q, m.suit)] > 0:
                        count("natural of a middle joker held", m.lo < q < m.hi)
                        count(
                            "end joker blocked by the ace",
                            (q == m.lo and m.hi == 14) or (q == m.hi and m.lo == 1),
                        )
    need = ["pierna rank held", "natural", "ace low", "ace high"]
    if rules.decks >= 2:
        need.append("pierna")  # with one deck a legal pierna is already full
    if rules.jokers_per_escalera >= 1:
        need += ["joker", "natural of a middle joker held", "end joker blocked by the ace"]
        if rules.joker_end_move:
            need.append("end joker jumps")
    assert {c: seen.get(c, 0) for c in need if seen.get(c, 0) < 5} == {}
    if not rules.joker_end_move or rules.jokers_per_escalera == 0:
        assert seen.get("end joker jumps", 0) == 0


def new_meld_problems(hand, rules) -> list[str]:
    """Everything wrong with the kernel's new-meld list for this hand (empty when all is well):
    it must be exactly the oracle's :func:`~sim.loba.oracle.all_new_melds`, each row once."""
    rows = kernel_new_melds(hand, rules)
    bad = []
    if len(set(rows)) != len(rows):
        bad.append("a row listed twice")
    want = {meld_row(m): m for m in oracle.all_new_melds(hand, rules)}
    if rules.go_out_needs_discard:  # [A26]
        want = {r: m for r, m in want.items() if m.n < hand.sum()}
    for r in sorted(set(want) - set(rows))[:3]:
        bad.append(f"legal {want[r].text()} not listed")
    for r in sorted(set(rows) - set(want))[:3]:
        bad.append(f"row {r} is not a legal meld from this hand")
    return bad


@pytest.mark.parametrize("name", RULE_NAMES)
def test_a9_a15_a17_gen_new_melds_exactly_the_legal_melds(name):
    """[A9] New melds from hand: every legal meld (any size, every copy choice, every window,
    every joker placement) is listed, nothing else, each once."""
    rules = RULESETS[name]
    rng = random.Random(f"new-{name}")
    with_melds = 0
    failures = []
    for _ in range(N_NEW):
        hand = gen_hand(rng, rules)
        with_melds += bool(oracle.all_new_melds(hand, rules))
        bad = new_meld_problems(hand, rules)
        if bad:
            failures.append(f"hand {show(ids_from_hand(hand))}: {bad[0]}")
    assert with_melds >= 40
    assert not failures, f"{len(failures)} hands disagree under {name}, e.g.\n" + "\n".join(
        failures[:5]
    )


def _window_brute(m: int, J: int, mn: int) -> bool:
    """Some run window of >= mn positions in 1..14 with >= 2 naturals and <= J gaps."""
    for lo in range(1, 15):
        for hi in range(lo + mn - 1, min(14, lo + 12) + 1):
            nat = sum((m >> p) & 1 for p in range(lo, hi + 1))
            if nat >= 2 and (hi - lo + 1) - nat <= J:
                return True
    return False


def test_a16_a17_has_window_equals_brute_force_on_every_suit():
    """The escalera prefilter of gen_new_melds/take_may_work, on all 8,192 suit holdings."""
    bad = []
    for bits in range(1 << 13):
        m = bits << 1
        if m & 2:
            m |= 1 << 14  # the ace stands at 1 and at 14
        for J in range(5):
            for mn in (3, 4, 5, 6, 13):
                if bool(moves.has_window(m, J, mn)) != _window_brute(m, J, mn):
                    bad.append((bin(m), J, mn))
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:3]}"


def test_suit_masks_match_suit_positions_and_counts():
    from sim.loba.layout import HAND_W

    rng = random.Random("masks")
    for _ in range(500):
        h = np.zeros(53, dtype=np.int8)
        for _ in range(rng.randrange(0, 30)):
            h[rng.randrange(53)] += 1
        h = np.minimum(h, 3).astype(np.int8)  # at most three packs
        got = moves.suit_masks(h)
        for s in range(4):
            assert got[s] == moves.suit_positions(h, s)
        dup = sum(1 << (r + 1) for r in range(13) if max(h[s * 13 + r] for s in range(4)) > 1)
        assert got[4] == dup
        # a state's padded row takes the word-at-a-time path; same answer
        row = np.zeros(HAND_W, dtype=np.int8)
        row[:53] = h
        assert moves.suit_masks(row) == got


# --------------------------------------------------------------------------- literal cases

P, CL, RA = "pagat", "classic", "rami"


def R(preset, **kw):
    return make_rules(preset, **kw)


def judge_both(cards, rules):
    cards = cards.split()
    got = check_meld(cards, rules)
    want = oracle.judge(cards, rules)
    return got, (want.ok, want.text)


def expect_valid(cards, rules, text):
    got, want = judge_both(cards, rules)
    assert want == (True, text)
    assert got == (True, text)


def expect_invalid(cards, rules, rule_id):
    got, want = judge_both(cards, rules)
    assert want[0] is False and want[1].startswith(rule_id)
    assert got[0] is False and got[1].startswith(rule_id), got


@pytest.mark.parametrize(
    "rules,cards,text",
    [
        (R(P), "KS KH KD", "pierna KS KH KD"),
        (R(P), "KD KS KH KD KS KH", "pierna KS KS KH KH KD KD"),
        (R(P, decks=3), "KS KS KS KH KD", "pierna KS KS KS KH KD"),
        (R(CL), "KC KC KD", "pierna KD KC KC"),
        (R(CL), "KC KD KH", "pierna KH KD KC"),
        (R(CL, decks=3), "KC KC KC", "pierna KC KC KC"),
        (R(CL), "AS AS AH AH AD", "pierna AS AS AH AH AD"),
    ],
)
def test_a15_pierna_valid(rules, cards, text):
    expect_valid(cards, rules, text)


@pytest.mark.parametrize(
    "rules,cards",
    [
        (R(P), "KS KH KD KC"),  # fourth suit
        (R(P), "KC KC KD"),  # exactly_three: two suits only
        (R(P), "KS KS KS KH KD"),  # three copies with two decks
        (R(P, decks=1), "KS KS KH KD"),
        (R(CL), "KS KH KD KC"),  # not_all_four
        (R(CL), "KS KH KD KC KC"),
        (R(CL, decks=1), "KC KC KD"),
        (R(CL), "KC KC KC"),  # two decks: at most two clubs
    ],
)
def test_a15_pierna_invalid(rules, cards):
    expect_invalid(cards, rules, "[A15]")


@pytest.mark.parametrize("rules", [R(P), R(CL), R(RA)])
def test_a15_a16_too_few_or_mixed(rules):
    for cards in ("KS KH", "5S 6S", "5S JK", "KS"):
        got, want = judge_both(cards, rules)
        assert got[0] is False and want[0] is False, cards
        assert RULE_ERROR.match(got[1]), (cards, got)
    expect_invalid("5S 6H 7S", rules, "[A15]")  # neither one rank nor one suit


@pytest.mark.parametrize(
    "rules,cards,text",
    [
        (R(P), "AS 2S 3S", "escalera AS 2S 3S"),
        (R(P), "QS KS AS", "escalera QS KS AS"),
        (R(P), "3H 2H AH", "escalera AH 2H 3H"),
        (R(P), "2H 3H 4H 5H", "escalera 2H 3H 4H 5H"),
        (R(RA), "10C JC QC KC", "escalera 10C JC QC KC"),
    ],
)
def test_a16_escalera_valid(rules, cards, text):
    expect_valid(cards, rules, text)


ALL_D = "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD"


@pytest.mark.parametrize(
    "rules,cards,low,high",
    [
        (R(P), "AD " + ALL_D, "AD " + ALL_D, ALL_D + " AD"),
        (
            R(P),
            "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD JK",
            "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD JK(KD)",
            "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD JK(KD) AD",
        ),
        (
            R(P),
            "AD 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD JK",
            "AD JK(2D) 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
            "JK(2D) 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        ),
        (
            R(RA),
            "AD 4D 5D 6D 7D 8D 9D 10D JD JK JK",  # eleven long: lay-offs differ
            "AD JK(2D) JK(3D) 4D 5D 6D 7D 8D 9D 10D JD",
            "4D 5D 6D 7D 8D 9D 10D JD JK(QD) JK(KD) AD",
        ),
    ],
)
def test_a16_ace_low_or_high_when_both_are_legal(rules, cards, low, high):
    """[A16] the ace is read low or high, whichever is legal. Where both are (RULES.md names no
    default), the kernel must take one of the two readings, with [A18] joker placement."""
    got, want = judge_both(cards, rules)
    assert oracle.judge(cards.split(), rules).texts == {"escalera " + low, "escalera " + high}
    assert got[0] is True and got[1] in ("escalera " + low, "escalera " + high)


def test_a16_ace_never_wraps():
    for rules in (R(P), R(CL), R(RA, jokers_per_escalera=4)):
        expect_invalid("KS AS 2S", rules, "[A16]")
        expect_invalid("QS KS AS 2S 3S", rules, "[A16]")
        expect_invalid("KS JK 2S", rules, "[A16]")  # the joker as a wrapping ace
        expect_invalid("KS AS JK 3S", rules, "[A16]")  # ... or as a 2 after a high ace
    # an ace low and high at once: fourteen positions
    expect_invalid("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", R(P), "[A16]")


@pytest.mark.parametrize(
    "rules,cards,rule_id",
    [
        (R(P), "2H 3H 3H", "[A16]"),  # a repeated rank
        (R(P), "2H 3H 5H", "[A16]"),  # a gap and no joker
        (R(P), "2H 4H 6H JK", "[A16]"),  # two gaps, one joker
        (R(RA), "5S 6S 7S", "[A16]"),  # escalera_min = 4
        (R(P, escalera_min=5), "5S 6S 7S JK", "[A16]"),
    ],
)
def test_a16_escalera_invalid(rules, cards, rule_id):
    expect_invalid(cards, rules, rule_id)


@pytest.mark.parametrize(
    "rules,cards",
    [
        (R(P), "KS KH JK"),  # jokers only in escaleras
        (R(CL), "KC KC KD JK"),
        (R(P), "5S 6S JK JK"),  # one joker per escalera
        (R(P), "5S JK JK"),
        (R(RA), "5S JK JK JK"),  # two naturals at least
        (R(RA), "5S 6S JK JK JK"),  # two jokers at most
        (R(P, jokers_per_escalera=0), "5S 6S JK"),
    ],
)
def test_a17_joker_limits(rules, cards):
    expect_invalid(cards, rules, "[A17]")


@pytest.mark.parametrize(
    "rules,cards,text",
    [
        (R(P), "5S 6S JK", "escalera 5S 6S JK(7S)"),  # [A18] high end by default
        (R(P), "JK 10H JH", "escalera 10H JH JK(QH)"),
        (R(P), "5S 7S JK", "escalera 5S JK(6S) 7S"),  # a joker in the middle
        (R(P), "QS KS JK", "escalera QS KS JK(AS)"),  # a joker as the high ace
        (R(P), "KS AS JK", "escalera JK(QS) KS AS"),  # high end impossible: low end
        (R(P), "AS KS JK", "escalera JK(QS) KS AS"),
        (R(P), "AS 2S JK", "escalera AS 2S JK(3S)"),  # next to a low ace
        (R(P), "2S 3S JK", "escalera 2S 3S JK(4S)"),
        (R(P), "AS 3S JK", "escalera AS JK(2S) 3S"),
        (R(P), "AS QS JK", "escalera QS JK(KS) AS"),  # the ace reads high
        (R(RA), "QS KS JK JK", "escalera JK(JS) QS KS JK(AS)"),  # one high, one low
        (R(RA), "KS AS JK JK", "escalera JK(JS) JK(QS) KS AS"),
        (R(RA), "AS 2S JK JK", "escalera AS 2S JK(3S) JK(4S)"),
        (R(RA), "5D 8D JK JK", "escalera 5D JK(6D) JK(7D) 8D"),
        (R(RA), "5D 7D JK JK", "escalera 5D JK(6D) 7D JK(8D)"),
        (R(RA, jokers_per_escalera=4), "JC KC JK JK JK", "escalera JK(10C) JC JK(QC) KC JK(AC)"),
    ],
)
def test_a18_joker_placement_default(rules, cards, text):
    expect_valid(cards, rules, text)


# --- lay-offs: tables given as literal melds (read through the oracle), hands as cards


def T(rules, *melds):
    out = []
    for m in melds:
        v = oracle.judge(m.split(), rules)
        assert v.ok, m
        out.append(v.meld)
    return out


def esc(suit, lo, hi, jokers=()):
    return escalera_window("SHDC".index(suit), lo, hi, jokers)


def layoffs_both(table, hand, rules):
    h = hand_counts(hand.split())
    got = kernel_layoffs(table, h, rules)
    want = sorted(oracle.legal_layoffs(table, h, rules))
    return got, want


def expect_layoffs(table, hand, rules, expected):
    expected = sorted((i, C(c), p, t) for i, c, p, t in expected)
    got, want = layoffs_both(table, hand, rules)
    assert want == expected
    assert got == expected


def test_a21_pierna_layoff_exactly_three():
    rules = R(P)
    table = T(rules, "KS KH KD")
    expect_layoffs(table, "KS KC KH 5S", rules, [(0, "KS", -1, 0), (0, "KH", -1, 0)])
    table = T(rules, "KS KS KH KD")  # a third spade would pass decks = 2
    expect_layoffs(table, "KS KC KD", rules, [(0, "KD", -1, 0)])
    expect_layoffs(T(R(P, decks=1), "KS KH KD"), "KS KC", R(P, decks=1), [])


def test_a21_pierna_layoff_not_all_four():
    rules = R(CL)
    expect_layoffs(
        T(rules, "KC KC KD"),
        "KS KH KC KD",
        rules,
        [(0, "KS", -1, 0), (0, "KH", -1, 0), (0, "KD", -1, 0)],
    )
    expect_layoffs(T(rules, "KS KH KD"), "KC KS", rules, [(0, "KS", -1, 0)])


def test_a21_escalera_extends_either_end_in_suit():
    rules = R(P)
    expect_layoffs(
        T(rules, "5S 6S 7S"), "4S 8S 9S 5H 3S", rules, [(0, "4S", 4, 0), (0, "8S", 8, 0)]
    )
    # an ace may go low and high on a 2..K run: two entries
    table = [esc("S", 2, 13)]
    expect_layoffs(table, "AS", rules, [(0, "AS", 1, 0), (0, "AS", 14, 0)])
    # thirteen long: nothing more
    expect_layoffs([esc("S", 1, 13)], "AS JK", rules, [])
    expect_layoffs([esc("S", 2, 14)], "AS JK", rules, [])


def test_a21_joker_as_new_end():
    rules = R(P)
    expect_layoffs(T(rules, "5S 6S 7S"), "JK", rules, [(0, "JK", 4, 0), (0, "JK", 8, 0)])
    expect_layoffs(T(rules, "QS KS AS"), "JK", rules, [(0, "JK", 11, 0)])  # not beyond an ace
    expect_layoffs(T(rules, "AS 2S 3S"), "JK", rules, [(0, "JK", 4, 0)])
    expect_layoffs(T(rules, "5S 6S JK"), "JK", rules, [])  # already one joker
    rami = R(RA)
    expect_layoffs(T(rami, "5S 6S 7S JK"), "JK", rami, [(0, "JK", 4, 0), (0, "JK", 9, 0)])


def test_a22_end_joker_jumps():
    rules = R(P)
    # the rule's own example: 5-6-7-8-JK(9) + 9S -> JK(4)-5-6-7-8-9
    expect_layoffs([esc("S", 5, 9, {9})], "9S", rules, [(0, "9S", 9, 4)])
    expect_layoffs([esc("S", 4, 7, {4})], "4S", rules, [(0, "4S", 4, 8)])
    # a joker standing for the high ace jumps below the queen
    expect_layoffs([esc("S", 12, 14, {14})], "AS", rules, [(0, "AS", 14, 11)])
    # ... and one standing for the low ace jumps above
    expect_layoffs([esc("S", 1, 3, {1})], "AS", rules, [(0, "AS", 1, 4)])
    # two jokers (rami): only the end joker whose natural is laid off moves
    rami = R(RA)
    expect_layoffs([esc("H", 4, 8, {4, 8})], "4H 8H", rami, [(0, "4H", 4, 9), (0, "8H", 8, 3)])


def test_a22_end_joker_cannot_pass_the_ace():
    rules = R(P)
    expect_layoffs([esc("S", 12, 14, {12})], "QS", rules, [])  # would go beyond the high ace
    expect_layoffs([esc("S", 1, 3, {3})], "3S", rules, [])  # would go below the low ace
    expect_layoffs([esc("S", 1, 13, {1})], "AS", rules, [])  # would make fourteen


def test_a22_middle_joker_frozen():
    rules = R(P)
    expect_layoffs([esc("S", 5, 7, {6})], "6S", rules, [])
    expect_layoffs([esc("S", 5, 7, {6})], "6S 4S", rules, [(0, "4S", 4, 0)])
    rami = R(RA)
    expect_layoffs([esc("D", 4, 8, {4, 5})], "5D 4D", rami, [(0, "4D", 4, 9)])


def test_a22_no_move_when_knob_off():
    rules = R(P, joker_end_move=False)
    expect_layoffs([esc("S", 5, 9, {9})], "9S 4S", rules, [(0, "4S", 4, 0)])
    expect_layoffs([esc("S", 12, 14, {14})], "AS", rules, [])


# --- new melds from hand


def new_melds(hand, rules):
    return sorted(kernel_new_melds(hand_counts(hand.split()), rules))


def test_a16_new_meld_ace_low_or_high_never_wrapping():
    rows = new_melds("AS 2S 3S KH 9D", R(P))
    assert rows == [(PLAY.MELD, MELD.ESCALERA, 0, 1, 3, 0, 3)]
    rows = new_melds("QS KS AS 2S 7H", R(P))  # Q-K-A, never K-A-2
    assert rows == [(PLAY.MELD, MELD.ESCALERA, 0, 12, 14, 0, 3)]


def test_a9_a15_new_meld_every_choice_of_copies():
    """[A9] any legal pierna, not only the largest: each choice of three suits, each number of
    copies of a doubled suit (``A.LO`` packs the copies, two bits per suit S H D C)."""
    rows = new_melds("KS KH KD KC KC 2D", R(P))
    counts = [(1, 1, 1, 0), (1, 1, 0, 1), (1, 1, 0, 2), (1, 0, 1, 1), (1, 0, 1, 2)]
    counts += [(0, 1, 1, 1), (0, 1, 1, 2)]
    assert rows == sorted(meld_row(Pierna(13, c)) for c in counts)
    rows = new_melds("KC KC KD 2D", R(CL))
    assert rows == [(PLAY.MELD, MELD.PIERNA, 13, 1 << 4 | 2 << 6, 0, 0, 3)]
    assert new_melds("KC KC KD 2D", R(P)) == []


def test_a17_a18_new_meld_joker_at_either_end():
    rows = new_melds("5S 6S JK 9D", R(P))
    assert rows == [
        (PLAY.MELD, MELD.ESCALERA, 0, 4, 6, 1 << 4, 3),
        (PLAY.MELD, MELD.ESCALERA, 0, 5, 7, 1 << 7, 3),
    ]
    assert new_melds("5S 6S JK 9D", R(P, jokers_per_escalera=0)) == []


@pytest.mark.parametrize(
    "rules,hand,text,row",
    [
        (
            R(P, jokers_per_escalera=2),
            "5D 8D JK JK",
            "escalera 5D JK(6D) JK(7D) 8D",
            (PLAY.MELD, MELD.ESCALERA, 2, 5, 8, 1 << 6 | 1 << 7, 4),
        ),
        (
            R(P, jokers_per_escalera=2),
            "AS 4S JK JK 9H",
            "escalera AS JK(2S) JK(3S) 4S",
            (PLAY.MELD, MELD.ESCALERA, 0, 1, 4, 1 << 2 | 1 << 3, 4),
        ),
        (
            R(RA, jokers_per_escalera=4),
            "5D 9D JK JK JK",
            "escalera 5D JK(6D) JK(7D) JK(8D) 9D",
            (PLAY.MELD, MELD.ESCALERA, 2, 5, 9, 1 << 6 | 1 << 7 | 1 << 8, 5),
        ),
    ],
)
def test_a16_a17_new_meld_two_naturals_further_apart_than_escalera_min(rules, hand, text, row):
    """[A16]/[A17] with jokers_per_escalera >= escalera_min - 1: two naturals whose gap the
    jokers fill, spanning more than escalera_min positions, make a legal escalera, which
    check_meld accepts; gen_new_melds must then list it (the only meld in the hand)."""
    meld = [c for c in hand.split() if c != "9H"]
    assert oracle.judge(meld, rules).texts == {text}
    assert check_meld(meld, rules) == (True, text)
    assert new_melds(hand, rules) == [row]


def test_bit_index_of_every_single_bit():
    assert [moves.bit_index(1 << i) for i in range(63)] == list(range(63))

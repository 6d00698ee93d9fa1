"""[A9] Complete move generation: ``sim.loba.moves.list_plays`` lists exactly the legal plays.

"Any legal meld may be put down, not only the largest" ([A9]): every pierna with every choice of
copies per suit ([A15]), every escalera window with every joker placement — also a joker on a
position whose natural the hand keeps ([A16]-[A18]) — and every single-card lay-off, joker
lay-off and [A22] joker jump ([A21], [A22]), lay-offs only when the seat may lay off ([A20]),
and under [A26] ``go_out_needs_discard`` no play that empties the hand. Identical cards are
interchangeable, so each distinct play appears once.

The kernel's option list is compared, as a set of rows and with no row twice, with the
independent oracle (:func:`sim.loba.oracle.legal_plays`) on generated states for every preset
of the registry and knob variants (:func:`take_bruteforce.rule_variants`): tables with jokers
(end and middle), joker-heavy and duplicate-heavy hands. Random playouts then apply the kernel's
plays one after another (``moves.apply_play``) and compare every intermediate table and hand,
so that whole turns (several melds, lay-offs onto them, jumps) stay in step with the oracle.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from take_bruteforce import encode_table, gen_state, rule_variants, show_hand, show_table

from sim.loba import moves, oracle
from sim.loba.cards import parse_cards
from sim.loba.layout import MAX_MELDS, MELD, PLAY, A, M
from sim.loba.oracle import JOKER, Escalera, Pierna, card_at, natural

VARIANTS = rule_variants()
NAMES = sorted(VARIANTS)
N_STATES = 120  # generated states per rule variant (table + hand)
N_HEAVY = 60  # joker-heavy / duplicate-heavy hands per rule variant
N_WALKS = 40  # random playouts per rule variant

# --------------------------------------------------------------------------- rows


def play_row(play) -> tuple:
    """An oracle play as the kernel's row: new melds in full (TYPE, KIND, KEY, LO, HI, JMASK,
    N), lay-offs as (TYPE, meld, card, position, joker's new position)."""
    if isinstance(play, oracle.LayOff):
        return (PLAY.LAYOFF, play.meld, play.card, play.pos, play.move)
    m = play.meld
    if isinstance(m, Pierna):
        packed = sum(m.counts[s] << (2 * s) for s in range(4))
        return (PLAY.MELD, MELD.PIERNA, m.rank, packed, 0, 0, m.n)
    return (PLAY.MELD, MELD.ESCALERA, m.suit, m.lo, m.hi, sum(1 << p for p in m.jokers), m.n)


def row_of(act) -> tuple:
    a = tuple(int(x) for x in act)
    if a[A.TYPE] == PLAY.LAYOFF:
        return a[: A.MOVE + 1]
    return a


def kernel_acts(hand, table, may_lay, rules) -> np.ndarray:
    return moves.list_plays(
        np.array(hand, dtype=np.int8), encode_table(table), bool(may_lay), rules.to_array()
    )


def oracle_rows(hand, table, may_lay, rules) -> set[tuple]:
    return {play_row(p) for p in oracle.legal_plays(hand, table, may_lay, rules)}


def problems(hand, table, may_lay, rules) -> list[str]:
    """Everything wrong with the kernel's option list in this state (empty when all is well)."""
    acts = kernel_acts(hand, table, may_lay, rules)
    rows = [row_of(a) for a in acts]
    bad = []
    if len(set(rows)) != len(rows):
        dup = sorted({r for r in rows if rows.count(r) > 1})
        bad.append(f"rows listed twice: {dup[:4]}")
    types = [r[A.TYPE] for r in rows]
    if PLAY.LAYOFF in types and PLAY.MELD in types[types.index(PLAY.LAYOFF) :]:
        bad.append("a new meld listed after a lay-off")
    for a in acts:
        if a[A.TYPE] == PLAY.LAYOFF and a[A.N] != 1:
            bad.append(f"lay-off row {row_of(a)} with A.N = {a[A.N]}")
    want = oracle_rows(hand, table, may_lay, rules)
    got = set(rows)
    for r in sorted(want - got)[:4]:
        bad.append(f"missing {r} = {row_text(r, table)}")
    for r in sorted(got - want)[:4]:
        bad.append(f"not legal {r} = {row_text(r, table)}")
    return bad


def row_text(row, table) -> str:
    if row[A.TYPE] == PLAY.LAYOFF:
        return oracle.LayOff(*row[1:5]).text(table)
    if row[A.KIND] == MELD.PIERNA:
        counts = tuple((row[A.LO] >> (2 * s)) & 3 for s in range(4))
        return Pierna(row[A.KEY], counts).text()
    jokers = {p for p in range(15) if row[A.JMASK] >> p & 1}
    return oracle.escalera_window(row[A.KEY], row[A.LO], row[A.HI], jokers).text()


def where(name, hand, table, may_lay) -> str:
    return f"{name}: hand {show_hand(hand)}; table {show_table(table)}; may lay off {may_lay}"


# --------------------------------------------------------------------------- generators


def gen_heavy_hand(rng: random.Random, rules) -> list[int]:
    """A joker-heavy run hand (a stretch of one suit, copies, up to four jokers) or a
    duplicate-heavy set hand (one or two ranks in every suit, as many copies as the decks)."""
    hand = [0] * 53
    cap = rules.decks
    if rng.random() < 0.55:
        suit = rng.randrange(4)
        lo = rng.randint(1, 10)
        for p in range(lo, min(14, lo + rng.randint(3, 9)) + 1):
            if rng.random() < 0.8:
                hand[card_at(p, suit)] = min(cap, hand[card_at(p, suit)] + rng.choice([1, 1, 2]))
        hand[JOKER] = min(rules.jokers, rng.choice([0, 1, 2, 2, 3, 4]))
    else:
        for rank in rng.sample(range(1, 14), rng.choice([1, 1, 2])):
            for s in range(4):
                hand[natural(rank, s)] = rng.randint(0, cap)
        hand[JOKER] = min(rules.jokers, rng.choice([0, 0, 1, 2]))
    for _ in range(rng.choice([0, 1, 2])):
        x = rng.randrange(52)
        hand[x] = min(cap, hand[x] + 1)
    if sum(hand) == 0:
        hand[rng.randrange(52)] = 1
    return hand


def gen_states(name: str):
    rules = VARIANTS[name]
    rng = random.Random(f"moves-{name}")
    for _ in range(N_STATES):
        hand, table, melded = gen_state(rng, rules, None, max_hand=13)
        yield hand, table, melded
    for _ in range(N_HEAVY):
        hand = gen_heavy_hand(rng, rules)
        _, table, _ = gen_state(rng, rules, None)
        yield hand, table, rng.random() < 0.7


# --------------------------------------------------------------------------- generated


@pytest.mark.parametrize("name", NAMES)
def test_a9_list_plays_equals_every_legal_play(name):
    """[A9] [A15]-[A22] [A26]: the kernel lists exactly the oracle's legal plays, each once."""
    rules = VARIANTS[name]
    failures = []
    seen = {"options": 0, "jokers on the table": 0, "joker placements": 0, "jumps": 0}
    for hand, table, may_lay in gen_states(name):
        bad = problems(hand, table, may_lay, rules)
        if bad:
            failures.append(where(name, hand, table, may_lay) + "\n    " + "\n    ".join(bad))
        plays = oracle.legal_plays(hand, table, may_lay, rules)
        seen["options"] += len(plays)
        seen["jokers on the table"] += any(isinstance(m, Escalera) and m.jokers for m in table)
        seen["jumps"] += sum(1 for p in plays if isinstance(p, oracle.LayOff) and p.move)
        seen["joker placements"] += sum(
            1
            for p in plays
            if isinstance(p, oracle.NewMeld)
            and isinstance(p.meld, Escalera)
            and any(hand[card_at(q, p.meld.suit)] for q in p.meld.jokers)
        )
    assert not failures, f"{len(failures)} states disagree, e.g.\n" + "\n".join(failures[:4])
    assert seen["options"] > 400 and seen["jokers on the table"] > 20
    if rules.jokers_per_escalera and rules.joker_end_move:
        assert seen["jumps"] > 0
    if rules.jokers_per_escalera:
        assert seen["joker placements"] > 20, seen


def kernel_apply(hand, melds, nm, act):
    """Apply one kernel row with ``moves.apply_play``; returns the new hand and meld count."""
    h = np.zeros(56, dtype=np.int8)
    h[:53] = hand
    nm = moves.apply_play(h, melds, nm, act, 1)
    return [int(x) for x in h[:53]], nm


COMPARED = [M.KIND, M.KEY, M.LO, M.HI, M.JMASK, M.N, M.C0, M.C0 + 1, M.C0 + 2, M.C0 + 3]


@pytest.mark.parametrize("name", NAMES)
def test_a9_playouts_stay_with_the_oracle(name):
    """[A9] [A20] [A25]: random sequences of the kernel's plays (several melds in a turn, lay-offs
    onto them, joker jumps), applied by the kernel and by the oracle: every intermediate hand,
    table and option list agree, down to an empty hand or no play left."""
    rules = VARIANTS[name]
    rng = random.Random(f"walk-{name}")
    failures = []
    steps = 0
    for w in range(N_WALKS):
        if w % 2:
            hand = gen_heavy_hand(rng, rules)
            _, table, melded = gen_state(rng, rules, None)
        else:
            hand, table, melded = gen_state(rng, rules, None, max_hand=13)
        may_lay = melded or not rules.layoff_requires_own_meld
        melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
        nm = len(table)
        melds[:nm] = encode_table(table)
        khand = list(hand)
        while True:
            bad = problems(hand, table, may_lay, rules)
            if bad:
                failures.append(where(name, hand, table, may_lay) + ": " + bad[0])
                break
            acts = kernel_acts(hand, table, may_lay, rules)
            if len(acts) == 0 or sum(hand) == 0:
                break
            act = acts[rng.randrange(len(acts))]
            r = row_of(act)
            play = next(
                p for p in oracle.legal_plays(hand, table, may_lay, rules) if play_row(p) == r
            )
            hand, table = oracle.apply_play(hand, table, play)
            may_lay = may_lay or isinstance(play, oracle.NewMeld)
            khand, nm = kernel_apply(khand, melds, nm, act)
            steps += 1
            want = encode_table(table)
            if (
                list(hand) != khand
                or nm != len(table)
                or ((melds[:nm][:, COMPARED] != want[:, COMPARED]).any())
            ):
                failures.append(
                    f"{where(name, hand, table, may_lay)}: after {row_text(r, table)} the kernel "
                    f"has hand {show_hand(khand)}, melds {melds[:nm].tolist()}"
                )
                break
    assert not failures, f"{len(failures)} playouts disagree, e.g.\n" + "\n".join(failures[:4])
    assert steps > N_WALKS


# --------------------------------------------------------------------------- literal cases


def counts(cards: str) -> list[int]:
    h = [0] * 53
    for c in parse_cards(cards):
        h[c] += 1
    return h


def kernel_rows(hand, table, may_lay, rules) -> list[tuple]:
    return [row_of(a) for a in kernel_acts(hand, table, may_lay, rules)]


def esc_row(suit, lo, hi, jokers=(), rules=None) -> tuple:
    e = oracle.escalera_window("SHDC".index(suit), lo, hi, set(jokers))
    return play_row(oracle.NewMeld(e))


def pierna_row(rank, **copies) -> tuple:
    c = tuple(copies.get(s, 0) for s in "SHDC")
    return play_row(oracle.NewMeld(Pierna(rank, c)))


def play_through(hand, rows, rules, table=(), may_lay=False):
    """Make the plays ``rows`` one after another, each of which must be offered by the kernel
    (and legal for the oracle); returns the final hand and table."""
    table = list(table)
    for r in rows:
        assert not problems(hand, table, may_lay, rules), problems(hand, table, may_lay, rules)
        assert r in kernel_rows(hand, table, may_lay, rules), (row_text(r, table), show_hand(hand))
        play = next(p for p in oracle.legal_plays(hand, table, may_lay, rules) if play_row(p) == r)
        hand, table = oracle.apply_play(hand, table, play)
        may_lay = may_lay or isinstance(play, oracle.NewMeld)
    return hand, table


PAGAT = VARIANTS["pagat"]
GO_OUT = VARIANTS["go_out_needs_discard"]


def test_a9_two_escaleras_sharing_a_rank():
    """5H-6H-7H + 7H-8H-9H: two escaleras from one hand, the second 7H in the second."""
    for rules in (PAGAT, GO_OUT):
        hand, table = play_through(
            counts("5H 6H 7H 7H 8H 9H KC"),
            [esc_row("H", 5, 7), esc_row("H", 7, 9)],
            rules,
        )
        assert show_hand(hand) == "KC" and len(table) == 2


def test_a9_two_piernas_of_one_rank():
    """7H 7H 7S 7S 7C 7D: two piernas (exactly_three: each three suits)."""
    hand, table = play_through(
        counts("7H 7H 7S 7S 7C 7D 2D"),
        [pierna_row(7, S=1, H=1, C=1), pierna_row(7, S=1, H=1, D=1)],
        PAGAT,
    )
    assert show_hand(hand) == "2D"


def test_a9_goes_out_in_one_turn():
    """5H 6H 7H 7H 8H 9H 3S 3D 3C + KC: 5-6-7H, 7-8-9H, 3S 3D 3C, and KC is left to discard."""
    for rules in (PAGAT, GO_OUT, VARIANTS["classic"]):
        hand, table = play_through(
            counts("5H 6H 7H 7H 8H 9H 3S 3D 3C KC"),
            [esc_row("H", 5, 7), esc_row("H", 7, 9), pierna_row(3, S=1, D=1, C=1)],
            rules,
        )
        assert show_hand(hand) == "KC" and len(table) == 3


def test_a9_a20_a25_goes_out_by_plays():
    """Without [A26] the last card may go onto the table by a lay-off after one's own meld."""
    hand, table = play_through(
        counts("5H 6H 7H 8H"), [esc_row("H", 5, 7), (PLAY.LAYOFF, 0, natural(8, 1), 8, 0)], PAGAT
    )
    assert sum(hand) == 0
    rows = kernel_rows(counts("8H"), [oracle.escalera_window(1, 5, 7, set())], True, GO_OUT)
    assert rows == []  # [A26]: the last card must be discarded


def test_a15_every_choice_of_copies():
    hand = counts("KS KS KH KD KC")
    rows = kernel_rows(hand, [], False, PAGAT)
    assert sorted(rows) == sorted(
        [
            pierna_row(13, S=1, H=1, D=1),
            pierna_row(13, S=2, H=1, D=1),
            pierna_row(13, S=1, H=1, C=1),
            pierna_row(13, S=2, H=1, C=1),
            pierna_row(13, S=1, D=1, C=1),
            pierna_row(13, S=2, D=1, C=1),
            pierna_row(13, H=1, D=1, C=1),
        ]
    )
    assert not problems(hand, [], False, PAGAT)
    classic = VARIANTS["classic"]
    assert not problems(hand, [], False, classic)
    assert pierna_row(13, S=2, H=1) in kernel_rows(hand, [], False, classic)


def test_a16_every_window_of_a_run():
    """A run of five: every sub-window of three or more, nothing wrapping past the ace."""
    hand = counts("JS QS KS AS 2S 3S")
    rows = kernel_rows(hand, [], False, VARIANTS["pagat"].replace(jokers_per_escalera=0))
    assert sorted(rows) == sorted(
        [esc_row("S", 11, 13), esc_row("S", 11, 14), esc_row("S", 12, 14), esc_row("S", 1, 3)]
    )


def test_a17_a18_joker_where_the_hand_keeps_the_natural():
    """5S 6S 7S JK: a joker may stand for 6S while the hand keeps its 6S ([A17]: any
    position), or at either end, or for 5S/7S."""
    hand = counts("5S 6S 7S JK 2D")
    rows = kernel_rows(hand, [], False, PAGAT)
    for jokers, lo, hi in [({6}, 5, 7), ({4}, 4, 7), ({8}, 5, 8), ({5}, 5, 7), ({7}, 5, 7)]:
        assert esc_row("S", lo, hi, jokers) in rows, (jokers, lo, hi)
    assert esc_row("S", 5, 6, {6}) not in rows  # two naturals at least ([A17])
    assert not problems(hand, [], False, PAGAT)


def test_a20_no_layoffs_before_an_own_meld():
    table = [oracle.escalera_window(0, 5, 7, set())]
    hand = counts("8S 4S JK 9D")
    assert all(r[A.TYPE] == PLAY.MELD for r in kernel_rows(hand, table, False, PAGAT))
    assert len([r for r in kernel_rows(hand, table, True, PAGAT) if r[A.TYPE] == PLAY.LAYOFF]) == 4


def test_a22_jump_then_the_low_end():
    """5S 6S 7S JK(8S) + 8S: the joker jumps to 4; then 3S goes on the low end."""
    table = [oracle.escalera_window(0, 5, 8, {8})]
    hand, table = play_through(
        counts("8S 3S 2D"),
        [(PLAY.LAYOFF, 0, natural(8, 0), 8, 4), (PLAY.LAYOFF, 0, natural(3, 0), 3, 0)],
        PAGAT,
        table,
        True,
    )
    assert table[0] == oracle.escalera_window(0, 3, 8, {4})


def test_a26_no_play_empties_the_hand():
    hand = counts("5S 6S 7S")
    assert kernel_rows(hand, [], False, PAGAT) == [esc_row("S", 5, 7)]
    assert kernel_rows(hand, [], False, GO_OUT) == []
    hand = counts("7S 7S 7H 7D")
    rows = kernel_rows(hand, [], False, GO_OUT)
    assert rows == [pierna_row(7, S=1, H=1, D=1)]  # the four-card pierna would empty the hand

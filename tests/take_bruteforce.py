"""[A11]/[A12] The kernel's take rule against the oracle's search over every play sequence.

The engine's answer at the draw (``sim.loba.options.take_ok``, :func:`kernel_take`) must be
true exactly when some legal sequence of this turn's plays puts a card of identity ``c`` (the
taken discard) on the table: :func:`sim.loba.oracle.take_witness`, a breadth-first search over
every new meld of any size ([A9]), every lay-off and joker lay-off, every [A22] joker jump, with
[A20], [A26] and ``discard_take`` as the rule set says.

Run at scale::

    python tests/take_bruteforce.py --cases 100000 --seed 1 [--jobs 2]

It prints how many cases were allowed and refused, how many exercised each hard case (jokers on
the table, an end joker that jumps in the witness, joker lay-offs, duplicate-heavy hands, an
unmelded seat that melds first, a non-maximal meld, new_meld_only, go_out_needs_discard), and
every disagreement (the first few as readable cards and tables); exit status 1 on any.
``tests/loba/test_take_rule.py`` runs the same comparison on a few thousand cases, and
``tests/loba/test_moves_complete.py`` uses :func:`gen_state` for the move generator.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

if __name__ == "__main__":  # run as a script from anywhere: the repository's sim package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.games import get_game
from sim.loba import oracle
from sim.loba.cards import card_str
from sim.loba.layout import MELD, G, M, S
from sim.loba.moves import held_bits
from sim.loba.oracle import JOKER, Escalera, LayOff, Pierna, card_at, natural

# --------------------------------------------------------------------------- rule sets


def rule_variants() -> dict:
    """Every preset of the registry, and knob variants that change what a turn can do."""
    spec = get_game("loba").rules
    out = {p: spec.make(p) for p in spec.presets}
    base = spec.make(spec.default_preset)
    extra = {
        "jokers_per_escalera=2": {"jokers_per_escalera": 2},
        "escalera_min=4": {"escalera_min": 4},
        "go_out_needs_discard": {"go_out_needs_discard": True},
        "decks=3": {"decks": 3},
        "decks=1": {"decks": 1},
        "not_all_four": {"pierna_suits": "not_all_four"},
        "no_joker_end_move": {"joker_end_move": False},
        "new_meld_only": {"discard_take": "new_meld_only"},
        "no_own_meld_needed": {"layoff_requires_own_meld": False},
        "jpe2+go_out": {"jokers_per_escalera": 2, "go_out_needs_discard": True},
        "decks=3+not_all_four+jpe2": {
            "decks": 3,
            "pierna_suits": "not_all_four",
            "jokers_per_escalera": 2,
        },
    }
    for name, kw in extra.items():
        out[name] = base.replace(**kw)
    out["rami+go_out+no_move"] = spec.make("rami").replace(
        go_out_needs_discard=True, joker_end_move=False
    )
    return out


# --------------------------------------------------------------------------- generator


class Pool:
    """The deck's cards not yet dealt into the case (so that a case could happen in a game)."""

    def __init__(self, rules):
        self.left = Counter({c: rules.decks for c in range(52)})
        self.left[JOKER] = rules.jokers

    def take(self, cards) -> bool:
        need = Counter(cards)
        if any(self.left[c] < k for c, k in need.items()):
            return False
        self.left -= need
        return True


def gen_escalera(rng: random.Random, rules, pool: Pool, suit: int, near: int):
    """A legal escalera of ``suit`` around position ``near`` (often ending next to it), with
    jokers at an end or in the middle as the rule set allows, or None."""
    for _ in range(6):
        length = rng.choice([3, 3, 3, 4, 4, 5, 6, 8])
        length = max(length, rules.escalera_min)
        r = rng.random()
        if r < 0.3:  # ends just below the focus: laying off up to it
            hi = near - rng.choice([1, 1, 2, 3])
            lo = hi - length + 1
        elif r < 0.6:  # starts just above it
            lo = near + rng.choice([1, 1, 2, 3])
            hi = lo + length - 1
        elif r < 0.75:  # an ace end
            lo, hi = (1, length) if rng.random() < 0.5 else (15 - length, 14)
        else:
            lo = rng.randint(1, 15 - length)
            hi = lo + length - 1
        if lo < 1 or hi > 14:
            continue
        window = list(range(lo, hi + 1))
        jokers = set()
        k = rng.choice([0, 0, 1, 1, 1, 2])
        for _ in range(min(k, rules.jokers_per_escalera)):
            jokers.add(rng.choice([lo, hi, lo, hi, rng.choice(window)]))
        esc = oracle.escalera_window(suit, lo, hi, jokers)
        if oracle.escalera_problem(esc, rules) is None and pool.take(esc.cards()):
            return esc
    return None


def gen_pierna(rng: random.Random, rules, pool: Pool, rank: int):
    for _ in range(6):
        if rules.pierna_suits == "exactly_three" or rng.random() < 0.5:
            suits = rng.sample(range(4), 3)
        else:
            suits = rng.sample(range(4), rng.choice([1, 2]))
        counts = [0, 0, 0, 0]
        for s in suits:
            counts[s] = rng.choice([1, 1, 1, 2, rules.decks])
        p = Pierna(rank, tuple(counts))
        if oracle.pierna_problem(rank, counts, rules) is None and pool.take(p.cards()):
            return p
    return None


def gen_table(rng: random.Random, rules, pool: Pool, suit: int, pos: int, n_melds: int):
    """Table melds near (``suit``, position ``pos``): escaleras of that suit (jokers at ends and
    in the middle), piernas of that rank and its neighbours, and unrelated melds."""
    table = []
    rank = oracle.rank_at(pos)
    for _ in range(n_melds):
        r = rng.random()
        if r < 0.55:
            m = gen_escalera(rng, rules, pool, suit, pos)
        elif r < 0.75:
            m = gen_pierna(rng, rules, pool, rng.choice([rank, rank, max(1, rank - 1)]))
        elif r < 0.9:
            m = gen_escalera(rng, rules, pool, rng.randrange(4), rng.randint(1, 14))
        else:
            m = gen_pierna(rng, rules, pool, rng.randint(1, 13))
        if m is not None:
            table.append(m)
    return table


def gen_hand(rng: random.Random, rules, pool: Pool, suit: int, pos: int, table, size: int):
    """A hand of ``size`` cards: mostly cards that matter here (the focus suit near ``pos``, its
    rank, the cards next to the table's ends and jokers, the naturals of table jokers), often
    duplicate-heavy (both copies of a card) or joker-heavy, plus noise."""
    rank = oracle.rank_at(pos)
    near = [card_at(p, suit) for p in range(max(1, pos - 4), min(14, pos + 4) + 1)]
    near += [natural(rank, s) for s in range(4)]
    for m in table:
        if isinstance(m, Escalera):
            for p in (m.lo - 1, m.hi + 1, m.lo - 2, m.hi + 2, *m.jokers):
                if 1 <= p <= 14:
                    near.append(card_at(p, m.suit))
        else:
            near += [natural(m.rank, s) for s in range(4)]
    mode = rng.random()
    dup = 0.45 if mode < 0.3 else 0.1  # duplicate-heavy
    joker = 0.3 if mode > 0.8 else 0.08  # joker-heavy
    hand = [0] * 53
    tries = 0
    while sum(hand) < size and tries < 200:
        tries += 1
        r = rng.random()
        if r < joker:
            c = JOKER
        elif r < 0.75:
            c = rng.choice(near)
        else:
            c = rng.randrange(52)
        copies = 2 if c != JOKER and rng.random() < dup else 1
        for _ in range(copies):
            if sum(hand) < size and pool.take([c]):
                hand[c] += 1
    return hand


def gen_state(rng: random.Random, rules, c: int | None = None, max_hand: int = 11):
    """A table, a hand and a melded flag; when ``c`` is given the case is built around that
    identity and no copy of it beyond the deck's is used (the hand is without ``c``)."""
    pool = Pool(rules)
    if c is not None:
        pool.take([c])
    if c is None or c == JOKER:
        suit, pos = rng.randrange(4), rng.randint(1, 14)
    else:
        suit = oracle.suit_of(c)
        pos = oracle.positions_of_rank(oracle.rank_of(c))[rng.randrange(2) if c % 13 == 0 else 0]
    table = gen_table(rng, rules, pool, suit, pos, rng.choice([0, 1, 1, 2, 2, 3, 4]))
    size = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, max_hand])
    hand = gen_hand(rng, rules, pool, suit, pos, table, size)
    melded = rng.random() < 0.5
    return hand, table, melded


def gen_chain_case(rng: random.Random, rules):
    """A case built for lay-off chains: an escalera of c's suit on the table ``gap`` positions
    short of c (0: c extends it), often with a joker at an end (c may be that joker's natural,
    or the joker's jump may be what opens the way), and a hand holding some of the cards in
    between (or jokers for them), the naturals of the end jokers, copies of them, and for an
    unmelded seat often a meld of its own that may use one of those cards ([A20])."""
    c = rng.randrange(52)
    suit = oracle.suit_of(c)
    q = oracle.positions_of_rank(oracle.rank_of(c))[rng.randrange(2) if c % 13 == 0 else 0]
    pool = Pool(rules)
    pool.take([c])
    gap = rng.choice([0, 0, 1, 1, 1, 2, 2, 3])
    length = max(rules.escalera_min, rng.choice([3, 3, 4, 5]))
    up = rng.random() < 0.5
    lo, hi = (q + 1 + gap, q + gap + length) if up else (q - gap - length, q - 1 - gap)
    table = []
    if 1 <= lo and hi <= 14:
        jokers = set()
        for _ in range(min(rules.jokers_per_escalera, rng.choice([0, 1, 1, 1, 2]))):
            jokers.add(rng.choice([lo, hi, hi, lo, rng.randint(lo, hi)]))
        if rng.random() < 0.15:  # c is the natural of an end joker: laying it off jumps
            lo, hi = (q, q + length - 1) if up else (q - length + 1, q)
            jokers = {q} | ({rng.choice([lo, hi])} if rules.jokers_per_escalera > 1 else set())
            if not 1 <= lo <= hi <= 14:
                jokers = set()
        if 1 <= lo and hi <= 14:
            esc = oracle.escalera_window(suit, lo, hi, jokers)
            if oracle.escalera_problem(esc, rules) is None and pool.take(esc.cards()):
                table.append(esc)
    hand = [0] * 53

    def give(x, copies=1):
        for _ in range(copies):
            if pool.take([x]):
                hand[x] += 1

    between = range(q + 1, lo) if up else range(hi + 1, q)
    for p in (p for p in between if 1 <= p <= 14):
        r = rng.random()
        if r < 0.7:
            give(card_at(p, suit), 2 if rng.random() < 0.2 else 1)
        elif r < 0.9:
            give(JOKER)
    if table and rng.random() < 0.25:  # a second escalera of the suit (the same one, often)
        if rng.random() < 0.5:
            second = table[0] if pool.take(table[0].cards()) else None
        else:
            second = gen_escalera(rng, rules, pool, suit, q)
        if second is not None:
            table.append(second)
    for m in table:
        for p in m.jokers:
            if rng.random() < 0.6:
                give(card_at(p, suit))
            # where a jumped joker lands next: its natural there makes it jump again
            for nxt in (m.lo - 1, m.hi + 1):
                if p in (m.lo, m.hi) and 1 <= nxt <= 14 and rng.random() < 0.3:
                    give(card_at(nxt, suit))
    if rng.random() < 0.2:
        give(JOKER)
    melded = rng.random() < 0.5
    if not melded and rng.random() < 0.7:  # a meld of one's own, maybe sharing a card
        mine = [x for x in range(52) if hand[x]]
        rank = oracle.rank_of(rng.choice(mine)) if mine and rng.random() < 0.6 else None
        if rank is None:
            rank = rng.randint(1, 13)
        for s2 in rng.sample(range(4), 3):
            give(natural(rank, s2), rng.choice([1, 1, 2]))
    table += gen_table(rng, rules, pool, suit, q, rng.choice([0, 0, 1, 2]))
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 4])):  # noise
        give(rng.randrange(52))
    if sum(hand) == 0:
        give(rng.randrange(52))
    rng.shuffle(table)
    return hand, table, melded, c


def gen_case(rng: random.Random, rules):
    """(hand without c, table, melded, c): half built around lay-off chains and joker jumps
    (:func:`gen_chain_case`), half a table and hand near c; c is now and then a joker."""
    if rng.random() < 0.5:
        return gen_chain_case(rng, rules)
    if rules.jokers > 0 and rng.random() < 0.1:
        c = JOKER
    else:
        c = rng.randrange(52)
    hand, table, melded = gen_state(rng, rules, c)
    return hand, table, melded, c


# --------------------------------------------------------------------------- kernel adapters


def hand_array(hand) -> np.ndarray:
    return np.array(hand, dtype=np.int8)


def encode_table(table) -> np.ndarray:
    """Oracle melds -> the kernel's ``int16[nm, M.SIZE]`` table rows (sim.loba.layout M)."""
    melds = np.zeros((len(table), M.SIZE), dtype=np.int16)
    for i, m in enumerate(table):
        row = melds[i]
        row[M.OWNER] = i % 3
        row[M.N] = m.n
        if isinstance(m, Pierna):
            row[M.KIND] = MELD.PIERNA
            row[M.KEY] = m.rank
            for s in range(4):
                row[M.C0 + s] = m.counts[s]
        else:
            row[M.KIND] = MELD.ESCALERA
            row[M.KEY] = m.suit
            row[M.LO] = m.lo
            row[M.HI] = m.hi
            row[M.JMASK] = sum(1 << p for p in m.jokers)
    return melds


def meld_free(hand, rules) -> bool:
    """Would the engine mark this hand meld-free (``S.MELD_FREE``, set only with [A26]'s knob
    off) at the end of the seat's last turn: no new meld in it (the oracle's list)?"""
    return not rules.go_out_needs_discard and not oracle.all_new_melds(hand, rules)


def kernel_take(hand, table, melded, rules, c) -> bool:
    """The engine's answer at the draw (``options.take_ok``: its cheap necessary test, then the
    search ``takes.can_place``) on a state holding the case: ``melded`` ([A20]) is the seat's
    own meld this round; the seat's meld-free mark as the engine would have set it. When the
    mark is set, the answer without it must agree (the test's shortcut changes no answer)."""
    from sim.loba import options, state

    R = rules.to_array()
    st = case_state(hand, table, melded, rules)
    got = bool(options.take_ok(st, R, 0, c, state.new_bufs(R)))
    if st.s[0, S.MELD_FREE]:
        st.s[0, S.MELD_FREE] = 0
        if bool(options.take_ok(st, R, 0, c, state.new_bufs(R))) != got:
            return not got  # (reported as a disagreement with the oracle)
    return got


def case_state(hand, table, melded, rules):
    """A game state holding the case for seat 0 (see :func:`kernel_take`)."""
    from sim.loba import state

    st = state.new_state()
    st.g[G.NP] = 2
    st.hands[0, :53] = hand_array(hand)
    st.s[0, S.HAND_N] = sum(hand)
    st.s[0, S.MELDED] = int(bool(melded))
    st.melds[: len(table)] = encode_table(table)
    st.g[G.NMELDS] = len(table)
    st.s[0, S.MELD_FREE] = int(meld_free(hand, rules))
    return st


def route_problem(hand, table, melded, rules, c, want) -> str | None:
    """The two halves of the engine's cheap test, each against the oracle: a take the oracle
    allows with c in a new meld (under ``new_meld_only``) needs ``options.meld_may_work``; one
    it allows only with c laid off needs ``options.layoff_may_work``. (The whole test can hold
    by the other half: most cases near c pass the first.)"""
    from sim.loba import options

    if not want or c == JOKER or rules.discard_take != "meld_or_layoff":
        return None
    R = rules.to_array()
    st = case_state(hand, table, melded, rules)
    held = int(held_bits(st.hands[0])[0])
    if oracle.take_possible(hand, table, melded, rules.replace(discard_take="new_meld_only"), c):
        if not options.meld_may_work(st.hands[0], R, c, held):
            return "meld_may_work refuses a take into a new meld"
    elif not options.layoff_may_work(st, R, 0, c, held):
        return "layoff_may_work refuses a take by lay-off"
    return None


# --------------------------------------------------------------------------- reporting


def show_hand(hand) -> str:
    return " ".join(card_str(c) for c in range(53) for _ in range(int(hand[c]))) or "(empty)"


def show_table(table) -> str:
    return " | ".join(m.text() for m in table) or "(empty)"


def describe(name, hand, table, melded, c, want, got, witness) -> str:
    lines = [
        f"rules {name}: take {card_str(c)}: oracle {'ALLOWS' if want else 'refuses'}, "
        f"kernel {'allows' if got else 'refuses'}",
        f"  hand (without {card_str(c)}): {show_hand(hand)}",
        f"  table: {show_table(table)}",
        f"  melded before this turn: {bool(melded)}",
    ]
    if witness:
        lines.append("  oracle's plays: " + oracle.witness_text(witness))
    return "\n".join(lines)


def features(hand, table, melded, rules, c, steps) -> set[str]:
    """The hard cases a case exercises (for the coverage counts); ``steps``: the oracle's
    witness as (play, table before, hand before), or None when the take is refused."""
    f = set()
    if any(isinstance(m, Escalera) and m.jokers for m in table):
        f.add("jokers on the table")
    if any(isinstance(m, Escalera) and {m.lo, m.hi} & m.jokers for m in table):
        f.add("end joker on the table")
    if any(hand[x] >= 2 for x in range(52)):
        f.add("duplicate in hand")
    if sum(1 for x in range(52) if hand[x] >= 2) >= 2:
        f.add("duplicate-heavy hand")
    if hand[JOKER] >= 1:
        f.add("joker in hand")
    if c == JOKER:
        f.add("taking a joker")
    if not melded:
        f.add("unmelded seat")
        if meld_free(hand, rules):
            f.add("unmelded seat, meld-free hand")
    if rules.discard_take == "new_meld_only":
        f.add("new_meld_only")
    if rules.go_out_needs_discard:
        f.add("go_out_needs_discard")
    if steps is None:
        return f
    f.add(f"witness of {min(len(steps), 4)}{'+' if len(steps) >= 4 else ''} plays")
    for k, (play, _t, before) in enumerate(steps):
        if isinstance(play, LayOff):
            if play.move:
                f.add("joker jump in witness")
            if play.card == JOKER:
                f.add("joker lay-off in witness")
            if k == len(steps) - 1:
                f.add("c laid off")
        else:
            if k == len(steps) - 1:
                f.add("c in a new meld")
            elif not melded and k == 0:
                f.add("unmelded seat melds first")
            if isinstance(play.meld, Escalera) and any(
                before[card_at(p, play.meld.suit)] > 0 for p in play.meld.jokers
            ):
                f.add("joker placed where the hand holds the natural")
            rest = list(before)
            for x in play.cards():
                rest[x] -= 1
            if any(
                card != JOKER for _, card, _, _ in oracle.legal_layoffs([play.meld], rest, rules)
            ):
                f.add("non-maximal meld in witness")
    return f


# --------------------------------------------------------------------------- the comparison


def run(cases: int, seed: int, variants=None, show: int = 5, kernel=True, progress=False):
    """Compare the kernel with the oracle on ``cases`` generated cases; returns
    ``(counts, disagreements)`` (disagreements as readable texts)."""
    variants = variants or rule_variants()
    names = sorted(variants)
    rng = random.Random(seed)
    counts: Counter = Counter()
    bad: list[str] = []
    t0 = time.time()
    for i in range(cases):
        name = names[i % len(names)]
        rules = variants[name]
        hand, table, melded, c = gen_case(rng, rules)
        witness = oracle.take_witness(hand, table, melded, rules, c)
        want = witness is not None
        got = kernel_take(hand, table, melded, rules, c) if kernel else want
        route = route_problem(hand, table, melded, rules, c, want) if kernel else None
        counts["cases"] += 1
        counts["allowed" if want else "refused"] += 1
        for f in features_of(hand, table, melded, rules, c, witness):
            counts[f] += 1
        if got != want or route:
            counts["disagreements"] += 1
            if len(bad) < show:
                text = describe(name, hand, table, melded, c, want, got, witness)
                bad.append(text + (f"\n  {route}" if route else ""))
        if progress and (i + 1) % 10000 == 0:
            print(f"  {i + 1} cases, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return counts, bad


def features_of(hand, table, melded, rules, c, witness):
    if witness is None:
        return features(hand, table, melded, rules, c, None)
    # replay the witness to know the hand before each play
    h = list(hand)
    h[c] += 1
    steps = []
    for play, t in witness:
        steps.append((play, t, tuple(h)))
        h = list(oracle.apply_play(h, t, play)[0])
    return features(hand, table, melded, rules, c, steps)


def _worker(args):
    cases, seed, show = args
    return run(cases, seed, show=show)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (seeds seed, seed+1…)")
    ap.add_argument("--show", type=int, default=5, help="disagreements to print")
    a = ap.parse_args(argv)
    t0 = time.time()
    if a.jobs > 1:
        from multiprocessing import Pool as Procs

        per = [a.cases // a.jobs + (k < a.cases % a.jobs) for k in range(a.jobs)]
        with Procs(a.jobs) as procs:
            parts = procs.map(_worker, [(n, a.seed * 1000 + k, a.show) for k, n in enumerate(per)])
    else:
        parts = [run(a.cases, a.seed, show=a.show, progress=True)]
    counts: Counter = Counter()
    bad: list[str] = []
    for cnt, b in parts:
        counts += cnt
        bad += b
    n = counts["cases"]
    print(f"{n} cases in {time.time() - t0:.0f} s (seed {a.seed}, {a.jobs} job(s))")
    for key in ("allowed", "refused", "disagreements"):
        print(f"  {key:45s} {counts[key]:8d}")
    print("coverage:")
    for key in sorted(
        k for k in counts if k not in ("cases", "allowed", "refused", "disagreements")
    ):
        print(f"  {key:45s} {counts[key]:8d}")
    if bad:
        print(f"\nfirst {min(len(bad), a.show)} disagreements:")
        for text in bad[: a.show]:
            print(text)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

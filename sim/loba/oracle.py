"""A slow, independent reference for the meld rules of Loba de Menos ([A15]-[A22]).

Written from the rules text alone (docs/rules.md), by brute force, so that it can judge the
compiled kernel (``sim.loba.moves``). It deliberately imports nothing else of ``sim.loba`` but
``sim.loba.cards``, for the card notation only (``parse_card``, ``card_str``).

Model
-----
A card identity is ``suit * 13 + (rank - 1)`` (suits S H D C = 0..3, rank A = 1 … K = 13), the
joker is ``52``. An escalera lays its cards on *positions* 1..14: 1 is a low ace, 2..13 the
ranks 2..K, 14 a high ace ([A16]).

Table melds are :class:`Pierna` (rank, copies per suit) and :class:`Escalera` (suit, the set of
positions held by natural cards, the set of positions held by jokers). Every rule is checked on
that explicit picture; nothing is inferred from bit masks.

``rules`` is anything with the attributes ``decks``, ``pierna_suits``, ``escalera_min``,
``jokers_per_escalera`` and ``joker_end_move`` (a ``sim.rules.RuleSet`` works); the turn search
(:func:`legal_plays`, :func:`take_witness`) also reads ``go_out_needs_discard``,
``layoff_requires_own_meld`` and ``discard_take``.

Plays of a turn ([A9]) are :class:`NewMeld` (any legal meld from hand, not only the largest:
:func:`all_new_melds`) and :class:`LayOff` (one card onto a table meld: :func:`legal_layoffs`).
:func:`take_witness` searches every sequence of them, breadth first over canonical states
(identical cards are interchangeable, the order of the melds on the table does not matter), for
one that puts the taken discard on the table ([A11], [A12]).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from .cards import card_str, parse_card  # notation only

JOKER = 52
ALL_POSITIONS = tuple(range(1, 15))  # 1 = low ace, 2..13, 14 = high ace


# --------------------------------------------------------------------------- card arithmetic


def natural(rank: int, suit: int) -> int:
    """Identity of the natural card of ``rank`` (1..13) and ``suit`` (0..3)."""
    assert 1 <= rank <= 13 and 0 <= suit <= 3
    return suit * 13 + rank - 1


def rank_of(cid: int) -> int:
    assert 0 <= cid < JOKER
    return cid % 13 + 1


def suit_of(cid: int) -> int:
    assert 0 <= cid < JOKER
    return cid // 13


def rank_at(pos: int) -> int:
    """The rank standing at escalera position ``pos``: 1 and 14 are both the ace."""
    assert 1 <= pos <= 14
    return 1 if pos == 14 else pos


def positions_of_rank(rank: int) -> tuple[int, ...]:
    """Where a card of ``rank`` may stand in an escalera: an ace low (1) or high (14)."""
    return (1, 14) if rank == 1 else (rank,)


def card_at(pos: int, suit: int) -> int:
    return natural(rank_at(pos), suit)


def to_ids(cards) -> list[int]:
    return [parse_card(c) if isinstance(c, str) else int(c) for c in cards]


# --------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class Pierna:
    rank: int
    counts: tuple[int, int, int, int]  # copies of suit S, H, D, C

    @property
    def n(self) -> int:
        return sum(self.counts)

    @property
    def suits(self) -> frozenset[int]:
        return frozenset(s for s in range(4) if self.counts[s] > 0)

    def cards(self) -> list[int]:
        out = []
        for s in range(4):
            out += [natural(self.rank, s)] * self.counts[s]
        return out

    def text(self) -> str:
        return "pierna " + " ".join(card_str(c) for c in self.cards())


@dataclass(frozen=True)
class Escalera:
    suit: int
    naturals: frozenset[int]  # positions held by natural cards
    jokers: frozenset[int]  # positions held by jokers

    @property
    def occupied(self) -> frozenset[int]:
        return self.naturals | self.jokers

    @property
    def lo(self) -> int:
        return min(self.occupied)

    @property
    def hi(self) -> int:
        return max(self.occupied)

    @property
    def n(self) -> int:
        return len(self.naturals) + len(self.jokers)

    def cards(self) -> list[int]:
        return sorted(card_at(p, self.suit) for p in self.naturals) + [JOKER] * len(self.jokers)

    def text(self) -> str:
        parts = []
        for p in sorted(self.occupied):
            nat = card_str(card_at(p, self.suit))
            parts.append(f"JK({nat})" if p in self.jokers else nat)
        return "escalera " + " ".join(parts)


def escalera_window(suit: int, lo: int, hi: int, jokers) -> Escalera:
    """The escalera on positions lo..hi with jokers at ``jokers`` and naturals elsewhere."""
    jokers = frozenset(jokers)
    window = frozenset(range(lo, hi + 1))
    return Escalera(suit, window - jokers, jokers)


# --------------------------------------------------------------------------- [A15] [A16] [A17]


def pierna_problem(rank: int, counts, rules) -> str | None:
    """None if copies ``counts`` (per suit) of ``rank`` form a legal pierna ([A15]), else why."""
    counts = tuple(counts)
    assert len(counts) == 4 and all(c >= 0 for c in counts) and 1 <= rank <= 13
    total = sum(counts)
    suits = sum(1 for c in counts if c > 0)
    if total < 3:
        return "[A15] a pierna needs three or more cards"
    if any(c > rules.decks for c in counts):
        return "[A15] at most `decks` cards of one suit"
    if rules.pierna_suits == "exactly_three":
        if suits != 3:
            return "[A15] a pierna uses exactly three different suits"
    elif rules.pierna_suits == "not_all_four":
        if suits == 4:
            return "[A15] a pierna may not cover all four suits"
    else:  # pragma: no cover - unknown knob value
        raise ValueError(rules.pierna_suits)
    return None


def escalera_problem(esc: Escalera, rules) -> str | None:
    """None if the escalera laid out as ``esc`` is legal ([A16], [A17]), else why."""
    nat, jk = esc.naturals, esc.jokers
    if not 0 <= esc.suit <= 3:
        return "bad suit"
    if nat & jk:
        return "two cards on one position"
    occ = nat | jk
    if not occ or not all(p in ALL_POSITIONS for p in occ):
        return "[A16] a position beyond the aces"
    if occ != frozenset(range(min(occ), max(occ) + 1)):
        return "[A16] not consecutive"
    if 1 in occ and 14 in occ:
        return "[A16] the ace is low or high, never both, never wrapping"
    if len(occ) > 13:
        return "[A16] at most 13 positions"
    if len(occ) < rules.escalera_min:
        return "[A16] shorter than escalera_min"
    if len(jk) > rules.jokers_per_escalera:
        return "[A17] too many jokers"
    if len(nat) < 2:
        return "[A17] fewer than two natural cards"
    return None


@dataclass(frozen=True)
class Verdict:
    ok: bool
    meld: Pierna | Escalera | None  # the meld as laid down ([A18] default placement)
    reason: str  # rule id and reason when not ok
    # every acceptable reading: one meld, or one escalera per reading of the ace when both the
    # low and the high ace give a legal escalera (the rules do not say which to prefer)
    readings: tuple = ()

    @property
    def text(self) -> str:
        return self.meld.text() if self.ok else self.reason

    @property
    def texts(self) -> frozenset[str]:
        return frozenset(m.text() for m in self.readings) if self.ok else frozenset()

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1


def escalera_placements(cards, rules) -> list[Escalera]:
    """Every legal way to lay ``cards`` out as one escalera: each ace tried low and high, each
    set of positions tried for the jokers (brute force, no cleverness)."""
    ids = to_ids(cards)
    nats = [c for c in ids if c != JOKER]
    k = len(ids) - len(nats)
    if not nats or len({suit_of(c) for c in nats}) != 1:
        return []
    suit = suit_of(nats[0])
    out = []
    for pos in product(*(positions_of_rank(rank_of(c)) for c in nats)):
        if len(set(pos)) != len(pos):
            continue  # a repeated rank ([A16])
        if len({rank_at(p) for p in pos}) != len(pos):
            continue  # the ace twice, low and high ([A16])
        free = [p for p in ALL_POSITIONS if p not in pos]
        for jpos in combinations(free, k):
            esc = Escalera(suit, frozenset(pos), frozenset(jpos))
            if escalera_problem(esc, rules) is None:
                out.append(esc)
    return out


def judge(cards, rules) -> Verdict:
    """Judge ``cards`` as a new meld laid down from hand.

    A legal escalera comes back in the [A18] default placement: jokers that do not fill a gap
    stand at the high end, as many as fit below the high ace; the rest at the low end. That is
    the legal placement with the highest top position (for the given naturals the length is
    fixed, so the top position says how many extra jokers went high).

    An ace is read low or high, whichever gives a legal escalera. Where both do (an ace, most
    of the other ranks and enough jokers, e.g. the thirteen cards A..K), the rules name no
    default: ``readings`` then holds both (low ace first), each in its [A18] placement.
    """
    ids = to_ids(cards)
    nats = [c for c in ids if c != JOKER]
    k = len(ids) - len(nats)
    if len(ids) < 3:
        return Verdict(False, None, "[A15]/[A16] a meld needs three or more cards")
    if len(nats) < 2:
        return Verdict(False, None, "[A17] a meld must hold at least two natural cards")
    ranks = {rank_of(c) for c in nats}
    suits = {suit_of(c) for c in nats}
    if len(ranks) == 1:  # a pierna, or an escalera that repeats a rank
        rank = next(iter(ranks))
        if k > 0:
            return Verdict(False, None, "[A17] jokers only in escaleras")
        counts = tuple(sum(1 for c in nats if suit_of(c) == s) for s in range(4))
        why = pierna_problem(rank, counts, rules)
        if why is not None:
            return Verdict(False, None, why)
        return Verdict(True, Pierna(rank, counts), "", (Pierna(rank, counts),))
    if len(suits) != 1:
        return Verdict(False, None, "[A15]/[A16] neither one rank nor one suit")
    if len(ranks) != len(nats):
        return Verdict(False, None, "[A16] an escalera may not repeat a rank")
    if k > rules.jokers_per_escalera:
        return Verdict(False, None, "[A17] too many jokers")
    found = escalera_placements(ids, rules)
    if not found:
        return Verdict(False, None, "[A16] not a legal escalera")
    readings = []

    def aces(e: Escalera) -> tuple[int, ...]:
        return tuple(sorted(p for p in e.naturals if p in (1, 14)))

    for ace in sorted({aces(e) for e in found}):
        same = [e for e in found if aces(e) == ace]
        best = max(same, key=lambda e: e.hi)  # [A18]: extra jokers high, as many as fit
        assert sum(1 for e in same if e.hi == best.hi) == 1
        readings.append(best)
    return Verdict(True, readings[0], "", tuple(readings))


# --------------------------------------------------------------------------- [A21] [A22]


def legal_layoffs(table, hand, rules) -> set[tuple[int, int, int, int]]:
    """Every single-card lay-off ([A21], [A22]) the hand can make onto the table.

    ``table``: list of :class:`Pierna` / :class:`Escalera`; ``hand``: 53 counts. Returns
    ``{(meld index, card identity, position, joker move)}``: position is where the card goes
    (-1 on a pierna), joker move the new position of an end joker sent to the other end by
    [A22] (0 = none). Brute force: every target position and every new joker position is tried,
    and the result must be a legal meld that keeps every card already there in its place
    ([A18], [A19]) — except the one end joker that [A22] lets jump.
    """
    out = set()
    held = [c for c in range(53) if hand[c] > 0]
    for i, meld in enumerate(table):
        for c in held:
            if isinstance(meld, Pierna):
                if c == JOKER or rank_of(c) != meld.rank:
                    continue
                counts = list(meld.counts)
                counts[suit_of(c)] += 1
                if pierna_problem(meld.rank, counts, rules) is None:
                    out.add((i, c, -1, 0))
                continue
            esc = meld
            if c == JOKER:
                for p in ALL_POSITIONS:
                    if p in esc.occupied:
                        continue
                    new = Escalera(esc.suit, esc.naturals, esc.jokers | {p})
                    if escalera_problem(new, rules) is None:
                        out.add((i, c, p, 0))
                continue
            if suit_of(c) != esc.suit:
                continue
            for p in positions_of_rank(rank_of(c)):
                if p in esc.naturals:
                    continue
                if p not in esc.jokers:  # a plain extension
                    new = Escalera(esc.suit, esc.naturals | {p}, esc.jokers)
                    if escalera_problem(new, rules) is None:
                        out.add((i, c, p, 0))
                    continue
                # the natural of a joker: only [A22], only an end joker, only to the other end
                if not rules.joker_end_move:
                    continue
                if p == esc.lo:
                    other_end = esc.hi + 1
                elif p == esc.hi:
                    other_end = esc.lo - 1
                else:
                    continue  # a middle joker is frozen
                for t in ALL_POSITIONS:
                    if t in esc.occupied or t != other_end:
                        continue
                    new = Escalera(esc.suit, esc.naturals | {p}, (esc.jokers - {p}) | {t})
                    if escalera_problem(new, rules) is None:
                        out.add((i, c, p, t))
    return out


# --------------------------------------------------------------------------- melds in a hand


def piernas_in_hand(hand, rules) -> list[Pierna]:
    """Every legal pierna made of cards the hand holds (every choice of copies per suit)."""
    out = []
    for rank in range(1, 14):
        have = [hand[natural(rank, s)] for s in range(4)]
        for counts in product(*(range(h + 1) for h in have)):
            if pierna_problem(rank, counts, rules) is None:
                out.append(Pierna(rank, tuple(counts)))
    return out


def escalera_windows_in_hand(hand, rules) -> list[Escalera]:
    """Every window of positions that some legal escalera from the hand can occupy.

    For each suit and each window lo..hi the window is laid with the hand's naturals where it
    holds them and jokers elsewhere (fewest jokers). Any other legal escalera on that window
    (a joker where the hand also holds the natural) has fewer naturals, more jokers, the same
    length: if it is legal, so is this one. So these are exactly the occupied windows.
    """
    out = []
    for suit in range(4):
        for lo in ALL_POSITIONS:
            for hi in range(lo, 15):
                window = range(lo, hi + 1)
                jokers = frozenset(p for p in window if hand[card_at(p, suit)] == 0)
                if len(jokers) > hand[JOKER]:
                    continue
                esc = escalera_window(suit, lo, hi, jokers)
                if escalera_problem(esc, rules) is None:
                    out.append(esc)
    return out


def holds(hand, cards) -> bool:
    """Does the hand (53 counts) hold the multiset ``cards``?"""
    need = [0] * 53
    for c in cards:
        need[c] += 1
    return all(need[c] <= hand[c] for c in range(53))


# --------------------------------------------------------------------------- [A9] every new meld


def escaleras_in_hand(hand, rules) -> list[Escalera]:
    """Every legal escalera the hand can put down ([A16]-[A18]): every window of positions and
    every placement of jokers in it — on the gaps, and on positions whose natural the hand
    holds but keeps — with at most ``jokers_per_escalera`` jokers and two naturals or more."""
    out = []
    most = min(hand[JOKER], rules.jokers_per_escalera)  # [A17] (escalera_problem checks too)
    for suit in range(4):
        have = frozenset(p for p in ALL_POSITIONS if hand[card_at(p, suit)] > 0)
        for lo in ALL_POSITIONS:
            for hi in range(lo, 15):
                window = frozenset(range(lo, hi + 1))
                gaps = window - have
                if len(gaps) > most:
                    break  # a longer window from lo has these gaps too
                held = sorted(window & have)
                for k in range(most - len(gaps) + 1):
                    for extra in combinations(held, k):
                        esc = escalera_window(suit, lo, hi, gaps | frozenset(extra))
                        if escalera_problem(esc, rules) is None:
                            out.append(esc)
    return out


def all_new_melds(hand, rules) -> list[Pierna | Escalera]:
    """Every legal meld the hand (53 counts) can put down as a new meld ([A9], [A15]-[A18]):
    every pierna with every choice of copies per suit, every escalera window with every joker
    placement. Each distinct meld once (identical cards are interchangeable)."""
    return piernas_in_hand(hand, rules) + escaleras_in_hand(hand, rules)


# --------------------------------------------------------------------------- plays of a turn


@dataclass(frozen=True)
class NewMeld:
    meld: Pierna | Escalera

    def cards(self) -> list[int]:
        return self.meld.cards()

    def text(self, table=()) -> str:
        return "meld " + self.meld.text()


@dataclass(frozen=True)
class LayOff:
    meld: int  # index of the table meld
    card: int  # identity laid off
    pos: int  # escalera position it takes; -1 on a pierna
    move: int  # [A22] the end joker's new position; 0 = no jump

    def cards(self) -> list[int]:
        return [self.card]

    def text(self, table=()) -> str:
        on = table[self.meld].text() if self.meld < len(table) else f"meld {self.meld}"
        what = f"lay off {card_str(self.card)} on [{on}]"
        if self.pos > 0:
            what += f" at position {self.pos}"
        if self.move:
            what += f", its joker jumps to position {self.move}"
        return what


def legal_plays(hand, table, may_lay: bool, rules) -> list[NewMeld | LayOff]:
    """Every play the player may make now: every new meld from hand, and (when ``may_lay``,
    [A20]) every single-card lay-off. Under [A26] ``go_out_needs_discard`` plays that would
    empty the hand are left out."""
    left = sum(hand)
    plays: list[NewMeld | LayOff] = [NewMeld(m) for m in all_new_melds(hand, rules)]
    if may_lay:
        plays += [LayOff(*x) for x in sorted(legal_layoffs(table, hand, rules))]
    if rules.go_out_needs_discard:
        plays = [p for p in plays if len(p.cards()) < left]
    return plays


def apply_play(hand, table, play):
    """The hand (53 counts) and table after ``play`` (a legal :class:`NewMeld` / :class:`LayOff`);
    the inputs are not changed. Returns ``(hand tuple, table list)``."""
    hand = list(hand)
    for c in play.cards():
        assert hand[c] > 0, "the play uses a card the hand does not hold"
        hand[c] -= 1
    table = list(table)
    if isinstance(play, NewMeld):
        table.append(play.meld)
        return tuple(hand), table
    meld = table[play.meld]
    if isinstance(meld, Pierna):
        counts = list(meld.counts)
        counts[suit_of(play.card)] += 1
        table[play.meld] = Pierna(meld.rank, tuple(counts))
    elif play.card == JOKER:
        table[play.meld] = Escalera(meld.suit, meld.naturals, meld.jokers | {play.pos})
    elif play.move:  # [A22]: the natural takes the joker's place, the joker the other end
        jokers = (meld.jokers - {play.pos}) | {play.move}
        table[play.meld] = Escalera(meld.suit, meld.naturals | {play.pos}, jokers)
    else:
        table[play.meld] = Escalera(meld.suit, meld.naturals | {play.pos}, meld.jokers)
    return tuple(hand), table


def meld_key(meld) -> tuple:
    """A meld as a sortable tuple (equal tuples: the same meld)."""
    if isinstance(meld, Pierna):
        return (0, meld.rank, meld.counts)
    return (1, meld.suit, tuple(sorted(meld.naturals)), tuple(sorted(meld.jokers)))


def table_key(table) -> tuple:
    """The table as a multiset of melds: their order does not matter to what can follow."""
    return tuple(sorted(meld_key(m) for m in table))


# --------------------------------------------------------------------------- [A11] [A12] take


def take_witness(hand, table, melded: bool, rules, c: int):
    """A shortest legal sequence of this turn's plays that puts a card of identity ``c`` (the
    taken discard) on the table, or None when there is none ([A11], [A12]).

    ``hand``: 53 counts *without* the discard; ``table``: list of melds; ``melded``: the seat
    has a meld of its own this round ([A20]). Breadth-first search over every sequence of
    :func:`legal_plays` (new melds of any size, lay-offs, joker lay-offs, [A22] jumps), each
    state (hand, table as a multiset, may lay off) visited once. Under ``discard_take`` =
    ``new_meld_only`` only a new meld from hand that holds ``c`` counts; lay-offs may still be
    made on the way. Under [A26] no play may empty the hand; otherwise a play that empties it
    ends the round ([A25]), so nothing follows it.
    """
    start = list(hand)
    start[c] += 1
    may_lay = bool(melded) or not rules.layoff_requires_own_meld
    layoff_counts = rules.discard_take == "meld_or_layoff"
    frontier = [(tuple(start), list(table), may_lay, ())]
    seen = {(tuple(start), table_key(table), may_lay)}
    while frontier:
        nxt = []
        for h, t, ml, path in frontier:
            for play in legal_plays(h, t, ml, rules):
                if c in play.cards() and (isinstance(play, NewMeld) or layoff_counts):
                    return [*path, (play, t)]
                h2, t2 = apply_play(h, t, play)
                ml2 = ml or isinstance(play, NewMeld)
                key = (h2, table_key(t2), ml2)
                if key in seen or sum(h2) == 0:
                    continue
                seen.add(key)
                nxt.append((h2, t2, ml2, (*path, (play, t))))
        frontier = nxt
    return None


def take_possible(hand, table, melded: bool, rules, c: int) -> bool:
    """May a seat holding ``hand`` (without the discard) take discard ``c``? ([A11], [A12])"""
    return take_witness(hand, table, melded, rules, c) is not None


def witness_text(witness) -> str:
    """A take witness from :func:`take_witness` as readable lines."""
    return "; ".join(play.text(t) for play, t in witness)

"""An independent rules auditor for JSON Lines game traces (``loba replay --format jsonl``).

It re-checks a game from its event stream alone, with its own plain-Python reading of
the rules (docs/rules.md part A); it never imports the engine's rule code (only
:mod:`sim.loba.oracle`, itself independent, for meld and lay-off legality). Use it from the
command line::

    loba audit trace.jsonl        # or: python -m sim.loba.auditor trace.jsonl

Exit code 0 and "ok" when every rule holds; otherwise one line per violation and exit 1.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

from . import oracle  # independent meld logic, shares no code with the engine

SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
JOKER = 52


def cid(card: str) -> int:
    if card == "JK":
        return JOKER
    return SUITS.index(card[-1]) * 13 + RANKS.index(card[:-1])


def pos_of(card: str) -> list[int]:
    r = RANKS.index(card[:-1]) + 1
    return [1, 14] if r == 1 else [r]


class AuditError(AssertionError):
    pass


class Auditor:
    """Feed events in order with :meth:`event`; violations collect in :attr:`problems`."""

    def __init__(self):
        self.problems: list[str] = []
        self.n_events = 0

    # ------------------------------------------------------------------ helpers
    def fail(self, e, msg):
        self.problems.append(
            f"event {self.n_events} ({e.get('type')}, round {e.get('round')}): {msg}"
        )

    def card_value(self, c: int) -> int:
        if c == JOKER:
            return self.rules.joker_value
        r = c % 13 + 1
        return self.rules.ace_value if r == 1 else min(r, 10)

    def next_active(self, seat: int) -> int:
        for k in range(1, self.n + 1):
            q = (seat + k) % self.n
            if self.alive[q]:
                return q
        return seat

    def census_ok(self, e):
        total = Counter(self.stock) + Counter(self.pile)
        for h in self.hands:
            total += h
        for m in self.table:
            total += Counter(m.cards())
        want = Counter({c: self.rules.decks for c in range(52)})
        want[JOKER] = self.rules.jokers
        if total != want:
            diff = (total - want) + (want - total)
            self.fail(e, f"cards not conserved: {dict(diff)}")

    def hand_take(self, e, seat, cards) -> bool:
        need = Counter(cards)
        if need - self.hands[seat]:
            self.fail(
                e, f"seat {seat} plays cards it does not hold: {dict(need - self.hands[seat])}"
            )
            return False
        self.hands[seat] -= need
        return True

    def start_turn_if_needed(self, e, seat):
        if self.turn_seat is None or self.turn_done:
            want = (
                self.next_active(self.dealer)
                if self.turn_seat is None
                else self.next_active(self.turn_seat)
            )
            if seat != want:
                self.fail(e, f"seat {seat} plays out of turn (expected seat {want})")
            self.turn_seat = seat
            self.turn_done = False
            self.drew = False
            self.taken = None
            self.taken_laid_off = False
            self.turns += 1
            self.placed_before = self.placed[seat]
        elif seat != self.turn_seat:
            self.fail(e, f"seat {seat} acts during seat {self.turn_seat}'s turn")

    # ------------------------------------------------------------------ events
    def event(self, e: dict):
        self.n_events += 1
        getattr(self, "on_" + e["type"])(e)

    def on_game(self, e):
        self.rules = SimpleNamespace(**e["rules"])
        self.n = e["players"]
        if not 2 <= self.n <= 5:
            self.fail(e, "[A1] 2-5 players")
        self.alive = [True] * self.n
        self.scores = [0] * self.n
        self.rebuys = [0] * self.n
        self.paid = [self.rules.stake] * self.n
        self.pot = self.rules.stake * self.n
        self.dealer = e["dealer"]
        self.round = 0
        self.ended = False
        self.expect_dealer = e["dealer"]

    def on_deal(self, e):
        self.round += 1
        if e["round"] != self.round:
            self.fail(e, f"round numbers jump to {e['round']}")
        if e["dealer"] != self.expect_dealer:
            self.fail(e, f"[A5] seat {e['dealer']} deals, expected seat {self.expect_dealer}")
        self.dealer = e["dealer"]
        self.hands = [Counter(cid(c) for c in h) for h in e["hands"]]
        for q in range(self.n):
            want = self.rules.hand_size if self.alive[q] else 0
            if len(e["hands"][q]) != want:
                self.fail(e, f"[A6] seat {q} dealt {len(e['hands'][q])} cards, expected {want}")
        self.pile = [cid(e["upcard"])]
        self.stock = [cid(c) for c in e["stock"]][::-1]  # our stock: top = last
        self.table = []
        self.melded = [False] * self.n
        self.placed = [False] * self.n
        self.turn_seat = None
        self.turn_done = True
        self.turns = 0
        self.out_seat = None
        self.census_ok(e)
        self.scores_before = list(self.scores)

    def on_position(self, e):
        """A trace that starts from a set-up position (``loba replay --position``) instead of
        a deal: take the table as given, checked like any table (cards conserved, every meld
        legal), and expect ``to_move`` to play next."""
        self.round = e["round"]
        self.dealer = e["dealer"]
        self.alive = [s != "out" for s in e["status"]]
        self.scores = list(e["scores"])
        self.rebuys = list(e["rebuys"])
        self.paid = [self.rules.stake + k * self.rules.rebuy_cost for k in self.rebuys]
        self.pot = sum(self.paid)
        self.hands = [Counter(cid(c) for c in h) for h in e["hands"]]
        self.pile = [cid(c) for c in e["pile"]]
        self.stock = [cid(c) for c in e["stock"]][::-1]  # our stock: top = last
        self.table = []
        for m in e["table"]:
            meld, why = self.read_meld(e, m, [cid(c) for c in m["cards"]])
            if meld is None:
                return
            if why:
                self.fail(e, f"invalid table meld {m['cards']}: {why}")
            self.table.append(meld)
        self.melded = [q in e["melded"] for q in range(self.n)]
        self.placed = [q in e["placed"] for q in range(self.n)]
        before = [q for q in range(self.n) if self.next_active(q) == e["to_move"]]
        self.turn_seat = before[0] if before else e["to_move"]
        self.turn_done = True
        self.turns = 0
        self.out_seat = None
        if e.get("phase", "draw") != "draw":  # set up after the draw: the turn is under way
            seat = e["to_move"]
            self.turn_seat = seat
            self.turn_done = False
            self.drew = True
            self.taken = None if e.get("taken") is None else cid(e["taken"])
            self.taken_laid_off = False
            self.turns = 1
            self.placed_before = self.placed[seat]
            self.placed[seat] = self.placed[seat] or self.melded[seat]
        self.census_ok(e)
        self.scores_before = list(self.scores)

    def on_rebuild(self, e):
        if self.stock:
            self.fail(e, "[A13] the stock is rebuilt while it still has cards")
        keep = bool(self.rules.reshuffle_keep_top)
        moved = self.pile[:-1] if keep else self.pile[:]
        new = [cid(c) for c in e["stock"]]
        if Counter(new) != Counter(moved):
            self.fail(e, "[A13] the new stock is not the discard pile (less its top card)")
        self.pile = self.pile[-1:] if keep else []
        self.stock = new[::-1]

    def on_draw(self, e):
        seat = e["seat"]
        self.start_turn_if_needed(e, seat)
        if self.drew:
            self.fail(e, "[A9] a second draw in one turn")
        self.drew = True
        card = cid(e["card"])
        if e["from"] == "stock":
            if not self.stock:
                self.fail(e, "[A13] drew from an empty stock")
                return
            top = self.stock.pop()
            if top != card:
                self.fail(e, f"[A10] drew {e['card']} but the stock's top card differs")
        else:
            if not self.pile or self.pile[-1] != card:
                self.fail(e, "[A10] took a card that is not the top discard")
                return
            self.pile.pop()
            self.taken = card
        self.hands[seat][card] += 1

    def placed_card(self, seat, card, new_meld):
        """``card`` reached the table (in a new meld if ``new_meld``, else by a lay-off). A
        card of the taken identity pays the taken discard off ([A12]: identical cards are
        interchangeable), except that under ``discard_take=new_meld_only`` ([A11]) only a
        new meld from hand does; a lay-off of it then leaves the debt open."""
        self.placed[seat] = True
        if self.taken is None or card != self.taken:
            return
        if new_meld or getattr(self.rules, "discard_take", "meld_or_layoff") != "new_meld_only":
            self.taken = None
        else:
            self.taken_laid_off = True

    def taken_unplayed(self, e, when):
        if self.taken_laid_off:
            self.fail(
                e,
                "[A11] discard_take=new_meld_only: the taken discard reached the table only by "
                f"a lay-off, never in a new meld from hand ({when})",
            )
        else:
            self.fail(e, f"[A12] the taken discard is still in hand ({when})")
        self.taken = None  # reported once per turn (a last discard is followed by "out")

    def on_meld(self, e):
        seat = e["seat"]
        self.start_turn_if_needed(e, seat)
        if not self.drew:
            self.fail(e, "[A9] plays before drawing")
        cards = [cid(c) for c in e["cards"]]
        if not self.hand_take(e, seat, cards):
            return
        meld, why = self.read_meld(e, e, cards)
        if meld is None:
            return
        if why:
            self.fail(e, f"invalid meld {e['cards']}: {why}")
        if e["meld"] != len(self.table):
            self.fail(e, f"meld id {e['meld']} is not the next id {len(self.table)}")
        self.table.append(meld)
        self.melded[seat] = True
        for c in cards:
            self.placed_card(seat, c, new_meld=True)
        self.check_not_emptied_by_plays(e, seat)

    def read_meld(self, e, m, cards):
        """(meld, problem) of a meld ``m`` written as ``kind``, ``cards`` and, for an escalera,
        ``as`` (the card each stands for), as in a meld event; (None, None) after a failure."""
        if m["kind"] == "pierna":
            rank = cards[0] % 13 + 1
            if any(c == JOKER or c % 13 + 1 != rank for c in cards):
                self.fail(e, "[A15]/[A17] a pierna of mixed ranks or with a joker")
                return None, None
            counts = [sum(1 for c in cards if c // 13 == s) for s in range(4)]
            meld = oracle.Pierna(rank, tuple(counts))
            why = oracle.pierna_problem(rank, counts, self.rules)
        else:
            stands = m["as"]
            suit = SUITS.index(stands[0][-1])
            positions = []
            for i, s in enumerate(stands):
                ps = pos_of(s)
                if len(ps) == 2:  # an ace: low if it starts a run, high if it ends one
                    ps = [1] if i == 0 and len(stands) > 1 and stands[1][:-1] == "2" else [14]
                positions.append(ps[0])
            nat = {p for p, c in zip(positions, m["cards"], strict=True) if c != "JK"}
            jk = {p for p, c in zip(positions, m["cards"], strict=True) if c == "JK"}
            for p, c in zip(positions, m["cards"], strict=True):
                if c != "JK" and c != stands[positions.index(p)]:
                    self.fail(e, "a natural card listed as another")
            if any(s[-1] != SUITS[suit] for s in stands):
                self.fail(e, "[A16] an escalera of mixed suits")
            meld = oracle.Escalera(suit, frozenset(nat), frozenset(jk))
            why = oracle.escalera_problem(meld, self.rules)
            if positions != list(range(positions[0], positions[0] + len(positions))):
                why = why or "[A16] cards not listed in consecutive order"
        return meld, why

    def check_not_emptied_by_plays(self, e, seat):
        if self.rules.go_out_needs_discard and sum(self.hands[seat].values()) == 0:
            self.fail(e, "[A26] plays emptied the hand though going out needs a discard")

    def on_layoff(self, e):
        seat = e["seat"]
        self.start_turn_if_needed(e, seat)
        if not self.drew:
            self.fail(e, "[A9] plays before drawing")
        if self.rules.layoff_requires_own_meld and not self.melded[seat]:
            self.fail(e, "[A20] lay-off before a meld of one's own this round")
        i = e["meld"]
        card = cid(e["card"])
        if not 0 <= i < len(self.table):
            self.fail(e, f"lay-off on unknown meld {i}")
            return
        if self.hands[seat][card] < 1:
            self.fail(e, f"seat {seat} lays off {e['card']} it does not hold")
            return
        hand = [0] * 53
        for c, k in self.hands[seat].items():
            hand[c] = k
        legal = oracle.legal_layoffs(self.table, hand, self.rules)
        meld = self.table[i]
        if isinstance(meld, oracle.Pierna):
            key = (i, card, -1, 0)
        else:
            p = e["position"]
            t = 0
            if e["joker_moved"]:
                t = [q for q in (meld.lo - 1, meld.hi + 1)][0 if e["end"] == "low" else 1]
            key = (i, card, p, t)
        if key not in legal:
            self.fail(e, f"[A21]/[A22] illegal lay-off {key} on {meld}")
            return
        self.hands[seat][card] -= 1
        if isinstance(meld, oracle.Pierna):
            counts = list(meld.counts)
            counts[card // 13] += 1
            self.table[i] = oracle.Pierna(meld.rank, tuple(counts))
        elif card == JOKER:
            self.table[i] = oracle.Escalera(meld.suit, meld.naturals, meld.jokers | {key[2]})
        elif key[3]:
            self.table[i] = oracle.Escalera(
                meld.suit, meld.naturals | {key[2]}, (meld.jokers - {key[2]}) | {key[3]}
            )
        else:
            self.table[i] = oracle.Escalera(meld.suit, meld.naturals | {key[2]}, meld.jokers)
        self.placed_card(seat, card, new_meld=False)
        self.check_not_emptied_by_plays(e, seat)

    def on_discard(self, e):
        seat = e["seat"]
        self.start_turn_if_needed(e, seat)
        if not self.drew:
            self.fail(e, "[A9] discards without drawing")
        card = cid(e["card"])
        if self.taken is not None:
            self.taken_unplayed(e, "at the discard")
        if self.hands[seat][card] < 1:
            self.fail(e, f"discards {e['card']} it does not hold")
            return
        h = self.hands[seat]
        if card == JOKER and self.rules.joker_discard == "last_only":
            if sum(v for c, v in h.items() if c != JOKER) > 0:
                self.fail(e, "[A24] a joker discarded while holding other cards")
        h[card] -= 1
        self.pile.append(card)
        self.turn_done = True

    def on_out(self, e):
        seat = e["seat"]
        if seat != self.turn_seat:
            self.fail(e, "[A25] a player goes out on another player's turn")
        if sum(self.hands[seat].values()) != 0:
            self.fail(e, "[A25] goes out with cards in hand")
        if self.taken is not None:
            self.taken_unplayed(e, "when going out")
        if e["one_turn"] != (not self.placed_before):
            self.fail(e, "[A28] one-turn bonus flag is wrong")
        self.out_seat = seat
        self.turn_done = True
        self.census_ok(e)  # cards are also counted at every deal; moves in between are tracked

    def on_void(self, e):
        if e["reason"] == "turn_cap":
            if self.turns != self.rules.max_turns_per_round:
                self.fail(e, f"[A14] void by the turn cap after {self.turns} turns")
        elif e["reason"] == "stock_exhausted":
            keep = 1 if self.rules.reshuffle_keep_top else 0
            if self.stock or len(self.pile) - keep > 0:
                self.fail(e, "[A14] void while the stock could be drawn or rebuilt")
        else:
            self.fail(e, f"unknown void reason {e['reason']}")
        self.out_seat = -1
        self.pending = []
        self.census_ok(e)

    def on_score(self, e):
        if self.out_seat is None or self.out_seat < 0:
            self.fail(e, "scores without anybody going out")
            return
        pens = []
        for q in range(self.n):
            if not self.alive[q]:
                pens.append(0)
            elif q == self.out_seat:
                pens.append(-self.rules.one_turn_bonus if not self.placed_before else 0)
            else:
                pens.append(sum(self.card_value(c) * k for c, k in self.hands[q].items()))
        new = []
        for q in range(self.n):
            v = self.scores[q] + pens[q]
            if self.alive[q] and self.rules.score_floor is not None:
                v = max(v, self.rules.score_floor)
            new.append(v)
        pens = [new[q] - self.scores[q] for q in range(self.n)]
        if e["penalties"] != pens:
            self.fail(e, f"[A27]/[A28] penalties {e['penalties']} != {pens}")
        if e["scores"] != new:
            self.fail(e, f"[A27] scores {e['scores']} != {new}")
        self.scores = new
        elim = self.rules.elimination_score
        self.over = [q for q in range(self.n) if self.alive[q] and self.scores[q] >= elim]
        surv = [q for q in range(self.n) if self.alive[q] and self.scores[q] < elim]
        self.rebuy_open = len(surv) >= 2 or (len(surv) == 1 and self.rules.rebuy_with_one_survivor)
        self.target = max((self.scores[q] for q in surv), default=None)
        self.pending = list(self.over)

    def on_over(self, e):
        if not self.pending or e["seat"] != self.pending[0] or e["score"] != self.scores[e["seat"]]:
            self.fail(e, f"[A29] seat {e['seat']} marked over out of order or wrongly")
        else:
            self.pending.pop(0)

    def on_rebuy(self, e):
        q = e["seat"]
        if q not in self.over:
            self.fail(e, f"[A30] seat {q} rebuys without being over")
        if not self.rebuy_open:
            self.fail(e, "[A31] a rebuy with one survivor")
        if self.rebuys[q] >= self.rules.max_rebuys:
            self.fail(e, "[A30] more rebuys than max_rebuys")
        if e["score"] != self.target:
            self.fail(e, f"[A30] rebuy score {e['score']} != highest survivor {self.target}")
        self.rebuys[q] += 1
        self.paid[q] += self.rules.rebuy_cost
        self.pot += self.rules.rebuy_cost
        if e["pot"] != self.pot:
            self.fail(e, f"[A30] pot {e['pot']} != {self.pot}")
        self.scores[q] = e["score"]
        self.over.remove(q)

    def on_eliminated(self, e):
        q = e["seat"]
        if q not in self.over:
            self.fail(e, f"[A32] seat {q} eliminated without being over")
            return
        self.over.remove(q)
        self.alive[q] = False

    def after_round(self):
        """Called at the next deal/end: every over seat was resolved; the deal moves left."""
        if getattr(self, "over", None):
            self.problems.append(
                f"round {self.round}: over seats {self.over} neither rebought nor eliminated [A32]"
            )
        self.over = []
        self.expect_dealer = self.next_active(self.dealer)

    def on_stop(self, e):
        """The trace stops by request at the end of a round (a replay from a position that
        was not played to the game's end): nothing more to check."""
        self.ended = True

    def on_end(self, e):
        alive = [q for q in range(self.n) if self.alive[q]]
        if e["winner"] is None:
            if self.round < self.rules.max_rounds_per_game:
                self.fail(e, "[A14b] unfinished before the round cap")
        elif alive != [e["winner"]]:
            self.fail(e, f"[A33] winner {e['winner']} but still in: {alive}")
        if e["rounds"] != self.round:
            self.fail(e, f"rounds {e['rounds']} != {self.round}")
        if e["pot"] != self.pot or self.pot != sum(self.paid):
            self.fail(e, f"[A4]/[A33] pot {e['pot']} != {self.pot}")
        self.ended = True


def audit_events(events) -> list[str]:
    """Audit a list of event dicts; returns the violations (empty = the game is clean)."""
    a = Auditor()
    started = False
    for e in events:
        if e["type"] in ("deal", "end", "stop") and started:
            if e["type"] != "end" and getattr(a, "out_seat", None) is None:
                a.problems.append(f"round {a.round} ended with nobody out and no void")
            a.after_round()
        if e["type"] in ("deal", "position"):
            started = True
        try:
            a.event(e)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError) as err:
            a.fail(e, f"malformed event: {err!r}")
    if not a.ended:
        a.problems.append("the trace has no end event")
    return a.problems


def audit_file(path) -> list[str]:
    events = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return audit_events(events)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m sim.loba.auditor TRACE.jsonl", file=sys.stderr)
        return 2
    try:
        problems = audit_file(argv[0])
    except (OSError, json.JSONDecodeError) as err:
        print(f"Error: cannot read trace '{argv[0]}': {err}", file=sys.stderr)
        return 2
    if problems:
        for p in problems:
            print(p)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

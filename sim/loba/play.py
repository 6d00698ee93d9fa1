"""A Python handle on one game, for tests, notebooks and replays.

:class:`Game` owns one :class:`~sim.loba.layout.State` and advances it with the kernel's own
:func:`~sim.loba.engine.step` (one deal or one turn per call), so what it shows is exactly what
the batch kernel does. Decks can be given literally (:func:`stack_deck`, :func:`deal_order`)
so scenario tests read as data, not as lucky seeds.

Cost from Python: :meth:`Game.step` takes a few hundred microseconds (the seats' decision
functions travel as :class:`~sim.policies.api.Handle` objects); the loops that step many times
(:meth:`Game.play_round`, :meth:`Game.play_to_rebuy`, :meth:`Game.play`,
:meth:`Game.rebuy_branches`) run compiled, in one call.
"""

from __future__ import annotations

import numpy as np

from ..events import NO_TRACE, new_trace, recorded
from ..games import get_game
from ..jit import DISABLED, in_python
from ..rules import RuleSet
from ..setup import check_run
from .api import DECIDE_SIG
from .cards import JOKER, card_str, parse_cards, position_card
from .kernel import (
    ADV_BUST,
    ADV_ROUND,
    ADV_SETTLE,
    NO_ROWS,
    OP_ADVANCE,
    OP_BRANCHES,
    OP_COPY,
    OP_PLAY,
    OP_START,
    OP_STEP,
    blank_bufs,
    blank_state,
    call,
)
from .layout import MAX_CARDS, MAX_SEATS, MELD, N_IDS, PH, RR, ST, G, M, S, SeatFns
from .rules import SPEC as RULES

TRACE_EVENTS = 20_000  # starting capacity; sim.trace doubles it when a game needs more


# The loops that step a game many times run compiled, in the engine's one entry point
# (:func:`~.kernel.drive`): calling the kernel from Python unboxes every seat's decision
# functions (a millisecond or so).


def full_deck(rules: RuleSet) -> list[int]:
    """Every card identity of the rule set's deck, in canonical order."""
    out = [cid for cid in range(52) for _ in range(rules.decks)]
    return out + [JOKER] * rules.jokers


def stack_deck(top, rules: RuleSet | None = None) -> list[int]:
    """A complete deck (top first) that starts with ``top`` (cards or notation strings); the
    remaining cards follow in canonical order. Refuses more copies of a card than the deck has."""
    rules = rules or RULES.make()
    top_ids = parse_cards(list(top)) if top and isinstance(next(iter(top)), str) else list(top)
    rest = full_deck(rules)
    for c in top_ids:
        try:
            rest.remove(c)
        except ValueError:
            raise ValueError(f"The deck has no more copies of {card_str(c)}.") from None
    return top_ids + rest


def deal_order(hands, upcard, stock_top=(), dealer=0, rules: RuleSet | None = None):
    """The deck (top first) that deals ``hands[q]`` to seat q, then turns ``upcard``, then has
    ``stock_top`` (next draws first) on the stock. Seats deal one card at a time from the
    dealer's left ([A6]); every hand must have ``hand_size`` cards."""
    rules = rules or RULES.make()
    n = len(hands)
    hs = [parse_cards(h) if h and isinstance(h[0], str) else list(h) for h in hands]
    for q, h in enumerate(hs):
        if len(h) != rules.hand_size:
            raise ValueError(f"Seat {q} needs {rules.hand_size} cards, got {len(h)}.")
    order = []
    for i in range(rules.hand_size):
        for k in range(1, n + 1):
            order.append(hs[(dealer + k) % n][i])
    order += parse_cards([upcard]) if isinstance(upcard, str) else [upcard]
    st = list(stock_top)
    order += parse_cards(st) if st and isinstance(st[0], str) else st
    return stack_deck(order, rules)


class Game:
    """One game, stepped by the kernel. ``decks``: list of per-round decks (top first)."""

    def __init__(
        self,
        rules=None,
        seats="greedy,greedy",
        seed=0,
        index=0,
        decks=None,
        first_dealer=-1,
        record_rounds=True,
        trace=False,
    ):
        spec = get_game(RULES.game)  # (this game's spec, which imports this module)
        _, self.rules, self.seats = check_run(rules, seats, 1, int(seed), spec)
        self.n = len(self.seats)
        self.R = self.rules.to_array()
        fns, params = spec.fn_tables(self.seats)
        self.tables = (SeatFns(*fns), params)
        self._handles = None  # (tables, the same as Handle objects) for step()
        k = max(1, len(decks or []))
        self.decks = np.full((k, MAX_CARDS), -1, dtype=np.int16)
        for i, d in enumerate(decks or []):
            ids = parse_cards(d) if d and isinstance(d[0], str) else list(d)
            if len(ids) != 52 * self.rules.decks + self.rules.jokers:
                ids = stack_deck(ids, self.rules)
            self.decks[i, : len(ids)] = ids
        cap = self.rules.max_rounds_per_game if record_rounds else 0
        self.rounds_rows = np.zeros((cap, MAX_SEATS, RR.SIZE), dtype=np.int32)
        self.seed = int(seed)
        self.index = int(index)
        self.st = blank_state()
        cap = TRACE_EVENTS if trace is True else int(trace or 0)
        self.bufs = blank_bufs(self.R)
        self.tr = in_python(new_trace)(cap, cap * 4) if cap > 0 else NO_TRACE
        self._call(OP_START, players=self.n, game=index, dealer=first_dealer, seed=self.seed)
        self.first_dealer = int(self.st.g[G.DEALER])

    # ------------------------------------------------------------ stepping
    def _call(self, op: int, quick: bool = True, **kw) -> int:
        """:func:`~.kernel.drive` on this game's state, rules, seats, decks, records and trace
        (``quick``: the seats' functions as Handles, cheaper to hand over from Python)."""
        fns, params = self._quick() if quick else self.tables
        kw.setdefault("tr", self.tr)
        kw.setdefault("rows", self.rounds_rows)
        return call(op, self.st, self.R, fns, params, self.bufs, decks=self.decks, **kw)

    def _quick(self) -> tuple:
        """The seats' tables with the functions as Handles (for calls from Python)."""
        if DISABLED:
            return self.tables
        if self._handles is None or self._handles[0] is not self.tables:
            from ..policies.api import handles

            fns, params = self.tables
            quick = SeatFns(*(handles(f, DECIDE_SIG) for f in fns))
            self._handles = (self.tables, (quick, params))
        return self._handles[1]

    def step(self) -> int:
        """One deal or one turn; returns the new phase."""
        return self._call(OP_STEP)

    def turn(self) -> int:
        """One deal or one turn; a round that ends is also settled (rebuys, elimination)."""
        self.step()
        while self.phase == PH.SETTLE:
            self.step()
        return self.phase

    def _advance(self, mode: int, elim: int = 0) -> int:
        return self._call(OP_ADVANCE, mode=mode, elim=elim)

    def play_round(self) -> None:
        """Play on until the current round (or the next one, if between rounds) is settled."""
        self._advance(ADV_ROUND)

    def play(self) -> Game:
        """Play to the end of the game (compiled loop)."""
        self._call(OP_PLAY)
        return self

    def fork(self) -> Game:
        """An independent copy of this game, at this exact point (same random stream)."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.st = blank_state()
        self._call(OP_COPY, scratch=other.st)
        other.rounds_rows = self.rounds_rows.copy()
        other.bufs = blank_bufs(self.R)
        other.tr = NO_TRACE
        return other

    def rebuy_decisions(self) -> list[int]:
        """At PH.SETTLE: seats that are over and may rebuy now ([A29]-[A31]), else []."""
        if self.phase != PH.SETTLE or int(self.st.g[G.OUT]) < 0:
            return []
        r = self.rules
        active = [q for q in range(self.n) if self.status(q) == ST.ACTIVE]
        over = [q for q in active if self.score(q) >= r.elimination_score]
        n_surv = len(active) - len(over)
        if not over or not (n_surv >= 2 or (n_surv == 1 and r.rebuy_with_one_survivor)):
            return []
        return [q for q in over if self.rebuys(q) < r.max_rebuys]

    def settle_with(self, choices: dict[int, bool]) -> Game:
        """At PH.SETTLE: settle the round with the given seats' rebuy decisions forced (the
        other seats decide by their own rules); later rebuys go back to the seats' rules."""
        from .policies import rebuy_always, rebuy_never

        if self.phase != PH.SETTLE:
            raise ValueError("settle_with() needs a game waiting to settle a round (PH.SETTLE).")
        fns, params = self.tables
        r = fns.rebuy
        forced = tuple(
            (rebuy_always if choices[q] else rebuy_never) if q in choices else r[q]
            for q in range(len(r))
        )
        self.tables = (fns._replace(rebuy=forced), params)
        try:
            self.step()
        finally:
            self.tables = (fns, params)
        return self

    def play_to_settle(self) -> bool:
        """Play on until a round waits to be settled (True) or the game is over (False)."""
        return self._advance(ADV_SETTLE) == PH.SETTLE

    def play_to_rebuy(self) -> bool:
        """Play on until a round waits to be settled with a player at or over the elimination
        score, i.e. where rebuy decisions may be due (True; see :meth:`rebuy_decisions`), or
        the game is over (False)."""
        return self._advance(ADV_BUST, self.rules.elimination_score) == PH.SETTLE

    def rebuy_branches(self, seat: int, reps: int, seed: int, base: int = 0) -> np.ndarray:
        """At a rebuy decision of ``seat``: play the game on ``reps`` times from here with the
        seat rebuying and ``reps`` times with it declining, in pairs that share their random
        streams (those of games ``(seed, base + k)``); the other seats decide by their own
        rules. Returns int64[reps, 4]: the seat's net stakes rebuying, declining, and whether
        it won (1/0) rebuying, declining. The game itself is not changed."""
        from .policies import rebuy_always, rebuy_never

        if seat not in self.rebuy_decisions():
            raise ValueError(f"Seat {seat} has no rebuy decision to make here.")
        fns, params = self.tables
        r = fns.rebuy
        r_yes = tuple(rebuy_always if i == seat else r[i] for i in range(len(r)))
        r_no = tuple(rebuy_never if i == seat else r[i] for i in range(len(r)))
        out = np.zeros((int(reps), 4), dtype=np.int64)
        scratch = blank_state()
        self._call(OP_BRANCHES, rows=NO_ROWS, tr=NO_TRACE, scratch=scratch, r_yes=r_yes,
                   r_no=r_no, seat=seat, game=base, seed=seed, pairs=out)  # fmt: skip
        return out

    # ------------------------------------------------------------ views
    def trace_arrays(self):
        """(events, payload, overflowed) recorded so far (copies)."""
        if self.tr is NO_TRACE:
            raise ValueError("This game was not created with trace=True.")
        return recorded(self.tr)

    @property
    def g(self):
        return self.st.g

    @property
    def phase(self) -> int:
        return int(self.st.g[G.PHASE])

    @property
    def done(self) -> bool:
        return self.phase == PH.DONE

    @property
    def round(self) -> int:
        return int(self.st.g[G.ROUND])

    @property
    def dealer(self) -> int:
        return int(self.st.g[G.DEALER])

    @property
    def current(self) -> int:
        return int(self.st.g[G.CUR])

    @property
    def winner(self) -> int | None:
        w = int(self.st.g[G.WINNER])
        return None if w < 0 else w

    @property
    def pot(self) -> int:
        return int(self.st.g[G.POT])

    def hand(self, seat: int) -> list[str]:
        h = self.st.hands[seat]
        return [card_str(c) for c in range(53) for _ in range(int(h[c]))]

    def hand_counts(self, seat: int) -> np.ndarray:
        return self.st.hands[seat, :N_IDS].copy()

    def hand_size(self, seat: int) -> int:
        return int(self.st.s[seat, S.HAND_N])

    def score(self, seat: int) -> int:
        return int(self.st.s[seat, S.SCORE])

    def scores(self) -> list[int]:
        return [self.score(q) for q in range(self.n)]

    def rebuys(self, seat: int) -> int:
        return int(self.st.s[seat, S.REBUYS])

    def paid(self, seat: int) -> int:
        return int(self.st.s[seat, S.PAID])

    def status(self, seat: int) -> int:
        return int(self.st.s[seat, S.STATUS])

    def stock(self) -> list[int]:
        """Stock card identities, top first."""
        n = int(self.st.g[G.STOCK_N])
        return [int(c) for c in self.st.stock[:n][::-1]]

    def pile(self) -> list[int]:
        """Discard pile identities, bottom first (top last)."""
        n = int(self.st.g[G.PILE_N])
        return [int(c) for c in self.st.pile[:n]]

    def melds(self) -> list[dict]:
        """Table melds: kind, cards (identities; escaleras low to high, jokers as JOKER) and,
        for escaleras, the positions and which of them hold jokers."""
        out = []
        for i in range(int(self.st.g[G.NMELDS])):
            row = self.st.melds[i]
            if row[M.KIND] == MELD.ESCALERA:
                s = int(row[M.KEY])
                lo, hi, jm = int(row[M.LO]), int(row[M.HI]), int(row[M.JMASK])
                cards = [JOKER if (jm >> p) & 1 else position_card(p, s) for p in range(lo, hi + 1)]
                jokers = [p for p in range(lo, hi + 1) if (jm >> p) & 1]
                out.append(
                    {
                        "kind": "escalera",
                        "suit": s,
                        "lo": lo,
                        "hi": hi,
                        "cards": cards,
                        "joker_positions": jokers,
                    }
                )
            else:
                r = int(row[M.KEY])
                cards = [
                    sidx * 13 + r - 1 for sidx in range(4) for _ in range(int(row[M.C0 + sidx]))
                ]
                out.append({"kind": "pierna", "rank": r, "cards": cards})
        return out

    def card_census(self) -> np.ndarray:
        """Copies of every identity over stock, pile, hands and table (for conservation checks)."""
        c = np.zeros(53, dtype=np.int64)
        for x in self.stock():
            c[x] += 1
        for x in self.pile():
            c[x] += 1
        for q in range(self.n):
            c += self.st.hands[q, :N_IDS].astype(np.int64)
        for m in self.melds():
            for x in m["cards"]:
                c[x] += 1
        return c

    @property
    def deck_size(self) -> int:
        return int(self.st.g[G.DECK_N])

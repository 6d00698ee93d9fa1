"""Positions as files: set up any Loba table by hand, check it, list the legal moves, play on.

A position is a TOML file (or the same keys as a dict, which is how the tests write theirs)::

    game = "loba"                     # optional
    rules = "pagat"                   # a preset or a canonical id: "pagat(elimination_score=151)"
    seats = ["greedy", "hold", "random"]   # optional: greedy at every seat
    dealer = 2
    to_move = 0                       # optional: the dealer's left
    phase = "draw"                    # draw | play (drawn, about to play) | discard
    round = 3                         # optional, 1
    hands = ["5H 6H 7H 7H 8H 9H 3S 3D 3C", "...", "..."]   # every seat, "" for none
    table = [                         # the melds on the table, in the order they went down
      { cards = "5S 6S 7S JK(8S)", owner = 1 },           # a joker with the card it stands for
      { cards = "KH KD KC", owner = 2 },
    ]
    melded = [1, 2]                   # seats with a meld of their own this round ([A20])
    placed = [1, 2]                   # seats that put any card down this round ([A28]); the
                                      # seat to move at phase play/discard: before this turn
    pile = "4D 9C"                    # the discard pile, bottom to top
    stock = "KC 2D"                   # top first; the cards not named anywhere follow, in
                                      # canonical order (so the file may name none of them)
    scores = [12, 40, 88]
    rebuys = [0, 1, 0]
    status = ["active", "active", "out"]
    taken = "9C"                      # phase "play" only: the discard just taken ([A12])
    partial = false                   # true: a partial table for a rule check (see below)

:func:`load_position` checks everything on load and names the field of any problem in one
sentence (:class:`PositionError`): every card of the deck accounted for (no card more often than
the deck holds it), every table meld legal ([A15]-[A18]), hand sizes a real game can reach
([A6], [A9]), seats, dealer and statuses consistent.

A *partial* position (``partial = true``: what the rule-id tests use to check one rule in
isolation) names only the cards in play: the cards not named are out of the game, and the
checks that need the whole deal (hand sizes, a non-empty pile, owners having melded, scores
below the elimination score, and cards repeated beyond the deck, as when one dead hand
stands for several seats) are left out; table melds must still be legal.

:meth:`Position.game` puts the position into the kernel (a
:class:`~sim.loba.play.Game`); :func:`moves` lists the options of the seat to move at its next
decision, in card notation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..position import PositionError, position_rules, position_seats, read_position, whole
from ..rules import RuleError, RuleSet
from .cards import JOKER, CardError, card_str, parse_card, position_card, rank_of, suit_of
from .layout import MAX_MELDS, MELD, PH, PLAY, ST, TAT, A, G, M, S

PHASES = ("draw", "play", "discard")
PHASE_AT = {"draw": TAT.DRAW, "play": TAT.PLAY, "discard": TAT.DISCARD}  # the kernel's TURN_AT
KEYS = (
    "game rules seats dealer to_move phase round hands table melded placed pile stock scores "
    "rebuys status taken partial"
).split()
_JK = re.compile(r"^JK\((\w+)\)$", re.IGNORECASE)


@dataclass
class TableMeld:
    """A meld on the table: its cards (identities, escaleras low to high with jokers as
    JOKER), the natural each card stands for, and the seat that put it down."""

    cards: list[int]
    stands: list[int]
    owner: int


@dataclass
class Position:
    rules: RuleSet
    seats: list[str]
    dealer: int
    to_move: int
    phase: str
    round: int
    hands: list[list[int]]
    table: list[TableMeld]
    melded: set[int]
    placed: set[int]
    pile: list[int]  # bottom .. top
    stock: list[int]  # top first, complete
    scores: list[int]
    rebuys: list[int]
    status: list[str]
    taken: int | None = None
    partial: bool = False
    named_stock: int = 0  # how many stock cards the file named (the rest: canonical order)
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.seats)

    def game(self, seats=None, seed: int = 0, trace=False):
        """The position in the kernel: a :class:`~sim.loba.play.Game` whose next step is the
        turn of the seat to move, from its phase (the draw, the plays after it, or the
        discard)."""
        return self._game(seats, seed, trace)

    def _game(self, seats=None, seed: int = 0, trace=False):
        from .play import Game

        g = Game(self.rules, seats or self.seats, seed=seed, first_dealer=self.dealer, trace=trace)
        if g.n != self.n:
            raise PositionError(f"'seats' names {g.n} seats, but the position has {self.n}.")
        st = g.st
        R = self.rules
        st.g[G.ROUND] = self.round
        st.g[G.PHASE] = PH.TURN
        st.g[G.DEALER] = self.dealer
        st.g[G.CUR] = self.to_move
        st.hands[:, :] = 0
        for q, h in enumerate(self.hands):
            for c in h:
                st.hands[q, c] += 1
            st.s[q, S.HAND_N] = len(h)
        for i, m in enumerate(self.table):
            _meld_row(st.melds[i], m)
        st.g[G.NMELDS] = len(self.table)
        st.g[G.LAY_OK] = 0  # the engine's lay-off masks: computed for this table when needed
        st.pile[:] = -1
        st.pile[: len(self.pile)] = self.pile
        st.g[G.PILE_N] = len(self.pile)
        st.stock[:] = -1
        st.stock[: len(self.stock)] = self.stock[::-1]
        st.g[G.STOCK_N] = len(self.stock)
        pot = 0
        for q in range(self.n):
            st.s[q, S.MELDED] = int(q in self.melded)
            st.s[q, S.PLACED] = int(q in self.placed)
            st.s[q, S.SCORE] = self.scores[q]
            st.s[q, S.REBUYS] = self.rebuys[q]
            st.s[q, S.STATUS] = ST.ACTIVE if self.status[q] == "active" else ST.OUT
            st.s[q, S.PAID] = R.stake + self.rebuys[q] * R.rebuy_cost
            pot += int(st.s[q, S.PAID])
        st.g[G.POT] = pot
        st.g[G.TAKEN] = -1 if self.taken is None else self.taken
        # mid-turn ([A28]): 'placed' is what the seat to move put down before this turn; a
        # meld of its own this turn ('melded') counts as put down this round
        st.g[G.TURN_AT] = PHASE_AT[self.phase]
        mover = self.to_move
        st.g[G.PLACED_BEFORE] = int(mover in self.placed)
        st.s[mover, S.PLACED] = int(mover in self.placed or mover in self.melded)
        g.first_dealer = self.dealer
        return g


def _meld_row(row, m: TableMeld) -> None:
    row[:] = 0
    row[M.OWNER] = m.owner
    row[M.N] = len(m.cards)
    naturals = [c for c in m.cards if c != JOKER]
    if len({rank_of(c) for c in naturals}) == 1 and JOKER not in m.cards:
        row[M.KIND] = MELD.PIERNA
        row[M.KEY] = rank_of(naturals[0])
        for c in naturals:
            row[M.C0 + suit_of(c)] += 1
        return
    row[M.KIND] = MELD.ESCALERA
    row[M.KEY] = suit_of(naturals[0])
    pos = _positions(m)
    row[M.LO], row[M.HI] = min(pos), max(pos)
    for c, p in zip(m.cards, pos, strict=True):
        if c == JOKER:
            row[M.JMASK] |= 1 << p


def _positions(m: TableMeld) -> list[int]:
    """Escalera positions 1..14 of each card (an ace is 1 or 14 by its neighbours)."""
    ranks = [rank_of(s) for s in m.stands]
    high_ace = any(r >= 12 for r in ranks) and 1 in ranks and not any(r == 2 for r in ranks)
    return [14 if (r == 1 and high_ace) else r for r in ranks]


# ---------------------------------------------------------------------------- loading
def load_position(source, rules=None, shuffle: int | None = None) -> Position:
    """A checked :class:`Position` from a TOML file path, TOML text or a dict of the keys in the
    module docstring. ``rules``: overrides the file's rules (a RuleSet or id). ``shuffle``: a
    seed that orders the stock cards the file does not name (None: canonical order)."""
    data, _ = read_position(source, KEYS)
    try:
        pos = _build(data, rules, shuffle)
    except (RuleError, CardError) as e:
        raise PositionError(str(e)) from None
    if pos.taken is not None and not _play_options(pos._game(), pos.to_move, pos.taken):
        raise PositionError(
            f"'taken': no play this turn can put {card_str(pos.taken)} on the table, so it could"
            " not have been taken [A11]/[A12]."
        )
    return pos


def _cards(value, name: str) -> list[int]:
    if value is None or value == "":
        return []
    items = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    out = []
    for x in items:
        try:
            out.append(parse_card(str(x)))
        except CardError as e:
            raise PositionError(f"'{name}': {e}") from None
    return out


def _ints(value, name: str, n: int, lo: int, hi: int, default: int) -> list[int]:
    if value is None:
        return [default] * n
    if not isinstance(value, list) or len(value) != n:
        raise PositionError(f"'{name}' must list one number per seat ({n}).")
    return [whole(v, f"{name}[{q}]", lo, hi) for q, v in enumerate(value)]


def _seat_set(value, name: str, n: int) -> set[int]:
    if not isinstance(value, list):
        raise PositionError(f"'{name}' must be a list of seat numbers.")
    return {whole(v, name, 0, n - 1) for v in value}


def _build(d: dict, rules_override, shuffle: int | None = None) -> Position:
    from ..setup import parse_rules_id
    from .rules import SPEC

    if d.get("game", "loba") != "loba":
        raise PositionError(f"'game' = {d['game']!r}: not a Loba position.")
    if rules_override is not None:
        rules = (
            rules_override
            if isinstance(rules_override, RuleSet)
            else parse_rules_id(str(rules_override), "loba")
        )
    else:
        rules = position_rules(d.get("rules", SPEC.default_preset), "loba")
    partial = d.get("partial", False)
    if not isinstance(partial, bool):
        raise PositionError(f"'partial' takes true or false, not {partial!r}.")
    hands_raw = d.get("hands")
    if not isinstance(hands_raw, list) or not hands_raw:
        raise PositionError('\'hands\' must list every seat\'s cards, e.g. ["5H 6H 7H", ""].')
    n = len(hands_raw)
    try:
        rules.check_players(n)
    except RuleError as e:
        raise PositionError(f"'hands': {e}") from None
    seats = position_seats(d.get("seats", ["greedy"] * n), "loba", n)
    hands = [_cards(h, f"hands[{q}]") for q, h in enumerate(hands_raw)]
    dealer = whole(d.get("dealer", 0), "dealer", 0, n - 1)
    status = d.get("status", ["active"] * n)
    if (
        not isinstance(status, list)
        or len(status) != n
        or any(s not in ("active", "out") for s in status)
    ):
        raise PositionError(f'\'status\' must give "active" or "out" for each of the {n} seats.')
    to_move = d.get("to_move")
    if to_move is None:
        to_move = next(
            q % n for q in range(dealer + 1, dealer + 1 + n) if status[q % n] == "active"
        )
    to_move = whole(to_move, "to_move", 0, n - 1)
    if status[to_move] != "active":
        raise PositionError(f"'to_move' = {to_move} names a seat that is out of the game.")
    phase = d.get("phase", "draw")
    if phase not in PHASES:
        raise PositionError(f"'phase' must be one of {', '.join(PHASES)}, not {phase!r}.")
    rnd = whole(d.get("round", 1), "round", 1, rules.max_rounds_per_game)
    table = _table(d.get("table", []), rules, n)
    if len(table) > MAX_MELDS:
        raise PositionError(f"'table' holds {len(table)} melds; at most {MAX_MELDS} fit.")
    owners = {m.owner for m in table}
    melded = _seat_set(d.get("melded", sorted(owners)), "melded", n)
    # 'placed': before this turn for the seat to move at phase play or discard (its melds of
    # this turn are in 'melded' only), this round for every other seat ([A28])
    this_turn = {to_move} if phase != "draw" and "placed" not in d else set()
    placed = _seat_set(d.get("placed", sorted(melded - this_turn)), "placed", n)
    placed |= melded - ({to_move} if phase != "draw" else set())
    if not owners <= melded and not partial:
        raise PositionError(
            f"'melded' must include every owner of a table meld (seat {min(owners - melded)})."
        )
    pile = _cards(d.get("pile"), "pile")
    if not pile and not partial:
        raise PositionError("'pile' must hold at least one card (the top discard, [A7]).")
    named_stock = _cards(d.get("stock"), "stock")
    top = 10**6 if partial else rules.elimination_score - 1
    scores = _ints(d.get("scores"), "scores", n, -(10**6), top, 0)
    rebuys = _ints(d.get("rebuys"), "rebuys", n, 0, rules.max_rebuys, 0)
    taken = None
    if d.get("taken") is not None:
        if phase != "play":
            raise PositionError("'taken' is only for phase \"play\" (a discard just taken).")
        taken = _cards(d["taken"], "taken")
        if len(taken) != 1 or taken[0] not in hands[to_move]:
            raise PositionError("'taken' must be one card that the seat to move holds.")
        taken = taken[0]
    # every card accounted for ([A2]): none more often than the deck holds it
    deck = np.array([rules.decks] * 52 + [rules.jokers])
    seen = np.zeros(53, dtype=np.int64)
    for where, cards in (
        *((f"hands[{q}]", h) for q, h in enumerate(hands)),
        *((f"table[{i}]", m.cards) for i, m in enumerate(table)),
        ("pile", pile),
        ("stock", named_stock),
    ):
        for c in cards:
            seen[c] += 1
            if seen[c] > deck[c] and not partial:
                raise PositionError(
                    f"'{where}' holds one {card_str(c)} too many: the deck has {deck[c]} of it"
                    f" ({int(seen.sum())} cards named so far, {int(deck.sum())} in the deck)"
                    " [A2]."
                )
    rest = [] if partial else [c for c in range(53) for _ in range(int(deck[c] - seen[c]))]
    if shuffle is not None:
        rest = [rest[k] for k in np.random.default_rng(shuffle).permutation(len(rest))]
    for q, h in enumerate(hands):
        if not partial:
            _check_hand(q, h, status[q], q == to_move, phase, q in placed | melded, rules)
    return Position(
        rules=rules,
        seats=[str(s) for s in seats],
        dealer=dealer,
        to_move=to_move,
        phase=phase,
        round=rnd,
        hands=hands,
        table=table,
        melded=melded,
        placed=placed,
        pile=pile,
        stock=named_stock + rest,
        scores=scores,
        rebuys=rebuys,
        status=list(status),
        taken=taken,
        partial=partial,
        named_stock=len(named_stock),
    )


def _check_hand(q, hand, status, moving, phase, placed, rules) -> None:
    """[A6]/[A9] sizes a game can reach: between turns a hand holds at most ``hand_size``
    cards (a turn draws one and discards one; plays only take cards away), exactly that many
    if the seat has put nothing down this round, and at most three fewer if it has (its first
    put-down is a meld); the seat to move holds one more once it has drawn."""
    k = len(hand)
    hs = rules.hand_size
    if status == "out":
        if k:
            raise PositionError(f"'hands[{q}]': seat {q} is out of the game but holds cards.")
        return
    if k == 0:
        raise PositionError(
            f"'hands[{q}]': an active seat with no cards would have gone out [A25]."
        )
    extra = 1 if moving and phase != "draw" else 0
    if k > hs + extra:
        raise PositionError(
            f"'hands[{q}]' holds {k} cards, more than a game can give it ({hs + extra}: a turn"
            " draws one card and discards one, plays only take cards away) [A6][A9]."
        )
    least = 3  # the fewest cards a first meld takes from the hand ([A15], [A16] escalera_min)
    if placed and k > hs + extra - least:
        raise PositionError(
            f"'hands[{q}]' holds {k} cards, but seat {q} has put cards on the table this round,"
            f" a meld of at least {least} first, so it holds at most {hs + extra - least}"
            " [A9][A15][A16]."
        )
    if not placed and k != hs + extra and not (moving and phase == "discard"):
        raise PositionError(
            f"'hands[{q}]' holds {k} cards, but seat {q} has put nothing on the table this"
            f" round, so it holds exactly {hs + extra} (list it in 'placed' if it has) [A6][A9]."
        )


def _table(items, rules, n) -> list[TableMeld]:
    from .moves import OK, judge_meld

    if not isinstance(items, list):
        raise PositionError("'table' must be a list of melds like { cards = \"5S 6S 7S\" }.")
    out = []
    for i, m in enumerate(items):
        name = f"table[{i}]"
        if isinstance(m, str):
            m = {"cards": m}
        if not isinstance(m, dict) or "cards" not in m:
            raise PositionError(f"'{name}' must be {{ cards = \"...\", owner = SEAT }}.")
        owner = whole(m.get("owner", 0), f"{name}.owner", 0, n - 1)
        raw = m["cards"].split() if isinstance(m["cards"], str) else list(m["cards"])
        cards, stands = [], []
        for x in raw:
            j = _JK.match(str(x).strip())
            try:
                if j:
                    cards.append(JOKER)
                    stands.append(parse_card(j.group(1)))
                else:
                    c = parse_card(str(x))
                    cards.append(c)
                    stands.append(c)
            except CardError as e:
                raise PositionError(f"'{name}': {e}") from None
        counts = np.zeros(53, dtype=np.int8)
        for c in cards:
            counts[c] += 1
        code = judge_meld(counts, rules.to_array())[0]
        if code != OK:
            from .melds import REASONS

            why = REASONS[code].format(
                decks=rules.decks, jpe=rules.jokers_per_escalera, emin=rules.escalera_min
            )
            raise PositionError(f"'{name}' is not a legal meld: {why}.")
        tm = TableMeld(cards, stands, owner)
        if JOKER in cards:
            _check_reading(tm, name, rules)
        elif len({rank_of(c) for c in cards}) > 1:  # an escalera: low to high
            pos = _positions(tm)
            order = sorted(range(len(cards)), key=lambda k: pos[k])
            tm = TableMeld([cards[k] for k in order], [stands[k] for k in order], owner)
        out.append(tm)
    return out


def _check_reading(m: TableMeld, name: str, rules) -> None:
    """A joker written ``JK(8S)`` must stand for a card of the escalera's suit, in a gap or at
    an end, so that the cards form one run [A16]-[A18]; a bare ``JK`` gets the engine's
    reading under the position's ``rules`` (as ``loba check-meld`` reads it); jokers written
    with their card beside bare ones must agree with it."""
    naturals = [c for c in m.cards if c != JOKER]
    suit = suit_of(naturals[0])
    if any(s == JOKER for s in m.stands):
        from .moves import judge_meld

        counts = np.zeros(53, dtype=np.int8)
        for c in m.cards:
            counts[c] += 1
        _, _, _, lo, hi, jm = judge_meld(counts, rules.to_array())
        written = {s for s in m.stands if s != JOKER and s not in naturals}
        m.cards = [JOKER if (jm >> p) & 1 else position_card(p, suit) for p in range(lo, hi + 1)]
        m.stands = [position_card(p, suit) for p in range(lo, hi + 1)]
        read = {s for c, s in zip(m.cards, m.stands, strict=True) if c == JOKER}
        if not written <= read:
            shown = " ".join(f"JK({card_str(s)})" if c == JOKER else card_str(c)
                             for c, s in zip(m.cards, m.stands, strict=True))  # fmt: skip
            raise PositionError(
                f"'{name}': its bare jokers read as {shown}, which the written readings"
                " contradict; write every joker's card, or none [A16]-[A18]."
            )
        return
    if any(suit_of(s) != suit for s in m.stands):
        raise PositionError(f"'{name}': a joker must stand for a card of the run's suit [A17].")
    pos = _positions(m)
    if sorted(pos) != list(range(min(pos), max(pos) + 1)):
        raise PositionError(
            f"'{name}': the cards and jokers' readings do not make one run without gaps [A16]."
        )
    order = sorted(range(len(m.cards)), key=lambda k: pos[k])
    m.cards = [m.cards[k] for k in order]
    m.stands = [m.stands[k] for k in order]


# ---------------------------------------------------------------------------- moves
def _meld_text(cards, stands) -> str:
    return " ".join(
        f"JK({card_str(s)})" if c == JOKER else card_str(c)
        for c, s in zip(cards, stands, strict=True)
    )


def _row_cards(row) -> tuple[list[int], list[int]]:
    if row[M.KIND] == MELD.ESCALERA:
        s = int(row[M.KEY])
        lo, hi, jm = int(row[M.LO]), int(row[M.HI]), int(row[M.JMASK])
        stands = [position_card(p, s) for p in range(lo, hi + 1)]
        cards = [JOKER if (jm >> (lo + k)) & 1 else c for k, c in enumerate(stands)]
        return cards, stands
    r = int(row[M.KEY])
    cards = [t * 13 + r - 1 for t in range(4) for _ in range(int(row[M.C0 + t]))]
    return cards, cards


def describe_play(st, seat: int, act) -> dict:
    """One play option as a dict in card notation (what it puts down, where, joker moves)."""
    from .moves import apply_play

    hand = st.hands[seat].copy()
    melds = st.melds.copy()
    nm = int(st.g[G.NMELDS])
    apply_play(hand, melds, nm, act, seat)
    if act[A.TYPE] == PLAY.MELD:
        cards, stands = _row_cards(melds[nm])
        kind = "escalera" if act[A.KIND] == MELD.ESCALERA else "pierna"
        return {"play": "meld", "kind": kind, "cards": _meld_text(cards, stands)}
    i = int(act[A.MELD])
    card = int(act[A.CARD])
    before = _row_cards(st.melds[i])
    after = _row_cards(melds[i])
    out = {"play": "layoff", "card": card_str(card), "meld": i, "onto": _meld_text(*before)}
    if st.melds[i, M.KIND] == MELD.ESCALERA:
        p, move = int(act[A.POS]), int(act[A.MOVE])
        out["end"] = "low" if p <= int(st.melds[i, M.LO]) else "high"
        if card == JOKER:
            out["as"] = card_str(position_card(p, int(st.melds[i, M.KEY])))
        if move:
            out["joker_to"] = card_str(position_card(move, int(st.melds[i, M.KEY])))
    out["result"] = _meld_text(*after)
    return out


def _play_options(g, seat, must_place: int | None = None) -> list[dict]:
    """The engine's play options; with ``must_place``, only those that put that card down."""
    from .options import gen_plays, keep_placeable
    from .state import new_bufs

    b = new_bufs(g.R)
    n = gen_plays(g.st, g.R, seat, b.acts)
    if must_place is not None:
        n = keep_placeable(g.st, g.R, seat, must_place, b.acts, n, b)
    return [describe_play(g.st, seat, b.acts[i]) for i in range(n)]


def moves(pos: Position, after_draw: str | None = None) -> dict:
    """The options of the seat to move at its next decision, in card notation.

    ``draw``: the stock (while it has cards or can be rebuilt, [A13]) and the top discard, with
    whether it may be taken ([A11]/[A12]). ``play``: every play the engine offers (new melds in
    their canonical forms, single-card lay-offs; "stop" is always an option unless a taken
    discard is still in hand). ``discard``: every legal discard ([A12], [A24]).
    ``after_draw``: from a draw position, the plays after drawing that card from the stock.
    """
    from .options import take_ok
    from .state import new_bufs

    g = pos._game()
    st, R, seat = g.st, g.R, pos.to_move
    out: dict = {
        "seat": seat,
        "policy": pos.seats[seat],
        "hand": " ".join(card_str(c) for c in sorted(pos.hands[seat])),
    }
    phase = pos.phase
    if after_draw is not None:
        if phase != "draw":
            raise PositionError('--after-draw needs a position at phase "draw".')
        try:
            c = parse_card(after_draw)
        except CardError as e:
            raise PositionError(str(e)) from None
        if c not in pos.stock:
            raise PositionError(f"{card_str(c)} is not in the stock of this position.")
        st.hands[seat, c] += 1
        st.s[seat, S.HAND_N] += 1
        out["drew"] = card_str(c)
        phase = "play"
    out["phase"] = phase
    if phase == "draw":
        opts = []
        keep = 1 if pos.rules.reshuffle_keep_top else 0
        if pos.stock or len(pos.pile) > keep:
            opts.append({"draw": "stock", "cards_left": len(pos.stock)})
        top = pos.pile[-1]
        ok = bool(take_ok(st, R, seat, top, new_bufs(R)))
        why = (
            "it can reach the table this turn [A11]/[A12]"
            if ok
            else "no play this turn could put it on the table, so it may not be taken [A11]/[A12]"
        )
        opts.append({"draw": "discard", "card": card_str(top), "takeable": ok, "why": why})
        out["options"] = opts
    elif phase == "play":
        opts = _play_options(g, seat, pos.taken)
        if pos.taken is not None:
            out["must_place"] = card_str(pos.taken)
        else:
            opts.append({"play": "stop"})
        out["options"] = opts
    else:
        hand = pos.hands[seat]
        only_jokers = all(c == JOKER for c in hand)
        allowed = pos.rules.joker_discard == "allowed" or only_jokers
        cards = sorted({c for c in hand if c != JOKER or allowed})
        out["options"] = [{"discard": card_str(c)} for c in cards]
    out["n"] = len(out["options"])
    return out


def moves_text(m: dict) -> str:
    """The options of :func:`moves` as lines a player reads."""
    lines = [f"seat {m['seat']} ({m['policy']}) holds {m['hand']}"]
    if "drew" in m:
        lines.append(f"after drawing {m['drew']}:")
    if m.get("must_place"):
        lines.append(f"the taken {m['must_place']} must reach the table [A12]; its plays:")
    lines.append(f"{m['n']} option{'s' * (m['n'] != 1)} at phase '{m['phase']}':")
    for i, o in enumerate(m["options"]):
        if "draw" in o:
            if o["draw"] == "stock":
                t = f"draw from the stock ({o['cards_left']} cards)"
            else:
                verb = "take" if o["takeable"] else "cannot take"
                t = f"{verb} the discard {o['card']}: {o['why']}"
        elif o.get("play") == "meld":
            t = f"put down {o['kind']} {o['cards']}"
        elif o.get("play") == "layoff":
            where = f" at the {o['end']} end" if "end" in o else ""
            jk = f" (as {o['as']})" if "as" in o else ""
            move = f", the joker jumps to {o['joker_to']}" if "joker_to" in o else ""
            t = f"lay off {o['card']}{jk} on #{o['meld']} {o['onto']}{where}{move} -> {o['result']}"
        elif o.get("play") == "stop":
            t = "stop playing (go on to the discard)"
        else:
            t = f"discard {o['discard']}"
        lines.append(f"  {i + 1:>3}. {t}")
    return "\n".join(lines) + "\n"

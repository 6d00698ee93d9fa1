"""Literal table states for scenario tests: hands, melds, piles and scores as data.

``table(...)`` returns a :class:`sim.loba.play.Game` positioned mid-round, so one call to
``game.step()`` plays exactly one turn of the seat on turn with the kernel's own code.
"""

from __future__ import annotations

import numpy as np

from sim.loba import moves
from sim.loba.cards import card_str, parse_cards
from sim.loba.layout import EV, MELD, E, M
from sim.loba.play import Game
from sim.loba.position import load_position
from sim.setup import make_rules


def ids(cards) -> list[int]:
    return parse_cards(list(cards)) if cards and isinstance(cards[0], str) else list(cards)


def meld_row(row, cards, rules, owner=0):
    """Encode ``cards`` (a valid meld) into a table meld row."""
    counts = np.zeros(53, dtype=np.int8)
    for c in ids(cards):
        counts[c] += 1
    code, kind, key, lo, hi, jm = moves.judge_meld(counts, rules.to_array())
    assert code == 0, f"not a meld: {cards}"
    row[:] = 0
    row[M.KIND] = kind
    row[M.KEY] = key
    row[M.OWNER] = owner
    if kind == MELD.ESCALERA:
        row[M.LO], row[M.HI], row[M.JMASK], row[M.N] = lo, hi, jm, hi - lo + 1
    else:
        for s in range(4):
            row[M.C0 + s] = counts[s * 13 + key - 1]
        row[M.N] = int(counts.sum())


def table(
    rules=None,
    seats="greedy,greedy",
    hands=(),
    melds=(),
    pile=(),
    stock=(),
    melded=(),
    placed=(),
    scores=None,
    rebuys=None,
    dealer=0,
    current=None,
    seed=0,
    trace=False,
) -> Game:
    """A game in the middle of round 1 with exactly the given cards in play, set up through
    the position loader (:func:`sim.loba.position.load_position`, a partial position).

    ``pile`` bottom..top; ``stock`` top first; ``melds`` a list of card lists (owner 0);
    ``melded``/``placed``: seats that have put down a meld / any card this round.
    ``trace=True`` records the kernel's events from here on (read them with :func:`events`).
    """
    rules = rules or make_rules()
    seat_list = seats.split(",") if isinstance(seats, str) else list(seats)
    n = len(seat_list)

    def text(cards) -> str:
        return " ".join(card_str(c) for c in ids(cards)) if cards else ""

    pos = load_position(
        {
            "partial": True,  # only these cards are in play (sim/loba/position.py)
            "seats": seat_list,
            "dealer": dealer,
            "to_move": (dealer + 1) % n if current is None else current,
            "hands": [text(hands[q]) if q < len(hands) else "" for q in range(n)],
            "table": [{"cards": text(m), "owner": 0} for m in melds],
            "melded": list(melded),
            "placed": list(placed),
            "pile": text(pile),
            "stock": text(stock),
            "scores": list(scores) if scores else None,
            "rebuys": list(rebuys) if rebuys else None,
        },
        rules=rules,
    )
    g = pos.game(seed=seed, trace=trace)
    return g


# the fields of the kernel's event rows (sim.loba.layout, "event trace"), by event type
_EVENT_FIELDS = {
    E.DRAW: ("source", "card"),  # source: DRAW.STOCK | DRAW.DISCARD
    E.MELD: ("meld", "kind", "key"),
    E.LAYOFF: ("meld", "card", "position", "joker_to"),
    E.DISCARD: (None, "card"),
    E.OUT: ("one_turn",),
    E.OVER: ("score",),
    E.REBUY: ("score", "pot", "rebuys"),
    E.ELIM: ("score",),
}


def events(g: Game, *types: str) -> list[dict]:
    """The kernel's recorded events of ``g`` (a game made with ``trace=True``), read straight
    from the event rows (``sim.loba.trace.decode`` needs every meld's creation, which a
    ``table`` position lacks): ``{"type": "layoff", "seat": 1, "meld": 0, "card": 7, ...}``
    with card identities; only the given ``types`` (lower-case ``E`` names) if any."""
    evs, _, _ = g.trace_arrays()
    out = []
    for row in evs:
        t = int(row[EV.TYPE])
        e = {"type": E._fields[t].lower(), "round": int(row[EV.ROUND]), "seat": int(row[EV.SEAT])}
        for name, col in zip(_EVENT_FIELDS.get(t, ()), (EV.A, EV.B, EV.C, EV.D), strict=False):
            if name:
                e[name] = int(row[col])
        if not types or e["type"] in types:
            out.append(e)
    return out

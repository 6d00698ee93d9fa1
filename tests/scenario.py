"""Literal table states for scenario tests: hands, melds, piles and scores as data.

``table(...)`` returns a :class:`sim.loba.play.Game` positioned mid-round, so one call to
``game.step()`` plays exactly one turn of the seat on turn with the kernel's own code.
"""

from __future__ import annotations

import numpy as np

from sim.loba import moves
from sim.loba.cards import parse_cards
from sim.loba.layout import MELD, PH, G, M, S
from sim.loba.play import Game
from sim.rules import make_rules


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
) -> Game:
    """A game in the middle of round 1 with exactly the given cards in play.

    ``pile`` bottom..top; ``stock`` top first; ``melds`` a list of card lists (owner 0);
    ``melded``/``placed``: seats that have put down a meld / any card this round.
    """
    rules = rules or make_rules()
    g = Game(rules, seats, seed=seed, first_dealer=dealer)
    st = g.st
    st.g[G.ROUND] = 1
    st.g[G.PHASE] = PH.TURN
    st.g[G.DEALER] = dealer
    st.g[G.CUR] = (dealer + 1) % g.n if current is None else current
    st.hands[:, :] = 0
    for q, h in enumerate(hands):
        for c in ids(h):
            st.hands[q, c] += 1
        st.s[q, S.HAND_N] = len(ids(h)) if h else 0
    for i, m in enumerate(melds):
        meld_row(st.melds[i], m, rules)
    st.g[G.NMELDS] = len(melds)
    p = ids(pile) if pile else []
    st.pile[:] = -1
    st.pile[: len(p)] = p
    st.g[G.PILE_N] = len(p)
    s_ = ids(stock) if stock else []
    st.stock[: len(s_)] = s_[::-1]
    st.g[G.STOCK_N] = len(s_)
    for q in melded:
        st.s[q, S.MELDED] = 1
        st.s[q, S.PLACED] = 1
    for q in placed:
        st.s[q, S.PLACED] = 1
    for q, v in enumerate(scores or []):
        st.s[q, S.SCORE] = v
    for q, v in enumerate(rebuys or []):
        st.s[q, S.REBUYS] = v
    return g

"""The rebuy rules (a Loba seat's one add-on, ``+rebuy=``).

Rebuy rules: ``always``, ``never``, ``if_opponents:k=K`` (rebuy only while at least K other
players are still under the limit), ``table:PATH`` (rebuy where a state-level rebuy-value table
says the value is positive, else decline; cells it lacks rebuy: :mod:`sim.loba.rebuy_table`).
"""

from __future__ import annotations

from ...policies.api import addon_slot, decision
from ..layout import PUB, ST
from ..rebuy_table import rebuy_cell, table_says_rebuy

REBUY_SLOT0 = addon_slot(0)  # the rebuy rule's parameters (the only add-on of a Loba seat)


@decision
def rebuy_always(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 1


@decision
def rebuy_never(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 0


@decision
def rebuy_if_opponents(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    me = pub[PUB.SEAT]
    k = 0
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE:
            k += 1
    return 1 if k >= params[REBUY_SLOT0] else 0


@decision
def rebuy_table(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return table_says_rebuy(params, REBUY_SLOT0, rebuy_cell(pub))

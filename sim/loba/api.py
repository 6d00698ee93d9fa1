"""Loba's decision signature: what a policy is handed at every decision (rules doc A.8).

Every Loba decision function has the signature :data:`DECIDE_SIG`::

    def decide(hand, melds, pile, pub, params, rng, acts, n) -> int

* ``hand``   int8[53]: the deciding seat's own card counts (:mod:`sim.loba.cards` identities).
* ``melds``  int16[MAX_MELDS, M.SIZE]: table melds, rows ``0 .. pub[PUB.NMELDS]-1`` in use
  (columns ``M.*`` of :mod:`sim.loba.layout`).
* ``pile``   int16[MAX_CARDS]: the discard pile bottom..top, ``pub[PUB.PILE_N]`` cards.
* ``pub``    int32[PUB.SIZE]: the public view (``PUB.*``): seat, stock size, every hand's size,
  scores, rebuys, statuses, the rule array at ``PUB.RULES + RULE.*``, and the decision kind.
  A rebuy decision also sees the new scores of seats that decided before it this round (they
  are public, A.8).
* ``params`` float64[N]: this seat's parameters (the policy's at slots 0-7, the rebuy rule's at
  8-15, :data:`sim.loba.policies.REBUY_SLOT0`).
* ``rng``    uint64[2]: the policies' random stream of this game (separate from the stream that
  shuffles the deck, so it tells nothing about the cards); draw from it with
  :func:`sim.rng.below`.
* ``acts``, ``n``: the options, rows ``0 .. n-1`` (``A.*`` columns for plays).

What it returns, by decision (:data:`DECISIONS`, then the ``rebuy`` add-on):

* **draw**: index of ``acts[i, 0]`` in {``DRAW.STOCK``, ``DRAW.DISCARD``}; the discard is
  offered only when the rules let this seat put it on the table this turn ([A11]/[A12]).
* **play**: index of a play, or ``-1`` to stop playing. When ``pub[PUB.TAKEN] >= 0`` the
  options are the plays that put the taken discard down and one must be chosen.
* **discard**: index of a legal discard (``acts[i, 0]`` is the card identity).
* **rebuy** (rebuy rules): ``1`` to rebuy at score ``pub[PUB.REBUY_SCORE]``, ``0`` to decline.

The kernel never hands a policy another player's hand or the stock order. An out-of-range
answer is read as the first option (or "stop" for plays).
"""

from __future__ import annotations

from numba import types

DECISIONS = ("draw", "play", "discard")
ADDONS = ("rebuy",)

DECIDE_SIG = types.int64(
    types.int8[::1],
    types.int16[:, ::1],
    types.int16[::1],
    types.int32[::1],
    types.float64[::1],
    types.uint64[::1],
    types.int16[:, ::1],
    types.int64,
)

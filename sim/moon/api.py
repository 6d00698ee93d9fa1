"""The Moon policy plug-in contract.

A Moon policy is three compiled decision functions — ``bid``, ``trump`` and ``play`` — all of
the one signature :data:`DECIDE_SIG`::

    def decide(own, pub, played, params, rng, acts, n) -> int

* ``own``    int8[N_TILES]: 1 for each tile the deciding seat holds (the bidder's 8 tiles,
  widow included, while it chooses its discard).
* ``pub``    int32[PUB.SIZE]: the public view (:data:`~.layout.PUB`): seat, decision kind, hand
  number, opener, every seat's call this hand, high bid, bidder, trump, the trick under way and
  its led tile, trick winners, tricks taken, cumulative scores, the rule array at
  ``PUB.RULES + RULE.*``; for the bidder only, the widow and its discard.
* ``played`` int16[PL.SIZE]: the tiles played this hand in order and by whom, and for each tile
  the seat that played it (-1 not yet) (:data:`~.layout.PL`).
* ``params`` float64[N_PARAMS]: this seat's parameters, in the order of the policy's dict.
* ``rng``    uint64[2]: this seat's own random stream (draw with :func:`sim.rng.below`); it is
  seeded from (seed, game, seat) and tells nothing about the deal or the other seats.
* ``acts``, ``n``: the options, rows ``0 .. n-1`` (:data:`~.layout.A` columns):

  - **bid** (``DEC.BID``): ``acts[i, 0]`` = 0 (pass) or a bid 4, 5, 6, 7, 21 ([B4]).
  - **trump** — one function for the bidder's choices, by ``pub[PUB.DECISION]``:
    ``DEC.DECLARE`` rows (discard tile, contract) for every held tile x legal contract;
    ``DEC.TRUMP`` (``trump_before_widow``) rows (-1, contract);
    ``DEC.DISCARD`` (``trump_before_widow``, after the widow) rows (tile, the named trump).
  - **play** (``DEC.PLAY``): ``acts[i, 0]`` = a legal tile ([B7]).

It returns the index of its option. An answer outside ``0 .. n-1`` is read as the first option
and counted against the seat (``bad_answers``). What the function is handed are copies: writing
into them changes nothing in the game. It never sees another seat's tiles, the widow unless it
took it, the dead tile of another seat, or the deal's random stream (rules document B.5).

Write the functions with :func:`sim.policies.api.decision` and wrap them in a
:class:`sim.policies.api.Policy` with ``game="moon"`` (``Policy("mine", bid=b, trump=t,
play=p, game="moon")``), as every game's policies are; :func:`compiled_moon` compiles one for
:data:`DECIDE_SIG` alone.
"""

from __future__ import annotations

from numba import types

from ..policies.api import compiled

N_PARAMS = 8  # a seat's parameter row: the policy's own, in its dict's order
DECISIONS = ("bid", "trump", "play")  # decision kinds, in the order of a seat's function tuple

DECIDE_SIG = types.int64(
    types.int8[::1],  # own
    types.int32[::1],  # pub
    types.int16[::1],  # played
    types.float64[::1],  # params
    types.uint64[::1],  # rng
    types.int16[:, ::1],  # acts
    types.int64,  # n
)


def compiled_moon(fn):
    """``fn`` compiled for :data:`DECIDE_SIG` alone (:func:`sim.policies.api.compiled`)."""
    return compiled(fn, DECIDE_SIG)



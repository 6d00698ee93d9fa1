"""Loba's decision signature: what a policy is handed at every decision (rules doc A.8).

Every Loba decision function has the signature :data:`DECIDE_SIG`::

    def decide(hand, melds, pile, pub, params, rng, acts, n, hist, mem) -> int

* ``hand``   int8[53]: the deciding seat's own card counts (:mod:`sim.loba.cards` identities).
* ``melds``  int16[nm, M.SIZE]: the table melds, ``nm = pub[PUB.NMELDS]`` rows (columns ``M.*``
  of :mod:`sim.loba.layout`).
* ``pile``   int16[pub[PUB.PILE_N]]: the discard pile, bottom .. top.
* ``pub``    int32[PUB.SIZE]: the public view (``PUB.*``): seat, stock size, every hand's size,
  scores, rebuys, statuses, the rule array at ``PUB.RULES + RULE.*``, and the decision kind.
  A rebuy decision also sees the new scores of seats that decided before it this round (they
  are public, A.8).
* ``params`` float64[16]: this seat's parameters (the policy's at slots 0-7, the rebuy rule's at
  8-15, :data:`sim.loba.policies.REBUY_SLOT0`).
* ``rng``    uint64[2]: this seat's own random stream, seeded from (seed, game, seat): it tells
  nothing about the deal or another seat's stream; draw from it with :func:`sim.rng.below`.
* ``acts``, ``n``: the options, exactly ``n`` rows (``A.*`` columns for plays).
* ``hist``   int16[rows, H.SIZE]: the public history of the round so far, oldest first (layout
  ``H`` and row types ``HT`` in :mod:`sim.loba.layout`): every draw (from the stock with the
  card hidden as -1, from the discard pile with the card), meld, lay-off and discard, and,
  while a round is settled, the rebuy decisions taken before this one. It holds up to
  ``HIST_CAP`` rows, which covers the default ``max_turns_per_round`` whatever happens; rows
  past it are dropped and counted in ``pub[PUB.HIST_LOST]``.
* ``mem``    float64[MEM_N = 16]: this seat's memory, zeroed when the game starts and kept
  from one of its decisions to the next (forks of a game carry it along).

What it returns, by decision (:data:`DECISIONS`, then the ``rebuy`` add-on):

* **draw**: index of ``acts[i, 0]`` in {``DRAW.STOCK``, ``DRAW.DISCARD``}; the discard is
  offered only when the rules let this seat put it on the table this turn ([A11]/[A12]).
* **play**: index of a play, or ``-1`` to stop playing. When ``pub[PUB.TAKEN] >= 0`` the
  options are the plays that put the taken discard down and one must be chosen.
* **discard**: index of a legal discard (``acts[i, 0]`` is the card identity).
* **rebuy** (rebuy rules): ``1`` to rebuy at score ``pub[PUB.REBUY_SCORE]``, ``0`` to decline.

An out-of-range answer is read as the first option (or "stop" for plays) and counted against
the seat (``bad_answers``, shown by ``loba simulate``).

**The seal** (rules document A.8: nothing a policy reads or writes reaches hidden information
or changes the game except through its answer). What is guaranteed, and how:

* Every array is exactly as long as what it holds: the seat's hand, the melds and the pile in
  use, its parameter row, the options, the public history so far; ``rng`` and ``mem`` are the
  seat's own stream and memory. For the game's own policies they are slices of the game's own
  arrays (no copy: copying costs time on every decision). A plug-in seat (a policy or add-on
  rule loaded from a file or module) gets copies in an arena of its own (gate.ask_arena: a
  row per seat, padded with 4 KiB of zeros at each end), and only its stream and memory are
  copied back: about +25% per turn for a table with one plug-in seat playing greedy-like code
  (``python tests/tools/arena_ab.py``), nothing for the others.
* All arrays but ``rng`` and ``mem`` are typed read-only: a decision function that writes into
  one does not compile (:func:`sim.policies.api.compiled` refuses it with one sentence), nor
  does a helper it passes them to. ``acts`` holds the engine's own option rows; the engine acts
  on the row the answer names, so the answer is the only way to choose.
* Each array has exactly the length of what it holds, and decision functions are compiled with
  Numba's ``boundscheck``: an index past an end (or before the start, beyond Python's negative
  indices) raises ``IndexError`` in the function, so the options past ``n`` (another seat's),
  the next seat's hand after this one, the stock after the pile are out of reach. In a batch
  (``simulate``, the runner) the exception stops the run with one sentence naming the seat,
  the decision and the game (:mod:`sim.faults`); a replay plays the game through the kernel
  first, so it stops the same way.
* Each seat draws from its own random stream, seeded from (seed, game, seat): it tells nothing
  about the deal or the other seats, and nothing a seat does to it changes another seat's.

Not guaranteed: the bounds checks cover the decision function's own code, not helpers it calls
that were compiled without them (a plug-in's own ``numba.njit(boundscheck=False)`` helpers) nor
raw pointers. For a plug-in seat such a helper reads its own copies or the arena's zeros, and
writes before its stream or memory land in its own copies (tests/loba/test_policy_arena.py); a read
or write more than 4 KiB past an end, or through a raw pointer, reaches whatever memory is
there. In-process native code is no sandbox: the seal stops mistakes and every cheat that goes
through the arguments, not deliberate memory forgery. Untrusted code belongs in a process and
a machine of its own (the child process a plug-in run plays in, ``LOBA_ISOLATE``, keeps a
crash from taking the run down, not the game's memory from the plug-in).
"""

from __future__ import annotations

from numba import types

DECISIONS = ("draw", "play", "discard")
ADDONS = ("rebuy",)


def _ro(dtype, ndim):
    """A read-only C-contiguous array type: a decision function that writes into it does not
    compile (:func:`sim.policies.api.compiled` says so)."""
    return types.Array(dtype, ndim, "C", readonly=True)


DECIDE_SIG = types.int64(
    _ro(types.int8, 1),  # hand
    _ro(types.int16, 2),  # melds
    _ro(types.int16, 1),  # pile
    _ro(types.int32, 1),  # pub
    _ro(types.float64, 1),  # params
    types.uint64[::1],  # rng (this seat's own stream)
    _ro(types.int16, 2),  # acts
    types.int64,  # n
    _ro(types.int16, 2),  # hist
    types.float64[::1],  # mem (this seat's own memory)
)

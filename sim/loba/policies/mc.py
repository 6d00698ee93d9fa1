"""``mc``: search over sampled hidden worlds (:mod:`sim.loba.search`).

* ``mc``      search (:mod:`sim.loba.search`): at the draw, at every play decision
  (which play, or stop) and at the discard it samples ``n`` hidden worlds from its own view and
  history (the unseen cards dealt to the opponents' hand sizes and the stock; a card an
  opponent visibly took from the discard pile and still holds stays in that hand), plays each
  of at most ``width`` candidates out to the end of the round in every world (the same worlds
  for every candidate: common random numbers), opponents by ``greedy`` and itself by its fast
  policy (``play`` 1: ``smart``, 0: ``greedy``), and keeps the fast policy's own choice unless a
  candidate's mean value beats it by more than ``z`` standard errors of the paired gain (the
  value: ``opp`` times the opponents' mean penalty of the round minus its own, ``elim`` points
  more for a seat the round takes to the elimination score). Rebuys stay with the seat's
  rebuy rule. ``field`` 1 plays the opponents by ``smart`` in the playouts (0: ``greedy``);
  ``batch`` B > 0 looks after every B worlds and stops playing the candidates that show no
  mean gain over the fast policy's choice (:func:`sim.loba.search.mc_choose`).
* ``deep``    ``mc`` with other defaults (``n=64``, ``batch=8``; the registry's DEEP_PARAMS):
  the same functions, the same compiled code.

Cost and strength: docs/performance.md ("The search policy mc").
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ...jit import DISABLED, jit, kernel
from ...policies.api import decision
from ..greedy import best_discard, card_cost, out_or_largest
from ..layout import DRAW, MAX_SEATS, PUB, A, SeatFns
from ..search import F_SELF, forced, mc_choose
from .smart import SMART_PARAMS, smart_next, smart_take, smart_throw

# mc's parameter slots: worlds sampled per decision, candidates searched at most, the standard
# errors a candidate must gain over the fast policy's choice, the weight of the opponents'
# penalty in the value, its fast policy (0 greedy, 1 smart: its own play in the playouts), the
# opponents' policy in the playouts (0 greedy, 1 smart), the value's elimination weight and the
# worlds between looks (0: no early stops; search.mc_choose)
MC_WORLDS, MC_WIDTH, MC_Z, MC_OPP, MC_PLAY, MC_FIELD, MC_ELIM, MC_BATCH = 0, 1, 2, 3, 4, 5, 6, 7


@kernel
def po_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer (search.forced) once, then greedy's draw (smart's for
    the mc seat with play=smart)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_take(hand, melds, pile, pub, params, acts, n)
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            return i
    return 0


@kernel
def po_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer once, then greedy's play (or smart's)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_next(hand, melds, pub, params, acts, n)
    return out_or_largest(hand, melds, pub, acts, n)


@kernel
def po_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """mc's playouts: the forced answer once, then greedy's discard (or smart's)."""
    k = forced(pub, acts, n, mem)
    if k != -2:
        return k
    if mem[F_SELF] == 1.0:
        return smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem)
    return best_discard(hand, pub, acts, n)


@intrinsic
def playout_fns(typingctx):
    """The playout's :class:`~sim.loba.layout.SeatFns`: the po_* functions at every seat.
    Typed as tuples of the functions themselves, so the engine calls them directly; the value
    is a placeholder the calls never read. (A tuple of the functions built in compiled code
    would hold their run-time addresses, which Numba cannot cache: mc would compile again in
    every process.)"""
    kinds = (po_draw, po_play, po_discard, po_draw)
    tup = types.NamedTuple([types.UniTuple(types.Dispatcher(f), MAX_SEATS) for f in kinds], SeatFns)

    def codegen(context, builder, sig, args):
        return cgutils.get_null_value(context.get_value_type(sig.return_type))

    return tup(), codegen


if DISABLED:  # plain Python (NUMBA_DISABLE_JIT=1): the functions themselves

    def playout_fns():
        kinds = (po_draw, po_play, po_discard, po_draw)
        return SeatFns(*((f,) * MAX_SEATS for f in kinds))


@jit
def mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc):
    """Search candidates ``idx[:nc]`` (option indices into ``acts``; ``stops[i] = 1``: stop)
    and return the chosen one's index (or -1: stop)."""
    cands = np.zeros((nc, A.SIZE), dtype=np.int16)
    for i in range(nc):
        if stops[i] == 0:
            for j in range(A.SIZE):
                cands[i, j] = acts[idx[i], j]
    worlds = max(int(params[MC_WORLDS]), 1)
    own = SMART_PARAMS[:8] if params[MC_PLAY] == 1.0 else SMART_PARAMS[:0]
    field = SMART_PARAMS[:8] if params[MC_FIELD] == 1.0 else SMART_PARAMS[:0]
    b = mc_choose(
        hand, melds, pile, pub, hist, rng, mem, cands, stops, nc, worlds, params[MC_Z],
        params[MC_OPP], own, playout_fns(), field, params[MC_ELIM], int(params[MC_BATCH]),
    )  # fmt: skip
    return idx[b]


@kernel
def put_first(idx, stops, k, first):
    """Candidates: ``first`` (an option index, -1: stop) at ``k``, unless already listed;
    returns the new count."""
    for i in range(k):
        if idx[i] == first:
            return k
    idx[k] = first
    stops[k] = 1 if first < 0 else 0
    return k + 1


@decision(alloc=True)
def mc_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """Take the discard or draw from the stock: the one whose playouts score best."""
    if params[MC_PLAY] == 1.0:
        first = smart_take(hand, melds, pile, pub, SMART_PARAMS, acts, n)
    else:
        first = 0
        for i in range(n):
            if acts[i, 0] == DRAW.DISCARD:
                first = i  # greedy's choice first (it wins ties)
    if n <= 1 or params[MC_WIDTH] < 2:
        return first
    idx = np.zeros(n, dtype=np.int64)
    stops = np.zeros(n, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    for i in range(n):
        k = put_first(idx, stops, k, i)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, n)


@decision(alloc=True)
def mc_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """A play or stop: the fast policy's choice, then greedy's, stopping (when allowed) and the
    other plays in order, at most ``width`` of them, searched."""
    may_stop = pub[PUB.TAKEN] < 0
    g = out_or_largest(hand, melds, pub, acts, n)
    first = g
    if params[MC_PLAY] == 1.0:
        first = smart_next(hand, melds, pub, SMART_PARAMS, acts, n)
    total = n + (1 if may_stop else 0)
    nc = min(int(params[MC_WIDTH]), total)
    if nc <= 1:
        return first
    idx = np.zeros(total, dtype=np.int64)
    stops = np.zeros(total, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    k = put_first(idx, stops, k, g)
    if may_stop:
        k = put_first(idx, stops, k, -1)
    for i in range(n):
        k = put_first(idx, stops, k, i)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc)


@decision(alloc=True)
def mc_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """A discard: the fast policy's choice and the cards greedy would rather throw, at most
    ``width`` of them, searched."""
    nc = min(int(params[MC_WIDTH]), n)
    first = best_discard(hand, pub, acts, n)
    if params[MC_PLAY] == 1.0:
        first = smart_throw(hand, melds, pile, pub, SMART_PARAMS, acts, n, hist, mem)
    if nc <= 1:
        return first
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        c = int(acts[i, 0])
        keys[i] = card_cost(c, hand, pub) * 64 + c % 13
    idx = np.zeros(n, dtype=np.int64)
    stops = np.zeros(n, dtype=np.int64)
    k = put_first(idx, stops, 0, first)
    while k < nc:  # greedy's order
        b = -1
        for i in range(n):
            if keys[i] > -(1 << 40) and (b < 0 or keys[i] > keys[b]):
                b = i
        keys[b] = -(1 << 40)
        k = put_first(idx, stops, k, b)
    return mc_search(hand, melds, pile, pub, params, rng, hist, mem, acts, idx, stops, nc)

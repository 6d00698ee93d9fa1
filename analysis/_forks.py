"""Compiled helpers for the state-level rebuy experiment (fork at a rebuy decision, play both
branches on common random numbers). They drive the engine's own transition function
(:func:`sim.loba.engine.step`) and :func:`~sim.loba.engine.play_game`; no rule is re-implemented
here. Stepping a :class:`~sim.loba.play.Game` from Python costs a few milliseconds per call, so
the loops live in compiled code.
"""

from __future__ import annotations

import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

from sim.jit import jit
from sim.loba.engine import copy_state, play_game, step
from sim.loba.layout import (
    G_NP,
    G_OUT,
    G_PHASE,
    G_WINNER,
    PH_DONE,
    PH_SETTLE,
    S_PAID,
    S_SCORE,
    S_STATUS,
    S_WON,
    ST_ACTIVE,
)
from sim.rng import seed_game

# the engine's decision functions travel as first-class functions (tuples of them)
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


@jit
def advance_to_bust(st, R, d, p, x, r, params, decks, rows, bufs, elim):
    """Step until a round waits to be settled with some player at or over ``elim`` (a possible
    rebuy decision), or the game is over. Returns the phase."""
    while True:
        ph = st.g[G_PHASE]
        if ph == PH_DONE:
            return ph
        if ph == PH_SETTLE and st.g[G_OUT] >= 0:
            for q in range(st.g[G_NP]):
                if st.s[q, S_STATUS] == ST_ACTIVE and st.s[q, S_SCORE] >= elim:
                    return ph
        step(st, R, d, p, x, r, params, decks, rows, bufs, None)


@jit
def play_branches(
    st, R, d, p, x, r, r_yes, r_no, params, decks, rows, bufs, scratch, q, seed2, base, out
):
    """For k in range(len(out)): fork ``st`` twice, reseed both copies (deal and policy
    streams) with ``(seed2, base + k)``, settle the waiting round with rebuy tables ``r_yes``
    / ``r_no``, play to the end with the seats' own rules ``r``; ``out[k]`` = (net of seat q
    if it rebought, its net if it declined, 1 if it won rebuying, 1 if it won declining)."""
    for k in range(out.shape[0]):
        for b in range(2):
            copy_state(st, scratch)
            seed_game(scratch.rng, seed2, base + k)
            if b == 0:
                step(scratch, R, d, p, x, r_yes, params, decks, rows, bufs, None)
            else:
                step(scratch, R, d, p, x, r_no, params, decks, rows, bufs, None)
            play_game(scratch, R, d, p, x, r, params, decks, rows, bufs, None)
            out[k, b] = scratch.s[q, S_WON] - scratch.s[q, S_PAID]
            out[k, 2 + b] = 1 if scratch.g[G_WINNER] == q else 0

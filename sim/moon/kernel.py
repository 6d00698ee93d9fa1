"""Batch kernel: Moon games one after another, each on its own random streams.

Input contract of :func:`run_games`:

* ``R`` int64[RULE.SIZE]: the rule array (``RuleSet.to_array()``).
* ``seed`` a ``np.uint64`` (pass it as ``np.uint64(seed)``: an int64 compiles a second copy).
* games ``start .. start+count-1``.
* ``fns``: a tuple of three ``(bid, trump, play)`` tuples of compiled decision functions
  (:data:`sim.moon.api.DECIDE_SIG`), one per seat (``Policy.decisions``, compiled).
* ``params`` float64[MAX_SEATS, N_PARAMS].
* ``trust`` int8[MAX_SEATS]: 1 for a seat whose policy is one of the game's own (they only
  read what they are handed, so the gate hands them the game's arrays, not copies; the same
  games either way), 0 for any other (a plug-in: copies).
* outputs (zeroed, from :mod:`sim.moon.schema`'s ``Table.empty_array(count, MAX_SEATS, cap)``):
  ``games_out`` int64[count, GR.SIZE], ``seats_out`` int64[count, MAX_SEATS, SR.SIZE],
  ``hands_out`` int32[count, cap, HR.SIZE] — or shape (1, 0, HR.SIZE) when hand records are
  not wanted; a game longer than ``cap`` hands records its first ``cap``.

Game ``start+i`` writes only row ``i`` and draws only from streams seeded by (seed, start+i),
so results do not depend on the thread count or on how a run is cut into chunks.
"""

from __future__ import annotations

import numpy as np

from ..compiling import Piece
from ..jit import function_key, jit
from .engine import new_bufs, new_state, play_game, seed_streams, start_game
from .layout import MAX_SEATS, N_TILES, G, S
from .schema import GR, SR


@jit
def write_records(st, games_row, seats_rows):
    g = st.g
    s = st.s
    games_row[GR.WINNER] = g[G.WINNER]
    games_row[GR.END] = g[G.END]
    games_row[GR.HANDS] = g[G.HAND]
    games_row[GR.REDEALS] = g[G.REDEALS]
    games_row[GR.FIRST_BIDDER] = g[G.FIRST_BIDDER]
    games_row[GR.MOONS_TRIED] = g[G.MOONS_TRIED]
    games_row[GR.MOONS_MADE] = g[G.MOONS_MADE]
    games_row[GR.DECISIONS] = g[G.DECISIONS]
    for q in range(MAX_SEATS):
        row = seats_rows[q]
        row[SR.FINAL_SCORE] = s[q, S.SCORE]
        row[SR.PLACE] = s[q, S.PLACE]
        row[SR.BIDS] = s[q, S.BIDS]
        row[SR.BIDS_WON] = s[q, S.BIDS_WON]
        row[SR.CONTRACTS_MADE] = s[q, S.MADE]
        row[SR.CONTRACTS_SET] = s[q, S.SET]
        row[SR.MOONS_TRIED] = s[q, S.MOONS_TRIED]
        row[SR.MOONS_MADE] = s[q, S.MOONS_MADE]
        row[SR.TRICKS] = s[q, S.TRICKS_TOTAL]
        row[SR.BAD_ANSWERS] = s[q, S.BAD]


@jit
def run_games(R, seed, start, count, fns, params, games_out, seats_out, hands_out, trust):
    """Play games ``start .. start+count-1`` one after another into the ``*_out`` rows.

    Serial on purpose: the caller runs slices on several Python threads (the kernel releases
    the GIL), as :func:`sim.chunks.in_slices` does for Loba."""
    record = hands_out.shape[0] == count
    st = new_state()
    bufs = new_bufs(R)
    bufs.trust[:] = trust
    decks = np.full((1, N_TILES), -1, dtype=np.int8)
    for i in range(count):
        hr = hands_out[i] if record else hands_out[0]
        seed_streams(st.rng, seed, start + i)
        start_game(st, -1, None)
        play_game(st, R, fns, params, decks, hr, bufs, None)
        write_records(st, games_out[i], seats_out[i])


# The pieces a cold run compiles (sim.compiling), with their typical seconds on a quiet 2-core
# machine: the quickest of cold runs of `loba simulate --game moon --games 10` on an empty
# LOBA_CACHE_DIR on the development machine (2 cores, Numba 0.68), each top-level compile
# timed; one process (Moon has no child compiling beside it). The seats' functions compile
# first, about 1 s each; about 18 s in all.
COMPILE_PIECES = (
    Piece("batch kernel", function_key(run_games), alone=13.3, shared=13.3),
    Piece("seat function", "", alone=1.0, shared=1.0),  # each
)

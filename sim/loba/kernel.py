"""Batch kernel: games one after another, each on its own random stream (the runner plays
slices of a chunk on several threads, :func:`sim.runner.in_slices`).

Input contract of :func:`run_games` (the runner builds these; see :mod:`sim.runner`):
``R`` int64[RULE.SIZE] rule array; ``n_players`` 2..5; ``seed`` uint64-able int; games
``start .. start+count-1``; four ``UniTuple(FunctionType(DECIDE_SIG), MAX_SEATS)`` of decision
functions; ``params`` float64[MAX_SEATS, N_PARAMS]; outputs ``games_out`` int64[count, GR.SIZE],
``seats_out`` int64[count, MAX_SEATS, SR.SIZE] and ``rounds_out``
int32[count or 1, max_rounds or 0, MAX_SEATS, RR.SIZE]. Game ``start+i`` writes only row ``i``,
so results do not depend on the thread count or on how a run is cut into chunks.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from ..rng import seed_game
from .engine import new_bufs, new_state, play_game, start_game
from .layout import GR, MAX_CARDS, SR, G, S


@jit
def write_records(st, games_row, seats_rows):
    g = st.g
    games_row[GR.WINNER] = g[G.WINNER]
    games_row[GR.ROUNDS] = g[G.ROUND]
    games_row[GR.TURNS] = g[G.TURNS]
    games_row[GR.VOID_ROUNDS] = g[G.VOIDS]
    games_row[GR.POT] = g[G.POT]
    games_row[GR.RESHUFFLES] = g[G.RESHUFFLES_TOTAL]
    games_row[GR.ONE_TURN_BONUSES] = g[G.BONUSES]
    games_row[GR.FIRST_DEALER] = g[G.FIRST_DEALER]
    games_row[GR.DECISIONS] = g[G.DECISIONS]
    for q in range(st.s.shape[0]):
        seats_rows[q, SR.FINAL_SCORE] = st.s[q, S.SCORE]
        seats_rows[q, SR.REBUYS] = st.s[q, S.REBUYS]
        seats_rows[q, SR.ELIMINATED_ROUND] = st.s[q, S.ELIM_ROUND]
        seats_rows[q, SR.PLACE] = st.s[q, S.PLACE]
        seats_rows[q, SR.PAID] = st.s[q, S.PAID]
        seats_rows[q, SR.WON] = st.s[q, S.WON]
        seats_rows[q, SR.BAD_ANSWERS] = st.s[q, S.BAD_ANSWERS]


@jit
def play_one(
    st,
    bufs,
    R,
    n_players,
    seed,
    index,
    fns,
    params,
    decks,
    first_dealer,
    games_row,
    seats_rows,
    rounds_rows,
):
    """Play game ``index`` of run ``seed`` to its end on ``st`` and ``bufs`` (a state and
    scratch arrays of any earlier game: every field a game reads is reset when it starts or
    deals) and write its records; returns the state.

    ``decks`` int16[k, MAX_CARDS] stacks the first k rounds' decks (top first; a row starting
    with -1 means "shuffle"); ``first_dealer`` -1 means a seeded random first dealer.
    """
    seed_game(st.rng, seed, index)
    start_game(st, R, n_players, first_dealer)
    play_game(st, R, fns, params, decks, rounds_rows, bufs, None)
    write_records(st, games_row, seats_rows)


@jit
def run_games(
    R,
    n_players,
    seed,
    start,
    count,
    fns,
    params,
    games_out,
    seats_out,
    rounds_out,
):
    """Play games ``start .. start+count-1`` one after another into the ``*_out`` rows.

    Serial on purpose: :func:`sim.runner.run_chunk` runs slices of a chunk on several Python
    threads (the kernel releases the GIL). A ``prange`` loop here cost 6 s of compile time on
    every fresh machine and bought nothing the threads do not.
    """
    record = rounds_out.shape[0] == count
    decks = np.full((1, MAX_CARDS), -1, dtype=np.int16)
    st = new_state()  # one state and one set of scratch arrays for all the games (no
    bufs = new_bufs(R)  # allocation per game)
    for i in range(count):
        rr = rounds_out[i] if record else rounds_out[0]
        play_one(
            st,
            bufs,
            R,
            n_players,
            seed,
            start + i,
            fns,
            params,
            decks,
            -1,
            games_out[i],
            seats_out[i],
            rr,
        )

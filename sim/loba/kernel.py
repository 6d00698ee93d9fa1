"""The one compiled entry point of the Loba engine: :func:`drive`.

Every command reaches the engine through :func:`drive` with the same argument types (a batch
passes :data:`~sim.events.NO_TRACE` and empty arrays where a replay passes a recording and a
game handle passes its own records), so the first command compiles the engine once and every
later command (simulate, replay, rebuy-value, bench, positions) loads that machine code from
the on-disk cache. Each compiled function also links and optimises everything below it, so the
loops of a batch, of a game handle and of the rebuy experiment live here, in one function, not
in a chain of small ones (measured: docs/performance.md "Compile time"). The two large pieces
below it, the turn loop and the step, it calls through their addresses (an :class:`Engine`
of first-class functions), so that the three compile apart: in two processes on a cold cache,
and neither again inside its caller (measured: docs/performance.md, compile time).

What to do is a :class:`Task`: the operation ``task.op`` and the scalars it reads, each field
with one meaning (an operation leaves the others at their defaults, :func:`call`):

* :data:`OP_RUN` plays games ``game .. game+count-1`` of run ``seed`` with ``players`` players,
  one after another, into the rows of ``records`` (one state and one set of scratch arrays for
  all of them: no allocation per game). Game ``game+i`` writes only row ``i``, so results do
  not depend on the thread count or on how a run is cut into chunks (the runner plays slices
  of a chunk on several threads, :func:`sim.runner.in_slices`).
* :data:`OP_START` starts game ``game`` of run ``seed`` with ``players`` players, first dealer
  ``dealer`` (-1: a seeded random one).
* :data:`OP_STEP` one deal, one turn or one settlement (:func:`~.engine.step`).
* :data:`OP_ADVANCE` steps until the ``ADV_*`` condition ``mode`` holds (``elim``: the
  elimination score for :data:`ADV_BUST`).
* :data:`OP_PLAY` plays the game to its end.
* :data:`OP_COPY` copies the state into ``scratch`` (fork a game).
* :data:`OP_BRANCHES` the rebuy experiment (:func:`play_branches`): seat ``seat``,
  ``len(pairs)`` pairs on the streams of games ``(seed, game + k)``.

Input contract: ``R`` int64[RULE.SIZE] rule array; ``fns`` a :class:`~.layout.SeatFns` of
``UniTuple(FunctionType(DECIDE_SIG), MAX_SEATS)``; ``r_yes`` / ``r_no`` rebuy tables of the same
type; ``params`` float64[MAX_SEATS, N_PARAMS]; ``decks`` int16[k, MAX_CARDS] (top first; a row
starting with -1 means "shuffle"); ``rows`` int32[rounds, MAX_SEATS, RR.SIZE] (one game's round
records); ``pairs`` int64[reps, 4]; ``records`` a :class:`Records` of ``games`` int64[count,
GR.SIZE], ``seats`` int64[count, MAX_SEATS, SR.SIZE], ``rounds`` int32[count or 1, max_rounds or
0, MAX_SEATS, RR.SIZE].
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numba
import numpy as np
from numba.core import types
from numba.core.typing.typeof import typeof_impl

from ..compiling import Piece
from ..events import NO_TRACE
from ..jit import DISABLED, entry, function_key, in_python, jit, wait_aside
from ..policies.api import addon_slot, decision
from ..rng import seed_game
from .api import DECIDE_SIG
from .engine import play_turns, step
from .layout import GR, MAX_CARDS, MAX_SEATS, PH, RR, SR, ST, G, S, SeatFns
from .rules import SPEC as RULES
from .state import copy_state, new_bufs, new_state, start_game

# new_state and new_bufs for callers in Python: nothing to compile (compiled callers, such as
# the search policy's, call those)
blank_state = in_python(new_state)
blank_bufs = in_python(new_bufs)

OP_RUN, OP_START, OP_STEP, OP_ADVANCE, OP_PLAY, OP_COPY, OP_BRANCHES = range(7)

ADV_SETTLE = 0  # until a round waits to be settled (PH.SETTLE), or the game is over
ADV_ROUND = 1  # until the round under way (or the next one) is settled, or the game is over
ADV_BUST = 2  # until a round waits to be settled with an active seat at or over ``elim``

Task = namedtuple(
    "Task", ["op", "players", "game", "count", "dealer", "mode", "elim", "seat", "seed"]
)
Task.__doc__ = """What :func:`drive` does (see the module docstring): ``op`` (OP_*); ``players``
at the table of a new game (OP_RUN, OP_START); ``game``, the index in run ``seed`` of the game
started or of the first game played (OP_RUN), or of the first pair's streams (OP_BRANCHES);
``count`` games to play (OP_RUN); ``dealer``, the first dealer (OP_START; -1: a seeded random
one); ``mode`` (ADV_*) and ``elim``, the elimination score of :data:`ADV_BUST` (OP_ADVANCE);
``seat``, the seat whose rebuy is branched (OP_BRANCHES); ``seed``, the run (uint64). All but
``seed`` are int64, so every task has one type (:func:`new_task`)."""

Records = namedtuple("Records", ["games", "seats", "rounds"])
Records.__doc__ = """OP_RUN's output rows, one per game played: ``games`` (GR), ``seats`` (SR)
and ``rounds`` (RR; one row of rounds per game, or a single scratch row when not recorded)."""

# the arguments an operation does not use (read-only where nothing may be written)
NO_DECKS = np.full((1, MAX_CARDS), -1, dtype=np.int16)
NO_ROWS = np.zeros((0, MAX_SEATS, RR.SIZE), dtype=np.int32)
NO_PAIRS = np.zeros((0, 4), dtype=np.int64)
NO_RECORDS = Records(
    np.zeros((0, GR.SIZE), dtype=np.int64),
    np.zeros((0, MAX_SEATS, SR.SIZE), dtype=np.int64),
    np.zeros((1, 0, MAX_SEATS, RR.SIZE), dtype=np.int32),
)


def new_task(op, players=0, game=0, count=0, dealer=-1, mode=0, elim=0, seat=0, seed=0) -> Task:
    """A :class:`Task` typed as always (int64 fields, a uint64 seed)."""
    return Task(
        int(op), int(players), int(game), int(count), int(dealer), int(mode), int(elim),
        int(seat), np.uint64(seed),
    )  # fmt: skip


@jit(inline="always")
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


@jit(inline="always")
def play_game(st, R, fns, params, decks, rows, bufs, tr, eng):
    """Play until the game is over: one call of :func:`~.engine.step` to the end (a round's
    turns in one :func:`~.engine.play_turns`)."""
    if st.g[G.PHASE] != PH.DONE:
        eng.step(st, R, fns, params, decks, rows, bufs, tr, eng.turns, True)


@jit(inline="always")
def advance(st, R, fns, params, decks, rows, bufs, tr, eng, mode, elim):
    """Step the game until the ``mode`` condition (ADV_*) holds; returns the phase."""
    g = st.g
    if mode == ADV_ROUND:
        if g[G.PHASE] == PH.DEAL:
            eng.step(st, R, fns, params, decks, rows, bufs, tr, eng.turns, False)
        while g[G.PHASE] == PH.TURN or g[G.PHASE] == PH.SETTLE:
            eng.step(st, R, fns, params, decks, rows, bufs, tr, eng.turns, False)
        return g[G.PHASE]
    while g[G.PHASE] != PH.DONE:
        if g[G.PHASE] == PH.SETTLE:
            if mode == ADV_SETTLE:
                break
            if g[G.OUT] >= 0:
                for q in range(g[G.NP]):
                    if st.s[q, S.STATUS] == ST.ACTIVE and st.s[q, S.SCORE] >= elim:
                        return g[G.PHASE]
        eng.step(st, R, fns, params, decks, rows, bufs, tr, eng.turns, False)
    return g[G.PHASE]


@jit(inline="always")
def play_branches(
    st, R, fns, r_yes, r_no, params, decks, rows, bufs, tr, eng, scratch, q, seed, base, out
):
    """For k in range(len(out)): fork ``st`` (waiting at PH.SETTLE) twice, reseed both copies
    with the streams of game ``(seed, base + k)``, settle the round with rebuy tables ``r_yes``
    / ``r_no``, and play both to the end with the seats' own rebuy rules. ``out[k]`` = (net
    stakes of seat ``q`` if it rebought, if it declined, 1 if it won rebuying, 1 if it won
    declining). Both copies of a pair draw the same random numbers (common random numbers)."""
    yes = SeatFns(fns.draw, fns.play, fns.discard, r_yes)
    no = SeatFns(fns.draw, fns.play, fns.discard, r_no)
    for k in range(out.shape[0]):
        for b in range(2):
            copy_state(st, scratch)
            seed_game(scratch.rng, seed, base + k)
            fb = yes if b == 0 else no
            eng.step(scratch, R, fb, params, decks, rows, bufs, tr, eng.turns, False)
            play_game(scratch, R, fns, params, decks, rows, bufs, tr, eng)
            out[k, b] = scratch.s[q, S.WON] - scratch.s[q, S.PAID]
            out[k, 2 + b] = 1 if scratch.g[G.WINNER] == q else 0


@jit
def drive(task, st, R, fns, params, decks, rows, bufs, tr, eng, scratch, r_yes, r_no, pairs,
          records):  # fmt: skip
    """Do ``task`` (a :class:`Task`, see the module docstring); returns the game's phase."""
    op = task.op
    if op == OP_RUN:
        rounds = records.rounds
        record = rounds.shape[0] == task.count
        for i in range(task.count):
            seed_game(st.rng, task.seed, task.game + i)
            start_game(st, R, task.players, -1)
            play_game(st, R, fns, params, decks, rounds[i if record else 0], bufs, tr, eng)
            write_records(st, records.games[i], records.seats[i])
    elif op == OP_START:
        seed_game(st.rng, task.seed, task.game)
        start_game(st, R, task.players, task.dealer)
    elif op == OP_STEP:
        eng.step(st, R, fns, params, decks, rows, bufs, tr, eng.turns, False)
    elif op == OP_ADVANCE:
        advance(st, R, fns, params, decks, rows, bufs, tr, eng, task.mode, task.elim)
    elif op == OP_PLAY:
        play_game(st, R, fns, params, decks, rows, bufs, tr, eng)
    elif op == OP_COPY:
        copy_state(st, scratch)
    elif op == OP_BRANCHES:
        play_branches(
            st, R, fns, r_yes, r_no, params, decks, rows, bufs, tr, eng, scratch, task.seat,
            task.seed, task.game, pairs,
        )  # fmt: skip
    return st.g[G.PHASE]


@decision
def _stand_in(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """A decision function that compiles in a moment, for :func:`precompile`."""
    return 0


Engine = namedtuple("Engine", ["turns", "step"])
Engine.__doc__ = """:func:`~.engine.play_turns` and :func:`~.engine.step` handed to
:func:`drive` as first-class functions (typed by their signatures, :func:`engine_sigs`), so
that ``drive`` calls them at their addresses instead of linking them: the three compile
apart (a cold cache splits them between two processes) and neither is optimised and compiled
again inside its caller (measured: docs/performance.md, compile time)."""


@functools.cache
def engine_sigs() -> Engine:
    """The signatures of :class:`Engine`'s functions: the types every command hands
    :func:`drive` (``tests/core/test_cold_compile.py`` checks them against ``numba.typeof``)."""
    R = RULES.make().to_array()
    st = numba.typeof(blank_state())
    bufs = numba.typeof(blank_bufs(R))
    fns = types.NamedUniTuple(
        types.UniTuple(types.FunctionType(DECIDE_SIG), MAX_SEATS), len(SeatFns._fields), SeatFns
    )
    head = (st, numba.typeof(R), fns, numba.typeof(_params()))
    turns = types.int64(*head, bufs, numba.typeof(NO_TRACE), types.int64)
    rest = (numba.typeof(NO_DECKS), numba.typeof(NO_ROWS), bufs, numba.typeof(NO_TRACE))
    return Engine(turns, types.int64(*head, *rest, types.FunctionType(turns), types.boolean))


def drive_types() -> tuple:
    """:func:`drive`'s argument types, as :func:`call` hands them over."""
    sig = engine_sigs()
    st, R, fns, params, decks, rows, bufs, tr, _, _ = sig.step.args
    eng = _typeof_engine(ENGINE, None)
    return (
        numba.typeof(new_task(OP_RUN)), st, R, fns, params, decks, rows, bufs, tr, eng, st,
        fns.dtype, fns.dtype, numba.typeof(NO_PAIRS), numba.typeof(NO_RECORDS),
    )  # fmt: skip


ENGINE = Engine(entry(play_turns), entry(step))  # what :func:`call` hands :func:`drive`
_ready: list[bool] = []  # compiled (or loaded) for their signatures in this process


def engine() -> Engine:
    """:data:`ENGINE`, its functions compiled or loaded for their signatures first."""
    if not _ready and not DISABLED:
        sig = engine_sigs()
        play_turns.compile(sig.turns)  # (the signature with its return type: the cache key)
        step.compile(sig.step)
        _ready.append(True)
    return ENGINE


@typeof_impl.register(Engine)
def _typeof_engine(val, c):
    """An :class:`Engine` of the two dispatchers is typed by their signatures, as first-class
    functions (a dispatcher alone is typed as itself, so ``drive`` would link it). Numba then
    unboxes each as its native entry point, through which exceptions (a seat's IndexError)
    propagate, unlike a C wrapper's address (:class:`~sim.policies.api.Handle`)."""
    return _engine_type()


@functools.cache
def _engine_type():
    sig = engine_sigs()
    return types.NamedTuple([types.FunctionType(sig.turns), types.FunctionType(sig.step)], Engine)


def _params() -> np.ndarray:
    return np.zeros((MAX_SEATS, addon_slot(1)), dtype=np.float64)


# The pieces a cold run compiles (sim.compiling), with their typical seconds on a quiet 2-core
# machine: the quickest of several cold runs of `loba simulate --games 10` on an empty
# LOBA_CACHE_DIR on the development machine (2 cores, Numba 0.68; other work slowed the rest
# by up to 2.5x), each top-level compile timed. `shared`: the child compiles the turn loop
# beside this process (the default on 2 cores or more; each process compiles the helpers it
# needs itself; about 21 s from start to end); `alone`: LOBA_COMPILE_ASIDE=0, the seats'
# functions first (the first pays for helpers the engine shares: 9.3 s for greedy's four;
# about 40 s in all). The turn loop's two figures were 19.0 and 19.4 until issue 29's third
# pass inlined the gate's call for seats other than greedy, measured 25.8 -> 30.1 s in the
# child (one cold run each, the same minutes, a busier machine): scaled by that, x1.17.
COMPILE_PIECES = (
    Piece("turn loop", function_key(play_turns), alone=22.2, shared=22.7, aside=True),
    Piece("step", function_key(step), alone=5.2, shared=12.0),
    Piece("drive", function_key(drive), alone=4.6, shared=4.1),
    Piece("seat function", "", alone=2.3, shared=0.75),  # each
)


def precompile() -> None:
    """Compile the turn loop, :func:`~.engine.play_turns`, the largest piece of the engine,
    into the on-disk cache (the parent compiles the rest: :func:`compile_share`)."""
    play_turns.compile(engine_sigs().turns)  # (with its return type: the cache key)


def compile_seats(spec, labels) -> None:
    """Compile the functions of the seats ``labels`` (the game's own policies; ``spec``: Loba's
    GameSpec) from the last: the parent compiles them from the first, so the two processes
    meet in the middle."""
    from ..policies import parse_seats
    from ..policies.api import compiled

    if labels:
        for f in reversed(spec.seat_functions(parse_seats(",".join(labels), game=spec))):
            compiled(f, spec.signature)


def share_calls() -> list[tuple]:
    """``(function, signature or argument types)`` of :func:`compile_share`, in order
    (``None``: the function's own signatures). Each is typed as it is asked for later: Numba
    keys its disk cache by what ``compile`` is given."""
    return [
        (step, engine_sigs().step),  # (with its return type, as the Handle asks)
        (drive, drive_types()),
    ]


def compile_share() -> None:
    """Compile the engine but its turn loop (the child compiles that, :func:`precompile`):
    :func:`~.engine.step` (the deal and the settlement) and :func:`drive`, typed exactly as
    :func:`call` hands them over (:func:`sim.jit.compile_share`; ``tests/core/test_cold_compile.py``
    checks the types agree)."""
    for fn, argtypes in share_calls():
        if argtypes is None:
            fn.compile_signed()
        else:
            fn.compile(argtypes)


def call(op, st, R, fns, params, bufs, *, decks=NO_DECKS, rows=NO_ROWS, tr=NO_TRACE,
         scratch=None, r_yes=None, r_no=None, pairs=NO_PAIRS, records=NO_RECORDS,
         **fields) -> int:  # fmt: skip
    """:func:`drive` with every argument an operation does not use filled in, typed as always
    (so no call compiles a second copy); ``fields``: the :class:`Task`'s fields but ``op``."""
    wait_aside("loba")
    return int(
        drive(
            new_task(op, **fields), st, R, fns, params, decks, rows, bufs, tr, engine(),
            st if scratch is None else scratch,
            fns.rebuy if r_yes is None else r_yes, fns.rebuy if r_no is None else r_no,
            pairs, records,
        )
    )  # fmt: skip


def run_games(R, n_players, seed, start, count, fns, params, games_out, seats_out, rounds_out):
    """Play games ``start .. start+count-1`` of run ``seed`` into the ``*_out`` rows."""
    st = blank_state()
    call(
        OP_RUN, st, R, fns, params, blank_bufs(R), players=n_players, game=start, count=count,
        seed=seed, records=Records(games_out, seats_out, rounds_out),
    )  # fmt: skip

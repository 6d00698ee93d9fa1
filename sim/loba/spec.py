"""Loba de Menos as a :class:`sim.game.GameSpec`: the one place the core learns about Loba."""

from __future__ import annotations

import sys

import numpy as np

from ..game import GameSpec, Positions
from .api import ADDONS, DECIDE_SIG, DECISIONS
from .auditor import audit_events
from .bench import run_bench
from .kernel import COMPILE_PIECES, compile_seats, precompile, run_games
from .layout import MAX_SEATS, SeatFns
from .play import Game
from .policies import POLICIES, REBUY_RULES
from .position import load_position, moves, moves_text
from .rules import SPEC as RULES
from .schema import TABLES
from .summary import SUMMARY
from .trace import replay, replay_position, to_text


def play_batch(R, n_players, seed, start, count, fns, params, outs):
    """The game protocol's kernel entry (see :mod:`sim.game`) over :func:`run_games`."""
    games, seats, rounds = outs
    run_games(
        R, n_players, np.uint64(seed), start, count, SeatFns(*fns), params, games, seats, rounds
    )


def bench(rules, seats, games: int, seed: int = 12345):
    """The game protocol's benchmark (report lines): :func:`.bench.run_bench` on this spec."""
    return run_bench(SPEC, rules, seats, games, seed)


def aside() -> None:
    """A cold cache's child process (:func:`sim.jit.compile_aside`, this spec's
    ``precompile``): the turn loop (:func:`.kernel.precompile`), then the functions of the
    seats its parent names on its input, one label a line (:func:`sim.jit.tell_aside`;
    :func:`.kernel.compile_seats`)."""
    precompile()
    compile_seats(SPEC, sys.stdin.read().split())


assert DECISIONS + ADDONS == SeatFns._fields  # fn_tables order is the kernel bundle's
SPEC = GameSpec(
    name="loba",
    title="Loba",
    rule_prefix="A",
    rules=RULES,
    decisions=DECISIONS,
    signature=DECIDE_SIG,
    policies=POLICIES,
    addons={"rebuy": (REBUY_RULES, "always")},
    tables=TABLES,
    max_seats=MAX_SEATS,
    part="round",
    default_seats="greedy,greedy,greedy,greedy",
    play_batch=play_batch,
    detail_cap=lambda rules: rules.max_rounds_per_game,
    summary=SUMMARY,
    replay=replay,
    to_text=to_text,
    audit=audit_events,
    bench=bench,
    handle=Game,
    commands=("analysis.loba.commands:check_meld", "analysis.loba.commands:rebuy_value"),
    positions=Positions(load_position, moves, moves_text, replay_position),
    analysis="analysis.loba.registration:ANALYSIS",
    precompile="sim.loba.spec:aside",
    share="sim.loba.kernel:compile_share",
    compile_pieces=COMPILE_PIECES,
    builtin_column=True,
)

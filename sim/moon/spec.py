"""Three-Player Moon as a :class:`sim.game.GameSpec`: the one place the core learns about Moon.

Registered by name in :mod:`sim.games` (``"moon": ".moon.spec"``). The protocol's kernel entry
:func:`play_batch` receives the function tables kind-major (one tuple of three functions per
decision kind, :meth:`GameSpec.fn_tables`) and hands :func:`~.kernel.run_games` one
``(bid, trump, play)`` tuple per seat.
"""

from __future__ import annotations

import numpy as np

from ..game import GameSpec, Positions, Summary
from .api import DECIDE_SIG, DECISIONS, N_PARAMS
from .auditor import audit
from .bench import run_bench
from .kernel import COMPILE_PIECES, run_games
from .layout import MAX_SEATS
from .play import Game, replay
from .policies import POLICIES
from .position import load_position, moves, moves_text, replay_position
from .rules import SPEC as RULES
from .schema import TABLES
from .trace import to_text


def play_batch(R, n_players, seed, start, count, fns, params, outs):
    """The game protocol's kernel entry (see :mod:`sim.game`) over :func:`run_games`."""
    if n_players != MAX_SEATS:
        raise ValueError(f"Three-Player Moon is played by exactly 3 players, not {n_players} [B1].")
    by_seat = tuple(tuple(fns[k][q] for k in range(len(DECISIONS))) for q in range(MAX_SEATS))
    games, seats, hands = outs
    # the last column (GameSpec.builtin_column): the seat runs plug-in code; the game's own
    # policies are handed the game's arrays instead of copies (engine.decide)
    trust = (params[:, -1] == 0).astype(np.int8) if params.shape[1] > N_PARAMS else ZERO_TRUST
    run_games(
        R, np.uint64(seed), start, count, by_seat, np.ascontiguousarray(params[:, :N_PARAMS]),
        games, seats, hands, trust,
    )  # fmt: skip


ZERO_TRUST = np.zeros(MAX_SEATS, dtype=np.int8)


SUMS = {
    "hands": ("games", "hands"),
    "redeals": ("games", "redeals"),
    "moons_tried": ("games", "moons_tried"),
    "moons_made": ("games", "moons_made"),
    "decisions": ("games", "decisions"),
    "contracts": ("seats", "bids_won"),
    "sets": ("seats", "contracts_set"),
}


def figures(t: dict, n: int) -> dict:
    return {
        "mean_hands": t["hands"] / n if n else 0.0,
        "redeals_per_game": t["redeals"] / n if n else 0.0,
        "set_rate": t["sets"] / t["contracts"] if t["contracts"] else 0.0,
        "moons_per_game": t["moons_tried"] / n if n else 0.0,
        "moons_made": t["moons_made"],
        "decisions_per_game": t["decisions"] / n if n else 0.0,
    }


def lines(s: dict) -> list[str]:
    return [
        f"mean hands/game {s['mean_hands']:.2f} (redeals {s['redeals_per_game']:.2f}), "
        f"contracts set {s['set_rate']:.1%}, moons/game {s['moons_per_game']:.3f} "
        f"({s['moons_made']} made)"
    ]


SPEC = GameSpec(
    name="moon",
    title="Three-Player Moon",
    rule_prefix="B",
    rules=RULES,
    decisions=DECISIONS,
    signature=DECIDE_SIG,
    policies=POLICIES,
    addons={},
    tables=TABLES,
    max_seats=MAX_SEATS,
    part="hand",
    default_seats="count,count,count",
    play_batch=play_batch,
    detail_cap=lambda rules: rules.max_hands_per_game,
    summary=Summary(
        SUMS,
        figures,
        lines,
        {
            "mean_hands": "hands",
            "redeals_per_game": "hands",
            "set_rate": "share",
            "moons_per_game": "moons",
            "moons_made": "moons",
            "decisions_per_game": "decisions",
        },
    ),
    replay=replay,
    to_text=to_text,
    audit=audit,
    bench=run_bench,
    handle=Game,
    commands=("analysis.moon.commands:check_trick",),
    positions=Positions(load_position, moves, moves_text, replay_position),
    analysis="analysis.moon.registration:ANALYSIS",
    compile_pieces=COMPILE_PIECES,
    builtin_column=True,  # (its last column, the plug-in flag, marks the seats handed copies)
)

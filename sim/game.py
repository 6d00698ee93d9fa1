"""The game protocol: everything the runner, results, trace, bench, CLI and analysis need to
know about a game, as one frozen value (:class:`GameSpec`).

Each game package exports one spec (``SPEC`` in its ``spec.py``), registered by name in
:mod:`sim.games`. Nothing outside a game package imports from it; everything game-specific is
reached through the spec.

Kernel entry (``play_batch``): ``play_batch(R, n_players, seed, start, count, fns, params,
outs)`` plays games ``start .. start+count-1`` into the record arrays ``outs`` (one per table,
in :attr:`GameSpec.tables` order, shaped by :meth:`sim.schema.Table.empty_array`; the detail
table's array is ``(1, 0, ...)`` when it is not recorded). ``fns`` holds one tuple of
``max_seats`` decision functions per decision kind and add-on (:meth:`GameSpec.fn_tables`),
``params`` is ``float64[max_seats, N]``. Game ``start+i`` writes only row ``i`` and draws only
from the random streams of ``(seed, start+i)``, so results never depend on threads or chunks.
It must release the GIL (the runner plays slices of a chunk on several threads).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .compiling import plan
from .jit import compile_aside, compile_share, compiled, kernel_cached, tell_aside
from .rules import RulesSpec
from .schema import Table


def load_ref(ref: str):
    """The object a ``"module:NAME"`` reference names, imported on first use (a game's
    analysis, its compile entry points: what the core reaches by name, never by import)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


class BenchFigure(NamedTuple):
    """What a game's benchmark measured at one thread count, yielded among its report lines
    (:attr:`GameSpec.bench`): games per second of the kernel alone, and its time per step of
    play over the floor kernel's (None: the game has no floor kernel). ``loba bench`` sets
    them beside the same games played end to end (``simulate --out``)."""

    threads: int
    games_per_s: float
    per_floor: float | None = None


@dataclass(frozen=True)
class Summary:
    """How a game's run summary is computed from its tables, additively (chunk by chunk).

    ``sums``: total name -> (table, column) summed over the run; ``figures(totals, n)`` turns
    the totals into the headline figures (a dict, in print order); ``lines(summary)`` words
    them for the terminal; ``units``: each figure's unit.
    """

    sums: dict[str, tuple[str, str]]
    figures: Callable[[dict, int], dict]
    lines: Callable[[dict], list[str]]
    units: dict[str, str] = field(default_factory=dict)  # figure -> unit, for tables


@dataclass(frozen=True)
class Positions:
    """Positions as files for one game (docs/positions.md; :mod:`sim.position` reads the
    ``game`` key and picks the game).

    ``load(source)``: a checked position from a TOML file, TOML text or dict (refusals are
    :class:`sim.position.PositionError`, one sentence naming the field); ``moves(position,
    after_draw=None)``: the options of the seat to move at its next decision, as a JSON-ready
    dict (``after_draw``: Loba's ``--after-draw``); ``moves_text(dict)``: them as lines a
    player reads; ``replay(source, seats, seed, to_game_end)``: the trace's events of the game
    played on from the position by the kernel, starting with a ``position`` event that the
    game's auditor reads.
    """

    load: Callable
    moves: Callable
    moves_text: Callable
    replay: Callable


@dataclass(frozen=True, repr=False)
class GameSpec:
    """One game, as a value. See the module docstring for the kernel contract."""

    name: str  # registry key, rules-id prefix and the manifest's "game"
    title: str  # for sentences: "Loba", "Three-Player Moon"
    rule_prefix: str  # rule ids of this game start with it: "A", "B"
    rules: RulesSpec
    decisions: tuple[str, ...]  # decision kinds a policy answers, in kernel order
    signature: Any  # the compiled signature of every decision function
    policies: dict  # name -> Policy (built-in)
    addons: dict  # add-on kind -> (registry name -> AddOnRule, default name)
    tables: tuple[Table, ...]  # games, seats, then the detail table (rounds / hands)
    max_seats: int
    part: str  # what a game is played in, as its events number it: "round", "hand"
    default_seats: str
    play_batch: Callable  # see the module docstring
    detail_cap: Callable  # (RuleSet) -> rows per game the detail table may need
    summary: Summary
    replay: Callable  # (rules, seats, seed, game) -> list of event dicts (the trace schema)
    to_text: Callable  # (events, only_round=None) -> readable text
    audit: Callable  # (events) -> list of violation sentences (independent auditor)
    # (rules, seats, games, seed) -> report lines, and a BenchFigure per thread count
    bench: Callable | None = None
    handle: Any = None  # the one-game stepping class (Loba: its play.Game)
    # "module:NAME" of the game's own commands (click commands the CLI adds to its own)
    commands: tuple[str, ...] = ()
    positions: Positions | None = None  # positions as files, if the game reads them
    # "module:NAME" of the game's analysis (analysis.bygame.GameAnalysis), imported on first use
    analysis: str | None = None
    # "module:function" compiling the engine (sim.jit.compile_aside); it is then told, on its
    # input, the run's seats of this game's own policies, to compile their functions as well
    precompile: str | None = None
    share: str | None = None  # "module:function" compiling here what that child needs last
    # the pieces of the kernel a cold run compiles, with their typical cost (sim.compiling)
    compile_pieces: tuple = ()
    # the parameter matrix ends with each seat's Policy.builtin and its GameSpec.plugged flag
    builtin_column: bool = False

    def __repr__(self) -> str:
        return f"GameSpec({self.name!r})"

    @property
    def table(self) -> dict[str, Table]:
        return {t.name: t for t in self.tables}

    @property
    def main_tables(self) -> tuple[Table, ...]:
        """Tables every run writes (not the optional detail table)."""
        return tuple(t for t in self.tables if not t.detail)

    @property
    def detail(self) -> Table | None:
        return next((t for t in self.tables if t.detail), None)

    @property
    def kinds(self) -> tuple[str, ...]:
        """Decision kinds then add-on kinds: the order of :meth:`fn_tables`."""
        return self.decisions + tuple(self.addons)

    def run_intervals(self, games, seats) -> dict:
        """The intervals of a run's summary (:meth:`sim.results.Results.summary`) from the
        game's registered analysis (:attr:`analysis`), {} for a game without one."""
        if not self.analysis:
            return {}
        return load_ref(self.analysis).run_summary(self.name, games, seats)

    def fn_tables(self, seats) -> tuple[tuple, np.ndarray]:
        """The kernel's per-kind function tuples and the parameter matrix, padded to
        ``max_seats`` with copies of seat 0 (never called)."""
        plan(self, seats)  # (what compiles now, for the progress a cold run shows)
        self.compile_engine_aside(seats)
        compile_share(self.name, self.share)  # (cold cache only: while the child compiles)
        pad = list(seats) + [seats[0]] * (self.max_seats - len(seats))
        per_seat = [s.functions(self.decisions) for s in pad]
        for f in self.seat_functions(seats):
            compiled(f, self.signature)  # (the game's own policies compile here, first)
        fns = tuple(tuple(f[k] for f in per_seat) for k in range(len(self.kinds)))
        rows = [s.param_array() for s in pad]
        if self.builtin_column:  # the engine's own copy of a policy, and plug-in code
            rows = [
                np.append(r, [s.policy.builtin if self.is_own(s) else 0, self.plugged(s)])
                for r, s in zip(rows, pad, strict=True)
            ]
        return fns, np.ascontiguousarray(np.stack(rows))

    def seat_functions(self, seats) -> list:
        """The seats' decision and add-on functions, each once, in the order
        :meth:`fn_tables` compiles them."""
        return list({id(f): f for s in seats for f in s.functions(self.decisions)}.values())

    def is_own(self, seat) -> bool:
        """Whether the seat's policy is this game's own (not a plug-in)."""
        return self.policies.get(seat.policy.name) is seat.policy

    def plugged(self, seat) -> bool:
        """Whether the seat runs plug-in code (its policy or an add-on rule): the engine then
        hands it copies in an arena of its own, where the game supports one."""
        return not self.is_own(seat) or any(a.plugin for a in seat.addons)

    def compile_engine_aside(self, seats=()) -> None:
        """On a cold cache, start compiling the engine in a child process
        (:func:`sim.jit.compile_aside`; seat parsing starts it, before the seats are all
        known), before the seats' own functions compile here. Given ``seats``, the child is
        told those of this game's own policies (:func:`sim.jit.tell_aside`): once its part of
        the engine is compiled, it compiles their functions too, from the last."""
        if self.precompile:
            compile_aside(self.name, self.precompile, lambda: kernel_cached(self.play_batch))
            if seats:
                tell_aside(self.name, tuple(s.label for s in seats if self.is_own(s)))

    def empty_outputs(self, count: int, detail_rows: int = 0) -> tuple[np.ndarray, ...]:
        """Zeroed record arrays for ``count`` games (detail: ``detail_rows`` per game, or none)."""
        outs = []
        for t in self.tables:
            if t.detail:
                outs.append(
                    t.empty_array(count, self.max_seats, detail_rows)
                    if detail_rows
                    else t.empty_array(1, self.max_seats, 0)
                )
            else:
                outs.append(t.empty_array(count, self.max_seats))
        return tuple(outs)

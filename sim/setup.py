"""One setup path: what defines a run — its game, rules and seats — resolved once.

Every way into a run (``sim.simulate``, ``loba simulate``, a Dask worker, the child process that
plays plug-in seats, a resumed run) goes through :func:`setup`: a rules value (a
:class:`~sim.rules.RuleSet`, a rules id, a house-rules file, or None for the game's default)
and seats (a seat string, a list, or None for the default seating) become one
:class:`Setup` — the game's spec, the rules, the parsed seats, and what the kernel needs (the
rule array and the function tables, built once). Another process gets the setup's portable
form (:attr:`Setup.portable`: the rules id and seat strings with absolute plug-in paths) and
rebuilds it with :func:`load`, once per process.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .game import GameSpec
from .games import get_game
from .house import HouseRules, is_house_file, load_house_rules
from .policies import Seat, SeatError, parse_seats
from .rules import RuleError, RuleSet, parse_assignments, split_game

MAX_GAMES = 10**12  # the most games one run may have (documented in docs/runs.md)


def make_rules(preset: str | None = None, game: str | None = None, **overrides) -> RuleSet:
    """A rule set of ``game`` (None: the default game): a preset plus overrides (see
    :class:`~sim.rules.RulesSpec`)."""
    return get_game(game).rules.make(preset, **overrides)


def parse_rules_id(text: str, game: str | None = None) -> RuleSet:
    """Parse a canonical id; ``GAME:`` in the text names the game, else ``game`` (None: the
    default game). A path to a house-rules file (``*.toml``, :mod:`sim.house`) gives the rules
    it holds."""
    if is_house_file(text):
        return load_house_rules(text, game).rules
    named, _ = split_game(text, game)
    if game is not None and named is not None and named != game:
        raise RuleError(f"'{text}' names {named} rules, but the game is {game}.")
    return get_game(named).rules.parse(text)


def resolve_rules(rules, game=None) -> RuleSet:
    """A RuleSet from a RuleSet, a rules id (``pagat(...)``, ``moon:bid``), a house-rules file
    (a ``str`` ending in ``.toml`` or a ``Path``, :mod:`sim.house`) or None (the game's default
    preset); ``game``: a name or spec (None: the game the id names, else the default game)."""
    if is_house_file(rules):
        return load_house_rules(rules, None if game is None else get_game(game).name).rules
    if isinstance(rules, RuleSet):
        if game is not None and get_game(game).name != rules.game:
            raise ValueError(f"The rules {rules.id} are not rules of {get_game(game).title}.")
        return rules
    if rules is None:
        return get_game(game).rules.make()
    return parse_rules_id(str(rules), None if game is None else get_game(game).name)


class Settings(NamedTuple):
    """What a command's rule and seat options say: the rules (settings applied), the seats
    (None: the default), the label and the house-rules file (None without one)."""

    rules: RuleSet
    seats: object
    label: str | None
    house: HouseRules | None


def settings(rules=None, sets=(), seats=None, game=None) -> Settings:
    """The rules of ``rules`` (a preset, an id, a house-rules file or None) with the
    ``KNOB=VALUE`` settings ``sets`` applied (they win over a house file's knobs); a house
    file also gives the seats when ``seats`` is None (given ones must agree with the file's)
    and a label."""
    house = load_house_rules(rules, game) if rules and is_house_file(rules) else None
    base = house.rules if house is not None else resolve_rules(rules or None, game)
    overrides = parse_assignments(sets)
    if overrides:
        base = base.replace(**overrides)
    if house is None:
        return Settings(base, seats, None, None)
    return Settings(base, house.pick_seats(seats), house.label, house)


def house_label(rules) -> str | None:
    """The label of a house-rules file (None for anything else, or a file without one)."""
    return load_house_rules(rules).label if is_house_file(rules) else None


def check_seat_rules(seats, rules: RuleSet) -> None:
    """Refuse (one sentence) a seat whose add-on rule was read from a file made under other
    rules than ``rules``."""

    def same(rid: str) -> bool:
        try:
            return resolve_rules(rid, rules.game).id == rules.id
        except (ValueError, OSError):  # not a rules id (or not this game's): not these rules
            return False

    for s in seats:
        for a in s.addons:
            if a.rules_id is not None and a.rules_id != rules.id and not same(a.rules_id):
                raise SeatError(
                    f"'{s.label}': the {a.kind} table '{a.path}' was measured under"
                    f" {a.rules_id}, not {rules.id}; measure one under these rules."
                )


def portable_seat(seat: Seat) -> str:
    """The seat string with plug-in file paths (and the files of file rules, ``KIND=NAME:PATH``)
    made absolute, so another process (a Dask worker, a later ``--resume`` from another
    folder) loads the same module or file."""

    def fix(ref: str) -> str:
        mod, sep, name = ref.rpartition(":")
        if sep and (mod.endswith(".py") or "/" in mod or "\\\\" in mod):
            return f"{Path(mod).expanduser().resolve()}:{name}"
        return ref

    def fix_addon(a):
        if a.path:
            return dataclasses.replace(
                a, ref=f"{a.ref.partition(':')[0]}:{Path(a.path).expanduser().resolve()}"
            )
        return dataclasses.replace(a, ref=fix(a.ref))

    addons = tuple(fix_addon(a) for a in seat.addons)
    return dataclasses.replace(seat, policy_ref=fix(seat.policy_ref), addons=addons).label


@dataclass(frozen=True, eq=False)
class Setup:
    """A run's game, rules and seats, checked against each other; ``label``: the house-rules
    file's label, if the rules came from one. The kernel's inputs are built on first use and
    kept (:attr:`R`, :attr:`tables`)."""

    spec: GameSpec
    rules: RuleSet
    seats: tuple[Seat, ...]
    label: str | None = None

    @property
    def labels(self) -> list[str]:
        """The seats as written (the tables' seat labels)."""
        return [s.label for s in self.seats]

    @property
    def n_players(self) -> int:
        return len(self.seats)

    @functools.cached_property
    def portable(self) -> tuple[str, tuple[str, ...]]:
        """(rules id, portable seat strings): what another process needs to :func:`load` it."""
        return self.rules.id, tuple(portable_seat(s) for s in self.seats)

    @functools.cached_property
    def R(self) -> np.ndarray:
        """The rule array the kernel reads."""
        return self.rules.to_array()

    @functools.cached_property
    def tables(self) -> tuple:
        """The kernel's (function tuples, parameter matrix), :meth:`GameSpec.fn_tables`."""
        return self.spec.fn_tables(list(self.seats))


def setup(rules=None, seats=None, game=None) -> Setup:
    """Resolve and check a run's rules and seats; one-sentence errors. The game is ``game`` or
    the one the rules name. With a house-rules file, ``seats`` None means the file's seats
    (and seats given must agree with any the file names)."""
    label = None
    if is_house_file(rules):
        house = load_house_rules(rules, None if game is None else get_game(game).name)
        rules, seats, label = house.rules, house.pick_seats(seats), house.label
    rules = resolve_rules(rules, game)
    spec = get_game(rules.game)
    seat_list = parse_seats(spec.default_seats if seats is None else seats, game=spec)
    for s in seat_list:
        if s.game != spec.name:
            raise SeatError(f"Seat '{s.label}' plays {s.game}, not {spec.title}.")
    rules.check_players(len(seat_list))
    check_seat_rules(seat_list, rules)
    return Setup(spec, rules, tuple(seat_list), label)


@functools.lru_cache(maxsize=8)
def load(rules_id: str, seat_specs: tuple[str, ...]) -> Setup:
    """A setup from its portable form, built once per process (chunks of one run share it)."""
    return setup(rules_id, list(seat_specs))


def check_count(games, seed) -> None:
    """A run's number of games and seed, else a one-sentence ValueError."""
    if (
        isinstance(games, bool)
        or not isinstance(games, int | np.integer)
        or not 1 <= games <= MAX_GAMES
    ):
        raise ValueError(
            f"The number of games must be a whole number of at least 1 and at most 10^12,"
            f" not {games}."
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
        raise ValueError(f"The seed must be a whole number from 0 to 2^63-1, not {seed}.")


def check_run(rules, seats, games, seed, game=None) -> tuple[GameSpec, RuleSet, list[Seat]]:
    """:func:`setup` and :func:`check_count` at once: (spec, rules, seats)."""
    s = setup(rules, seats, game)
    check_count(games, seed)
    return s.spec, s.rules, list(s.seats)

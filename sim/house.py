"""House rules in a TOML file: a rule set, and optionally the seating and a label, by name.

Wherever a rules id is taken (``--rules``, ``sim.simulate(rules=...)``), a path to such a file
may be given instead: a ``str`` ending in ``.toml`` or a :class:`pathlib.Path`. The form::

    game = "loba"                 # optional; default loba
    preset = "pagat"              # optional; default: the game's default preset
    label = "Friday night"        # optional: a name for the runs made with it
    seats = ["greedy", "greedy", "hold:patience=2", "random"]   # optional; or "greedy,..."

    [knobs]                       # every knob set here overrides the preset
    elimination_score = 151
    score_floor = "none"          # an optional knob's none (TOML has no null)

The same file may also hold what ``loba advise`` reads (a ``targets`` list and an ``[advise]``
table, :mod:`analysis.advise`); the rules ignore them. Knobs go under ``[knobs]`` only; any
other key, a knob at the top level, a value of the wrong
kind or an unknown knob is refused in one sentence naming the file (:class:`HouseRulesError`).
:func:`house_toml` writes such a file for any rule set (every knob, with its rule, default and
allowed values as comments); loading it gives the same canonical rules id.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .games import GameError, get_game
from .policies import SeatError, parse_seats
from .rules import RuleError, RuleSet, fmt_value

KEYS = ("game", "preset", "label", "seats", "knobs", "targets", "advise")


class HouseRulesError(RuleError):
    """A house-rules file that cannot be used. One sentence naming the file."""


def is_house_file(rules) -> bool:
    """Whether ``rules`` names a house-rules file: a path object, or a string ending in .toml."""
    if isinstance(rules, os.PathLike):
        return True
    return isinstance(rules, str) and rules.strip().lower().endswith(".toml")


def _lower_first(text: str) -> str:
    """``Rule 'x' ...`` -> ``rule 'x' ...`` (to follow a colon), leaving acronyms alone."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _seat_strings(p: Path, seats) -> tuple[str, ...]:
    items = seats.split(",") if isinstance(seats, str) else seats
    if not isinstance(items, list) or not all(isinstance(s, str) and s.strip() for s in items):
        raise HouseRulesError(
            f"House-rules file '{p}': 'seats' must be a list of seat strings or one"
            ' comma-separated string, such as "greedy,greedy,hold,random".'
        )
    return tuple(s.strip() for s in items)


def _read(p: Path) -> dict:
    try:
        if not p.exists():
            raise HouseRulesError(f"House-rules file '{p}' does not exist.")
        if p.is_dir():
            raise HouseRulesError(f"House-rules file '{p}' is a directory, not a .toml file.")
        with open(p, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        text = str(e).strip().splitlines()[0].rstrip(".") if str(e).strip() else ""
        at = re.search(r"\s*\((at line \d+, column \d+|at end of document)\)$", text)
        where = f" {at.group(1)}" if at else ""
        what = _lower_first(text[: at.start()] if at else text) or "a syntax error"
        raise HouseRulesError(
            f"House-rules file '{p}' is not valid TOML{where} ({what})."
        ) from None
    except UnicodeDecodeError:
        raise HouseRulesError(
            f"House-rules file '{p}' is not TOML: it is not UTF-8 text."
        ) from None
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise HouseRulesError(f"House-rules file '{p}' cannot be read ({reason}).") from None


@dataclass(frozen=True)
class HouseRules:
    """What a house-rules file holds: its rule set, seat strings (or None) and label (or None)."""

    path: Path
    rules: RuleSet
    seats: tuple[str, ...] | None = None
    label: str | None = None

    def pick_seats(self, seats):
        """The seating of a run with these house rules and ``seats`` given beside them: the
        file's when ``seats`` is None; ``seats`` when the file names none or the same ones
        (compared as canonical seat labels); refused in one sentence when they disagree."""
        if self.seats is None:
            return seats
        if seats is None:
            return ",".join(self.seats)
        game = self.rules.game
        mine = [s.label for s in parse_seats(list(self.seats), game=game)]
        given = [s.label for s in parse_seats(seats, game=game)]
        if mine != given:
            raise HouseRulesError(
                f"The seats {','.join(given)} disagree with the seats of house-rules file"
                f" '{self.path}' ({','.join(mine)}): give one or the other."
            )
        return seats


def load_house_rules(path, game=None) -> HouseRules:
    """Read and validate a house-rules file (see the module docstring). ``game``: the game in
    use, if one was named elsewhere (a file naming another game is refused)."""
    p = Path(path.strip() if isinstance(path, str) else path)
    data = _read(p)
    where = f"House-rules file '{p}'"
    for key in ("game", "preset", "label"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            raise HouseRulesError(f"{where}: '{key}' must be a non-empty string.")
    try:
        spec = get_game(data.get("game"))  # a file that names no game holds Loba rules
        if game is not None and spec.name != get_game(game).name:
            other = get_game(game)
            if "game" not in data:
                raise HouseRulesError(
                    f"{where} names no game, so it holds {spec.title} rules, but the game is"
                    f' {other.title}: add game = "{other.name}" to it.'
                )
            raise HouseRulesError(
                f"{where} holds {spec.title} rules, but the game is {other.title}."
            )
    except GameError as e:
        raise HouseRulesError(f"{where}: {_lower_first(str(e))}") from None
    for key in data:
        if key in spec.rules.knob:
            raise HouseRulesError(
                f"{where}: put the knob '{key}' under [knobs]; only game, preset, label and"
                " seats are top-level keys."
            )
        if key not in KEYS:
            raise HouseRulesError(
                f"{where} has an unknown key '{key}': the keys are game, preset, label, seats,"
                " the [knobs] table, and targets and [advise] for 'loba advise'."
            )
    knobs = data.get("knobs", {})
    if not isinstance(knobs, dict):
        raise HouseRulesError(f"{where}: 'knobs' must be a table ([knobs], one KNOB = VALUE each).")
    try:
        for name, value in knobs.items():
            if isinstance(value, dict | list):
                raise RuleError(f"Rule '{name}' takes one value, not a {type(value).__name__}.")
        rules = spec.rules.make(data.get("preset"), **knobs)
    except RuleError as e:
        raise HouseRulesError(f"{where}: {_lower_first(str(e))}") from None
    seats = _seat_strings(p, data["seats"]) if "seats" in data else None
    if seats is not None:  # every seat a seat of this game, as many as its rules seat
        try:
            parse_seats(list(seats), game=spec)
            rules.check_players(len(seats))
        except (SeatError, RuleError) as e:
            raise HouseRulesError(f"{where}: 'seats': {_lower_first(str(e))}") from None
    label = data["label"].strip() if "label" in data else None
    return HouseRules(p, rules, seats, label)


def _toml_str(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    import json

    return json.dumps(s, ensure_ascii=False)


def _toml_value(value) -> str:
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _toml_str(str(value))


def house_toml(rules: RuleSet, seats=None, label: str | None = None) -> str:
    """A house-rules file of ``rules`` (and ``seats``, ``label`` if given): every knob with its
    value, and as comments its rule, default and allowed values. Loading it with
    :func:`load_house_rules` gives a rule set of the same canonical id."""
    spec = rules.spec
    lines = [
        f"# {spec.title or spec.game} house rules: {rules.id}",
        "# use with: loba simulate --rules THIS_FILE.toml (or sim.simulate(rules=...))",
        f"game = {_toml_str(rules.game)}",
        f"preset = {_toml_str(rules.preset)}",
    ]
    if label is not None:
        lines.append(f"label = {_toml_str(label)}")
    if seats is not None:
        items = seats.split(",") if isinstance(seats, str) else list(seats)
        labels = [s if isinstance(s, str) else s.label for s in items]
        lines.append("seats = [" + ", ".join(_toml_str(s.strip()) for s in labels) + "]")
    lines += ["", "[knobs]"]
    rows = [(f"{k.name} = {_toml_value(getattr(rules, k.name))}", k) for k in spec.knobs]
    width = max(len(a) for a, _ in rows)
    for assign, k in rows:
        note = f"[{k.rule}] default {fmt_value(k.default)}; {k.alternatives()}"
        lines.append(f"{assign.ljust(width)}  # {note}")
    return "\n".join(lines) + "\n"


__all__ = ["HouseRules", "HouseRulesError", "house_toml", "is_house_file", "load_house_rules"]

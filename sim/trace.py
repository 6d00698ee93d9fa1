"""Event traces of any game: replay one game of a run, as JSON Lines or readable text.

Game ``G`` of a run is fully determined by (game, rules, seats, seed, G). :func:`replay` plays
it again with the game's kernel recording every event (:attr:`sim.game.GameSpec.replay`) and
returns the events as JSON-ready dicts; each game decodes them in its own trace module (Loba:
its package's ``trace.py``), and docs/traces.md documents both games' schemas. :func:`to_jsonl`
writes them one per line, the form ``loba audit`` reads; :func:`to_text` hands them to the
game's readable account.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .setup import check_run

MAX_GAME_INDEX = 2**63 - 1


class TraceError(ValueError):
    """A replay that cannot be made (bad game index, ...). One sentence."""


def check_index(game) -> None:
    """A game index is a whole number from 0 to 2^63-1."""
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game <= MAX_GAME_INDEX:
        raise TraceError(f"The game index must be a whole number from 0 to 2^63-1, not {game}.")


def replay(rules=None, seats=None, seed: int = 0, game: int = 0, *, game_name=None):
    """Events of game ``game`` of the run (rules, seats, seed), as dicts.

    ``rules``: a RuleSet or rules id (its ``GAME:`` prefix, or ``game_name``, picks the game;
    Loba by default); ``seats``: a seat string or list (None: the game's default seating).
    """
    spec, rules, seat_list = check_run(rules, seats, 1, seed, game_name)
    check_index(game)
    return spec.replay(rules, seat_list, seed, game)


def to_jsonl(events: Iterable[dict]) -> str:
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)


def to_text(events: list[dict], only_round: int | None = None) -> str:
    """The game's readable account of a trace (the game is named in its header's rules id)."""
    from .games import get_game
    from .rules import split_game

    game, _ = split_game(events[0].get("rules_id", ""), None) if events else (None, "")
    return get_game(game).to_text(events, only_round)


def read_trace(path) -> tuple:
    """(spec, events) of a JSON Lines trace file (:func:`to_jsonl`), checked line by line:
    each bad line, or a missing game header, is refused in one sentence naming it."""
    from pathlib import Path

    from .games import get_game
    from .rules import split_game

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"Trace file '{path}' does not exist.")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"Trace file '{path}' cannot be read as text ({e}).") from None
    events = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
            raise ValueError(f"Line {i} of '{path}' is not JSON (or nests too deep).") from None
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise ValueError(f"Line {i} of '{path}' is not a trace event (an object with a type).")
        events.append(ev)
    if not events or events[0]["type"] != "game" or not isinstance(events[0].get("rules_id"), str):
        raise ValueError(f"'{path}' is not a game trace: it must start with a game header line.")
    spec = get_game(split_game(events[0]["rules_id"], None)[0])
    players = events[0].get("players", spec.max_seats)  # a header that says how many
    if isinstance(players, bool) or not isinstance(players, int) or not (
        1 <= players <= spec.max_seats
    ):
        raise ValueError(
            f"'{path}' is not a game trace: its header says {str(players)[:40]!r} players, not"
            f" a whole number from 1 to {spec.max_seats}."
        )
    return spec, events


def audit_trace(path) -> list[str]:
    """The game's independent auditor on a trace file: one sentence per rule broken (none:
    the game is legal). A file it cannot read is refused in one sentence."""
    spec, events = read_trace(path)
    try:
        return spec.audit(events)
    except Exception as e:  # events the auditor cannot even read (wrong types, missing keys)
        what = f"{type(e).__name__}: {e}".splitlines()[0][:120].rstrip(".")
        raise ValueError(
            f"'{path}' is not a well-formed {spec.title} trace: the auditor cannot read its"
            f" events ({what})."
        ) from None

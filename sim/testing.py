"""The conformance harness: checks any registered game (pgx ``api_test`` style).

Run it over every game in :mod:`sim.games` (the test-suite does, by parametrising over the
registry), or on a game of your own before registering it::

    from sim.testing import check_game
    check_game("loba")            # raises AssertionError naming the first broken promise

What it promises to check, for the game's every preset x every registered policy x every
player count:

* **play-outs against the auditor**: each game is replayed with event recording on and its
  whole trace re-checked by the game's independent auditor (every event, so every step);
* **trace round trip**: the events survive JSON Lines unchanged and read as text;
* **schema**: the frames have exactly the declared columns and types; every kernel layout is
  sized from its parts; the rule array has one slot per knob slot;
* **determinism**: the same tables whatever the thread count and chunk size, a game played
  alone equals the same game inside a batch, and the Dask backend writes the same bytes as the
  local one (:func:`check_backends`).
"""

from __future__ import annotations

import json
from collections import Counter

from .chunks import run_chunk
from .games import get_game
from .policies import parse_seats
from .rules import RuleSet
from .runner import simulate, stream_run
from .trace import to_jsonl


def player_counts(spec) -> range:
    return range(spec.rules.min_players, spec.rules.max_players + 1)


def quick_seat(spec, policy: str) -> str:
    """The seat string registry-wide checks give ``policy``: its name, with its declared cheap
    parameters (``Policy(quick=...)``: a search policy's) when it has them."""
    p = get_game(spec).policies.get(policy)
    quick = getattr(p, "quick", "")
    return f"{policy}:{quick}" if quick else policy


def cells(spec, policies=None, presets=None):
    """(rules, seat string) for every preset x policy x player count."""
    for preset in presets or spec.rules.presets:
        rules = spec.rules.make(preset)
        for policy in policies or spec.policies:
            for n in player_counts(spec):
                yield rules, ",".join([quick_seat(spec, policy)] * n)


def check_playouts(spec, games: int = 1, seed: int = 1, policies=None, presets=None) -> Counter:
    """Replay ``games`` games of every cell and audit every event; returns counters."""
    spec = get_game(spec)
    stats = Counter()
    for rules, seats in cells(spec, policies, presets):
        seat_list = parse_seats(seats, game=spec)
        for i in range(games):
            events = spec.replay(rules, seat_list, seed, i)
            problems = spec.audit(events)
            assert not problems, f"{rules.id} {seats} game {i}: {problems[:3]}"
            back = [json.loads(line) for line in to_jsonl(events).splitlines()]
            assert back == events, f"{rules.id} {seats} game {i}: the JSON Lines round trip"
            assert spec.to_text(events).strip(), "an empty text replay"
            stats["games"] += 1
            stats["events"] += len(events)
    return stats


def check_schema(spec) -> None:
    """Frames match the declaration; layouts and the rule array are sized from their parts."""
    spec = get_game(spec)
    for t in spec.tables:
        enum = t.kernel_enum("K")
        assert enum.SIZE == sum(c.from_kernel for c in t.columns), t.name
        assert list(enum) == list(range(enum.SIZE)) + [enum.SIZE], t.name
    for preset in spec.rules.presets:
        r = spec.rules.make(preset)
        assert isinstance(r, RuleSet) and r.to_array().shape == (spec.rules.index.SIZE,)
        assert spec.rules.parse(r.id) == r, f"{r.id} does not round-trip"
    n = spec.rules.min_players
    res = simulate(
        None,
        None
        if n == len(spec.default_seats.split(","))
        else ",".join([next(iter(spec.policies))] * n),
        games=3,
        seed=1,
        game=spec,
        record_rounds=True,
    )
    for t in spec.tables:
        df = res.frames[t.name]
        assert dict(df.schema) == t.schema(), f"{t.name}: {dict(df.schema)} != {t.schema()}"


def check_determinism(spec, games: int = 200, seed: int = 3) -> None:
    """Threads and chunk sizes never change a row; a game alone equals it in a batch."""
    spec = get_game(spec)
    policies = list(spec.policies)
    n = spec.rules.max_players
    seats = ",".join(policies[q % len(policies)] for q in range(n))
    a = simulate(None, seats, games, seed, threads=1, chunk_size=7, record_rounds=True, game=spec)
    b = simulate(None, seats, games, seed, threads=2, chunk_size=64, record_rounds=True, game=spec)
    for name, df in a.frames.items():
        assert df.equals(b.frames[name]), f"{name} differs between thread/chunk settings"
    k = games // 2
    one = simulate(None, seats, 1, seed, start=k, record_rounds=True, game=spec)
    for name, df in one.frames.items():
        assert df.equals(a.frames[name].filter(a.frames[name]["game"] == k)), name


def check_backends(spec, out_dir, scheduler=None, games: int = 60, seed: int = 4) -> None:
    """A run directory written by the Dask backend (``scheduler``: an address; None: a local
    cluster of one worker) holds byte for byte the parts the local backend writes."""
    from pathlib import Path

    spec = get_game(spec)
    out = Path(out_dir)
    n = spec.rules.max_players
    policies = list(spec.policies)
    seats = ",".join(policies[q % len(policies)] for q in range(n))
    kw = dict(games=games, seed=seed, game=spec, record_rounds=True, chunk_size=games // 3)
    stream_run(None, seats, out_dir=out / "local", **kw)
    workers = None if scheduler else 1
    stream_run(
        None, seats, out_dir=out / "dask", backend="dask", scheduler=scheduler, workers=workers,
        **kw,
    )  # fmt: skip
    for t in spec.tables:
        a = sorted((out / "local" / f"{t.name}.parquet").glob("*.parquet"))
        b = sorted((out / "dask" / f"{t.name}.parquet").glob("*.parquet"))
        assert [p.name for p in a] == [p.name for p in b] and a, t.name
        for x, y in zip(a, b, strict=True):
            assert x.read_bytes() == y.read_bytes(), f"{t.name}/{x.name} differs by backend"


def check_builtins(spec, games: int = 150, seed: int = 6) -> int:
    """A policy the engine has its own copy of (``Policy(builtin=...)``) plays the same games
    through that copy as through its decision functions: for every preset and player count,
    the policy at every seat and mixed with the other policies, the records are equal with the
    parameter matrix's builtin column as given and zeroed, and with every seat asked through
    its plug-in arena. Returns the cells checked."""
    import numpy as np

    spec = get_game(spec)
    built = [name for name, p in spec.policies.items() if getattr(p, "builtin", 0)]
    if not built:
        return 0
    assert spec.builtin_column, f"{spec.name}: builtin policies need GameSpec.builtin_column"
    others = [quick_seat(spec, p) for p in spec.policies if p not in built]
    checked = 0
    for preset in spec.rules.presets:
        rules = spec.rules.make(preset)
        R = rules.to_array()
        for name in built:
            for n in player_counts(spec):
                mixed = [name if q % 2 == 0 else others[q % len(others)] for q in range(n)]
                for seats in ([name] * n, mixed):
                    fns, params = spec.fn_tables(parse_seats(",".join(seats), game=spec))
                    # the last two columns: the builtin id, then the plug-in (arena) flag
                    assert (
                        params[:n, -2] == [spec.policies[s.split(":")[0]].builtin for s in seats]
                    ).all()
                    assert (params[:n, -1] == 0).all()
                    plain = params.copy()
                    plain[:, -2] = 0
                    arena = plain.copy()  # every seat asked as a plug-in is: through its arena
                    arena[:, -1] = 1
                    a = run_chunk(spec, R, n, seed, 0, games, (fns, params), 0)
                    for other in (plain, arena):
                        b = run_chunk(spec, R, n, seed, 0, games, (fns, other), 0)
                        for t, x, y in zip(spec.tables, a, b, strict=True):
                            assert np.array_equal(x, y), f"{rules.id} {seats}: {t.name} differs"
                    checked += 1
    return checked


def check_game(spec, games: int = 1, seed: int = 1) -> Counter:
    """Every check of this module on one game; returns the play-out counters."""
    spec = get_game(spec)
    check_schema(spec)
    check_determinism(spec)
    return check_playouts(spec, games, seed)

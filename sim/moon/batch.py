"""Python helpers around the batch kernel: build its inputs from names, run games, frames.

:func:`play_batch` plays games straight from names, for tests: rules (a
:class:`sim.rules.RuleSet` or an id), three policies (names of :data:`~.policies.POLICIES`
or :class:`~sim.policies.api.Policy` objects, each optionally with parameter overrides) ->
the kernel's record arrays. :func:`frames` turns them into polars frames through :mod:`.schema`. The
runner goes through the game's spec instead (``play_batch`` in :mod:`.spec`); the game
handle and the benchmark build their seats here (:func:`seat_tables`).
"""

from __future__ import annotations

import numpy as np

from ..rules import RuleSet
from ..setup import resolve_rules as resolve_any
from .api import DECISIONS, N_PARAMS, compiled_moon
from .layout import MAX_SEATS
from .rules import SPEC
from .schema import GAMES, HANDS, SEATS


def resolve_rules(rules) -> RuleSet:
    """Moon's rules from a RuleSet, an id or None (:func:`sim.setup.resolve_rules`)."""
    return resolve_any(rules, SPEC.game)


def resolve_policy(p) -> tuple[object, dict]:
    """A policy and its parameter overrides from: a Moon :class:`~sim.policies.api.Policy`
    (or any object with ``decisions(kinds)`` and ``params``), a built-in name,
    ``"name:param=value"``,
    ``(policy, {overrides})``, or a parsed seat of :mod:`sim.policies` (``.policy`` and
    ``.policy_params``)."""
    from .policies import POLICIES

    if hasattr(p, "policy") and hasattr(p, "policy_params"):
        return p.policy, dict(p.policy_params)
    if hasattr(p, "decisions") and hasattr(p, "params"):
        return p, {}
    if isinstance(p, tuple):
        pol, ov = resolve_policy(p[0])
        return pol, {**ov, **p[1]}
    name, *parts = str(p).strip().split(":")
    if name not in POLICIES:
        raise ValueError(f"Unknown Moon policy '{name}': choose one of {', '.join(POLICIES)}.")
    ov = {}
    for part in parts:
        k, _, v = part.partition("=")
        ov[k.strip()] = float(v)
    return POLICIES[name], ov


def seat_list(policies) -> list:
    """Three seats from a comma-separated string or a sequence (see :func:`resolve_policy`)."""
    if isinstance(policies, str):
        policies = [x for x in policies.split(",") if x.strip()]
    return list(policies)


def seat_label(p) -> str:
    """How a seat is written in outputs."""
    if hasattr(p, "label"):
        return p.label
    if isinstance(p, tuple):
        pol, ov = resolve_policy(p)
        extra = "".join(f":{k}={v:g}" for k, v in p[1].items())
        return pol.name + extra
    return p if isinstance(p, str) else getattr(p, "name", str(p))


def param_row(pol, overrides: dict) -> np.ndarray:
    """float64[N_PARAMS]: the policy's defaults with ``overrides`` by name."""
    if len(pol.params) > N_PARAMS:
        raise ValueError(f"Policy '{pol.name}' has more than {N_PARAMS} parameters.")
    for k in overrides:
        if k not in pol.params:
            known = ", ".join(pol.params) or "none"
            raise ValueError(f"Policy '{pol.name}' has no parameter '{k}' (it has: {known}).")
    out = np.zeros(N_PARAMS, dtype=np.float64)
    for i, (k, d) in enumerate(pol.params.items()):
        out[i] = float(overrides.get(k, d))
    return out


def seat_tables(policies) -> tuple[tuple, np.ndarray]:
    """(fns, params) for the kernel from three seats (see :func:`resolve_policy`): ``fns`` one
    compiled (bid, trump, play) tuple per seat, ``params`` float64[3, N_PARAMS]."""
    pols = [resolve_policy(p) for p in seat_list(policies)]
    if len(pols) != MAX_SEATS:
        raise ValueError(f"Three-Player Moon is played by exactly 3 players, not {len(pols)} [B1].")
    fns = tuple(tuple(compiled_moon(f) for f in p.decisions(DECISIONS)) for p, _ in pols)
    params = np.zeros((MAX_SEATS, N_PARAMS), dtype=np.float64)
    for q, (p, ov) in enumerate(pols):
        params[q] = param_row(p, ov)
    return fns, params


def seat_trust(policies) -> np.ndarray:
    """int8[3]: 1 for a seat whose policy is one of the game's own (:data:`~.policies.POLICIES`:
    handed the game's arrays, not copies, :func:`~.engine.decide`), 0 for any other."""
    from .policies import POLICIES

    pols = [resolve_policy(p)[0] for p in seat_list(policies)]
    return np.array([POLICIES.get(getattr(p, "name", None)) is p for p in pols], dtype=np.int8)


def play_batch(rules, policies, seed: int, start: int = 0, count: int = 1, hands_cap: int = 0):
    """Play games ``start .. start+count-1``; returns (games, seats, hands) record arrays."""
    from .kernel import run_games

    rs = resolve_rules(rules)
    fns, params = seat_tables(policies)
    games = GAMES.empty_array(count, MAX_SEATS)
    seats = SEATS.empty_array(count, MAX_SEATS)
    if hands_cap > 0:
        hands = HANDS.empty_array(count, MAX_SEATS, hands_cap)
    else:
        hands = HANDS.empty_array(1, MAX_SEATS, 0)
    trust = seat_trust(policies)
    run_games(rs.to_array(), np.uint64(seed), start, count, fns, params, games, seats, hands, trust)
    return games, seats, hands


def frames(games, seats, hands, *, start: int, seed: int, rules, labels) -> dict:
    """Polars frames of the record arrays (``labels``: the three seat strings)."""
    from .schema import GR

    rs = resolve_rules(rules)
    idx = np.arange(start, start + games.shape[0], dtype=np.int64)
    ctx = {"idx": idx, "seed": seed, "rules_id": rs.id, "labels": list(labels)}
    out = {"games": GAMES.frame(games, ctx), "seats": SEATS.frame(seats, ctx)}
    if hands.shape[0] == games.shape[0] and hands.shape[1] > 0:
        out["hands"] = HANDS.frame(hands, ctx, games[:, GR.HANDS])
    return out

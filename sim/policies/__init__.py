"""Policy registry, seat strings and plug-in loading.

A seat string names a policy, its parameters and a rebuy rule::

    greedy
    hold:patience=3
    greedy+rebuy=never
    random+rebuy=if_opponents:k=2
    path/to/mymod.py:cautious:nerve=0.5+rebuy=always
    mypackage.policies:cautious

The policy part is a built-in name, or ``MODULE:NAME`` where MODULE is a ``.py`` file path or
an importable module and NAME an attribute that is a :class:`Policy`. Parameters are
``:name=value`` pairs. The rebuy rule (default ``always``) is a built-in name or
``MODULE:NAME`` naming a :class:`RebuyRule`. Seats are separated by commas.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .api import N_PARAMS, POLICY_SLOTS, REBUY_SLOT0, Policy, RebuyRule, compiled, decision
from .builtin import POLICIES, REBUY_RULES

DEFAULT_SEAT = "greedy"
DEFAULT_REBUY = "always"


class SeatError(ValueError):
    """A seat string that cannot be read or names nothing known. One sentence."""


@dataclass(frozen=True)
class Seat:
    """One seat's policy, rebuy rule and parameter values."""

    policy: Policy
    rebuy: RebuyRule
    policy_params: tuple  # (name, value) in slot order
    rebuy_params: tuple
    policy_ref: str  # how the policy was named (built-in name or MODULE:NAME)
    rebuy_ref: str

    @property
    def label(self) -> str:
        """Canonical seat string (parameters that differ from the defaults only)."""
        s = self.policy_ref
        for (k, v), d in zip(self.policy_params, self.policy.params.values(), strict=True):
            if v != d:
                s += f":{k}={_num(v)}"
        if self.rebuy_ref != DEFAULT_REBUY or any(
            v != d for (k, v), d in zip(self.rebuy_params, self.rebuy.params.values(), strict=True)
        ):
            s += f"+rebuy={self.rebuy_ref}"
            for k, v in self.rebuy_params:
                s += f":{k}={_num(v)}"
        return s

    def param_array(self) -> np.ndarray:
        a = np.zeros(N_PARAMS, dtype=np.float64)
        for i, (_, v) in enumerate(self.policy_params):
            a[i] = v
        for i, (_, v) in enumerate(self.rebuy_params):
            a[REBUY_SLOT0 + i] = v
        return a


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _load_module(ref: str):
    if ref.endswith(".py") or "/" in ref or "\\" in ref:
        path = Path(ref).expanduser()
        if not path.is_file():
            raise SeatError(f"Policy module '{ref}' does not exist.")
        key = "loba_plugin_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
        if key in sys.modules:
            return sys.modules[key]
        spec = importlib.util.spec_from_file_location(key, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:  # a user's module: report, don't trace back
            del sys.modules[key]
            raise SeatError(f"Policy module '{ref}' failed to load: {e}") from None
        return mod
    try:
        return importlib.import_module(ref)
    except Exception as e:
        raise SeatError(f"Policy module '{ref}' cannot be imported: {e}") from None


def _resolve(ref_parts: list[str], registry: dict, kind: type, what: str):
    if len(ref_parts) == 1:
        name = ref_parts[0]
        if name not in registry:
            raise SeatError(
                f"Unknown {what} '{name}': choose one of {', '.join(registry)} or MODULE:NAME."
            )
        return registry[name], name
    mod_ref, name = ref_parts
    mod = _load_module(mod_ref)
    obj = getattr(mod, name, None)
    if not isinstance(obj, kind):
        raise SeatError(f"'{name}' in '{mod_ref}' is not a {kind.__name__}.")
    return obj, f"{mod_ref}:{name}"


def _parse_part(text: str, registry: dict, kind: type, what: str, seat_text: str):
    segs = [p.strip() for p in text.split(":")]
    ref = [p for p in segs if "=" not in p]
    pairs = [p for p in segs if "=" in p]
    if not ref or len(ref) > 2 or any(not p for p in ref):
        raise SeatError(
            f"'{seat_text}' is not a seat: write e.g. greedy, hold:patience=3 or "
            "mymod.py:cautious+rebuy=never."
        )
    obj, name = _resolve(ref, registry, kind, what)
    values = dict(obj.params)
    for p in pairs:
        k, _, v = p.partition("=")
        k = k.strip()
        if k not in values:
            known = ", ".join(values) or "none"
            raise SeatError(
                f"{what.capitalize()} '{name}' has no parameter '{k}' (it has: {known})."
            )
        try:
            values[k] = float(v)
        except ValueError:
            raise SeatError(f"Parameter '{k}' of '{name}' takes a number, not '{v}'.") from None
    if len(values) > POLICY_SLOTS:
        raise SeatError(
            f"{what.capitalize()} '{name}' declares more than {POLICY_SLOTS} parameters."
        )
    return obj, name, tuple(values.items())


def parse_seat(text: str) -> Seat:
    """Read one seat string (see the module docstring)."""
    t = str(text).strip()
    if not t:
        raise SeatError("An empty seat: write a policy name such as greedy.")
    pol_part, sep, rest = t.partition("+")
    pol, pref, pparams = _parse_part(pol_part, POLICIES, Policy, "policy", t)
    rebuy_text = DEFAULT_REBUY
    if sep:
        k, eq, v = rest.partition("=")
        if k.strip() != "rebuy" or not eq or not v.strip():
            raise SeatError(f"'{t}': after '+' write rebuy=RULE (always, never, if_opponents:k=2).")
        rebuy_text = v.strip()
    reb, rref, rparams = _parse_part(rebuy_text, REBUY_RULES, RebuyRule, "rebuy rule", t)
    _compile(pref, (pol.draw, pol.play, pol.discard))
    _compile(rref, (reb.decide,))
    return Seat(pol, reb, pparams, rparams, pref, rref)


def _compile(ref: str, fns) -> None:
    """Compile (or load from the cache) the decision functions a seat uses."""
    for fn in fns:
        try:
            compiled(fn)
        except Exception as e:  # a user's function: one sentence, no traceback
            first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
            name = getattr(fn, "__name__", repr(fn))
            raise SeatError(f"'{ref}': {name} cannot be compiled as a decision: {first}") from None


def parse_seats(spec, n_players: int | None = None) -> list[Seat]:
    """A comma-separated string or a list of seat strings; ``n_players`` copies of one seat."""
    if isinstance(spec, str):
        items = [x for x in spec.split(",")]
    else:
        items = list(spec)
    if n_players is not None and len(items) == 1:
        items = items * n_players
    return [s if isinstance(s, Seat) else parse_seat(s) for s in items]


__all__ = [
    "DEFAULT_SEAT",
    "POLICIES",
    "REBUY_RULES",
    "Policy",
    "RebuyRule",
    "Seat",
    "SeatError",
    "decision",
    "parse_seat",
    "parse_seats",
]

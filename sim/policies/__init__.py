"""Seat strings, policy registries and plug-in loading, for any game.

A seat string names a policy, its parameters, and the game's optional add-on rules::

    greedy
    hold:patience=3
    greedy+rebuy=never
    random+rebuy=if_opponents:k=2
    path/to/mymod.py:cautious:nerve=0.5+rebuy=always
    mypackage.policies:cautious

The policy part is a name from the game's registry (:attr:`sim.game.GameSpec.policies`) or
``MODULE:NAME`` where MODULE is a ``.py`` file path or an importable module and NAME an
attribute that is a :class:`Policy`. Parameters are ``:name=value`` pairs. Each add-on the game
declares (Loba: ``rebuy``, default ``always``) is ``+KIND=RULE[:name=value]``, RULE a built-in
name or ``MODULE:NAME`` naming an :class:`AddOnRule`. A built-in rule that reads its values from
a file (:attr:`AddOnRule.load`; Loba's ``table``) is ``+KIND=NAME:PATH``: everything after
``NAME:`` is the path (it may hold ``:`` but not ``,`` or ``+``, which separate seats and
add-ons), and the label keeps the path as written. Seats are separated by commas.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..games import get_game
from .api import POLICY_SLOTS, AddOnRule, Policy, addon_slot, compiled, decision


class SeatError(ValueError):
    """A seat string that cannot be read or names nothing known. One sentence."""


@dataclass(frozen=True)
class AddOn:
    """One add-on of a seat: its kind (``rebuy``), rule, parameter values and how it was named."""

    kind: str
    rule: AddOnRule
    params: tuple  # (name, value) in slot order
    ref: str  # how the rule was named: NAME, MODULE:NAME, or NAME:PATH for a file rule
    path: str = ""  # a file rule's file, as written ("" for any other rule)
    rules_id: str | None = None  # the rules id the file records (None: not recorded)

    @property
    def plugin(self) -> bool:
        """Whether the rule is a plug-in (``MODULE:NAME``), not a built-in."""
        return not self.path and ":" in self.ref


@dataclass(frozen=True)
class Seat:
    """One seat's policy, parameter values and add-on rules, for one game."""

    game: str
    policy: Policy
    policy_params: tuple  # (name, value) in slot order
    policy_ref: str  # how the policy was named (built-in name or MODULE:NAME)
    addons: tuple[AddOn, ...]
    defaults: tuple[tuple[str, str], ...]  # (kind, default rule name) of the game's add-ons

    @property
    def label(self) -> str:
        """Canonical seat string (parameters and add-ons that differ from the defaults only)."""
        s = self.policy_ref
        for (k, v), d in zip(self.policy_params, self.policy.params.values(), strict=True):
            if v != d:
                s += f":{k}={_num(v)}"
        dflt = dict(self.defaults)
        for a in self.addons:
            if a.ref != dflt[a.kind] or any(
                v != d for (k, v), d in zip(a.params, a.rule.params.values(), strict=True)
            ):
                s += f"+{a.kind}={a.ref}"
                if a.path:  # a file rule: the values come from the file
                    continue
                for k, v in a.params:
                    s += f":{k}={_num(v)}"
        return s

    def addon(self, kind: str) -> AddOn:
        return next(a for a in self.addons if a.kind == kind)

    @property
    def n_params(self) -> int:
        return addon_slot(len(self.addons))

    def param_array(self) -> np.ndarray:
        a = np.zeros(self.n_params, dtype=np.float64)
        for i, (_, v) in enumerate(self.policy_params):
            a[i] = v
        for k, add in enumerate(self.addons):
            for i, (_, v) in enumerate(add.params):
                a[addon_slot(k) + i] = v
        return a

    def functions(self, kinds: tuple[str, ...]) -> tuple:
        """Decision functions in ``kinds`` order, then one per add-on."""
        return self.policy.decisions(kinds) + tuple(a.rule.decide for a in self.addons)


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
        except (Exception, SystemExit) as e:  # a user's module: report, don't trace back
            del sys.modules[key]
            raise SeatError(f"Policy module '{ref}' failed to load: {_load_error(e)}") from None
        return mod
    try:
        return importlib.import_module(ref)
    except (Exception, SystemExit) as e:
        raise SeatError(f"Policy module '{ref}' cannot be imported: {_load_error(e)}") from None


def _load_error(e: BaseException) -> str:
    """Why a plug-in module did not load, ending with a full stop."""
    if isinstance(e, SystemExit):
        return f"it called sys.exit({e.code!r}) while being imported."
    text = str(e) or type(e).__name__
    return text if text.endswith(".") else text + "."


def _resolve(ref_parts: list[str], registry: dict, kind: type, what: str, game: str):
    if len(ref_parts) == 1:
        name = ref_parts[0]
        if name not in registry:
            raise SeatError(
                f"Unknown {what} '{name}': choose one of {', '.join(registry)} or MODULE:NAME"
                f" (see 'loba policies --game {game}')."
            )
        return registry[name], name
    mod_ref, name = ref_parts
    mod = _load_module(mod_ref)
    obj = getattr(mod, name, None)
    if not isinstance(obj, kind):
        raise SeatError(f"'{name}' in '{mod_ref}' is not a {kind.__name__}.")
    if getattr(obj, "game", game) != game:
        raise SeatError(f"'{name}' in '{mod_ref}' plays {obj.game}, not {game}.")
    return obj, f"{mod_ref}:{name}"


def _parse_part(text: str, registry: dict, kind: type, what: str, seat_text: str, game: str):
    segs = [p.strip() for p in text.split(":")]
    ref = [p for p in segs if "=" not in p]
    pairs = [p for p in segs if "=" in p]
    if not ref or len(ref) > 2 or any(not p for p in ref):
        raise SeatError(
            f"'{seat_text}' is not a seat: write e.g. greedy, hold:patience=3 or "
            "mymod.py:cautious+rebuy=never."
        )
    obj, name = _resolve(ref, registry, kind, what, game)
    values = dict(obj.params)
    given: set[str] = set()
    for p in pairs:
        k, _, v = p.partition("=")
        k = k.strip()
        if k in given:
            raise SeatError(f"'{seat_text}' sets parameter '{k}' twice; give it once.")
        given.add(k)
        if k not in values:
            known = ", ".join(values) or "none"
            raise SeatError(
                f"{what.capitalize()} '{name}' has no parameter '{k}' (it has: {known})."
            )
        try:
            values[k] = float(v)
        except ValueError:
            raise SeatError(f"Parameter '{k}' of '{name}' takes a number, not '{v}'.") from None
        if not math.isfinite(values[k]):
            raise SeatError(f"Parameter '{k}' of '{name}' takes a finite number, not '{v}'.")
        lo, hi = getattr(obj, "ranges", {}).get(k, (-math.inf, math.inf))
        if not lo <= values[k] <= hi:
            raise SeatError(
                f"Parameter '{k}' of '{name}' must be between {lo:g} and {hi:g}, not {v.strip()}."
            )
    if len(values) > POLICY_SLOTS:
        raise SeatError(
            f"{what.capitalize()} '{name}' declares more than {POLICY_SLOTS} parameters."
        )
    return obj, name, tuple(values.items())


def parse_seat(text: str, game=None) -> Seat:
    """Read one seat string of ``game`` (a name or :class:`sim.game.GameSpec`; None: the
    default game)."""
    spec = get_game(game)
    t = str(text).strip()
    if not t:
        raise SeatError("An empty seat: write a policy name such as greedy.")
    pol_part, *extras = t.split("+")
    pol, pref, pparams = _parse_part(pol_part, spec.policies, Policy, "policy", t, spec.name)
    chosen = {}
    for x in extras:
        k, eq, v = x.partition("=")
        k = k.strip()
        if k not in spec.addons or not eq or not v.strip():
            hint = ", ".join(f"+{a}=RULE" for a in spec.addons) or "nothing (no add-ons)"
            raise SeatError(f"'{t}': after the policy, {spec.title} seats take {hint}.")
        if k in chosen:
            raise SeatError(f"'{t}': +{k} is given twice.")
        chosen[k] = v.strip()
    addons = []
    for kind, (registry, default) in spec.addons.items():
        text = chosen.get(kind, default)
        addon = _file_rule(kind, text, registry, t)
        if addon is None:
            rule, rref, rparams = _parse_part(
                text, registry, AddOnRule, f"{kind} rule", t, spec.name
            )
            if rule.load is not None:
                raise SeatError(f"'{t}': the {kind} rule '{rref}' reads a file: write {rref}:PATH.")
            addon = AddOn(kind, rule, rparams, rref)
        addons.append(addon)
    try:
        fns = pol.decisions(spec.decisions)
    except ValueError as e:
        raise SeatError(str(e)) from None
    spec.compile_engine_aside()  # the engine compiles in a child meanwhile (cold cache only)
    # A plug-in's functions compile now: compiling is how they are checked. The game's own
    # compile when a run first needs them (GameSpec.fn_tables), after the CLI has said that
    # it compiles: on a cold cache they take seconds and cannot fail.
    if spec.policies.get(pol.name) is not pol:
        _compile(pref, fns, spec.signature)
    for a in addons:
        if spec.addons[a.kind][0].get(a.rule.name) is not a.rule:
            _compile(a.ref, (a.rule.decide,), spec.signature)
    defaults = tuple((kind, d) for kind, (_, d) in spec.addons.items())
    return Seat(spec.name, pol, pparams, pref, tuple(addons), defaults)


def _file_rule(kind: str, text: str, registry: dict, seat_text: str) -> AddOn | None:
    """``NAME:PATH`` of a built-in rule that reads a file (:attr:`AddOnRule.load`) as an
    add-on, or None when ``text`` names no such rule."""
    name, sep, path = text.partition(":")
    rule = registry.get(name.strip())
    if not sep or not isinstance(rule, AddOnRule) or rule.load is None:
        return None
    name, path = name.strip(), path.strip()
    if not path:
        raise SeatError(f"'{seat_text}': the {kind} rule '{name}' reads a file: write {name}:PATH.")
    try:
        values, rules_id = rule.load(path)
    except ValueError as e:
        raise SeatError(str(e)) from None
    if set(values) != set(rule.params):  # a programming error of the rule's loader
        raise ValueError(f"The {kind} rule '{name}' loaded other parameters than it declares.")
    params = tuple((k, float(values[k])) for k in rule.params)
    return AddOn(kind, rule, params, f"{name}:{path}", path, rules_id)


def _compile(ref: str, fns, sig) -> None:
    """Compile (or load from the cache) the decision functions a seat uses."""
    for fn in fns:
        try:
            compiled(fn, sig)
        except Exception as e:  # a user's function: one sentence, no traceback
            first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
            name = getattr(fn, "__name__", repr(fn))
            raise SeatError(f"'{ref}': {name} cannot be compiled as a decision: {first}") from None


def parse_seats(spec, n_players: int | None = None, game=None) -> list[Seat]:
    """A comma-separated string or a list of seat strings; ``n_players`` copies of one seat;
    None: the game's default seating."""
    if spec is None:
        spec = get_game(game).default_seats
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    if n_players is not None and len(items) == 1:
        items = items * n_players
    return [s if isinstance(s, Seat) else parse_seat(s, game) for s in items]


__all__ = [
    "AddOn",
    "AddOnRule",
    "Policy",
    "Seat",
    "SeatError",
    "decision",
    "parse_seat",
    "parse_seats",
]

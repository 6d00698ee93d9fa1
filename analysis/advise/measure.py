"""Measuring a target on games: each estimate and its interval (:func:`assess`: a figure's
ratio estimator, a spread's simultaneous intervals, a share of games, a quantile's order
statistics) and its confidence; each candidate's games, played once and kept
(:class:`GameStore`); a candidate measured in every field (:class:`Measured`)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..estimate import estimate, sums_from_arrays
from ..metrics import spread_row
from ..stats import LEVEL
from .constants import MAX_SHORT, MET, NOT_MET, UNDECIDED
from .targets import Target

if TYPE_CHECKING:
    from .search import AdvicePlan


# ---------------------------------------------------------------------------- measuring
def _measurer(target: Target, data: pl.DataFrame) -> Callable[[float], dict]:
    """``at(level)``: the target's measure on ``data`` with its interval at ``level`` (``value,
    low, high, method, games`` in the target's units; an end None where there is none)."""
    m = target.metric
    n = data.height
    base = {"value": math.nan, "low": None, "high": None, "method": "", "games": n}
    if m.spread:
        g = data[f"{m.name}|g"].to_numpy()
        k = int(data["n_players"].max() or 0) if n else 0
        counts = np.bincount(g[g >= 0], minlength=k)[:k] if k else []
        labels = [f"#{q}" for q in range(k)]

        def at(level):
            r = spread_row(None, m.name, counts, labels, level)
            s = m.scale
            out = {**base, "value": r["value"] * s, "method": "simultaneous intervals by game"}
            if r["ci_low"] is not None:
                out.update(low=r["ci_low"] * s, high=r["ci_high"] * s)
            return out

        return at
    y = data[f"{m.name}|y"].to_numpy().astype(float)
    x = data[f"{m.name}|x"].to_numpy().astype(float)
    f = m.figure
    if target.func is None:
        sums = sums_from_arrays(y, x)

        def at(level):
            e = estimate(sums, f.kind, f.counts, level)
            s = m.scale
            out = {**base, "value": e["value"] * s, "method": e["method"], "games": e["n"]}
            if e["ci_low"] is not None:
                out.update(low=e["ci_low"] * s, high=e["ci_high"] * s)
            return out

        return at
    ok = np.isfinite(y) & np.isfinite(x) & (x > 0)
    v = np.sort(y[ok] / x[ok] * m.scale)
    base["games"] = int(v.size)
    if target.func == "share":
        op, lo, hi = target.cond
        hit = np.ones(v.size, bool)
        if lo is not None:
            hit &= (v > lo) if op == ">" else (v >= lo)
        if hi is not None:
            hit &= (v < hi) if op == "<" else (v <= hi)
        sums = sums_from_arrays(hit, np.ones(v.size))

        def at(level):
            e = estimate(sums, "share", True, level)
            return {**base, "value": e["value"], "low": e["ci_low"], "high": e["ci_high"],
                    "method": e["method"]}  # fmt: skip

        return at

    def at(level):
        return {**base, **_quantile(v, target.q, level)} if v.size else dict(base)

    return at


def _confidence(target: Target, at: Callable[[float], dict], value: float) -> float:
    """1 - the one-sided p-value of "the target is not met": the level ``L`` at which the
    measure's two-sided interval just reaches the bound gives ``(1 + L) / 2`` (the estimate
    inside) or ``(1 - L) / 2`` (outside); for a range, the smaller of its two sides. Found by
    bisection on the same interval the verdict reads, so "met" (95% interval inside) is a
    confidence of at least 97.5%."""
    if not math.isfinite(value):
        return math.nan

    def side(bound: float, upper: bool) -> float:
        inside = value <= bound if upper else value >= bound
        end = "high" if upper == inside else "low"

        def reaches(level):  # the end has moved past the bound at this level
            e = at(level)[end]
            if e is None:  # no end there: unbounded
                return True
            return (e > bound) if end == "high" else (e < bound)

        probe = at(0.5)
        if probe["low"] is None and probe["high"] is None:  # no interval: the value is exact
            return 1.0 if inside else 0.0

        if reaches(1e-6):
            lv = 0.0
        elif not reaches(0.99999):
            return 1.0 if inside else 0.0
        else:
            lo, hi = 1e-6, 0.99999
            for _ in range(22):
                mid = (lo + hi) / 2
                lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
            lv = (lo + hi) / 2
        return (1 + lv) / 2 if inside else (1 - lv) / 2

    sides = []
    if target.high is not None:
        sides.append(side(target.high, True))
    if target.low is not None:
        sides.append(side(target.low, False))
    return min(sides)


def assess(target: Target, data: pl.DataFrame, level: float = LEVEL,
           confidence: bool = True) -> dict:  # fmt: skip
    """``target`` measured on ``data`` (one row per game, :meth:`Catalog.evaluate`'s columns):
    ``value, low, high, method, games, status, distance, margin, confidence`` in the target's
    units; ``status`` read from the ``level`` interval (:meth:`Target.judge`), ``confidence``
    (:func:`_confidence`; None unless asked)."""
    at = _measurer(target, data)
    out = at(level)
    out["status"] = target.judge(out["value"], out["low"], out["high"])
    out["distance"] = target.distance(out["value"])
    out["margin"] = target.margin(out["value"])
    out["confidence"] = _confidence(target, at, out["value"]) if confidence else None
    return out


def _quantile(v: np.ndarray, q: float, level: float) -> dict:
    """The ``q`` quantile of the sorted values ``v`` (the smallest value with at least a share
    ``q`` of the games at or below it) and its distribution-free interval: order statistics
    ``l`` and ``u`` with ``P(l <= B < u) >= level``, ``B ~ Binomial(n, q)``."""
    from scipy import stats as st

    n = v.size
    value = float(v[max(0, math.ceil(q * n) - 1)])
    a = 1 - level
    lo_k = int(st.binom.ppf(a / 2, n, q))  # the lo_k-th order statistic (1-based) ...
    hi_k = int(st.binom.ppf(1 - a / 2, n, q)) + 1
    low = float(v[lo_k - 1]) if lo_k >= 1 else None
    high = float(v[hi_k - 1]) if hi_k <= n else None
    return {"value": value, "low": low, "high": high, "method": "order statistics (exact)"}


# ---------------------------------------------------------------------------- games
class GameStore:
    """Each candidate's per-game target columns, by (rules id, seats, seed): ``get`` plays
    only the games it does not have (and keeps them under ``OUT/games/`` when ``out`` is
    given, so a later run reads them instead). ``played`` counts the games the answer's
    history needs (the same when it is replayed from disk); ``simulated`` those this process
    played."""

    def __init__(self, p: AdvicePlan, out: Path | None):
        self.plan, self.out = p, out
        self.disk: dict[str, pl.DataFrame] = {}
        self.have: dict[str, int] = {}
        self.played = 0
        self.simulated = 0

    @staticmethod
    def key(rules_id: str, seats: str, seed: int) -> str:
        return f"{rules_id}|{seats}|{seed}"

    def _path(self, key: str) -> Path | None:
        if self.out is None:
            return None
        h = hashlib.sha1(key.encode()).hexdigest()[:20]
        return self.out / "games" / f"{h}.parquet"

    def _load(self, key: str) -> pl.DataFrame | None:
        if key in self.disk:
            return self.disk[key]
        p = self._path(key)
        if p is not None and p.exists():
            try:
                df = pl.read_parquet(p)
                if df.height and df["game"].to_list() == list(range(df.height)):
                    self.disk[key] = df
                    return df
            except Exception:  # a damaged file of an interrupted write: played again
                pass
        return None

    def missing(self, key: str, n: int) -> int:
        """Games the history still needs for ``n`` games of ``key``."""
        return max(0, n - self.have.get(key, 0))

    def get(self, rules, seats: str, seed: int, n: int) -> pl.DataFrame:
        from sim.runner import simulate

        key = self.key(rules.id, seats, seed)
        self.played += self.missing(key, n)
        self.have[key] = max(self.have.get(key, 0), n)
        df = self._load(key)
        have = 0 if df is None else df.height
        if have < n:
            res = simulate(rules, seats, games=n - have, seed=seed, start=have,
                           threads=self.plan.threads)  # fmt: skip
            self.simulated += n - have
            more = self.plan.catalog.evaluate(res.games, res.seats, self.plan.metrics)
            df = more if df is None else pl.concat([df, more], how="vertical_relaxed")
            self.disk[key] = df
            p = self._path(key)
            if p is not None:
                from sim.files import atomic_output

                with atomic_output(p) as tmp:
                    df.write_parquet(tmp)
        return df.head(n)


# ---------------------------------------------------------------------------- judging
def _overall(statuses: Sequence[str]) -> str:
    if all(s == MET for s in statuses):
        return MET
    if any(s == NOT_MET for s in statuses):
        return NOT_MET
    return UNDECIDED


@dataclass
class Measured:
    """One candidate measured on some games in every field: ``by_field[field][target text]`` is
    :func:`assess`'s dict."""

    values: dict
    rules_id: str
    games: int
    by_field: dict[str, dict[str, dict]]

    def status(self, t: Target) -> str:
        return _overall([f[t.text]["status"] for f in self.by_field.values()])

    def worst(self, t: Target) -> dict:
        """The field whose estimate is furthest outside (or least inside) the bound."""
        return min(self.by_field.values(), key=lambda f: f[t.text]["margin"] / t.width)[t.text]

    def shortfall(self, targets) -> float:
        """The targets' shortfalls summed, each in widths of its target (:attr:`Target.width`;
        a figure these games cannot measure, such as the comeback where nobody rebought, counts
        :data:`MAX_SHORT`)."""
        return sum(min(self.worst(t)["distance"] / t.width, MAX_SHORT) for t in targets)

    def margin(self, targets) -> float:
        return min(self.worst(t)["margin"] / t.width for t in targets)

    def objective(self, targets) -> float:
        s = self.shortfall(targets)
        return s if s > 0 else -min(self.margin(targets), 1.0)


def measure(p: AdvicePlan, store: GameStore, values: dict, rules, seed: int, n: int,
            level: float) -> Measured:  # fmt: skip
    by = {}
    for f, seats in p.fields.items():
        data = store.get(rules, seats, seed, n)
        by[f] = {t.text: assess(t, data, level, level == LEVEL) for t in p.targets}
    return Measured(values, rules.id, n, by)


def setting_text(values: dict) -> str:
    from sim.rules import fmt_value

    return ",".join(f"{k}={fmt_value(v)}" for k, v in values.items())


def _frame(rows: list[dict]) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame()
    cols = list(dict.fromkeys(k for r in rows for k in r))
    return pl.DataFrame([{c: r.get(c) for c in cols} for r in rows], infer_schema_length=None)

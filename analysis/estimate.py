"""One variance model for every figure the analysis shows: the game is the independent unit.

A figure is a ratio of per-game sums, ``R = sum(y) / sum(x)`` over a group's games: ``x = 1``
for a mean per game (rounds per game), a count of sub-game units for a share or mean over them
(void rounds over rounds, eliminations over player-rounds at risk, wins of a policy over its
seats, a rebuy decision's value over a game's decisions). Rounds, seats, busts, hands and
decisions of one game are not independent draws, so every interval is formed from the games:

- **enough events** (at least :data:`MIN_GAMES` games with an event and, for a share, as many
  without): ``R ± t(n-1) · se`` with the delta-method (ratio-estimator) standard error
  ``se = sd(z) / sqrt(n)``, ``z = (y - R x) / mean(x)`` per game — for a mean per game
  (``x = 1``) this is the ordinary t interval; clipped to [0, 1] for shares and at 0 for
  counts;
- **few events** (a count or share of events that fewer than :data:`MIN_GAMES` games had, or
  that fewer lacked): an exact interval from the per-game totals, never one of zero width —
  Clopper–Pearson for the share of games that had an event, times the events such a game
  had (:func:`exact_interval`);
- **every game agrees** (every game's ``z`` is 0 although events occur: fixed by construction,
  such as the win share of a policy that holds every seat or the net of a zero-sum table, or
  simply the same in every game): shown without an interval, never a zero-width one.

Differences (:func:`diff_unpaired`, :func:`diff_paired`) follow the same rules: the paired
difference of the per-game ``z`` when two variants played the same seeds, the independent
one (MOVER: each side's own interval combined, Newcombe's construction) otherwise, and an exact
conditional test where events are few — "too few events to compare" where even the most
lopsided split of the events could not be told from chance. Families of differences are
corrected with Holm's method (:func:`analysis.stats.adjust_pvalues`).

Only sums go through polars (``sum y, x, y², x², xy``, the count of games and of games with
and without an event), so a figure over millions of games is aggregated lazily.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as _st

from .stats import LEVEL

MIN_GAMES = 10
"""Fewer games than this with an event (or, for a share, without one): an exact interval."""

NORMAL = "ratio estimator, clustered by game"
EXACT = "exact (Clopper-Pearson over the games with an event), few events"
FIXED = "no interval: every game agrees"
NO_UNITS = "no units"

TOO_FEW = "too few events to compare"
SAME = "the same in every game"

_SUMS = ("n", "sy", "sx", "syy", "sxx", "sxy", "pos", "short")


@dataclass(frozen=True)
class Figure:
    """One figure: its name (the metric), unit, per-game ``y`` and ``x`` expressions over a
    per-game frame, ``kind`` (``share`` or ``mean``), whether ``y`` counts events (whole
    numbers; few events get an exact interval) and the reference it is read against (a fair
    share), if any: a number, or a per-game expression whose mean over the games is it."""

    name: str
    unit: str
    y: pl.Expr
    x: pl.Expr
    kind: str = "mean"
    counts: bool = False
    reference: float | pl.Expr | None = None


def per_game_columns(figures) -> list[pl.Expr]:
    """The ``"<name>|y"`` / ``"<name>|x"`` columns (float) of every figure."""
    out = []
    for f in figures:
        out += [
            f.y.cast(pl.Float64).alias(f"{f.name}|y"),
            f.x.cast(pl.Float64).alias(f"{f.name}|x"),
        ]
        if isinstance(f.reference, pl.Expr):
            out.append(f.reference.cast(pl.Float64).alias(f"{f.name}|ref"))
    return out


def sum_exprs(name: str) -> list[pl.Expr]:
    """The sums one figure's estimate needs, from its per-game ``|y``/``|x`` columns."""
    y = pl.col(f"{name}|y").fill_null(0.0)
    x = pl.col(f"{name}|x").fill_null(0.0)
    return [
        pl.len().cast(pl.Int64).alias(f"{name}|n"),
        y.sum().alias(f"{name}|sy"),
        x.sum().alias(f"{name}|sx"),
        (y * y).sum().alias(f"{name}|syy"),
        (x * x).sum().alias(f"{name}|sxx"),
        (x * y).sum().alias(f"{name}|sxy"),
        (y > 0).sum().cast(pl.Int64).alias(f"{name}|pos"),
        (y < x).sum().cast(pl.Int64).alias(f"{name}|short"),
    ]


def sums_of(row: dict, name: str) -> dict:
    return {k: row[f"{name}|{k}"] for k in _SUMS}


def sums_from_arrays(y, x) -> dict:
    """The sums of :func:`sum_exprs` from two arrays of per-game values."""
    y = np.nan_to_num(np.asarray(y, dtype=float))
    x = np.nan_to_num(np.asarray(x, dtype=float))
    return {
        "n": int(y.size),
        "sy": float(y.sum()),
        "sx": float(x.sum()),
        "syy": float((y * y).sum()),
        "sxx": float((x * x).sum()),
        "sxy": float((x * y).sum()),
        "pos": int((y > 0).sum()),
        "short": int((y < x).sum()),
    }


def _tq(n: int, level: float) -> float:
    return float(_st.t.ppf(0.5 + level / 2, max(n - 1, 1)))


def ratio_se(s: dict) -> float:
    """The delta-method standard error of ``sum(y) / sum(x)`` from the sums, by game."""
    n, sx = s["n"], s["sx"]
    if n < 2 or sx <= 0:
        return math.nan
    r = s["sy"] / sx
    ss = s["syy"] - 2 * r * s["sxy"] + r * r * s["sxx"]  # sum of (y - R x)^2
    mx = sx / n
    var = max(ss, 0.0) / (n - 1) / (mx * mx)
    se = math.sqrt(var / n)
    # the sums cancel to rounding error when every z is 0: call that 0
    scale = max(abs(s["syy"]), r * r * abs(s["sxx"]), 1e-300)
    return 0.0 if ss <= 1e-12 * scale else se


def few_events(s: dict, kind: str) -> bool:
    """True when too few games had an event (or, for a share, lacked one) for the normal
    interval: the exact one is used."""
    if s["pos"] < MIN_GAMES:
        return True
    return kind == "share" and s["short"] < MIN_GAMES


def clopper_pearson(k: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval for ``k`` successes of ``n``."""
    k, n = int(round(k)), int(round(n))
    if n <= 0:
        return (math.nan, math.nan)
    k = min(max(k, 0), n)
    a = 1 - level
    lo = 0.0 if k == 0 else float(_st.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.ppf(1 - a / 2, k + 1, n - k))
    return (lo, hi)


def poisson_exact(k: float, exposure: float, level: float = LEVEL) -> tuple[float, float]:
    """Exact (Garwood) interval for a rate: ``k`` events over ``exposure`` units."""
    k = int(round(k))
    a = 1 - level
    lo = 0.0 if k == 0 else float(_st.chi2.ppf(a / 2, 2 * k)) / 2
    return (lo / exposure, float(_st.chi2.ppf(1 - a / 2, 2 * k + 2)) / 2 / exposure)


def exact_interval(s: dict, kind: str, level: float = LEVEL) -> tuple[float, float]:
    """The interval of few events, from the games: ``pos`` of ``n`` games had an event
    (Clopper–Pearson), each such game ``sum(y) / pos`` events (1 where none had any), and
    ``n / sum(x)`` games per unit. For a share whose *non*-events are few, the same for
    ``1 - R`` from the games that fell short of a full share. Widened, where it is narrower, to
    the exact interval of the unit totals (Clopper–Pearson of ``sum(y)`` in ``sum(x)``, or
    exact Poisson for a count): with very few games the games alone say too little."""
    n, sy, sx = s["n"], s["sy"], s["sx"]
    if kind == "share" and s["short"] < s["pos"]:
        miss = sx - sy
        per = miss / s["short"] if s["short"] else 1.0
        lo, hi = clopper_pearson(s["short"], n, level)
        lo, hi = max(0.0, 1 - per * hi * n / sx), min(1.0, 1 - per * lo * n / sx)
    else:
        per = sy / s["pos"] if s["pos"] else 1.0
        lo, hi = clopper_pearson(s["pos"], n, level)
        lo, hi = per * lo * n / sx, per * hi * n / sx
    ulo, uhi = clopper_pearson(sy, sx, level) if kind == "share" else poisson_exact(sy, sx, level)
    lo, hi = min(lo, ulo), max(hi, uhi)
    return (lo, min(hi, 1.0) if kind == "share" else hi)


def estimate(s: dict, kind: str = "mean", counts: bool = False, level: float = LEVEL) -> dict:
    """``value, ci_low, ci_high, se, n, units, k, method`` of one figure from its sums
    (``n``: games; ``units``: ``sum(x)``; ``k``: the events, ``sum(y)``, for a figure that
    counts them; ``ci_low``/``ci_high`` None where the figure is fixed by construction or has
    no units)."""
    n, sy, sx = int(s["n"] or 0), float(s["sy"] or 0.0), float(s["sx"] or 0.0)
    out = {"value": math.nan, "ci_low": None, "ci_high": None, "se": None, "n": n,
           "units": sx, "k": sy if counts else None, "method": NO_UNITS}  # fmt: skip
    if n == 0 or sx <= 0:
        return out
    r = sy / sx
    out["value"] = r
    se = ratio_se(s)
    if se == 0.0 and r > 0 and (kind != "share" or r < 1):  # events vary, every game agrees
        out.update(method=FIXED, se=0.0)
        return out
    if counts and few_events(s, kind):
        lo, hi = exact_interval(s, kind, level)
        z = float(_st.norm.ppf(0.5 + level / 2))
        out.update(ci_low=lo, ci_high=hi, se=(hi - lo) / (2 * z), method=EXACT)
        return out
    if se == 0.0:  # no events at all in a figure that does not count them
        out.update(method=FIXED, se=0.0)
        return out
    if not math.isfinite(se):
        return out
    h = _tq(n, level) * se
    lo, hi = r - h, r + h
    if kind == "share":
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    elif counts:
        lo = max(lo, 0.0)
    out.update(ci_low=lo, ci_high=hi, se=se, method=NORMAL)
    return out


def estimates(per_game, figures, by=("variant",), level: float = LEVEL) -> pl.DataFrame:
    """Long table, one row per group of ``by`` and figure: ``*by, metric, unit, kind, value,
    ci_low, ci_high, se, n, units, k, method, reference``; ``per_game``: a (lazy) frame with the
    figures' ``|y``/``|x`` columns, one row per game (or per game and group)."""
    by = list(by)
    lf = per_game.lazy() if isinstance(per_game, pl.DataFrame) else per_game
    aggs = [e for f in figures for e in sum_exprs(f.name)]
    aggs += [pl.col(f"{f.name}|ref").mean() for f in figures if isinstance(f.reference, pl.Expr)]
    from .io import collect

    agg = collect(lf.group_by(by, maintain_order=True).agg(aggs))
    rows = []
    for a in agg.iter_rows(named=True):
        for f in figures:
            e = estimate(sums_of(a, f.name), f.kind, f.counts, level)
            ref = a[f"{f.name}|ref"] if isinstance(f.reference, pl.Expr) else f.reference
            rows.append({**{b: a[b] for b in by}, "metric": f.name, "unit": f.unit,
                         "kind": f.kind, **e, "reference": ref})  # fmt: skip
    schema = {**{b: agg.schema[b] for b in by}, **ESTIMATE_SCHEMA}
    return pl.DataFrame(rows, schema=schema)


ESTIMATE_SCHEMA = {
    "metric": pl.String,
    "unit": pl.String,
    "kind": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "se": pl.Float64,
    "n": pl.Int64,
    "units": pl.Float64,
    "k": pl.Float64,
    "method": pl.String,
    "reference": pl.Float64,
}


# ------------------------------------------------------------------ differences
def _exact_events_p(ka: float, xa: float, kb: float, xb: float) -> tuple[float | None, float]:
    """The exact conditional test of equal rates: given ``ka + kb`` events, ``ka`` is binomial
    with ``p = xa / (xa + xb)``. Returns (p-value, the smallest p any split of the events
    could give)."""
    ka, kb = int(round(ka)), int(round(kb))
    k = ka + kb
    q = xa / (xa + xb)
    if k == 0:
        return (None, 1.0)
    p = float(_st.binomtest(ka, k, q).pvalue)
    best = min(float(_st.binomtest(0, k, q).pvalue), float(_st.binomtest(k, k, q).pvalue))
    return (p, best)


def _few(a: dict, b: dict, kind: str, level: float) -> tuple[float | None, str]:
    """p-value and method of the difference of two figures when either has few events: the
    exact conditional test on the games with an event (or, for a share near 1, the games
    short of it); p None when no split of so few games could be told from chance."""
    near_one = kind == "share" and min(a["short"], b["short"]) < min(a["pos"], b["pos"])
    key = "short" if near_one else "pos"
    p, best = _exact_events_p(a[key], a["n"], b[key], b["n"])
    if p is None or best >= 1 - level:
        return (None, TOO_FEW)
    return (p, "exact conditional test (few events)")


def mover(ea: dict, eb: dict) -> tuple[float, float]:
    """The interval of ``a - b`` from each side's own interval (MOVER, Newcombe's hybrid
    construction: it is the normal interval of the difference when both are symmetric)."""
    va, la, ha = ea["value"], ea["ci_low"], ea["ci_high"]
    vb, lb, hb = eb["value"], eb["ci_low"], eb["ci_high"]
    if la is None:
        la = ha = va  # fixed by construction: no uncertainty on this side
    if lb is None:
        lb = hb = vb
    d = va - vb
    return (d - math.hypot(va - la, hb - vb), d + math.hypot(ha - va, vb - lb))


def diff_unpaired(sa: dict, sb: dict, kind: str, counts: bool, level: float = LEVEL) -> dict:
    """``diff, diff_low, diff_high, p_value, method, note`` of figure ``a`` minus figure ``b``
    from their sums, as independent samples of games."""
    ea, eb = estimate(sa, kind, counts, level), estimate(sb, kind, counts, level)
    out = {"diff": ea["value"] - eb["value"], "diff_low": None, "diff_high": None,
           "p_value": None, "method": "independent runs", "note": ""}  # fmt: skip
    if not (math.isfinite(ea["value"]) and math.isfinite(eb["value"])):
        out["note"] = "cannot tell"
        return out
    if ea["method"] == FIXED and eb["method"] == FIXED:  # both agree in every game
        if out["diff"] == 0:
            out.update(note=SAME, method=FIXED)
        else:
            out.update(p_value=0.0, method=FIXED)
        return out
    lo, hi = mover(ea, eb)
    out.update(diff_low=lo, diff_high=hi)
    if counts and (few_events(sa, kind) or few_events(sb, kind)):
        p, method = _few(sa, sb, kind, level)
        out.update(p_value=p, method=method, note=TOO_FEW if p is None else "")
        return out
    se = math.hypot(ea["se"] or 0.0, eb["se"] or 0.0)
    d = out["diff"]
    out["p_value"] = (1.0 if d == 0 else 0.0) if se == 0 else float(2 * _st.norm.sf(abs(d) / se))
    return out


def diff_paired(ya, xa, yb, xb, kind: str, counts: bool, level: float = LEVEL) -> dict:
    """The same keys as :func:`diff_unpaired` for two variants measured on the same games
    (game ``i`` of each from the same seed): the t interval of the per-game differences of
    the linearised ``z = (y - R x) / mean(x)`` (for ``x = 1`` the ordinary paired t)."""
    ya, xa, yb, xb = (np.nan_to_num(np.asarray(v, dtype=float)) for v in (ya, xa, yb, xb))
    n = int(ya.size)
    sa, sb = sums_from_arrays(ya, xa), sums_from_arrays(yb, xb)
    out = {"diff": math.nan, "diff_low": None, "diff_high": None, "p_value": None,
           "method": "paired (same seeds, per game)", "note": ""}  # fmt: skip
    if n < 2 or xa.sum() <= 0 or xb.sum() <= 0:
        out["note"] = "cannot tell"
        return out
    ra, rb = ya.sum() / xa.sum(), yb.sum() / xb.sum()
    d = float(ra - rb)
    out["diff"] = d
    dz = (ya - ra * xa) / xa.mean() - (yb - rb * xb) / xb.mean()
    scale = max(float(np.abs(ya).max()), float(np.abs(yb).max()), 1e-300)
    few = counts and (few_events(sa, kind) or few_events(sb, kind))
    if np.all(np.abs(dz) <= 1e-12 * scale):
        if np.array_equal(ya, yb) and np.array_equal(xa, xb):
            out["note"] = SAME  # no interval: the two variants agree game by game
            return out
        if not few:  # a constant shift in every game: certain, but no interval to state
            out.update(p_value=1.0 if d == 0 else 0.0)
            return out
    if few:
        ea, eb = estimate(sa, kind, counts, level), estimate(sb, kind, counts, level)
        lo, hi = mover(ea, eb)
        p, method = _few(sa, sb, kind, level)
        out.update(diff_low=lo, diff_high=hi, p_value=p, method=method,
                   note=TOO_FEW if p is None else "")  # fmt: skip
        return out
    se = float(dz.std(ddof=1)) / math.sqrt(n)
    h = _tq(n, level) * se
    out.update(diff_low=d - h, diff_high=d + h, p_value=float(2 * _st.t.sf(abs(d) / se, n - 1)))
    return out


def verdict(diff, p_adjusted, note: str = "", alpha: float = 1 - LEVEL) -> str:
    """How a difference reads after the family's correction: ``higher`` / ``lower`` when its
    adjusted p-value is below ``alpha``, else ``no detectable difference``; the ``note`` (too
    few events, fixed by construction, the same in every game, cannot tell) where there is
    no test."""
    if note:
        return note
    if p_adjusted is None or (isinstance(p_adjusted, float) and math.isnan(p_adjusted)):
        return "cannot tell"
    if p_adjusted < alpha:
        return "higher" if diff > 0 else "lower"
    return "no detectable difference"


def wide(per_game, by, figures, names: dict, level: float = LEVEL) -> pl.DataFrame:
    """One row per group of ``by`` with each figure's estimate as columns: ``names`` maps a
    figure's name to the (value, low, high) column names it gets. ``per_game``: a frame with
    the ``by`` columns and the figures' per-game columns (:func:`per_game_columns`), one row
    per game (or per game and group)."""
    by = list(by)
    est = estimates(per_game, figures, by, level)
    out = None
    for f in figures:
        v, lo, hi = names[f.name]
        part = est.filter(pl.col("metric") == f.name).select(
            *by, pl.col("value").alias(v), pl.col("ci_low").alias(lo), pl.col("ci_high").alias(hi)
        )
        out = part if out is None else out.join(part, on=by, how="full", coalesce=True)
    return out


def scaled(e: dict, k: float) -> dict:
    """The estimate ``e`` (:func:`estimate`) of ``k`` times its figure (``k > 0``): a run's
    total over ``k`` games from its mean per game. The same interval, in the total's units."""
    out = dict(e)
    for key in ("value", "ci_low", "ci_high", "se"):
        if out.get(key) is not None:
            out[key] = out[key] * k
    return out


def game_share(k: int, n: int, level: float = LEVEL) -> tuple[float | None, float | None]:
    """(low, high) of the share of ``n`` games in which something happened ``k`` times (each
    game once or not at all: a per-game 0/1 figure, whose sums follow from the two counts)."""
    k, n = int(k or 0), int(n or 0)
    s = {"n": n, "sy": k, "sx": n, "syy": k, "sxx": n, "sxy": k, "pos": k, "short": n - k}
    e = estimate(s, "share", True, level)
    return (e["ci_low"], e["ci_high"])

"""The house-rules advisor: which rules meet what a group wants?

**Targets.** A target is a metric, a comparison and a bound (:func:`parse_target`)::

    rounds_per_game in 8..12            a figure inside a range (both ends included)
    seat_spread <= 1.0                  at most (``<`` reads as ``<=``: estimates are
    comeback >= 0.15                    continuous), at least
    share(rounds_per_game in 8..12) >= 0.7   the share of games whose own value is in a range
    share(minutes <= 45) >= 0.9              (or below / above a bound: ``<`` is strict here)
    q90(rounds_per_game) <= 15          a quantile of the games' values (``median`` = q50)

A metric is named by a short name of the game's registration (:class:`analysis.bygame.
TargetSpec`: ``rounds_per_game``, ``comeback``, ``hands_per_game``...), by the name ``loba
summarize`` prints (``"rounds per game"``) or that name in snake case. Shares are fractions
(``0.15``), spreads and edges percentage points (``seat_spread <= 1.0``), ``minutes`` the
turns per game times ``seconds_per_turn`` (the game's default, or the targets file's). Every
estimate is the project's (:mod:`analysis.estimate`: a ratio of per-game sums, its interval
by game); a spread's interval is :func:`analysis.metrics.spread_row`'s; a share of games is a
per-game 0/1 figure; a quantile's interval is the distribution-free one of order statistics
(the games are independent draws).

**Search.** The knobs (``--vary KNOB=LO..HI`` or ``KNOB=A,B,C``; none named: the game's
default space) are searched with Optuna's TPE sampler, seeded, with each target a constraint
(:func:`run_advise`): a trial's objective is the sum of its targets' shortfalls (each in units
of the target's own width, so targets of different units weigh alike) minus, once every target
is met, the smallest margin by which one is. Every candidate plays the same games (common random
numbers: games 0.. of the seed, in every field), in rungs of 1/8, 1/4, 1/2 and all of a trial's
games; after each rung a candidate whose 99% interval lies wholly outside a target, in any
field, stops (racing) — a target that some candidate played in full has met: one that no
candidate meets stops nobody, so the closest settings are measured in full. The budget
(``--budget``, games played in all, search and verification) sets the games of a full trial
(a sixteenth of three quarters of it, per field); the search stops when the next rung would
pass its share, or when every candidate of a finite space has been played (the games it
leaves go to the verification).

**Verification.** The best distinct candidates (:data:`TOP`) play fresh games (games 0.. of a
seed the search never used, :func:`analysis.tune.fresh_seed`), the rest of the budget shared
between them, in every field. Each target's estimate gets its 95% interval; the target is
*met* when the interval lies wholly inside the bound, *not met* when wholly outside, else
*undecided*; so a target that is not met reads "met" with a chance of at most 2.5% (one-sided).
The *confidence* beside it is one minus the one-sided p-value of "the target is not met" (from
the estimate's standard error; for a range, the smaller of its two sides). With fields
(``--field``), a target is met only if it is in every field. The verified candidates are
ranked: fewest targets not met, fewest undecided, smallest shortfall, largest margin.

**Reproducible and resumable.** Every game's per-target values are kept under
``OUT/games/`` as they are played; the same command on the same ``OUT`` replays the search
from them (the sampler, seeded, proposes the same candidates) and plays only what is missing,
so an interrupted advise resumes and the same seed gives the same answer.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .errors import AnalysisError
from .estimate import Figure, estimate, per_game_columns, sums_from_arrays
from .metrics import M_SEAT_SPREAD, M_UNFINISHED, prep, spread_row, with_seed
from .stats import LEVEL

ADVISE_VERSION = 1  # bumped when the same question would be answered differently
RACE_LEVEL = 0.99  # a candidate stops when a target's interval at this level is outside
TOP = 3  # candidates verified on fresh games
VERIFY_SHARE = 0.25  # of the budget kept for the verification
TRIALS_PER_BUDGET = 16  # full trials the search budget pays for (racing stretches it)
RUNGS = 4
MIN_TRIAL_GAMES = 80  # per field
MIN_VERIFY_GAMES = 100  # per candidate and field
MAX_TRIALS = 2000
MAX_IDLE = 40  # consecutive trials that play nothing (repeats): the sampler is done
MAX_SHORT = 10.0  # the largest shortfall one target adds to the objective, in its widths
MET, NOT_MET, UNDECIDED = "met", "not met", "undecided"
FILES = ("advise.json", "study.parquet", "study.csv", "targets.parquet", "verification.csv",
         "advice.json", "advice.txt", "advised.toml")  # fmt: skip

__all__ = [
    "AdvicePlan",
    "AdviceResult",
    "Axis",
    "Catalog",
    "Target",
    "advise",
    "assess",
    "catalog",
    "check",
    "check_text",
    "parse_target",
    "parse_targets",
    "plan",
    "read_advice",
    "read_targets_file",
    "run_advise",
]


# ---------------------------------------------------------------------------- metrics
def snake(text: str) -> str:
    """``"rounds per game"`` -> ``rounds_per_game`` (lower case, other characters ``_``)."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


@dataclass(frozen=True)
class Metric:
    """A targetable metric: its figure (or spread) name, the name targets show it by, its unit
    and the factor from the figure's value to that unit; ``figure`` (per-game ``y``/``x``) or
    ``group`` (a spread: the winner's group per game)."""

    name: str
    short: str
    unit: str
    scale: float = 1.0
    figure: Figure | None = None
    group: pl.Expr | None = None
    about: str = ""

    @property
    def spread(self) -> bool:
        return self.group is not None

    @property
    def per_game(self) -> bool:
        """Whether each game has a value of its own (share(...) and quantiles need one)."""
        return self.figure is not None


M_MINUTES = "minutes per game"


def _generic_frame(games, seats) -> pl.DataFrame:
    from .io import collect

    return collect(with_seed(prep(games))).sort("game")


def _generic_figures(policies=()) -> list[Figure]:
    fin = pl.col("winner").is_not_null()
    return [Figure(M_UNFINISHED, "share", ~fin, pl.lit(1.0), "share", True)]


@dataclass
class Catalog:
    """Every metric a target may name in one game (:func:`catalog`): ``metrics`` by figure
    name, ``names`` every accepted spelling -> figure name, and how a game is evaluated."""

    game: str
    title: str
    metrics: dict[str, Metric]
    names: dict[str, str]
    short: list[str]
    frame: Callable
    seconds_per_turn: float | None
    turn: str

    def resolve(self, name: str) -> Metric:
        key = str(name).strip().strip("'\"").strip()
        for k in (key, key.lower(), snake(key)):
            if k in self.names:
                return self.metrics[self.names[k]]
        raise AnalysisError(
            f"Unknown metric '{name}': {self.title}'s targets are {', '.join(self.short)}"
            " (or any figure 'loba summarize' prints, by its name)."
        )

    def evaluate(self, games, seats, metrics: Sequence[Metric], keep=()) -> pl.DataFrame:
        """One row per game (``game``, ``n_players`` and the frame's columns ``keep``, e.g.
        ``variant``) with each metric's per-game columns: ``NAME|y`` and ``NAME|x`` of a
        figure, ``NAME|g`` (the winner's group, -1 when unfinished) of a spread."""
        df = self.frame(games, seats)
        cols = [pl.col(k) for k in keep]
        cols += [pl.col("game").cast(pl.Int64), pl.col("n_players").cast(pl.Int64)]
        figs = [m.figure for m in metrics if m.figure is not None]
        cols += per_game_columns(figs)
        cols += [
            m.group.cast(pl.Int64).fill_null(-1).alias(f"{m.name}|g") for m in metrics if m.spread
        ]
        return df.select(cols)


def catalog(game=None, policies=(), seconds_per_turn: float | None = None) -> Catalog:
    """The targetable metrics of ``game`` (a name or spec; None: the default game), from its
    analysis registration (:attr:`analysis.bygame.GameAnalysis.targets`), with ``policies``
    (the seated policies: ``games won by POLICY``) and ``seconds_per_turn`` (None: the game's
    default) for ``minutes``. A game without one has its unfinished share and seat spread."""
    from sim.games import get_game

    from .bygame import for_game

    spec = get_game(game)
    ga = for_game(spec)
    ts = ga.targets if ga is not None else None
    if ts is not None:
        frame, figs, names = ts.frame, ts.figures(list(policies)), dict(ts.names)
        spreads, scale, about = dict(ts.spreads), dict(ts.scale), dict(ts.about)
        turns, turn = ts.turns, ts.turn
        spt = ts.seconds_per_turn if seconds_per_turn is None else seconds_per_turn
    else:
        frame, figs = _generic_frame, _generic_figures()
        names = {"unfinished": M_UNFINISHED, "seat_spread": M_SEAT_SPREAD}
        spreads, scale, about = {}, {M_SEAT_SPREAD: 100.0}, {}
        turns, turn, spt = None, "turn", seconds_per_turn
    spreads.setdefault(M_SEAT_SPREAD, pl.col("winner"))
    scale.setdefault(M_SEAT_SPREAD, 100.0)
    names.setdefault("seat_spread", M_SEAT_SPREAD)
    metrics: dict[str, Metric] = {}
    short_of = {v: k for k, v in names.items()}
    for f in figs:
        unit = "pts" if scale.get(f.name) == 100.0 else f.unit
        short = short_of.get(f.name, snake(f.name))
        metrics[f.name] = Metric(f.name, short, unit, scale.get(f.name, 1.0), figure=f,
                                 about=about.get(f.name, ""))  # fmt: skip
    for name, expr in spreads.items():
        short = short_of.get(name, snake(name))
        metrics[name] = Metric(name, short, "pts", scale.get(name, 100.0), group=expr,
                               about=about.get(name, ""))  # fmt: skip
    if turns is not None and spt is not None:
        fig = Figure(M_MINUTES, "minutes", turns, pl.lit(1.0))
        metrics[M_MINUTES] = Metric(
            M_MINUTES, "minutes", "minutes", float(spt) / 60, figure=fig,
            about=f"{turn}s per game x {spt:g} s / 60",
        )  # fmt: skip
        names["minutes"] = M_MINUTES
    spell: dict[str, str] = {}
    for n in metrics:
        spell.setdefault(n, n)
        spell.setdefault(n.lower(), n)
        spell.setdefault(snake(n), n)
    for short, n in names.items():
        if n in metrics:
            spell[short] = n
    short = [s for s, n in names.items() if n in metrics]
    return Catalog(spec.name, spec.title, metrics, spell, short, frame,
                   None if spt is None else float(spt), turn)  # fmt: skip


# ---------------------------------------------------------------------------- targets
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"\s*({_NUM})\s*\.\.\s*({_NUM})\s*")
_FUNC = re.compile(r"\s*(share|median|[qp](\d{1,2}))\s*\((.*)\)\s*", re.IGNORECASE | re.DOTALL)
_OPS = ("<=", ">=", "<", ">", "==", "=")
GRAMMAR = (
    "METRIC in LO..HI, METRIC <= X, METRIC >= X, share(METRIC in LO..HI) >= P or q90(METRIC) <= X"
)


def _split(text: str) -> tuple[str, str, str] | None:
    """(left, operator, right) at the last operator outside parentheses: ``in`` (a word),
    ``<=``, ``>=``, ``<``, ``>`` (and ``=``/``==``, refused later); None if there is none."""
    depth, found = 0, None
    i = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            m = re.match(r"\s+in\s+", text[i:])
            if m and i > 0:
                found = (i, i + m.end(), "in")
                i += m.end()
                continue
            for op in _OPS:
                if text.startswith(op, i):
                    found = (i, i + len(op), op)
                    i += len(op) - 1
                    break
        i += 1
    if found is None:
        return None
    a, b, op = found
    return text[:a].strip(), op, text[b:].strip()


def _number(text: str, what: str, head: str = "Target") -> float:
    if not re.fullmatch(_NUM, text.strip()):
        raise AnalysisError(f"{head} '{what}': '{text}' is not a number.")
    v = float(text)
    if not math.isfinite(v):
        raise AnalysisError(f"{head} '{what}': the bounds must be finite numbers.")
    return v


def _bounds(op: str, rhs: str, what: str,
            head: str = "Target") -> tuple[str, float | None, float | None]:  # fmt: skip
    """(op as kept: in, <=, >=, <, >), low, high; ``head`` names the text in an error
    (``Target``, ``--share``)."""
    if op in ("=", "==") and head == "--share":
        raise AnalysisError(
            f"{head} '{what}': write a range or a bound; a game's value of exactly X is"
            " METRIC in X..X."
        )
    if op in ("=", "=="):
        raise AnalysisError(
            f"{head} '{what}': an estimate never equals a number exactly; give a range"
            " (METRIC in LO..HI) or a bound (<=, >=)."
        )
    if op == "in":
        m = _RANGE.fullmatch(rhs)
        if not m:
            raise AnalysisError(f"{head} '{what}': '{rhs}' is not a range LO..HI such as 8..12.")
        lo, hi = _number(m.group(1), what, head), _number(m.group(2), what, head)
        if lo > hi:
            raise AnalysisError(f"{head} '{what}': the low end of {rhs} is above the high end.")
        return "in", lo, hi
    v = _number(rhs, what, head)
    return (op, None, v) if op in ("<=", "<") else (op, v, None)


@dataclass(frozen=True)
class Target:
    """One target: its metric, what is measured of it (``func`` None: the figure; ``share``:
    the share of games whose own value meets ``cond``; ``quantile``: the ``q`` quantile of the
    games' values) and the bound the measure must meet (``op`` ``in``, ``<=`` or ``>=``,
    ``low``/``high``)."""

    metric: Metric
    op: str
    low: float | None
    high: float | None
    func: str | None = None
    q: float | None = None
    cond: tuple[str, float | None, float | None] | None = None

    @property
    def measure(self) -> str:
        m = self.metric.short
        if self.func == "share":
            return f"share({m} {_cond_text(self.cond)})"
        if self.func == "quantile":
            return f"q{round(self.q * 100)}({m})"
        return m

    @property
    def text(self) -> str:
        return f"{self.measure} {_cond_text((self.op, self.low, self.high))}"

    @property
    def unit(self) -> str:
        return "share" if self.func == "share" else self.metric.unit

    def words(self) -> str:
        """What is measured, in words: ``rounds per game``, ``the share of games with rounds
        per game in 8..12``, ``the 90th percentile of rounds per game``."""
        name = self.metric.name
        if self.func == "share":
            return f"the share of games with {name} {_cond_text(self.cond)}"
        if self.func == "quantile":
            q = round(self.q * 100)
            return "the median of " + name if q == 50 else f"the {_ordinal(q)} percentile of {name}"
        return name

    @property
    def width(self) -> float:
        """The unit a shortfall or a margin is measured in: the half-width of a range, else the
        bound's size (1 for a bound of 0; 0.1 for a share of games)."""
        if self.op == "in":
            w = (self.high - self.low) / 2
            return w if w > 0 else max(abs(self.high), 1.0) * 0.05
        b = self.low if self.high is None else self.high
        if self.func == "share":
            return 0.1
        return abs(b) if b else 1.0

    def distance(self, v: float) -> float:
        """How far ``v`` is outside the bound (0 inside), in the target's units."""
        if v is None or not math.isfinite(v):
            return math.inf
        d = 0.0
        if self.low is not None and v < self.low:
            d = self.low - v
        if self.high is not None and v > self.high:
            d = v - self.high
        return d

    def margin(self, v: float) -> float:
        """How far ``v`` is inside the bound (negative outside), in the target's units: the
        nearer side's."""
        if v is None or not math.isfinite(v):
            return -math.inf
        sides = []
        if self.low is not None:
            sides.append(v - self.low)
        if self.high is not None:
            sides.append(self.high - v)
        return min(sides)

    def judge(self, value, low, high) -> str:
        """met / not met / undecided from an estimate and its interval (None: no interval,
        the value is exact)."""
        if value is None or not math.isfinite(value):
            return UNDECIDED
        lo = value if low is None else low
        hi = value if high is None else high
        inside_low = self.low is None or lo >= self.low
        inside_high = self.high is None or hi <= self.high
        if inside_low and inside_high:
            return MET
        if (self.low is not None and hi < self.low) or (self.high is not None and lo > self.high):
            return NOT_MET
        return UNDECIDED


def _ordinal(k: int) -> str:
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k if k < 20 else k % 10, 'th') }"


def _num(x: float) -> str:
    return f"{x:g}"


def _cond_text(c) -> str:
    op, lo, hi = c
    if op == "in":
        return f"in {_num(lo)}..{_num(hi)}"
    return f"{op} {_num(hi if op in ('<=', '<') else lo)}"


def parse_target(text: str, cat: Catalog) -> Target:
    """A target from its text (module docstring; :data:`GRAMMAR`); one sentence if it is not
    one."""
    t = " ".join(str(text).split())
    if not t:
        raise AnalysisError(f"A target is empty; write one such as {GRAMMAR}.")
    parts = _split(t)
    if parts is None or not parts[0] or not parts[2]:
        raise AnalysisError(f"'{t}' is not a target: write {GRAMMAR}.")
    lhs, op, rhs = parts
    kept, lo, hi = _bounds(op, rhs, t)
    kept = {"<": "<=", ">": ">="}.get(kept, kept)
    f = _FUNC.fullmatch(lhs)
    if f is None:
        m = cat.resolve(lhs)
        return Target(m, kept, lo, hi)
    name = f.group(1).lower()
    inner = f.group(3).strip()
    if name == "share":
        sub = _split(inner)
        if sub is None or not sub[0] or not sub[2]:
            raise AnalysisError(
                f"Target '{t}': share(...) takes a metric and a condition on each game's value,"
                " such as share(rounds_per_game in 8..12)."
            )
        m = _per_game_metric(cat.resolve(sub[0]), t)
        cond = _bounds(sub[1], sub[2], t)
        for b in (lo, hi):
            if b is not None and not 0 <= b <= 1:
                raise AnalysisError(
                    f"Target '{t}': a share of games is between 0 and 1, not {_num(b)}."
                )
        return Target(m, kept, lo, hi, "share", None, cond)
    q = 50 if name == "median" else int(f.group(2))
    if not 1 <= q <= 99:
        raise AnalysisError(f"Target '{t}': a quantile is q1 to q99 (q90: the 90th percentile).")
    return Target(_per_game_metric(cat.resolve(inner), t), kept, lo, hi, "quantile", q / 100)


def _per_game_metric(m: Metric, text: str, head: str = "Target") -> Metric:
    if not m.per_game:
        raise AnalysisError(
            f"{head} '{text}': {m.short} has no value of its own in each game (it compares the"
            " players over all the games); "
            + (f"target it directly, e.g. {m.short} <= 1.0." if head == "Target"
               else "'loba summarize' prints it over all the games.")  # fmt: skip
        )
    return m


def parse_targets(texts, cat: Catalog) -> list[Target]:
    """Every target of ``texts`` (each may hold several separated by ``;``), each once."""
    out: list[Target] = []
    for item in texts:
        for piece in str(item).split(";"):
            if not piece.strip() and ";" in str(item):
                continue
            t = parse_target(piece, cat)
            if any(o.text == t.text for o in out):
                raise AnalysisError(f"Target '{t.text}' is given twice; give each target once.")
            out.append(t)
    if not out:
        raise AnalysisError(f"Give at least one target: --targets FILE or --target '{GRAMMAR}'.")
    return out


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


# ---------------------------------------------------------------------------- knobs
@dataclass(frozen=True)
class Axis:
    """One searched knob: a whole-number range (``low``..``high``) or a list of values."""

    knob: str
    values: tuple = ()
    low: int | None = None
    high: int | None = None

    @property
    def size(self) -> int:
        return self.high - self.low + 1 if self.values == () else len(self.values)

    def text(self) -> str:
        from sim.rules import fmt_value

        if self.values == ():
            return f"{self.knob}={self.low}..{self.high}"
        return f"{self.knob}={','.join(fmt_value(v) for v in self.values)}"

    def suggest(self, trial):
        from sim.rules import fmt_value

        if self.values == ():
            return trial.suggest_int(self.knob, self.low, self.high)
        spelled = [fmt_value(v) for v in self.values]
        return self.values[spelled.index(trial.suggest_categorical(self.knob, spelled))]

    def holds(self, value) -> bool:
        if self.values == ():
            return isinstance(value, int) and not isinstance(value, bool) and (
                self.low <= value <= self.high)  # fmt: skip
        return value in self.values


def parse_axis(text: str, rules_spec) -> Axis:
    """``KNOB=LO..HI`` (a whole-number knob, inside its own range) or ``KNOB=A,B,C`` (values
    the knob takes); one sentence if not."""
    from sim.rules import RuleError

    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+?)\s*", str(text))
    if not m:
        raise AnalysisError(f"--vary '{text}' is not KNOB=LO..HI or KNOB=A,B,C.")
    name, rest = m.group(1), m.group(2)
    knob = rules_spec.knob.get(name)
    if knob is None:
        raise AnalysisError(
            f"Unknown rule '{name}' in --vary: the knobs are {', '.join(rules_spec.knob)}."
        )
    r = re.fullmatch(r"([+-]?\d+)\s*\.\.\s*([+-]?\d+)", rest)
    if r:
        if knob.kind not in ("int", "optional"):
            raise AnalysisError(
                f"--vary {name}: a range LO..HI needs a whole-number knob; {name} takes"
                f" {knob.alternatives()}: list the values ({name}=A,B)."
            )
        lo, hi = int(r.group(1)), int(r.group(2))
        if lo >= hi:
            raise AnalysisError(f"--vary {name}={rest}: the low end must be below the high end.")
        for v in (lo, hi):
            try:
                knob.coerce(v)
            except RuleError as e:
                raise AnalysisError(f"--vary {name}={rest}: {e}") from None
        return Axis(name, (), lo, hi)
    items = [v.strip() for v in rest.split(",")]
    if len(items) < 2 or not all(items):
        raise AnalysisError(
            f"--vary {name}={rest}: give a range LO..HI or at least two values A,B."
        )
    try:
        values = tuple(knob.coerce(v) for v in items)
    except RuleError as e:
        raise AnalysisError(f"--vary {name}={rest}: {e}") from None
    if len(set(values)) != len(values):
        raise AnalysisError(f"--vary {name}={rest} repeats a value.")
    return Axis(name, values)


# ---------------------------------------------------------------------------- the file
TARGET_KEYS = ("targets", "advise")
ADVISE_KEYS = ("vary", "seconds_per_turn")
RULE_KEYS = ("game", "preset", "knobs", "seats", "label")


@dataclass
class TargetsFile:
    """What a targets file holds: its targets, the ``[advise]`` settings (``vary``,
    ``seconds_per_turn``) and whether it holds house rules too."""

    path: Path
    targets: list[str]
    vary: list[str]
    seconds_per_turn: float | None
    has_rules: bool
    game: str | None


def read_targets_file(path) -> TargetsFile:
    """Read a targets file (TOML): ``targets = ["rounds_per_game in 8..12", ...]`` and
    optionally ``[advise]`` (``vary = [...]``, ``seconds_per_turn = 8``) beside a house-rules
    file's keys (:mod:`sim.house`); one sentence if it cannot be used."""
    p = Path(str(path).strip() if isinstance(path, str) else path)
    where = f"Targets file '{p}'"
    try:
        if not p.exists():
            raise AnalysisError(f"{where} does not exist.")
        if p.is_dir():
            raise AnalysisError(f"{where} is a directory, not a .toml file.")
        with open(p, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        first = (str(e).strip().splitlines() or ["a syntax error"])[0].rstrip(".")
        raise AnalysisError(f"{where} is not valid TOML ({first}).") from None
    except UnicodeDecodeError:
        raise AnalysisError(f"{where} is not TOML: it is not UTF-8 text.") from None
    except OSError as e:
        raise AnalysisError(f"{where} cannot be read ({e.strerror or type(e).__name__}).") from None
    for key in data:
        if key not in TARGET_KEYS + RULE_KEYS:
            raise AnalysisError(
                f"{where} has an unknown key '{key}': it holds targets = [...], an [advise]"
                " table and, if it likes, house rules (game, preset, label, seats, [knobs])."
            )
    targets = data.get("targets", [])
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise AnalysisError(
            f"{where}: 'targets' must be a list of strings such as"
            ' ["rounds_per_game in 8..12", "seat_spread <= 1.0"].'
        )
    adv = data.get("advise", {})
    if not isinstance(adv, dict):
        raise AnalysisError(f"{where}: 'advise' must be a table ([advise]).")
    for key in adv:
        if key not in ADVISE_KEYS:
            raise AnalysisError(
                f"{where}: [advise] has an unknown key '{key}' (it takes {', '.join(ADVISE_KEYS)})."
            )
    vary = adv.get("vary", [])
    if isinstance(vary, str):
        vary = [vary]
    if not isinstance(vary, list) or not all(isinstance(v, str) for v in vary):
        raise AnalysisError(
            f"{where}: [advise] vary must be a list of strings such as"
            ' ["elimination_score=101..201", "max_rebuys=0,1,2"].'
        )
    spt = adv.get("seconds_per_turn")
    if spt is not None and (isinstance(spt, bool) or not isinstance(spt, int | float)):
        raise AnalysisError(f"{where}: [advise] seconds_per_turn must be a number of seconds.")
    game = data.get("game") if isinstance(data.get("game"), str) else None
    has_rules = any(k in data for k in ("preset", "knobs", "seats", "label"))
    return TargetsFile(p, list(targets), list(vary), spt, has_rules, game)


# ---------------------------------------------------------------------------- the plan
@dataclass
class AdvicePlan:
    """A checked advise job, before any game: the base rules, the fields of players (name ->
    seat string; one field named by its seats when ``--seats``), the targets and the searched
    knobs, the budget and how it is spent."""

    base: object  # RuleSet
    fields: dict[str, str]
    field_given: bool
    targets: list[Target]
    axes: list[Axis]
    budget: int
    seed: int
    verify_seed: int
    trial_games: int  # a full trial, per field
    rungs: list[int]
    top: int
    catalog: Catalog
    threads: int | None = None
    label: str | None = None

    @property
    def game(self) -> str:
        return self.base.game

    @property
    def metrics(self) -> list[Metric]:
        seen: dict[str, Metric] = {}
        for t in self.targets:
            seen.setdefault(t.metric.name, t.metric)
        return list(seen.values())

    @property
    def space(self) -> int:
        return math.prod(a.size for a in self.axes)

    @property
    def search_budget(self) -> int:
        """The games the search may play; the rest of the budget verifies."""
        return self.budget - _reserve(self.budget, self.top, len(self.fields))

    def question(self) -> dict:
        """What defines the answer (compared on resume)."""
        return {
            "version": ADVISE_VERSION,
            "game": self.game,
            "rules_id": self.base.id,
            "fields": self.fields,
            "targets": [t.text for t in self.targets],
            "vary": [a.text() for a in self.axes],
            "budget": self.budget,
            "seed": self.seed,
            "seconds_per_turn": self.catalog.seconds_per_turn,
        }

    def describe(self) -> str:
        players = ", ".join(f"{k}: {v}" if self.field_given else v for k, v in self.fields.items())
        return (
            f"{self.base.id} with {players}; {len(self.targets)} targets; varying"
            f" {', '.join(a.text() for a in self.axes)}; budget {self.budget:,} games"
            f" (trials of up to {self.trial_games:,} games a field, rungs"
            f" {', '.join(f'{r:,}' for r in self.rungs)}); seed {self.seed}, fresh seed"
            f" {self.verify_seed}"
        )


def _reserve(budget: int, top: int, fields: int) -> int:
    """The games kept for the verification: a quarter of the budget, and at least
    :data:`MIN_VERIFY_GAMES` for each verified candidate in each field."""
    return max(int(budget * VERIFY_SHARE), top * fields * MIN_VERIFY_GAMES)


def _rungs(games: int, rungs: int = RUNGS) -> list[int]:
    out: list[int] = []
    for k in range(rungs):
        d = max(1, round(games / 2 ** (rungs - 1 - k)))
        if not out or d > out[-1]:
            out.append(d)
    out[-1] = games
    return out


def _players(base, seats, fields, spt) -> tuple[dict[str, str], bool, Catalog]:
    """The fields (name -> seat string; ``seats`` as one field named by its seats when no
    ``fields``), whether fields were named, and the catalog of their targets (with the
    ``games won by POLICY`` figures of the policies seated in every field: a seats table's
    policy is the seat's label)."""
    from sim.games import get_game
    from sim.policies import parse_seats

    from .field import default_players, field_seats, parse_fields

    game = base.game
    if fields is not None:
        n = default_players(game)
        fmap = {f: field_seats(f, n, game) for f in parse_fields(fields, game)}
    else:
        labels = [x.label for x in parse_seats(seats or get_game(game).default_seats, game=game)]
        fmap = {",".join(labels): ",".join(labels)}
    for text in fmap.values():
        base.check_players(len(text.split(",")))
    seated = [[x.label for x in parse_seats(t, game=game)] for t in fmap.values()]
    policies = [q for q in dict.fromkeys(seated[0]) if all(q in f for f in seated)]
    return fmap, fields is not None, catalog(game, policies, spt)


def _whole(x, low: int, high: int, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or not low <= x <= high:
        raise AnalysisError(f"{what} must be a whole number from {low:,} to {high:,}, not {x}.")
    return int(x)


def plan(
    targets=(),
    targets_file=None,
    vary=(),
    rules=None,
    sets=(),
    seats=None,
    fields=None,
    budget: int = 200_000,
    seed: int = 0,
    game=None,
    seconds_per_turn: float | None = None,
    threads: int | None = None,
) -> AdvicePlan:
    """Check everything an advise needs before any game; one-sentence errors.

    ``targets``: target texts (:func:`parse_target`); ``targets_file``: a TOML file of them
    (:func:`read_targets_file`; its house rules, if any, are the base rules unless ``rules``
    is given, and its ``[advise]`` vary and seconds_per_turn apply unless given here);
    ``vary``: ``KNOB=LO..HI`` / ``KNOB=A,B,C`` (none: the game's default space); ``rules``,
    ``sets``, ``seats``: as ``loba simulate``'s; ``fields``: field names (:mod:`analysis.field`)
    instead of ``seats``; ``budget``: games in all."""
    from sim.chunks import check_threads
    from sim.rules import parse_assignments
    from sim.setup import settings

    from .tune import fresh_seed

    tf = read_targets_file(targets_file) if targets_file is not None else None
    texts = [*(tf.targets if tf else []), *list(targets or ())]
    if tf is not None and tf.has_rules:
        if rules is not None:
            raise AnalysisError(
                f"Targets file '{tf.path}' holds house rules and --rules names rules too; give"
                " the rules once."
            )
        rules = str(tf.path)
    elif rules is None and tf is not None and tf.game is not None and game is None:
        game = tf.game
    if fields is not None and seats is not None:
        raise AnalysisError("--field and --seats both name the players; give one of them.")
    s = settings(rules, sets, seats if fields is None else None, game)
    base = s.rules
    game = base.game
    spt = seconds_per_turn
    if spt is None and tf is not None:
        spt = tf.seconds_per_turn
    if spt is not None and (isinstance(spt, bool) or not 1 <= float(spt) <= 3600):
        raise AnalysisError(f"Seconds per turn must be a number from 1 to 3,600, not {spt}.")
    fmap, field_given, cat = _players(base, s.seats, fields, spt)
    tlist = parse_targets(texts, cat)
    vtexts = list(vary or ()) or (tf.vary if tf else [])
    from .bygame import for_game

    if not vtexts:
        ga = for_game(game)
        vtexts = list(ga.targets.knobs) if ga is not None and ga.targets is not None else []
        if not vtexts:
            raise AnalysisError(
                f"{cat.title} has no default knobs to search: name them with --vary KNOB=LO..HI."
            )
        fixed = set(parse_assignments(sets))  # a knob --set fixes is not searched
        vtexts = [v for v in vtexts if v.split("=")[0] not in fixed]
    axes: list[Axis] = []
    for v in vtexts:
        a = parse_axis(v, base.spec)
        if any(b.knob == a.knob for b in axes):
            raise AnalysisError(f"Knob '{a.knob}' is varied twice; give it one --vary.")
        axes.append(a)
    for k in parse_assignments(sets):
        if any(a.knob == k for a in axes):
            raise AnalysisError(f"Knob '{k}' is both set (--set) and varied (--vary).")
    budget = _whole(budget, 1, 10**10, "--budget")
    seed = _whole(seed, 0, 2**63 - 1, "The seed")
    if threads is not None:
        try:
            check_threads(threads)
        except ValueError as e:
            raise AnalysisError(str(e)) from None
    nf = len(fmap)
    space = math.prod(a.size for a in axes)
    top = max(1, min(TOP, space))
    trial = (budget - _reserve(budget, top, nf)) // (nf * TRIALS_PER_BUDGET)
    need = TRIALS_PER_BUDGET * MIN_TRIAL_GAMES * nf
    need = max(math.ceil(need / (1 - VERIFY_SHARE)), need + top * nf * MIN_VERIFY_GAMES)
    if trial < MIN_TRIAL_GAMES:
        raise AnalysisError(
            f"--budget {budget:,} is too small for {nf} field{'s' * (nf > 1)}: an advise needs"
            f" at least {need:,} games ({TRIALS_PER_BUDGET} trials of {MIN_TRIAL_GAMES} games a"
            " field, and fresh games to verify the best)."
        )
    return AdvicePlan(base, fmap, field_given, tlist, axes, budget, seed, fresh_seed(seed),
                      trial, _rungs(trial), top, cat, threads, s.label)  # fmt: skip


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


# ---------------------------------------------------------------------------- the search
@dataclass
class AdviceResult:
    """What :func:`run_advise` found: the study (one row per trial), each trial's targets
    (``targets``: trial, field, target, value, low, high, status at the race level), the
    verified candidates in rank order (``verified``: :class:`Measured` on fresh games) and the
    verification table, the recommended setting and whether it meets every target."""

    plan: AdvicePlan
    study: pl.DataFrame
    trial_targets: pl.DataFrame
    verified: list[Measured]
    verification: pl.DataFrame
    never: list[str]
    played: int
    simulated: int
    search_played: int
    verify_games: int
    elapsed: float = 0.0
    optuna_study: object = field(default=None, repr=False)
    search: list[Measured] = field(default_factory=list, repr=False)

    @property
    def best(self) -> Measured:
        return self.verified[0]

    @property
    def feasible(self) -> bool:
        return all(self.best.status(t) == MET for t in self.plan.targets)

    @property
    def best_rules(self):
        return self.plan.base.spec.parse(self.best.rules_id)

    @property
    def conflict(self) -> bool:
        """No candidate met every target in the search (or the best did not on fresh games):
        the targets pull against each other somewhere in the space."""
        met = [m for m in self.search if all(m.status(t) == MET for t in self.plan.targets)]
        return not met or not self.feasible

    def to_dict(self) -> dict:
        from .tune import _clean

        p = self.plan
        return _clean({
            **p.question(),
            "targets_detail": [{"target": t.text, "metric": t.metric.name, "unit": t.unit,
                                "about": t.metric.about} for t in p.targets],
            "verify_seed": p.verify_seed,
            "trial_games": p.trial_games,
            "rungs": p.rungs,
            "race_level": RACE_LEVEL,
            "level": LEVEL,
            "games_played": self.played,
            "search_games": self.search_played,
            "verify_games": self.verify_games,
            "trials": self.study.height,
            "stopped_early": int((self.study["state"] == "stopped").sum()),
            "feasible": self.feasible,
            "recommended": {"setting": self.best.values, "rules_id": self.best.rules_id},
            "ranking": [
                {"rank": i + 1, "setting": m.values, "rules_id": m.rules_id,
                 "targets": {t.text: {"status": m.status(t), **{f: m.by_field[f][t.text]
                                                                 for f in p.fields}}
                             for t in p.targets}}
                for i, m in enumerate(self.verified)
            ],
            "paragraph": self.paragraph(),
            "never": self.never,
            "study": self.study.to_dicts(),
        })  # fmt: skip

    # ------------------------------------------------------------------ words
    def _phrase(self, t: Target, m: Measured) -> str:
        parts = []
        for f, res in m.by_field.items():
            d = res[t.text]
            val = _fmt(d["value"], t.unit)
            ci = _interval(d["low"], d["high"], t.unit)
            who = f" with {f}" if self.plan.field_given else ""
            parts.append(f"{val} {ci}{who}".rstrip())
        st = m.status(t)
        tail = ""
        if st != MET:
            w = m.worst(t)
            if st == NOT_MET or w["distance"] > 0:
                tail = f", {_fmt(w['distance'], t.unit)} {_side(t, w['value'])} {_bound_text(t)}"
        return f"{t.words()} {'; '.join(parts)} ({t.text}: {st}{tail})"

    def paragraph(self) -> str:
        """The answer in words: the setting to play and what it gives; or, when a target is
        undecided, which; or, when none meets every target, the closest and which target it
        misses by how much; then what no setting with a knob value achieves."""
        p, m = self.plan, self.best
        play = _play_text(p.base, m.values)
        fresh = f"on {self.verify_games:,} fresh games"
        if p.field_given:
            fresh += f" in each field ({', '.join(p.fields)})"
        status = {t.text: m.status(t) for t in p.targets}
        if self.feasible:
            body = "; ".join(self._phrase(t, m) for t in p.targets)
            text = f"Play {play}: {body}. Every target is met {fresh} (95% intervals)."
        elif NOT_MET not in status.values():
            body = "; ".join(self._phrase(t, m) for t in p.targets)
            und = [t.text for t in p.targets if status[t.text] == UNDECIDED]
            text = (
                f"Play {play}: {body}. {', '.join(und)} {'is' if len(und) == 1 else 'are'}"
                f" undecided {fresh}: the interval holds the bound (a larger --budget narrows"
                " it); every other target is met."
            )
        else:
            met_all = [x for x in self.search if all(x.status(t) == MET for t in p.targets)]
            if met_all:
                head = (f"None of the {len(self.verified)} settings verified on fresh games meets"
                        " every target.")  # fmt: skip
            else:
                head = "No setting tried meets every target."
            miss = [t for t in p.targets if status[t.text] != MET]
            body = "; ".join(self._phrase(t, m) for t in miss)
            ok = [t.text for t in p.targets if status[t.text] == MET]
            rest = f" It meets {', '.join(ok)}." if ok else ""
            text = f"{head} The closest is {play}: {body} ({fresh}).{rest}"
        if self.never:
            text += " " + " ".join(self.never)
        return text

    def table_rows(self) -> tuple[list[str], list[list[str]]]:
        """The ranked table (:func:`ranked_rows`)."""
        p = self.plan
        return ranked_rows([(m.values, m.by_field) for m in self.verified],
                           [(t.text, t.unit) for t in p.targets], p.field_given)  # fmt: skip

    def text(self) -> str:
        """What ``loba advise`` prints: the search in one line, the ranked table, the answer."""
        from .text import aligned

        p = self.plan
        st = self.study
        stopped = int((st["state"] == "stopped").sum())
        lines = [
            f"advise: {p.describe()}",
            f"search: {st.height} trials ({stopped} stopped early by the race at"
            f" {RACE_LEVEL:.0%}), {self.search_played:,} games; verification:"
            f" {len(self.verified)} settings x {self.verify_games:,} fresh games"
            f"{' x ' + str(len(p.fields)) + ' fields' if p.field_given else ''}"
            f" (seed {p.verify_seed}); {self.played:,} games in all",
            "",
        ]
        head, rows = self.table_rows()
        right = [h in ("estimate", "confidence") for h in head]
        lines.append(aligned(head, rows, right))
        lines += [
            "",
            "verdict: met / not met when the 95% interval on fresh games lies wholly inside /"
            " outside the target, else undecided; confidence: 1 - the one-sided p-value of"
            " 'not met'."
            + (" A target counts as met only if it is in every field." if p.field_given else ""),
            "",
            self.paragraph(),
        ]
        return "\n".join(lines)

    def toml(self) -> str:
        """The recommended setting as a house-rules file (``loba simulate --rules`` plays it),
        with the targets it was advised for as comments."""
        from sim.house import house_toml

        p = self.plan
        m = self.best
        seats = None if p.field_given else next(iter(p.fields.values()))
        body = house_toml(self.best_rules, seats, p.label)
        head = [
            "# advised by 'loba advise' (" + ("every target met" if self.feasible
                                               else "the closest: not every target met") + ")",
        ]  # fmt: skip
        for t in p.targets:
            d = m.worst(t)
            head.append(f"#   {t.text}: {m.status(t)}, {_fmt(d['value'], t.unit)}"
                        f" {_interval(d['low'], d['high'], t.unit)}")  # fmt: skip
        head.append(
            f"#   fresh games: {self.verify_games:,} of seed {p.verify_seed}"
            + (f" in each field ({', '.join(p.fields)})" if p.field_given else "")
        )
        return "\n".join(head) + "\n" + body

    def write(self, out) -> list[Path]:
        """Everything into ``out``: the study, each trial's targets, the verification, the
        answer (JSON and text), the advised house rules and, when targets conflict, the
        trade-off plot."""
        from sim.files import atomic_output

        outp = Path(out)
        written = []

        def put(name, write):
            with atomic_output(outp / name) as tmp:
                write(tmp)
            written.append(outp / name)

        put("study.parquet", self.study.write_parquet)
        put("study.csv", lambda t: self.study.write_csv(t))
        put("targets.parquet", self.trial_targets.write_parquet)
        put("verification.csv", lambda t: self.verification.write_csv(t))
        put("advice.json", lambda t: Path(t).write_text(json.dumps(self.to_dict(), indent=1)
                                                        + "\n"))  # fmt: skip
        put("advice.txt", lambda t: Path(t).write_text(self.text() + "\n"))
        put("advised.toml", lambda t: Path(t).write_text(self.toml()))
        if self.conflict and len(self.plan.targets) >= 2:
            fig = front_plot(self)
            if fig is not None:
                put("front.png", lambda t: fig.savefig(t, dpi=110, format="png"))
        return written


def ranked_rows(verified, targets, field_given: bool) -> tuple[list[str], list[list[str]]]:
    """The ranked table: one row per verified setting and target (and field, with fields;
    then ``all fields`` says whether the target counts as met, and where the fields
    disagree). ``verified``: (knob values, ``by_field[field][target text]`` of :func:`assess`)
    in rank order; ``targets``: (text, unit) of each target."""
    head = ["rank", "setting", "target", "estimate", "95% interval", "verdict", "confidence"]
    if field_given:
        head[3:3] = ["field"]
        head.append("all fields")
    rows = []
    for i, (values, by) in enumerate(verified):
        first = True
        for text, unit in targets:
            overall = _overall([by[f][text]["status"] for f in by])
            if len({by[f][text]["status"] for f in by}) > 1:
                overall += " (fields disagree)"
            for j, (f, res) in enumerate(by.items()):
                d = res[text]
                row = [str(i + 1) if first else "", setting_text(values) if first else "",
                       text if j == 0 else ""]  # fmt: skip
                if field_given:
                    row.append(f)
                row += [_fmt(d["value"], unit), _interval(d["low"], d["high"], unit),
                        d["status"], _conf(d["confidence"])]  # fmt: skip
                if field_given:
                    row.append(overall if j == 0 else "")
                rows.append(row)
                first = False
    return head, rows


def advice_rows(advice: dict) -> tuple[list[str], list[list[str]]]:
    """:func:`ranked_rows` of a written answer (``OUT/advice.json``, :meth:`AdviceResult.
    to_dict`)."""
    fields = list(advice["fields"])
    field_given = not (len(fields) == 1 and fields[0] == advice["fields"][fields[0]])
    units = [(t["target"], t["unit"]) for t in advice["targets_detail"]]
    verified = [(r["setting"], {f: {t: r["targets"][t][f] for t, _ in units} for f in fields})
                for r in advice["ranking"]]  # fmt: skip
    return ranked_rows(verified, units, field_given)


def _play_text(base, values: dict) -> str:
    """``pagat with elimination_score=85, max_rebuys=3 and one_turn_bonus=17``: the searched
    knobs whose values differ from the base rules' (``as it is`` when none does)."""
    changed = {k: v for k, v in values.items() if getattr(base, k) != v}
    if not changed:
        return f"{base.short_id} as it is"
    parts = setting_text(changed).split(",")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{base.short_id} with {text}"


def _fmt(x, unit) -> str:
    from sim import fmt

    if fmt.is_na(x):
        return fmt.NA
    if unit == "share":
        return fmt.number(float(x), 3)
    if unit == "pts":  # percentage points: two decimals, signed
        return f"{float(x):+.2f} pts"
    return fmt.number(float(x), 4)


def _interval(lo, hi, unit) -> str:
    from sim import fmt

    if lo is None and hi is None:
        return "none: exact"
    a = fmt.NA if lo is None else _fmt(lo, unit).removesuffix(" pts").lstrip("+")
    b = fmt.NA if hi is None else _fmt(hi, unit).removesuffix(" pts").lstrip("+")
    return f"[{a}, {b}]"


def _conf(c) -> str:
    if c is None or not math.isfinite(c):
        return "n/a"
    if c > 0.999:
        return ">99.9%"
    if c < 0.001:
        return "<0.1%"
    return f"{c * 100:.1f}%"


def _side(t: Target, v) -> str:
    if t.low is not None and v < t.low:
        return "below"
    return "above"


def _bound_text(t: Target) -> str:
    if t.op == "in":
        return f"{_num(t.low)}..{_num(t.high)}"
    return _num(t.low if t.high is None else t.high)


def _never(p: AdvicePlan, search: list[Measured]) -> list[str]:
    """Sentences "No setting with KNOB=V meets the TARGET target" for a target that some
    candidates meet (at 99%, :data:`RACE_LEVEL`) and every candidate with a knob value clearly
    misses (two tried at least); for a whole-number range, the values beyond every one that
    meets it ("of 141 or more"). At most three."""
    from sim.rules import fmt_value

    out = []

    def say(text, tried):
        if len(tried) >= 2 and all(m.status(t) == NOT_MET for m in tried):
            line = f"No setting with {text} meets {t.text} ({len(tried)} tried)."
            if line not in out:
                out.append(line)

    for t in p.targets:
        ok = [m for m in search if m.status(t) == MET]
        if not ok:
            continue
        for a in p.axes:
            k = a.knob
            if a.values == ():
                top, bottom = max(m.values[k] for m in ok), min(m.values[k] for m in ok)
                above = [m for m in search if m.values[k] > top]
                below = [m for m in search if m.values[k] < bottom]
                if above:
                    say(f"{k} of {min(m.values[k] for m in above)} or more", above)
                if below:
                    say(f"{k} of {max(m.values[k] for m in below)} or less", below)
                continue
            for v in a.values:
                say(f"{k}={fmt_value(v)}", [m for m in search if m.values[k] == v])
    return out[:3]


def run_advise(
    p: AdvicePlan,
    out=None,
    progress: Callable[[int, int], None] | None = None,
    on_trial: Callable[[dict], None] | None = None,
) -> AdviceResult:
    """Search, race and verify (module docstring). ``out``: the folder keeping every game's
    values (``OUT/games/``) so that a second run with the same question resumes; the answer's
    files are written by :meth:`AdviceResult.write`. ``progress(games, budget)`` after every
    rung, ``on_trial(row)`` after every trial."""
    import logging
    import warnings

    import optuna
    from optuna.trial import TrialState

    from sim.rules import RuleError

    t0 = time.perf_counter()
    outp = Path(out) if out is not None else None
    store = GameStore(p, outp)
    targets = p.targets
    nf = len(p.fields)

    def constraints(ft):
        return ft.user_attrs.get("constraints", [0.0] * len(targets))

    olog = optuna.logging.get_logger("optuna")
    old_level = olog.level
    optuna.logging.set_verbosity(logging.WARNING)
    rows, trow = [], []
    measured: dict[str, Measured] = {}  # rules id -> its largest measurement in the search
    finished: set[str] = set()
    reached: set[str] = set()  # targets some candidate played in full meets: raced on
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            # each target a constraint: Optuna 5 reads Trial.set_constraint, 4 a function
            new_api = hasattr(optuna.trial.Trial, "set_constraint")
            sampler = optuna.samplers.TPESampler(
                seed=p.seed % 2**32, n_startup_trials=max(4, min(10, p.space // 2)),
                **({} if new_api else {"constraints_func": constraints}),
            )  # fmt: skip
            study = optuna.create_study(direction="minimize", sampler=sampler)
        base_values = {a.knob: getattr(p.base, a.knob) for a in p.axes}
        if all(a.holds(base_values[a.knob]) for a in p.axes):
            from sim.rules import fmt_value

            study.enqueue_trial(
                {
                    a.knob: (
                        base_values[a.knob] if a.values == () else fmt_value(base_values[a.knob])
                    )
                    for a in p.axes
                }
            )
        idle = 0
        budget = p.search_budget
        done = False
        while not done and len(rows) < MAX_TRIALS:
            trial = study.ask()
            values = {a.knob: a.suggest(trial) for a in p.axes}
            row = {"trial": trial.number, "state": "", "setting": setting_text(values),
                   **{a.knob: _cell(values[a.knob]) for a in p.axes}}  # fmt: skip
            try:
                rules = p.base.replace(**values)
            except RuleError as e:
                study.tell(trial, state=TrialState.FAIL)
                row.update(state="invalid", rules_id=None, games=0, played=0, objective=None,
                           note=str(e))  # fmt: skip
                rows.append(row)
                if on_trial is not None:
                    on_trial(row)
                idle += 1
                if idle >= MAX_IDLE:
                    break
                continue
            before = store.played
            m = None
            state, note = "complete", ""
            for k, n in enumerate(p.rungs):
                need = sum(store.missing(store.key(rules.id, s, p.seed), n)
                           for s in p.fields.values())  # fmt: skip
                if store.played + need > budget:
                    done = True
                    state = "budget" if m is not None else "unplayed"
                    break
                m = measure(p, store, values, rules, p.seed, n, RACE_LEVEL)
                if progress is not None:
                    progress(store.played, p.budget)
                out_of = [t for t in targets if t.text in reached and m.status(t) == NOT_MET]
                if k < len(p.rungs) - 1 and out_of:
                    state = "stopped"
                    note = f"outside {out_of[0].text}"
                    break
            if m is None:
                study.tell(trial, state=TrialState.FAIL)
                row.update(state=state, rules_id=rules.id, games=0, played=0, objective=None,
                           note="the budget is spent")  # fmt: skip
                rows.append(row)
                if on_trial is not None:
                    on_trial(row)
                break
            if state in ("complete", "stopped"):
                finished.add(rules.id)
            if state == "complete":  # the targets a candidate played in full has met
                reached.update(t.text for t in targets if m.worst(t)["distance"] == 0)
            prev = measured.get(rules.id)
            if prev is None or m.games >= prev.games:
                measured[rules.id] = m
            cons = [min(m.worst(t)["distance"] / t.width, MAX_SHORT) for t in targets]
            if new_api:
                for i, c in enumerate(cons):
                    trial.set_constraint(f"target {i}", c)
            else:
                trial.set_user_attr("constraints", cons)
            obj = m.objective(targets)
            study.tell(trial, obj)
            played = store.played - before
            idle = idle + 1 if played == 0 else 0
            row.update(state=state, rules_id=rules.id, games=m.games, played=played,
                       objective=obj, note=note)  # fmt: skip
            row["met"] = sum(m.status(t) == MET for t in targets)
            rows.append(row)
            for f, res in m.by_field.items():
                for t in targets:
                    d = res[t.text]
                    trow.append({"trial": trial.number, "field": f, "target": t.text,
                                 "games": m.games, "value": d["value"], "low": d["low"],
                                 "high": d["high"], "status": d["status"]})  # fmt: skip
            if on_trial is not None:
                on_trial(row)
            if len(finished) >= p.space or idle >= MAX_IDLE:
                done = True
    finally:
        olog.setLevel(old_level)
    if not measured:
        raise AnalysisError(
            "No candidate could be played: every setting tried was refused by the rules"
            " (each trial's reason is in the study); widen or change --vary."
        )
    search_played = store.played
    search = list(measured.values())

    def key(m: Measured):
        full = m.games >= p.trial_games
        return (not full, m.shortfall(targets), -m.margin(targets))

    top = sorted(search, key=key)[: p.top]
    k = len(top)
    vgames = max(MIN_VERIFY_GAMES, (p.budget - search_played) // (k * nf))
    verified = []
    for m in top:
        rules = p.base.spec.parse(m.rules_id)
        verified.append(measure(p, store, m.values, rules, p.verify_seed, vgames, LEVEL))
        if progress is not None:
            progress(min(store.played, p.budget), p.budget)

    def rank(m: Measured):
        st = [m.status(t) for t in targets]
        return (st.count(NOT_MET), st.count(UNDECIDED), m.shortfall(targets), -m.margin(targets))

    verified.sort(key=rank)
    vrows = []
    for i, m in enumerate(verified):
        for t in targets:
            for f, res in m.by_field.items():
                d = res[t.text]
                vrows.append({"rank": i + 1, "setting": setting_text(m.values),
                              "rules_id": m.rules_id, "field": f, "target": t.text,
                              "value": d["value"], "low": d["low"], "high": d["high"],
                              "status": d["status"], "overall": m.status(t),
                              "confidence": d["confidence"], "distance": d["distance"],
                              "games": d["games"]})  # fmt: skip
    study_df = _frame(rows)
    return AdviceResult(
        p, study_df, _frame(trow), verified, _frame(vrows), _never(p, search), store.played,
        store.simulated, search_played, vgames, time.perf_counter() - t0, study, search,
    )  # fmt: skip


def _cell(v):
    from sim.rules import fmt_value

    return v if isinstance(v, int) and not isinstance(v, bool) else fmt_value(v)


def _frame(rows: list[dict]) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame()
    cols = list(dict.fromkeys(k for r in rows for k in r))
    return pl.DataFrame([{c: r.get(c) for c in cols} for r in rows], infer_schema_length=None)


# ---------------------------------------------------------------------------- the front
def front_plot(res: AdviceResult):
    """The trade-off between targets that conflict: for up to three pairs (each target the
    closest setting misses, against each other target), every candidate of the search (its
    estimate at the most games it played; with fields, each target's worst field), the
    targets' bounds shaded, the
    candidates no other beats on both shortfalls joined and labelled with their settings."""
    from matplotlib.figure import Figure as MplFigure

    p = res.plan
    ts = p.targets
    order = {NOT_MET: 0, UNDECIDED: 1, MET: 2}
    miss = sorted([t for t in ts if res.best.status(t) != MET],
                  key=lambda t: order[res.best.status(t)]) or ts[:1]  # fmt: skip
    pairs = []
    for a in miss:
        for b in ts:
            if b is not a and (b, a) not in pairs and (a, b) not in pairs:
                pairs.append((a, b))
    pairs = pairs[:3]
    if not pairs:
        return None
    pts = [m for m in res.search if m.by_field]
    fig = MplFigure(figsize=(5.2 * len(pairs), 4.4))
    axes = fig.subplots(1, len(pairs), squeeze=False)
    for ax, (a, b) in zip(axes[0], pairs, strict=True):
        xs = np.array([m.worst(a)["value"] for m in pts], float)
        ys = np.array([m.worst(b)["value"] for m in pts], float)
        da = np.array([m.worst(a)["distance"] / a.width for m in pts])
        db = np.array([m.worst(b)["distance"] / b.width for m in pts])
        full = np.array([m.games >= p.trial_games for m in pts])
        ax.scatter(xs[~full], ys[~full], s=12, c="0.7", label="stopped early")
        ax.scatter(xs[full], ys[full], s=18, c="tab:blue", label="played in full")
        for t, span in ((a, ax.axvspan), (b, ax.axhspan)):
            lo = t.low if t.low is not None else -1e12
            hi = t.high if t.high is not None else 1e12
            span(lo, hi, color="tab:green", alpha=0.12)
        ax.set_xlim(*_lims(xs, a.low, a.high))
        ax.set_ylim(*_lims(ys, b.low, b.high))
        front = [i for i in range(len(pts))
                 if not any((da[j] <= da[i] and db[j] <= db[i]) and (da[j] < da[i] or db[j] < db[i])
                            for j in range(len(pts)))]  # fmt: skip
        front.sort(key=lambda i: xs[i])
        ax.plot(xs[front], ys[front], "-o", c="tab:red", ms=5, lw=1, label="trade-off front")
        for i in front[:8]:
            label = " / ".join(_cell_text(v) for v in pts[i].values.values())
            ax.annotate(label, (xs[i], ys[i]), fontsize=7, xytext=(4, 3),
                        textcoords="offset points", annotation_clip=True)  # fmt: skip
        ax.set_xlabel(f"{a.words()} (target {_cond_text((a.op, a.low, a.high))})", fontsize=8)
        ax.set_ylabel(f"{b.words()} (target {_cond_text((b.op, b.low, b.high))})", fontsize=8)
        ax.legend(fontsize=7, loc="best")
    title = "targets in conflict" + (" (each target in its worst field)" if p.field_given else "")
    knobs = " / ".join(a.knob for a in p.axes)
    fig.suptitle(f"{p.base.id}: {title}; green: where a target is met; red points labelled"
                 f" {knobs}", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return fig


def search_plot(trial_targets: pl.DataFrame, advice: dict):
    """The search, target by target: each trial's estimate (at the most games it played; with
    fields, each field's marker), the target's bounds shaded green, and the answer's estimate
    on fresh games as a red dashed line (each field's). ``trial_targets``: ``OUT/targets.
    parquet`` (:attr:`AdviceResult.trial_targets`); ``advice``: ``OUT/advice.json``."""
    from matplotlib.figure import Figure as MplFigure

    texts = list(advice["targets"])
    fields = list(advice["fields"])
    field_given = not (len(fields) == 1 and fields[0] == advice["fields"][fields[0]])
    best = advice["ranking"][0]["targets"]
    ncol = min(3, len(texts))
    nrow = math.ceil(len(texts) / ncol)
    fig = MplFigure(figsize=(4.6 * ncol, 3.3 * nrow))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for k, (ax, text) in enumerate(zip(axes.flat, texts, strict=False)):
        part = trial_targets.filter(pl.col("target") == text) if trial_targets.height else None
        vals: list[float] = []
        for j, f in enumerate(fields):
            pf = part.filter(pl.col("field") == f) if part is not None else pl.DataFrame()
            if pf.height:
                y = pf["value"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                vals += list(y)
                ax.scatter(pf["trial"].to_numpy(), y, s=12, marker="os^Dv"[j % 5], alpha=0.8,
                           label=f if field_given else "a trial of the search")  # fmt: skip
            v = (best.get(text) or {}).get(f, {}).get("value")
            if v is not None and math.isfinite(v):
                vals.append(v)
                ax.axhline(v, color="tab:red", lw=1, ls="--",
                           label="the answer on fresh games" if j == 0 else None)  # fmt: skip
        lhs, op, rhs = _split(text)
        _, lo, hi = _bounds(op, rhs, text)
        ax.axhspan(-1e12 if lo is None else lo, 1e12 if hi is None else hi,
                   color="tab:green", alpha=0.12)  # fmt: skip
        ax.set_ylim(*_lims(np.array(vals, float), lo, hi))
        ax.set_title(text, fontsize=9)
        ax.set_xlabel("trial", fontsize=8)
        if k == 0:
            ax.legend(fontsize=7, loc="best")
    for ax in list(axes.flat)[len(texts):]:
        ax.set_visible(False)
    fig.suptitle(f"{advice['rules_id']}: each target over the search's trials; green: where it"
                 " is met", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return fig


def _cell_text(v) -> str:
    from sim.rules import fmt_value

    return fmt_value(v)


def _lims(v: np.ndarray, low, high) -> tuple[float, float]:
    v = v[np.isfinite(v)]
    pts = list(v) + [b for b in (low, high) if b is not None]
    lo, hi = min(pts), max(pts)
    pad = (hi - lo) * 0.08 or 1.0
    return lo - pad, hi + pad


# ---------------------------------------------------------------------------- all at once
def prepare_out(p: AdvicePlan, out, overwrite: bool = False) -> bool:
    """Check ``out`` and write its ``advise.json`` (the question); True when it holds this
    question already (a resume: its games are read, not played again). A folder holding
    another question, or other files, is refused unless ``overwrite`` (which clears it)."""
    import shutil

    from sim.files import RunDirError, atomic_output, check_out_dir

    outp = Path(out)
    meta = outp / "advise.json"
    q = p.question()
    if meta.is_file() and not overwrite:
        try:
            old = json.loads(meta.read_text())
        except (OSError, ValueError):
            old = None
        if old == json.loads(json.dumps(q)):
            return True
        raise AnalysisError(
            f"'{outp}' holds an advise of another question; give another --out, or"
            " --overwrite to replace it."
        )
    try:
        check_out_dir(outp, overwrite, need_bytes=1 << 20)
    except RunDirError as e:
        raise AnalysisError(str(e)) from None
    if overwrite and outp.is_dir():
        for name in (*FILES, "front.png"):
            (outp / name).unlink(missing_ok=True)
        if (outp / "games").is_dir():
            shutil.rmtree(outp / "games")
    with atomic_output(meta) as tmp:
        Path(tmp).write_text(json.dumps(q, indent=1) + "\n")
    return False


def advise(
    targets=(),
    targets_file=None,
    vary=(),
    rules=None,
    sets=(),
    seats=None,
    fields=None,
    budget: int = 200_000,
    seed: int = 0,
    game=None,
    seconds_per_turn: float | None = None,
    threads: int | None = None,
    out=None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    on_trial: Callable[[dict], None] | None = None,
) -> AdviceResult:
    """:func:`plan`, then :func:`run_advise` (resuming from ``out`` when it holds the same
    question), then the answer's files into ``out``: e.g. ``advise(["rounds_per_game in
    8..12", "comeback >= 0.15"], vary=["elimination_score=101..201", "max_rebuys=0..2"],
    budget=100_000, out="advice")``; ``.paragraph()``, ``.text()``, ``.toml()``."""
    p = plan(targets, targets_file, vary, rules, sets, seats, fields, budget, seed, game,
             seconds_per_turn, threads)  # fmt: skip
    if out is not None:
        prepare_out(p, out, overwrite)
    res = run_advise(p, out, progress, on_trial)
    if out is not None:
        res.write(out)
    return res


CHECK_SEED = 424_242  # a check's default seed: neither a search's (0, 1, ...) nor a fresh one


def read_advice(out) -> dict | None:
    """What an advise's ``--out`` folder holds for a check: ``question`` (its ``advise.json``),
    ``rules`` (its ``advised.toml``), ``verified`` (target -> field -> the verification's
    verdict in that field) and ``verify_seed``; None if ``out`` is not such a folder (no
    ``advise.json``). One sentence if the advise has not finished."""
    p = Path(str(out).strip()) if isinstance(out, str) else Path(out)
    if not p.is_dir() or not (p / "advise.json").is_file():
        return None
    try:
        question = json.loads((p / "advise.json").read_text())
        advice = json.loads((p / "advice.json").read_text())
    except FileNotFoundError:
        raise AnalysisError(
            f"'{p}' holds an advise that has not finished (no advice.json); the same 'loba"
            " advise' command on it finishes it."
        ) from None
    except (OSError, ValueError) as e:
        raise AnalysisError(f"'{p}' holds an advise whose files cannot be read ({e}).") from None
    if not (p / "advised.toml").is_file() or not advice.get("ranking"):
        raise AnalysisError(f"'{p}' holds no advised.toml; the same 'loba advise' command on it"
                            " writes it.")  # fmt: skip
    best = advice["ranking"][0]["targets"]
    fields = list(question.get("fields") or {})
    verified = {t: {f: (d.get(f) or {}).get("status") for f in fields} for t, d in best.items()}
    return {"question": question, "rules": p / "advised.toml", "verified": verified,
            "verify_seed": advice.get("verify_seed"), "path": p}  # fmt: skip


def check(
    targets=(),
    rules=None,
    seats=None,
    fields=None,
    games: int = 20_000,
    seed: int = CHECK_SEED,
    game=None,
    seconds_per_turn: float | None = None,
    targets_file=None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pl.DataFrame:
    """An independent re-simulation: ``rules`` (e.g. an advise's ``OUT/advised.toml``) played
    on ``games`` games of ``seed`` (take one the advise never used: its search plays the seed
    it was given, its verification :func:`analysis.tune.fresh_seed` of it) in each field, and
    every target measured on them with its 95% interval and judged as the verification judges
    (:func:`assess`): one row per field and target (``field, target, value, low, high, unit,
    status, confidence, games`` (those with a value), ``played``, ``rules_id``, ``seed``).

    ``rules`` may be an advise's ``--out`` folder (:func:`read_advice`): its ``advised.toml`` is
    played, its question's targets, fields (or seats) and seconds per turn are the defaults,
    each row gets ``verified`` (the advise's verdict on its fresh games in that field; null for
    a target it was not asked), and a seed the advise played is refused.
    ``progress(games, total)`` after each field."""
    from sim.runner import simulate
    from sim.setup import settings

    adv = read_advice(rules) if rules is not None else None
    if adv is not None:
        q = adv["question"]
        rules = adv["rules"]
        if not list(targets or ()) and targets_file is None:
            targets = q.get("targets") or ()
        qf = q.get("fields") or {}
        if fields is None and seats is None and qf:
            if len(qf) == 1 and next(iter(qf)) == next(iter(qf.values())):
                seats = next(iter(qf.values()))
            else:
                fields = list(qf)
        if seconds_per_turn is None:
            seconds_per_turn = q.get("seconds_per_turn")
        if not isinstance(seed, bool) and seed in (q.get("seed"), adv["verify_seed"]):
            raise AnalysisError(
                f"Seed {seed} is one the advise in '{adv['path']}' played (its search's or its"
                " verification's); a check needs games it never saw: give another --seed."
            )
    if fields is not None and seats is not None:
        raise AnalysisError("--field and --seats both name the players; give one of them.")
    tf = read_targets_file(targets_file) if targets_file is not None else None
    texts = [*(tf.targets if tf else []), *list(targets or ())]
    s = settings(rules, (), seats if fields is None else None, game)
    spt = seconds_per_turn
    if spt is None and tf is not None:
        spt = tf.seconds_per_turn
    fmap, _, cat = _players(s.rules, s.seats, fields, spt)
    tlist = parse_targets(texts, cat)
    games = _whole(games, 2, 10**9, "The games of a check")
    seed = _whole(seed, 0, 2**63 - 1, "The seed")
    metrics = list({t.metric.name: t.metric for t in tlist}.values())
    rows = []
    for i, (f, text) in enumerate(fmap.items()):
        res = simulate(s.rules, text, games=games, seed=seed, threads=threads)
        data = cat.evaluate(res.games, res.seats, metrics)
        for t in tlist:
            d = assess(t, data, LEVEL)
            row = {"field": f, "target": t.text, "value": d["value"], "low": d["low"],
                   "high": d["high"], "unit": t.unit, "status": d["status"],
                   "confidence": d["confidence"], "games": d["games"], "played": games}  # fmt: skip
            if adv is not None:
                row["verified"] = adv["verified"].get(t.text, {}).get(f)
            rows.append(row)
        if progress is not None:
            progress((i + 1) * games, len(fmap) * games)
    return _frame(rows).with_columns(pl.lit(s.rules.id).alias("rules_id"),
                                     pl.lit(seed).alias("seed"))  # fmt: skip


def _precise(value, lo, hi, unit) -> tuple[str, str]:
    """An estimate and its interval to the decimals the interval's width needs (two
    significant digits of it: a check's many games narrow it); spreads and edges in points as
    :func:`_fmt` writes them."""
    from sim import fmt

    if unit == "pts" or fmt.is_na(value) or fmt.is_na(lo) or fmt.is_na(hi) or lo == hi:
        return _fmt(value, unit), _interval(lo, hi, unit)
    d = min(max(0, 1 - math.floor(math.log10(abs(hi - lo)))), 10)
    return f"{value:.{d}f}", f"[{lo:.{d}f}, {hi:.{d}f}]"


def check_text(df: pl.DataFrame) -> str:
    """A check (:func:`check`) as ``loba advise --check`` prints it: the rules and games, one
    row per field and target (estimate, 95% interval, verdict, confidence, and the advise's
    own verdict when the check read its folder), and a sentence: how many targets are met,
    and whether every target the advise verified as met is met again."""
    from .text import aligned

    fields = df["field"].unique(maintain_order=True).to_list()
    many = len(fields) > 1
    has_v = "verified" in df.columns
    head = ["target", "estimate", "95% interval", "verdict", "confidence"]
    head = (["field"] if many else []) + head + (["verified"] if has_v else [])
    rows = []
    for r in df.iter_rows(named=True):
        row = [r["target"], *_precise(r["value"], r["low"], r["high"], r["unit"]), r["status"],
               _conf(r["confidence"])]  # fmt: skip
        rows.append(([r["field"]] if many else []) + row + ([r["verified"] or ""] if has_v else []))
    games = int(df["played"][0]) if df.height else 0
    where = f" in each field ({', '.join(fields)})" if many else f" ({fields[0]})"
    lines = [f"check: {df['rules_id'][0]} on fresh games of seed {df['seed'][0]}{where}", ""]
    lines.append(aligned(head, rows, [h in ("estimate", "confidence") for h in head]))
    targets = df["target"].unique(maintain_order=True).to_list()
    met = [t for t in targets if (df.filter(pl.col("target") == t)["status"] == MET).all()]
    text = f"{len(met)} of {len(targets)} targets met{' in every field' if many else ''}"
    text += f" ({games:,} games{' a field' if many else ''}, 95% intervals)."
    if has_v:
        claimed = df.filter(pl.col("verified") == MET)
        missed = claimed.filter(pl.col("status") != MET)
        if df["verified"].is_null().all():
            text += " None of these targets was the advise's."
        elif not claimed.height:
            text += " The advise verified no target as met."
        elif not missed.height:
            text += " Every target the advise verified as met is met again."
        else:
            text += " Verified as met but not met here: " + "; ".join(
                f"{r['target']}{' (' + r['field'] + ')' if many else ''}: {r['status']}"
                for r in missed.iter_rows(named=True)
            ) + "."
    lines += ["", text]
    return "\n".join(lines)

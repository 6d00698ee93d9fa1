"""Tuning a policy's parameters against a field of opponents, with Optuna.

**What is measured.** A candidate is the tuned policy with one value for each tuned parameter
(a seat string, ``hold:patience=5``). It sits at a table with the *field* (``--against``: one
seat string for every other seat, or one per other seat) and its score is its **win share**:
the share of games the tuned seat won. The table ``[tuned, f1, f2, ...]`` is played in each of
its ``P`` rotations (the tuned seat in seat 0, 1, ..., P-1, the field keeping its cyclic order
around it), so that the advantage of a seat position cancels.

**Common random numbers.** Every candidate plays the same *deals*: deal ``i`` is game ``i`` of
the tuning seed, and it is played in all ``P`` rotations; so every candidate meets the same
cards in the same seats, and the differences between candidates are theirs, not the cards'.
``games`` is the games a full trial plays, ``deals x P`` (rounded up to whole deals). A
candidate's per-deal score is its win share over that deal's ``P`` rotations (0, 1/P, ..., 1).

**Racing.** A trial plays its deals in rungs of 1/8, 1/4, 1/2 and all of them (``rungs=4``;
each rung plays only the deals the previous one had not) and reports its win share after each
to Optuna, whose pruner may stop it there:

* ``race`` (default): stop a trial whose paired 95% t interval of the per-deal difference to
  the best finished trial, on the deals played so far, lies wholly below 0 (clearly worse
  than the incumbent on the very same deals);
* ``halving``: Optuna's ``SuccessiveHalvingPruner`` (reduction factor 2): a trial goes on
  to the next rung only when its win share is in the better half of those that reached the
  rung;
* ``none``: every trial plays all its deals.

Every trial records the games its win share is measured on (``games``) and the games it
played itself (``played``: a candidate that repeats an earlier one's parameters reuses that
one's deals, since they would play the very same games, and plays only the ones still
missing; it is only pruned at a rung whose next rung still has games to play). Trial 0
plays the default parameters (when they lie in the ranges), which makes it the first
incumbent. The sampler is Optuna's TPE, seeded by the seed.

**Parameters.** ``NAME=LO..HI`` for each tuned parameter; the range must lie inside the
policy's declared range (``Policy.ranges``). A parameter takes whole numbers when both bounds
are written as whole numbers and its default is a whole number (``patience=0..12``); writing
a bound with a point (``0.0..12``) tunes it over all numbers, rounded to 4 significant digits
so that the seat string stays readable and is exactly the one played. Parameters not tuned
keep the values the policy's seat string gives them (``careful:safe=1`` tunes the others with
``safe`` fixed at 1), and its add-ons (``+rebuy=never``) are kept.

**Fresh evaluation.** The best trial's value is optimistic (it is the maximum of many noisy
estimates on the same games), so the best seat is measured again on *fresh* deals: games
``0 .. eval_deals-1`` of a seed that tuning did not use (:func:`fresh_seed`), in the same
rotations; the default seat (the policy as given, without the tuned values) plays the
identical games, so their difference is paired, deal by deal. Intervals: Student t over the
deals of the per-deal win share (and of the per-deal difference): the rotations of one deal
share its cards and are not independent, the deals are.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import optuna
import polars as pl

from .errors import AnalysisError
from .estimate import estimate, sums_from_arrays
from .stats import LEVEL, mean_ci

RUNGS = 4
PRUNERS = ("race", "halving", "none")
MAX_TRIALS = 10_000
STUDY_FILES = ("study.parquet", "study.csv", "best.json")

__all__ = [
    "PRUNERS",
    "Evaluation",
    "ParamRange",
    "PairedRacePruner",
    "TunePlan",
    "TuneResult",
    "evaluate_seat",
    "fresh_seed",
    "parse_param",
    "plan",
    "play_deals",
    "run_tune",
    "tune",
]


# ---------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class ParamRange:
    """One tuned parameter: its name, lowest and highest value (both included) and whether it
    takes whole numbers only."""

    name: str
    low: float
    high: float
    integer: bool
    allowed: tuple[float, float] = (-math.inf, math.inf)  # the policy's own range of it

    def text(self) -> str:
        f = (lambda v: str(int(v))) if self.integer else (lambda v: f"{v:g}")
        return f"{self.name}={f(self.low)}..{f(self.high)}"

    def edge(self, v: float) -> str | None:
        """``"low"``/``"high"`` when ``v`` lies at that end of the range (within 5% of its
        width) and the policy allows values beyond it (the best may lie there), else None."""
        width = self.high - self.low
        if width <= 0:
            return None
        near = 0.0 if self.integer else 0.05 * width
        if v <= self.low + near and self.low > self.allowed[0]:
            return "low"
        if v >= self.high - near and self.high < self.allowed[1]:
            return "high"
        return None


_WHOLE = re.compile(r"[+-]?\d+")
_PARAM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+?)\s*\.\.\s*(\S+)\s*")


def parse_param(text: str) -> tuple[str, str, str]:
    """``NAME=LO..HI`` -> (name, lo text, hi text); one sentence if it is not that."""
    m = _PARAM.fullmatch(str(text))
    if not m:
        raise AnalysisError(
            f"--param '{text}' is not NAME=LO..HI; write e.g. patience=0..12 or danger=0.5..20."
        )
    return m.group(1), m.group(2), m.group(3)


def _bound(text: str, name: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise AnalysisError(f"--param {name}: '{text}' is not a number.") from None
    if not math.isfinite(v):
        raise AnalysisError(f"--param {name}: the bounds must be finite numbers, not '{text}'.")
    return v


def _ranges(seat, params, text: str | None = None) -> list[ParamRange]:
    """The checked ranges of ``params`` (``NAME=LO..HI`` strings, or a dict name -> (lo, hi))
    for the seat's policy (``text``: the seat as written, whose named parameters are fixed,
    even at their default values); one-sentence errors."""
    pol = seat.policy
    name = seat.policy_ref
    defaults = dict(getattr(pol, "params", {}) or {})
    declared = dict(getattr(pol, "ranges", {}) or {})
    if isinstance(params, str):
        params = [params]
    if isinstance(params, dict):
        items = []
        for k, (lo, hi) in params.items():
            whole = all(isinstance(b, int) and not isinstance(b, bool) for b in (lo, hi))
            items.append((k, str(lo), str(hi), whole))
    else:
        items = []
        for p in params or ():
            k, lo, hi = parse_param(p)
            items.append((k, lo, hi, bool(_WHOLE.fullmatch(lo) and _WHOLE.fullmatch(hi))))
    if not items:
        raise AnalysisError("Give at least one parameter to tune: --param NAME=LO..HI.")
    if not defaults:
        raise AnalysisError(f"Policy '{name}' has no parameters to tune.")
    named = (text or seat.label).split("+", 1)[0].split(":")  # the parameters it names
    fixed = {k for k, v in seat.policy_params if v != defaults.get(k)}
    fixed |= {p.partition("=")[0].strip() for p in named if "=" in p}
    out: list[ParamRange] = []
    for k, lo_t, hi_t, whole in items:
        if k not in defaults:
            raise AnalysisError(
                f"Policy '{name}' has no parameter '{k}' (it has: {', '.join(defaults)})."
            )
        if any(r.name == k for r in out):
            raise AnalysisError(f"--param {k} is given twice; give each parameter once.")
        if k in fixed:
            raise AnalysisError(
                f"'{k}' is both fixed in the seat '{text or seat.label}' and tuned by --param;"
                " give it once."
            )
        lo, hi = _bound(lo_t, k), _bound(hi_t, k)
        if lo > hi:
            raise AnalysisError(f"--param {k}={lo_t}..{hi_t}: the low end is above the high end.")
        dlo, dhi = declared.get(k, (-math.inf, math.inf))
        if lo < dlo or hi > dhi:
            raise AnalysisError(
                f"--param {k}={lo_t}..{hi_t} leaves the range of '{name}', whose {k} must be"
                f" between {dlo:g} and {dhi:g}."
            )
        integer = whole and float(defaults[k]).is_integer()
        out.append(ParamRange(k, lo, hi, integer, (dlo, dhi)))
    return out


def _round(v: float, r: ParamRange) -> float:
    """A suggested value as played: whole numbers as they are, others to 4 significant
    digits, kept within the range."""
    if r.integer:
        return float(int(round(v)))
    return min(max(float(f"{float(v):.4g}"), r.low), r.high)


# ---------------------------------------------------------------------------- the plan
def fresh_seed(seed: int) -> int:
    """The seed of the fresh evaluation: derived from the tuning seed, never equal to it."""
    s = int(np.random.SeedSequence([int(seed), 0x7E5E]).generate_state(1, np.uint64)[0]) >> 1
    return s if s != seed else (s + 1) % 2**63


@dataclass
class TunePlan:
    """A checked tuning job, before any game."""

    rules: object
    base: object  # sim.policies.Seat: the policy as given (its defaults and add-ons)
    ranges: list[ParamRange]
    field: list[str]  # the other seats' labels, in seat order after the tuned seat
    players: int
    deals: int  # per full trial; games = deals * players
    rung_deals: list[int]
    trials: int
    seed: int
    eval_deals: int  # 0: no fresh evaluation
    eval_seed: int
    pruner: str = "race"
    threads: int | None = None

    @property
    def game(self) -> str:
        return self.rules.game

    @property
    def games(self) -> int:
        return self.deals * self.players

    @property
    def eval_games(self) -> int:
        return self.eval_deals * self.players

    @property
    def default_seat(self) -> str:
        return self.base.label

    def seat(self, values: dict[str, float]) -> str:
        """The canonical seat string of the tuned policy with ``values``."""
        from sim.policies import _num, parse_seat

        label = self.base.label
        head, plus, tail = label.partition("+")
        for k, v in values.items():
            head += f":{k}={_num(v)}"
        return parse_seat(head + plus + tail, self.game).label

    def seatings(self, seat: str) -> list[tuple[str, ...]]:
        """The rotations of ``[seat] + field``: seating ``r`` has the tuned seat in seat ``r``."""
        table = [seat, *self.field]
        p = len(table)
        return [tuple(table[(i - r) % p] for i in range(p)) for r in range(p)]

    def describe(self) -> str:
        return (
            f"{self.default_seat} against {','.join(self.field)} ({self.players} players,"
            f" {self.rules.id}): {self.trials} trials of up to {self.games:,} games"
            f" ({self.deals:,} deals x {self.players} seatings), seed {self.seed},"
            f" pruner {self.pruner}"
        )


def _whole(x, low: int, high: int, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or not low <= x <= high:
        raise AnalysisError(f"{what} must be a whole number from {low:,} to {high:,}, not {x}.")
    return int(x)


def _rungs(deals: int, rungs: int) -> list[int]:
    out: list[int] = []
    for k in range(rungs):
        d = max(1, round(deals / 2 ** (rungs - 1 - k)))
        if not out or d > out[-1]:
            out.append(d)
    out[-1] = deals
    return out


def plan(
    policy: str,
    against=None,
    params=None,
    games: int = 4000,
    trials: int = 20,
    seed: int = 0,
    rules=None,
    players: int | None = None,
    eval_games: int | None = None,
    eval_seed: int | None = None,
    pruner: str = "race",
    rungs: int = RUNGS,
    threads: int | None = None,
    game=None,
) -> TunePlan:
    """Check everything a tuning job needs before any game; one-sentence errors.

    ``policy``: the tuned seat string (``hold``, ``careful:safe=1``, ``wary+rebuy=never``);
    ``against``: the field, one seat string for every other seat or one per other seat (a
    comma-separated string or a list; None: the game's default policy); ``params``:
    ``NAME=LO..HI`` strings or a dict ``{name: (lo, hi)}`` (whole numbers when both bounds are
    ints and the default is whole); ``games``: games a full trial plays over all seatings;
    ``players``: None for the field's size plus one (one field seat: the game's usual table);
    ``eval_games``: fresh games for the evaluation (None: ``games``; 0: none)."""
    from sim.games import get_game
    from sim.policies import SeatError, parse_seat, parse_seats
    from sim.setup import resolve_rules

    rules = resolve_rules(rules, game)
    spec = get_game(rules.game)
    base = parse_seat(policy, spec)
    if base.game != spec.name:
        raise SeatError(f"Seat '{base.label}' plays {base.game}, not {spec.title}.")
    ranges = _ranges(base, params, policy)
    if against is None:
        against = spec.default_seats.split(",")[0]
    text = against if isinstance(against, str) else ",".join(str(a) for a in against)
    fld = [s.label for s in parse_seats(text, game=spec)]
    if players is not None:
        if isinstance(players, bool) or not isinstance(players, int | np.integer):
            raise AnalysisError(f"--players must be a whole number, not {players}.")
        players = int(players)
    elif len(fld) > 1:
        players = len(fld) + 1
    else:
        players = len(spec.default_seats.split(","))
    rules.check_players(players)
    if len(fld) == 1:
        fld = fld * (players - 1)
    elif len(fld) != players - 1:
        raise AnalysisError(
            f"--against names {len(fld)} seats; {players} players leave {players - 1} other"
            f" seats: give one seat string for all of them or {players - 1}."
        )
    games = _whole(games, 2 * players, 10**9, f"--games (at {players} players)")
    trials = _whole(trials, 1, MAX_TRIALS, "--trials")
    seed = _whole(seed, 0, 2**63 - 1, "The seed")
    rungs = _whole(rungs, 1, 10, "The number of rungs")
    if pruner not in PRUNERS:
        raise AnalysisError(f"The pruner must be one of {', '.join(PRUNERS)}, not '{pruner}'.")
    deals = -(-games // players)
    eg = games if eval_games is None else eval_games
    eg = _whole(eg, 0, 10**9, "--eval-games")
    if 0 < eg < 2 * players:
        raise AnalysisError(
            f"--eval-games must be 0 (no fresh evaluation) or at least {2 * players}, not {eg}."
        )
    if eval_seed is None:
        eval_seed = fresh_seed(seed)
    eval_seed = _whole(eval_seed, 0, 2**63 - 1, "The evaluation seed")
    if eval_seed == seed:
        raise AnalysisError(
            f"The evaluation seed must differ from the tuning seed ({seed}): fresh games."
        )
    return TunePlan(
        rules,
        base,
        ranges,
        fld,
        players,
        deals,
        _rungs(deals, rungs),
        trials,
        seed,
        -(-eg // players),
        eval_seed,
        pruner,
        threads,
    )


# ---------------------------------------------------------------------------- playing
def play_deals(
    t: TunePlan, seat: str, seed: int, start: int, count: int, threads: int | None = None
) -> np.ndarray:
    """The tuned seat's per-deal win share over the rotations: deals ``start ..
    start+count-1`` of ``seed`` (game ``i`` of the seed in every rotation)."""
    from sim.runner import simulate

    wins = np.zeros(count)
    for r, seating in enumerate(t.seatings(seat)):
        res = simulate(t.rules, list(seating), games=count, seed=seed, start=start, threads=threads)
        w = res.games.sort("game")["winner"].cast(pl.Int64)
        wins += (w == r).fill_null(False).to_numpy().astype(float)
    return wins / t.players


class PairedRacePruner(optuna.pruners.BasePruner):
    """An Optuna pruner: stop a trial whose paired ``level`` t
    interval of the per-deal difference to the best finished trial, on the deals it has
    played, lies wholly below 0. ``scores(number)`` gives a trial's per-deal scores so far."""

    def __init__(self, scores: Callable[[int], np.ndarray | None], level: float = LEVEL):
        self.scores, self.level = scores, level

    def prune(self, study, trial) -> bool:
        done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        if not done:
            return False
        best = max(done, key=lambda x: x.value)
        mine, theirs = self.scores(trial.number), self.scores(best.number)
        if mine is None or theirs is None or len(mine) < 2 or len(theirs) < len(mine):
            return False
        hi = mean_ci(mine - theirs[: len(mine)], self.level)[2]
        return bool(hi < 0)  # NaN (no spread): never


def _optuna_pruner(name: str, scores):
    if name == "race":
        return PairedRacePruner(scores)
    if name == "halving":
        # steps are rung sizes in units of the first rung (1, 2, 4, ...), so the halving
        # pruner's rungs are ours
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=2)
    return optuna.pruners.NopPruner()


# ---------------------------------------------------------------------------- results
@dataclass
class Evaluation:
    """The best seat and the default seat on the same fresh deals: ``table`` has one row per
    seat (``role`` tuned/default: ``seat, deals, games, wins, win_share, ci_low, ci_high,
    fair_share``); ``diff`` (tuned - default) with its paired interval and p-value;
    ``tuned_scores``/``default_scores``: their per-deal win shares."""

    seed: int
    deals: int
    players: int
    table: pl.DataFrame
    diff: float
    diff_low: float
    diff_high: float
    p_value: float
    tuned_scores: np.ndarray = field(repr=False)
    default_scores: np.ndarray = field(repr=False)

    @property
    def games(self) -> int:
        return self.deals * self.players

    def to_dict(self) -> dict:
        return _clean(
            {
                "seed": self.seed,
                "deals": self.deals,
                "games": self.games,
                "level": LEVEL,
                "seats": self.table.to_dicts(),
                "diff": self.diff,
                "diff_low": self.diff_low,
                "diff_high": self.diff_high,
                "p_value": self.p_value,
            }
        )


def _clean(x):
    """NaN -> None, numpy scalars -> Python, for JSON."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def evaluate_seat(
    t: TunePlan, seat: str, progress: Callable[[int, int], None] | None = None
) -> Evaluation:
    """``seat`` and the default seat on ``t.eval_deals`` fresh deals of ``t.eval_seed``."""
    from scipy import stats as st

    n = t.eval_deals
    dflt = t.default_seat
    total = n * t.players * (1 if seat == dflt else 2)
    tuned = play_deals(t, seat, t.eval_seed, 0, n, t.threads)
    if progress is not None:
        progress(n * t.players, total)
    base = tuned if seat == dflt else play_deals(t, dflt, t.eval_seed, 0, n, t.threads)
    if progress is not None:
        progress(total, total)
    rows = []
    for role, s, sc in (("tuned", seat, tuned), ("default", dflt, base)):
        # a deal (played once from each seat) is the unit: wins of the deal's games over them
        e = estimate(sums_from_arrays(sc * t.players, np.full(n, float(t.players))), "share", True)
        m, lo, hi = e["value"], e["ci_low"], e["ci_high"]
        rows.append(
            {
                "role": role,
                "seat": s,
                "deals": n,
                "games": n * t.players,
                "wins": int(round(float(sc.sum()) * t.players)),
                "win_share": m,
                "ci_low": lo,
                "ci_high": hi,
                "fair_share": 1 / t.players,
            }
        )
    d = tuned - base
    dm, dlo, dhi, _ = mean_ci(d)
    if np.all(d == 0):
        p = 1.0
    else:
        p = float(st.ttest_1samp(d, 0.0).pvalue)
    return Evaluation(t.eval_seed, n, t.players, pl.DataFrame(rows), dm, dlo, dhi, p, tuned, base)


@dataclass
class TuneResult:
    """What :func:`tune` found: ``best_seat`` (a seat string), ``best_params``, the best
    trial's win share on the tuning games (``best_value``: optimistic, see ``evaluation``),
    ``study`` (one row per trial: ``trial, state, games, played, win_share, seat`` and a
    column per tuned parameter), ``evaluation`` (:class:`Evaluation`, or None with no fresh
    games) and the Optuna study itself (``optuna_study``)."""

    plan: TunePlan
    study: pl.DataFrame
    best_trial: int
    best_seat: str
    best_params: dict[str, float]
    best_value: float
    evaluation: Evaluation | None
    optuna_study: object = field(repr=False, default=None)
    games_played: int = 0
    elapsed: float = 0.0

    @property
    def pruned(self) -> int:
        return int((self.study["state"] == "pruned").sum())

    @property
    def at_edge(self) -> dict[str, str]:
        """Tuned parameter -> ``"low"``/``"high"``: the best value lies at that end of its
        range, and the policy allows values beyond it (a wider range may find better)."""
        out = {}
        for r in self.plan.ranges:
            side = r.edge(float(self.best_params.get(r.name, math.nan)))
            if side is not None:
                out[r.name] = side
        return out

    def to_dict(self) -> dict:
        """What ``best.json`` and ``--format json`` hold."""
        t = self.plan
        return _clean(
            {
                "game": t.game,
                "rules_id": t.rules.id,
                "policy": t.default_seat,
                "against": t.field,
                "players": t.players,
                "params": [r.text() for r in t.ranges],
                "integer": {r.name: r.integer for r in t.ranges},
                "trials": t.trials,
                "games_per_trial": t.games,
                "deals_per_trial": t.deals,
                "rung_games": [d * t.players for d in t.rung_deals],
                "seed": t.seed,
                "pruner": t.pruner,
                "games_played": self.games_played,
                "pruned": self.pruned,
                "best_trial": self.best_trial,
                "best_seat": self.best_seat,
                "best_params": self.best_params,
                "best_tuning_win_share": self.best_value,
                "best_at_edge": self.at_edge,
                "default_seat": t.default_seat,
                "evaluation": None if self.evaluation is None else self.evaluation.to_dict(),
                "study": self.study.to_dicts(),
            }
        )

    def write(self, out, overwrite: bool = False) -> list[Path]:
        """``OUT/study.parquet``, ``OUT/study.csv`` and ``OUT/best.json`` (each written whole
        or not at all)."""
        from sim.files import atomic_output, check_out_dir

        check_out_dir(out, overwrite)
        outp = Path(out)
        paths = [outp / f for f in STUDY_FILES]
        with atomic_output(paths[0]) as tmp:
            self.study.write_parquet(tmp)
        with atomic_output(paths[1]) as tmp:
            self.study.write_csv(tmp)
        with atomic_output(paths[2]) as tmp:
            Path(tmp).write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return paths


# ---------------------------------------------------------------------------- tuning
def _check_first(t: TunePlan, values: dict) -> dict:
    """One of ``first``'s dicts, checked: every tuned parameter, inside its range."""
    names = [r.name for r in t.ranges]
    if set(values) != set(names):
        raise AnalysisError(
            f"A first trial must give exactly the tuned parameters ({', '.join(names)}), not"
            f" {', '.join(map(str, values)) or 'none'}."
        )
    out = {}
    for r in t.ranges:
        v = values[r.name]
        if isinstance(v, bool) or not isinstance(v, int | float | np.number):
            raise AnalysisError(f"A first trial's {r.name} must be a number, not {v!r}.")
        if not r.low <= float(v) <= r.high or (r.integer and not float(v).is_integer()):
            raise AnalysisError(f"A first trial's {r.name}={v} is not in {r.text()}.")
        out[r.name] = float(v)
    return out


def run_tune(
    t: TunePlan,
    progress: Callable[[int, int], None] | None = None,
    on_trial: Callable[[dict], None] | None = None,
    evaluate: bool = True,
    first: Sequence[dict] = (),
) -> TuneResult:
    """Run the study of ``t`` (``progress(trials done, trials)`` after each trial,
    ``on_trial(row)`` with its study-table row), then (``evaluate``, and ``t.eval_deals`` > 0)
    the fresh evaluation of the best seat (:func:`evaluate_seat`). ``first``: parameter values
    (dicts name -> value, inside the ranges) that the trials after the default's play first,
    e.g. an earlier study's best."""
    import logging

    from optuna.trial import TrialState

    first = [_check_first(t, f) for f in first]
    t0 = time.perf_counter()
    cache: dict[str, np.ndarray] = {}  # seat -> per-deal scores of the deals played so far
    reached: dict[int, tuple[str, int]] = {}  # trial number -> (seat, deals reached)

    def scores(number: int):
        if number not in reached:
            return None
        seat, n = reached[number]
        return cache[seat][:n]

    olog = optuna.logging.get_logger("optuna")
    level = olog.level
    optuna.logging.set_verbosity(logging.WARNING)
    try:
        study = optuna.create_study(
            direction="maximize",
            sampler=optuna.samplers.TPESampler(
                seed=t.seed % 2**32, n_startup_trials=max(1, min(10, t.trials // 2))
            ),
            pruner=_optuna_pruner(t.pruner, scores),
        )
        defaults = dict(t.base.policy_params)
        if all(r.low <= defaults[r.name] <= r.high for r in t.ranges):
            first = [{r.name: defaults[r.name] for r in t.ranges}, *first]
        for f in first:
            study.enqueue_trial(
                {r.name: int(f[r.name]) if r.integer else f[r.name] for r in t.ranges}
            )
        rows, played_total = [], 0
        for i in range(t.trials):
            trial = study.ask()
            values = {}
            for r in t.ranges:
                if r.integer:
                    v = trial.suggest_int(r.name, int(r.low), int(r.high))
                else:
                    v = trial.suggest_float(r.name, r.low, r.high)
                values[r.name] = _round(v, r)
            seat = t.seat(values)
            have = cache.setdefault(seat, np.zeros(0))
            played, state = 0, TrialState.COMPLETE
            for k, n in enumerate(t.rung_deals):
                if len(have) < n:
                    more = play_deals(t, seat, t.seed, len(have), n - len(have), t.threads)
                    played += len(more) * t.players
                    have = cache[seat] = np.concatenate([have, more])
                reached[trial.number] = (seat, n)
                value = float(have[:n].mean())
                if k < len(t.rung_deals) - 1:
                    trial.report(value, 2**k)
                    # stopping saves games only while the next rung has some to play: a
                    # repeat of a finished candidate finishes too
                    if len(have) < t.rung_deals[k + 1] and trial.should_prune():
                        state = TrialState.PRUNED
                        break
            if state == TrialState.PRUNED:
                study.tell(trial, state=TrialState.PRUNED)
            else:
                study.tell(trial, value)
            played_total += played
            row = {
                "trial": trial.number,
                "state": "pruned" if state == TrialState.PRUNED else "complete",
                "games": n * t.players,
                "played": played,
                "win_share": value,
                **values,
                "seat": seat,
            }
            rows.append(row)
            if on_trial is not None:
                on_trial(row)
            if progress is not None:
                progress(i + 1, t.trials)
    finally:
        olog.setLevel(level)
    schema = {
        "trial": pl.Int64,
        "state": pl.String,
        "games": pl.Int64,
        "played": pl.Int64,
        "win_share": pl.Float64,
        **{r.name: (pl.Int64 if r.integer else pl.Float64) for r in t.ranges},
        "seat": pl.String,
    }
    table = pl.DataFrame(rows, schema=schema)
    best = study.best_trial
    best_row = rows[best.number]
    best_params = {r.name: best_row[r.name] for r in t.ranges}
    ev = evaluate_seat(t, best_row["seat"]) if (evaluate and t.eval_deals) else None
    return TuneResult(
        t,
        table,
        best.number,
        best_row["seat"],
        best_params,
        float(best.value),
        ev,
        study,
        played_total,
        time.perf_counter() - t0,
    )


def tune(
    policy: str,
    against=None,
    params=None,
    games: int = 4000,
    trials: int = 20,
    seed: int = 0,
    rules=None,
    players: int | None = None,
    *,
    eval_games: int | None = None,
    eval_seed: int | None = None,
    pruner: str = "race",
    rungs: int = RUNGS,
    threads: int | None = None,
    game=None,
    progress: Callable[[int, int], None] | None = None,
    first: Sequence[dict] = (),
) -> TuneResult:
    """:func:`plan` then :func:`run_tune`: e.g. ``tune("hold", "greedy", ["patience=0..12"],
    games=4000, trials=20)``; ``.best_seat``, ``.study`` (polars), ``.evaluation``."""
    t = plan(
        policy,
        against,
        params,
        games,
        trials,
        seed,
        rules,
        players,
        eval_games,
        eval_seed,
        pruner,
        rungs,
        threads,
        game,
    )
    return run_tune(t, progress, first=first)

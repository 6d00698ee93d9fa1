"""The search: the searched knobs (:class:`Axis`), the checked question (:func:`plan`), the
Optuna search with its race and the verification on fresh games (:func:`run_advise`), and all
at once with an output folder (:func:`advise`, :func:`prepare_out`)."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import AnalysisError
from ..stats import LEVEL
from .constants import (
    ADVISE_VERSION,
    FILES,
    MAX_IDLE,
    MAX_SHORT,
    MAX_TRIALS,
    MET,
    MIN_TRIAL_GAMES,
    MIN_VERIFY_GAMES,
    NOT_MET,
    RACE_LEVEL,
    RUNGS,
    TOP,
    TRIALS_PER_BUDGET,
    UNDECIDED,
    VERIFY_SHARE,
)
from .measure import GameStore, Measured, _frame, measure, setting_text
from .output import AdviceResult
from .targets import Catalog, Metric, Target, catalog, parse_targets, read_targets_file


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

    from ..field import default_players, field_seats, parse_fields

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

    from ..tune import fresh_seed

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
    if tf is not None:
        tf.check_game(game)
    spt = seconds_per_turn
    if spt is None and tf is not None:
        spt = tf.seconds_per_turn
    if spt is not None and (isinstance(spt, bool) or not 1 <= float(spt) <= 3600):
        raise AnalysisError(f"Seconds per turn must be a number from 1 to 3,600, not {spt}.")
    fmap, field_given, cat = _players(base, s.seats, fields, spt)
    tlist = parse_targets(texts, cat)
    vtexts = list(vary or ()) or (tf.vary if tf else [])
    from ..bygame import for_game

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
    """Search, race and verify (:mod:`analysis.advise`). ``out``: the folder keeping every game's
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

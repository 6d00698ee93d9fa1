"""A game's headline findings re-checked with stronger players: each finding measured once per
field of players (:mod:`analysis.field`), side by side, with a verdict against the first field.

A game declares its findings once, in its own analysis package, as a :class:`FindingsSpec`
(:attr:`analysis.bygame.GameAnalysis.findings`): the **arms** (the runs every field plays:
the base rules, a knob changed, a seat's rule switched) and the **findings**, each a function
of the arms' tables returning its measures. A measure is an estimate with its 95% interval by
the project's estimators (:mod:`analysis.estimate`: clustered by game; a difference between
two arms is paired game by game, the arms playing the same seeds) and the **reference** it is
read against (0 for a difference, the fair share for a win share, one half for a contract's
success).

Every field plays games ``0..n-1`` of the same seed in every arm; a field may play fewer games
than another (searching players are slow), and each row says how many. Against the first
field, each measure of a later field gets a verdict (:func:`finding_verdict`):

- ``flips``: both fields' intervals exclude the reference, on opposite sides;
- ``changes``: not a flip, and the change between the two fields has an interval that excludes
  0 (the two fields' intervals combined by their half-widths,
  :func:`analysis.field.change_interval`: the fields are independent games, or share only
  their deals) — the same direction with a detectably different size, or one field resolving
  the finding where the other does not;
- ``holds``: both intervals on the same side of the reference, or both covering it, and no
  detectable change;
- ``cannot tell``: one field's interval excludes the reference and the other's covers it, but
  the change is not detectable either (the other field's games are too few to say), or a field
  has no interval (too few games, a level no game reached).

So "holds" does not say that two fields agree exactly; it says these games cannot tell them
apart and they read the same way. With ``out``, each field's arm is a run directory
``OUT/field=NAME/ARM/`` that a later call with the same settings reads again (and an
interrupted one resumes), so a study can be grown field by field, and game by game: a call
asking for more games plays only the rest, into ``ARM@FIRST/`` (:func:`_play`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .errors import AnalysisError
from .field import CANNOT, FLIPS, HOLDS, change_interval, field_seats, parse_fields

CHANGES = "changes"
FINDING_VERDICTS = (HOLDS, CHANGES, FLIPS, CANNOT)

__all__ = [
    "CHANGES",
    "FINDING_VERDICTS",
    "Arm",
    "Finding",
    "FindingsResult",
    "FindingsSpec",
    "Played",
    "findings_output",
    "finding_verdict",
    "run_findings",
    "stack",
]


@dataclass(frozen=True)
class Played:
    """The tables of one arm in one field: ``games``, ``seats`` and the detail table
    (``detail``, None when not recorded), eager or lazy polars frames; ``n``: its games."""

    games: object
    seats: object
    detail: object | None
    n: int


@dataclass(frozen=True)
class Arm:
    """One run every field plays: ``tag`` (its folder), ``sets`` (``KNOB=VALUE`` over the
    study's rules), ``seats(labels) -> labels`` (the field's seat strings changed, e.g. seat 0's
    rebuy rule; None: the field's own), ``detail`` (record the detail table)."""

    tag: str
    sets: tuple[str, ...] = ()
    seats: Callable[[list[str]], list[str]] | None = None
    detail: bool = False


@dataclass(frozen=True)
class Finding:
    """One finding: ``key`` (short id), ``title`` (what it asks, in words), ``arms`` (the tags
    it reads) and ``measure(played, game) -> rows``: ``played`` maps each arm's tag to its
    :class:`Played`; each row a dict ``measure, unit, value, ci_low, ci_high, reference`` (and
    optionally ``method``), its interval None where there is none. ``reads``: how the first
    field's result is read, completed by the numbers (e.g. "higher with 151")."""

    key: str
    title: str
    arms: tuple[str, ...]
    measure: Callable[[dict, str], list[dict]]


@dataclass(frozen=True)
class FindingsSpec:
    """A game's findings study: ``rules`` (the base rules id), ``arms``, ``findings`` and the
    default ``fields`` (weakest first)."""

    rules: str
    arms: tuple[Arm, ...]
    findings: tuple[Finding, ...]
    fields: tuple[str, ...] = ("greedy", "mixed", "expert")

    def arm(self, tag: str) -> Arm:
        return next(a for a in self.arms if a.tag == tag)


# ---------------------------------------------------------------- the verdict
def _bad(*xs) -> bool:
    return any(x is None or (isinstance(x, float) and math.isnan(x)) for x in xs)


def _side(lo: float, hi: float, ref: float) -> int:
    """+1: the interval lies above ``ref``; -1: below; 0: it covers it."""
    return 1 if lo > ref else (-1 if hi < ref else 0)


def finding_verdict(ref_value, ref_low, ref_high, value, low, high, reference=0.0) -> str:
    """How a measure moves from the first field (``ref_value`` in ``ref_low..ref_high``) to
    another (``value`` in ``low..high``), read against ``reference``: ``flips``, ``changes``,
    ``holds`` or ``cannot tell`` (module docstring)."""
    if _bad(ref_value, ref_low, ref_high, value, low, high, reference):
        return CANNOT
    a, b = _side(ref_low, ref_high, reference), _side(low, high, reference)
    if a and b and a != b:
        return FLIPS
    _, clo, chi = change_interval(ref_value, ref_low, ref_high, value, low, high)
    if not clo <= 0 <= chi:
        return CHANGES
    return HOLDS if (a == 0) == (b == 0) else CANNOT


# ---------------------------------------------------------------- measures, for a game's findings
def stack(played: dict, tags) -> tuple:
    """The arms ``tags`` of ``played`` as one set of lazy frames, variant = tag (games, seats,
    detail; detail None unless every arm recorded it)."""

    def tag(x, i, t):
        lf = x.lazy() if isinstance(x, pl.DataFrame) else x
        return lf.with_columns(pl.lit(t).alias("variant"), pl.lit(i, dtype=pl.Int32).alias("run"))

    ps = [played[t] for t in tags]
    games = pl.concat([tag(p.games, i, t) for i, (p, t) in enumerate(zip(ps, tags, strict=True))],
                      how="vertical_relaxed")  # fmt: skip
    seats = pl.concat([tag(p.seats, i, t) for i, (p, t) in enumerate(zip(ps, tags, strict=True))],
                      how="vertical_relaxed")  # fmt: skip
    detail = None
    if all(p.detail is not None for p in ps):
        detail = pl.concat(
            [tag(p.detail, i, t) for i, (p, t) in enumerate(zip(ps, tags, strict=True))],
            how="vertical_relaxed",
        )
    return games, seats, detail


def figure_rows(played: dict, tag: str, metrics: dict, game: str) -> list[dict]:
    """The key metrics ``metrics`` (metric name -> the measure's name) of arm ``tag``, each with
    its interval by game and the figure's own reference (a fair share; else 0)."""
    from .bygame import analysis_of

    games, seats, detail = stack(played, [tag])
    km = analysis_of(game).key_metrics(games, seats, detail)
    got = {r["metric"]: r for r in km.iter_rows(named=True)}
    rows = []
    for metric, name in metrics.items():
        r = got.get(metric, {})
        rows.append({"measure": name, "unit": r.get("unit") or "share",
                     "value": r.get("value"), "ci_low": r.get("ci_low"),
                     "ci_high": r.get("ci_high"), "reference": r.get("reference") or 0.0,
                     "method": r.get("method")})  # fmt: skip
    return rows


def difference_rows(played: dict, tag: str, base: str, metrics: dict, game: str) -> list[dict]:
    """Arm ``tag`` minus arm ``base`` for each key metric of ``metrics`` (metric -> the
    measure's name), paired game by game (the arms play the same seeds:
    :func:`analysis.comparison.compare`), read against 0."""
    from .comparison import compare

    games, seats, detail = stack(played, [base, tag])
    c = compare(games, seats, baseline=base, game=game, detail=detail)
    got = {r["metric"]: r for r in c.filter(pl.col("variant") == tag).iter_rows(named=True)}
    rows = []
    for metric, name in metrics.items():
        r = got.get(metric, {})
        rows.append({"measure": name, "unit": r.get("unit") or "share", "value": r.get("diff"),
                     "ci_low": r.get("diff_low"), "ci_high": r.get("diff_high"),
                     "reference": 0.0, "method": r.get("method")})  # fmt: skip
    return rows


# ---------------------------------------------------------------- playing the arms
def _field_games(games, fields) -> dict[str, int]:
    per = {f: games for f in fields} if isinstance(games, int) else dict(games)
    for f in fields:
        n = per.get(f)
        if not isinstance(n, int) or isinstance(n, bool) or n < 2:
            raise AnalysisError(f"Field '{f}' needs at least 2 games (paired intervals), not {n}.")
    return per


def field_dir(name: str) -> str:
    return f"field={name}"


def _matches(man: dict, rules_id: str, labels: list[str], seed: int, detail: bool) -> bool:
    return (
        man.get("rules_id") == rules_id
        and list(man.get("seats", [])) == list(labels)
        and man.get("seed") == seed
        and bool(man.get("rounds_recorded")) == bool(detail)
    )


MORE = "@"  # an arm's later games: OUT/field=F/ARM@400/ holds games 400.. of the arm's seed


def _manifest(path: Path) -> dict | None:
    try:
        return json.loads((path / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def _pieces(path: Path) -> list[Path]:
    """The arm's run directory and the folders of its later games (``ARM@FIRST``), in order."""
    more = []
    if path.parent.is_dir():
        for p in path.parent.glob(f"{path.name}{MORE}*"):
            tail = p.name[len(path.name) + len(MORE):]
            if tail.isdigit() and p.is_dir():
                more.append((int(tail), p))
    return [path, *(p for _, p in sorted(more))]


def _play(spec, rules, seats, games, seed, detail, path, overwrite, threads, progress) -> Played:
    """One arm's games ``0 .. games-1``: in memory (``path`` None), or run directories. The
    arm's folder ``path`` holds its first games; a later call asking for more plays only the
    rest, into ``path@FIRST`` (games ``FIRST ..``), and one asking for fewer reads the first
    ones. A folder holding this run unfinished is resumed; one holding another run is refused
    (``overwrite``: played again, with its later folders removed)."""
    import shutil

    from sim.runner import resume_run, simulate, stream_run
    from sim.setup import setup

    if path is None:
        res = simulate(rules, seats, games=games, seed=seed, threads=threads,
                       record_rounds=detail, progress=progress)  # fmt: skip
        det = res.frames.get(spec.detail.name) if spec.detail is not None else None
        return Played(res.games, res.seats, det, res.n_games)
    from .io import load_run

    s = setup(rules, seats)
    path = Path(path)
    done, used = 0, []  # games 0 .. done-1 are in the folders used
    for p in _pieces(path):
        man = _manifest(p) if (p / "manifest.json").exists() else None
        if p == path and man is None and not (p / "manifest.json").exists():
            break  # a new arm
        ours = man is not None and _matches(man, s.rules.id, list(s.labels), seed, detail)
        if not ours or man.get("first_game", 0) != done:
            if p != path:
                raise AnalysisError(
                    f"'{p}' is not the games {done:,}.. of the run in '{path}'; remove it, or"
                    " give --overwrite to play the arm again."
                )
            if not overwrite:
                raise AnalysisError(
                    f"'{path}' holds another run ({(man or {}).get('rules_id')}, seats"
                    f" {','.join((man or {}).get('seats', []))}, {(man or {}).get('games')}"
                    f" games of seed {(man or {}).get('seed')}); give another --out, or"
                    " --overwrite to play it again."
                )
            for q in _pieces(path)[1:]:
                shutil.rmtree(q)
            done, used = 0, []
            break
        if man.get("complete") is False:
            resume_run(p, threads=threads, progress=progress)
        used.append(p)
        done += int(man["games"])
        if done >= games:
            break
    if done < games:
        target = path if done == 0 else path.parent / f"{path.name}{MORE}{done}"
        stream_run(rules, seats, games - done, seed, out_dir=target,
                   overwrite=overwrite or target.exists(), threads=threads,
                   record_rounds=detail, progress=progress, first_game=done)  # fmt: skip
        used.append(target)
    runs = [load_run(p) for p in used]
    first_n = pl.col("game") < games

    def joined(tables):
        return pl.concat(tables, how="diagonal_relaxed").filter(first_n)

    det = [r.rounds for r in runs]
    return Played(
        joined([r.games for r in runs]),
        joined([r.seats for r in runs]),
        joined(det) if all(d is not None for d in det) else None,
        games,
    )


@dataclass
class FindingsResult:
    """What :func:`run_findings` found: ``table`` (one row per finding, measure and field:
    ``finding, title, measure, unit, reference, field, seats, games, value, ci_low, ci_high,
    method, verdict, change, change_low, change_high``), the ``game``, ``fields``, ``seed``, the
    games per field, the seconds each field took in this call (runs read back from ``out`` take
    only their reading) and the folder written (or None)."""

    table: pl.DataFrame
    game: str
    fields: list[str]
    seed: int
    games: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)
    out: Path | None = None

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "fields": self.fields,
            "seed": self.seed,
            "games": self.games,
            "seconds": self.seconds,
            "rows": self.table.to_dicts(),
        }


SCHEMA = {
    "finding": pl.String,
    "title": pl.String,
    "measure": pl.String,
    "unit": pl.String,
    "reference": pl.Float64,
    "field": pl.String,
    "seats": pl.String,
    "games": pl.Int64,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "method": pl.String,
    "verdict": pl.String,
    "change": pl.Float64,
    "change_low": pl.Float64,
    "change_high": pl.Float64,
}
VERDICT_COLUMNS = ("verdict", "change", "change_low", "change_high")


def study_of(game=None) -> FindingsSpec:
    """``game``'s findings study, or one sentence saying it declares none."""
    from sim.games import get_game

    from .bygame import for_game

    ga = for_game(game)
    if ga is None or ga.findings is None:
        raise AnalysisError(f"{get_game(game).title} declares no findings to re-check.")
    return ga.findings


def run_findings(
    game=None,
    fields=None,
    games=20000,
    seed: int = 0,
    out=None,
    overwrite: bool = False,
    threads: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    findings=None,
) -> FindingsResult:
    """Play every arm of ``game``'s findings study (:class:`FindingsSpec`) once per field of
    ``fields`` (names or ``"a,b,c"``; default the study's) on games ``0..n-1`` of ``seed``
    (``games``: one count for every field, or field -> count), measure every finding in each
    field and set each against the first field (:func:`finding_verdict`). ``out``: keep the
    runs as run directories ``OUT/field=NAME/ARM/`` (read again by a later call with the same
    settings, resumed when unfinished) and write ``OUT/findings.json`` and ``findings.csv``.
    ``progress(label, done, total)``: games of one arm played; ``findings``: only these keys."""
    from sim.faults import fault_context
    from sim.games import get_game
    from sim.setup import settings

    spec = get_game(game)
    if out is not None and not str(out).strip():
        raise AnalysisError("--out is empty: give a directory name, or leave it out.")
    study = study_of(spec.name)
    fields = parse_fields(fields if fields is not None else list(study.fields), spec.name)
    per = _field_games(games, fields)
    chosen = list(study.findings)
    if findings is not None:
        keys = [k.strip() for k in (findings.split(",") if isinstance(findings, str) else findings)]
        known = [f.key for f in study.findings]
        bad = [k for k in keys if k not in known]
        if bad:
            raise AnalysisError(f"Unknown finding '{bad[0]}': choose from {', '.join(known)}.")
        chosen = [f for f in study.findings if f.key in keys]
    tags = [a.tag for a in study.arms if any(a.tag in f.arms for f in chosen)]
    rows, seconds = [], {}
    outp = Path(out) if out is not None else None
    for f in fields:
        seats = field_seats(f, None, spec.name)
        t0 = time.perf_counter()
        played = {}
        for tag in tags:
            arm = study.arm(tag)
            rules = settings(study.rules, arm.sets, None, spec.name).rules
            labels = seats.split(",")
            arm_seats = ",".join(arm.seats(labels) if arm.seats else labels)
            path = outp / field_dir(f) / tag if outp is not None else None
            label = f"{f}: {tag}"
            prog = None if progress is None else (lambda d, n, lb=label: progress(lb, d, n))
            with fault_context(f" of the field {f}, arm {tag} ({arm_seats}; seed {seed})"):
                played[tag] = _play(spec, rules, arm_seats, per[f], seed, arm.detail, path,
                                    overwrite, threads, prog)  # fmt: skip
        for fd in chosen:
            for r in fd.measure({t: played[t] for t in fd.arms}, spec.name):
                rows.append({"finding": fd.key, "title": fd.title, "field": f, "seats": seats,
                             "games": per[f], "method": r.get("method"), **r})  # fmt: skip
        seconds[f] = time.perf_counter() - t0
    measured = {k: v for k, v in SCHEMA.items() if k not in VERDICT_COLUMNS}
    table = _with_verdicts(pl.DataFrame(rows, schema=measured), fields)
    res = FindingsResult(table, spec.name, fields, seed, per, seconds, outp)
    if outp is not None:
        outp.mkdir(parents=True, exist_ok=True)
        (outp / "findings.json").write_text(json.dumps(res.to_dict(), indent=1, default=str))
        table.write_csv(outp / "findings.csv")
    return res


def _with_verdicts(df: pl.DataFrame, fields: list[str]) -> pl.DataFrame:
    ref = {
        (r["finding"], r["measure"]): r
        for r in df.filter(pl.col("field") == fields[0]).iter_rows(named=True)
    }
    v, ch, lo, hi = [], [], [], []
    for r in df.iter_rows(named=True):
        b = ref.get((r["finding"], r["measure"]))
        if r["field"] == fields[0] or b is None:
            v.append("")
            ch.append(None)
            lo.append(None)
            hi.append(None)
            continue
        v.append(finding_verdict(b["value"], b["ci_low"], b["ci_high"], r["value"], r["ci_low"],
                                 r["ci_high"], r["reference"]))  # fmt: skip
        c = change_interval(b["value"], b["ci_low"], b["ci_high"], r["value"], r["ci_low"],
                            r["ci_high"])  # fmt: skip
        ch.append(c[0])
        lo.append(c[1])
        hi.append(c[2])
    return df.with_columns(
        pl.Series("verdict", v, dtype=pl.String),
        pl.Series("change", ch, dtype=pl.Float64),
        pl.Series("change_low", lo, dtype=pl.Float64),
        pl.Series("change_high", hi, dtype=pl.Float64),
    ).select(list(SCHEMA))


# ---------------------------------------------------------------- words
def _est(r: dict, signed: bool) -> str:
    from sim import fmt

    u = r["unit"]
    v = fmt.diff(r["value"], u) if signed else fmt.value(r["value"], u)
    if _bad(r["ci_low"], r["ci_high"]):
        return f"{v} (no interval)" if not _bad(r["value"]) else "n/a"
    return f"{v} {fmt.interval(r['ci_low'], r['ci_high'], u, signed=signed)}"


def _signed(r: dict) -> bool:
    return r["reference"] == 0


def finding_sentences(df: pl.DataFrame, fields: list[str]) -> list[str]:
    """One sentence per finding: each measure in every field (its estimate, interval and games),
    then each later field's verdict against the first, and the finding's verdict as a whole
    (the strongest of its measures': flips, then changes, then holds)."""
    from sim import fmt

    lines = []
    for _, part in df.group_by("finding", maintain_order=True):
        title = part["title"][0]
        measures = []
        worst = {}
        for (m,), rows in part.group_by("measure", maintain_order=True):
            rs = rows.to_dicts()
            first = rs[0]
            ref = first["reference"]
            ref_txt = "" if ref == 0 else f" (reference {fmt.value(ref, first['unit'])})"
            vals = ", ".join(f"{_est(r, _signed(r))} with {r['field']}" for r in rs)
            ver = []
            for r in rs[1:]:
                w = r["verdict"] or CANNOT
                worst.setdefault(r["field"], []).append(w)
                if r["change"] is not None and w != HOLDS:
                    ci = fmt.interval(r["change_low"], r["change_high"], r["unit"], True)
                    w += f" ({fmt.diff(r['change'], r['unit'])} {ci})"
                ver.append(f"{r['field']} {w}")
            measures.append(f"{m}{ref_txt}: {vals}" + (f" [{'; '.join(ver)}]" if ver else ""))
        overall = []
        for f in fields[1:]:
            ws = worst.get(f, [])
            for w in (FLIPS, CHANGES, HOLDS, CANNOT):
                if w in ws:
                    n = sum(x == w for x in ws)
                    tail = f" ({n} of {len(ws)} measures)" if len(ws) > 1 and w != HOLDS else ""
                    overall.append(f"with {f} players it {w}{tail}")
                    break
        head = f"{title} — " + ("; ".join(overall) if overall else "one field") + "."
        lines.append(f"{head} " + "; ".join(measures) + ".")
    return lines


def findings_text(res: FindingsResult) -> list[str]:
    """The readable table: one line per finding and measure, a column per field (estimate and
    interval), then the verdict of each later field."""
    from sim import fmt

    df = res.table
    head = [f"{f} ({field_seats(f, None, res.game)}, {res.games[f]:,} games)" for f in res.fields]
    out = [f"{res.game}: findings across fields, seed {res.seed}; each verdict against"
           f" {res.fields[0]}:", *(f"  {h}" for h in head), ""]  # fmt: skip
    rows = []
    for (key, m), part in df.group_by("finding", "measure", maintain_order=True):
        by = {r["field"]: r for r in part.iter_rows(named=True)}
        r0 = part.row(0, named=True)
        ref = r0["reference"]
        row = [key, m, fmt.value(ref, r0["unit"]) if ref != 0 else "0"]
        row += [_est(by[f], _signed(by[f])) if f in by else "" for f in res.fields]
        row += [(by[f]["verdict"] or CANNOT) if f in by else "" for f in res.fields[1:]]
        rows.append(row)
    cols = ["finding", "measure", "reference", *res.fields,
            *(f"{f} vs {res.fields[0]}" for f in res.fields[1:])]  # fmt: skip
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(cols)]  # fmt: skip
    out.append("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip())
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    out += ["", *finding_sentences(df, res.fields)]
    return out


def findings_output(res: FindingsResult, fmt: str) -> list[str]:
    """What ``loba findings`` prints in ``fmt`` (``table``, ``csv``, ``json``)."""
    if fmt == "csv":
        return [res.table.write_csv().rstrip("\n")]
    if fmt == "json":
        return [json.dumps(res.to_dict(), indent=1, default=str)]
    return findings_text(res)

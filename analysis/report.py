"""One self-contained HTML report of one or more run directories.

Everything a player needs is in the file: what was simulated, the rules (knobs that differ from
the defaults, and all of them on demand), findings as sentences with 95% intervals, tables and
figures (PNG embedded as ``data:image/png;base64`` URIs; no script, no external link).

The page is the Jinja2 template ``analysis/templates/report.html.j2`` (autoescaped); this module
computes what every report shows (runs, rules, key metrics, differences, tests) and the
helpers a game's own sections are built with; the runs' game gives its findings, figures,
tables and Methods (its analysis' ``report``, :mod:`analysis.bygame`). Numbers go through
:mod:`sim.fmt`. The tests the report states are corrected together for multiple
comparisons (:mod:`analysis.family`).
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2
import polars as pl
from markupsafe import Markup

from sim import fmt

from . import words
from .bygame import analysis_of, no_experiment
from .comparison import compare
from .errors import AnalysisError
from .io import RunSet, load_runs

TEMPLATE = "report.html.j2"

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em;margin-bottom:.2em}
h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
h3{margin-bottom:.3em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.88em}
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:right;vertical-align:top}
th{background:#f2f2f2}td.l,th.l{text-align:left}
.muted{color:#666;font-size:.9em}.finding li{margin:.25em 0}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.88em;color:#555}
.nodiff{color:#777}.higher{color:#1a5fb4}.lower{color:#a51d2d}
code{background:#f5f5f5;padding:0 .2em}
"""

METHODS_INTERVALS = (
    "The game is the independent unit: every share or mean over rounds, seats, busts, hands or "
    "decisions is a ratio of per-game sums, its interval from the games (ratio estimator); "
    "figures with few events (fewer than 10 games) get an exact interval, figures on which "
    "every game agrees none. Differences from the baseline: when a variant holds the same "
    "seeds and games as the baseline, game by game (t interval of the per-game differences), "
    "with the unpaired interval beside it; otherwise the two intervals combined. Every "
    "verdict follows Holm's correction over the report's tests (docs/intervals.md)."
)


def methods_paragraph(middle: str, tests: str) -> str:
    """The report's Methods paragraph: intervals, the game's own ``middle``, the family of
    ``tests`` corrected together."""
    return (
        f"{METHODS_INTERVALS} {middle} Intervals are 95% and per figure. The tests the findings"
        f" state ({tests}) form one family whose p-values are adjusted with Holm's method, "
        "which keeps the chance of any false finding in the report at 5%; a finding is "
        "worded as detectable only when its adjusted p-value is below 0.05."
    )


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("analysis", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )


def _img(fig, dpi: int = 100) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure(fig, caption: str) -> dict:
    return {"src": _img(fig), "caption": caption}


def table(head: list[str], rows: list[list], left: int = 1) -> dict:
    return {"head": head, "rows": rows, "left": left}


def _with_ci(value: str, lo: str) -> Markup:
    return Markup('{} <span class="muted">{}</span>').format(value, lo)


def _rules_section(rs: RunSet) -> list[dict]:
    from sim.setup import parse_rules_id

    out = []
    for v in rs.variants:
        m = rs.manifest(v)
        try:
            # (knob, value, default, rule, meaning); a run that names no game (written before
            # runs named theirs) is of the default game, as sim.games.get_game reads None
            rows = [
                [k, val, d, r, mean]
                for k, val, d, r, _, mean in parse_rules_id(m["rules_id"], m.get("game")).describe()
            ]
        except Exception:  # a rule set this version no longer knows: show the manifest as is
            rows = [[k, str(val), "?", "", ""] for k, val in (m.get("rules") or {}).items()]
        head = ["knob", "value", "default", "rule", "meaning"]
        out.append(
            {
                "variant": v,
                "default": rs.runs[0].spec.rules.default_preset,
                "rules_id": m["rules_id"],
                "rules_version": m.get("rules_version"),
                "seats": ", ".join(m["seats"]),
                "changed": table(head, [r for r in rows if r[1] != r[2]], 5),
                "all": table(head, rows, 5),
            }
        )
    return out


def _runs_section(rs: RunSet) -> dict:
    detail = rs.runs[0].spec.detail
    rows = []
    for r, v in zip(rs.runs, rs.variant_of, strict=True):
        m = r.manifest
        rows.append(
            [
                str(r.path),
                v,
                ", ".join(m["seats"]),
                fmt.number(r.n_games),
                str(m["seed"]),
                "yes" if r.rounds is not None else "no",
                "yes" if r.complete else "no (interrupted)",
                fmt.number(m.get("elapsed_seconds")),
            ]
        )
    return table(
        [
            "run directory",
            "variant",
            "seats",
            "games",
            "seed",
            detail.name if detail is not None else "detail",
            "complete",
            "seconds",
        ],
        rows,
        left=3,
    )


def _key_table(km: pl.DataFrame, variants: list[str]) -> dict:
    metrics = km["metric"].unique(maintain_order=True).to_list()
    rows = []
    for metric in metrics:
        sub = km.filter(pl.col("metric") == metric)
        unit = sub["unit"][0] if sub.height else ""
        row = [metric, fmt.unit_label(unit)]
        for v in variants:
            r = sub.filter(pl.col("variant") == v)
            if r.height == 0:
                row.append(fmt.NA)
                continue
            r = r.row(0, named=True)
            cell = fmt.value(r["value"], r["unit"])
            if r["kind"] != "test":
                cell = _with_ci(cell, fmt.interval(r["ci_low"], r["ci_high"], r["unit"]))
            row.append(cell)
        rows.append(row)
    return table(["metric (95% interval)", "unit"] + variants, rows, left=2)


def _compare_table(cmp: pl.DataFrame) -> dict:
    rows = []
    for r in cmp.filter(pl.col("verdict") != "").iter_rows(named=True):
        u = r["unit"]
        cls = {"higher": "higher", "lower": "lower"}.get(r["verdict"], "nodiff")
        rows.append(
            [
                r["metric"],
                r["variant"],
                fmt.unit_label(u),
                fmt.value(r["value"], u),
                fmt.diff(r["diff"], u),
                fmt.interval(r["diff_low"], r["diff_high"], u, signed=True),
                "paired" if r["paired"] else "unpaired",
                fmt.interval(r["unpaired_low"], r["unpaired_high"], u, signed=True),
                fmt.pvalue(r["p_adjusted"]),
                Markup('<span class="{}">{}</span>').format(cls, r["verdict"]),
            ]
        )
    return table(
        [
            "metric",
            "variant",
            "unit",
            "value",
            "difference",
            "95% interval",
            "method",
            "unpaired 95% interval",
            "p (adjusted)",
            "verdict (per interval)",
        ],
        rows,
        left=3,
    )


def with_interval(v, lo, hi, unit=None) -> Markup:
    """A value with its 95% interval beside it, in ``unit`` (``n/a`` alone without a value)."""
    if fmt.is_na(v):
        return Markup(fmt.NA)
    return _with_ci(fmt.value(v, unit), fmt.interval(lo, hi, unit))


def frame_table(df: pl.DataFrame, cols: list[tuple[str, Callable[[dict], object]]], left: int):
    """A table of ``df``'s rows: one column per (header, cell of a row)."""
    rows = [[cell(r) for _, cell in cols] for r in df.iter_rows(named=True)]
    return table([h for h, _ in cols], rows, left)


def text_col(head: str, col: str | None = None) -> tuple:
    return head, lambda r: r[col or head]


def count_col(head: str, col: str) -> tuple:
    return head, lambda r: fmt.number(r[col])


def share_col(head: str, col: str) -> tuple:
    return head, lambda r: fmt.share(r[col])


def est_col(head: str, col: str, lo: str = "ci_low", hi: str = "ci_high", unit=None) -> tuple:
    """A column of estimates with their intervals beside them."""
    return head, lambda r: with_interval(r[col], r[lo], r[hi], unit)


def seat_table(sa: pl.DataFrame, adj: dict, position: str) -> dict:
    """Win share by seat or position (a game's table of them, e.g. by position from the first
    dealer or from the first bidder) with its test; ``adj``: variant -> the
    test's adjusted p-value."""
    return frame_table(
        sa,
        [
            text_col("variant"),
            text_col(position, "label"),
            count_col("wins", "wins"),
            share_col("share", "share"),
            ("95% interval", lambda r: fmt.interval(r["ci_low"], r["ci_high"], "share")),
            share_col("fair", "expected"),
            ("χ² p", lambda r: fmt.pvalue(r["p_value"])),
            ("p (adjusted)", lambda r: fmt.pvalue(adj.get(r["variant"]))),
        ],
        2,
    )


def _tests_table(tests: pl.DataFrame) -> dict:
    rows = [
        [
            r["variant"],
            r["what"],
            fmt.pvalue(r["p_value"]),
            fmt.pvalue(r["p_adjusted"]),
            r["finding"],
        ]
        for r in tests.iter_rows(named=True)
    ]
    return table(["variant", "test of", "p", "p (adjusted)", "finding"], rows, left=2)


def _pairing_note(cmp: pl.DataFrame | None) -> str:
    if cmp is None:
        return ""
    d = cmp.filter(pl.col("verdict") != "")
    paired = sorted(set(d.filter(pl.col("paired"))["variant"].to_list()))
    if paired and len(paired) == d["variant"].n_unique():
        return (
            "Every variant holds the same seeds and games as the baseline, so differences are "
            "measured game by game (paired); the unpaired interval two independent runs would "
            "give is in the comparison table."
        )
    if paired:
        return (
            "Variants with the same seeds and games as the baseline are compared game by game "
            f"(paired: {', '.join(paired)}); the others as independent runs."
        )
    return "The variants hold different games, so they are compared as independent runs."


@dataclass
class Sections:
    """What a report shows of one game's runs: its name for the title, the family of tests,
    each variant's findings, the figures, the game's own tables (``title``, ``table`` or, when
    it cannot be made, ``note``) and the Methods paragraph."""

    name: str
    tests: pl.DataFrame
    findings: dict[str, list[str]]
    figures: list[dict]
    tables: list[dict]
    methods: str


def section(title: str, table: dict | None, note: str = "") -> dict:
    return {"title": title, "table": table, "note": note}


def _with_family(cmp: pl.DataFrame | None, tests: pl.DataFrame) -> pl.DataFrame | None:
    """``cmp`` whose differences carry the report family's adjusted p-values, and verdicts
    read from them (:func:`analysis.estimate.verdict`)."""
    from .comparison import FAMILY_VERDICTS
    from .estimate import verdict

    if cmp is None:
        return None
    adj = {
        (r["variant"], r["subject"]): r["p_adjusted"]
        for r in tests.filter(pl.col("test") == "difference").iter_rows(named=True)
    }
    ps, vs = [], []
    for r in cmp.iter_rows(named=True):
        a = adj.get((r["variant"], r["metric"]))
        ps.append(a)
        v = r["verdict"]
        if v in FAMILY_VERDICTS or v == "cannot tell":
            v = verdict(r["diff"], a)
        vs.append(v)
    return cmp.with_columns(
        pl.Series("p_adjusted", ps, dtype=pl.Float64), pl.Series("verdict", vs, dtype=pl.String)
    )


def _across_section(rs: RunSet, fields: list[str] | None) -> dict | None:
    """ "Across skill": when the runs cover two fields of players (:mod:`analysis.field`), each
    under the same two or more rule sets, every difference from the baseline rules in each
    field and its verdict against the first field; None otherwise (or with ``fields`` given,
    one sentence why not)."""
    from .field import compare_fields, fields_of_runs

    found = {f: vs for f, vs in fields_of_runs(rs, fields).items() if len(vs) >= 2}
    if fields is None and len(found) < 2:
        return None
    df = compare_fields(rs, fields)
    order = df["field"].unique(maintain_order=True).to_list()
    part = df.filter(pl.col("diff").is_not_null())
    rows = []
    for (rules, metric), g in part.group_by(["rules", "metric"], maintain_order=True):
        by = {r["field"]: r for r in g.iter_rows(named=True)}
        row = [metric, f"{rules} − {g['baseline_rules'][0]}"]
        for f in order:
            r = by.get(f)
            row.append(
                _with_ci(
                    fmt.diff(r["diff"], r["unit"]),
                    fmt.interval(r["diff_low"], r["diff_high"], r["unit"], signed=True),
                )
                if r
                else fmt.NA
            )
        row += [by[f]["across"] if f in by else fmt.NA for f in order[1:]]
        rows.append(row)
    head = ["difference", "rules", *(f"{f} players" for f in order)]
    head += [f"{f} vs {order[0]}" for f in order[1:]]
    return {"fields": order, "table": table(head, rows, 2)}


METHODS_ADVICE = (
    "House-rules advice ('loba advise', docs/advise.md): an Optuna search over the knobs"
    " named, every candidate on the same games (common random numbers), a candidate whose 99%"
    " interval lies wholly outside a target stopped early; the best settings then played fresh"
    " games of a seed the search never used. A target is met when its 95% interval on those"
    " games lies wholly inside it, not met when wholly outside, else undecided: a target that"
    " is not met reads met with a chance of at most 2.5%; with fields of players, a target"
    " counts as met only if it is in every field."
)


def is_advice(path) -> bool:
    """Whether ``path`` is an advise's ``--out`` folder (it holds ``advise.json``)."""
    p = Path(str(path))
    return p.is_dir() and (p / "advise.json").is_file()


def advice_section(path) -> dict:
    """An advise's ``--out`` folder as a report section: its question, the search in numbers,
    the ranked table (:func:`analysis.advise.advice_rows`), the paragraph, each target over the
    search's trials (:func:`analysis.advise.search_plot`), the trade-off plot when the targets
    conflict (``front.png``) and the advised house rules. One sentence if the advise has not
    finished."""
    import json

    from . import advise as A

    p = Path(str(path))
    adv = A.read_advice(p)  # (refuses an unfinished advise in one sentence)
    try:
        d = json.loads((p / "advice.json").read_text())
        trials = pl.read_parquet(p / "targets.parquet")
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        raise AnalysisError(f"'{p}' holds an advise whose files cannot be read ({e}).") from None
    head, rows = A.advice_rows(d)
    fields = d["fields"]
    players = ", ".join(fields) if any(k != v for k, v in fields.items()) else next(iter(fields))
    figs = []
    fig = A.search_plot(trials, d)
    figs.append(figure(fig, "Each target's estimate in every trial of the search (at the most"
                       " games it played), the target shaded green, the answer's estimate on"
                       " fresh games dashed red."))  # fmt: skip
    if (p / "front.png").is_file():
        src = base64.b64encode((p / "front.png").read_bytes()).decode("ascii")
        figs.append({"src": "data:image/png;base64," + src, "caption": "The targets in conflict:"
                     " every candidate of the search, the bounds shaded, the settings no other"
                     " beats on both shortfalls joined and labelled (front.png)."})  # fmt: skip
    facts = [
        ["rules searched from", d["rules_id"]],
        ["players", players],
        ["targets", "; ".join(d["targets"])],
        ["knobs", ", ".join(d["vary"])],
        ["budget", f"{fmt.number(d['budget'])} games ({fmt.number(d['games_played'])} played)"],
        ["search", f"{d['trials']} trials ({d['stopped_early']} stopped early),"
                   f" {fmt.number(d['search_games'])} games of seed {d['seed']}"],
        ["verification", f"{len(d['ranking'])} settings x {fmt.number(d['verify_games'])}"
                         f" fresh games of seed {d['verify_seed']}"],
    ]  # fmt: skip
    return {
        "path": str(p),
        "answer": "every target met" if d["feasible"] else "not every target met",
        "facts": table(["", ""], facts, 2),
        "ranked": table(head, rows, 3 + ("field" in head)),
        "paragraph": d["paragraph"],
        "figures": figs,
        "toml": adv["rules"].read_text(),
    }


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("loba-sim")
    except PackageNotFoundError:
        return "unknown"


def build_report(
    paths,
    out,
    title: str | None = None,
    labels: list[str] | None = None,
    experiment_games: int = 0,
    experiment_reps: int = 8,
    progress=None,
    fields: list[str] | None = None,
) -> Path:
    """Write the HTML report of the run directories ``paths`` to ``out``; returns its path.
    The runs' game chooses the metrics and the sections (its analysis, :mod:`analysis.bygame`:
    findings, figures, its own tables and Methods).

    ``experiment_games`` > 0 adds the game's report experiment (``report_experiment``, for a
    game that has one: that many games, the first variant's rules and seats,
    ``experiment_reps`` repetitions per decision); ``progress(done, total)`` follows it.

    When the runs cover two or more fields of players (:mod:`analysis.field`), each under the
    same rule sets, an "Across skill" section sets every difference in each field against the
    first field's; ``fields`` (names) keeps the runs of those fields only, in that order."""
    outp = Path(out)
    if outp.exists() and outp.is_dir():
        raise AnalysisError(f"'{outp}' is a directory; give a file name such as report.html.")
    advice = []
    if not isinstance(paths, RunSet):
        advice = [advice_section(x) for x in paths if is_advice(x)]
        paths = [x for x in paths if not is_advice(x)]
        if not paths:
            return _advice_report(outp, advice, title, experiment_games, fields)
    if fields is not None and not isinstance(paths, RunSet):
        from .field import parse_fields, paths_in_fields

        fields = parse_fields(fields)
        paths, labels = paths_in_fields(list(paths), fields, labels)
    rs = paths if isinstance(paths, RunSet) else load_runs(paths, labels)
    metrics = analysis_of(rs.game)
    experiment = metrics.report_experiment
    if experiment_games > 0 and experiment is None:
        raise AnalysisError(no_experiment(rs.runs[0].spec.title))
    g, s, d = rs.games, rs.seats, rs.detail
    variants = rs.variants
    km = metrics.key_metrics(g, s, d)
    cmp = compare(g, s, game=rs.game, detail=d) if len(variants) > 1 else None
    part = metrics.report(rs, km, cmp)
    cmp = _with_family(cmp, part.tests)
    n_tests = part.tests.height
    ctx: dict = {
        "title": title
        or f"{part.name}: " + (variants[0] if len(variants) == 1 else " vs ".join(variants)),
        "css": Markup(CSS),
        "total_games": fmt.number(sum(r.n_games for r in rs.runs)),
        "n_runs": len(rs.runs),
        "generated": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "version": _version(),
        "n_tests": n_tests,
        "findings": [{"variant": v, "sentences": part.findings[v]} for v in variants],
        "differences": words.compare_sentences(cmp, family=n_tests) if cmp is not None else [],
        "pairing_note": _pairing_note(cmp),
        "experiment": (
            experiment.run(rs, experiment_games, experiment_reps, progress)
            if experiment_games > 0
            else None
        ),
        "methods": part.methods,
        "runs": _runs_section(rs),
        "rules": _rules_section(rs),
        "figures": part.figures,
        "key": _key_table(km, variants),
        "comparison": (
            {"baseline": cmp["baseline"][0], "table": _compare_table(cmp)}
            if cmp is not None and cmp.height
            else None
        ),
        "tables": part.tables,
        "tests": _tests_table(part.tests),
        "across": _across_section(rs, fields) if metrics.across_fields else None,
        "advice": advice,
        "advice_methods": METHODS_ADVICE if advice else "",
        "has_runs": True,
    }
    doc = _env().get_template(TEMPLATE).render(**ctx)
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(doc, encoding="utf-8")
    return outp


def _advice_report(outp: Path, advice: list[dict], title, experiment_games, fields) -> Path:
    """A report of advise folders alone (no run directory): their sections and Methods."""
    if experiment_games > 0:
        raise AnalysisError("--experiment-games runs on the rules of run directories; these are"
                            " advise folders only.")  # fmt: skip
    if fields is not None:
        raise AnalysisError("--field picks run directories by their players; these are advise"
                            " folders only.")  # fmt: skip
    names = ", ".join(a["path"] for a in advice)
    ctx = {
        "title": title or f"House-rules advice: {names}",
        "css": Markup(CSS),
        "generated": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "version": _version(),
        "advice": advice,
        "advice_methods": METHODS_ADVICE,
        "methods": "",
        "has_runs": False,
    }
    doc = _env().get_template(TEMPLATE).render(**ctx)
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(doc, encoding="utf-8")
    return outp

"""One self-contained HTML report of one or more run directories.

Everything a player needs is in the file: what was simulated, the rules (knobs that differ from
the defaults, and all of them on demand), findings as sentences with 95% intervals, tables and
figures (PNG embedded as ``data:image/png;base64`` URIs; no script, no external link).

The page is the Jinja2 template ``analysis/templates/report.html.j2`` (autoescaped); this module
computes the tables and sentences it shows. Numbers go through :mod:`analysis.fmt`. The tests
the report states are corrected together for multiple comparisons (:mod:`analysis.family`).
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
from pathlib import Path

import jinja2
import polars as pl
from markupsafe import Markup

from . import fmt, plots, words
from . import metrics as M
from .compare import compare
from .errors import AnalysisError
from .family import family_of_tests
from .io import RunSet, load_runs, require_loba

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

METHODS = (
    "Shares: Wilson score intervals. Means: Student t intervals. Differences from the "
    "baseline: when a variant holds the same seeds and games as the baseline, game by game "
    "(paired t interval of the per-game differences; ratios such as shares of rounds through "
    "the delta method), with the unpaired interval beside it; otherwise Welch t (means) and "
    "Newcombe hybrid score (shares). A difference whose interval contains 0 is reported as not "
    "detectable. Seat equality: Pearson chi-square test on finished games, seats counted in "
    "the first round's playing order from the dealer's left. Skill: exact binomial test of a "
    "policy's share of wins against its fair share. Elimination risk per round: players "
    "eliminated for good in that round over players still in at its start. Intervals are 95% "
    "and per figure. The tests the findings state (seat equality, skill, differences from the "
    "baseline) form one family whose p-values are adjusted with the Benjamini–Hochberg "
    "procedure (scipy.stats.false_discovery_control); a finding is worded as detectable only "
    "when its adjusted p-value is below 0.05."
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


def _figure(fig, caption: str) -> dict:
    return {"src": _img(fig), "caption": caption}


def _table(head: list[str], rows: list[list], left: int = 1) -> dict:
    return {"head": head, "rows": rows, "left": left}


def _with_ci(value: str, lo: str) -> Markup:
    return Markup('{} <span class="muted">{}</span>').format(value, lo)


def _rules_section(rs: RunSet) -> list[dict]:
    from sim.rules import parse_rules_id

    out = []
    for v in rs.variants:
        m = rs.manifest(v)
        try:
            # (knob, value, default, rule, meaning); runs from before Moon name no game: Loba
            rows = [
                [k, val, d, r, mean]
                for k, val, d, r, _, mean in parse_rules_id(
                    m["rules_id"], m.get("game", "loba")
                ).describe()
            ]
        except Exception:  # a rule set this version no longer knows: show the manifest as is
            rows = [[k, str(val), "?", "", ""] for k, val in (m.get("rules") or {}).items()]
        head = ["knob", "value", "default", "rule", "meaning"]
        out.append(
            {
                "variant": v,
                "rules_id": m["rules_id"],
                "rules_version": m.get("rules_version"),
                "seats": ", ".join(m["seats"]),
                "changed": _table(head, [r for r in rows if r[1] != r[2]], 5),
                "all": _table(head, rows, 5),
            }
        )
    return out


def _runs_section(rs: RunSet) -> dict:
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
    return _table(
        ["run directory", "variant", "seats", "games", "seed", "rounds", "complete", "seconds"],
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
    return _table(["metric (95% interval)", "unit"] + variants, rows, left=2)


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
    return _table(
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


def _seat_table(sa: pl.DataFrame, tests: pl.DataFrame) -> dict:
    from .family import adjusted

    rows = [
        [
            r["variant"],
            r["label"],
            fmt.number(r["wins"]),
            fmt.share(r["share"]),
            fmt.interval(r["ci_low"], r["ci_high"], "share"),
            fmt.share(r["expected"]),
            fmt.pvalue(r["p_value"]),
            fmt.pvalue(adjusted(tests, "seats", r["variant"])),
        ]
        for r in sa.iter_rows(named=True)
    ]
    return _table(
        [
            "variant",
            "seat (first round order)",
            "wins",
            "share",
            "95% interval",
            "fair",
            "χ² p",
            "p (adjusted)",
        ],
        rows,
        left=2,
    )


def _policy_table(pt: pl.DataFrame) -> dict:
    def ci(v, lo, hi, unit=None):
        return _with_ci(fmt.value(v, unit), fmt.interval(lo, hi, unit))

    rows = [
        [
            r["variant"],
            r["policy"],
            fmt.number(r["games"]),
            ci(r["win_rate"], r["win_low"], r["win_high"], "share"),
            ci(r["rebuys"], r["rebuys_ci_low"], r["rebuys_ci_high"]),
            ci(r["elim_round"], r["elim_round_ci_low"], r["elim_round_ci_high"]),
            ci(r["net"], r["net_ci_low"], r["net_ci_high"]),
        ]
        for r in pt.iter_rows(named=True)
    ]
    return _table(
        [
            "variant",
            "policy",
            "seat-games",
            "win rate per seat",
            "rebuys per game",
            "round eliminated",
            "net stakes per game",
        ],
        rows,
        left=2,
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
    return _table(["variant", "test of", "p", "p (adjusted)", "finding"], rows, left=2)


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


def build_report(
    paths,
    out,
    title: str | None = None,
    labels: list[str] | None = None,
    rebuy_games: int = 0,
    rebuy_reps: int = 8,
    progress=None,
) -> Path:
    """Write the HTML report of the run directories ``paths`` to ``out``; returns its path.

    ``rebuy_games`` > 0 adds the state-level rebuy experiment (that many games, the first
    variant's rules and seats, ``rebuy_reps`` pairs of branches per decision)."""
    outp = Path(out)
    if outp.exists() and outp.is_dir():
        raise AnalysisError(f"'{outp}' is a directory; give a file name such as report.html.")
    rs = paths if isinstance(paths, RunSet) else load_runs(paths, labels)
    require_loba(rs.runs[0].spec.name, "'loba report'")
    g, s = rs.games, rs.seats
    variants = rs.variants
    km = M.key_metrics(g, s)
    sa = M.seat_advantage(g)
    sg = M.skill_gap(g, s)
    pt = M.policy_table(g, s)
    cmp = compare(g, s) if len(variants) > 1 else None
    tests = family_of_tests(sa, sg, cmp)
    n_tests = tests.height
    if cmp is not None:  # the stated differences carry the family's adjusted p-values
        adj = {
            (r["variant"], r["subject"]): r["p_adjusted"]
            for r in tests.filter(pl.col("test") == "difference").iter_rows(named=True)
        }
        cmp = cmp.with_columns(
            pl.Series(
                "p_adjusted",
                [adj.get((v, m)) for v, m in zip(cmp["variant"], cmp["metric"], strict=True)],
                dtype=pl.Float64,
            )
        )
    title = title or (
        "Loba de Menos: " + (variants[0] if len(variants) == 1 else " vs ".join(variants))
    )
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("loba-sim")
    except PackageNotFoundError:
        ver = "unknown"
    ctx: dict = {
        "title": title,
        "css": Markup(CSS),
        "total_games": fmt.number(sum(r.n_games for r in rs.runs)),
        "n_runs": len(rs.runs),
        "generated": _dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "version": ver,
        "n_tests": n_tests,
        "findings": [
            {"variant": v, "sentences": words.variant_findings(km, v, sa, sg, tests)}
            for v in variants
        ],
        "differences": words.compare_sentences(cmp, family=n_tests) if cmp is not None else [],
        "pairing_note": _pairing_note(cmp),
        "rebuy": None,
        "methods": METHODS,
    }
    if rebuy_games > 0:
        from .rebuy import rebuy_value_state, tabulate_state_value

        m = rs.manifest(variants[0])
        dec = rebuy_value_state(
            m["rules_id"],
            m["seats"],
            games=rebuy_games,
            seed=int(m["seed"]),
            reps=rebuy_reps,
            progress=progress,
        )
        ctx["rebuy"] = {
            "rules_id": m["rules_id"],
            "decisions": fmt.number(dec.height),
            "games": fmt.number(rebuy_games),
            "reps": rebuy_reps,
            "sentences": words.rebuy_state_sentences(tabulate_state_value(dec, by=["players_left"]))
            if dec.height
            else [],
            "empty": "No rebuy decision came up in these games, so there is nothing to value "
            "(under these rules or seats no player could rebuy).",
            "figure": _figure(
                plots.rebuy_heatmap(tabulate_state_value(dec)),
                "Value of rebuying in stakes (net of its price), with 95% interval and number "
                "of decisions; hatched cells have too few decisions to trust.",
            )
            if dec.height
            else None,
        }
    ctx["runs"] = _runs_section(rs)
    ctx["rules"] = _rules_section(rs)
    ctx["figures"] = [
        _figure(plots.rounds_plot(g), "Distribution of the number of rounds per game."),
        _figure(
            plots.survival_plot(M.survival(g, s)),
            "Share of players still in after each round (band: 95% interval); dotted: share of "
            "games still running.",
        ),
        _figure(
            plots.hazard_plot(M.elimination_hazard(g, s)),
            "Risk that a player still in is eliminated for good in that round (band: 95%).",
        ),
        _figure(
            plots.first_elimination_plot(M.first_elimination(g, s)),
            "Round of the first elimination for good.",
        ),
        _figure(
            plots.seat_advantage_plot(sa),
            "Win share by seat in the first round's playing order (bars: 95% interval; p: the "
            "chi-square test before correction, see Tests).",
        ),
    ]
    ctx["key"] = _key_table(km, variants)
    ctx["comparison"] = (
        {"baseline": cmp["baseline"][0], "table": _compare_table(cmp)}
        if cmp is not None and cmp.height
        else None
    )
    ctx["seats"] = _seat_table(sa, tests)
    ctx["policies"] = _policy_table(pt)
    ctx["tests"] = _tests_table(tests)
    doc = _env().get_template(TEMPLATE).render(**ctx)
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(doc, encoding="utf-8")
    return outp

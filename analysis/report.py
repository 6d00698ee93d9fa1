"""One self-contained HTML report of one or more run directories.

Everything a player needs is in the file: what was simulated, the rules (knobs that differ from
the defaults, and all of them on demand), findings as sentences with 95% intervals, tables and
figures (PNG embedded as ``data:image/png;base64`` URIs; no script, no external link).

The page is the Jinja2 template ``analysis/templates/report.html.j2`` (autoescaped); this module
computes the tables and sentences it shows. The runs' game chooses its sections
(:data:`SECTIONS`): Loba's seats, policies, eliminations and rebuys, or Moon's bids, trump,
moon, widow and first bidder. Numbers go through :mod:`analysis.fmt`. The tests
the report states are corrected together for multiple comparisons (:mod:`analysis.family`).
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

from . import fmt, plots, words
from . import metrics as M
from . import moon as MN
from .bygame import analysis_of
from .compare import compare
from .errors import AnalysisError
from .family import adjusted, family_of_tests
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


def _methods(middle: str, tests: str) -> str:
    """The report's Methods paragraph: intervals, the game's own ``middle``, the family of
    ``tests`` corrected together."""
    return (
        f"{METHODS_INTERVALS} {middle} Intervals are 95% and per figure. The tests the findings"
        f" state ({tests}) form one family whose p-values are adjusted with Holm's method, "
        "which keeps the chance of any false finding in the report at 5%; a finding is "
        "worded as detectable only when its adjusted p-value is below 0.05."
    )


METHODS = _methods(
    "Seat equality: Pearson chi-square test on finished games, seats counted in the first "
    "round's playing order from the dealer's left. Skill: exact binomial test of a policy's "
    "share of wins against its fair share. Elimination risk per round: players eliminated for "
    "good in that round over players still in at its start.",
    "seat equality, skill, differences from the baseline",
)
MOON_METHODS = _methods(
    "Positions from the first bidder and seats: Pearson chi-square tests of equal win shares "
    "on finished games. Bids, trump, the moon and the widow count played hands (redeals left "
    "out); the hands of one game are not independent, and their intervals treat them as if "
    "they were. The bidder's tricks with and without the widow are an association, not the "
    "widow's worth: the bidder chooses after seeing it.",
    "equal positions, equal seats, differences from the baseline",
)
NO_HANDS = "Needs the hands table in every run: simulate with --rounds."


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
    from sim.setup import parse_rules_id

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
                "default": rs.runs[0].spec.rules.default_preset,
                "rules_id": m["rules_id"],
                "rules_version": m.get("rules_version"),
                "seats": ", ".join(m["seats"]),
                "changed": _table(head, [r for r in rows if r[1] != r[2]], 5),
                "all": _table(head, rows, 5),
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
    return _table(
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


def _ci(v, lo, hi, unit=None) -> Markup:
    """A value with its 95% interval beside it, in ``unit`` (``n/a`` alone without a value)."""
    if fmt.is_na(v):
        return Markup(fmt.NA)
    return _with_ci(fmt.value(v, unit), fmt.interval(lo, hi, unit))


def _frame_table(df: pl.DataFrame, cols: list[tuple[str, Callable[[dict], object]]], left: int):
    """A table of ``df``'s rows: one column per (header, cell of a row)."""
    rows = [[cell(r) for _, cell in cols] for r in df.iter_rows(named=True)]
    return _table([h for h, _ in cols], rows, left)


def _text(head: str, col: str | None = None) -> tuple:
    return head, lambda r: r[col or head]


def _count(head: str, col: str) -> tuple:
    return head, lambda r: fmt.number(r[col])


def _share(head: str, col: str) -> tuple:
    return head, lambda r: fmt.share(r[col])


def _est(head: str, col: str, lo: str = "ci_low", hi: str = "ci_high", unit=None) -> tuple:
    """A column of estimates with their intervals beside them."""
    return head, lambda r: _ci(r[col], r[lo], r[hi], unit)


def _seat_table(sa: pl.DataFrame, adj: dict, position: str) -> dict:
    """Win share by seat or position (Loba's :func:`~analysis.metrics.seat_advantage`, Moon's
    :func:`~analysis.moon.first_bidder_advantage`) with its test; ``adj``: variant -> the
    test's adjusted p-value."""
    return _frame_table(
        sa,
        [
            _text("variant"),
            _text(position, "label"),
            _count("wins", "wins"),
            _share("share", "share"),
            ("95% interval", lambda r: fmt.interval(r["ci_low"], r["ci_high"], "share")),
            _share("fair", "expected"),
            ("χ² p", lambda r: fmt.pvalue(r["p_value"])),
            ("p (adjusted)", lambda r: fmt.pvalue(adj.get(r["variant"]))),
        ],
        2,
    )


def _policy_table(pt: pl.DataFrame) -> dict:
    return _frame_table(
        pt,
        [
            _text("variant"),
            _text("policy"),
            _count("seat-games", "games"),
            _est("win rate per seat", "win_rate", "win_low", "win_high", "share"),
            _est("rebuys per game", "rebuys", "rebuys_ci_low", "rebuys_ci_high"),
            _est("round eliminated", "elim_round", "elim_round_ci_low", "elim_round_ci_high"),
            _est("net stakes per game", "net", "net_ci_low", "net_ci_high"),
        ],
        2,
    )


def _hands_table(hp: pl.DataFrame) -> dict:
    return _frame_table(
        hp,
        [
            _text("variant"),
            ("hands", lambda r: "all dealt" if r["count"] == "all" else "played (no redeal)"),
            _count("games", "games"),
            _est("mean per game", "mean"),
            _count("median", "median"),
            _count("most", "max"),
        ],
        2,
    )


def _bid_table(bs: pl.DataFrame) -> dict:
    return _frame_table(
        bs,
        [
            _text("variant"),
            _text("by"),
            ("bid or trump", lambda r: words.LEVEL_NAMES.get(r["level"], r["level"])),
            _count("contracts", "hands"),
            _share("share of contracts", "share_of_hands"),
            _est("made", "share", unit="share"),
        ],
        3,
    )


def _moon_table(mr: pl.DataFrame) -> dict:
    return _frame_table(
        mr,
        [
            _text("variant"),
            _text("measure"),
            _text("per"),
            _count("count", "k"),
            _count("of", "n"),
            _est("share", "share", unit="share"),
        ],
        3,
    )


def _widow_table(wv: pl.DataFrame) -> dict:
    return _frame_table(
        wv,
        [
            _text("variant"),
            _text("widow"),
            _count("played hands", "hands"),
            _est("share", "share", "share_low", "share_high", "share"),
            _est("bidder's tricks", "tricks"),
            _share("contracts made", "made"),
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


def _section(title: str, table: dict | None, note: str = "") -> dict:
    return {"title": title, "table": table, "note": note}


def _loba_sections(rs: RunSet, km: pl.DataFrame, cmp: pl.DataFrame | None) -> Sections:
    g, s = rs.games, rs.seats
    sa, sg = M.seat_advantage(g), M.skill_gap(g, s)
    tests = family_of_tests(sa, sg, cmp)
    figures = [
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
    seats_adj = {v: adjusted(tests, "seats", v) for v in rs.variants}
    return Sections(
        name="Loba de Menos",
        tests=tests,
        findings={v: words.variant_findings(km, v, sa, sg, tests) for v in rs.variants},
        figures=figures,
        tables=[
            _section("Seat advantage", _seat_table(sa, seats_adj, "seat (first round order)")),
            _section("By policy", _policy_table(M.policy_table(g, s))),
        ],
        methods=METHODS,
    )


def _moon_sections(rs: RunSet, km: pl.DataFrame, cmp: pl.DataFrame | None) -> Sections:
    g, h = rs.games, rs.detail
    fb = MN.first_bidder_advantage(g)
    bs = MN.bid_success(h) if h is not None else None
    tests = family_of_tests(None, None, cmp, metric_tests=km)
    figures = [
        _figure(
            plots.rounds_plot(g, "hands"),
            "Distribution of the number of hands per game (redeals included).",
        ),
        _figure(
            plots.seat_advantage_plot(
                fb,
                "position from the game's first bidder",
                "First-bidder advantage (dashed: fair share; p: chi-square test of equal"
                " positions)",
            ),
            "Win share by position from the game's first bidder (bars: 95% interval; p: the "
            "chi-square test before correction, see Tests).",
        ),
    ]
    if bs is not None:
        figures.insert(
            1,
            _figure(
                plots.bid_success_plot(bs),
                "Share of contracts made by bid and by trump kind (bars: 95% interval).",
            ),
        )
    pos_adj = {v: adjusted(tests, "metric", v, MN.M_POSITION_P) for v in rs.variants}
    return Sections(
        name=rs.runs[0].spec.title,
        tests=tests,
        findings={v: words.moon_findings(km, v, bs, fb, tests) for v in rs.variants},
        figures=figures,
        tables=[
            _section("Hands per game", _hands_table(MN.hands_per_game(g))),
            _section("Bid success", _bid_table(bs) if bs is not None else None, NO_HANDS),
            _section("The moon", _moon_table(MN.moon_rates(h, g))),
            _section(
                "The widow", _widow_table(MN.widow_value(h)) if h is not None else None, NO_HANDS
            ),
            _section(
                "First-bidder advantage", _seat_table(fb, pos_adj, "position from the first bidder")
            ),
        ],
        methods=MOON_METHODS,
    )


# each game's sections of the report (its metrics: analysis.bygame)
SECTIONS: dict[str, Callable[[RunSet, pl.DataFrame, pl.DataFrame | None], Sections]] = {
    "loba": _loba_sections,
    "moon": _moon_sections,
}


def _with_family(cmp: pl.DataFrame | None, tests: pl.DataFrame) -> pl.DataFrame | None:
    """``cmp`` whose differences carry the report family's adjusted p-values, and verdicts
    read from them (:func:`analysis.estimate.verdict`)."""
    from .compare import FAMILY_VERDICTS
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


def _rebuy_section(rs: RunSet, rebuy_games: int, rebuy_reps: int, progress) -> dict:
    """The state-level rebuy experiment on the first variant's rules and seats (Loba)."""
    from .rebuy import rebuy_value_state, tabulate_state_value

    m = rs.manifest(rs.variants[0])
    dec = rebuy_value_state(
        m["rules_id"],
        m["seats"],
        games=rebuy_games,
        seed=int(m["seed"]),
        reps=rebuy_reps,
        progress=progress,
    )
    return {
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
    return {"fields": order, "table": _table(head, rows, 2)}


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
    rebuy_games: int = 0,
    rebuy_reps: int = 8,
    progress=None,
    fields: list[str] | None = None,
) -> Path:
    """Write the HTML report of the run directories ``paths`` to ``out``; returns its path.
    The runs' game chooses the metrics (:mod:`analysis.bygame`) and the sections
    (:data:`SECTIONS`): Loba's seats, policies and eliminations, or Moon's bids, trump, moon,
    widow and first bidder.

    ``rebuy_games`` > 0 adds the state-level rebuy experiment (Loba only: that many games, the
    first variant's rules and seats, ``rebuy_reps`` pairs of branches per decision).

    When the runs cover two or more fields of players (:mod:`analysis.field`), each under the
    same rule sets, an "Across skill" section sets every difference in each field against the
    first field's; ``fields`` (names) keeps the runs of those fields only, in that order."""
    outp = Path(out)
    if outp.exists() and outp.is_dir():
        raise AnalysisError(f"'{outp}' is a directory; give a file name such as report.html.")
    if fields is not None and not isinstance(paths, RunSet):
        from .field import parse_fields, paths_in_fields

        fields = parse_fields(fields)
        paths, labels = paths_in_fields(list(paths), fields, labels)
    rs = paths if isinstance(paths, RunSet) else load_runs(paths, labels)
    metrics = analysis_of(rs.game)
    if rebuy_games > 0 and not metrics.rebuys:
        raise AnalysisError(
            f"--rebuy-games values Loba's rebuys; {rs.runs[0].spec.title} has none to value."
        )
    g, s, d = rs.games, rs.seats, rs.detail
    variants = rs.variants
    km = metrics.key_metrics(g, s, d)
    cmp = compare(g, s, game=rs.game, detail=d) if len(variants) > 1 else None
    part = SECTIONS[rs.game](rs, km, cmp)
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
        "rebuy": _rebuy_section(rs, rebuy_games, rebuy_reps, progress) if rebuy_games > 0 else None,
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
        "across": _across_section(rs, fields) if rs.game == "loba" else None,
    }
    doc = _env().get_template(TEMPLATE).render(**ctx)
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(doc, encoding="utf-8")
    return outp

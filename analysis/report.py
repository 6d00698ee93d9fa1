"""One self-contained HTML report of one or more run directories.

Everything a player needs is in the file: what was simulated, the rules (knobs that differ from
the defaults, and all of them on demand), findings as sentences with 95% intervals, tables and
figures (PNG embedded as ``data:image/png;base64`` URIs; no script, no external link).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
from pathlib import Path

import polars as pl

from . import metrics as M
from . import plots, words
from .compare import compare
from .errors import AnalysisError
from .io import RunSet, load_runs

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


def _img(fig, dpi: int = 100) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(fig, caption: str) -> str:
    return (
        f'<figure><img alt="{html.escape(caption)}" src="{_img(fig)}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _fmt(x, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if unit == "share":
        return f"{100 * x:.2f}%"
    if unit == "p":
        return f"{x:.3g}"
    if isinstance(x, int):
        return f"{x:,}"
    a = abs(x)
    return f"{x:,.0f}" if a >= 1000 else f"{x:.3f}" if a < 10 else f"{x:.2f}"


def _table(headers: list[str], rows: list[list], left: int = 1) -> str:
    h = "".join(
        f'<th class="{"l" if i < left else ""}">{html.escape(str(c))}</th>'
        for i, c in enumerate(headers)
    )
    body = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            cls = ' class="l"' if i < left else ""
            cells.append(f"<td{cls}>{c if str(c).startswith('<') else html.escape(str(c))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _rules_section(rs: RunSet) -> str:
    from sim.rules import parse_rules_id

    out = []
    for v in rs.variants:
        m = rs.manifest(v)
        try:
            # (knob, value, default, rule, meaning); runs from before Moon name no game: Loba
            rows = [
                (k, val, d, r, mean)
                for k, val, d, r, _, mean in parse_rules_id(
                    m["rules_id"], m.get("game", "loba")
                ).describe()
            ]
        except Exception:  # a rule set this version no longer knows: show the manifest as is
            rows = [(k, str(val), "?", "", "") for k, val in (m.get("rules") or {}).items()]
        changed = [r for r in rows if r[1] != r[2]]
        out.append(f"<h3>{html.escape(v)}</h3>")
        out.append(
            f"<p>Rule set <code>{html.escape(m['rules_id'])}</code> (rules version "
            f"{html.escape(str(m.get('rules_version')))}); seats "
            f"<code>{html.escape(', '.join(m['seats']))}</code>.</p>"
        )
        if changed:
            out.append("<p>Knobs that differ from the defaults of RULES.md:</p>")
            out.append(
                _table(
                    ["knob", "value", "default", "rule", "meaning"],
                    [list(r) for r in changed],
                    left=5,
                )
            )
        else:
            out.append("<p>All knobs at their defaults (the pagat rules).</p>")
        out.append(
            "<details><summary>All knobs</summary>"
            + _table(["knob", "value", "default", "rule", "meaning"], [list(r) for r in rows], 5)
            + "</details>"
        )
    return "\n".join(out)


def _runs_section(rs: RunSet) -> str:
    rows = []
    for r, v in zip(rs.runs, rs.variant_of, strict=True):
        m = r.manifest
        rows.append(
            [
                str(r.path),
                v,
                ", ".join(m["seats"]),
                f"{r.n_games:,}",
                str(m["seed"]),
                "yes" if r.rounds is not None else "no",
                "yes" if r.complete else "no (interrupted)",
                _fmt(m.get("elapsed_seconds")),
            ]
        )
    return _table(
        ["run directory", "variant", "seats", "games", "seed", "rounds", "complete", "seconds"],
        rows,
        left=3,
    )


def _key_table(km: pl.DataFrame, variants: list[str]) -> str:
    metrics = km["metric"].unique(maintain_order=True).to_list()
    rows = []
    for metric in metrics:
        row = [metric]
        for v in variants:
            r = km.filter((pl.col("variant") == v) & (pl.col("metric") == metric))
            if r.height == 0:
                row.append("–")
                continue
            r = r.row(0, named=True)
            cell = _fmt(r["value"], r["unit"])
            if r["kind"] != "test":
                cell += (
                    f' <span class="muted">[{_fmt(r["ci_low"], r["unit"])}, '
                    f"{_fmt(r['ci_high'], r['unit'])}]</span>"
                )
            row.append("<span>" + cell + "</span>")
        rows.append(row)
    return _table(["metric (95% interval)"] + variants, rows)


def _compare_table(cmp: pl.DataFrame) -> str:
    rows = []
    for r in cmp.filter(pl.col("verdict") != "").iter_rows(named=True):
        u = r["unit"]
        scale = (
            (lambda x: _fmt(None if x is None else 100 * x) + " pts")
            if u == "share"
            else (lambda x: _fmt(x))
        )
        cls = {"higher": "higher", "lower": "lower"}.get(r["verdict"], "nodiff")
        rows.append(
            [
                r["metric"],
                r["variant"],
                _fmt(r["value"], u),
                scale(r["diff"]),
                f"[{scale(r['diff_low'])}, {scale(r['diff_high'])}]",
                f'<span class="{cls}">{html.escape(r["verdict"])}</span>',
            ]
        )
    base = cmp["baseline"][0] if cmp.height else ""
    return f"<p>Baseline: <b>{html.escape(str(base))}</b>.</p>" + _table(
        ["metric", "variant", "value", "difference", "95% interval", "verdict"], rows, left=2
    )


def _seat_table(sa: pl.DataFrame) -> str:
    rows = [
        [
            r["variant"],
            r["label"],
            f"{r['wins']:,}",
            _fmt(r["share"], "share"),
            f"[{_fmt(r['ci_low'], 'share')}, {_fmt(r['ci_high'], 'share')}]",
            _fmt(r["expected"], "share"),
            _fmt(r["p_value"], "p"),
        ]
        for r in sa.iter_rows(named=True)
    ]
    return _table(
        ["variant", "seat (first round order)", "wins", "share", "95% interval", "fair", "χ² p"],
        rows,
        left=2,
    )


def _policy_table(pt: pl.DataFrame) -> str:
    rows = [
        [
            r["variant"],
            r["policy"],
            f"{r['games']:,}",
            f"{_fmt(r['win_rate'], 'share')} [{_fmt(r['win_low'], 'share')}, "
            f"{_fmt(r['win_high'], 'share')}]",
            f"{_fmt(r['rebuys'])} [{_fmt(r['rebuys_ci_low'])}, {_fmt(r['rebuys_ci_high'])}]",
            f"{_fmt(r['elim_round'])} [{_fmt(r['elim_round_ci_low'])}, "
            f"{_fmt(r['elim_round_ci_high'])}]",
            f"{_fmt(r['net'])} [{_fmt(r['net_ci_low'])}, {_fmt(r['net_ci_high'])}]",
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
    g, s = rs.games, rs.seats
    variants = rs.variants
    km = M.key_metrics(g, s)
    sa = M.seat_advantage(g)
    sg = M.skill_gap(g, s)
    pt = M.policy_table(g, s)
    surv = M.survival(g, s)
    hz = M.elimination_hazard(g, s)
    fe = M.first_elimination(g, s)
    parts = []
    title = title or (
        "Loba de Menos: " + (variants[0] if len(variants) == 1 else " vs ".join(variants))
    )
    total = sum(r.n_games for r in rs.runs)
    parts.append(f"<h1>{html.escape(title)}</h1>")
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("loba-sim")
    except PackageNotFoundError:
        ver = "unknown"
    parts.append(
        f'<p class="muted">{total:,} simulated games in {len(rs.runs)} run(s); generated '
        f"{_dt.datetime.now().strftime('%Y-%m-%d %H:%M')} by loba-sim {ver}. Every figure "
        "comes with a 95% confidence interval: the range the true value lies in, given the "
        "games played.</p>"
    )
    parts.append("<h2>Findings</h2>")
    for v in variants:
        parts.append(f"<h3>{html.escape(v)}</h3><ul class='finding'>")
        for sentence in words.variant_findings(km, v, sa, sg):
            parts.append(f"<li>{html.escape(sentence)}</li>")
        parts.append("</ul>")
    cmp = None
    if len(variants) > 1:
        cmp = compare(g, s)
        parts.append("<h3>Differences from the baseline</h3><ul class='finding'>")
        for sentence in words.compare_sentences(cmp):
            parts.append(f"<li>{html.escape(sentence)}</li>")
        parts.append("</ul>")
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
        parts.append(f"<h3>Is a rebuy worth it? ({html.escape(m['rules_id'])})</h3>")
        parts.append(
            f"<p>At each of the {dec.height:,} rebuy decisions of {rebuy_games:,} games the game "
            f"was forked and played to the end {rebuy_reps} times each way (rebuy / decline), "
            "on the same cards in both branches.</p><ul class='finding'>"
        )
        by_players = tabulate_state_value(dec, by=["players_left"])
        for sentence in words.rebuy_state_sentences(by_players):
            parts.append(f"<li>{html.escape(sentence)}</li>")
        parts.append("</ul>")
        parts.append(
            _figure(
                plots.rebuy_heatmap(tabulate_state_value(dec)),
                "Value of rebuying in stakes (net of its price), with 95% interval and number "
                "of decisions; hatched cells have too few decisions to trust.",
            )
        )
    parts.append("<h2>What was simulated</h2>")
    parts.append(_runs_section(rs))
    parts.append("<h2>Rules used</h2>")
    parts.append(_rules_section(rs))
    parts.append("<h2>Figures</h2>")
    parts.append(_figure(plots.rounds_plot(g), "Distribution of the number of rounds per game."))
    parts.append(
        _figure(
            plots.survival_plot(surv),
            "Share of players still in after each round (band: 95% interval); dotted: share of "
            "games still running.",
        )
    )
    parts.append(
        _figure(
            plots.hazard_plot(hz),
            "Risk that a player still in is eliminated for good in that round (band: 95%).",
        )
    )
    parts.append(
        _figure(plots.first_elimination_plot(fe), "Round of the first elimination for good.")
    )
    parts.append(
        _figure(
            plots.seat_advantage_plot(sa),
            "Win share by seat in the first round's playing order (bars: 95% interval).",
        )
    )
    parts.append("<h2>Tables</h2><h3>Key metrics</h3>")
    parts.append(_key_table(km, variants))
    if cmp is not None:
        parts.append("<h3>Comparison</h3>")
        parts.append(_compare_table(cmp))
    parts.append("<h3>Seat advantage</h3>")
    parts.append(_seat_table(sa))
    parts.append("<h3>By policy</h3>")
    parts.append(_policy_table(pt))
    parts.append(
        "<h2>Methods</h2><p class='muted'>Shares: Wilson score intervals. Means: Student t "
        "intervals. Differences: Welch t (means) and Newcombe hybrid score (shares); a "
        "difference whose interval contains 0 is reported as not detectable. Seat equality: "
        "Pearson chi-square test on finished games, seats counted in the first round's playing "
        "order from the dealer's left. Elimination risk per round: players eliminated for good "
        "in that round over players still in at its start. Intervals are 95% and per figure "
        "(no correction for multiple comparisons).</p>"
    )
    doc = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>\n"
    )
    outp.parent.mkdir(parents=True, exist_ok=True)
    outp.write_text(doc, encoding="utf-8")
    return outp

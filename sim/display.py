"""How a run looks in a notebook: the summary as a tidy polars DataFrame, and HTML reprs.

Numbers go through :mod:`sim.fmt`, the formatter the command line and the report use
(imported when first needed: ``sim`` itself never imports ``analysis`` at module level).
"""

from __future__ import annotations

import html

import polars as pl

SUMMARY_SCHEMA = {
    "figure": pl.String,
    "seat": pl.Int64,
    "policy": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "unit": pl.String,
    "metric": pl.String,
    "method": pl.String,
}

UNITS = {  # of the figures every game's summary has; the game's own come from its spec
    "games": "games",
    "unfinished": "games",
    "elapsed_seconds": "s",
    "games_per_second": "games/s",
}

NOT_ESTIMATED = {  # figures without an interval, and why (the ``method`` column)
    "games": "no interval: the games played, not an estimate",
    "elapsed_seconds": "no interval: this run's timing, not an estimate from its games",
    "games_per_second": "no interval: this run's timing, not an estimate from its games",
}


def summary_frame(
    summary: dict, units: dict | None = None, intervals: dict | None = None
) -> pl.DataFrame:
    """A run's summary dict (:meth:`sim.results.Results.summary_dict`) as one row per figure:
    ``figure, seat, policy, value, ci_low, ci_high, unit, metric, method`` — the run's figures
    first (games, time, the game's own headline figures), then each seat's win share
    (``figure == "win share"``). ``units``: the game's figures' units. ``intervals``: each
    figure's estimate (:func:`analysis.bygame.run_summary`: its interval, ``metric`` and
    ``method``; ``"seats"``: the win shares'); without them, the win shares' 95% Wilson
    intervals of the dict and none for the other figures. A figure that is not an estimate
    (:data:`NOT_ESTIMATED`) says so in ``method``."""
    rows = []
    intervals = intervals or {}
    for k, v in summary.items():
        if k == "seats" or isinstance(v, dict | list):
            continue
        e = intervals.get(k) or {}
        rows.append(
            {
                "figure": k,
                "seat": None,
                "policy": None,
                "value": float(v),
                "ci_low": e.get("ci_low"),
                "ci_high": e.get("ci_high"),
                "unit": {**UNITS, **(units or {})}.get(k, ""),
                "metric": e.get("metric"),
                "method": e.get("method") or NOT_ESTIMATED.get(k),
            }
        )
    by_seat = intervals.get("seats")
    for s in summary.get("seats", []):
        e = by_seat[s["seat"]] if by_seat is not None else None
        rows.append(
            {
                "figure": "win share",
                "seat": s["seat"],
                "policy": s["policy"],
                "value": s["share"],
                "ci_low": s["ci_low"] if e is None else e["ci_low"],
                "ci_high": s["ci_high"] if e is None else e["ci_high"],
                "unit": "share",
                "metric": None if e is None else e["metric"],
                "method": "Wilson" if e is None else e["method"],
            }
        )
    return pl.DataFrame(rows, schema=SUMMARY_SCHEMA)


def summary_html(frame: pl.DataFrame) -> str:
    """The summary frame as a small HTML table (shares as percentages, intervals beside)."""
    from . import fmt

    out = ["<table><tr><th>figure</th><th>value</th><th>95% interval</th><th>unit</th></tr>"]
    for r in frame.iter_rows(named=True):
        unit = r["unit"]
        name = r["figure"]
        if r["seat"] is not None:
            name = f"win share, seat {r['seat']} ({r['policy']})"
        value = fmt.number(int(r["value"])) if unit == "games" else fmt.value(r["value"], unit)
        ci = "" if r["ci_low"] is None else fmt.interval(r["ci_low"], r["ci_high"], unit)
        out.append(
            f"<tr><td style='text-align:left'>{html.escape(name)}</td><td>{html.escape(value)}"
            f"</td><td>{html.escape(ci)}</td><td>{html.escape(fmt.unit_label(unit))}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def results_html(res) -> str:
    """``Results._repr_html_``: what was played, then the summary table."""
    head = (
        f"<p><b>{html.escape(res.spec.title)}</b> run: rules <code>{html.escape(res.rules.id)}"
        f"</code>, seats <code>{html.escape(', '.join(res.seat_labels))}</code>, seed "
        f"{res.seed}, {res.n_games:,} games from game {res.start:,} "
        f"({res.elapsed:.2f} s on {res.threads} thread{'s' * (res.threads != 1)}); tables: "
        + ", ".join(
            f"<code>.{html.escape(name)}</code> ({df.height:,} rows)"
            for name, df in res.frames.items()
        )
        + ".</p>"
    )
    return head + summary_html(res.summary())

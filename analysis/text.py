"""Plain-text, CSV and JSON renderings of the analysis tables for the command line.

Numbers in the readable tables go through :mod:`sim.fmt` (the report and the notebooks
use it too); CSV and JSON keep the raw values.
"""

from __future__ import annotations

import json
import math

import polars as pl

from sim import fmt

FORMATS = ("table", "csv", "json")

# columns that hold p-values, wherever they appear
P_COLUMNS = {"p_value", "p_adjusted", "seat_p", "p"}


def _cell(x, unit: str | None = None) -> str:
    if x is None:
        return fmt.NA
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float | int):
        return fmt.value(x, unit)
    return str(x)


def table_text(
    df: pl.DataFrame, columns: list[str] | None = None, units: dict[str, str] | None = None
) -> str:
    """An aligned plain-text table (numbers right-aligned, text left-aligned). ``units`` maps a
    column to its unit (``share`` prints as a percentage, ``p`` as a p-value); columns named
    like a p-value (``p_value``, ``p_adjusted``, ``seat_p``) are p-values. A column ``C`` shown
    beside ``C_low`` and ``C_high`` in ``df`` prints as ``value [low, high]`` (its interval,
    :func:`sim.fmt.interval`), and those two are not shown apart."""
    cols = columns or df.columns
    paired = {c for c in cols if f"{c}_low" in df.columns and f"{c}_high" in df.columns}
    cols = [c for c in cols if not any(c in (f"{p}_low", f"{p}_high") for p in paired)]
    u = {c: "p" for c in cols if c in P_COLUMNS}
    u.update(units or {})
    cells = []
    for r in df.iter_rows(named=True):
        row = []
        for c in cols:
            text = _cell(r[c], u.get(c))
            if c in paired:
                ci = fmt.interval(r[f"{c}_low"], r[f"{c}_high"], u.get(c))
                text = f"{text} {ci}" if ci != fmt.NA else text
            row.append(text)
        cells.append(row)
    return aligned(cols, cells, [df.schema[c].is_numeric() for c in cols])


def aligned(head: list[str], rows: list[list[str]], right: list[bool]) -> str:
    """Rows of strings as columns: a header, a rule, ``right``-aligned numbers."""
    w = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(head)]

    def line(vals):
        return "  ".join(
            v.rjust(w[i]) if right[i] else v.ljust(w[i]) for i, v in enumerate(vals)
        ).rstrip()

    return "\n".join([line(head), line(["-" * x for x in w])] + [line(r) for r in rows])


def render(
    df: pl.DataFrame, fmt_: str, units: dict[str, str] | None = None, columns=None
) -> str:
    """``df`` as ``table`` (aligned text; ``columns``: those shown), ``csv`` or ``json`` (a
    list of records, every column)."""
    if fmt_ == "csv":  # a missing value (no interval) is an empty field
        return df.write_csv().rstrip("\n")
    if fmt_ == "json":  # a missing value or NaN is null (JSON has no NaN)
        rows = [{k: _finite(v) for k, v in r.items()} for r in df.to_dicts()]
        return json.dumps(rows, indent=1, default=_json_default)
    return table_text(df, columns, units=units)


def _finite(x):
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _json_default(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    return str(x)


def metrics_text(km: pl.DataFrame) -> str:
    """Key metrics as 'metric | value | unit | 95% interval | n' per variant, one block per
    variant (a quantile's interval is two games' values, shown as they are)."""
    out = []
    for (v,), part in km.group_by("variant", maintain_order=True):
        out.append(f"== {v}")
        rows = []
        for r in part.iter_rows(named=True):
            unit = r["unit"]
            ci = "" if r["kind"] == "test" else fmt.interval(r["ci_low"], r["ci_high"], unit)
            if r["kind"] == "quantile" and not fmt.is_na(r["ci_low"]) and not fmt.is_na(
                r["ci_high"]
            ):  # order statistics: values of games, [10, 10] when the games agree
                ci = f"[{fmt.value(r['ci_low'], unit)}, {fmt.value(r['ci_high'], unit)}]"
            rows.append(
                [r["metric"], fmt.value(r["value"], unit), fmt.unit_label(unit), ci, f"{r['n']:,}"]
            )
        out.append(
            aligned(
                ["metric", "value", "unit", "95% interval", "n"],
                rows,
                [False, True, False, False, True],
            )
        )
        if "method" in part.columns:  # a spread says who gains and whether it is within margin
            for r in part.filter(pl.col("kind") == "spread").iter_rows(named=True):
                out.append(f"{r['metric'].split(':')[0]}: {r['method']}.")
        out.append("")
    return "\n".join(out).rstrip()


def compare_text(cmp: pl.DataFrame) -> str:
    """The comparison as an aligned table: each variant's value, its difference from the
    baseline with the interval the verdict rests on (paired when the runs share their seeds),
    the unpaired interval beside it, and the Holm-adjusted p-value the verdict follows."""
    rows = []
    order = {m: i for i, m in enumerate(cmp["metric"].unique(maintain_order=True).to_list())}
    ranked = cmp.with_columns(
        pl.col("metric").replace_strict(order, default=len(order)).alias("_m"),
        (pl.col("variant") != pl.col("baseline")).alias("_b"),
    ).sort("_m", "_b", maintain_order=True)
    for r in ranked.iter_rows(named=True):
        unit = r["unit"]
        is_base = r["variant"] == r["baseline"]
        if unit == "p" or (r["diff"] is None and not is_base):
            continue  # a test p-value (not differenced) or a metric the baseline lacks
        kind = "" if is_base else ("paired" if r["paired"] else "unpaired")
        rows.append(
            [
                r["metric"],
                r["variant"] + (" (baseline)" if is_base else ""),
                fmt.value(r["value"], unit),
                fmt.unit_label(unit),
                "" if is_base else fmt.diff(r["diff"], unit),
                "" if is_base else fmt.interval(r["diff_low"], r["diff_high"], unit, True),
                kind,
                "" if is_base or not r["paired"]
                else fmt.interval(r["unpaired_low"], r["unpaired_high"], unit, True),
                "" if is_base else fmt.pvalue(r["p_adjusted"]),
                r["verdict"],
            ]
        )  # fmt: skip
    return aligned(
        [
            "metric",
            "variant",
            "value",
            "unit",
            "difference",
            "95% interval",
            "method",
            "unpaired 95% interval",
            "p (adjusted)",
            "verdict",
        ],
        rows,
        [False, False, True, False, True, False, False, False, True, False],
    )


def tournament_text(res) -> str:
    """A tournament (:class:`analysis.tournament.TournamentResult`) as text: what was played,
    the ratings with their intervals and win shares (best first), each pair's win shares and
    the win-share matrix."""
    t = res.plan
    anchor = t.pool[0]
    out = [
        f"{t.rules.id}, {t.players} players, seed {t.seed}: {t.describe()};"
        f" {t.games:,} games each on the same deals ({t.total_games:,} games,"
        f" {res.elapsed:.1f} s)",
        "",
        f"ratings: Plackett–Luce log-strength from each game's finishing order ({anchor} = 0),"
        f" 95% bootstrap interval over the deals ({t.resamples} resamples); win share against"
        " its fair share, 95% interval",
    ]
    rows = []
    for r in res.policies.sort("rating", descending=True).iter_rows(named=True):
        is_anchor = r["policy"] == anchor
        rows.append(
            [
                r["policy"],
                "0 (anchor)" if is_anchor else fmt.number(r["rating"], sign=True),
                "" if is_anchor else fmt.interval(r["ci_low"], r["ci_high"], signed=True),
                fmt.share(r["above_anchor"]),
                fmt.share(r["win_share"]),
                fmt.interval(r["win_low"], r["win_high"], "share"),
                fmt.share(r["fair_share"]),
                fmt.number(r["games"]),
            ]
        )
    head = ["policy", "rating", "95% interval", f"above {anchor}", "win share", "95% interval"]
    head += ["fair share", "games"]
    out.append(aligned(head, rows, [False, True, False, True, True, False, True, True]))
    out += [
        "",
        "pairs: each policy's win share in the games where both sit, 95% interval;"
        " others: another policy won, or no one",
    ]
    order = {p: i for i, p in enumerate(t.pool)}
    back = {(r["policy"], r["opponent"]): r for r in res.pairs.iter_rows(named=True)}
    rows = []
    for (a, b), r in back.items():
        if order.get(a, 0) >= order.get(b, 0):
            continue
        o = back.get((b, a), {})
        rows.append(
            [
                a,
                b,
                fmt.number(r["games"]),
                fmt.share(r["share"]),
                fmt.interval(r["ci_low"], r["ci_high"], "share"),
                fmt.share(r["opponent_share"]),
                fmt.interval(o.get("ci_low"), o.get("ci_high"), "share"),
                fmt.share(r["other_share"]),
            ]
        )
    head = ["policy A", "policy B", "games", "A wins", "95% interval", "B wins", "95% interval"]
    out.append(
        aligned(head + ["others"], rows, [False, False, True, True, False, True, False, True])
    )
    out += ["", "matrix: the row policy's win share in the games where the column policy sits"]
    rows = [
        [a] + ["—" if a == b else fmt.share(back.get((a, b), {}).get("share")) for b in t.pool]
        for a in t.pool
    ]
    out.append(aligned([""] + t.pool, rows, [False] + [True] * len(t.pool)))
    return "\n".join(out)


def tune_text(res) -> str:
    """A tuning study (:class:`analysis.tune.TuneResult`) as text: what was played, every
    trial, the best seat, and the fresh-games evaluation against the default seat."""
    t = res.plan
    pruned = res.pruned
    out = [
        f"tuned {t.describe()}; {res.games_played:,} games played,"
        f" {pruned} trial{'s' * (pruned != 1)} pruned ({res.elapsed:.1f} s)",
        "",
        "trials: win share of the tuned seat over every seating, on the games played so far"
        " (the same deals for every trial); pruned: stopped at a rung",
    ]
    names = [r.name for r in t.ranges]
    rows = []
    for r in res.study.iter_rows(named=True):
        rows.append(
            [
                str(r["trial"]),
                r["state"],
                fmt.number(r["games"]),
                fmt.number(r["played"]),
                fmt.share(r["win_share"]),
                *[fmt.number(r[n]) for n in names],
                r["seat"] + ("  <- best" if r["trial"] == res.best_trial else ""),
            ]
        )
    head = ["trial", "state", "games", "played", "win share", *names, "seat"]
    right = [True, False, True, True, True, *[True] * len(names), False]
    out.append(aligned(head, rows, right))
    out += [
        "",
        f"best: {res.best_seat} (trial {res.best_trial}), win share {fmt.share(res.best_value)}"
        f" on the tuning games (optimistic: the best of {len(rows)} trials on the same games)",
    ]
    for r in t.ranges:
        side = res.at_edge.get(r.name)
        if side is not None:
            beyond = r.allowed[0] if side == "low" else r.allowed[1]
            out.append(
                f"note: the best {r.name} ({fmt.number(res.best_params[r.name])}) is at the {side}"
                f" end of {r.text()}; a better value may lie beyond it: tune again with a range"
                " reaching further ("
                + (f"the policy allows {fmt.number(beyond)})" if math.isfinite(beyond) else
                   "the policy sets no limit)")
            )
    ev = res.evaluation
    if ev is None:
        return "\n".join(out)
    out += [
        "",
        f"fresh games: {ev.games:,} ({ev.deals:,} deals of seed {ev.seed}, not used in tuning,"
        f" x {t.players} seatings); against {','.join(t.field)}; 95% t interval over the deals",
    ]
    rows = []
    for r in ev.table.iter_rows(named=True):
        lo, hi = r["ci_low"], r["ci_high"]
        same = lo == hi
        label = r["seat"] + (" (default)" if r["role"] == "default" else "")
        ci = "none: the same on every deal" if same else fmt.interval(lo, hi, "share")
        rows.append([label, fmt.share(r["win_share"]), ci, fmt.share(r["fair_share"])])
    if res.best_seat == t.default_seat:
        rows = rows[:1]
    out.append(aligned(["seat", "win share", "95% interval", "fair share"], rows, [0, 1, 0, 1]))
    if res.best_seat == t.default_seat:
        out.append("the best seat is the default seat: nothing to compare")
    else:
        zero = ev.diff_low == ev.diff_high
        ci = "" if zero else f" {fmt.interval(ev.diff_low, ev.diff_high, 'share', signed=True)}"
        out.append(
            f"difference, tuned - default: {fmt.points(ev.diff)}{ci}, p = {fmt.pvalue(ev.p_value)}"
            " (paired: both seats on the same games)"
        )
    return "\n".join(out)

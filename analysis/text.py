"""Plain-text, CSV and JSON renderings of the analysis tables for the command line."""

from __future__ import annotations

import json
import math

import polars as pl

FORMATS = ("table", "csv", "json")


def _cell(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        a = abs(x)
        if a != 0 and (a < 0.001 or a >= 1e6):
            return f"{x:.3g}"
        return f"{x:,.0f}" if a >= 1000 else f"{x:.4f}" if a < 1 else f"{x:.3f}"
    return str(x)


def table_text(df: pl.DataFrame, columns: list[str] | None = None) -> str:
    """An aligned plain-text table (numbers right-aligned, text left-aligned)."""
    cols = columns or df.columns
    cells = [[_cell(v) for v in row] for row in df.select(cols).iter_rows()]
    numeric = [df.schema[c].is_numeric() for c in cols]
    w = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]

    def line(vals):
        return "  ".join(
            v.rjust(w[i]) if numeric[i] else v.ljust(w[i]) for i, v in enumerate(vals)
        ).rstrip()

    return "\n".join([line(cols), line(["-" * x for x in w])] + [line(r) for r in cells])


def render(df: pl.DataFrame, fmt: str) -> str:
    """``df`` as ``table`` (aligned text), ``csv`` or ``json`` (a list of records)."""
    if fmt == "csv":
        return df.write_csv().rstrip("\n")
    if fmt == "json":
        return json.dumps(df.to_dicts(), indent=1, default=str)
    return table_text(df)


def metrics_text(km: pl.DataFrame) -> str:
    """Key metrics as 'metric | value [low, high]' per variant, one block per variant."""
    out = []
    for (v,), part in km.group_by("variant", maintain_order=True):
        out.append(f"== {v}")
        rows = []
        for r in part.iter_rows(named=True):
            share = r["unit"] == "share"

            def f(x, share=share):
                if x is None or (isinstance(x, float) and math.isnan(x)):
                    return "–"
                return f"{100 * x:.2f}%" if share else _cell(float(x))

            ci = "" if r["kind"] == "test" else f"[{f(r['ci_low'])}, {f(r['ci_high'])}]"
            rows.append((r["metric"], f(r["value"]), ci, f"{r['n']:,}"))
        w = [max(len(x[i]) for x in rows) for i in range(4)]
        out.append(
            f"{'metric'.ljust(w[0])}  {'value'.rjust(w[1])}  "
            f"{'95% interval'.ljust(w[2])}  {'n'.rjust(w[3])}"
        )
        for a, b, c, d in rows:
            out.append(f"{a.ljust(w[0])}  {b.rjust(w[1])}  {c.ljust(w[2])}  {d.rjust(w[3])}")
        out.append("")
    return "\n".join(out).rstrip()

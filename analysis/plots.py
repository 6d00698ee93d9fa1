"""Matplotlib figures of the metrics: labelled axes with units, 95% interval bands or bars.

Every function takes a tidy table (of a game's metrics, :mod:`analysis.sweep`,
:mod:`analysis.tournament`) and returns a :class:`matplotlib.figure.Figure` (no global pyplot
state: safe in scripts, notebooks and the report). A game's own figures are in its analysis
package (its ``plots`` module). Save one with ``fig.savefig("x.png", dpi=120)``.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from sim import fmt

BAND_ALPHA = 0.25


def new_figure(w=7.5, h=4.2, **kw) -> tuple[Figure, object]:
    fig = Figure(figsize=(w, h), layout="constrained")
    ax = fig.subplots(**kw)
    return fig, ax


def short(v: str, width: int = 48) -> str:
    return v if len(v) <= width else v[: width - 1] + "…"


def cell_text(ax, x, y, text: str, colour=None, threshold: float = 0.5, **kw) -> None:
    """Annotate a heatmap cell, in white on a dark ``colour`` (an RGBA tuple) and in black
    otherwise (or without one)."""
    light = 1.0 if colour is None else 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
    ink = "w" if light < threshold else "k"
    ax.text(x, y, text, ha="center", va="center", fontsize=7, color=ink, **kw)


def rounds_plot(games, column: str) -> Figure:
    """Distribution of the length of games (``column``: the games table's count of the parts a
    game is played in, e.g. ``rounds`` or ``hands``), one line per variant."""
    from .io import collect
    from .metrics import prep

    df = collect(prep(games).group_by("variant", column).agg(pl.len().alias("n"))).sort(
        "variant", column
    )
    order = collect(prep(games).select(pl.col("variant").unique(maintain_order=True)))
    fig, ax = new_figure()
    for i, v in enumerate(order["variant"].to_list()):
        part = df.filter(pl.col("variant") == v)
        share = part["n"].to_numpy() / part["n"].sum()
        ax.plot(
            part[column].to_numpy(), 100 * share, marker="o", ms=3, color=f"C{i}", label=short(v)
        )
    ax.set_xlabel(f"{column} in the game")
    ax.set_ylabel("% of games")
    ax.set_title("How long games last")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def seat_advantage_plot(
    sa: pl.DataFrame,
    xlabel: str = "seat, in playing order of the first round",
    title: str = "Seat advantage (dashed: fair share; p: chi-square test of equal seats)",
) -> Figure:
    """Win share by position (a game's table of them, e.g. by position from the first
    dealer or from the first bidder) with 95% bars, the fair share (``expected``) as a dashed
    line, the chi-square p-value of "all positions equal" in the legend."""
    fig, ax = new_figure()
    groups = list(sa.group_by("variant", maintain_order=True))
    k = len(groups)
    width = 0.8 / max(k, 1)
    for i, (v, part) in enumerate(groups):
        x = part["position"].to_numpy() + (i - (k - 1) / 2) * width
        y = 100 * part["share"].to_numpy()
        err = np.vstack([y - 100 * part["ci_low"].to_numpy(), 100 * part["ci_high"].to_numpy() - y])
        p = part["p_value"][0]
        ax.errorbar(
            x,
            y,
            yerr=err,
            fmt="o",
            capsize=4,
            color=f"C{i}",
            label=f"{short(v[0], 36)} (p = {fmt.pvalue(p)})",
        )
        ax.axhline(100 * part["expected"][0], color=f"C{i}", linestyle="--", linewidth=1, alpha=0.6)
    labels = (
        sa.group_by("position", maintain_order=True).agg(pl.col("label").first()).sort("position")
    )
    ax.set_xticks(labels["position"].to_list())
    ax.set_xticklabels([s.replace(" (", "\n(") for s in labels["label"].to_list()], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of games won")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return fig


def sweep_plots(summary: pl.DataFrame, knobs: list[str], game: str | None = None) -> Figure:
    """The game's four sweep panels (its analysis' ``sweep_panels``, :mod:`analysis.bygame`;
    ``game``: None for the default game) across a sweep: line plots with 95% error bars for
    one knob, annotated heatmaps for two."""
    from .bygame import analysis_of

    panels = analysis_of(game).sweep_panels
    fig = Figure(figsize=(11, 7.5), layout="constrained")
    axes = fig.subplots(2, 2).ravel()
    if len(knobs) == 1:
        k = knobs[0]
        xs = summary[k].to_list()
        numeric = all(isinstance(x, int | float) and not isinstance(x, bool) for x in xs)
        pos = xs if numeric else list(range(len(xs)))
        for ax, p in zip(axes, panels, strict=True):
            f = p.factor
            y = np.array(summary[p.column].to_list(), dtype=float) * f
            lo = np.array(summary[f"{p.column}_low"].to_list(), dtype=float) * f
            hi = np.array(summary[f"{p.column}_high"].to_list(), dtype=float) * f
            ax.errorbar(pos, y, yerr=[y - lo, hi - y], marker="o", capsize=4)
            ax.fill_between(pos, lo, hi, alpha=BAND_ALPHA, linewidth=0)
            if p.reference == "fair share":
                ax.plot(
                    pos,
                    100 / np.array(summary["n_players"].to_list(), dtype=float),
                    "k--",
                    linewidth=1,
                    label="fair share",
                )
                ax.legend(fontsize=8)
            if p.reference == "0":
                ax.axhline(0, color="k", linewidth=0.8)
            if not numeric:
                ax.set_xticks(pos)
                ax.set_xticklabels([str(x) for x in xs])
            ax.set_xlabel(k)
            ax.set_ylabel(p.unit)
            ax.set_title(p.title)
            ax.grid(alpha=0.3)
    else:
        k1, k2 = knobs[0], knobs[1]
        v1 = summary[k1].unique(maintain_order=True).to_list()
        v2 = summary[k2].unique(maintain_order=True).to_list()
        for ax, p in zip(axes, panels, strict=True):
            _sweep_heatmap(ax, fig, summary, k1, k2, v1, v2, p)
    fig.suptitle(
        "Sweep: 95% intervals in brackets / as bars"
        + (
            "; hatched: not distinguishable from the reference (fair share, 0, or the first cell)"
            if len(knobs) > 1
            else ""
        )
    )
    return fig


def _reference(reference: str | None, row: dict) -> float | None:
    """A panel's reference value in a summary row: the fair share 1 / players, or 0."""
    if reference == "fair share":
        return 1.0 / row["n_players"] if row.get("n_players") else None
    if reference == "0":
        return 0.0
    return None


def _sweep_heatmap(ax, fig, summary, k1, k2, v1, v2, panel) -> None:
    """One annotated heatmap of a two-knob sweep. A metric with a reference (a fair share such
    as a position's, or 0 for a paired difference) is drawn as its deviation from it on
    a diverging scale centred on it, as wide as the largest deviation or twice the largest
    interval half-width, so that cells within noise stay pale; cells whose interval contains
    the reference are hatched and marked "≈". A metric without one is drawn on a scale at
    least four interval half-widths wide (so that differences within noise stay one colour),
    and the cells not distinguishable from the first cell (their paired difference from it
    covers 0) are hatched and marked "≈"."""
    import matplotlib as mpl

    col, title, unit, f = panel.column, panel.title, panel.unit, panel.factor
    rows = {(r[k1], r[k2]): r for r in summary.iter_rows(named=True)}
    grid = np.full((len(v1), len(v2)), np.nan)
    refs = np.full((len(v1), len(v2)), np.nan)
    for (a, b), r in rows.items():
        i, j = v1.index(a), v2.index(b)
        grid[i, j] = (r[col] if r[col] is not None else math.nan) * f
        ref = _reference(panel.reference, r)
        refs[i, j] = math.nan if ref is None else ref * f
    centred = np.isfinite(refs).any()
    half = []
    for r in rows.values():
        lo, hi = r[f"{col}_low"], r[f"{col}_high"]
        if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
            half.append((hi - lo) * f / 2)
    if centred:
        dev = grid - refs
        finite = np.abs(dev[np.isfinite(dev)])
        # twice the widest half-width: a cell just distinguishable is at most half saturated
        m = max([1e-9, *(finite.tolist() if finite.size else [1.0]), *[2 * h for h in half]])
        im = ax.imshow(
            dev,
            cmap="RdBu",
            norm=mpl.colors.TwoSlopeNorm(vmin=-m, vcenter=0.0, vmax=m),
            aspect="auto",
            origin="lower",
        )
    else:
        fin = grid[np.isfinite(grid)]
        mid = float((fin.max() + fin.min()) / 2) if fin.size else 0.0
        span = max([float((fin.max() - fin.min()) / 2) if fin.size else 0.0, 1e-9,
                    *[2 * h for h in half]])  # fmt: skip
        im = ax.imshow(grid, cmap="viridis", vmin=mid - span, vmax=mid + span, aspect="auto",
                       origin="lower")  # fmt: skip
    for i in range(len(v1)):
        for j in range(len(v2)):
            r = rows.get((v1[i], v2[j]))
            lo = r[f"{col}_low"] if r else None
            hi = r[f"{col}_high"] if r else None
            if lo is None or hi is None or np.isnan(grid[i, j]):
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="0.4")
                continue
            mark = ""
            dlo, dhi = (r.get(f"{col}_diff_low"), r.get(f"{col}_diff_high")) if r else (None, None)
            if centred and np.isfinite(refs[i, j]):
                ref = refs[i, j] / f
                same = lo <= ref <= hi
            else:  # the first cell's own row has no difference: not marked
                same = dlo is not None and dhi is not None and dlo <= 0 <= dhi
            if same:
                mark = " ≈"
                ax.add_patch(
                    mpl.patches.Rectangle(
                        (j - 0.5, i - 0.5),
                        1,
                        1,
                        fill=False,
                        hatch="//",
                        edgecolor="0.55",
                        linewidth=0,
                        zorder=2,
                    )
                )
            shown = dev[i, j] if centred else grid[i, j]
            text = f"{grid[i, j]:.2f}{mark}\n[{lo * f:.2f}, {hi * f:.2f}]"
            cell_text(ax, j, i, text, im.cmap(im.norm(shown)), zorder=3)
    ax.set_xticks(range(len(v2)))
    ax.set_xticklabels([str(x) for x in v2])
    ax.set_yticks(range(len(v1)))
    ax.set_yticklabels([str(x) for x in v1])
    ax.set_xlabel(k2)
    ax.set_ylabel(k1)
    ax.set_title(f"{title} ({unit})")
    if centred:
        fig.colorbar(im, ax=ax, label=f"{unit} above (blue) / below (red) {panel.reference}")
    else:
        fig.colorbar(im, ax=ax, label=unit)


def tournament_plot(policies: pl.DataFrame, pairs: pl.DataFrame, anchor: str) -> Figure:
    """A tournament (:mod:`analysis.tournament`): each policy's rating with its 95% bootstrap
    interval (left; ``anchor`` = 0), and the win-share matrix (right): the row policy's win
    share in the games where the column policy sits too, coloured by its distance from the
    row's fair share (blue above, red below), annotated with the 95% interval."""
    import matplotlib as mpl

    names = policies["policy"].to_list()
    n = len(names)
    fig = Figure(figsize=(6.5 + 1.3 * n, 1.2 + 0.75 * max(n, 3)), layout="constrained")
    ax, hm = fig.subplots(1, 2, width_ratios=[1, 1.3])
    ranked = policies.sort("rating")
    y = np.arange(ranked.height)
    r = ranked["rating"].to_numpy()
    err = np.vstack([r - ranked["ci_low"].to_numpy(), ranked["ci_high"].to_numpy() - r])
    ax.errorbar(r, y, xerr=err, fmt="o", capsize=5, color="C0")
    ax.axvline(0, color="k", linewidth=0.8, linestyle="--")
    ax.set_yticks(y)
    ax.set_yticklabels([short(v, 24) for v in ranked["policy"].to_list()])
    ax.set_xlabel(f"rating (log-strength, {short(anchor, 20)} = 0)")
    ax.set_title("Plackett–Luce rating, 95% bootstrap interval")
    ax.grid(alpha=0.3, axis="x")
    fair = dict(zip(names, policies["fair_share"].to_list(), strict=True))
    grid = np.full((n, n), np.nan)
    dev = np.full((n, n), np.nan)
    cells = {}
    for row in pairs.iter_rows(named=True):
        if row["policy"] in fair and row["opponent"] in fair:
            i, j = names.index(row["policy"]), names.index(row["opponent"])
            grid[i, j] = row["share"]
            dev[i, j] = 100 * (row["share"] - fair[row["policy"]])
            cells[i, j] = row
    m = max(1.0, float(np.nanmax(np.abs(dev))) if np.isfinite(dev).any() else 1.0)
    norm = mpl.colors.TwoSlopeNorm(vmin=-m, vcenter=0.0, vmax=m)
    im = hm.imshow(dev, cmap="RdBu", norm=norm, aspect="auto")
    for (i, j), row in cells.items():
        text = (
            f"{fmt.share(row['share'], 1)}\n{fmt.interval(row['ci_low'], row['ci_high'], 'share')}"
        )
        cell_text(hm, j, i, text, im.cmap(norm(dev[i, j])))
    for i in range(n):
        hm.text(i, i, "—", ha="center", va="center", color="0.5")
    labels = [short(v, 16) for v in names]
    hm.set_xticks(range(n))
    hm.set_xticklabels(labels, rotation=30, ha="right")
    hm.set_yticks(range(n))
    hm.set_yticklabels(labels)
    hm.set_xlabel("opponent (sits in the same games)")
    hm.set_ylabel("policy")
    hm.set_title("Win share of the row policy in games with the column policy")
    fig.colorbar(im, ax=hm, label="percentage points above (blue) / below (red) its fair share")
    return fig

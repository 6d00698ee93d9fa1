"""Loba's figures: survival, elimination risk, the first elimination, and the rebuy
experiments' (:mod:`analysis.loba.rebuy`). Shared figures and helpers: :mod:`analysis.plots`.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from ..plots import BAND_ALPHA, cell_text, new_figure, short
from .rebuy import gap_bands


def survival_plot(surv: pl.DataFrame, show_games: bool = True) -> Figure:
    """Share of players still in after each round (band: 95%), one line per variant;
    dotted: share of games still running."""
    fig, ax = new_figure()
    for i, (v, part) in enumerate(surv.group_by("variant", maintain_order=True)):
        c = f"C{i}"
        x = part["round"].to_numpy()
        ax.step(x, part["share"].to_numpy(), where="post", color=c, label=short(v[0]))
        ax.fill_between(
            x,
            part["ci_low"].to_numpy(),
            part["ci_high"].to_numpy(),
            step="post",
            color=c,
            alpha=BAND_ALPHA,
            linewidth=0,
        )
        if show_games:
            ax.step(
                x,
                part["games_running"].to_numpy(),
                where="post",
                color=c,
                linestyle=":",
                label=f"games still running ({short(v[0], 24)})",
            )
    ax.set_xlabel("round (number of rounds played)")
    ax.set_ylabel("share of players still in")
    ax.set_ylim(0, 1.02)
    ax.set_title("Survival: who is still in after each round")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def hazard_plot(hz: pl.DataFrame, min_at_risk: int = 50) -> Figure:
    """Risk of elimination for good per round for a player still in (band: 95%);
    rounds with fewer than ``min_at_risk`` players at risk are left out."""
    fig, ax = new_figure()
    for i, (v, part) in enumerate(hz.group_by("variant", maintain_order=True)):
        part = part.filter(pl.col("at_risk") >= min_at_risk)
        c = f"C{i}"
        x = part["round"].to_numpy()
        ax.plot(x, 100 * part["hazard"].to_numpy(), marker="o", ms=3, color=c, label=short(v[0]))
        ax.fill_between(
            x,
            100 * part["ci_low"].to_numpy(),
            100 * part["ci_high"].to_numpy(),
            color=c,
            alpha=BAND_ALPHA,
            linewidth=0,
        )
    ax.set_xlabel("round")
    ax.set_ylabel("risk of elimination for good (% of players still in)")
    ax.set_title(f"Elimination hazard by round (rounds with ≥ {min_at_risk} players at risk)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def first_elimination_plot(fe: pl.DataFrame) -> Figure:
    """Distribution of the round of the first elimination, one line per variant."""
    fig, ax = new_figure()
    for i, (v, part) in enumerate(fe.group_by("variant", maintain_order=True)):
        ax.plot(
            part["round"].to_numpy(),
            100 * part["share"].to_numpy(),
            marker="o",
            ms=3,
            color=f"C{i}",
            label=short(v[0]),
        )
    ax.set_xlabel("round of the first elimination for good")
    ax.set_ylabel("% of games")
    ax.set_title("When does the first player go out for good?")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def rebuy_heatmap(tab: pl.DataFrame, gap_edges=None, title: str | None = None) -> Figure:
    """Value of a rebuy in stakes by players left (rows) and score gap to the leader after
    rebuying (columns), one panel per number of rebuys already used. Cells are annotated with
    the mean, its 95% interval and the number of decisions; thin cells are greyed and hatched."""
    import matplotlib as mpl

    default_edges, _, band_order = gap_bands()
    bands = band_order(default_edges if gap_edges is None else gap_edges)
    used = sorted(tab["rebuys_used"].unique().to_list()) if tab.height else [0]
    players = sorted(tab["players_left"].unique().to_list()) if tab.height else [2]
    solid = tab.filter(~pl.col("thin")) if tab.height else tab
    vmax = max(0.5, float(solid["value"].abs().max() or 0.5)) if solid.height else 1.0
    fig = Figure(figsize=(4.2 * len(used) + 1.2, 1.1 * len(players) + 2.2), layout="constrained")
    axes = fig.subplots(1, len(used), squeeze=False)[0]
    norm = mpl.colors.TwoSlopeNorm(vmin=-vmax, vcenter=0.0, vmax=vmax)
    cmap = mpl.colormaps["RdBu"]
    im = None
    for ax, u in zip(axes, used, strict=True):
        grid = np.full((len(players), len(bands)), np.nan)
        for r in tab.filter(pl.col("rebuys_used") == u).iter_rows(named=True):
            i, j = players.index(r["players_left"]), bands.index(r["gap_band"])
            grid[i, j] = r["value"]
            ci = (
                "[no interval]"
                if r["ci_low"] is None
                else f"[{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]"
            )
            txt = f"{r['value']:+.2f}\n{ci}\nn={r['cases']}"
            if r["thin"]:
                ax.add_patch(
                    mpl.patches.Rectangle(
                        (j - 0.5, i - 0.5),
                        1,
                        1,
                        facecolor="0.85",
                        hatch="//",
                        edgecolor="0.6",
                        zorder=2,
                    )
                )
                txt = f"{r['value']:+.2f}\nn={r['cases']}\ntoo few"
            shade = None if r["thin"] else cmap(norm(r["value"]))
            cell_text(ax, j, i, txt, shade, threshold=0.45, zorder=3)
        for i in range(len(players)):
            for j in range(len(bands)):
                if np.isnan(grid[i, j]):
                    ax.text(j, i, "no cases", ha="center", va="center", fontsize=7, color="0.5")
        im = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto", origin="lower")
        ax.set_xticks(range(len(bands)))
        ax.set_xticklabels(bands)
        ax.set_yticks(range(len(players)))
        ax.set_yticklabels([str(p) for p in players])
        ax.set_xlabel("points behind the leader after rebuying")
        ax.set_ylabel("players left (incl. the rebuyer)")
        ax.set_title("first rebuy" if u == 0 else f"after {u} rebuy{'s' if u > 1 else ''}")
    if im is not None:
        fig.colorbar(im, ax=list(axes), label="value of rebuying (stakes, net of its price)")
    fig.suptitle(title or "What a rebuy is worth (blue: buy back, red: decline)")
    return fig


def rebuy_rules_plot(table: pl.DataFrame, rule: str) -> Figure:
    """Paired 95% intervals of ``rule`` minus each rule it was compared against
    (:func:`analysis.loba.rebuy.compare_rebuy_rules`), win share and net stakes."""
    fig = Figure(figsize=(9, 1.2 + 0.5 * table["against"].n_unique()), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, measure in zip(axes, ("win probability", "net stakes"), strict=True):
        part = table.filter(pl.col("measure") == measure)
        names = part["against"].to_list()
        for y, r in enumerate(part.iter_rows(named=True)):
            f = 100.0 if r["unit"] == "share" else 1.0
            d = r["difference"]
            lo = d if r["paired_low"] is None or math.isnan(r["paired_low"]) else r["paired_low"]
            hi = d if r["paired_high"] is None or math.isnan(r["paired_high"]) else r["paired_high"]
            ax.errorbar([d * f], [y], xerr=[[(d - lo) * f], [(hi - d) * f]], fmt="o",
                        capsize=6, color=f"C{y}")  # fmt: skip
        ax.axvline(0, color="k", linewidth=0.8)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([f"vs {n}" for n in names])
        ax.set_ylim(-0.7, len(names) - 0.3)
        unit = "percentage points" if measure == "win probability" else "stakes per game"
        ax.set_xlabel(f"this rule − other ({unit})")
        ax.set_title(measure)
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle(f"rebuy={rule} against other rules on the same seeds: paired 95% intervals")
    return fig


def rebuy_policy_plot(table: pl.DataFrame) -> Figure:
    """Paired vs unpaired 95% intervals of the always-vs-never rebuy difference."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, r in zip(axes, table.iter_rows(named=True), strict=False):
        f = 100.0 if r["unit"] == "share" else 1.0
        for y, (lo, hi, _name) in enumerate(
            [
                (r["unpaired_low"], r["unpaired_high"], "unpaired (two independent runs)"),
                (r["paired_low"], r["paired_high"], "paired (same seeds)"),
            ]
        ):
            ax.errorbar(
                [r["difference"] * f],
                [y],
                xerr=[[(r["difference"] - lo) * f], [(hi - r["difference"]) * f]],
                fmt="o",
                capsize=6,
                color=f"C{y}",
            )
        ax.axvline(0, color="k", linewidth=0.8)
        ax.set_yticks([0, 1])
        ax.set_yticklabels(["unpaired", "paired"])
        ax.set_ylim(-0.7, 1.7)
        unit = "percentage points" if r["unit"] == "share" else "stakes per game"
        ax.set_xlabel(f"always − never rebuy ({unit})")
        ax.set_title(r["measure"])
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle("Rebuy value, policy level: 95% intervals")
    return fig

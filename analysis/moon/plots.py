"""Three-Player Moon's figures: bid success. Shared figures and helpers: :mod:`analysis.plots`."""

from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from ..plots import short


def bid_success_plot(bs: pl.DataFrame) -> Figure:
    """Moon's share of contracts made (:func:`analysis.moon.bid_success`) by bid and by trump
    kind, one colour per variant, with 95% bars; levels never bid are left out."""
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, (by, name) in zip(axes, (("bid", "bid"), ("trump", "trump kind")), strict=True):
        part = bs.filter(pl.col("by") == by)
        levels = part["level"].unique(maintain_order=True).to_list()
        groups = list(part.group_by("variant", maintain_order=True))
        width = 0.8 / max(len(groups), 1)
        for i, ((v,), g) in enumerate(groups):
            g = g.filter(pl.col("hands") > 0)
            shift = (i - (len(groups) - 1) / 2) * width
            x = np.array([levels.index(lv) for lv in g["level"]]) + shift
            y = 100 * g["share"].to_numpy()
            err = np.vstack([y - 100 * g["ci_low"].to_numpy(), 100 * g["ci_high"].to_numpy() - y])
            ax.errorbar(x, y, yerr=err, fmt="o", capsize=4, color=f"C{i}", label=short(v, 36))
        ax.set_xticks(range(len(levels)))
        ax.set_xticklabels(["21 (moon)" if lv == "21" else lv for lv in levels])
        ax.set_xlabel(name)
        ax.set_ylabel("% of contracts made")
        ax.set_ylim(0, 102)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    fig.suptitle("Bid success (bars: 95% interval)")
    return fig

"""Each game's own value of a figure, over the games of some runs: its quantiles (median, q10,
q90...) and the share of games in a range, each with its 95% interval — what ``loba summarize
--quantiles/--share`` adds to the key metrics (:func:`analysis.summarize`).

The measures and their intervals are the house-rules advisor's, one estimator each
(:mod:`analysis.advise`, where ``q90(rounds_per_game) <= 15`` and ``share(rounds_per_game in
8..12) >= 0.7`` are targets): a quantile is the smallest value with at least that share of the
games at or below it, its interval the exact distribution-free one of order statistics (the
games are independent draws); a share of games is a per-game 0/1 figure
(:mod:`analysis.estimate`). The metrics are the game's targetable ones that have a value in
each game (its registration's :class:`analysis.bygame.TargetSpec`: Loba's ``rounds_per_game``,
``turns_per_game``, ``first_elimination``, ``minutes``; Moon's ``hands_per_game``...), named as
a target names them or by the name ``loba summarize`` prints.
"""

from __future__ import annotations

import math

import polars as pl

from .errors import AnalysisError
from .stats import LEVEL

QUANTILES = (10, 50, 90)  # what --quantiles METRIC reports (percent)
COLUMNS = ("variant", "metric", "value", "ci_low", "ci_high", "n", "unit", "kind", "method")
SHARE_FORMS = "METRIC in LO..HI, METRIC <= X or METRIC > X, such as rounds_per_game in 8..12"

__all__ = ["QUANTILES", "distribution", "parse_quantiles", "parse_shares"]


def _label(q: int) -> str:
    return "median" if q == 50 else f"q{q}"


def parse_quantiles(texts, cat) -> list[tuple[str, object]]:
    """(row name, :class:`analysis.advise.Target`) for each quantile asked: ``METRIC`` (its
    :data:`QUANTILES`: q10, the median, q90) or ``qNN(METRIC)`` / ``median(METRIC)`` (that one);
    several in one text separated by commas. ``cat``: the game's
    :class:`analysis.advise.Catalog`. One sentence if a text is not one."""
    from .advise.targets import _FUNC, Target, _per_game_metric

    out: list[tuple[str, object]] = []
    for item in texts:
        for piece in str(item).split(","):
            text = " ".join(piece.split())
            if not text:
                raise AnalysisError(
                    "--quantiles has an empty name; give a metric such as rounds_per_game, or"
                    " q95(rounds_per_game)."
                )
            f = _FUNC.fullmatch(text)
            if f is not None and f.group(1).lower() == "share":
                raise AnalysisError(
                    f"--quantiles '{text}': a share of games is asked with --share"
                    " 'METRIC in LO..HI'."
                )
            if f is None:
                name, qs = text, QUANTILES
            else:
                q = 50 if f.group(1).lower() == "median" else int(f.group(2))
                if not 1 <= q <= 99:
                    raise AnalysisError(
                        f"--quantiles '{text}': a quantile is q1 to q99 (q90: the 90th"
                        " percentile)."
                    )
                name, qs = f.group(3), (q,)
            m = _per_game_metric(cat.resolve(name), text, "--quantiles")
            for q in qs:
                row = f"{m.name}: {_label(q)}"
                if all(r != row for r, _ in out):
                    out.append((row, Target(m, "<=", None, math.inf, "quantile", q / 100)))
    return out


def parse_shares(texts, cat) -> list[tuple[str, object]]:
    """(row name, :class:`analysis.advise.Target`) for each range of a game's own value whose
    share of games is asked: ``METRIC in LO..HI``, ``METRIC <= X``, ``METRIC < X`` (strict),
    ``>=``, ``>`` (also written ``share(METRIC in LO..HI)``). One sentence if a text is not one."""
    from .advise.targets import _FUNC, Target, _bounds, _cond_text, _per_game_metric, _split

    out: list[tuple[str, object]] = []
    for item in texts:
        text = " ".join(str(item).split())
        if not text:
            raise AnalysisError(f"--share is empty; write {SHARE_FORMS}.")
        f = _FUNC.fullmatch(text)
        inner = f.group(3).strip() if f is not None and f.group(1).lower() == "share" else text
        parts = _split(inner)
        if parts is None or not parts[0] or not parts[2]:
            raise AnalysisError(f"--share '{text}' is not a range of a game's value: write"
                                f" {SHARE_FORMS}.")  # fmt: skip
        if _FUNC.fullmatch(parts[0]) is not None:
            raise AnalysisError(
                f"--share '{text}': give the range of a game's value only, such as"
                " rounds_per_game in 8..12 (a bound on the share itself is a target of 'loba"
                " advise')."
            )
        m = _per_game_metric(cat.resolve(parts[0]), text, "--share")
        cond = _bounds(parts[1], parts[2], text, "--share")
        row = f"games with {m.name} {_cond_text(cond)} (share)"
        if all(r != row for r, _ in out):
            out.append((row, Target(m, "<=", None, math.inf, "share", None, cond)))
    return out


def distribution(games, seats, game=None, quantiles=(), shares=(), level: float = LEVEL,
                 variants=None) -> pl.DataFrame:  # fmt: skip
    """The quantiles and shares of games asked (:func:`parse_quantiles`, :func:`parse_shares`)
    of ``game``'s runs (``games``/``seats``: their tables, with ``variant`` columns; ``variants``:
    their order, None: as found), measured in each variant: one row per variant and measure with
    the columns of :func:`analysis.summarize` (:data:`COLUMNS`; ``kind`` ``quantile`` or
    ``share``, ``n`` the games with a value, ``method`` the interval's). The text is checked
    before any game is read."""
    from .advise.measure import _measurer
    from .advise.targets import catalog

    cat = catalog(game)
    items = parse_quantiles(quantiles, cat) + parse_shares(shares, cat)
    schema = {"variant": pl.String, "metric": pl.String, "value": pl.Float64,
              "ci_low": pl.Float64, "ci_high": pl.Float64, "n": pl.Int64, "unit": pl.String,
              "kind": pl.String, "method": pl.String}  # fmt: skip
    if not items:
        return pl.DataFrame(schema=schema)
    metrics = list({t.metric.name: t.metric for _, t in items}.values())
    data = cat.evaluate(games, seats, metrics, keep=("variant",))
    found = data["variant"].cast(pl.String).unique(maintain_order=True).to_list()
    rows = []
    for v in [x for x in (variants or found) if x in found]:
        part = data.filter(pl.col("variant").cast(pl.String) == v)
        for name, t in items:
            d = _measurer(t, part)(level)
            share = t.func == "share"
            rows.append({"variant": v, "metric": name, "value": d["value"], "ci_low": d["low"],
                         "ci_high": d["high"], "n": d["games"],
                         "unit": "share" if share else t.metric.unit,
                         "kind": "share" if share else "quantile",
                         "method": d["method"]})  # fmt: skip
    return pl.DataFrame(rows, schema=schema)

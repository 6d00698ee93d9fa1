"""Findings as sentences a player understands, each with its 95% interval: the words every
game shares (intervals, the tests of equal seats or positions, the skill gap, differences from
a baseline). A game's own findings are in its analysis package (its ``words`` module).

Every function takes tidy tables (:mod:`analysis.comparison`, a game's metrics) and returns plain
strings (no markup). Numbers go through :mod:`sim.fmt`, the formatter the tables use.

Where the report states many tests at once it passes their Holm-adjusted
p-values (:mod:`analysis.family`): a finding is then worded as detectable only if it survives
that correction, and one that does not is said so ("no detectable difference after
correction").
"""

from __future__ import annotations

import polars as pl

from sim import fmt

from .family import ALPHA

_fmt = fmt  # the formatter module (interval() has a parameter of the same name)


def pct(x: float, digits: int = 1) -> str:
    return fmt.share(x, digits)


def num(x: float, digits: int = 2, sign: bool = False) -> str:
    if fmt.is_na(x):
        return fmt.NA
    s = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return s.replace("-", "−")


def _after(adj, family: int | None) -> str:
    n = f"the {family} tests" if family else "all the tests"
    return f"adjusted p = {fmt.pvalue(adj)} after correcting for {n} in this report, Holm"


def interval(lo, hi, fmt=num, **kw) -> str:
    """'95% CI a…b' (the ellipsis reads better than a dash next to negative numbers), both
    ends with the precision the interval's width needs (:func:`sim.fmt.ends`)."""
    if _fmt.is_na(lo) or _fmt.is_na(hi):
        return "95% CI n/a"
    unit = "share" if fmt is pct else None
    a, b = _fmt.ends(lo, hi, unit, signed=kw.get("sign", False))
    return f"95% CI {a.replace('-', '−')}…{b.replace('-', '−')}"


def row_of(km: pl.DataFrame, variant: str, metric: str) -> dict | None:
    """The row of ``metric`` for ``variant`` in a long metrics table, or None."""
    r = km.filter((pl.col("variant") == variant) & (pl.col("metric") == metric))
    return r.row(0, named=True) if r.height else None


def equality_sentence(
    thing: str, p, games: int, unequal: str, adjusted=None, family: int | None = None
) -> str:
    """The chi-square test that every ``thing`` (seat, position) wins equally often, in words:
    unequal (then ``unequal`` says who wins most) only if that survives the correction when
    ``adjusted`` (the p-value adjusted over a report's ``family`` of tests) is given."""
    things = f"{thing}s".capitalize()
    none = (
        f"No {thing} has a detectable advantage (chi-square test of equal {thing}s p = "
        f"{fmt.pvalue(p)}, {games:,} games)."
    )
    if adjusted is None:
        if p < ALPHA:
            return f"{things} are not equal (chi-square test p = {fmt.pvalue(p)}): {unequal}."
        return none
    if adjusted < ALPHA:
        return (
            f"{things} are not equal (chi-square test p = {fmt.pvalue(p)}; still below 5% as "
            f"{_after(adjusted, family)}): {unequal}."
        )
    if p < ALPHA:
        return (
            f"The chi-square test of equal {thing}s gives p = {fmt.pvalue(p)}, but that does not"
            f" survive correction ({_after(adjusted, family)}): no detectable {thing} advantage"
            f" after correction ({games:,} games)."
        )
    return none


def skill_sentence(
    sg: pl.DataFrame, adjusted: dict | None = None, family: int | None = None
) -> str | None:
    """The strongest policy's share of wins against its fair share, or None with one policy.
    ``adjusted``: policy -> its test's p-value adjusted over a report's ``family`` of tests."""
    if sg.height < 2:
        return None
    best = sg.sort("edge", descending=True).row(0, named=True)
    worst = sg.sort("edge").row(0, named=True)
    seats = best["seats_per_game"]
    who = f"{best['policy']} ({num(seats, 0)} seat{'s' if seats > 1.5 else ''})"
    p = best["p_value"]
    adj = (adjusted or {}).get(best["policy"])
    if adj is None:
        verdict = "skill matters" if p < ALPHA else "no detectable skill gap"
    elif adj < ALPHA:
        verdict = f"skill matters (binomial p = {fmt.pvalue(p)}; {_after(adj, family)})"
    elif p < ALPHA:
        verdict = (
            f"no detectable skill gap after correction (binomial p = {fmt.pvalue(p)}; "
            f"{_after(adj, family)})"
        )
    else:
        verdict = "no detectable skill gap"
    return (
        f"Skill gap: {who} wins {pct(best['share'])} of games "
        f"({interval(best['ci_low'], best['ci_high'], fmt=pct)}) where its fair share is "
        f"{pct(best['fair_share'])}; {worst['policy']} wins {pct(worst['share'])} "
        f"(fair share {pct(worst['fair_share'])}) — {verdict}."
    )


def compare_sentences(
    cmp: pl.DataFrame, metrics: list[str] | None = None, family: int | None = None
) -> list[str]:
    """One sentence per (variant, metric) difference from the baseline, naming whether the
    runs were compared game by game (same seeds: paired) or as independent runs. Every
    "higher"/"lower" follows the corrected p-value (``p_adjusted``: Holm over the table's
    differences, or over a report's family of ``family`` tests); a difference below 0.05 only
    on its own is worded as not detectable after correction."""
    from .comparison import FAMILY_VERDICTS
    from .estimate import SAME

    if metrics is None:
        from .bygame import stated_metrics

        metrics = stated_metrics()
    out = []
    diffs = cmp.filter(pl.col("verdict") != "")
    idle = [  # variants whose every game played out as the baseline's: the change never mattered
        v for (v,), part in diffs.group_by("variant", maintain_order=True)
        if part.height and (part["verdict"] == SAME).all()
    ]  # fmt: skip
    for v in idle:
        base = diffs.filter(pl.col("variant") == v)["baseline"][0]
        out.append(
            f"{v} vs {base}: every game played out exactly as under {base} — the difference in"
            " the rules never came into play in these games (with these players), so there is"
            " nothing to compare."
        )
    for r in diffs.iter_rows(named=True):
        if r["metric"] not in metrics or r["variant"] in idle:
            continue
        unit = r["unit"]
        lo, hi = r["diff_low"], r["diff_high"]
        how = "same seeds, paired" if r.get("paired") else "independent runs"
        if fmt.is_na(lo) or fmt.is_na(hi):
            ci = "no interval"
        else:
            a, b = fmt.ends(lo, hi, unit, signed=True)
            ci = f"95% CI {a.removesuffix(' pts')}…{b}"
        ci = f"{ci}, {how}"
        value = fmt.value(r["value"], unit)
        d = fmt.diff(r["diff"], unit)
        head = f"{r['variant']} vs {r['baseline']}"
        p, adj = r.get("p_value"), r.get("p_adjusted")
        if r["verdict"] not in FAMILY_VERDICTS and r["verdict"] != "cannot tell":
            out.append(f"{head}: {r['metric']}: {r['verdict']} ({value}; difference {d}, {ci}).")
        elif adj is not None and adj == adj and adj < ALPHA:
            word = "higher" if r["diff"] > 0 else "lower"
            out.append(f"{head}: {r['metric']} is {word} — {value}, a difference of {d} ({ci}).")
        elif p is not None and p == p and p < ALPHA:
            word = "higher" if r["diff"] > 0 else "lower"
            out.append(
                f"{head}: no detectable difference in {r['metric']} after correction — "
                f"{value}, {d} ({ci}) is {word} on its own (p = {fmt.pvalue(p)}), but not at 5% "
                f"({_after(adj, family)})."
            )
        elif p is not None and p == p:
            out.append(
                f"{head}: no detectable difference in {r['metric']} ({value}; difference {d}, "
                f"{ci})."
            )
        else:
            out.append(f"{head}: cannot tell whether {r['metric']} differs ({value}).")
    return out

"""Findings as sentences a player understands, each with its 95% interval.

Every function takes the tidy tables of :mod:`analysis.metrics`, :mod:`analysis.compare` or
:mod:`analysis.rebuy` and returns plain strings (no markup).
"""

from __future__ import annotations

import math

import polars as pl

from . import metrics as M


def pct(x: float, digits: int = 1) -> str:
    return (
        "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"
    )


def num(x: float, digits: int = 2, sign: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    s = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return s.replace("-", "−")


def interval(lo, hi, fmt=num, **kw) -> str:
    """'95% CI a…b' (the ellipsis reads better than a dash next to negative numbers)."""
    return f"95% CI {fmt(lo, **kw)}…{fmt(hi, **kw)}"


def _row(km: pl.DataFrame, variant: str, metric: str) -> dict | None:
    r = km.filter((pl.col("variant") == variant) & (pl.col("metric") == metric))
    return r.row(0, named=True) if r.height else None


def variant_findings(
    km: pl.DataFrame,
    variant: str,
    seat_adv: pl.DataFrame | None = None,
    skill: pl.DataFrame | None = None,
) -> list[str]:
    """Sentences on one variant: length, first elimination, rebuys, seat advantage, skill."""
    out = []
    r = _row(km, variant, M.M_ROUNDS)
    t = _row(km, variant, M.M_TURNS)
    if r and t:
        out.append(
            f"A game lasts {num(r['value'], 1)} rounds on average "
            f"({interval(r['ci_low'], r['ci_high'], digits=1)}), "
            f"{num(t['value'], 0)} turns in all ({interval(t['ci_low'], t['ci_high'], digits=0)})."
        )
    f = _row(km, variant, M.M_FIRST_ELIM)
    h = _row(km, variant, M.M_HAZARD)
    if f and h:
        out.append(
            f"The first player is knocked out for good in round {num(f['value'], 1)} on average "
            f"({interval(f['ci_low'], f['ci_high'], digits=1)}); once eliminations start, "
            f"a player still in faces a {pct(h['value'])} risk per round of going out for good "
            f"({interval(h['ci_low'], h['ci_high'], fmt=pct)}), averaged over all rounds."
        )
    rb = _row(km, variant, M.M_REBUYS)
    sh = _row(km, variant, M.M_REBOUGHT)
    if rb and sh:
        out.append(
            f"There are {num(rb['value'], 2)} rebuys per game "
            f"({interval(rb['ci_low'], rb['ci_high'])}); {pct(sh['value'])} of the times a "
            f"player goes over the limit end in a rebuy "
            f"({interval(sh['ci_low'], sh['ci_high'], fmt=pct)}), the rest in elimination."
        )
    b = _row(km, variant, M.M_BONUS)
    if b:
        out.append(
            f"A player goes out in one turn for the bonus in {pct(b['value'], 2)} of rounds "
            f"({interval(b['ci_low'], b['ci_high'], fmt=pct, digits=2)})."
        )
    u = _row(km, variant, M.M_UNFINISHED)
    v = _row(km, variant, M.M_VOID_SHARE)
    if u and u["k"]:
        out.append(
            f"{int(u['k']):,} of {u['n']:,} games ({pct(u['value'], 3)}) hit the round cap "
            "unfinished (pot returned)."
        )
    if v and v["k"]:
        out.append(
            f"{int(v['k']):,} of {v['n']:,} rounds ({pct(v['value'], 4)}) were void "
            "(nobody went out)."
        )
    if seat_adv is not None:
        out.extend(seat_sentences(seat_adv.filter(pl.col("variant") == variant)))
    if skill is not None:
        s = skill_sentence(skill.filter(pl.col("variant") == variant))
        if s:
            out.append(s)
    return out


def seat_sentences(sa: pl.DataFrame) -> list[str]:
    """'Does the dealer's left win more often?' in words, with the chi-square test."""
    if sa.height == 0:
        return []
    first = sa.filter(pl.col("position") == 0).row(0, named=True)
    p = first["p_value"]
    n = first["n_players"]
    s = (
        f"The player on the first dealer's left wins {pct(first['share'])} of games "
        f"({interval(first['ci_low'], first['ci_high'], fmt=pct)}; a fair share is "
        f"{pct(1 / n)})."
    )
    if p is None or math.isnan(p):
        return [s]
    if p < 0.05:
        best = sa.sort("share", descending=True).row(0, named=True)
        s2 = (
            f"Seats are not equal (chi-square test p = {p:.3g}): the {best['label']} seat wins "
            f"most often, {pct(best['share'])} "
            f"({interval(best['ci_low'], best['ci_high'], fmt=pct)})."
        )
    else:
        s2 = (
            f"No seat has a detectable advantage (chi-square test of equal seats p = {p:.2f}, "
            f"{first['games']:,} games)."
        )
    return [s, s2]


def skill_sentence(sg: pl.DataFrame) -> str | None:
    """The strongest policy's share of wins against its fair share, or None with one policy."""
    if sg.height < 2:
        return None
    best = sg.sort("edge", descending=True).row(0, named=True)
    worst = sg.sort("edge").row(0, named=True)
    seats = best["seats_per_game"]
    who = f"{best['policy']} ({num(seats, 0)} seat{'s' if seats > 1.5 else ''})"
    verdict = "skill matters" if best["p_value"] < 0.05 else "no detectable skill gap"
    return (
        f"Skill gap: {who} wins {pct(best['share'])} of games "
        f"({interval(best['ci_low'], best['ci_high'], fmt=pct)}) where its fair share is "
        f"{pct(best['fair_share'])}; {worst['policy']} wins {pct(worst['share'])} "
        f"(fair share {pct(worst['fair_share'])}) — {verdict}."
    )


def compare_sentences(cmp: pl.DataFrame, metrics: list[str] | None = None) -> list[str]:
    """One sentence per (variant, metric) difference from the baseline."""
    metrics = metrics or [
        M.M_ROUNDS,
        M.M_TURNS,
        M.M_FIRST_ELIM,
        M.M_REBUYS,
        M.M_HAZARD,
        M.M_DEALER_LEFT,
        M.M_BONUS,
    ]
    out = []
    for r in cmp.filter(pl.col("verdict") != "").iter_rows(named=True):
        if r["metric"] not in metrics:
            continue
        share = r["unit"] == "share"
        small = max(abs(r["diff_low"] or 0), abs(r["diff_high"] or 0)) < 0.01
        f = (lambda x: pct(x, 2 if abs(x) < 0.01 else 1)) if share else (lambda x: num(x, 2))
        d = (
            (lambda x, small=small: num(100 * x, 2 if small else 1, sign=True) + " points")
            if share
            else (lambda x: num(x, 2, sign=True))
        )
        lo = d(r["diff_low"]).replace(" points", "")
        if r["verdict"] == "no detectable difference":
            out.append(
                f"{r['variant']} vs {r['baseline']}: no detectable difference in {r['metric']} "
                f"({f(r['value'])}; difference {d(r['diff'])}, 95% CI {lo}…{d(r['diff_high'])})."
            )
        else:
            out.append(
                f"{r['variant']} vs {r['baseline']}: {r['metric']} is {r['verdict']} — "
                f"{f(r['value'])}, a difference of {d(r['diff'])} (95% CI {lo}…"
                f"{d(r['diff_high'])})."
            )
    return out


def rebuy_policy_sentences(table: pl.DataFrame, seat: int, rules_id: str) -> list[str]:
    """The policy-level rebuy value in words, and how much pairing narrowed the interval."""
    out = []
    w = table.filter(pl.col("measure") == "win probability").row(0, named=True)
    n = table.filter(pl.col("measure") == "net stakes").row(0, named=True)
    out.append(
        f"Under {rules_id}, seat {seat} always rebuying instead of never wins "
        f"{num(100 * w['difference'], 1, sign=True)} percentage points more often "
        f"(paired 95% CI {num(100 * w['paired_low'], 1, sign=True)}…"
        f"{num(100 * w['paired_high'], 1, sign=True)}; {pct(w['always'])} vs {pct(w['never'])})."
    )
    verdict = _verdict(n["paired_low"], n["paired_high"])
    out.append(
        f"In stakes, always rebuying changes that seat's net result by "
        f"{num(n['difference'], 3, sign=True)} per game (paired 95% CI "
        f"{num(n['paired_low'], 3, sign=True)}…{num(n['paired_high'], 3, sign=True)}): "
        f"{verdict}."
    )
    rn = n["unpaired_width"] / n["paired_width"] if n["paired_width"] else math.nan
    out.append(
        f"Playing the same seeds twice makes the interval {rn:.1f}× "
        f"narrower for stakes and {w['unpaired_width'] / w['paired_width']:.1f}× narrower for wins "
        f"than comparing two independent runs of {n['games']:,} games."
    )
    return out


def _verdict(lo, hi, yes="buy back", no="decline") -> str:
    if lo is None or math.isnan(lo):
        return "too few cases to tell"
    if lo > 0:
        return yes
    if hi < 0:
        return no
    return "no clear difference either way"


def rebuy_state_sentences(tab: pl.DataFrame) -> list[str]:
    """One sentence per row of a state-level table (usually grouped by players left)."""
    out = []
    keys = [c for c in tab.columns if c in ("players_left", "gap_band", "rebuys_used")]
    for r in tab.iter_rows(named=True):
        parts = []
        if "players_left" in keys:
            parts.append(f"with {r['players_left']} players left")
        if "gap_band" in keys:
            parts.append(f"{r['gap_band']} points behind the leader after rebuying")
        if "rebuys_used" in keys:
            k = r["rebuys_used"]
            parts.append("on a first rebuy" if k == 0 else f"having rebought {k} time(s) already")
        where = ", ".join(parts) if parts else "overall"
        if r["thin"]:
            out.append(
                f"{where.capitalize()}: only {r['cases']} decisions — too few to trust "
                f"(a rebuy returned {num(r['value'], 2, sign=True)} stakes on average)."
            )
            continue
        out.append(
            f"{where.capitalize()} a rebuy returns {num(r['value'], 2, sign=True)} stakes on "
            f"average (95% CI {num(r['ci_low'], 2, sign=True)}…{num(r['ci_high'], 2, sign=True)},"
            f" {r['cases']:,} decisions) and {num(100 * r['win_gain'], 1, sign=True)} points "
            f"of win chance: {_verdict(r['ci_low'], r['ci_high'])}."
        )
    return out

"""Loba's findings in words: a variant's game length, eliminations, rebuys, the dealer's left
and skill (:func:`variant_findings`), and the rebuy experiments (:mod:`analysis.loba.rebuy`).
Shared words (intervals, tests, differences): :mod:`analysis.words`.
"""

from __future__ import annotations

import math

import polars as pl

from ..metrics import M_UNFINISHED
from ..words import equality_sentence, interval, num, pct, row_of, skill_sentence
from . import metrics as M


def variant_findings(
    km: pl.DataFrame,
    variant: str,
    seat_adv: pl.DataFrame | None = None,
    skill: pl.DataFrame | None = None,
    tests: pl.DataFrame | None = None,
) -> list[str]:
    """Sentences on one variant: length, first elimination, rebuys, seat advantage, skill.
    ``tests``: the report's family of tests (:func:`analysis.family.family_of_tests`); the
    seat and skill findings are then worded after its correction."""
    from ..family import adjusted

    out = []
    r = row_of(km, variant, M.M_ROUNDS)
    t = row_of(km, variant, M.M_TURNS)
    if r and t:
        out.append(
            f"A game lasts {num(r['value'], 1)} rounds on average "
            f"({interval(r['ci_low'], r['ci_high'], digits=1)}), "
            f"{num(t['value'], 0)} turns in all ({interval(t['ci_low'], t['ci_high'], digits=0)})."
        )
    f = row_of(km, variant, M.M_FIRST_ELIM)
    h = row_of(km, variant, M.M_HAZARD)
    if f and h:
        out.append(
            f"The first player is knocked out for good in round {num(f['value'], 1)} on average "
            f"({interval(f['ci_low'], f['ci_high'], digits=1)}); once eliminations start, "
            f"a player still in faces a {pct(h['value'])} risk per round of going out for good "
            f"({interval(h['ci_low'], h['ci_high'], fmt=pct)}), averaged over all rounds."
        )
    rb = row_of(km, variant, M.M_REBUYS)
    sh = row_of(km, variant, M.M_REBOUGHT)
    if rb and sh and rb["value"] == 0:
        out.append(
            f"Nobody rebought in any of the {rb['n']:,} games (no rebuy was allowed or none "
            "was taken): every player who went over the limit was eliminated."
        )
    elif rb and sh:
        out.append(
            f"There are {num(rb['value'], 2)} rebuys per game "
            f"({interval(rb['ci_low'], rb['ci_high'])}); {pct(sh['value'])} of the times a "
            f"player goes over the limit end in a rebuy "
            f"({interval(sh['ci_low'], sh['ci_high'], fmt=pct)}), the rest in elimination."
        )
    b = row_of(km, variant, M.M_BONUS)
    if b:
        out.append(
            f"A player goes out in one turn for the bonus in {pct(b['value'], 2)} of rounds "
            f"({interval(b['ci_low'], b['ci_high'], fmt=pct, digits=2)})."
        )
    u = row_of(km, variant, M_UNFINISHED)
    v = row_of(km, variant, M.M_VOID_SHARE)
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
    family = tests.height if tests is not None else None
    if seat_adv is not None:
        out.extend(
            seat_sentences(
                seat_adv.filter(pl.col("variant") == variant),
                adjusted(tests, "seats", variant) if tests is not None else None,
                family,
            )
        )
    if skill is not None:
        sg = skill.filter(pl.col("variant") == variant)
        adj = None
        if tests is not None and sg.height > 1:
            adj = {p: adjusted(tests, "skill", variant, p) for p in sg["policy"].to_list()}
        s = skill_sentence(sg, adj, family)
        if s:
            out.append(s)
    return out


def seat_sentences(
    sa: pl.DataFrame, adjusted: float | None = None, family: int | None = None
) -> list[str]:
    """'Does the dealer's left win more often?' in words, with the chi-square test. With
    ``adjusted`` (the test's p-value adjusted over a report's ``family`` of tests), the seats
    are called unequal only if that survives the correction."""
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
    best = sa.sort("share", descending=True).row(0, named=True)
    unequal = (
        f"the {best['label']} seat wins most often, {pct(best['share'])} "
        f"({interval(best['ci_low'], best['ci_high'], fmt=pct)})"
    )
    return [s, equality_sentence("seat", p, first["games"], unequal, adjusted, family)]


REBUY_MODES = (
    "How the two modes fit: policy mode values a rule — always buying back against never,"
    " over every bust the seat has in a whole game, so its figure averages over all the states"
    " a rule meets (most of them early, with many players left); state mode values one"
    " decision — buying back or not at a given state (players left, points behind, rebuys"
    " used), the rest of the game played out both ways from there. A rule can cost stakes on"
    " average while some states still favour buying back; a seat that rebuys only where state"
    " mode says so (rebuy=table:FILE) beats both 'always' and 'never'."
)


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
    rw = w["unpaired_width"] / w["paired_width"] if w["paired_width"] else math.nan
    if math.isnan(rn) or math.isnan(rw):  # e.g. max_rebuys=0: the two runs never differ
        out.append(
            f"The two rules gave that seat the same result in all {n['games']:,} games (no"
            " rebuy decision changed anything), so there is no interval to narrow."
            if not n["games_that_differ"] and not w["games_that_differ"]
            else "Too few games differ between the two rules to compare the intervals."
        )
        return out
    out.append(
        f"Playing the same seeds twice makes the interval {rn:.1f}× "
        f"narrower for stakes and {rw:.1f}× narrower for wins "
        f"than comparing two independent runs of {n['games']:,} games."
    )
    return out


def rebuy_rule_sentences(table: pl.DataFrame, seat: int, rules_id: str, rule: str) -> list[str]:
    """:func:`analysis.loba.rebuy.compare_rebuy_rules` in words: per rule compared against, how the
    seat's net result and win share change with ``rule`` instead, paired over the same games."""
    out = []
    for (other,), part in table.group_by("against", maintain_order=True):
        w = part.filter(pl.col("measure") == "win probability").row(0, named=True)
        n = part.filter(pl.col("measure") == "net stakes").row(0, named=True)
        head = f"Under {rules_id}, seat {seat} on rebuy={rule} instead of rebuy={other}"
        if not n["games_that_differ"] and not w["games_that_differ"]:
            out.append(f"{head} got the same result in all {n['games']:,} games.")
            continue
        verdict = _verdict(n["paired_low"], n["paired_high"], f"{rule} does better",
                           f"{other} does better")  # fmt: skip
        out.append(
            f"{head} changes its net result by {num(n['difference'], 3, sign=True)} stakes per"
            f" game (paired 95% CI {num(n['paired_low'], 3, sign=True)}…"
            f"{num(n['paired_high'], 3, sign=True)}) and its win share by"
            f" {num(100 * w['difference'], 2, sign=True)} points"
            f" ({num(100 * w['paired_low'], 2, sign=True)}…"
            f"{num(100 * w['paired_high'], 2, sign=True)}; {pct(w['rule'])} vs"
            f" {pct(w['other'])}), over {n['games']:,} games of which"
            f" {n['games_that_differ']:,} differ: {verdict}."
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


def rebuys_ruled_out(rules, n_players: int) -> str | None:
    """Why no rebuy can happen under ``rules`` with ``n_players`` seated, in one sentence, or
    None when the rules allow rebuys (whether any happens is then up to the games)."""
    if getattr(rules, "max_rebuys", 1) == 0:
        return (
            "No rebuy can happen under these rules: max_rebuys=0 ([A30]), so there is nothing "
            "to value (set max_rebuys to 1 or more)."
        )
    if n_players <= 2 and not getattr(rules, "rebuy_with_one_survivor", True):
        return (
            "No rebuy can happen with 2 players: when one goes over, only one player is left "
            "under the limit, so rebuys are off and that player wins ([A31]); seat 3 players or "
            "more, or set rebuy_with_one_survivor=true."
        )
    return None


def no_rebuy_reason(rules, n_players: int) -> str:
    """Why an experiment found no rebuy to value: the rules (:func:`rebuys_ruled_out`), or
    else the games."""
    return rebuys_ruled_out(rules, n_players) or (
        "No player went over the limit with a rebuy left in these games, so there is no "
        "decision to value; play more games."
    )


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

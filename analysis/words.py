"""Findings as sentences a player understands, each with its 95% interval.

Every function takes the tidy tables of :mod:`analysis.metrics`, :mod:`analysis.compare` or
:mod:`analysis.rebuy` and returns plain strings (no markup). Numbers go through
:mod:`analysis.fmt`, the formatter the tables use.

Where the report states many tests at once it passes their Holm-adjusted
p-values (:mod:`analysis.family`): a finding is then worded as detectable only if it survives
that correction, and one that does not is said so ("no detectable difference after
correction").
"""

from __future__ import annotations

import math

import polars as pl

from . import fmt
from . import metrics as M
from . import moon as MN
from .bygame import GAMES
from .family import ALPHA

# differences from the baseline that compare_sentences states (and the report's family tests):
# every game's own (analysis.bygame), whose metric names differ from game to game
COMPARE_METRICS = [m for metrics in GAMES.values() for m in metrics.stated]


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
    return (
        f"adjusted p = {fmt.pvalue(adj)} after correcting for {n} in this report, "
        "Holm"
    )


def interval(lo, hi, fmt=num, **kw) -> str:
    """'95% CI a…b' (the ellipsis reads better than a dash next to negative numbers), both
    ends with the precision the interval's width needs (:func:`analysis.fmt.ends`)."""
    if _fmt.is_na(lo) or _fmt.is_na(hi):
        return "95% CI n/a"
    unit = "share" if fmt is pct else None
    a, b = _fmt.ends(lo, hi, unit, signed=kw.get("sign", False))
    return f"95% CI {a.replace('-', '−')}…{b.replace('-', '−')}"


def _row(km: pl.DataFrame, variant: str, metric: str) -> dict | None:
    r = km.filter((pl.col("variant") == variant) & (pl.col("metric") == metric))
    return r.row(0, named=True) if r.height else None


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
    from .family import adjusted

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


REBUY_MODES = (
    "How the two modes fit: policy mode values a rule — always buying back against never,"
    " over every bust the seat has in a whole game, so its figure averages over all the states"
    " a rule meets (most of them early, with many players left); state mode values one"
    " decision — buying back or not at a given state (players left, points behind, rebuys"
    " used), the rest of the game played out both ways from there. A rule can cost stakes on"
    " average while some states still favour buying back; a seat that rebuys only where state"
    " mode says so (rebuy=table:FILE) beats both 'always' and 'never'."
)


def compare_sentences(
    cmp: pl.DataFrame, metrics: list[str] | None = None, family: int | None = None
) -> list[str]:
    """One sentence per (variant, metric) difference from the baseline, naming whether the
    runs were compared game by game (same seeds: paired) or as independent runs. Every
    "higher"/"lower" follows the corrected p-value (``p_adjusted``: Holm over the table's
    differences, or over a report's family of ``family`` tests); a difference below 0.05 only
    on its own is worded as not detectable after correction."""
    from .compare import FAMILY_VERDICTS
    from .estimate import SAME

    metrics = metrics or COMPARE_METRICS
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
    """:func:`analysis.rebuy.compare_rebuy_rules` in words: per rule compared against, how the
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


# ------------------------------------------------------------------ Three-Player Moon
LEVEL_NAMES = {"21": "21 (the moon)"}


def moon_findings(
    km: pl.DataFrame,
    variant: str,
    bids: pl.DataFrame | None = None,
    positions: pl.DataFrame | None = None,
    tests: pl.DataFrame | None = None,
) -> list[str]:
    """Sentences on one variant of Moon runs (:func:`analysis.moon.moon_metrics`): game length
    and redeals, contracts made (by bid and trump kind from ``bids``,
    :func:`analysis.moon.bid_success`), the moon, the widow, the first bidder's advantage
    (``positions``: :func:`analysis.moon.first_bidder_advantage`) and the seats. ``tests``:
    the report's family of tests; the position and seat findings are worded after it."""
    from .family import adjusted

    def row(metric):
        return _row(km, variant, metric)

    out = []
    h, r = row(MN.M_HANDS), row(MN.M_REDEALS)
    if h and r:
        out.append(
            f"A game lasts {num(h['value'], 1)} hands on average "
            f"({interval(h['ci_low'], h['ci_high'], digits=1)}); {pct(r['value'])} of the hands "
            f"dealt are redealt because all three passed "
            f"({interval(r['ci_low'], r['ci_high'], fmt=pct)})."
        )
    m = row(MN.M_MADE)
    if m:
        out.append(
            f"Bidders make {pct(m['value'])} of their contracts "
            f"({interval(m['ci_low'], m['ci_high'], fmt=pct)}, {m['n']:,} contracts)."
        )
    if bids is not None:
        part = bids.filter(pl.col("variant") == variant)
        out.append(_made_by(part.filter(pl.col("by") == "bid"), "bid"))
        out.append(_made_by(part.filter(pl.col("by") == "trump"), "trump"))
    out += [x for x in (_moon_sentence(row), _widow_sentence(row)) if x]
    family = tests.height if tests is not None else None

    def adj(metric):
        return adjusted(tests, "metric", variant, metric) if tests is not None else None

    if positions is not None:
        out += _position_sentences(
            positions.filter(pl.col("variant") == variant), adj(MN.M_POSITION_P), family
        )
    seat = _seat_share_sentence(km, variant, adj(M.M_SEAT_P), family)
    if seat:
        out.append(seat)
    u = row(M.M_UNFINISHED)
    if u and u["k"]:
        out.append(
            f"{int(u['k']):,} of {u['n']:,} games ({pct(u['value'], 3)}) hit the hand cap "
            "unfinished ([B11])."
        )
    return out


def _made_by(part: pl.DataFrame, by: str) -> str:
    """'Contracts made by bid: 4 — 98.52% of 1,234 (95% CI …); ...; never bid: 7.'"""
    seen = part.filter(pl.col("hands") > 0).iter_rows(named=True)
    items = [
        f"{LEVEL_NAMES.get(r['level'], r['level'])} — {pct(r['share'])} of {r['hands']:,} "
        f"({interval(r['ci_low'], r['ci_high'], fmt=pct)})"
        for r in seen
    ]
    never = part.filter(pl.col("hands") == 0)["level"].to_list()
    tail = f"; never {'bid' if by == 'bid' else 'named'}: {', '.join(never)}" if never else ""
    return f"Contracts made by {by}: {'; '.join(items) or 'none'}{tail}."


def _moon_sentence(row) -> str | None:
    b, made, games = row(MN.M_MOON_BID), row(MN.M_MOON_MADE), row(MN.M_GAMES_MOON_BID)
    if not (b and games):
        return None
    s = (
        f"The moon (a bid of 21) is bid in {pct(b['value'], 2)} of played hands "
        f"({interval(b['ci_low'], b['ci_high'], fmt=pct, digits=2)}), in "
        f"{pct(games['value'])} of games"
    )
    if made and made["n"]:
        s += (
            f"; {pct(made['value'])} of moon bids are made "
            f"({interval(made['ci_low'], made['ci_high'], fmt=pct)})"
        )
    return s + "."


def _widow_sentence(row) -> str | None:
    kept = row(MN.M_WIDOW_KEPT)
    if not kept:
        return None
    s = (
        f"The bidder keeps the widow in {pct(kept['value'])} of played hands "
        f"({interval(kept['ci_low'], kept['ci_high'], fmt=pct)})"
    )
    tk, td = (row(MN.M_WIDOW_TRICKS.format(kept=w)) for w in ("kept", "discarded"))
    if tk and td:
        s += (
            f"; keeping it the bidder takes {num(tk['value'])} tricks on average "
            f"({interval(tk['ci_low'], tk['ci_high'])}), laying it aside {num(td['value'])} "
            f"({interval(td['ci_low'], td['ci_high'])}) — an association, not the widow's "
            "worth: the bidder chooses after seeing it"
        )
    return s + "."


def _position_sentences(fb: pl.DataFrame, adjusted=None, family: int | None = None) -> list[str]:
    """The first bidder's win share against a fair third, and the test of equal positions."""
    if fb.height == 0 or not fb["games"][0]:
        return []
    first, second, third = fb.sort("position").iter_rows(named=True)
    s = (
        f"The first bidder of a game wins {pct(first['share'])} of finished games "
        f"({interval(first['ci_low'], first['ci_high'], fmt=pct)}; a fair share is "
        f"{pct(first['expected'])}), the second bidder {pct(second['share'])}, the third "
        f"{pct(third['share'])}."
    )
    best = fb.sort("share", descending=True).row(0, named=True)
    unequal = (
        f"the {best['label']} wins most often, {pct(best['share'])} "
        f"({interval(best['ci_low'], best['ci_high'], fmt=pct)})"
    )
    return [
        s,
        equality_sentence("position", first["p_value"], first["games"], unequal, adjusted, family),
    ]


def _seat_share_sentence(km, variant, adjusted=None, family: int | None = None) -> str | None:
    """Each seat's share of wins and the test of equal seats (seats keep their policies)."""
    shares = [_row(km, variant, MN.M_SEAT_SHARE.format(seat=q)) for q in range(3)]
    test = _row(km, variant, M.M_SEAT_P)
    if not all(shares) or test is None:
        return None
    best = max(range(3), key=lambda q: shares[q]["value"])
    b = shares[best]
    unequal = (
        f"seat {best} wins most often, {pct(b['value'])} "
        f"({interval(b['ci_low'], b['ci_high'], fmt=pct)})"
    )
    listed = ", ".join(f"seat {q} {pct(x['value'])}" for q, x in enumerate(shares))
    verdict = equality_sentence("seat", test["value"], test["n"], unequal, adjusted, family)
    return f"Wins by seat: {listed}. {verdict}"

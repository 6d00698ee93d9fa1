"""Three-Player Moon's findings in words (:func:`moon_findings`). Shared words (intervals,
tests, differences): :mod:`analysis.words`.
"""

from __future__ import annotations

import polars as pl

from ..metrics import M_SEAT_P, M_UNFINISHED
from ..words import equality_sentence, interval, num, pct, row_of
from . import metrics as MN

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
    from ..family import adjusted

    def row(metric):
        return row_of(km, variant, metric)

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
    seat = _seat_share_sentence(km, variant, adj(M_SEAT_P), family)
    if seat:
        out.append(seat)
    u = row(M_UNFINISHED)
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
    shares = [row_of(km, variant, MN.M_SEAT_SHARE.format(seat=q)) for q in range(3)]
    test = row_of(km, variant, M_SEAT_P)
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

"""Toy Tricks' analysis: its metrics, findings, report sections and sweep columns, registered as
one :class:`analysis.bygame.GameAnalysis`, :data:`ANALYSIS` (the spec names it).

Its own figures: hands per game, the share of tricks won by the seat that led them, the
winner's margin over the runner-up, the first leader's win share (against 1 / players) and,
with the ``hands`` table (``--rounds``), the share of hands one seat swept. Every interval is
by game (:mod:`analysis.estimate`).
"""

from __future__ import annotations

import math

import polars as pl

from analysis.bygame import GameAnalysis, Panel
from analysis.estimate import Figure, per_game_columns
from analysis.family import adjusted, family_of_tests
from analysis.io import collect
from analysis.metrics import (
    KEY,
    M_SEAT_P,
    M_SEAT_SHARE,
    M_UNFINISHED,
    add_game_share,
    long_table,
    prep,
    seat_share_figures,
    seat_spreads,
    test_row,
    variants_of,
    with_bad_answers,
    with_seed,
)
from analysis.stats import LEVEL, chisquare_equal
from analysis.words import equality_sentence, interval, num, pct, row_of

M_HANDS = "hands per game"
M_LEAD_WINS = "tricks won by their leader (share of tricks)"
M_MARGIN = "winning margin (points over the runner-up)"
M_FIRST_LEADER = "win share of the first leader"
M_SWEPT = "hands swept by one seat (share of hands)"
M_DECISIONS = "decisions per game"
M_POSITION_P = "positions from the first leader equal: chi-square p-value"


def _counts(games, seats, hands=None) -> pl.LazyFrame:
    """The games table with each game's winning margin (``_margin``, 0 if unfinished) and,
    with ``hands``, its hands swept (``_swept``)."""
    top = (
        prep(seats)
        .group_by(KEY)
        .agg(pl.col("final_score").sort(descending=True).head(2).alias("_top"))
        .select(*KEY, (pl.col("_top").list.first() - pl.col("_top").list.get(1)).alias("_gap"))
    )
    g = with_seed(prep(games)).join(top, on=KEY, how="left", maintain_order="left")
    g = g.with_columns(
        pl.when(pl.col("winner").is_not_null()).then(pl.col("_gap")).otherwise(0).alias("_margin")
    )
    if hands is not None:
        swept = (
            prep(hands)
            .group_by(*KEY, "hand")
            .agg(pl.col("tricks").max().alias("_most"))
            .group_by(KEY)
            .agg((pl.col("_most") == 3).sum().alias("_swept"))
        )
        g = g.join(swept, on=KEY, how="left", maintain_order="left")
    return g


def figures(n_seats: int, hands: bool = False) -> list[Figure]:
    one, fin = pl.lit(1.0), pl.col("winner").is_not_null()
    S = "share"
    figs = [
        Figure(M_HANDS, "hands", pl.col("hands"), one),
        Figure(M_LEAD_WINS, S, pl.col("lead_wins"), pl.col("tricks"), S, True),
        Figure(M_MARGIN, "points", pl.col("_margin"), fin),
        Figure(
            M_FIRST_LEADER,
            S,
            (pl.col("winner") == pl.col("first_leader")).fill_null(False),
            fin,
            S,
            True,
            1.0 / pl.col("n_players"),
        ),  # fmt: skip
        Figure(M_UNFINISHED, S, ~fin, one, S, True),
    ]
    if hands:
        figs.append(Figure(M_SWEPT, S, pl.col("_swept").fill_null(0), pl.col("hands"), S, True))
    return figs + seat_share_figures(n_seats)


def _n_seats(games) -> int:
    return int(collect(prep(games).select(pl.col("n_players").max())).item() or 0)


def per_game(games, seats, hands=None) -> pl.DataFrame:
    """Each game's ``"<metric>|y"``/``"<metric>|x"`` columns (paired by
    :mod:`analysis.comparison`)."""
    figs = figures(_n_seats(games), hands is not None)
    cols = per_game_columns(figs)
    return collect(_counts(games, seats, hands).select("variant", "run", "seed", "game", *cols))


def toy_metrics(games, seats, hands=None, level: float = LEVEL) -> pl.DataFrame:
    """The long metrics table: :func:`figures`, the bad answers, the seats' chi-square test
    of equal win shares and spread."""
    g = prep(games)
    figs = figures(_n_seats(games), hands is not None)
    lf = _counts(games, seats, hands).select("variant", "run", "seed", "game",
                                             *per_game_columns(figs))  # fmt: skip
    lf, figs = with_bad_answers(games, seats, lf, figs)
    tests = seat_spreads(games, level)
    wins = collect(
        g.filter(pl.col("winner").is_not_null())
        .group_by("variant", pl.col("winner").cast(pl.Int64), "n_players")
        .agg(pl.len().alias("w"))
    )
    for v in variants_of(g):
        part = wins.filter(pl.col("variant") == v)
        n = int(part["n_players"].max() or 0)
        got = dict(zip(part["winner"].to_list(), part["w"].to_list(), strict=True))
        c = [got.get(q, 0) for q in range(n)]
        if sum(c) and n > 1:
            tests.append(test_row(v, M_SEAT_P, chisquare_equal(c)[1], sum(c)))
    for r in leader_positions(games, level).filter(pl.col("position") == 0).iter_rows(named=True):
        if r["games"]:
            tests.append(test_row(r["variant"], M_POSITION_P, r["p_value"], r["games"]))
    return long_table(lf, figs, tests, variants_of(g), level)


def leader_positions(games, level: float = LEVEL) -> pl.DataFrame:
    """Win share by position from the game's first leader (0: the first leader), finished
    games, against 1 / players, with the chi-square test of equal positions."""
    g = prep(games).filter(pl.col("winner").is_not_null())
    pos = (pl.col("winner").cast(pl.Int64) - pl.col("first_leader")) % pl.col("n_players")
    df = collect(g.group_by("variant", pos.alias("position"), "n_players").agg(pl.len().alias("w")))
    rows = []
    for v in variants_of(prep(games)):
        part = df.filter(pl.col("variant") == v)
        n = int(part["n_players"].max() or 0)
        got = dict(zip(part["position"].to_list(), part["w"].to_list(), strict=True))
        c = [got.get(k, 0) for k in range(n)]
        total = sum(c)
        _, p = chisquare_equal(c) if total else (math.nan, math.nan)
        rows += [{"variant": v, "position": k, "label": "first leader" if k == 0 else f"+{k}",
                  "wins": c[k], "games": total, "share": c[k] / total if total else math.nan,
                  "expected": 1 / n, "p_value": p} for k in range(n)]  # fmt: skip
    return add_game_share(pl.DataFrame(rows), "wins", "games", level)


def summary_figures(games, seats):
    """The run summary's figures (``examples.toy.spec``'s ``mean_hands``, ``lead_win_rate``,
    ``decisions_per_game``) as figures, with the unfinished share and the seats' win shares."""
    figs = {f.name: f for f in figures(_n_seats(games))}
    n = _n_seats(games)
    table = {
        "unfinished": (figs[M_UNFINISHED], True),
        "mean_hands": (figs[M_HANDS], False),
        "lead_win_rate": (figs[M_LEAD_WINS], False),
        "decisions_per_game": (
            Figure(M_DECISIONS, "decisions", pl.col("decisions"), pl.lit(1.0)),
            False,
        ),  # fmt: skip
    }
    return _counts(games, seats), table, [figs[M_SEAT_SHARE.format(seat=q)] for q in range(n)]


def findings(km: pl.DataFrame, v: str, positions: pl.DataFrame, tests) -> list[str]:
    def row(m):
        return row_of(km, v, m)

    out = []
    h, lw, m = row(M_HANDS), row(M_LEAD_WINS), row(M_MARGIN)
    if h:
        out.append(f"A game lasts {num(h['value'], 1)} hands on average "
                   f"({interval(h['ci_low'], h['ci_high'], digits=1)}).")  # fmt: skip
    if lw:
        out.append(f"The seat that leads a trick wins it {pct(lw['value'])} of the time "
                   f"({interval(lw['ci_low'], lw['ci_high'], fmt=pct)}).")  # fmt: skip
    if m:
        out.append(f"Winners finish {num(m['value'], 2)} points ahead of the runner-up "
                   f"({interval(m['ci_low'], m['ci_high'])}).")  # fmt: skip
    part = positions.filter(pl.col("variant") == v)
    if part.height and part["games"][0]:
        best = part.sort("share", descending=True).row(0, named=True)
        out.append(equality_sentence(
            "position", part["p_value"][0], int(part["games"][0]),
            f"{best['label']} wins most ({pct(best['share'])})",
            adjusted(tests, "metric", v, M_POSITION_P), tests.height,
        ))  # fmt: skip
    return out


def report(rs, km, cmp):
    from analysis.plots import rounds_plot, seat_advantage_plot
    from analysis.report import (
        Sections,
        count_col,
        est_col,
        figure,
        frame_table,
        methods_paragraph,
        seat_table,
        section,
        text_col,
    )

    g = rs.games
    lp = leader_positions(g)
    tests = family_of_tests(None, None, cmp, metric_tests=km)
    adj = {v: adjusted(tests, "metric", v, M_POSITION_P) for v in rs.variants}
    hands = km.filter(pl.col("metric").is_in([M_HANDS, M_LEAD_WINS, M_MARGIN, M_SWEPT]))
    return Sections(
        name=rs.runs[0].spec.title,
        tests=tests,
        findings={v: findings(km, v, lp, tests) for v in rs.variants},
        figures=[
            figure(rounds_plot(g, "hands"), "Distribution of the number of hands per game."),
            figure(
                seat_advantage_plot(
                    lp,
                    "position from the first leader",
                    "First-leader advantage (dashed: fair share)",
                ),
                "Win share by position from the game's first leader (bars: 95% interval).",
            ),
        ],  # fmt: skip
        tables=[
            section(
                "Hands and tricks",
                frame_table(
                    hands,
                    [
                        text_col("variant"),
                        text_col("metric"),
                        count_col("games", "n"),
                        est_col("value", "value"),
                    ],
                    2,
                ),
            ),  # fmt: skip
            section("First-leader advantage", seat_table(lp, adj, "position")),
        ],
        methods=methods_paragraph(
            "Positions count from the game's first leader; the chi-square test of equal "
            "positions uses finished games only.",
            "equal positions, equal seats, differences from the baseline",
        ),
    )


ANALYSIS = GameAnalysis(
    key_metrics=toy_metrics,
    per_game=per_game,
    sweep_columns=(
        ("mean_hands", M_HANDS),
        ("lead_win_share", M_LEAD_WINS),
        ("margin", M_MARGIN),
        ("first_leader_share", M_FIRST_LEADER),
        ("unfinished", M_UNFINISHED),
    ),
    sweep_panels=(
        Panel("mean_hands", "hands per game", "hands"),
        Panel("lead_win_share", "tricks won by their leader", "%", 100.0),
        Panel("margin", "winning margin", "points"),
        Panel("first_leader_share", "win share of the first leader", "%", 100.0, "fair share"),
    ),
    sweep_shown=("mean_hands", "lead_win_share", "margin", "first_leader_share", "seat_p"),
    stated=(M_HANDS, M_LEAD_WINS, M_MARGIN, M_FIRST_LEADER, M_SWEPT),
    report=report,
    summary_figures=summary_figures,
)

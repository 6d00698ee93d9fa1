"""Loba's metrics over the ``games`` / ``seats`` / ``rounds`` tables, each with its confidence
interval (the shared pieces they are built from: :mod:`analysis.metrics`).

Every function takes polars frames (lazy or eager: a :class:`~analysis.io.RunSet`'s tables, or
small literal frames in tests), groups by ``variant`` (a run without one counts as the single
variant ``"run"``) and returns a small tidy :class:`polars.DataFrame`. Intervals are 95% and
their method is named in each docstring (see :mod:`analysis.stats`).

Vocabulary (RULES.md [A29]-[A33]): a player *busts* when their score reaches the elimination
score; a bust ends in a *rebuy* or in *elimination for good*. ``eliminated_round`` is the round
of the latter (null for the winner and for the players still in an unfinished game).
"""

from __future__ import annotations

import math

import polars as pl
from scipy import stats as _st

from ..estimate import Figure, estimates, game_share, per_game_columns, wide
from ..io import collect
from ..metrics import (
    KEY,
    M_SEAT_P,
    M_UNFINISHED,
    add_game_share,
    add_t,
    long_table,
    order_variants,
    prep,
    seat_share_figures,
    seat_spreads,
    spread_row,
    test_row,
    variants_of,
    with_bad_answers,
    with_seed,
)
from ..stats import LEVEL, chisquare_equal

# metric names of key_metrics() (stable: compare() and the report match on them)
M_ROUNDS = "rounds per game"
M_TURNS = "turns per game"
M_TURNS_PER_ROUND = "turns per round"
M_VOID_SHARE = "void rounds (share of rounds)"
M_BONUS = "one-turn bonus (share of played rounds)"
M_RESHUFFLES = "stock rebuilds per game"
M_POT = "pot per game"
M_REBUYS = "rebuys per game"
M_REBOUGHT = "busts that rebought (share)"
M_FIRST_ELIM = "round of the first elimination"
M_HAZARD = "elimination risk per player-round"
M_DEALER_LEFT = "win share of the dealer's left (first round)"
M_NET_SEAT = "net result, seat {seat} ({policy})"


def _seat_rounds(games, seats) -> pl.LazyFrame:
    g = prep(games).select("variant", "run", "game", "rounds", "winner", "n_players")
    return prep(seats).join(g, on=KEY, how="inner", maintain_order="left")


# ------------------------------------------------------------------ elimination


def elimination_hazard(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Risk of elimination for good in each round, for a player still in at its start.

    ``at_risk`` = players whose game reached round r and who were not out before it;
    ``eliminated`` = players eliminated for good in round r; ``hazard`` = their ratio, with
    its interval by game (players of one game are one cluster, :mod:`analysis.estimate`).
    Needs only the games and seats tables (not ``--rounds``).
    """
    s = _seat_rounds(games, seats).with_columns(
        pl.coalesce("eliminated_round", "rounds").cast(pl.Int64).alias("last")
    )
    per = (
        s.with_columns(pl.int_ranges(1, pl.col("last") + 1).alias("round"))
        .explode("round")
        .group_by("variant", "round", "run", "game")
        .agg(
            pl.len().alias("_x"),
            (pl.col("eliminated_round").cast(pl.Int64) == pl.col("round")).sum().alias("_y"),
        )
    )
    fig = [Figure("hazard", "share", pl.col("_y"), pl.col("_x"), "share", True)]
    pg = per.select("variant", "round", *per_game_columns(fig), "_x", "_y")
    est = estimates(pg, fig, ["variant", "round"], level)
    tot = collect(
        pg.group_by("variant", "round").agg(
            pl.col("_x").sum().cast(pl.Int64).alias("at_risk"),
            pl.col("_y").sum().cast(pl.Int64).alias("eliminated"),
        )
    )
    out = tot.join(
        est.select("variant", "round", pl.col("value").alias("hazard"), "ci_low", "ci_high"),
        on=["variant", "round"],
        how="left",
    ).with_columns(pl.col("round").cast(pl.Int64))
    return order_variants(
        out.sort("variant", "round").select(
            "variant", "round", "at_risk", "eliminated", "hazard", "ci_low", "ci_high"
        ),
        variants_of(prep(games)),
    )


def bust_hazard(rounds, level: float = LEVEL) -> pl.DataFrame:
    """From the ``rounds`` table: per round number, the share of players in the round who
    busted (reached the elimination score), and how those busts ended; intervals by game."""
    r = prep(rounds).filter(pl.col("status") != "eliminated")
    per = r.group_by("variant", "round", "run", "game").agg(
        pl.len().alias("in_round"),
        pl.col("status").is_in(["over", "rebought"]).sum().alias("busts"),
        (pl.col("status") == "rebought").sum().alias("rebought"),
        (pl.col("status") == "over").sum().alias("out_for_good"),
    )
    fig = [Figure("bust_rate", "share", pl.col("busts"), pl.col("in_round"), "share", True)]
    pg = per.with_columns(per_game_columns(fig))
    est = wide(pg, ["variant", "round"], fig, {"bust_rate": ("bust_rate", "ci_low", "ci_high")},
               level)  # fmt: skip
    tot = collect(
        pg.group_by("variant", "round").agg(
            pl.col("in_round", "busts", "rebought", "out_for_good").sum().cast(pl.Int64)
        )
    )
    df = tot.join(est, on=["variant", "round"], how="left").sort("variant", "round")
    return order_variants(
        df.select(
            "variant",
            "round",
            "in_round",
            "busts",
            "rebought",
            "out_for_good",
            "bust_rate",
            "ci_low",
            "ci_high",
        ),  # fmt: skip
        variants_of(prep(rounds)),
    )


def survival(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Share of the players who sat down that are still in after round r (r = 0, 1, ...).

    The winner of a finished game stays in for ever, so the curve levels off at 1/n. Also
    ``games_running``: share of games not yet over after round r. Intervals by game (the
    players of one game are one cluster, :mod:`analysis.estimate`).
    """
    g = prep(games)
    top = g.group_by("variant").agg(pl.col("rounds").cast(pl.Int64).max().alias("_top"))
    g = g.join(top, on="variant", how="left")
    grid = g.select(
        *KEY, "n_players", "rounds", pl.int_ranges(0, pl.col("_top") + 1).alias("round")
    ).explode("round")
    out = (
        prep(seats)
        .filter(pl.col("eliminated_round").is_not_null())
        .join(top, on="variant", how="left")
        .select(
            *KEY,
            pl.int_ranges(pl.col("eliminated_round").cast(pl.Int64), pl.col("_top") + 1).alias(
                "round"
            ),
        )
        .explode("round")
        .group_by(*KEY, "round")
        .agg(pl.len().alias("_out"))
    )
    per = grid.join(out, on=[*KEY, "round"], how="left").with_columns(
        pl.col("_out").fill_null(0),
        pl.col("n_players").cast(pl.Int64).alias("_n"),
    )
    one = pl.lit(1.0)
    figs = [
        Figure("share", "share", pl.col("_n") - pl.col("_out"), pl.col("_n"), "share", True),
        Figure("games_running", "share", pl.col("rounds") > pl.col("round"), one, "share", True),
    ]
    pg = per.with_columns(per_game_columns(figs))
    by = ["variant", "round"]
    names = {
        "share": ("share", "ci_low", "ci_high"),
        "games_running": ("games_running", "_glo", "_ghi"),
    }
    est = wide(pg, by, figs, names, level)
    tot = collect(
        pg.group_by(by).agg(
            pl.col("_n").sum().alias("players"),
            (pl.col("_n") - pl.col("_out")).sum().alias("still_in"),
        )
    )
    df = tot.join(est, on=by, how="left").with_columns(pl.col("round").cast(pl.Int64))
    return order_variants(
        df.sort(by).select(
            "variant", "round", "players", "still_in", "share", "games_running", "ci_low", "ci_high"
        ),
        variants_of(prep(games)),
    )


def first_elimination(games, seats) -> pl.DataFrame:
    """Distribution of the round of a game's first elimination for good: per round, games and
    share of the games that had an elimination, and the cumulative share."""
    s = prep(seats)
    first = s.group_by(KEY).agg(pl.col("eliminated_round").min().alias("first"))
    df = collect(
        first.filter(pl.col("first").is_not_null())
        .group_by("variant", pl.col("first").cast(pl.Int64).alias("round"))
        .agg(pl.len().alias("games"))
    ).sort("variant", "round")
    df = df.with_columns(
        (pl.col("games") / pl.col("games").sum().over("variant")).alias("share")
    ).with_columns(pl.col("share").cum_sum().over("variant").alias("cum_share"))
    return order_variants(df, variants_of(prep(games)))


def first_elimination_summary(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Mean round of the first elimination (t interval), its median, and how many games had
    none (unfinished games that never eliminated anyone)."""
    s = prep(seats)
    first = s.group_by(KEY).agg(pl.col("eliminated_round").min().alias("first"))
    df = collect(
        first.group_by("variant").agg(
            pl.col("first").cast(pl.Float64).mean().alias("mean"),
            pl.col("first").cast(pl.Float64).std().alias("sd"),
            pl.col("first").count().alias("n"),
            pl.col("first").median().alias("median"),
            pl.col("first").is_null().sum().alias("games_without"),
        )
    )
    return order_variants(add_t(df, "mean", "sd", "n", level=level), variants_of(prep(games)))


def _group_table(games, seats, by: list[str], level: float) -> pl.DataFrame:
    """Per group of ``by`` (seat or policy): win share over finished games, elimination rate,
    elimination round, rebuys and net per seat, each a ratio of per-game sums over the group's
    seats (:mod:`analysis.estimate`: seats of one game are one cluster; a figure fixed by
    construction, such as the win share of a policy holding every seat, has no interval)."""
    s = _seat_rounds(games, seats).with_columns(
        (pl.col("winner") == pl.col("seat")).fill_null(False).alias("is_win"),
        pl.col("eliminated_round").is_not_null().alias("is_out"),
        pl.col("winner").is_not_null().alias("finished"),
    )
    per = s.group_by([*by, "run", "game"]).agg(
        pl.len().alias("_seats"),
        pl.col("finished").sum().alias("_fin"),
        pl.col("is_win").sum().alias("_wins"),
        pl.col("is_out").sum().alias("_out"),
        pl.col("eliminated_round").cast(pl.Float64).sum().alias("_eround"),
        pl.col("rebuys").cast(pl.Float64).sum().alias("_rebuys"),
        pl.col("net").cast(pl.Float64).sum().alias("_net"),
    )
    seats_ = pl.col("_seats")
    figs = [
        Figure("win", "share", pl.col("_wins"), pl.col("_fin"), "share", True),
        Figure("elim", "share", pl.col("_out"), seats_, "share", True),
        Figure("elim_round", "round", pl.col("_eround"), pl.col("_out")),
        Figure("rebuys", "rebuys", pl.col("_rebuys"), seats_, "mean", True),
        Figure("net", "stakes", pl.col("_net"), seats_),
    ]
    pg = per.select(*by, *per_game_columns(figs), "_seats", "_fin", "_wins", "_out")
    est = estimates(pg, figs, by, level)
    tot = collect(
        pg.group_by(by).agg(
            pl.col("_seats").sum().alias("games"), pl.col("_fin").sum().alias("finished"),
            pl.col("_wins").sum().alias("wins"), pl.col("_out").sum().alias("eliminated"),
        )
    )  # fmt: skip
    wide = tot
    for f, (val, lo, hi) in {
        "win": ("win_rate", "win_low", "win_high"),
        "elim": ("elim_rate", "elim_low", "elim_high"),
        "elim_round": ("elim_round", "elim_round_ci_low", "elim_round_ci_high"),
        "rebuys": ("rebuys", "rebuys_ci_low", "rebuys_ci_high"),
        "net": ("net", "net_ci_low", "net_ci_high"),
    }.items():
        part = est.filter(pl.col("metric") == f).select(
            *by, pl.col("value").alias(val), pl.col("ci_low").alias(lo), pl.col("ci_high").alias(hi)
        )
        wide = wide.join(part, on=by, how="left", maintain_order="left")
    wide = wide.with_columns(pl.col("games", "finished", "wins", "eliminated").cast(pl.Int64))
    cols = [
        *by, "games", "finished", "wins", "win_rate", "win_low", "win_high", "eliminated",
        "elim_rate", "elim_low", "elim_high", "elim_round", "elim_round_ci_low",
        "elim_round_ci_high", "rebuys", "rebuys_ci_low", "rebuys_ci_high", "net", "net_ci_low",
        "net_ci_high",
    ]  # fmt: skip
    return order_variants(wide.sort(by).select(cols), variants_of(prep(games)))


def seat_table(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Per seat: win rate over finished games and elimination rate over all games, mean
    elimination round, rebuys per game and net result in stakes, intervals by game."""
    return _group_table(games, seats, ["variant", "seat", "policy"], level)


def policy_table(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """As :func:`seat_table`, pooled over the seats that play the same policy: each figure a
    ratio of the policy's per-game sums over its seats, its interval by game (seats of one game
    compete for one win, so they are one cluster). With one policy in every seat its win share
    (1 / players) and net (0: the stakes are zero-sum) are fixed by construction and have no
    interval."""
    return _group_table(games, seats, ["variant", "policy"], level)


def rebuy_outcomes(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """How busts end, per policy and overall (``policy == "all"``): ``busts`` = rebuys +
    eliminations for good; ``share_rebought`` with its interval by game."""
    s = _seat_rounds(games, seats)
    fig = [Figure("rebought", "share", pl.col("_r"), pl.col("_r") + pl.col("_o"), "share", True)]
    frames = []
    for by, label in ((["variant", "policy"], None), (["variant"], "all")):
        per = s.group_by([*by, "run", "game"]).agg(
            pl.col("rebuys").cast(pl.Int64).sum().alias("_r"),
            pl.col("eliminated_round").is_not_null().sum().cast(pl.Int64).alias("_o"),
        )
        pg = per.select(*by, *per_game_columns(fig), "_r", "_o")
        est = estimates(pg, fig, by, level)
        tot = collect(pg.group_by(by).agg(pl.col("_r").sum().alias("rebought"),
                                          pl.col("_o").sum().alias("out_for_good")))  # fmt: skip
        df = tot.join(est.select(*by, pl.col("value").alias("share_rebought"), "ci_low", "ci_high"),
                      on=by, how="left")  # fmt: skip
        if label is not None:
            df = df.with_columns(pl.lit(label).alias("policy"))
        frames.append(df.select("variant", "policy", "rebought", "out_for_good", "share_rebought",
                                "ci_low", "ci_high"))  # fmt: skip
    df = (
        pl.concat(frames)
        .with_columns(pl.col("rebought", "out_for_good").cast(pl.Int64))
        .with_columns((pl.col("rebought") + pl.col("out_for_good")).alias("busts"))
    )
    df = df.sort("variant", pl.col("policy") == "all", "policy")
    return order_variants(
        df.select(
            "variant", "policy", "busts", "rebought", "out_for_good", "share_rebought", "ci_low",
            "ci_high",
        ),
        variants_of(prep(games)),
    )  # fmt: skip


# ------------------------------------------------------------------ game shape
SHAPE = (
    M_ROUNDS, M_TURNS, M_TURNS_PER_ROUND, M_VOID_SHARE, M_BONUS, M_RESHUFFLES, M_POT,
    M_UNFINISHED, M_REBUYS,
)  # fmt: skip


def game_shape(games, seats=None, level: float = LEVEL) -> pl.DataFrame:
    """Length and texture of games, one row per metric (long format): rounds, turns, turns per
    round, stock rebuilds, pot and rebuys per game (means over games); void rounds among all
    rounds, one-turn bonuses among played rounds and unfinished games (shares). Intervals by
    game (:mod:`analysis.estimate`)."""
    km = key_metrics(games, seats if seats is not None else _no_seats(games), level)
    return km.filter(pl.col("metric").is_in(SHAPE))


def _no_seats(games) -> pl.LazyFrame:
    """An empty seats table (game_shape without seats: no game has a seat total)."""
    return (
        prep(games)
        .select(*KEY)
        .with_columns(
            pl.lit(0, dtype=pl.Int8).alias("seat"),
            pl.lit("?").alias("policy"),
            pl.lit(0, dtype=pl.Int8).alias("rebuys"),
            pl.lit(None, dtype=pl.Int16).alias("eliminated_round"),
        )
        .filter(pl.lit(False))
    )


# ------------------------------------------------------------------ seats


def _position_label(k: int, n: int) -> str:
    if k == 0:
        return "1st to play (dealer's left)"
    if k == n - 1:
        return f"{_ordinal(n)} to play (the first dealer)"
    return f"{_ordinal(k + 1)} to play"


def _ordinal(k: int) -> str:
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k if k < 20 else k % 10, 'th') }"


def seat_advantage(games, level: float = LEVEL) -> pl.DataFrame:
    """Win share by position relative to the first round's dealer: position 0 is the dealer's
    left (who plays first, [A8]), position n-1 the first dealer. Finished games only; by game
    intervals; ``chi2``/``p_value``: Pearson's chi-square test that all positions win equally
    often. The first dealer is drawn at random ([A5]), so a position effect is not confounded
    with the policies' seats."""
    g = prep(games).filter(pl.col("winner").is_not_null())
    df = collect(
        g.with_columns(
            (
                (pl.col("winner").cast(pl.Int64) - pl.col("first_dealer").cast(pl.Int64) - 1)
                % pl.col("n_players").cast(pl.Int64)
            ).alias("position")
        )
        .group_by("variant", "n_players", "position")
        .agg(pl.len().alias("wins"))
    )
    variants = variants_of(prep(games))
    out = []
    for (v, n), part in df.group_by(["variant", "n_players"], maintain_order=True):
        n = int(n)
        counts = {int(p): int(w) for p, w in zip(part["position"], part["wins"], strict=True)}
        c = [counts.get(k, 0) for k in range(n)]
        total = sum(c)
        chi2, p = chisquare_equal(c)
        for k in range(n):
            lo, hi = game_share(c[k], total, level)
            out.append(
                {
                    "variant": v,
                    "n_players": n,
                    "position": k,
                    "label": _position_label(k, n),
                    "wins": c[k],
                    "games": total,
                    "share": c[k] / total if total else math.nan,
                    "ci_low": lo,
                    "ci_high": hi,
                    "expected": 1 / n,
                    "chi2": chi2,
                    "p_value": p,
                }
            )
    if not out:
        return pl.DataFrame(
            schema={
                "variant": pl.String,
                "n_players": pl.Int64,
                "position": pl.Int64,
                "label": pl.String,
                "wins": pl.Int64,
                "games": pl.Int64,
                "share": pl.Float64,
                "ci_low": pl.Float64,
                "ci_high": pl.Float64,
                "expected": pl.Float64,
                "chi2": pl.Float64,
                "p_value": pl.Float64,
            }
        )
    return order_variants(pl.DataFrame(out), variants)


def skill_gap(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Chance vs skill: for each policy at the table, the share of finished games won by one of
    its seats (interval by game) against its fair share ``seats_per_game / n_players``;
    ``edge`` = share -
    fair share, ``p_value``: exact binomial test of share = fair share. ``per_seat`` divides by
    the policy's seats. With one policy at every seat there is nothing to compare (one row,
    share 1)."""
    s = _seat_rounds(games, seats).filter(pl.col("winner").is_not_null())
    per = collect(
        s.group_by("variant", "policy").agg(
            pl.len().alias("seat_games"),
            (pl.col("winner") == pl.col("seat")).sum().alias("wins"),
            pl.col("n_players").first().alias("n_players"),
        )
    ).sort("variant", "policy")
    df = per
    if df.height == 0:
        return df
    tot = collect(
        prep(games)
        .filter(pl.col("winner").is_not_null())
        .group_by("variant")
        .agg(pl.len().alias("finished"))
    )
    df = df.join(tot, on="variant", maintain_order="left").with_columns(
        (pl.col("seat_games") / pl.col("finished")).alias("seats_per_game")
    )
    df = df.with_columns(
        (pl.col("wins") / pl.col("finished")).alias("share"),
        (pl.col("seats_per_game") / pl.col("n_players")).alias("fair_share"),
    )
    df = add_game_share(df, "wins", "finished", level)
    pv = []
    for w, n, f in zip(df["wins"], df["finished"], df["fair_share"], strict=True):
        pv.append(float(_st.binomtest(int(w), int(n), min(max(float(f), 0.0), 1.0)).pvalue))
    df = df.with_columns(
        pl.Series("p_value", pv),
        (pl.col("share") - pl.col("fair_share")).alias("edge"),
        (pl.col("share") / pl.col("seats_per_game")).alias("per_seat"),
    )
    return order_variants(
        df.select(
            "variant",
            "policy",
            "seats_per_game",
            "finished",
            "wins",
            "share",
            "ci_low",
            "ci_high",
            "fair_share",
            "edge",
            "per_seat",
            "p_value",
        ),
        variants_of(prep(games)),
    )


# ------------------------------------------------------------------ per game (pairing)
M_WON_BY = "games won by {policy}"


def _game_frame(games, seats) -> pl.LazyFrame:
    """The games table with each game's seat totals: rebuys, eliminations for good, player-
    rounds at risk, the first elimination, the winner's policy, and the seats of each policy
    (``_seats|POLICY``)."""
    g = with_seed(prep(games))
    s = prep(seats)
    win = s.join(
        g.select(*KEY, "winner", "rounds"), on=KEY, how="inner", maintain_order="left"
    ).with_columns(pl.coalesce("eliminated_round", "rounds").alias("last"))
    sa = win.group_by(KEY).agg(
        pl.col("rebuys").cast(pl.Int64).sum().alias("_rebuys"),
        pl.col("eliminated_round").is_not_null().sum().cast(pl.Int64).alias("_out"),
        pl.col("last").cast(pl.Int64).sum().alias("_at_risk"),
        pl.col("eliminated_round").min().alias("_first"),
        pl.col("policy").filter(pl.col("seat") == pl.col("winner")).first().alias("_wpol"),
        *[(pl.col("policy") == p).sum().alias(f"_seats|{p}") for p in _policies(seats)],
    )
    return g.join(sa, on=KEY, how="left", maintain_order="left")


def _policies(seats) -> list[str]:
    return collect(prep(seats).select(pl.col("policy").unique(maintain_order=True)))[
        "policy"
    ].to_list()


def figures(policies=()) -> list[Figure]:
    """Loba's headline figures as ratios of per-game sums (:class:`analysis.estimate.Figure`),
    over :func:`_game_frame`: e.g. void rounds (y) over rounds (x), eliminations over
    player-rounds at risk, wins of the dealer's left over finished games, and ``games won by
    POLICY`` for every policy seated (against its fair share, its seats over the players)."""
    f64 = pl.Float64
    one = pl.lit(1.0, dtype=f64)
    fin = pl.col("winner").is_not_null().cast(f64)
    pos = (pl.col("winner").cast(pl.Int64) - pl.col("first_dealer").cast(pl.Int64) - 1) % pl.col(
        "n_players"
    ).cast(pl.Int64)
    rebuys, out = pl.col("_rebuys").fill_null(0), pl.col("_out").fill_null(0)
    figs = [
        Figure(M_ROUNDS, "rounds", pl.col("rounds"), one),
        Figure(M_TURNS, "turns", pl.col("turns"), one),
        Figure(M_TURNS_PER_ROUND, "turns", pl.col("turns") / pl.col("rounds"), one),
        Figure(M_VOID_SHARE, "share", pl.col("void_rounds"), pl.col("rounds"), "share", True),
        Figure(
            M_BONUS,
            "share",
            pl.col("one_turn_bonuses"),
            pl.col("rounds") - pl.col("void_rounds"),
            "share",
            True,
        ),  # fmt: skip
        Figure(M_RESHUFFLES, "rebuilds", pl.col("reshuffles"), one, "mean", True),
        Figure(M_POT, "stakes", pl.col("pot"), one),
        Figure(M_UNFINISHED, "share", pl.col("winner").is_null(), one, "share", True),
        Figure(M_REBUYS, "rebuys", rebuys, one, "mean", True),
        Figure(
            M_FIRST_ELIM, "round", pl.col("_first").fill_null(0), pl.col("_first").is_not_null()
        ),  # fmt: skip
        Figure(M_REBOUGHT, "share", rebuys, rebuys + out, "share", True),
        Figure(M_HAZARD, "share", out, pl.col("_at_risk").fill_null(0), "share", True),
        Figure(
            M_DEALER_LEFT,
            "share",
            (pos == 0).fill_null(False),
            fin,
            "share",
            True,
            1 / pl.col("n_players").cast(f64),
        ),  # fmt: skip
    ]
    for p in policies:
        figs.append(
            Figure(M_WON_BY.format(policy=p), "share", (pl.col("_wpol") == p).fill_null(False),
                   fin, "share", True, pl.col(f"_seats|{p}").cast(f64) / pl.col("n_players"))
        )  # fmt: skip
    return figs


def per_game(games, seats) -> pl.DataFrame:
    """Each game's share of every key metric, so that runs of the same seeds can be compared
    game by game (:func:`analysis.comparison.compare`): one row per game (``variant``, ``run``,
    ``seed``, ``game``) and, for each figure of :func:`figures`, ``"<metric>|y"`` and
    ``"<metric>|x"`` with ``value = sum(y) / sum(x)`` over a variant's games."""
    return collect(_per_game(games, seats))


def _per_game(games, seats) -> pl.LazyFrame:
    figs = figures(_policies(seats))
    return _game_frame(games, seats).select(
        "variant", "run", "seed", "game", *per_game_columns(figs)
    )


M_POSITION_SPREAD = "position spread: best - worst win share by position from the dealer"


# ------------------------------------------------------------------ all at once


def key_metrics(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """The headline figures of each variant in one long table (metric, unit, kind, value, 95%
    interval, se, n games, units, k events, method, reference): game shape, rebuys, first
    elimination, elimination risk, the dealer's-left advantage and the seat-equality test, and
    each policy's share of wins where policies mix. Every interval by game
    (:mod:`analysis.estimate`)."""
    policies = _policies(seats)
    lf, figs = with_bad_answers(games, seats, _per_game(games, seats), figures(policies))
    sa = seat_advantage(games, level)
    tests = [
        test_row(r["variant"], M_SEAT_P, r["p_value"], r["games"])
        for r in sa.filter(pl.col("position") == 0).iter_rows(named=True)
    ]
    tests += seat_spreads(games, level)
    for (v,), part in sa.group_by("variant", maintain_order=True):
        part = part.sort("position")
        tests.append(spread_row(v, M_POSITION_SPREAD, part["wins"].to_list(),
                                part["label"].to_list(), level))  # fmt: skip
    df = long_table(lf, figs, tests, variants_of(prep(games)), level)
    seated = collect(prep(seats).group_by("variant").agg(pl.col("policy").n_unique().alias("_np")))
    mixed = set(seated.filter(pl.col("_np") > 1)["variant"].to_list())
    won = pl.col("metric").str.starts_with(M_WON_BY.format(policy=""))
    return df.filter(~won | (pl.col("variant").is_in(list(mixed)) & (pl.col("units") > 0)))


M_VOID_ROUNDS = "void rounds per game"


def summary_figures(games, seats):
    """Loba's run summary (:mod:`sim.loba.summary`: what ``loba simulate`` prints,
    :meth:`sim.results.Results.summary`) as figures over :func:`_game_frame`:
    ``(per-game frame, {summary key: (Figure, total)}, seat figures)``. Each is the figure of
    :func:`figures` of the same quantity; the run's void rounds, a total, are ``void rounds
    per game`` times the games (``total``). The seats' win shares: :func:`seat_share_figures`."""
    figs = {f.name: f for f in figures()}
    void = Figure(M_VOID_ROUNDS, "rounds", pl.col("void_rounds"), pl.lit(1.0), "mean", True)
    table = {
        "unfinished": (figs[M_UNFINISHED], True),
        "mean_rounds": (figs[M_ROUNDS], False),
        "mean_turns": (figs[M_TURNS], False),
        "rebuys_per_game": (figs[M_REBUYS], False),
        "one_turn_bonus_rate": (figs[M_BONUS], False),
        "void_rounds": (void, True),
        "mean_pot": (figs[M_POT], False),
    }
    n = int(collect(prep(games).select(pl.col("n_players").max())).item() or 0)
    return _game_frame(games, seats), table, seat_share_figures(n)

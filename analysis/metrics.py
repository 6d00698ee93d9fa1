"""Metrics over the ``games`` / ``seats`` / ``rounds`` tables, each with its confidence interval.

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

from .io import collect
from .stats import LEVEL, chisquare_equal, t_ci, wilson

KEY = ["variant", "run", "game"]

# metric names of key_metrics() (stable: compare() and the report match on them)
M_ROUNDS = "rounds per game"
M_TURNS = "turns per game"
M_TURNS_PER_ROUND = "turns per round"
M_VOID_SHARE = "void rounds (share of rounds)"
M_BONUS = "one-turn bonus (share of played rounds)"
M_RESHUFFLES = "stock rebuilds per game"
M_POT = "pot per game"
M_UNFINISHED = "unfinished games (share)"
M_REBUYS = "rebuys per game"
M_REBOUGHT = "busts that rebought (share)"
M_FIRST_ELIM = "round of the first elimination"
M_HAZARD = "elimination risk per player-round"
M_DEALER_LEFT = "win share of the dealer's left (first round)"
M_SEAT_P = "all seats equal: chi-square p-value"
M_NET_SEAT = "net result, seat {seat} ({policy})"


def _lazy(x) -> pl.LazyFrame:
    return x.lazy() if isinstance(x, pl.DataFrame) else x


def _prep(x) -> pl.LazyFrame:
    lf = _lazy(x)
    names = lf.collect_schema().names()
    add = []
    if "variant" not in names:
        add.append(pl.lit("run").alias("variant"))
    if "run" not in names:
        add.append(pl.lit(0, dtype=pl.Int32).alias("run"))
    schema = lf.collect_schema()
    for c in ("policy", "rules_id", "status", "variant"):
        if c in schema and schema[c] != pl.String:
            add.append(pl.col(c).cast(pl.String))
    return lf.with_columns(add) if add else lf


def _order(df: pl.DataFrame, variants: list[str]) -> pl.DataFrame:
    """Sort rows by variant in first-seen order of ``variants`` (stable otherwise)."""
    rank = {v: i for i, v in enumerate(variants)}
    return (
        df.with_columns(pl.col("variant").replace_strict(rank, default=len(rank)).alias("_v"))
        .sort("_v", maintain_order=True)
        .drop("_v")
    )


def _variants(lf: pl.LazyFrame) -> list[str]:
    return collect(lf.select(pl.col("variant").unique(maintain_order=True)))["variant"].to_list()


def add_wilson(df: pl.DataFrame, k: str, n: str, level: float = LEVEL) -> pl.DataFrame:
    """Add ``ci_low``/``ci_high`` (Wilson) for the proportion ``k / n`` of every row."""
    lo, hi = [], []
    for kk, nn in zip(df[k].to_list(), df[n].to_list(), strict=True):
        a, b = wilson(int(kk or 0), int(nn or 0), level)
        lo.append(a)
        hi.append(b)
    return df.with_columns(
        pl.Series("ci_low", lo, dtype=pl.Float64), pl.Series("ci_high", hi, dtype=pl.Float64)
    )


def add_t(
    df: pl.DataFrame, mean: str, sd: str, n: str, prefix: str = "", level: float = LEVEL
) -> pl.DataFrame:
    """Add ``{prefix}ci_low``/``{prefix}ci_high`` (Student t) for the mean of every row."""
    lo, hi = [], []
    for m, s, k in zip(df[mean].to_list(), df[sd].to_list(), df[n].to_list(), strict=True):
        a, b = t_ci(m, s if s is not None else math.nan, int(k or 0), level)
        lo.append(a)
        hi.append(b)
    return df.with_columns(
        pl.Series(f"{prefix}ci_low", lo, dtype=pl.Float64),
        pl.Series(f"{prefix}ci_high", hi, dtype=pl.Float64),
    )


def _seat_rounds(games, seats) -> pl.LazyFrame:
    g = _prep(games).select("variant", "run", "game", "rounds", "winner", "n_players")
    return _prep(seats).join(g, on=KEY, how="inner", maintain_order="left")


# ------------------------------------------------------------------ elimination
def elimination_hazard(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Risk of elimination for good in each round, for a player still in at its start.

    ``at_risk`` = players whose game reached round r and who were not out before it;
    ``eliminated`` = players eliminated for good in round r; ``hazard`` = their ratio, with a
    Wilson interval. Needs only the games and seats tables (not ``--rounds``).
    """
    s = _seat_rounds(games, seats).with_columns(
        pl.coalesce("eliminated_round", "rounds").alias("last")
    )
    last = collect(s.group_by("variant", "last").agg(pl.len().alias("n_last")))
    elim = collect(
        s.filter(pl.col("eliminated_round").is_not_null())
        .group_by("variant", pl.col("eliminated_round").alias("round"))
        .agg(pl.len().alias("eliminated"))
    )
    variants = _variants(_prep(games))
    frames = []
    for v in variants:
        lv = last.filter(pl.col("variant") == v)
        if lv.height == 0:
            continue
        top = int(lv["last"].max())
        grid = pl.DataFrame({"variant": [v] * top, "round": list(range(1, top + 1))}).with_columns(
            pl.col("round").cast(pl.Int64)
        )
        frames.append(grid)
    if not frames:
        return pl.DataFrame(
            schema={
                "variant": pl.String,
                "round": pl.Int64,
                "at_risk": pl.Int64,
                "eliminated": pl.Int64,
                "hazard": pl.Float64,
                "ci_low": pl.Float64,
                "ci_high": pl.Float64,
            }
        )
    grid = pl.concat(frames)
    out = (
        grid.join(
            last.select("variant", pl.col("last").cast(pl.Int64).alias("round"), "n_last"),
            on=["variant", "round"],
            how="left",
            maintain_order="left",
        )
        .join(
            elim.with_columns(pl.col("round").cast(pl.Int64)),
            on=["variant", "round"],
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col("n_last", "eliminated").fill_null(0).cast(pl.Int64))
        .sort("variant", "round")
        .with_columns(pl.col("n_last").cum_sum(reverse=True).over("variant").alias("at_risk"))
        .with_columns((pl.col("eliminated") / pl.col("at_risk")).alias("hazard"))
        .select("variant", "round", "at_risk", "eliminated", "hazard")
    )
    return _order(add_wilson(out, "eliminated", "at_risk", level), variants)


def bust_hazard(rounds, level: float = LEVEL) -> pl.DataFrame:
    """From the ``rounds`` table: per round number, the share of players in the round who
    busted (reached the elimination score), and how those busts ended (Wilson intervals)."""
    r = _prep(rounds).filter(pl.col("status") != "eliminated")
    df = collect(
        r.group_by("variant", "round").agg(
            pl.len().alias("in_round"),
            pl.col("status").is_in(["over", "rebought"]).sum().alias("busts"),
            (pl.col("status") == "rebought").sum().alias("rebought"),
            (pl.col("status") == "over").sum().alias("out_for_good"),
        )
    ).sort("variant", "round")
    df = df.with_columns((pl.col("busts") / pl.col("in_round")).alias("bust_rate"))
    return _order(add_wilson(df, "busts", "in_round", level), _variants(_prep(rounds)))


def survival(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Share of the players who sat down that are still in after round r (r = 0, 1, ...).

    The winner of a finished game stays in for ever, so the curve levels off at 1/n. Also
    ``games_running``: share of games not yet over after round r. Wilson intervals (seats of one
    game are dependent; the interval treats them as independent draws).
    """
    s = _seat_rounds(games, seats)
    players = collect(s.group_by("variant").agg(pl.len().alias("players")))
    elim = collect(
        s.filter(pl.col("eliminated_round").is_not_null())
        .group_by("variant", pl.col("eliminated_round").cast(pl.Int64).alias("round"))
        .agg(pl.len().alias("out"))
    )
    ends = collect(
        _prep(games)
        .group_by("variant", pl.col("rounds").cast(pl.Int64).alias("round"))
        .agg(pl.len().alias("ended"))
    )
    ngames = collect(_prep(games).group_by("variant").agg(pl.len().alias("games")))
    variants = _variants(_prep(games))
    rows = []
    for v in variants:
        p = players.filter(pl.col("variant") == v)["players"]
        if p.len() == 0:
            continue
        top = ends.filter(pl.col("variant") == v)["round"].max()
        rows.append(pl.DataFrame({"variant": [v] * (top + 1), "round": list(range(top + 1))}))
    grid = pl.concat(rows).with_columns(pl.col("round").cast(pl.Int64))
    out = (
        grid.join(elim, on=["variant", "round"], how="left", maintain_order="left")
        .join(ends, on=["variant", "round"], how="left", maintain_order="left")
        .join(players, on="variant", maintain_order="left")
        .join(ngames, on="variant", maintain_order="left")
        .with_columns(pl.col("out", "ended").fill_null(0))
        .sort("variant", "round")
        .with_columns(
            (pl.col("players") - pl.col("out").cum_sum().over("variant")).alias("still_in"),
            (pl.col("games") - pl.col("ended").cum_sum().over("variant")).alias("running"),
        )
        .with_columns(
            (pl.col("still_in") / pl.col("players")).alias("share"),
            (pl.col("running") / pl.col("games")).alias("games_running"),
        )
        .select("variant", "round", "players", "still_in", "share", "games_running")
    )
    return _order(add_wilson(out, "still_in", "players", level), variants)


def first_elimination(games, seats) -> pl.DataFrame:
    """Distribution of the round of a game's first elimination for good: per round, games and
    share of the games that had an elimination, and the cumulative share."""
    s = _prep(seats)
    first = s.group_by(KEY).agg(pl.col("eliminated_round").min().alias("first"))
    df = collect(
        first.filter(pl.col("first").is_not_null())
        .group_by("variant", pl.col("first").cast(pl.Int64).alias("round"))
        .agg(pl.len().alias("games"))
    ).sort("variant", "round")
    df = df.with_columns(
        (pl.col("games") / pl.col("games").sum().over("variant")).alias("share")
    ).with_columns(pl.col("share").cum_sum().over("variant").alias("cum_share"))
    return _order(df, _variants(_prep(games)))


def first_elimination_summary(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Mean round of the first elimination (t interval), its median, and how many games had
    none (unfinished games that never eliminated anyone)."""
    s = _prep(seats)
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
    return _order(add_t(df, "mean", "sd", "n", level=level), _variants(_prep(games)))


def _group_table(games, seats, by: list[str], level: float) -> pl.DataFrame:
    s = _seat_rounds(games, seats).with_columns(
        (pl.col("winner") == pl.col("seat")).fill_null(False).alias("is_win"),
        pl.col("eliminated_round").is_not_null().alias("is_out"),
        pl.col("winner").is_not_null().alias("finished"),
    )
    df = collect(
        s.group_by(by).agg(
            pl.len().alias("games"),
            pl.col("finished").sum().alias("finished"),
            pl.col("is_win").sum().alias("wins"),
            pl.col("is_out").sum().alias("eliminated"),
            pl.col("eliminated_round").cast(pl.Float64).mean().alias("elim_round"),
            pl.col("eliminated_round").cast(pl.Float64).std().alias("_esd"),
            pl.col("rebuys").cast(pl.Float64).mean().alias("rebuys"),
            pl.col("rebuys").cast(pl.Float64).std().alias("_rsd"),
            pl.col("net").cast(pl.Float64).mean().alias("net"),
            pl.col("net").cast(pl.Float64).std().alias("_nsd"),
        )
    ).sort(by)
    df = df.with_columns(
        (pl.col("wins") / pl.col("finished")).alias("win_rate"),
        (pl.col("eliminated") / pl.col("games")).alias("elim_rate"),
    )
    df = add_wilson(df, "wins", "finished", level).rename(
        {"ci_low": "win_low", "ci_high": "win_high"}
    )
    df = add_wilson(df, "eliminated", "games", level).rename(
        {"ci_low": "elim_low", "ci_high": "elim_high"}
    )
    df = add_t(df, "elim_round", "_esd", "eliminated", "elim_round_", level)
    df = add_t(df, "rebuys", "_rsd", "games", "rebuys_", level)
    df = add_t(df, "net", "_nsd", "games", "net_", level)
    cols = [
        *by,
        "games",
        "finished",
        "wins",
        "win_rate",
        "win_low",
        "win_high",
        "eliminated",
        "elim_rate",
        "elim_low",
        "elim_high",
        "elim_round",
        "elim_round_ci_low",
        "elim_round_ci_high",
        "rebuys",
        "rebuys_ci_low",
        "rebuys_ci_high",
        "net",
        "net_ci_low",
        "net_ci_high",
    ]
    return _order(df.select(cols), _variants(_prep(games)))


def seat_table(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Per seat: win rate over finished games and elimination rate over all games (Wilson),
    mean elimination round, rebuys per game and net result in stakes (t intervals)."""
    return _group_table(games, seats, ["variant", "seat", "policy"], level)


def policy_table(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """As :func:`seat_table`, pooled over the seats that play the same policy (the unit is a
    seat in a game; Wilson intervals treat those as independent, which is conservative because
    seats of one game compete for one win)."""
    return _group_table(games, seats, ["variant", "policy"], level)


def rebuy_outcomes(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """How busts end, per policy and overall (``policy == "all"``): ``busts`` = rebuys +
    eliminations for good; ``share_rebought`` with a Wilson interval."""
    s = _seat_rounds(games, seats)
    aggs = [
        pl.col("rebuys").cast(pl.Int64).sum().alias("rebought"),
        pl.col("eliminated_round").is_not_null().sum().cast(pl.Int64).alias("out_for_good"),
    ]
    per = collect(s.group_by("variant", "policy").agg(aggs))
    tot = collect(s.group_by("variant").agg(aggs)).with_columns(pl.lit("all").alias("policy"))
    df = pl.concat([per, tot.select(per.columns)]).with_columns(
        (pl.col("rebought") + pl.col("out_for_good")).alias("busts")
    )
    df = df.with_columns((pl.col("rebought") / pl.col("busts")).alias("share_rebought"))
    df = add_wilson(df, "rebought", "busts", level)
    df = df.sort("variant", pl.col("policy") == "all", "policy")
    return _order(
        df.select(
            "variant",
            "policy",
            "busts",
            "rebought",
            "out_for_good",
            "share_rebought",
            "ci_low",
            "ci_high",
        ),
        _variants(_prep(games)),
    )


# ------------------------------------------------------------------ game shape
_LONG = {
    "variant": pl.String,
    "metric": pl.String,
    "unit": pl.String,
    "kind": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n": pl.Int64,
    "k": pl.Float64,
    "sd": pl.Float64,
    "reference": pl.Float64,
}


def _mean_row(v, metric, unit, mean, sd, n, level):
    lo, hi = t_ci(mean, sd, n, level)
    if lo is not None and not math.isnan(lo):
        lo = max(lo, 0.0)  # every mean here is of a count: the interval stops at 0
    return {
        "variant": v,
        "metric": metric,
        "unit": unit,
        "kind": "mean",
        "value": mean,
        "ci_low": lo,
        "ci_high": hi,
        "n": n,
        "k": None,
        "sd": sd,
        "reference": None,
    }


def _share_row(v, metric, unit, k, n, level, reference=None):
    lo, hi = wilson(int(k), int(n), level)
    return {
        "variant": v,
        "metric": metric,
        "unit": unit,
        "kind": "share",
        "value": (k / n) if n else math.nan,
        "ci_low": lo,
        "ci_high": hi,
        "n": int(n),
        "k": float(k),
        "sd": None,
        "reference": reference,
    }


def game_shape(games, seats=None, level: float = LEVEL) -> pl.DataFrame:
    """Length and texture of games, one row per metric (long format): rounds, turns, turns per
    round, stock rebuilds, pot and rebuys per game (means, t intervals); void rounds among all
    rounds, one-turn bonuses among played rounds and unfinished games (shares, Wilson)."""
    g = _prep(games)
    f64 = pl.Float64
    agg = collect(
        g.group_by("variant").agg(
            pl.len().alias("n"),
            pl.col("rounds").cast(f64).mean().alias("rounds"),
            pl.col("rounds").cast(f64).std().alias("rounds_sd"),
            pl.col("turns").cast(f64).mean().alias("turns"),
            pl.col("turns").cast(f64).std().alias("turns_sd"),
            (pl.col("turns") / pl.col("rounds")).cast(f64).mean().alias("tpr"),
            (pl.col("turns") / pl.col("rounds")).cast(f64).std().alias("tpr_sd"),
            pl.col("reshuffles").cast(f64).mean().alias("resh"),
            pl.col("reshuffles").cast(f64).std().alias("resh_sd"),
            pl.col("pot").cast(f64).mean().alias("pot"),
            pl.col("pot").cast(f64).std().alias("pot_sd"),
            pl.col("rounds").cast(pl.Int64).sum().alias("rounds_total"),
            pl.col("void_rounds").cast(pl.Int64).sum().alias("voids"),
            pl.col("one_turn_bonuses").cast(pl.Int64).sum().alias("bonuses"),
            pl.col("winner").is_null().sum().cast(pl.Int64).alias("unfinished"),
        )
    )
    reb = None
    if seats is not None:
        per_game = _prep(seats).group_by(KEY).agg(pl.col("rebuys").cast(pl.Int64).sum().alias("r"))
        reb = collect(
            per_game.group_by("variant").agg(
                pl.col("r").cast(f64).mean().alias("m"), pl.col("r").cast(f64).std().alias("sd")
            )
        )
    rows = []
    for a in agg.iter_rows(named=True):
        v, n = a["variant"], a["n"]
        rows.append(_mean_row(v, M_ROUNDS, "rounds", a["rounds"], a["rounds_sd"], n, level))
        rows.append(_mean_row(v, M_TURNS, "turns", a["turns"], a["turns_sd"], n, level))
        rows.append(_mean_row(v, M_TURNS_PER_ROUND, "turns", a["tpr"], a["tpr_sd"], n, level))
        rows.append(_share_row(v, M_VOID_SHARE, "share", a["voids"], a["rounds_total"], level))
        played = a["rounds_total"] - a["voids"]
        rows.append(_share_row(v, M_BONUS, "share", a["bonuses"], played, level))
        rows.append(_mean_row(v, M_RESHUFFLES, "rebuilds", a["resh"], a["resh_sd"], n, level))
        rows.append(_mean_row(v, M_POT, "stakes", a["pot"], a["pot_sd"], n, level))
        rows.append(_share_row(v, M_UNFINISHED, "share", a["unfinished"], n, level))
        if reb is not None:
            r = reb.filter(pl.col("variant") == v)
            if r.height:
                rows.append(_mean_row(v, M_REBUYS, "rebuys", r["m"][0], r["sd"][0], n, level))
    df = pl.DataFrame(rows, schema=_LONG)
    return _order(df, _variants(g))


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
    left (who plays first, [A8]), position n-1 the first dealer. Finished games only; Wilson
    intervals; ``chi2``/``p_value``: Pearson's chi-square test that all positions win equally
    often. The first dealer is drawn at random ([A5]), so a position effect is not confounded
    with the policies' seats."""
    g = _prep(games).filter(pl.col("winner").is_not_null())
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
    variants = _variants(_prep(games))
    out = []
    for (v, n), part in df.group_by(["variant", "n_players"], maintain_order=True):
        n = int(n)
        counts = {int(p): int(w) for p, w in zip(part["position"], part["wins"], strict=True)}
        c = [counts.get(k, 0) for k in range(n)]
        total = sum(c)
        chi2, p = chisquare_equal(c)
        for k in range(n):
            lo, hi = wilson(c[k], total, level)
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
    return _order(pl.DataFrame(out), variants)


def skill_gap(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """Chance vs skill: for each policy at the table, the share of finished games won by one of
    its seats (Wilson) against its fair share ``seats_per_game / n_players``; ``edge`` = share -
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
        _prep(games)
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
    df = add_wilson(df, "wins", "finished", level)
    pv = []
    for w, n, f in zip(df["wins"], df["finished"], df["fair_share"], strict=True):
        pv.append(float(_st.binomtest(int(w), int(n), min(max(float(f), 0.0), 1.0)).pvalue))
    df = df.with_columns(
        pl.Series("p_value", pv),
        (pl.col("share") - pl.col("fair_share")).alias("edge"),
        (pl.col("share") / pl.col("seats_per_game")).alias("per_seat"),
    )
    return _order(
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
        _variants(_prep(games)),
    )


# ------------------------------------------------------------------ per game (pairing)
M_WON_BY = "games won by {policy}"

PAIRED_KEY = ["seed", "game"]


def per_game(games, seats) -> pl.DataFrame:
    """Each game's share of every key metric that is a mean or a ratio over games, so that
    runs of the same seeds can be compared game by game (:func:`analysis.compare.compare`).

    One row per game (``variant``, ``run``, ``seed``, ``game``) and, for each such metric of
    :func:`key_metrics`, two columns ``"<metric>|y"`` and ``"<metric>|x"`` with
    ``value = sum(y) / sum(x)`` over a variant's games (``x = 1`` for a mean per game): e.g.
    void rounds (y) over rounds (x), eliminations over player-rounds at risk, wins of the
    dealer's left over finished games, and ``games won by POLICY`` for every policy seated.
    """
    g = with_seed(_prep(games))
    s = _prep(seats)
    f64 = pl.Float64
    win = s.join(
        g.select(*KEY, "winner", "rounds"), on=KEY, how="inner", maintain_order="left"
    ).with_columns(pl.coalesce("eliminated_round", "rounds").alias("last"))
    sa = win.group_by(KEY).agg(
        pl.col("rebuys").cast(pl.Int64).sum().alias("_rebuys"),
        pl.col("eliminated_round").is_not_null().sum().cast(pl.Int64).alias("_out"),
        pl.col("last").cast(pl.Int64).sum().alias("_at_risk"),
        pl.col("eliminated_round").min().alias("_first"),
        pl.col("policy").filter(pl.col("seat") == pl.col("winner")).first().alias("_wpol"),
    )
    policies = collect(s.select(pl.col("policy").unique(maintain_order=True)))["policy"]
    df = collect(g.join(sa, on=KEY, how="left", maintain_order="left"))
    one = pl.lit(1.0, dtype=f64)
    fin = pl.col("winner").is_not_null().cast(f64)
    pos = (pl.col("winner").cast(pl.Int64) - pl.col("first_dealer").cast(pl.Int64) - 1) % pl.col(
        "n_players"
    ).cast(pl.Int64)
    cols = {
        M_ROUNDS: (pl.col("rounds").cast(f64), one),
        M_TURNS: (pl.col("turns").cast(f64), one),
        M_TURNS_PER_ROUND: ((pl.col("turns") / pl.col("rounds")).cast(f64), one),
        M_VOID_SHARE: (pl.col("void_rounds").cast(f64), pl.col("rounds").cast(f64)),
        M_BONUS: (
            pl.col("one_turn_bonuses").cast(f64),
            (pl.col("rounds") - pl.col("void_rounds")).cast(f64),
        ),
        M_RESHUFFLES: (pl.col("reshuffles").cast(f64), one),
        M_POT: (pl.col("pot").cast(f64), one),
        M_UNFINISHED: (pl.col("winner").is_null().cast(f64), one),
        M_REBUYS: (pl.col("_rebuys").fill_null(0).cast(f64), one),
        M_FIRST_ELIM: (
            pl.col("_first").fill_null(0).cast(f64),
            pl.col("_first").is_not_null().cast(f64),
        ),
        M_REBOUGHT: (
            pl.col("_rebuys").fill_null(0).cast(f64),
            (pl.col("_rebuys") + pl.col("_out")).fill_null(0).cast(f64),
        ),
        M_HAZARD: (
            pl.col("_out").fill_null(0).cast(f64),
            pl.col("_at_risk").fill_null(0).cast(f64),
        ),
        M_DEALER_LEFT: ((pos == 0).fill_null(False).cast(f64), fin),
    }
    for pol in policies.to_list():
        cols[M_WON_BY.format(policy=pol)] = (
            (pl.col("_wpol") == pol).fill_null(False).cast(f64),
            fin,
        )
    return per_game_frame(df, cols)


def with_seed(g: pl.LazyFrame) -> pl.LazyFrame:
    """``g`` with a ``seed`` column (0 where the table has none: literal frames in tests)."""
    if "seed" in g.collect_schema().names():
        return g
    return g.with_columns(pl.lit(0, dtype=pl.Int64).alias("seed"))


def per_game_frame(df: pl.DataFrame, cols: dict[str, tuple[pl.Expr, pl.Expr]]) -> pl.DataFrame:
    """One row per game of ``df`` (``variant``, ``run``, ``seed``, ``game``) with the columns
    ``"<metric>|y"`` and ``"<metric>|x"`` (float) of every ``metric -> (y, x)`` in ``cols``."""
    exprs = []
    for m, (y, x) in cols.items():
        exprs += [y.cast(pl.Float64).alias(f"{m}|y"), x.cast(pl.Float64).alias(f"{m}|x")]
    return df.select("variant", "run", "seed", "game", *exprs)


# ------------------------------------------------------------------ all at once
def key_metrics(games, seats, level: float = LEVEL) -> pl.DataFrame:
    """The headline figures of each variant in one long table (metric, value, 95% interval,
    n, unit): game shape, rebuys, first elimination, elimination risk, the dealer's-left
    advantage and the seat-equality test, and each policy's share of wins where policies mix."""
    shape = game_shape(games, seats, level)
    rows = shape.to_dicts()
    fe = first_elimination_summary(games, seats, level)
    for r in fe.iter_rows(named=True):
        v = r["variant"]
        rows.append(_mean_row(v, M_FIRST_ELIM, "round", r["mean"], r["sd"], r["n"], level))
    reb = rebuy_outcomes(games, seats, level).filter(pl.col("policy") == "all")
    for r in reb.iter_rows(named=True):
        rows.append(_share_row(r["variant"], M_REBOUGHT, "share", r["rebought"], r["busts"], level))
    hz = elimination_hazard(games, seats, level)
    tot = hz.group_by("variant", maintain_order=True).agg(
        pl.col("eliminated").sum(), pl.col("at_risk").sum()
    )
    for r in tot.iter_rows(named=True):
        rows.append(
            _share_row(r["variant"], M_HAZARD, "share", r["eliminated"], r["at_risk"], level)
        )
    sa = seat_advantage(games, level)
    for r in sa.filter(pl.col("position") == 0).iter_rows(named=True):
        rows.append(
            _share_row(
                r["variant"], M_DEALER_LEFT, "share", r["wins"], r["games"], level, r["expected"]
            )
        )
        rows.append(
            {
                "variant": r["variant"],
                "metric": M_SEAT_P,
                "unit": "p",
                "kind": "test",
                "value": r["p_value"],
                "ci_low": None,
                "ci_high": None,
                "n": r["games"],
                "k": None,
                "sd": None,
                "reference": None,
            }
        )
    sg = skill_gap(games, seats, level)
    multi = sg.group_by("variant").agg(pl.len().alias("np")).filter(pl.col("np") > 1)
    for r in sg.join(multi, on="variant", maintain_order="left").iter_rows(named=True):
        rows.append(
            _share_row(
                r["variant"],
                M_WON_BY.format(policy=r["policy"]),
                "share",
                r["wins"],
                r["finished"],
                level,
                r["fair_share"],
            )
        )
    df = pl.DataFrame(rows, schema=_LONG)
    order = {m: i for i, m in enumerate(df["metric"].unique(maintain_order=True).to_list())}
    df = df.with_columns(pl.col("metric").replace_strict(order, default=0).alias("_m")).sort(
        "_m", maintain_order=True
    )
    return _order(df.drop("_m"), _variants(_prep(games)))


def game_metrics(games, seats, spec, level: float = LEVEL) -> pl.DataFrame:
    """The figures any game's run has, from its table declaration alone (for games whose own
    metrics the analysis does not know yet, e.g. Three-Player Moon): the unfinished share,
    each seat's win share with a Wilson interval and the chi-square test of equal seats, and
    the mean of every count column (int16-int64: int8 columns are seats, places and flags) of
    the games and seats tables with a t interval. Same columns as :func:`key_metrics`."""
    g = collect(_prep(games), "the games table")
    s = collect(_prep(seats), "the seats table")
    counts = {
        t.name: [
            c.name
            for c in t.columns
            if c.from_kernel and c.dtype in ("int16", "int32", "int64") and c.null_below is None
        ]
        for t in spec.main_tables
    }
    rows = []
    for v in _variants(_lazy(g)):
        gv = g.filter(pl.col("variant") == v)
        n = gv.height
        done = gv.filter(pl.col("winner").is_not_null())
        rows.append(_share_row(v, M_UNFINISHED, "share", n - done.height, n, level))
        n_seats = int(gv["n_players"].max() or 0)
        wins = [int((done["winner"] == q).sum()) for q in range(n_seats)]
        for q, k in enumerate(wins):
            rows.append(
                _share_row(v, f"win share, seat {q}", "share", k, done.height, level, 1 / n_seats)
            )
        if done.height and n_seats > 1:
            rows.append(
                {
                    "variant": v, "metric": M_SEAT_P, "unit": "p", "kind": "test",
                    "value": chisquare_equal(wins)[1], "ci_low": None, "ci_high": None,
                    "n": done.height, "k": None, "sd": None, "reference": None,
                }
            )  # fmt: skip
        for name, frame in (("games", gv), ("seats", s.filter(pl.col("variant") == v))):
            for c in counts.get(name, []):
                x = frame[c].cast(pl.Float64)
                per = "per game" if name == "games" else "per seat and game"
                rows.append(_mean_row(v, f"{c} {per}", c, x.mean(), x.std() or 0.0, x.len(), level))
    return pl.DataFrame(rows, infer_schema_length=None)

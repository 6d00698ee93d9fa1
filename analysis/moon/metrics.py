"""Three-Player Moon metrics (RULES.md part B) over the ``games`` / ``seats`` / ``hands`` tables.

Pure functions of polars frames, lazy or eager (a :class:`~analysis.io.RunSet`'s tables, where
``rounds`` is Moon's ``hands`` table, or ``sim.simulate(..., record_rounds=True)``'s
``.games``/``.seats``/``.hands``), grouped by ``variant`` (a frame without one is the single
variant ``"run"``). Each returns a small tidy :class:`polars.DataFrame` with 95% intervals
by game (:mod:`analysis.estimate`): hands of one game are not independent draws.

A *played* hand is one that was not redealt ([B4]: all passed, ``redeal`` true); bids, trump,
widow and tricks exist only for played hands.
"""

from __future__ import annotations

import math

import polars as pl

from ..estimate import Figure, estimates, per_game_columns, wide
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
    seat_spreads,
    spread_row,
    test_row,
    variants_of,
    with_bad_answers,
    with_seed,
)
from ..stats import LEVEL, chisquare_equal

__all__ = [
    "BIDS",
    "TRUMP_KINDS",
    "all_pass_rate",
    "bid_success",
    "first_bidder_advantage",
    "hands_per_game",
    "moon_metrics",
    "moon_rates",
    "per_game",
    "widow_value",
]

BIDS = (4, 5, 6, 7, 21)
TRUMP_KINDS = ("number", "doubles", "no trump")  # trump codes 0-6, 7, 8 ([B5])
POSITION_LABELS = ("first bidder", "second bidder", "third bidder")

# metric names of moon_metrics() (stable, like analysis.loba.metrics' M_* names)
M_HANDS = "hands per game"
M_REDEALS = "hands redealt (share of hands)"
M_MADE = "contracts made (share of contracts)"
M_BID_MADE = "bid {bid} made (share)"
M_MOON_BID = "moon bid (share of played hands)"
M_MOON_MADE = "moons made (share of moon bids)"
M_GAMES_MOON_BID = "games with a moon bid (share)"
M_GAMES_MOON_MADE = "games with a moon made (share)"
M_WIDOW_KEPT = "widow kept (share of played hands)"
M_WIDOW_TRICKS = "bidder's tricks, widow {kept}"
M_FIRST_BIDDER = "win share of the first bidder"
M_POSITION_P = "first-bidder positions equal: chi-square p-value"
M_POSITION_SPREAD = "position spread: best - worst win share by position from the first bidder"
M_SEAT_SHARE = "win share, seat {seat}"


def _trump_kind() -> pl.Expr:
    t = pl.col("trump")
    return (
        pl.when(t <= 6)
        .then(pl.lit("number"))
        .when(t == 7)
        .then(pl.lit("doubles"))
        .when(t == 8)
        .then(pl.lit("no trump"))
        .otherwise(None)
    )


def _bidder_tricks() -> pl.Expr:
    b = pl.col("bidder")
    return (
        pl.when(b == 0)
        .then(pl.col("tricks_0"))
        .when(b == 1)
        .then(pl.col("tricks_1"))
        .when(b == 2)
        .then(pl.col("tricks_2"))
        .otherwise(None)
        .cast(pl.Float64)
    )


def _position() -> pl.Expr:
    """The winner's position from the game's first bidder: 0 the first bidder, 1 its left."""
    return (pl.col("winner").cast(pl.Int64) - pl.col("first_bidder").cast(pl.Int64)) % 3


def _played(hands) -> pl.LazyFrame:
    return prep(hands).filter(~pl.col("redeal"))


# ------------------------------------------------------------------ bids
def bid_success(hands, level: float = LEVEL) -> pl.DataFrame:
    """Share of contracts made ([B9]) by bid (4, 5, 6, 7, 21) and by trump kind (a number,
    doubles, no trump), played hands only, with intervals by game (:mod:`analysis.estimate`).

    One row per variant, ``by`` (``"bid"`` or ``"trump"``) and ``level`` (every bid and kind,
    also those never seen: ``hands`` 0, share and interval NaN). ``hands`` = contracts of that
    level, ``made`` = those made, ``share`` = made / hands; ``share_of_hands`` = the level's
    share of all contracts (sums to 1 over the levels of each ``by``).
    """
    p = _played(hands).with_columns(_trump_kind().alias("_kind"))
    frames = []
    for by, col, levels in (
        ("bid", pl.col("bid").cast(pl.Int64).cast(pl.String), [str(b) for b in BIDS]),
        ("trump", pl.col("_kind"), list(TRUMP_KINDS)),
    ):
        per = p.group_by("variant", col.alias("level"), "run", "game").agg(
            pl.len().alias("hands"), pl.col("made").sum().cast(pl.Int64).alias("made")
        )
        fig = [Figure("made", "share", pl.col("made"), pl.col("hands"), "share", True)]
        pg = per.with_columns(per_game_columns(fig))
        agg = collect(
            pg.group_by("variant", "level").agg(pl.col("hands", "made").sum().cast(pl.Int64))
        )
        ci = wide(pg, ["variant", "level"], fig, {"made": ("_s", "ci_low", "ci_high")}, level)
        agg = agg.join(ci, on=["variant", "level"], how="left") if agg.height else agg
        frames.append((by, levels, agg))
    variants = variants_of(prep(hands))
    rows = []
    for v in variants:
        for by, levels, agg in frames:
            a = agg.filter(pl.col("variant") == v)
            got = {r["level"]: r for r in a.iter_rows(named=True)}
            total = int(a["hands"].sum())
            for lv in levels:
                r = got.get(lv, {"hands": 0, "made": 0, "ci_low": None, "ci_high": None})
                n, k = int(r["hands"]), int(r["made"])
                rows.append(
                    {
                        "variant": v, "by": by, "level": lv, "hands": n, "made": k,
                        "share": k / n if n else math.nan, "ci_low": r["ci_low"],
                        "ci_high": r["ci_high"],
                        "share_of_hands": n / total if total else math.nan,
                    }
                )  # fmt: skip
    schema = {
        "variant": pl.String,
        "by": pl.String,
        "level": pl.String,
        "hands": pl.Int64,
        "made": pl.Int64,
        "share": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "share_of_hands": pl.Float64,
    }
    df = pl.DataFrame(rows, schema=schema)
    return df.select(
        "variant", "by", "level", "hands", "made", "share", "ci_low", "ci_high", "share_of_hands"
    )


# ------------------------------------------------------------------ the moon
def moon_rates(hands, games, level: float = LEVEL) -> pl.DataFrame:
    """How often the moon is shot (a bid of 21, [B4]) and made (all seven tricks, [B9]).

    Rows (``measure``, with ``per``): ``moon bid`` per played hand, ``moon made`` per moon bid
    (per ``bid``), ``games with a moon bid`` and ``games with a moon made`` per game, and
    ``games ended by a moon`` (only with ``moon=instant``) per game; ``k`` of ``n``, ``share``
    with its interval by game (:mod:`analysis.estimate`). The counts come from the games
    table's ``hands``, ``redeals``, ``moons_tried`` and ``moons_made`` (the hands table, when
    given, holds the same numbers).
    """
    g = prep(games)
    tried, made = pl.col("moons_tried"), pl.col("moons_made")
    one = pl.lit(1.0)
    S = "share"
    played = pl.col("hands") - pl.col("redeals")
    ended = pl.col("end").cast(pl.String) == "moon"
    measures = tuple(
        (name, per, Figure(name, S, y, x, S, True))
        for name, per, y, x in (
            ("moon bid", "played hand", tried, played),
            ("moon made", "moon bid", made, tried),
            ("games with a moon bid", "game", tried > 0, one),
            ("games with a moon made", "game", made > 0, one),
            ("games ended by a moon", "game", ended, one),
        )
    )
    figs = [f for _, _, f in measures]
    est = estimates(g.select("variant", *per_game_columns(figs)), figs, ["variant"], level)
    per = {m: p for m, p, _ in measures}
    df = est.select(
        "variant",
        pl.col("metric").alias("measure"),
        pl.col("metric").replace_strict(per).alias("per"),
        pl.col("k").cast(pl.Int64),
        pl.col("units").cast(pl.Int64).alias("n"),
        pl.col("value").alias("share"),
        "ci_low",
        "ci_high",
    )
    return order_variants(df, variants_of(g))


# ------------------------------------------------------------------ the widow
def widow_value(hands, level: float = LEVEL) -> pl.DataFrame:
    """How often the bidder keeps the widow ([B5]: lays aside another tile), and the mean
    number of tricks the bidder takes when it kept vs when it laid the widow aside.

    One row per variant and ``widow`` (``kept`` / ``discarded``), played hands only:
    ``hands``; ``share`` of the variant's played hands with its interval
    (``share_low``/``share_high``; the two shares sum to 1); ``tricks`` = the bidder's mean
    tricks with ``sd`` (over hands) and its interval (``ci_low``/``ci_high``); ``made`` = share
    of those contracts made. Intervals by game (:mod:`analysis.estimate`).

    Observational, not causal: the bidder chooses after seeing the widow, so hands where it
    keeps the widow differ from the others in more than the widow (a strong widow tile, a bid
    already made on a strong hand). The difference in tricks is an association; the value of
    keeping the widow would need the same hands played both ways.
    """
    p = _played(hands).with_columns(
        _bidder_tricks().alias("_t"),
        pl.when(pl.col("widow_kept"))
        .then(pl.lit("kept"))
        .otherwise(pl.lit("discarded"))
        .alias("widow"),
    )
    agg = collect(
        p.group_by("variant", "widow").agg(
            pl.len().cast(pl.Int64).alias("hands"),
            pl.col("_t").mean().alias("tricks"),
            pl.col("_t").std().alias("sd"),
            pl.col("made").cast(pl.Float64).mean().alias("made"),
        )
    )
    # intervals by game: the hands of one game are one cluster
    played, kept = pl.col("_played"), pl.col("_kept")
    S = "share"
    figs = [
        Figure("share kept", S, kept, played, S, True),
        Figure("share discarded", S, played - kept, played, S, True),
        Figure("tricks kept", "tricks", pl.col("_t_kept"), kept),
        Figure("tricks discarded", "tricks", pl.col("_t_discarded"), played - kept),
    ]
    est = estimates(_hand_counts(hands).select("variant", *per_game_columns(figs)), figs,
                    ["variant"], level)  # fmt: skip
    ci = {(r["variant"], r["metric"]): r for r in est.iter_rows(named=True)}
    rows = []
    for v in variants_of(prep(hands)):
        a = agg.filter(pl.col("variant") == v)
        total = int(a["hands"].sum())
        got = {r["widow"]: r for r in a.iter_rows(named=True)}
        for w in ("kept", "discarded"):
            r = got.get(w, {"hands": 0, "tricks": None, "sd": None, "made": None})
            sh, tr = ci.get((v, f"share {w}"), {}), ci.get((v, f"tricks {w}"), {})
            rows.append(
                {
                    "variant": v, "widow": w, "hands": int(r["hands"]),
                    "share": r["hands"] / total if total else math.nan,
                    "share_low": sh.get("ci_low"), "share_high": sh.get("ci_high"),
                    "tricks": r["tricks"], "sd": r["sd"],
                    "ci_low": tr.get("ci_low") if r["hands"] else None,
                    "ci_high": tr.get("ci_high") if r["hands"] else None, "made": r["made"],
                }
            )  # fmt: skip
    schema = {
        "variant": pl.String,
        "widow": pl.String,
        "hands": pl.Int64,
        "share": pl.Float64,
        "share_low": pl.Float64,
        "share_high": pl.Float64,
        "tricks": pl.Float64,
        "sd": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "made": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


# ------------------------------------------------------------------ seats
def first_bidder_advantage(games, level: float = LEVEL) -> pl.DataFrame:
    """Win share by position relative to the game's first bidder ([B4]: drawn at random, then
    moving one seat clockwise each hand): position 0 the first bidder, 1 the seat on its left
    (second to bid in the first hand), 2 the third. Finished games only; intervals by game
    against ``expected`` = 1/3; ``chi2``/``p_value``: Pearson's chi-square test that the three
    positions win equally often (the same on every row of a variant)."""
    g = prep(games).filter(pl.col("winner").is_not_null())
    df = collect(
        g.with_columns(_position().alias("position"))
        .group_by("variant", "position")
        .agg(pl.len().cast(pl.Int64).alias("wins"))
    )
    out = []
    for v in variants_of(prep(games)):
        part = df.filter(pl.col("variant") == v)
        counts = {int(p): int(w) for p, w in zip(part["position"], part["wins"], strict=True)}
        c = [counts.get(k, 0) for k in range(3)]
        total = sum(c)
        chi2, p = chisquare_equal(c)
        for k in range(3):
            out.append(
                {
                    "variant": v, "position": k, "label": POSITION_LABELS[k], "wins": c[k],
                    "games": total, "share": c[k] / total if total else math.nan,
                    "expected": 1 / 3, "chi2": chi2, "p_value": p,
                }
            )  # fmt: skip
    schema = {
        "variant": pl.String,
        "position": pl.Int64,
        "label": pl.String,
        "wins": pl.Int64,
        "games": pl.Int64,
        "share": pl.Float64,
        "expected": pl.Float64,
        "chi2": pl.Float64,
        "p_value": pl.Float64,
    }
    df = add_game_share(pl.DataFrame(out, schema=schema), "wins", "games", level)
    return df.select(
        "variant", "position", "label", "wins", "games", "share", "ci_low", "ci_high",
        "expected", "chi2", "p_value",
    )  # fmt: skip


# ------------------------------------------------------------------ game length
def hands_per_game(games, level: float = LEVEL) -> pl.DataFrame:
    """Mean hands per game with a t interval, with its median and maximum: ``count`` =
    ``all`` (redealt hands included, [B11]) and ``played`` (redeals left out)."""
    g = prep(games).with_columns(
        pl.col("hands").cast(pl.Float64).alias("all"),
        (pl.col("hands") - pl.col("redeals")).cast(pl.Float64).alias("played"),
    )
    frames = []
    for c in ("all", "played"):
        frames.append(
            collect(
                g.group_by("variant").agg(
                    pl.lit(c).alias("count"),
                    pl.len().cast(pl.Int64).alias("games"),
                    pl.col(c).mean().alias("mean"),
                    pl.col(c).std().alias("sd"),
                    pl.col(c).median().alias("median"),
                    pl.col(c).max().alias("max"),
                )
            )
        )
    df = pl.concat(frames).sort("variant", maintain_order=True)
    df = add_t(df, "mean", "sd", "games", level=level)
    df = df.select("variant", "count", "games", "mean", "sd", "ci_low", "ci_high", "median", "max")
    return order_variants(df, variants_of(prep(games)))


def all_pass_rate(hands, level: float = LEVEL) -> pl.DataFrame:
    """Share of hands redealt because all three passed ([B4], ``all_pass=redeal``; 0 under
    ``force_last``): ``redeals`` of ``hands`` (every hand dealt), its interval by game."""
    h = prep(hands)
    per = h.group_by("variant", "run", "game").agg(
        pl.len().cast(pl.Int64).alias("hands"),
        pl.col("redeal").sum().cast(pl.Int64).alias("redeals"),
    )
    fig = [Figure("share", "share", pl.col("redeals"), pl.col("hands"), "share", True)]
    pg = per.with_columns(per_game_columns(fig))
    df = collect(pg.group_by("variant").agg(pl.col("hands", "redeals").sum()))
    ci = wide(pg, ["variant"], fig, {"share": ("share", "ci_low", "ci_high")}, level)
    df = df.join(ci, on="variant", how="left")
    return order_variants(df.select("variant", "hands", "redeals", "share", "ci_low", "ci_high"),
                  variants_of(h))  # fmt: skip


# ------------------------------------------------------------------ per game (pairing)
def _hand_counts(hands) -> pl.LazyFrame:
    """Per game (KEY): played hands, contracts and contracts made of each bid, widows kept and
    the bidder's tricks with and without the widow."""
    bid, made, kept = pl.col("bid"), pl.col("made"), pl.col("widow_kept")
    t = _bidder_tricks()
    per_bid = []
    for b in BIDS:
        per_bid += [
            (bid == b).sum().alias(f"_bid{b}"),
            (made & (bid == b)).sum().alias(f"_made{b}"),
        ]
    return (
        _played(hands)
        .group_by(KEY)
        .agg(
            pl.len().alias("_played"),
            *per_bid,
            kept.sum().alias("_kept"),
            t.filter(kept).sum().alias("_t_kept"),
            t.filter(~kept).sum().alias("_t_discarded"),
        )
    )


def _game_counts(games, seats, hands=None) -> pl.DataFrame:
    """The games table with each game's contracts (``_made`` of ``_contracts``, from the
    seats) and, with ``hands``, :func:`_hand_counts` (0 where a game has none)."""
    contracts = (
        prep(seats)
        .group_by(KEY)
        .agg(
            pl.col("contracts_made").sum().alias("_made"),
            pl.col("bids_won").sum().alias("_contracts"),
        )
    )
    g = with_seed(prep(games)).join(contracts, on=KEY, how="left", maintain_order="left")
    if hands is not None:
        g = g.join(_hand_counts(hands), on=KEY, how="left", maintain_order="left")
    df = collect(g)
    return df.with_columns(pl.col(c).fill_null(0) for c in df.columns if c.startswith("_"))


def figures(hands: bool = False) -> list[Figure]:
    """Moon's headline figures as ratios of per-game sums over :func:`_game_counts`
    (:class:`analysis.estimate.Figure`): e.g. redeals (y) over hands dealt (x), contracts made
    over contracts, first-bidder wins over finished games; with ``hands`` also each bid's
    success, the widow kept over played hands and the bidder's tricks over hands with and
    without it."""
    one = pl.lit(1.0)
    fin = pl.col("winner").is_not_null()
    tried, mmade = pl.col("moons_tried"), pl.col("moons_made")
    played_hands = pl.col("hands") - pl.col("redeals")
    S = "share"
    figs = [
        Figure(M_HANDS, "hands", pl.col("hands"), one),
        Figure(M_REDEALS, S, pl.col("redeals"), pl.col("hands"), S, True),
        Figure(M_UNFINISHED, S, ~fin, one, S, True),
        Figure(M_MADE, S, pl.col("_made"), pl.col("_contracts"), S, True),
    ]
    if hands:
        figs += [
            Figure(M_BID_MADE.format(bid=b), S, pl.col(f"_made{b}"), pl.col(f"_bid{b}"), S, True)
            for b in BIDS
        ]
    figs += [
        Figure(M_MOON_BID, S, tried, played_hands, S, True),
        Figure(M_MOON_MADE, S, mmade, tried, S, True),
        Figure(M_GAMES_MOON_BID, S, tried > 0, one, S, True),
        Figure(M_GAMES_MOON_MADE, S, mmade > 0, one, S, True),
    ]
    if hands:
        played, kept = pl.col("_played"), pl.col("_kept")
        figs += [
            Figure(M_WIDOW_KEPT, S, kept, played, S, True),
            Figure(M_WIDOW_TRICKS.format(kept="kept"), "tricks", pl.col("_t_kept"), kept),
            Figure(M_WIDOW_TRICKS.format(kept="discarded"), "tricks", pl.col("_t_discarded"),
                   played - kept),  # fmt: skip
        ]
    figs.append(Figure(M_FIRST_BIDDER, S, (_position() == 0).fill_null(False), fin, S, True, 1 / 3))
    figs += [
        Figure(M_SEAT_SHARE.format(seat=q), S, (pl.col("winner") == q).fill_null(False), fin, S,
               True, 1 / 3)
        for q in range(3)
    ]  # fmt: skip
    return figs


def per_game(games, seats, hands=None) -> pl.DataFrame:
    """Each game's share of every figure of :func:`moon_metrics`, so that runs of the same
    seeds can be compared game by game (:func:`analysis.comparison.compare`), in the format of
    :func:`analysis.loba.metrics.per_game`: one row per game and ``"<metric>|y"`` / ``"<metric>|x"``
    with ``value = sum(y) / sum(x)`` over a variant's games (:func:`figures`)."""
    figs = figures(hands is not None)
    return _game_counts(games, seats, hands).select(
        "variant", "run", "seed", "game", *per_game_columns(figs)
    )


# ------------------------------------------------------------------ all at once
def moon_metrics(games, seats, hands=None, level: float = LEVEL) -> pl.DataFrame:
    """Moon's headline figures in the long format of :func:`analysis.loba.metrics.key_metrics`.

    From games and seats alone: hands per game, hands redealt, unfinished games, contracts
    made (the seats' ``contracts_made`` over ``bids_won``), the moon's rates, the first
    bidder's win share (reference 1/3) and the test of equal positions from the first bidder,
    each seat's win share and the test of equal seats. With the ``hands`` table (``--rounds``)
    also: each bid's success (bids never made in these games are left out), the share of
    hands where the widow was kept and the bidder's mean tricks with and without it
    (observational, see :func:`widow_value`). Every interval by game
    (:mod:`analysis.estimate`): hands of one game are not independent draws.
    """
    g = prep(games)
    variants = variants_of(g)
    fb = first_bidder_advantage(games, level)
    winners = collect(
        g.filter(pl.col("winner").is_not_null())
        .group_by("variant", pl.col("winner").cast(pl.Int64))
        .agg(pl.len().cast(pl.Int64).alias("wins"))
    )
    tests = seat_spreads(games, level)
    for v in variants:
        f = fb.filter(pl.col("variant") == v)
        if f.height and f["games"][0]:
            tests.append(test_row(v, M_POSITION_P, f["p_value"][0], f["games"][0]))
            f = f.sort("position")
            tests.append(spread_row(v, M_POSITION_SPREAD, f["wins"].to_list(),
                                    f["label"].to_list(), level))  # fmt: skip
        w = winners.filter(pl.col("variant") == v)
        wins = {int(q): int(k) for q, k in zip(w["winner"], w["wins"], strict=True)}
        c = [wins.get(q, 0) for q in range(3)]
        if sum(c):
            tests.append(test_row(v, M_SEAT_P, chisquare_equal(c)[1], sum(c)))
    figs = figures(hands is not None)
    lf = _game_counts(games, seats, hands).lazy().select(
        "variant", "run", "seed", "game", *per_game_columns(figs)
    )
    lf, figs = with_bad_answers(games, seats, lf, figs)
    df = long_table(lf, figs, tests, variants, level)
    # a bid level, a widow choice or a moon no game had: no units, no row
    return df.filter((pl.col("kind") == "test") | (pl.col("units") > 0))


M_REDEALS_PER_GAME = "hands redealt per game"
M_SET = "contracts set (share of contracts)"
M_MOON_BIDS_PER_GAME = "moon bids per game"
M_MOONS_MADE_PER_GAME = "moons made per game"
M_DECISIONS = "decisions per game"


def summary_figures(games, seats):
    """Moon's run summary (``sim.moon.spec``'s figures: what ``loba simulate --game moon``
    prints, :meth:`sim.results.Results.summary`) as figures over :func:`_game_counts`:
    ``(per-game frame, {summary key: (Figure, total)}, seat figures)``. Hands per game and the
    unfinished share are those of :func:`figures`; the others are per game or per contract as
    the summary states them (contracts set: the contracts not made, over the contracts), and
    the run's moons made, a total, is ``moons made per game`` times the games (``total``).
    The seats' win shares are :func:`figures`' ``win share, seat Q``."""
    figs = {f.name: f for f in figures()}
    one = pl.lit(1.0)
    contracts = pl.col("_contracts")
    per_game = {
        "redeals_per_game": Figure(M_REDEALS_PER_GAME, "hands", pl.col("redeals"), one, "mean",
                                   True),
        "set_rate": Figure(M_SET, "share", contracts - pl.col("_made"), contracts, "share", True),
        "moons_per_game": Figure(M_MOON_BIDS_PER_GAME, "moons", pl.col("moons_tried"), one,
                                 "mean", True),
        "moons_made": Figure(M_MOONS_MADE_PER_GAME, "moons", pl.col("moons_made"), one, "mean",
                             True),
        "decisions_per_game": Figure(M_DECISIONS, "decisions", pl.col("decisions"), one),
    }  # fmt: skip
    table = {
        "unfinished": (figs[M_UNFINISHED], True),
        "mean_hands": (figs[M_HANDS], False),
        **{k: (f, k == "moons_made") for k, f in per_game.items()},
    }
    seat_figs = [figs[M_SEAT_SHARE.format(seat=q)] for q in range(3)]
    return _game_counts(games, seats).lazy(), table, seat_figs

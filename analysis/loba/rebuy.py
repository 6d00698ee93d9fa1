"""What a rebuy (reenganche, [A30]) is worth in stakes, measured two ways.

**Policy level** (:func:`rebuy_value_policy`): the same seeds are played twice, once with one
seat on ``rebuy=always`` and once on ``rebuy=never`` (everything else equal). Game ``i`` of both
runs starts from the same deal, so the per-game difference in that seat's result removes most
of the luck: the *paired* t interval of those differences is much narrower than the *unpaired*
(Welch) interval that treats the two runs as independent samples; both are reported.

**State level** (:func:`rebuy_value_state`): games are played; at every rebuy decision the game
is forked and both branches are played to the end — the seat rebuys in one and declines in the
other (the other seats keep their own rules), on common random numbers: for repetition k both
branches are reseeded with the same stream. The value of the decision is the mean difference
of the seat's net result (won − paid, so the rebuy's price is included) between the branches.
:func:`tabulate_state_value` groups decisions by players left, the score gap to the leader after
rebuying, and rebuys already used, with a t interval over decisions (repetitions of one decision
are averaged first; decisions of one game are treated as independent) and a flag on thin cells;
:func:`save_state_table` writes that table (with the rules id) for the learned rebuy rule
``rebuy=table:FILE`` (:mod:`sim.loba.rebuy_table`, where the cells and the gap bands are
defined for the analysis and the kernel alike).

**Rules against rules** (:func:`compare_rebuy_rules`): the same seeds played with one seat on a
candidate rule (``table:FILE``) and on each of several others (``always``, ``never``,
``if_opponents``), each paired game by game with the candidate's run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from ..errors import AnalysisError
from ..estimate import Figure, estimates, per_game_columns
from ..stats import LEVEL, t_ci, welch_diff


def gap_bands():
    """``(edges, label, order)``: the score-gap bands of Loba's state-level rebuy table,
    defined once in the game (:mod:`sim.loba.rebuy_table`: the kernel's ``rebuy=table:FILE``
    reads the same cells). ``label(gap, edges)`` names a gap's band, ``order(edges)`` lists
    them."""
    from sim.loba.rebuy_table import GAP_EDGES, gap_band_order, gap_label

    return GAP_EDGES, gap_label, gap_band_order


def _gap_label(gap: float, edges=None) -> str:
    """The band label of a score gap (:func:`gap_bands`)."""
    default, label, _ = gap_bands()
    return label(gap, default if edges is None else edges)


TABLE_BY = ("players_left", "gap_band", "rebuys_used")  # the cells of rebuy=table:FILE
MIN_CASES = 30
MAX_REPS = 256


def switch_rebuy(seat: str, rule: str) -> str:
    """The seat string with its rebuy rule replaced by ``rule`` (``"greedy:patience=2"``,
    ``"always"`` -> ``"greedy:patience=2+rebuy=always"``)."""
    base = seat.split("+", 1)[0].strip()
    return f"{base}+rebuy={rule}"


def _seat_list(seats) -> list[str]:
    from sim.policies import parse_seats

    labels = [s.strip() for s in seats.split(",")] if isinstance(seats, str) else list(seats)
    parse_seats(",".join(labels))  # raises SeatError with one sentence
    return labels


# ------------------------------------------------------------------ policy level
def paired_rebuy_value(
    games_always,
    seats_always,
    games_never,
    seats_never,
    seat: int,
    level: float = LEVEL,
    names: tuple[str, str] = ("always", "never"),
) -> pl.DataFrame:
    """Per-game paired comparison of one seat's result between two runs of the same seeds.

    Returns one row per measure (``win probability``, ``net stakes``): the mean under
    ``always`` and ``never`` (the first and second run; columns named by ``names``), their
    difference, the paired t interval (per-game differences), the unpaired Welch interval, and
    both widths. Games are matched on ``game``.
    """

    def side(games, seats, tag):
        g = _eager(games).select("game", "winner")
        s = _eager(seats).filter(pl.col("seat") == seat).select("game", "net")
        return s.join(g, on="game", maintain_order="left").select(
            "game",
            pl.col("net").cast(pl.Float64).alias(f"net_{tag}"),
            (pl.col("winner") == seat).fill_null(False).cast(pl.Float64).alias(f"win_{tag}"),
        )

    j = side(games_always, seats_always, "a").join(
        side(games_never, seats_never, "n"), on="game", maintain_order="left"
    )
    if j.height < 2:
        raise AnalysisError("The paired comparison needs at least 2 games played under both rules.")
    rows = []
    for measure, col, unit in (
        ("win probability", "win", "share"),
        ("net stakes", "net", "stakes"),
    ):
        a = j[f"{col}_a"].to_numpy()
        b = j[f"{col}_n"].to_numpy()
        d = a - b
        n = len(d)
        md = float(d.mean())
        plo, phi = t_ci(md, float(d.std(ddof=1)), n, level)
        _, ulo, uhi = welch_diff(
            float(a.mean()),
            float(a.std(ddof=1)),
            n,
            float(b.mean()),
            float(b.std(ddof=1)),
            n,
            level,
        )
        rows.append(
            {
                "measure": measure,
                "unit": unit,
                "games": n,
                names[0]: float(a.mean()),
                names[1]: float(b.mean()),
                "difference": md,
                "paired_low": plo,
                "paired_high": phi,
                "unpaired_low": ulo,
                "unpaired_high": uhi,
                "paired_width": phi - plo,
                "unpaired_width": uhi - ulo,
                "games_that_differ": int((d != 0).sum()),
            }
        )
    return pl.DataFrame(rows)


def _eager(x) -> pl.DataFrame:
    return x.collect() if isinstance(x, pl.LazyFrame) else x


@dataclass
class PolicyRebuyValue:
    """Result of :func:`rebuy_value_policy`: the table and both runs."""

    table: pl.DataFrame
    rules_id: str
    seats_always: list[str]
    seats_never: list[str]
    seat: int
    games: int
    seed: int
    always: object  # sim.results.Results
    never: object


def rebuy_value_policy(
    rules="pagat",
    seats="greedy,greedy,greedy,greedy",
    games: int = 10000,
    seed: int = 0,
    seat: int = 0,
    threads: int | None = None,
    out=None,
    level: float = LEVEL,
    progress: Callable[[int, int], None] | None = None,
) -> PolicyRebuyValue:
    """Play ``games`` seeds twice, seat ``seat`` on ``rebuy=always`` then ``rebuy=never``, and
    compare that seat's results game by game (see :func:`paired_rebuy_value`). With ``out``,
    both runs are written as run directories ``out/always`` and ``out/never``.
    ``progress(done, total)``: games played of both runs (``2 * games``)."""
    from pathlib import Path

    from sim.runner import simulate
    from sim.setup import resolve_rules

    rs = resolve_rules(rules)
    labels = _seat_list(seats)
    if not 0 <= seat < len(labels):
        raise AnalysisError(f"--seat must be from 0 to {len(labels) - 1}, not {seat}.")
    a = list(labels)
    b = list(labels)
    a[seat] = switch_rebuy(labels[seat], "always")
    b[seat] = switch_rebuy(labels[seat], "never")

    def part(k):  # the two runs as one count of games
        return None if progress is None else (lambda d, n: progress(k * games + d, 2 * games))

    ra = simulate(rs, ",".join(a), games=games, seed=seed, threads=threads, progress=part(0))
    rn = simulate(rs, ",".join(b), games=games, seed=seed, threads=threads, progress=part(1))
    if out is not None:
        ra.write(Path(out) / "always")
        rn.write(Path(out) / "never")
    table = paired_rebuy_value(ra.games, ra.seats, rn.games, rn.seats, seat, level)
    return PolicyRebuyValue(table, rs.id, a, b, seat, games, seed, ra, rn)


@dataclass
class RuleComparison:
    """Result of :func:`compare_rebuy_rules`: one paired table per rule compared against, the
    seat strings and the runs (``runs[label]``: :class:`sim.results.Results`)."""

    table: pl.DataFrame
    rules_id: str
    rule: str
    against: list[str]
    seat: int
    seats: dict[str, list[str]]
    games: int
    seed: int
    runs: dict


def compare_rebuy_rules(
    rules="pagat",
    seats="greedy,greedy,greedy,greedy",
    rule: str = "always",
    against=("always", "never", "if_opponents"),
    games: int = 20000,
    seed: int = 0,
    seat: int = 0,
    threads: int | None = None,
    out=None,
    level: float = LEVEL,
    progress: Callable[[int, int], None] | None = None,
) -> RuleComparison:
    """Play ``games`` seeds with seat ``seat`` on rebuy rule ``rule`` (``"table:t.csv"``) and
    again on each rule of ``against`` (everything else equal), and compare that seat's results
    game by game with the ``rule`` run (:func:`paired_rebuy_value`).

    Returns one row per rule against and measure: ``against``, ``measure``, ``unit``,
    ``games``, ``rule`` and ``other`` (the seat's mean under each), ``difference`` (rule -
    other), the paired and unpaired intervals and their widths, ``games_that_differ``. With
    ``out``, every run is written as a run directory: ``out/rule`` and ``out/against-K`` (K =
    1, 2, ... in the order of ``against``). ``progress(done, total)``: games played of all
    runs."""
    from pathlib import Path

    from sim.runner import simulate
    from sim.setup import resolve_rules

    rs = resolve_rules(rules)
    labels = _seat_list(seats)
    if not 0 <= seat < len(labels):
        raise AnalysisError(f"--seat must be from 0 to {len(labels) - 1}, not {seat}.")
    against = [a.strip() for a in (against.split(",") if isinstance(against, str) else against)]
    against = list(dict.fromkeys(a for a in against if a))
    if not against:
        raise AnalysisError("Name at least one rebuy rule to compare against (--against).")
    rule = rule.strip()
    tables = {}
    for r in [rule, *against]:
        s = list(labels)
        s[seat] = switch_rebuy(labels[seat], r)
        tables[r] = _seat_list(s)  # a bad rule is refused before any game is played
    total = games * (1 + len(against))
    runs = {}
    for k, r in enumerate([rule, *against]):
        if r in runs:
            continue

        def part(d, n, k=k):
            if progress is not None:
                progress(k * games + d, total)

        runs[r] = simulate(rs, ",".join(tables[r]), games=games, seed=seed, threads=threads,
                           progress=part)  # fmt: skip
        if out is not None:
            runs[r].write(Path(out) / ("rule" if k == 0 else f"against-{k}"))
    parts = []
    base = runs[rule]
    for r in against:
        other = runs[r]
        t = paired_rebuy_value(
            base.games, base.seats, other.games, other.seats, seat, level, ("rule", "other")
        )
        parts.append(t.select(pl.lit(r).alias("against"), pl.all()))
    table = pl.concat(parts)
    return RuleComparison(table, rs.id, rule, against, seat, tables, games, seed, runs)


# ------------------------------------------------------------------ state level
def rebuy_value_state(
    rules="pagat",
    seats="greedy,greedy,greedy,greedy",
    games: int = 1000,
    seed: int = 0,
    reps: int = 8,
    first_game: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> pl.DataFrame:
    """Play games ``first_game .. first_game+games-1`` of run seed ``seed``; at every rebuy
    decision play ``reps`` pairs of branches (rebuy / decline) to the end. One row per
    decision:

    ``game, round, seat, policy``; ``players_left`` (players still in when the round ended,
    the decider included); ``others_over`` (other players who went over in the same round);
    ``rebuys_used`` (before this decision); ``new_score`` (the score a rebuy gives, [A30]);
    ``leader_score`` (lowest score among those not over); ``gap`` = new_score - leader_score;
    ``reps``; ``net_rebuy`` / ``net_decline`` (mean net result of the seat in stakes over the
    repetitions); ``value`` = their difference; ``win_rebuy`` / ``win_decline`` (share of
    repetitions the seat won); ``win_gain`` = their difference.

    After the decision the game goes on as the seats' own rules decide (the real game, not a
    branch), so later decisions of the same game are sampled too.
    """
    from sim.games import get_game
    from sim.setup import resolve_rules

    Game = get_game("loba").handle  # the one-game handle: rebuys are a Loba decision

    rs = resolve_rules(rules)
    labels = _seat_list(seats)
    rs.check_players(len(labels))
    from sim.setup import MAX_GAMES

    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise AnalysisError(
            f"The number of games must be a whole number of at least 1 and at most 10^12,"
            f" not {games}."
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise AnalysisError(f"The seed must be a whole number from 0 to 2^63-1, not {seed}.")
    if not isinstance(reps, int) or not 1 <= reps <= MAX_REPS:
        raise AnalysisError(f"--reps must be a whole number from 1 to {MAX_REPS}, not {reps}.")
    seed2 = (int(seed) * 0x9E3779B97F4A7C15 + 0x5EED5) % (1 << 64)
    elim = rs.elimination_score
    recs: list[dict] = []
    for gi in range(first_game, first_game + games):
        g = Game(rs, ",".join(labels), seed=seed, index=gi, record_rounds=False)
        dec_no = 0
        while g.play_to_rebuy():
            deciders = g.rebuy_decisions()
            if deciders:
                active = [q for q in range(g.n) if g.status(q) == 0]
                over = [q for q in active if g.score(q) >= elim]
                safe = [g.score(q) for q in active if q not in over]
                target, leader = max(safe), min(safe)
                for q in deciders:
                    out = g.rebuy_branches(q, reps, seed2, (gi << 16) + (dec_no << 8))
                    dec_no += 1
                    recs.append(
                        {
                            "game": gi,
                            "round": g.round,
                            "seat": q,
                            "policy": labels[q],
                            "players_left": len(active),
                            "others_over": len(over) - 1,
                            "rebuys_used": g.rebuys(q),
                            "new_score": target,
                            "leader_score": leader,
                            "gap": target - leader,
                            "reps": reps,
                            "net_rebuy": float(out[:, 0].mean()),
                            "net_decline": float(out[:, 1].mean()),
                            "win_rebuy": float(out[:, 2].mean()),
                            "win_decline": float(out[:, 3].mean()),
                        }
                    )
            g.step()  # settle this round as the seats' own rules decide
        if progress is not None:
            progress(gi - first_game + 1, games)
    schema = {
        "game": pl.Int64,
        "round": pl.Int32,
        "seat": pl.Int8,
        "policy": pl.String,
        "players_left": pl.Int8,
        "others_over": pl.Int8,
        "rebuys_used": pl.Int8,
        "new_score": pl.Int32,
        "leader_score": pl.Int32,
        "gap": pl.Int32,
        "reps": pl.Int32,
        "net_rebuy": pl.Float64,
        "net_decline": pl.Float64,
        "win_rebuy": pl.Float64,
        "win_decline": pl.Float64,
    }
    df = pl.DataFrame(recs, schema=schema)
    return df.with_columns(
        (pl.col("net_rebuy") - pl.col("net_decline")).alias("value"),
        (pl.col("win_rebuy") - pl.col("win_decline")).alias("win_gain"),
    ).with_columns(pl.lit(rs.id).alias("rules_id"))


def tabulate_state_value(
    decisions,
    by=("players_left", "gap_band", "rebuys_used"),
    gap_edges=None,
    min_cases: int = MIN_CASES,
    level: float = LEVEL,
) -> pl.DataFrame:
    """Mean value of rebuying (stakes) and gain in win probability per cell of ``by``, with
    intervals by game (the decisions of one game are one cluster, :mod:`analysis.estimate`);
    ``thin`` marks cells with fewer than ``min_cases`` decisions (too few to trust);
    ``verdict``: ``rebuy`` / ``decline`` when the interval excludes 0,
    else ``no clear difference`` (or ``too few cases``). ``gap_edges``: the bands'
    lower edges (None: the game's, :func:`gap_bands`)."""
    default_edges, _, band_order = gap_bands()
    gap_edges = default_edges if gap_edges is None else gap_edges
    df = _eager(decisions)
    by = [by] if isinstance(by, str) else list(by)
    allowed = ("players_left", "gap_band", "rebuys_used", "others_over", "policy", "round")
    bad = [c for c in by if c not in allowed]
    if bad or not by:
        raise AnalysisError(
            f"Cannot group rebuy decisions by '{','.join(bad) or '(nothing)'}': choose from "
            f"{', '.join(allowed)}."
        )
    if "gap_band" in by:
        df = df.with_columns(
            pl.col("gap")
            .map_elements(lambda v: _gap_label(v, gap_edges), return_dtype=pl.String)
            .alias("gap_band")
        )
    if df.height == 0:
        return pl.DataFrame(
            schema={
                **{c: pl.String if c == "gap_band" else pl.Int64 for c in by},
                "cases": pl.Int64,
                "value": pl.Float64,
                "ci_low": pl.Float64,
                "ci_high": pl.Float64,
                "win_gain": pl.Float64,
                "win_low": pl.Float64,
                "win_high": pl.Float64,
                "thin": pl.Boolean,
                "verdict": pl.String,
            }
        )
    # decisions of one game are one cluster: each cell's mean is a ratio of per-game sums
    sums = (pl.len().alias("_x"), pl.col("value").sum().alias("_v"),
            pl.col("win_gain").sum().alias("_w"))  # fmt: skip
    if "game" in df.columns:
        per = df.group_by([*by, "game"]).agg(*sums)
    else:  # a table without games: each decision its own cluster
        per = df.with_row_index("_i").group_by([*by, "_i"]).agg(*sums)
    figs = [Figure("value", "stakes", pl.col("_v"), pl.col("_x")),
            Figure("win_gain", "share", pl.col("_w"), pl.col("_x"))]  # fmt: skip
    est = estimates(per.select(*by, *per_game_columns(figs), "_x"), figs, by, level)
    agg = per.group_by(by).agg(pl.col("_x").sum().cast(pl.Int64).alias("cases"))
    for f, (lo, hi) in (("value", ("ci_low", "ci_high")), ("win_gain", ("win_low", "win_high"))):
        part = est.filter(pl.col("metric") == f).select(
            *by, pl.col("value").alias(f), pl.col("ci_low").alias(lo), pl.col("ci_high").alias(hi)
        )
        agg = agg.join(part, on=by, how="left")
    agg = agg.with_columns((pl.col("cases") < min_cases).alias("thin"))
    verdict = []
    for lo, hi, thin in zip(agg["ci_low"], agg["ci_high"], agg["thin"], strict=True):
        if thin:
            verdict.append("too few cases")
        elif lo is not None and not math.isnan(lo) and lo > 0:
            verdict.append("rebuy")
        elif hi is not None and not math.isnan(hi) and hi < 0:
            verdict.append("decline")
        else:
            verdict.append("no clear difference")
    agg = agg.with_columns(pl.Series("verdict", verdict))
    sort = []
    for c in by:
        if c == "gap_band":
            order = {b: i for i, b in enumerate(band_order(gap_edges))}
            sort.append(pl.col("gap_band").replace_strict(order, default=99))
        else:
            sort.append(pl.col(c))
    cols = [*by, "cases", "value", "ci_low", "ci_high", "win_gain", "win_low", "win_high"]
    return agg.sort(sort).select([*cols, "thin", "verdict"])


def state_table(
    decisions,
    seats: str | None = None,
    min_cases: int = MIN_CASES,
    level: float = LEVEL,
    rules_id: str | None = None,
) -> pl.DataFrame:
    """The table ``rebuy=table:FILE`` reads: :func:`tabulate_state_value` by ``players_left,
    gap_band, rebuys_used``, with the decisions' ``rules_id`` and the run's ``seats`` (for the
    reader; not checked) as columns (``rules_id``: that of the decisions unless given)."""
    df = _eager(decisions)
    t = tabulate_state_value(df, TABLE_BY, min_cases=min_cases, level=level)
    rid = rules_id
    if rid is None and "rules_id" in df.columns and df.height:
        rid = df["rules_id"][0]
    return t.with_columns(
        pl.lit(rid, dtype=pl.String).alias("rules_id"),
        pl.lit(seats, dtype=pl.String).alias("seats"),
    )


def save_state_table(
    decisions,
    path,
    seats: str | None = None,
    min_cases: int = MIN_CASES,
    level: float = LEVEL,
    rules_id: str | None = None,
) -> pl.DataFrame:
    """Write :func:`state_table` to ``path`` (Parquet for ``.parquet``, JSON for ``.json``,
    else CSV), whole or not at all; returns the table."""
    from pathlib import Path

    from sim.files import atomic_output

    t = state_table(decisions, seats, min_cases, level, rules_id)
    kind = Path(path).suffix.lower()
    with atomic_output(path, "Rebuy table") as tmp:
        if kind == ".parquet":
            t.write_parquet(tmp)
        elif kind == ".json":
            t.write_json(tmp)
        else:
            t.write_csv(tmp)
    return t

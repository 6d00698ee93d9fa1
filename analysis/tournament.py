"""Tournaments: a pool of policies seated in every seating, on the same deals, rated.

**Seatings** (:func:`seatings`). From a pool of ``n`` seat strings and ``k`` players: every
combination of ``k`` different pool policies, each in its ``k`` rotations (``k * C(n, k)``
seatings; 20 for five policies at four seats), so that every policy sits in every seat equally
often and meets every other policy equally often. With fewer pool policies than seats, every
multiset of ``k`` in which each pool policy sits at least once, in its rotations. ``repeats``
adds the seatings where a policy sits more than once (every multiset with at least two
different policies: 260 seatings for five policies at four seats); ``all_orders`` plays every
order of each group instead of its rotations (``k!`` instead of ``k``), so that each policy
also sits after each other one equally often (a policy may read the next player). A rotation
starts from the group in pool order.

**The same deals** (common random numbers). Every seating plays games ``0 .. N-1`` of run seed
``S`` (``N`` games *per seating*), so deal ``i`` is the same in every seating and the
differences between seatings are the policies', not the cards'.

**Ratings** (:func:`ratings`). A Plackett–Luce model of each game's finishing order (the seats
table's ``place``: 1 = winner, the others as the game ranks them, e.g. by how long they lasted
or by final score; ties share a place): policy ``p`` has a strength ``w_p = exp(r_p)``, and the
rating ``r_p`` is its log. Under Plackett–Luce, ``P(A finishes above B) = w_A / (w_A + w_B)`` in
any game where both sit, so a rating difference ``d`` means ``A`` finishes above ``B`` with
probability ``1 / (1 + exp(-d))``. The strengths are fitted by full rank breaking: each pair of
seats of different policies in a game is one comparison (a tie: half a win each), and the
Bradley–Terry maximum-likelihood estimate of all comparisons (``choix.ilsr_pairwise_dense``)
estimates the Plackett–Luce strengths consistently (Azari Soufiani et al., 2014; it agrees with
the full-ranking fit ``choix.ilsr_rankings``, tested) while a refit costs a millisecond, so that
the interval can be bootstrapped. Ratings are anchored so that the first pool policy is 0.
**Intervals**: percentile bootstrap (default 200 resamples, 95%) over the *deals*: a resample
draws deal indices with replacement and keeps every seating's game of each drawn deal, since
games on the same deal are not independent; the resamples' generator is seeded from the run
seed, so a tournament prints the same intervals every time.

**Win shares** (:func:`win_pairs`, :func:`win_shares`). For each pair of policies (A, B), A's
share of the games where both sit that A won, B's share, and the rest (another policy won, or
no one: an unfinished game), with 95% intervals (which treat the games as independent);
each policy's win share in all its games against its fair share (its seats / players).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .errors import AnalysisError
from .estimate import game_share
from .stats import LEVEL

RESAMPLES = 200
MAX_SEATINGS = 1000
ALPHA = 0.01  # choix's regularisation: keeps a policy that never finished above another finite
FILE = "tournament.json"
SEATINGS = "seatings"  # OUT/seatings/NNN-SEAT,SEAT,.../ : one run directory per seating

__all__ = [
    "Tournament",
    "TournamentResult",
    "comparisons",
    "fit_ratings",
    "plan",
    "policy_table",
    "ratings",
    "run_tournament",
    "seatings",
    "win_pairs",
    "win_shares",
]


# ---------------------------------------------------------------------------- seatings
def _groups(n: int, k: int, repeats: bool) -> list[tuple[int, ...]]:
    """The multisets of pool indices that sit together (see the module docstring)."""
    if repeats:
        return [c for c in itertools.combinations_with_replacement(range(n), k) if len(set(c)) > 1]
    if n >= k:
        return list(itertools.combinations(range(n), k))
    return [c for c in itertools.combinations_with_replacement(range(n), k) if len(set(c)) == n]


def seatings(
    pool: Sequence[str],
    players: int,
    repeats: bool = False,
    all_orders: bool = False,
    limit: int | None = None,
) -> list[tuple[str, ...]]:
    """Every seating of ``players`` seats from ``pool`` (seat 0 first): every group of pool
    policies (different ones; with ``repeats`` also a policy more than once), each in its
    rotations (``all_orders``: in every order), without duplicates, in a fixed order. With a
    ``limit``, the enumeration stops once it has more than ``limit``."""
    out: list[tuple[int, ...]] = []
    seen = set()
    for g in _groups(len(pool), players, repeats):
        if all_orders:
            orders = sorted(set(itertools.permutations(g)))
        else:
            orders = [g[i:] + g[:i] for i in range(len(g))]
        for o in orders:
            if o not in seen:
                seen.add(o)
                out.append(o)
        if limit is not None and len(out) > limit:
            break
    return [tuple(pool[i] for i in o) for o in out]


def design(n: int, k: int, repeats: bool, all_orders: bool, count: int | None = None) -> str:
    """The seatings in words: ``20 seatings: every combination of 4 of the 5 pool policies,
    each in its rotations``."""
    if repeats:
        who = f"every group of {k} seats from the {n} pool policies with at least two different"
    elif n >= k:
        who = f"every combination of {k} of the {n} pool policies"
    else:
        who = f"every group of {k} seats in which each of the {n} pool policies sits"
    how = "in every order" if all_orders else "each in its rotations"
    if count is None:
        return f"{who}, {how}"
    return f"{count:,} seating{'s' * (count != 1)}: {who}, {how}"


# ---------------------------------------------------------------------------- the plan
@dataclass
class Tournament:
    """A checked tournament, before any game: rules, pool (canonical seat labels), players,
    seatings, games per seating, seed, bootstrap resamples."""

    rules: object
    pool: list[str]
    players: int
    seatings: list[tuple[str, ...]]
    games: int
    seed: int
    resamples: int = RESAMPLES
    repeats: bool = False
    all_orders: bool = False

    @property
    def game(self) -> str:
        return self.rules.game

    @property
    def total_games(self) -> int:
        return self.games * len(self.seatings)

    def describe(self) -> str:
        return design(
            len(self.pool), self.players, self.repeats, self.all_orders, len(self.seatings)
        )


def _whole(x, low: int, high: int, what: str, high_text: str | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or not low <= x <= high:
        hi = high_text or f"{high:,}"
        raise AnalysisError(f"{what} must be a whole number from {low:,} to {hi}, not {x}.")
    return int(x)


def parse_pool(pool, game) -> list[str]:
    """The pool's canonical seat labels (one-sentence errors: an unknown policy or parameter,
    a seat of another game, the same seat twice, fewer than two)."""
    from sim.games import get_game
    from sim.policies import SeatError, parse_seats

    spec = get_game(game)
    if pool is None:
        pool = list(spec.policies)
    text = pool if isinstance(pool, str) else ",".join(str(p) for p in pool)
    seats = parse_seats(text, game=spec)
    for s in seats:
        if s.game != spec.name:
            raise SeatError(f"Seat '{s.label}' plays {s.game}, not {spec.title}.")
    labels = [s.label for s in seats]
    for lab in labels:
        if labels.count(lab) > 1:
            raise AnalysisError(f"The pool names the seat '{lab}' twice; list each policy once.")
    if len(labels) < 2:
        raise AnalysisError(
            f"A tournament needs at least two different policies in the pool, not {len(labels)}"
            f" ('{labels[0]}')."
        )
    return labels


def plan(
    rules=None,
    pool=None,
    players: int | None = None,
    games: int = 2000,
    seed: int = 0,
    resamples: int = RESAMPLES,
    repeats: bool = False,
    all_orders: bool = False,
    game=None,
) -> Tournament:
    """Check everything a tournament needs before any game is played; one-sentence errors.
    ``rules``: a RuleSet, rules id, house-rules file or None (the game's default); ``pool``:
    seat strings (a comma-separated string or a list; None: the game's built-in policies);
    ``players``: None for the game's usual table (its default seating's size)."""
    from sim.chunks import memory_budget
    from sim.games import get_game
    from sim.setup import resolve_rules

    rules = resolve_rules(rules, game)
    spec = get_game(rules.game)
    labels = parse_pool(pool, spec)
    if players is None:
        players = len(spec.default_seats.split(","))
    if isinstance(players, bool) or not isinstance(players, int | np.integer):
        raise AnalysisError(f"--players must be a whole number, not {players}.")
    rules.check_players(int(players))
    games = _whole(games, 1, 10**9, "The number of games per seating", "10^9")
    seed = _whole(seed, 0, 2**63 - 1, "The seed", "2^63-1")
    resamples = _whole(resamples, 20, 100_000, "--resamples")
    chosen = seatings(labels, int(players), repeats, all_orders, limit=MAX_SEATINGS)
    n = len(chosen)
    if n > MAX_SEATINGS:
        raise AnalysisError(
            f"The pool gives more than {MAX_SEATINGS:,} seatings"
            f" ({design(len(labels), int(players), repeats, all_orders)}); use a smaller pool"
            + (" or leave out --repeats/--all-orders." if repeats or all_orders else ".")
        )
    need = n * games * (int(players) * 40 + 24)  # the tables kept for the ratings
    if need > memory_budget():
        raise AnalysisError(
            f"{n:,} seatings of {games:,} games need more memory than the budget (half this"
            " machine's memory, or LOBA_MEMORY_BUDGET); play fewer games per seating."
        )
    return Tournament(
        rules, labels, int(players), chosen, games, seed, resamples, repeats, all_orders
    )


# ---------------------------------------------------------------------------- ratings
def comparisons(seats: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Full rank breaking of each game's finishing order: for every deal (``game``) and
    ordered pair of different policies, how often the first finished above the second
    (a tie: half each). ``seats``: columns ``seating``, ``game``, ``policy``, ``place``.
    Returns ``game, policy, opponent, wins``."""
    s = seats.lazy().select("seating", "game", pl.col("policy").cast(pl.String), "place")
    pairs = s.join(s, on=["seating", "game"], suffix="_b", maintain_order="left").filter(
        pl.col("policy") != pl.col("policy_b")
    )
    win = (
        pl.when(pl.col("place") < pl.col("place_b"))
        .then(1.0)
        .when(pl.col("place") == pl.col("place_b"))
        .then(0.5)
        .otherwise(0.0)
    )
    return (
        pairs.group_by("game", "policy", pl.col("policy_b").alias("opponent"))
        .agg(win.sum().alias("wins"))
        .sort("game", "policy", "opponent")
        .collect()
    )


def fit_ratings(comp: np.ndarray) -> np.ndarray:
    """Plackett–Luce log-strengths (mean 0) from a matrix ``comp[i, j]`` of how often ``i``
    finished above ``j``: the Bradley–Terry maximum-likelihood estimate of the broken
    rankings, by choix's iterative Luce spectral ranking."""
    import choix

    return np.asarray(choix.ilsr_pairwise_dense(np.asarray(comp, dtype=float), alpha=ALPHA))


def ratings(
    seats,
    policies: Sequence[str],
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    anchor: str | None = None,
) -> pl.DataFrame:
    """Each policy's rating (Plackett–Luce log-strength, ``anchor`` = 0: default the first
    policy) with its percentile bootstrap interval over deals (see the module docstring).
    Returns ``policy, rating, ci_low, ci_high, above_anchor`` (the probability of finishing
    above the anchor in a game where both sit), in ``policies`` order."""
    policies = list(policies)
    anchor = policies[0] if anchor is None else anchor
    a = policies.index(anchor)
    p = len(policies)
    comp = comparisons(seats)
    index = {name: i for i, name in enumerate(policies)}
    deals, d_idx = np.unique(comp["game"].to_numpy(), return_inverse=True)
    cell = (
        comp["policy"].replace_strict(index).to_numpy() * p
        + comp["opponent"].replace_strict(index).to_numpy()
    )
    wins = comp["wins"].to_numpy().astype(float)

    def fit(weights) -> np.ndarray:
        m = np.bincount(cell, weights=weights, minlength=p * p).reshape(p, p)
        r = fit_ratings(m)
        return r - r[a]

    point = fit(wins)
    rng = np.random.default_rng([seed, 0x70B1])  # the run seed: the same intervals every time
    d = len(deals)
    boot = np.empty((resamples, p))
    for b in range(resamples):
        counts = np.bincount(rng.integers(0, d, d), minlength=d)
        boot[b] = fit(wins * counts[d_idx])
    q = (1 - level) / 2
    lo, hi = np.quantile(boot, [q, 1 - q], axis=0)
    return pl.DataFrame(
        {
            "policy": policies,
            "rating": point,
            "ci_low": lo,
            "ci_high": hi,
            "above_anchor": 1 / (1 + np.exp(-point)),
        }
    )


# ---------------------------------------------------------------------------- win shares
def _winners(games, seats) -> pl.LazyFrame:
    """``seating, game, winner_policy`` (null: no winner)."""
    s = seats.lazy().select("seating", "game", "seat", pl.col("policy").cast(pl.String))
    return (
        games.lazy()
        .select("seating", "game", pl.col("winner").cast(pl.Int64))
        .join(
            s.with_columns(pl.col("seat").cast(pl.Int64)),
            left_on=["seating", "game", "winner"],
            right_on=["seating", "game", "seat"],
            how="left",
            maintain_order="left",
        )
        .select("seating", "game", pl.col("policy").alias("winner_policy"))
    )


def _with_share(df: pl.DataFrame, k: str, n: str, prefix: str = "") -> pl.DataFrame:
    """Share ``k / n`` of games with its interval (each game won or not: the game's unit)."""
    ci = [game_share(a, b) for a, b in zip(df[k].to_list(), df[n].to_list(), strict=True)]
    return df.with_columns(
        (pl.col(k) / pl.col(n)).alias(f"{prefix}share"),
        pl.Series(f"{prefix}ci_low", [c[0] for c in ci], dtype=pl.Float64),
        pl.Series(f"{prefix}ci_high", [c[1] for c in ci], dtype=pl.Float64),
    )


def win_pairs(games, seats, policies: Sequence[str] | None = None) -> pl.DataFrame:
    """For each ordered pair of different policies (``policy``, ``opponent``) that sat in the
    same games: ``games``, the policy's ``wins``, ``share`` with its interval
    (``ci_low``, ``ci_high``), the opponent's ``opponent_wins`` and ``opponent_share``, and
    ``other_share`` (another policy won, or no one), so that ``share + opponent_share +
    other_share = 1``. ``games``/``seats``: the tournament's tables with a ``seating`` column;
    ``policies``: the row order (default: as they appear)."""
    present = seats.lazy().select("seating", "game", pl.col("policy").cast(pl.String)).unique()
    pairs = (
        present.join(present, on=["seating", "game"], suffix="_b", maintain_order="left")
        .filter(pl.col("policy") != pl.col("policy_b"))
        .join(_winners(games, seats), on=["seating", "game"], how="left", maintain_order="left")
        .group_by("policy", pl.col("policy_b").alias("opponent"))
        .agg(
            pl.len().cast(pl.Int64).alias("games"),
            (pl.col("winner_policy") == pl.col("policy")).sum().cast(pl.Int64).alias("wins"),
            (pl.col("winner_policy") == pl.col("policy_b"))
            .sum()
            .cast(pl.Int64)
            .alias("opponent_wins"),
        )
        .collect()
    )
    pairs = _with_share(pairs, "wins", "games").with_columns(
        (pl.col("opponent_wins") / pl.col("games")).alias("opponent_share"),
        (1 - (pl.col("wins") + pl.col("opponent_wins")) / pl.col("games")).alias("other_share"),
    )
    order = (
        policies
        or seats.lazy()
        .select(pl.col("policy").cast(pl.String))
        .unique(maintain_order=True)
        .collect()["policy"]
        .to_list()
    )
    rank = {name: i for i, name in enumerate(order)}
    return (
        pairs.with_columns(
            pl.col("policy").replace_strict(rank).alias("_a"),
            pl.col("opponent").replace_strict(rank).alias("_b"),
        )
        .sort("_a", "_b")
        .select(
            "policy",
            "opponent",
            "games",
            "wins",
            "share",
            "ci_low",
            "ci_high",
            "opponent_wins",
            "opponent_share",
            "other_share",
        )
    )


def win_shares(games, seats, players: int, policies: Sequence[str] | None = None):
    """Each policy's win share in the games it sat in, with its interval (by game), against its
    fair share (its seats / ``players``, averaged over those games): ``policy, games, wins,
    share, ci_low, ci_high, fair_share``."""
    per_game = (
        seats.lazy()
        .group_by("seating", "game", pl.col("policy").cast(pl.String))
        .agg(pl.len().alias("seats"))
        .join(_winners(games, seats), on=["seating", "game"], how="left", maintain_order="left")
        .group_by("policy")
        .agg(
            pl.len().cast(pl.Int64).alias("games"),
            (pl.col("winner_policy") == pl.col("policy")).sum().cast(pl.Int64).alias("wins"),
            (pl.col("seats").mean() / players).alias("fair_share"),
        )
        .collect()
    )
    out = _with_share(per_game, "wins", "games")
    if policies:
        rank = {name: i for i, name in enumerate(policies)}
        out = out.sort(pl.col("policy").replace_strict(rank))
    return out.select("policy", "games", "wins", "share", "ci_low", "ci_high", "fair_share")


def policy_table(rated: pl.DataFrame, shares: pl.DataFrame) -> pl.DataFrame:
    """One row per policy: its rating with interval, the chance of finishing above the anchor,
    and its win share against its fair share."""
    return rated.join(
        shares.rename({"share": "win_share", "ci_low": "win_low", "ci_high": "win_high"}),
        on="policy",
        how="left",
        maintain_order="left",
    )


# ---------------------------------------------------------------------------- running it
@dataclass
class TournamentResult:
    plan: Tournament
    games: pl.DataFrame  # seating, game, seed, winner
    seats: pl.DataFrame  # seating, game, seat, policy, place
    policies: pl.DataFrame  # policy_table
    pairs: pl.DataFrame  # win_pairs
    folders: list[str] = field(default_factory=list)  # under OUT/seatings/, if written
    elapsed: float = 0.0

    def to_dict(self) -> dict:
        """What ``tournament.json`` and ``--format json`` hold."""
        t = self.plan
        return {
            "game": t.game,
            "rules_id": t.rules.id,
            "pool": t.pool,
            "players": t.players,
            "games_per_seating": t.games,
            "games": t.total_games,
            "seed": t.seed,
            "seatings": t.describe(),
            "seating_list": [list(s) for s in t.seatings],
            "seating_dirs": [f"{SEATINGS}/{f}" for f in self.folders],
            "anchor": t.pool[0],
            "resamples": t.resamples,
            "level": LEVEL,
            "policies": self.policies.to_dicts(),
            "pairs": self.pairs.to_dicts(),
        }


def folder(i: int, seating: Sequence[str]) -> str:
    """A seating's run directory under ``OUT/seatings/``: ``003-greedy,hold,careful,random``
    (characters a folder name should not hold become ``_``)."""
    from .sweep import path_safe

    return f"{i + 1:03d}-" + path_safe(",".join(seating), keep=",")


def run_tournament(
    t: Tournament,
    threads: int | None = None,
    out=None,
    overwrite: bool = False,
    progress: Callable[[int, int, tuple[str, ...]], None] | None = None,
) -> TournamentResult:
    """Play every seating of ``t`` (``progress(i, n, seating)`` before each), write each as a
    run directory under ``OUT/seatings/`` and ``OUT/tournament.json`` when ``out`` is given
    (checked before the first game), and rate the pool."""
    import time

    from sim.faults import fault_context
    from sim.files import RunDirError, atomic_output, check_out_dir
    from sim.runner import simulate

    outp = Path(out) if out is not None else None
    if outp is not None:
        need = 256 * 1024 + 16 * t.total_games * t.players
        try:
            check_out_dir(outp, overwrite, need_bytes=need)
        except RunDirError as e:
            raise AnalysisError(str(e)) from None
        if overwrite:
            from .sweep import clear_runs

            clear_runs(outp, (SEATINGS,), "tournament")
    t0 = time.perf_counter()
    games, seats, folders = [], [], []
    for i, seating in enumerate(t.seatings):
        if progress is not None:
            progress(i, len(t.seatings), seating)
        kept = "" if outp is None or not i else f"; the seatings before it are kept in '{outp}'"
        with fault_context(f" of seating {i + 1} of {len(t.seatings)} ({','.join(seating)};"
                           f" seed {t.seed})", kept):  # fmt: skip
            res = simulate(t.rules, list(seating), games=t.games, seed=t.seed, threads=threads)
        if outp is not None:
            folders.append(folder(i, seating))
            res.write(outp / SEATINGS / folders[-1], overwrite=overwrite)
        tag = pl.lit(i, dtype=pl.Int32).alias("seating")
        games.append(res.games.select(tag, "game", "seed", "winner"))
        seats.append(
            res.seats.select(tag, "game", "seat", pl.col("policy").cast(pl.String), "place")
        )
    g, s = pl.concat(games), pl.concat(seats)
    rated = ratings(s, t.pool, t.resamples, t.seed)
    shares = win_shares(g, s, t.players, t.pool)
    result = TournamentResult(
        t,
        g,
        s,
        policy_table(rated, shares),
        win_pairs(g, s, t.pool),
        folders,
        time.perf_counter() - t0,
    )
    if outp is not None:
        with atomic_output(outp / FILE) as tmp:
            tmp.write_text(json.dumps(result.to_dict(), indent=1) + "\n")
    return result

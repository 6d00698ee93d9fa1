"""Kernel record arrays -> tidy polars frames -> Parquet run directories with a manifest.

Column names of ``games``, ``seats`` and ``rounds`` are a contract (issue "The Loba engine");
columns may be added, never renamed.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .loba.layout import (
    GR_BONUSES,
    GR_DECISIONS,
    GR_FIRST_DEALER,
    GR_POT,
    GR_RESHUFFLES,
    GR_ROUNDS,
    GR_TURNS,
    GR_VOIDS,
    GR_WINNER,
    RR_BONUS,
    RR_DEALER,
    RR_OUT,
    RR_PENALTY,
    RR_RESHUFFLES,
    RR_SCORE,
    RR_STATUS,
    RR_TURNS,
    RR_VOID,
    RS_LABELS,
    SR_ELIM_ROUND,
    SR_PAID,
    SR_PLACE,
    SR_REBUYS,
    SR_SCORE,
    SR_WON,
)
from .rules import RULES_VERSION, RuleSet

STATUS_ENUM = pl.Enum(list(RS_LABELS))


class RunDirError(ValueError):
    """An output directory that cannot be used. One sentence."""


def _versions() -> dict:
    import numba

    try:
        from importlib.metadata import version

        pkg = version("loba-sim")
    except Exception:
        pkg = "unknown"
    return {
        "loba_sim": pkg,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "polars": pl.__version__,
        "python": platform.python_version(),
    }


@dataclass
class Results:
    """One run: the rule set, seating and seed, and its tables as polars DataFrames."""

    rules: RuleSet
    seat_labels: list[str]
    seed: int
    start: int
    n_games: int
    games: pl.DataFrame
    seats: pl.DataFrame
    rounds: pl.DataFrame | None
    elapsed: float
    threads: int
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_arrays(cls, rules, seats, seed, start, games, seat_rows, round_rows, elapsed, threads):
        n = len(seats)
        count = games.shape[0]
        idx = np.arange(start, start + count, dtype=np.int64)
        winner = games[:, GR_WINNER]
        labels = [s.label for s in seats]
        gdf = pl.DataFrame(
            {
                "game": idx,
                "seed": np.full(count, seed, dtype=np.int64),
                "rules_id": [rules.id] * count,
                "n_players": np.full(count, n, dtype=np.int8),
                "winner": pl.Series(winner, dtype=pl.Int8),
                "rounds": games[:, GR_ROUNDS].astype(np.int32),
                "turns": games[:, GR_TURNS].astype(np.int32),
                "void_rounds": games[:, GR_VOIDS].astype(np.int32),
                "pot": games[:, GR_POT],
                "reshuffles": games[:, GR_RESHUFFLES].astype(np.int32),
                "one_turn_bonuses": games[:, GR_BONUSES].astype(np.int32),
                "first_dealer": games[:, GR_FIRST_DEALER].astype(np.int8),
                "decisions": games[:, GR_DECISIONS],
            }
        ).with_columns(
            pl.when(pl.col("winner") >= 0).then(pl.col("winner")).otherwise(None).alias("winner"),
            pl.col("rules_id").cast(pl.Categorical),
        )
        s = seat_rows[:, :n, :]
        elim = s[:, :, SR_ELIM_ROUND].reshape(-1)
        paid = s[:, :, SR_PAID].reshape(-1)
        won = s[:, :, SR_WON].reshape(-1)
        sdf = pl.DataFrame(
            {
                "game": np.repeat(idx, n),
                "seat": np.tile(np.arange(n, dtype=np.int8), count),
                "policy": np.tile(np.array(labels, dtype=object), count).tolist(),
                "final_score": s[:, :, SR_SCORE].reshape(-1).astype(np.int32),
                "rebuys": s[:, :, SR_REBUYS].reshape(-1).astype(np.int16),
                "eliminated_round": pl.Series(elim, dtype=pl.Int32),
                "place": s[:, :, SR_PLACE].reshape(-1).astype(np.int8),
                "paid": paid,
                "won": won,
                "net": won - paid,
            }
        ).with_columns(
            pl.when(pl.col("eliminated_round") >= 0)
            .then(pl.col("eliminated_round"))
            .otherwise(None)
            .alias("eliminated_round"),
            pl.col("policy").cast(pl.Categorical),
        )
        rdf = None
        if round_rows is not None:
            rdf = rounds_frame(round_rows, games[:, GR_ROUNDS], idx, n)
        return cls(rules, labels, seed, start, count, gdf, sdf, rdf, elapsed, threads)

    # ------------------------------------------------------------------ summary
    @property
    def games_per_second(self) -> float:
        return self.n_games / self.elapsed if self.elapsed > 0 else float("inf")

    def manifest(self) -> dict:
        return {
            "rules_id": self.rules.id,
            "rules_version": RULES_VERSION,
            "rules": {k: v for k, v in self.rules.values},
            "preset": self.rules.preset,
            "seats": self.seat_labels,
            "n_players": len(self.seat_labels),
            "seed": self.seed,
            "first_game": self.start,
            "games": self.n_games,
            "rounds_recorded": self.rounds is not None,
            "elapsed_seconds": round(self.elapsed, 6),
            "threads": self.threads,
            "versions": _versions(),
            "tables": ["games", "seats"] + (["rounds"] if self.rounds is not None else []),
            **self.extra,
        }

    def write(self, out_dir, overwrite: bool = False) -> Path:
        """Write ``manifest.json`` and Parquet tables into ``out_dir`` (refuses a non-empty one)."""
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise RunDirError(f"Output path '{out}' exists and is not a directory.")
        if out.exists() and any(out.iterdir()) and not overwrite:
            raise RunDirError(
                f"Output directory '{out}' is not empty: choose another or pass --overwrite."
            )
        out.mkdir(parents=True, exist_ok=True)
        for name in ("games", "seats", "rounds"):
            p = out / f"{name}.parquet"
            if p.exists():
                p.unlink()
        self.games.write_parquet(out / "games.parquet")
        self.seats.write_parquet(out / "seats.parquet")
        if self.rounds is not None:
            self.rounds.write_parquet(out / "rounds.parquet")
        (out / "manifest.json").write_text(json.dumps(self.manifest(), indent=2) + "\n")
        return out

    def summary(self) -> dict:
        """Headline figures of the run (win shares with 95% Wilson intervals)."""
        from .stats import wilson

        g = self.games
        n = self.n_games
        finished = g.filter(pl.col("winner").is_not_null()).height
        rounds_total = int(g["rounds"].sum())
        voids = int(g["void_rounds"].sum())
        played_rounds = rounds_total - voids
        wins = g.group_by("winner").len().filter(pl.col("winner").is_not_null()).sort("winner")
        counts = dict(zip(wins["winner"].to_list(), wins["len"].to_list(), strict=True))
        seats = []
        for q, label in enumerate(self.seat_labels):
            k = counts.get(q, 0)
            lo, hi = wilson(k, finished)
            seats.append(
                {
                    "seat": q,
                    "policy": label,
                    "wins": k,
                    "share": k / finished if finished else 0.0,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
        return {
            "games": n,
            "unfinished": n - finished,
            "elapsed_seconds": self.elapsed,
            "games_per_second": self.games_per_second,
            "mean_rounds": rounds_total / n,
            "mean_turns": float(g["turns"].mean()),
            "rebuys_per_game": float(self.seats["rebuys"].sum()) / n,
            "one_turn_bonus_rate": (float(g["one_turn_bonuses"].sum()) / played_rounds)
            if played_rounds
            else 0.0,
            "void_rounds": voids,
            "mean_pot": float(g["pot"].mean()),
            "seats": seats,
        }


def rounds_frame(round_rows, n_rounds, idx, n) -> pl.DataFrame:
    """Per-round, per-seat rows of every game (only rounds that were played)."""
    cap = round_rows.shape[1]
    nr = np.minimum(n_rounds, cap)
    mask = np.arange(cap)[None, :] < nr[:, None]  # (count, cap)
    gi, ri = np.nonzero(mask)
    block = round_rows[gi, ri, :n, :]  # (rows, n, RR)
    rows = block.shape[0]
    flat = block.reshape(rows * n, -1)
    status = np.array(RS_LABELS, dtype=object)[flat[:, RR_STATUS]]
    return pl.DataFrame(
        {
            "game": np.repeat(idx[gi], n),
            "round": np.repeat(ri + 1, n).astype(np.int32),
            "seat": np.tile(np.arange(n, dtype=np.int8), rows),
            "dealer": flat[:, RR_DEALER].astype(np.int8),
            "went_out": flat[:, RR_OUT].astype(bool),
            "one_turn_bonus": flat[:, RR_BONUS].astype(bool),
            "penalty": flat[:, RR_PENALTY].astype(np.int32),
            "score_after": flat[:, RR_SCORE].astype(np.int32),
            "status": pl.Series(status.tolist(), dtype=STATUS_ENUM),
            "turns": flat[:, RR_TURNS].astype(np.int32),
            "reshuffles": flat[:, RR_RESHUFFLES].astype(np.int32),
            "void": flat[:, RR_VOID].astype(bool),
        }
    )

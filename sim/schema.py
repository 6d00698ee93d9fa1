"""Tables as declarations: one list of columns per table, from which everything else comes.

A game declares its tables (in its package's ``schema.py``) as :class:`Table` objects. From
that one declaration come the kernel's record layouts (:meth:`Table.kernel_enum`: one field per
column the kernel fills), the polars frames and so the Parquet columns and types
(:meth:`Table.frame`), the manifest's table list, the columns :mod:`analysis.io` requires, and
the column lists in ``loba tables`` / the README.

Kernel record arrays, by the table's ``level``:

* ``game``:   ``int64[count, K]``                one row per game
* ``seat``:   ``int64[count, MAX_SEATS, K]``     one row per game and seat (first n seats)
* ``detail``: ``int32[count, cap, MAX_SEATS, K]`` one row per game, round (or hand) and seat;
  only the first ``games[count_from]`` rounds of a game are rows; with ``per_seat=False`` the
  array is ``int32[count, cap, K]`` and there is one row per game and round.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from .rules import make_enum

_INTS = {"int8": pl.Int8, "int16": pl.Int16, "int32": pl.Int32, "int64": pl.Int64}
# columns the boundary fills (not the kernel): where their values come from
CONTEXT = ("game", "seed", "rules_id", "n_players", "seat", "policy", "round")


@dataclass(frozen=True)
class Column:
    """One column: name, type (int8..int64, bool, cat, enum), meaning, and where it comes from.

    ``source``: None (the kernel fills it), one of :data:`CONTEXT`, or ``"a-b"`` (the difference
    of two kernel columns). ``null_below``: values below it are null (e.g. -1 = no winner).
    ``labels``: an ``enum`` column's labels, indexed by the kernel's value.
    """

    name: str
    dtype: str
    doc: str
    source: str | None = None
    null_below: int | None = None
    labels: tuple[str, ...] | None = None

    @property
    def polars_type(self):
        if self.dtype in _INTS:
            return _INTS[self.dtype]
        if self.dtype == "bool":
            return pl.Boolean
        if self.dtype == "cat":
            return pl.Categorical
        if self.dtype == "enum":
            return pl.Enum(list(self.labels))
        raise ValueError(f"unknown column type {self.dtype}")

    @property
    def from_kernel(self) -> bool:
        return self.source is None


def game_keys(players: str = "players at the table") -> tuple[Column, ...]:
    """The columns every ``games`` table starts with (the boundary fills them)."""
    return (
        Column("game", "int64", "game index within the run", source="game"),
        Column("seed", "int64", "the run's seed", source="seed"),
        Column("rules_id", "cat", "canonical rules id", source="rules_id"),
        Column("n_players", "int8", players, source="n_players"),
    )


def seat_keys() -> tuple[Column, ...]:
    """The columns every ``seats`` table starts with (the boundary fills them)."""
    return (
        Column("game", "int64", "game index", source="game"),
        Column("seat", "int8", "seat 0..n-1", source="seat"),
        Column("policy", "cat", "the seat string", source="policy"),
    )


@dataclass(frozen=True)
class Table:
    """A table of a game's results: its name, what a row is, its columns.

    ``level``: ``game``, ``seat`` or ``detail`` (see the module docstring); ``detail`` tables
    are written only when asked (``--rounds``) and count their rows per game from the games
    table's column ``count_from``.
    """

    name: str
    doc: str
    columns: tuple[Column, ...]
    detail: bool = False
    count_from: str = "rounds"
    per_seat: bool = True
    detail_name: str = "round"

    @property
    def level(self) -> str:
        if self.detail:
            return "detail"
        return "seat" if any(c.source == "seat" for c in self.columns) else "game"

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def schema(self) -> dict:
        """Column name -> polars type (the Parquet schema)."""
        return {c.name: c.polars_type for c in self.columns}

    def kernel_enum(self, typename: str):
        """The kernel's record layout: one field per kernel-filled column, and SIZE."""
        return make_enum(typename, [c.name.upper() for c in self.columns if c.from_kernel])

    def kernel_index(self) -> dict[str, int]:
        return {c.name: i for i, c in enumerate(c for c in self.columns if c.from_kernel)}

    def empty_array(self, count: int, max_seats: int, cap: int = 0) -> np.ndarray:
        """A zeroed record array for ``count`` games (see the module docstring)."""
        k = sum(c.from_kernel for c in self.columns)
        if self.level == "game":
            return np.zeros((count, k), dtype=np.int64)
        if self.level == "seat":
            return np.zeros((count, max_seats, k), dtype=np.int64)
        shape = (count, cap, max_seats, k) if self.per_seat else (count, cap, k)
        return np.zeros(shape, dtype=np.int32)

    def frame(self, rows: np.ndarray, ctx: dict, n_detail: np.ndarray | None = None):
        """The polars frame of a record array. ``ctx``: game indices (``idx``), ``seed``,
        ``rules_id``, ``labels`` (seat strings); ``n_detail``: rounds per game (detail)."""
        idx = ctx["idx"]
        n = len(ctx["labels"])
        count = len(idx)
        if self.level == "game":
            flat = rows
            context = {
                "game": idx,
                "seed": np.full(count, ctx["seed"], dtype=np.int64),
                "rules_id": _strings([ctx["rules_id"]], np.zeros(count, dtype=np.uint32)),
                "n_players": np.full(count, n, dtype=np.int8),
            }
        elif self.level == "seat":
            flat = rows[:, :n, :].reshape(count * n, -1)
            context = {
                "game": np.repeat(idx, n),
                "seat": np.tile(np.arange(n, dtype=np.int8), count),
                "policy": _strings(ctx["labels"], np.tile(np.arange(n, dtype=np.uint32), count)),
            }
        else:
            cap = rows.shape[1]
            nr = np.minimum(n_detail, cap)
            gi, ri = np.nonzero(np.arange(cap)[None, :] < nr[:, None])
            if self.per_seat:
                block = rows[gi, ri, :n, :]
                flat = block.reshape(block.shape[0] * n, -1)
                reps = n
            else:
                flat = rows[gi, ri, :]
                reps = 1
            m = flat.shape[0] // reps
            context = {
                "game": np.repeat(idx[gi], reps),
                "round": np.repeat(ri + 1, reps).astype(np.int32),
                "seat": np.tile(np.arange(n, dtype=np.int8), m),
            }
        col = self.kernel_index()
        data = {}
        post = []
        for c in self.columns:
            if c.source is not None and "-" in c.source:
                a, b = c.source.split("-")
                data[c.name] = flat[:, col[a]] - flat[:, col[b]]
            elif c.source is not None:
                v = context[c.source]
                data[c.name] = v.cast(pl.Categorical) if c.dtype == "cat" else v
            else:
                v = flat[:, col[c.name]]
                if c.dtype == "enum":
                    data[c.name] = pl.Series(list(c.labels), dtype=c.polars_type).gather(v)
                elif c.null_below is not None:
                    data[c.name] = pl.Series(v, dtype=c.polars_type)
                    post.append(
                        pl.when(pl.col(c.name) >= c.null_below)
                        .then(pl.col(c.name))
                        .otherwise(None)
                        .alias(c.name)
                    )
                elif c.dtype == "bool":
                    data[c.name] = v.astype(bool)
                else:
                    data[c.name] = v.astype(c.dtype)
        df = pl.DataFrame(data)
        return df.with_columns(*post) if post else df


def _strings(values, index: np.ndarray) -> pl.Series:
    """The strings ``values[index]`` as a polars String series, gathered in compiled code
    instead of built from a Python list of one object per row."""
    return pl.Series(list(values), dtype=pl.String).gather(index)


def markdown(tables) -> str:
    """The tables as Markdown bullets (the README's lists are this text, checked by a test)."""
    out = []
    for t in tables:
        when = " (with `--rounds`)" if t.detail else ""
        cols = "; ".join(f"`{c.name}` {c.dtype}, {c.doc}" for c in t.columns)
        out.append(f"- `{t.name}.parquet`{when}, {t.doc}: {cols}")
    return "\n".join(out) + "\n"

"""The learned rebuy rule ``table``: rebuy where a state-level rebuy-value table says it pays.

``greedy+rebuy=table:PATH`` reads a table saved by ``loba rebuy-value --mode state --save
PATH`` (:func:`analysis.rebuy.save_state_table`): one row per cell of ``players_left``,
``gap_band`` and ``rebuys_used`` with the mean ``value`` of rebuying over declining (stakes).
The seat rebuys exactly where the cell's point estimate is positive (``value > 0``; the
interval is not consulted, so a thin cell decides on its mean like any other) and declines
where it is zero or negative. A cell the table lacks (no decision fell there, or its row was
deleted, or its value is empty) falls back to ``always``: rebuy.

The cells are defined here once, for the analysis and the kernel alike (analysis/rebuy.py
imports them): at a rebuy decision of seat ``q``,

* ``players_left``: players still in the game, the ones over the limit this round included
  (``pub[PUB.ACTIVE]``);
* ``gap``: the score a rebuy gives (``pub[PUB.REBUY_SCORE]``, the highest score under the
  limit, [A30]) minus the leader's (the lowest score of a player under the limit); its band
  is the last edge of :data:`GAP_EDGES` it reaches (``0-9``, ``10-24``, ``25-49``, ``50+``);
* ``rebuys_used``: the seat's rebuys before this decision.

The decision runs inside the kernel, so the table travels in the rule's eight float64
parameter slots as bits: cell ``c = (rebuys_used * PL_N + players_left - PL_MIN) * BANDS_N +
band`` is bit ``c % 53`` of slot ``c // 53`` (a float64 holds whole numbers below 2^53
exactly), set where the table says decline. Unset bits rebuy, which is also the fallback, so
no separate "known" mask is needed. Eight slots hold 424 bits: rebuys_used 0 to 25 at any
table size; a table with a cell beyond is refused.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..jit import kernel
from .layout import MAX_SEATS, PUB, ST

GAP_EDGES = (0, 10, 25, 50)  # score gap to the leader after rebuying: band lower edges
PL_MIN = 2  # a rebuy needs the decider and at least one player under the limit ([A31])
PL_N = MAX_SEATS - PL_MIN + 1  # players_left 2 .. MAX_SEATS
BANDS_N = len(GAP_EDGES)
SLOTS = 8  # the rule's parameter slots (sim.policies.api.POLICY_SLOTS)
BITS = 53  # whole numbers below 2^53 are exact in a float64
MAX_CELLS = (SLOTS * BITS) // (PL_N * BANDS_N) * (PL_N * BANDS_N)  # whole rebuys_used levels
MAX_REBUYS_USED = MAX_CELLS // (PL_N * BANDS_N) - 1
PARAM_NAMES = tuple(f"decline{i}" for i in range(SLOTS))
NEEDED = ("players_left", "gap_band", "rebuys_used", "value")


def gap_label(gap: float, edges=GAP_EDGES) -> str:
    """The band of a score gap as a label: ``0-9``, ``10-24``, ``25-49``, ``50+``."""
    for i in range(len(edges) - 1, -1, -1):
        if gap >= edges[i]:
            if i == len(edges) - 1:
                return f"{edges[i]}+"
            return f"{edges[i]}-{edges[i + 1] - 1}"
    return f"<{edges[0]}"


def gap_band_order(edges=GAP_EDGES) -> list[str]:
    """The gap band labels in increasing order."""
    return [gap_label(e, edges) for e in edges]


@kernel
def gap_band(gap):
    """Index of the band of ``gap`` in :data:`GAP_EDGES` (-1 below the first edge)."""
    band = -1
    for i in range(BANDS_N):
        if gap >= GAP_EDGES[i]:
            band = i
    return band


@kernel
def table_cell(players_left, band, rebuys_used):
    """The cell's bit index, or -1 outside what the slots hold."""
    if band < 0 or band >= BANDS_N or players_left < PL_MIN or players_left >= PL_MIN + PL_N:
        return -1
    if rebuys_used < 0 or rebuys_used > MAX_REBUYS_USED:
        return -1
    return (rebuys_used * PL_N + players_left - PL_MIN) * BANDS_N + band


@kernel(readonly=("pub",))
def rebuy_cell(pub):
    """The cell of the rebuy decision ``pub`` shows (-1: none the table can hold)."""
    me = pub[PUB.SEAT]
    leader = 1 << 40
    for q in range(pub[PUB.NP]):
        if pub[PUB.STATUS + q] == ST.ACTIVE and pub[PUB.SCORE + q] < leader:
            leader = pub[PUB.SCORE + q]
    if leader == 1 << 40:
        return -1
    gap = pub[PUB.REBUY_SCORE] - leader
    return table_cell(pub[PUB.ACTIVE], gap_band(gap), pub[PUB.REBUYS + me])


@kernel(readonly=("params",))
def table_says_rebuy(params, first, cell):
    """1 unless ``cell``'s bit is set in the slots from ``params[first]`` (decline)."""
    if cell < 0:
        return 1
    bits = int(params[first + cell // BITS])
    return 0 if (bits >> (cell % BITS)) & 1 else 1


class TableError(ValueError):
    """A rebuy table that cannot be used. One sentence."""


def _read(path: str):
    import polars as pl

    p = Path(path).expanduser()
    try:
        is_dir, is_file = p.is_dir(), p.is_file()
    except OSError as e:  # a folder on the way that cannot be searched, a name too long
        raise TableError(f"Rebuy table '{path}' cannot be read ({e.strerror or e}).") from None
    if is_dir:
        raise TableError(f"Rebuy table '{path}' is a directory, not a table file.")
    if not is_file:
        raise TableError(f"Rebuy table '{path}' does not exist.")
    try:
        if p.suffix.lower() == ".parquet":
            return pl.read_parquet(p)
        if p.suffix.lower() == ".json":
            return pl.read_json(p)
        return pl.read_csv(p)
    except Exception as e:  # unreadable, not a table: one sentence
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
        raise TableError(
            f"Rebuy table '{path}' cannot be read as a CSV, JSON or Parquet table ({first})."
        ) from None


def _whole(v) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return int(f) if math.isfinite(f) and f.is_integer() else None


def table_decisions(df, path: str = "table") -> dict[int, bool | None]:
    """Cell index -> rebuy (value > 0) for every row of ``df`` (None: no value, the
    fallback); one-sentence :class:`TableError` for a table that lacks a column, has a value
    no cell takes, lists a cell twice or has a cell beyond what the slots hold."""
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise TableError(
            f"Rebuy table '{path}' lacks the column{'s' if len(missing) > 1 else ''}"
            f" {', '.join(missing)}: save one with 'loba rebuy-value --mode state --save FILE'."
        )
    bands = {b: i for i, b in enumerate(gap_band_order())}
    out: dict[int, bool | None] = {}
    for r in df.select(NEEDED).iter_rows(named=True):
        pl_, ru, band = _whole(r["players_left"]), _whole(r["rebuys_used"]), r["gap_band"]
        where = (
            f"cell players_left={r['players_left']}, gap_band={band},"
            f" rebuys_used={r['rebuys_used']}"
        )
        if pl_ is None or not PL_MIN <= pl_ <= MAX_SEATS:
            raise TableError(
                f"Rebuy table '{path}', {where}: players_left must be a whole number from"
                f" {PL_MIN} to {MAX_SEATS}."
            )
        if str(band) not in bands:
            raise TableError(
                f"Rebuy table '{path}', {where}: gap_band must be one of"
                f" {', '.join(bands)} (the bands of GAP_EDGES)."
            )
        if ru is None or ru < 0:
            raise TableError(
                f"Rebuy table '{path}', {where}: rebuys_used must be a whole number of at least 0."
            )
        if ru > MAX_REBUYS_USED:
            raise TableError(
                f"Rebuy table '{path}' has a cell at rebuys_used={ru}: the rule's {SLOTS}"
                f" parameter slots hold {MAX_CELLS} cells, rebuys_used 0 to {MAX_REBUYS_USED}."
            )
        cell = int(table_cell(pl_, bands[str(band)], ru))
        if cell in out:
            raise TableError(f"Rebuy table '{path}' lists the {where} twice.")
        v = r["value"]
        try:
            v = None if v is None else float(v)
        except (TypeError, ValueError):
            raise TableError(f"Rebuy table '{path}', {where}: value must be a number.") from None
        if v is None or math.isnan(v):
            out[cell] = None  # no value: the fallback (rebuy), but the cell is listed
            continue
        out[cell] = v > 0
    return out


def pack(decisions: dict[int, bool | None]) -> tuple[float, ...]:
    """The decline bits of ``decisions`` (cell -> rebuy; None: fallback) in :data:`SLOTS`
    float64 values."""
    words = [0] * SLOTS
    for cell, yes in decisions.items():
        if not 0 <= cell < MAX_CELLS:
            raise TableError(f"Cell {cell} is beyond the {MAX_CELLS} cells the slots hold.")
        if yes is False:
            words[cell // BITS] |= 1 << (cell % BITS)
    return tuple(float(w) for w in words)


def load_table(path: str) -> tuple[dict[str, float], str | None]:
    """The ``table`` rule's parameter values read from ``path``, and the rules id the table
    was measured under (None when the file does not record one: a table printed with
    ``--format csv``). One-sentence :class:`TableError` for a file that cannot be used."""
    df = _read(path)
    rules_id = None
    if "rules_id" in df.columns:
        ids = [x for x in df["rules_id"].unique().to_list() if x is not None]
        if len(ids) > 1:
            raise TableError(
                f"Rebuy table '{path}' mixes decisions of several rule sets"
                f" ({', '.join(sorted(map(str, ids)))})."
            )
        rules_id = str(ids[0]) if ids else None
    words = pack(table_decisions(df, path))
    return dict(zip(PARAM_NAMES, words, strict=True)), rules_id

"""The 22 tiles of Three-Player Moon ([B1], [B2]): ids, notation and parsing.

A double-six set without the six blank non-doubles (1-0 ... 6-0); the 0-0 stays ([B1]). Tiles
are ids 0..21 in one fixed canonical order: by high end, then low end, ascending::

    0-0  1-1  2-1 2-2  3-1 3-2 3-3  4-1 .. 4-4  5-1 .. 5-5  6-1 .. 6-6

:data:`HI` / :data:`LO` give each id's high and low number, :data:`TILE_ID` ``[a, b]`` the id of
the tile bearing a and b (either order; -1 for a tile not in the set). Notation is high end
first, ``6-4``, doubles ``5-5``; input in either order is accepted ([B1]).

Suits ([B2]): suits 0..6; a non-double belongs to both its numbers' suits, a double only to its
own. Within a suit the double ranks highest, then the other tiles by their other number,
descending (:func:`suit_rank`). Trump contracts change this ([B6], :mod:`.tricks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

N_TILES = 22
N_SUITS = 7

_PAIRS = [(h, lo) for h in range(7) for lo in range(h + 1) if lo > 0 or h == 0]
assert len(_PAIRS) == N_TILES

HI = np.array([p[0] for p in _PAIRS], dtype=np.int8)  # high number of each tile id
LO = np.array([p[1] for p in _PAIRS], dtype=np.int8)  # low number of each tile id
TILE_ID = np.full((7, 7), -1, dtype=np.int8)  # [a, b] -> id, -1 if not in the set
for _i, (_h, _l) in enumerate(_PAIRS):
    TILE_ID[_h, _l] = _i
    TILE_ID[_l, _h] = _i


class TileError(ValueError):
    """A tile or list of tiles that cannot be read. The message is one sentence."""


def tile_str(tile: int) -> str:
    """``"6-4"`` (high end first), ``"5-5"`` for a double."""
    t = int(tile)
    if not 0 <= t < N_TILES:
        raise TileError(f"{tile} is not a tile id (0 to {N_TILES - 1}).")
    return f"{HI[t]}-{LO[t]}"


def tiles_str(tiles: Iterable[int]) -> str:
    return " ".join(tile_str(t) for t in tiles)


_TILE_RE = re.compile(r"^\s*([0-6])\s*[-:|/]?\s*([0-6])\s*$")


def parse_tile(text) -> int:
    """The id of a tile written ``"4-6"`` or ``"6-4"`` (also ``6:4``, ``64``); an id passes."""
    if isinstance(text, int | np.integer) and not isinstance(text, bool):
        if 0 <= int(text) < N_TILES:
            return int(text)
        raise TileError(f"{text} is not a tile id (0 to {N_TILES - 1}).")
    m = _TILE_RE.match(str(text))
    if not m:
        raise TileError(f"'{text}' is not a tile: write its two numbers 0-6 like 6-4 or 5-5.")
    a, b = int(m.group(1)), int(m.group(2))
    t = int(TILE_ID[a, b])
    if t < 0:
        raise TileError(
            f"'{text}' is not in the 22-tile set: the blank non-doubles 1-0 to 6-0 are removed"
            " [B1]."
        )
    return t


def parse_tiles(text, *, distinct: bool = True) -> list[int]:
    """Tile ids of ``"6-4 5-5, 3-2"`` (spaces or commas) or of a list of tiles/ids, in order.

    A set of tiles holds each tile once: a repeated tile is refused (``distinct=False`` allows
    it)."""
    if isinstance(text, str):
        parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    else:
        parts = list(text)
    out = [parse_tile(p) for p in parts]
    if distinct:
        seen: set[int] = set()
        for t in out:
            if t in seen:
                raise TileError(f"Tile {tile_str(t)} appears twice; each tile is in the set once.")
            seen.add(t)
    return out


def bears(tile: int, n: int) -> bool:
    """The tile shows the number ``n`` on one of its ends."""
    return int(HI[tile]) == n or int(LO[tile]) == n


def is_double(tile: int) -> bool:
    return int(HI[tile]) == int(LO[tile])


def suits_of(tile: int) -> tuple[int, ...]:
    """[B2] the suits a tile belongs to (no trump): both numbers, a double only its own."""
    h, lo = int(HI[tile]), int(LO[tile])
    return (h,) if h == lo else (h, lo)


def suit_rank(tile: int, suit: int) -> int:
    """[B2] rank of ``tile`` within ``suit`` (7 = the double, else the other number), -1 if the
    tile is not in the suit."""
    h, lo = int(HI[tile]), int(LO[tile])
    if h == lo:
        return 7 if h == suit else -1
    if h == suit:
        return lo
    if lo == suit:
        return h
    return -1


def suit_tiles(suit: int) -> list[int]:
    """[B2] the tiles of ``suit``, highest first."""
    ts = [t for t in range(N_TILES) if suit_rank(t, suit) >= 0]
    return sorted(ts, key=lambda t: -suit_rank(t, suit))


ALL_TILES = tuple(range(N_TILES))

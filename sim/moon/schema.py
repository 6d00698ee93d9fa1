"""Moon's tables: the one declaration of every column of ``games``, ``seats`` and ``hands``.

Parquet column names and types, the kernel's record layouts (:data:`GR`, :data:`SR`,
:data:`HR`: one field per column the kernel fills) and the column lists in the docs all come
from here. Columns with a ``source`` are filled by the boundary (:mod:`sim.schema`): ``game``,
``seed``, ``rules_id``, ``n_players``, ``seat``, ``policy``, and ``round`` — which the
``hands`` table names ``hand`` (its detail level is one row per hand, redeals included).

Kernel arrays (``Table.empty_array(count, MAX_SEATS, cap)``): ``games`` int64[count, GR.SIZE],
``seats`` int64[count, 3, SR.SIZE], ``hands`` int32[count, cap, HR.SIZE] (``per_seat=False``;
pass shape (1, 0, HR.SIZE) when hand records are not wanted).
"""

from __future__ import annotations

from ..schema import Column as C
from ..schema import Table, game_keys, seat_keys
from .layout import END_LABELS, TRUMP_NAMES

GAMES = Table(
    "games",
    "one row per game",
    (
        *game_keys("players at the table (3)"),
        C("winner", "int8", "winning seat (null if unfinished, [B11])", null_below=0),
        C(
            "end",
            "enum",
            "how the game ended: target [B10], moon (moon=instant [B9]), cap [B11]",
            labels=END_LABELS,
        ),
        C("hands", "int32", "hands dealt, redeals included ([B11])"),
        C("redeals", "int32", "hands void because all passed ([B4])"),
        C("first_bidder", "int8", "first bidder of the game ([B4])"),
        C("moons_tried", "int32", "hands bid at 21"),
        C("moons_made", "int32", "moons that took all 7 tricks"),
        C("decisions", "int64", "policy decisions taken (single-option plays are not asked)"),
    ),
)

SEATS = Table(
    "seats",
    "one row per game and seat",
    (
        *seat_keys(),
        C("final_score", "int32", "cumulative score at the end"),
        C("place", "int8", "1 = winner; the others by final score (ties share a place)"),
        C("bids", "int32", "times this seat bid rather than passed"),
        C("bids_won", "int32", "hands it played as the bidder"),
        C("contracts_made", "int32", "bids made ([B9])"),
        C("contracts_set", "int32", "bids set ([B9])"),
        C("moons_tried", "int32", "hands it bid 21"),
        C("moons_made", "int32", "moons it made"),
        C("tricks", "int32", "tricks taken over the game"),
        C("bad_answers", "int32", "out-of-range policy answers (read as the first option)"),
    ),
)

HANDS = Table(
    "hands",
    "one row per game and hand, redeals included (with --rounds)",
    (
        C("game", "int64", "game index", source="game"),
        C("hand", "int32", "hand number, 1-based, redeals included", source="round"),
        C("opener", "int8", "first bidder of the hand ([B4])"),
        C("redeal", "bool", "all passed: the hand was void ([B4])"),
        C("bidder", "int8", "the high bidder (null for a redeal)", null_below=0),
        C("bid", "int8", "the winning bid, 4-7 or 21 (null for a redeal)", null_below=1),
        C(
            "trump",
            "int8",
            "contract: 0-6 a number, 7 doubles, 8 no trump (null for a redeal) ([B5])",
            null_below=0,
        ),
        C("discard", "int8", "the dead tile's id (null for a redeal) ([B5])", null_below=0),
        C("widow_kept", "bool", "the bidder kept the widow (discarded another tile)"),
        C("tricks_0", "int8", "tricks taken by seat 0"),
        C("tricks_1", "int8", "tricks taken by seat 1"),
        C("tricks_2", "int8", "tricks taken by seat 2"),
        C("made", "bool", "the bidder made the bid ([B9])"),
        C("score_0", "int32", "seat 0's score after the hand"),
        C("score_1", "int32", "seat 1's score after the hand"),
        C("score_2", "int32", "seat 2's score after the hand"),
    ),
    detail=True,
    count_from="hands",
    per_seat=False,
    detail_name="hand",
)

TABLES = (GAMES, SEATS, HANDS)
GR = GAMES.kernel_enum("GR")  # games_out row: GR.WINNER, ..., GR.SIZE
SR = SEATS.kernel_enum("SR")
HR = HANDS.kernel_enum("HR")
CONTRACT_LABELS = TRUMP_NAMES  # the ``trump`` column's codes, 0..8

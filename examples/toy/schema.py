"""Toy Tricks' tables: ``games``, ``seats`` and the detail table ``hands`` (one row per game,
hand and seat, with ``--rounds``)."""

from __future__ import annotations

from sim.schema import Column as C
from sim.schema import Table, game_keys, seat_keys

END_LABELS = ("none", "target", "cap")

GAMES = Table(
    "games",
    "one row per game",
    (
        *game_keys("players at the table (2-4)"),
        C("winner", "int8", "winning seat (null if unfinished, [T6])", null_below=0),
        C("end", "enum", "how the game ended: target [T5], cap [T6]", labels=END_LABELS),
        C("hands", "int32", "hands dealt"),
        C("first_leader", "int8", "the game's first leader ([T2])"),
        C("tricks", "int32", "tricks played"),
        C("lead_wins", "int32", "tricks won by the seat that led them ([T3])"),
        C("decisions", "int64", "policy decisions taken (single-option plays are not asked)"),
    ),
)

SEATS = Table(
    "seats",
    "one row per game and seat",
    (
        *seat_keys(),
        C("final_score", "int32", "score at the end"),
        C("place", "int8", "1 = winner; the others by final score (ties share a place)"),
        C("tricks", "int32", "tricks taken over the game"),
        C("leads", "int32", "tricks it led"),
        C("bad_answers", "int32", "out-of-range policy answers (read as the first option)"),
    ),
)

HANDS = Table(
    "hands",
    "one row per game, hand and seat (with --rounds)",
    (
        C("game", "int64", "game index", source="game"),
        C("hand", "int32", "hand number, 1-based", source="round"),
        C("seat", "int8", "seat 0..n-1", source="seat"),
        C("led", "bool", "the seat led the hand's first trick ([T2])"),
        C("tricks", "int8", "tricks it took this hand"),
        C("points", "int16", "points it scored this hand ([T4])"),
        C("score", "int32", "its score after the hand"),
    ),
    detail=True,
    count_from="hands",
    detail_name="hand",
)

TABLES = (GAMES, SEATS, HANDS)
GR = GAMES.kernel_enum("GR")
SR = SEATS.kernel_enum("SR")
HR = HANDS.kernel_enum("HR")

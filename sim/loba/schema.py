"""Loba's tables: the one declaration of every column of ``games``, ``seats`` and ``rounds``.

Parquet column names and types, the manifest's table list, :mod:`analysis.io`'s required
columns, the README's tables and the kernel's record layouts (:data:`GR`, :data:`SR`,
:data:`RR`: one field per column the kernel fills) all come from here.
"""

from __future__ import annotations

from ..rules import make_enum
from ..schema import Column as C
from ..schema import Table, game_keys, seat_keys

RS_LABELS = ("active", "over", "rebought", "eliminated")
# ACTIVE; OVER: went over this round and is out for good; REBOUGHT; ELIMINATED: out before
RS = make_enum("RS", [s.upper() for s in RS_LABELS])

GAMES = Table(
    "games",
    "one row per game",
    (
        *game_keys(),
        C("winner", "int8", "winning seat (null if unfinished, [A14b])", null_below=0),
        C("rounds", "int32", "rounds played, void ones included"),
        C("turns", "int32", "turns taken"),
        C("void_rounds", "int32", "void rounds ([A14])"),
        C("pot", "int64", "stakes and rebuy payments in the pot"),
        C("reshuffles", "int32", "stock rebuilds ([A13])"),
        C("one_turn_bonuses", "int32", "one-turn bonuses ([A28])"),
        C("first_dealer", "int8", "first dealer's seat ([A5])"),
        C("decisions", "int64", "policy decisions taken"),
    ),
)

SEATS = Table(
    "seats",
    "one row per game and seat",
    (
        *seat_keys(),
        C("final_score", "int32", "cumulative score at the end"),
        C("rebuys", "int16", "rebuys taken ([A30])"),
        C("eliminated_round", "int32", "round of elimination (null for the winner)", null_below=0),
        C("place", "int8", "1 = winner"),
        C("paid", "int64", "stakes and rebuys paid"),
        C("won", "int64", "pot taken"),
        C("net", "int64", "won - paid", source="won-paid"),
        C("bad_answers", "int32", "decisions answered out of range (read as the fallback)"),
    ),
)

ROUNDS = Table(
    "rounds",
    "one row per game, round and seat",
    (
        C("game", "int64", "game index", source="game"),
        C("round", "int32", "round number, 1-based", source="round"),
        C("seat", "int8", "seat", source="seat"),
        C("dealer", "int8", "the round's dealer"),
        C("went_out", "bool", "this seat went out"),
        C("one_turn_bonus", "bool", "went out with the one-turn bonus ([A28])"),
        C("penalty", "int32", "score change this round"),
        C("score_after", "int32", "cumulative score after the round"),
        C("status", "enum", "active / over / rebought / eliminated", labels=RS_LABELS),
        C("turns", "int32", "turns in the round"),
        C("reshuffles", "int32", "stock rebuilds in the round"),
        C("void", "bool", "the round was void ([A14])"),
    ),
    detail=True,
)

TABLES = (GAMES, SEATS, ROUNDS)
GR = GAMES.kernel_enum("GR")  # games_out row: GR.WINNER, ..., GR.SIZE
SR = SEATS.kernel_enum("SR")
RR = ROUNDS.kernel_enum("RR")

"""Array layouts shared by the Moon kernel, its policies and the Python boundary.

Each layout is a NamedTuple of offsets built by :func:`sim.rules.make_enum` (``G.HAND``,
``S.SCORE``, ``PUB.TRICKS``), with ``SIZE`` derived from the parts; Numba folds the fields into
compiled code as constants. Everything a game is lives in a :class:`State` of arrays, so a game
can be copied at any decision and both copies played on.

Encodings used everywhere in the package:

* tile: id 0..21 (:mod:`sim.moon.tiles`), -1 = none.
* trump (contract): 0..6 a number, :data:`DOUBLES` = 7, :data:`NO_TRUMP` = 8, -1 not named yet.
* bid: 4, 5, 6, 7 or :data:`MOON_BID` = 21; :data:`PASS` = 0; -1 = has not spoken.
* led suit ([B7]): 0..6, or :data:`LED_TRUMP` = 7 when a trump was led.
"""

from __future__ import annotations

from collections import namedtuple

from ..events import EV  # noqa: F401  (the shared event layout: EV.ROUND is the hand number)
from ..rules import make_enum
from .rules import RULE

MAX_SEATS = 3
N_TILES = 22
HAND_SIZE = 7
N_TRICKS = 7
N_PLAYS = MAX_SEATS * N_TRICKS  # 21 tiles played per hand
MAX_ACTS = (HAND_SIZE + 1) * 9  # widest option list: 8 tiles x 9 contracts

# --- contracts, bids, led suits ---
TRUMP = make_enum("TRUMP", ["N0", "N1", "N2", "N3", "N4", "N5", "N6", "DOUBLES", "NO_TRUMP"])
DOUBLES = TRUMP.DOUBLES
NO_TRUMP = TRUMP.NO_TRUMP
N_CONTRACTS = TRUMP.SIZE  # 9
TRUMP_NAMES = ("0", "1", "2", "3", "4", "5", "6", "doubles", "no_trump")
LED_TRUMP = 7
PASS = 0
MOON_BID = 21
BIDS = (4, 5, 6, 7, 21)  # [B4] the legal bid values, ascending

# --- decisions (PUB.DECISION) and their option rows (int16[MAX_ACTS, A.SIZE]) ---
# BID      acts[i, A.BID]: PASS (0) or a bid; rows ascending, pass first when allowed
# DECLARE  (trump_before_widow=false) acts[i, A.TILE] = discard, acts[i, A.TRUMP] = contract:
#          every held tile (8, the widow included) x every legal contract, tile-major
# TRUMP    (trump_before_widow=true, before the widow) acts[i, A.TILE] = -1, A.TRUMP = contract
# DISCARD  (trump_before_widow=true, after the widow) acts[i, A.TILE] = tile, A.TRUMP = trump
# PLAY     acts[i, A.TILE]: a legal tile ([B7]), in tile-id order
DEC = make_enum("DEC", ["BID", "DECLARE", "TRUMP", "DISCARD", "PLAY"])
A = namedtuple("A", ["TILE", "TRUMP", "SIZE", "BID"])(0, 1, 2, 0)

# --- game scalars (int64[G.SIZE]) ---
G = make_enum(
    "G",
    [
        "HAND",  # hands dealt so far, redeals included (the current hand's number, 1-based)
        "FIRST_BIDDER",  # first bidder of the game ([B4])
        "OPENER",  # first bidder of the current hand
        "BIDDER",  # high bidder of the current hand, -1 none (auction under way or redeal)
        "BID",  # current high bid, 0 none
        "TRUMP",  # contract, -1 until named
        "WIDOW",  # the widow tile of the current hand
        "DISCARD",  # the bidder's dead tile, -1 until discarded
        "TRICK",  # tricks completed in the current hand
        "LEADER",  # leader of the trick under way
        "NPLAYED",  # tiles played in the current hand
        "MADE",  # the current hand's bidder made the bid (after scoring)
        "REDEALS",  # hands void because all passed ([B4])
        "MOONS_TRIED",
        "MOONS_MADE",
        "WINNER",  # -1 until the game ends (and for an unfinished game)
        "END",  # END.*: how the game ended
        "DECISIONS",  # policy decisions taken in the game
        "PHASE",  # PH.*: what the next step() does
        "WINNERS",  # + trick: winner of each completed trick of the current hand, -1 after
    ],
    {"WINNERS": N_TRICKS},
)
# DEAL: deal the next hand (or end the game at the cap); BID: the auction; DECLARE: widow,
# discard and trump; PLAY: tricks; SETTLE: the hand is over, check the end of the game
PH = make_enum("PH", ["DEAL", "BID", "DECLARE", "PLAY", "SETTLE", "DONE"])
END_LABELS = ("none", "target", "moon", "cap")
END = make_enum("END", [s.upper() for s in END_LABELS])

# --- seat scalars (int64[MAX_SEATS, S.SIZE]) ---
S = make_enum(
    "S",
    [
        "SCORE",
        "TRICKS",  # tricks taken in the current hand
        "SAID",  # this hand's call: -1 not yet, PASS, or the bid
        "DELTA",  # last hand's score change
        "BIDS",  # times this seat bid (did not pass)
        "BIDS_WON",  # times it became the bidder
        "MADE",  # contracts made
        "SET",  # contracts set
        "MOONS_TRIED",
        "MOONS_MADE",
        "TRICKS_TOTAL",
        "BAD",  # out-of-range answers of its policy (read as the first option)
        "PLACE",
        "BITS",  # the seat's tiles as bits (bit t = tile t), kept with ``hands``
    ],
)

# --- the policies' record of the hand's play (int16[PL.SIZE]) — rules document B.5 ---
# TILE + k, SEAT + k: the k-th tile played this hand and who played it (k < PUB.NPLAYED; trick
# j is plays 3j..3j+2, led by PUB.WINNERS + j-1, or the bidder for j = 0);
# BY + tile: the seat that played that tile this hand, -1 if not played
PL = make_enum("PL", ["TILE", "SEAT", "BY"], {"TILE": N_PLAYS, "SEAT": N_PLAYS, "BY": N_TILES})

# --- public view handed to policies (int32[PUB.SIZE]) — rules document B.5 ---
PUB = make_enum(
    "PUB",
    [
        "SEAT",  # the deciding seat
        "DECISION",  # DEC.*
        "HAND",  # hand number, 1-based, redeals included
        "OPENER",  # first bidder of this hand
        "BIDDER",  # -1 during the auction
        "BID",  # high bid so far (0 none)
        "TRUMP",  # contract, -1 until named
        "WIDOW",  # the widow: only for the bidder once taken, else -1
        "DISCARD",  # the dead tile: only for the bidder once discarded, else -1
        "TRICK",  # tricks completed this hand (the trick under way is number TRICK, 0-based)
        "LEADER",  # leader of the trick under way
        "NPLAYED",  # tiles played this hand
        "LED",  # tile led to the trick under way, -1 when the deciding seat leads
        "CALLS",  # + seat: this hand's calls, -1 not yet spoken, 0 pass, else the bid
        "TRICKS",  # + seat: tricks taken this hand
        "SCORE",  # + seat: cumulative scores
        "WINNERS",  # + trick: winner of each completed trick this hand, -1 after
        "RULES",  # + RULE.*: the rule set
    ],
    {
        "CALLS": MAX_SEATS,
        "TRICKS": MAX_SEATS,
        "SCORE": MAX_SEATS,
        "WINNERS": N_TRICKS,
        "RULES": RULE.SIZE,
    },
)

# --- event trace (sim.moon.trace): the shared layout of sim.events (EV.ROUND = the hand) ---
# SEAT: -1 when no seat; OFF, LEN: the event's payload in the payload array

# Event types (EV.TYPE):
# START    a=first bidder of the game
# DEAL     seat=opener; payload: seat 0's 7 tiles, seat 1's, seat 2's, then the widow
# BID      seat, a=bid (PASS = 0)
# REDEAL   all passed: the hand is void
# TRUMP    seat=bidder a=contract
# WIDOW    seat=bidder a=widow tile
# DISCARD  seat=bidder a=tile
# PLAY     seat a=tile b=trick (0-based)
# TRICK    seat=winner a=trick (0-based)
# SCORE    seat=bidder a=bid b=bidder's tricks c=made; payload: deltas per seat, then scores
# BAD      seat a=DEC.* b=the out-of-range answer (read as the first option)
# END      seat=winner (-1 unfinished) a=END.* b=hands
E = make_enum(
    "E",
    [
        "NONE",
        "START",
        "DEAL",
        "BID",
        "REDEAL",
        "TRUMP",
        "WIDOW",
        "DISCARD",
        "PLAY",
        "TRICK",
        "SCORE",
        "BAD",
        "END",
    ],
)

N_RNG = 2 + 2 * MAX_SEATS  # the deal stream, then one policy stream per seat

# --- scratch arrays of one game (engine.new_bufs): the decision view's copies and the deal's list
Scratch = namedtuple(
    "Scratch", ["pub", "acts", "opts", "own", "played", "params", "tiles", "rng", "trust"]
)
Scratch.__doc__ = """Per-game scratch arrays: pub int32[PUB.SIZE] (the public view), acts
int16[MAX_ACTS, A.SIZE] (the options as the seat sees them), opts int16[MAX_ACTS, A.SIZE] (the
engine's own), own int8[N_TILES] / played int16[PL.SIZE] / params float64[N_PARAMS] / rng
uint64[2] (the deciding seat's copies), tiles int64[N_TILES] (a deal's tile list), trust
int8[MAX_SEATS] (1: the seat plays one of the game's own policies, which never write what they
are handed, and is handed the game's own arrays instead of copies; 0 everywhere unless the
batch kernel is told otherwise)."""

State = namedtuple("State", ["hands", "played", "g", "s", "rng"])
State.__doc__ = """One game's whole state, all arrays (copy every field to fork a game).

hands int8[MAX_SEATS, N_TILES]: 1 where the seat holds the tile; played int16[PL.SIZE]: the
hand's public record of play; g int64[G.SIZE]; s int64[MAX_SEATS, S.SIZE]; rng uint64[N_RNG]:
``rng[0:2]`` the game's deal stream (shuffles, first bidder) and ``rng[2+2q:4+2q]`` seat q's
own policy stream, so no policy can learn the deal or another seat's draws from a generator.
"""

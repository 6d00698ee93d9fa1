"""Array layouts shared by the Loba kernel, its policies and the Python boundary.

Each layout is a NamedTuple of offsets (``G.ROUND``, ``S.SCORE``, ``PUB.HAND_N``) built by
:func:`sim.rules.make_enum` from its field names, with ``SIZE`` derived from the parts; Numba
folds the fields into compiled code as constants. Labels appear only at the boundary
(:mod:`sim.loba.schema`). Everything a game is lives in a :class:`State` of arrays, so a game can
be copied (forked) at any decision and both copies played on.
"""

from __future__ import annotations

from collections import namedtuple

from ..rules import make_enum
from .rules import KNOBS as RULE_KNOBS
from .rules import RULE

MAX_SEATS = 5
N_IDS = 53  # 52 natural identities + the joker identity (sim.loba.cards)
HAND_W = 56  # a hand row: the 53 counts padded to whole 8-byte words (moves.suit_masks)
JOKER = 52
MAX_CARDS = 52 * 3 + 8  # largest deck the rule knobs allow
MAX_MELDS = 64
PARAMS_W = 16  # a seat's parameter row: the policy's 8 slots and the rebuy rule's 8 (api.py)
MEM_N = 16  # a seat's memory: float64 slots the engine keeps between its decisions (api.py)

# --- table meld row (int16[MAX_MELDS, M.SIZE]) ---
# KIND: MELD.*; KEY: pierna rank 1..13 / escalera suit 0..3; LO, HI: escalera positions 1..14;
# JMASK: escalera, bit p set = a joker stands at position p; N: cards in the meld;
# C0: pierna, copies of suit s at C0 + s; OWNER: the seat that put it down
M = make_enum("M", ["KIND", "KEY", "LO", "HI", "JMASK", "N", "C0", "OWNER"], {"C0": 4})
MELD = make_enum("MELD", ["PIERNA", "ESCALERA"])

# --- play option row (int16[k, A.SIZE], k = moves.options_bound); also draw/discard/rebuy ---
# new meld: KIND = MELD.*, KEY = rank or suit, LO = escalera lo / pierna copies per suit (two
# bits per suit, moves.pierna_count), HI = escalera hi, JMASK, N = cards taken from hand.
# Lay-off: MELD = meld index, CARD = identity, POS = position (-1 pierna), MOVE = the joker's
# new position (0 = no move).
_A = ["TYPE", "KIND", "KEY", "LO", "HI", "JMASK", "N"]
A = namedtuple("A", [*_A, "SIZE", "MELD", "CARD", "POS", "MOVE"])(
    *range(len(_A)), len(_A), 1, 2, 3, 4
)
PLAY = make_enum("PLAY", ["MELD", "LAYOFF"])

# draw options: acts[i, 0] = DRAW.*; discard options: acts[i, 0] = card id;
# rebuy options: acts[i, 0] = 0 (decline) | 1 (rebuy)
DRAW = make_enum("DRAW", ["STOCK", "DISCARD"])

# --- game scalars (int64[G.SIZE]) ---
G = make_enum(
    "G",
    [
        "NP",  # players at the table
        "ROUND",  # rounds started so far (current round number, 1-based)
        "DEALER",
        "FIRST_DEALER",
        "CUR",  # seat on turn
        "TURN",  # turns taken in the current round
        "TURNS",  # turns taken in the game
        "STOCK_N",
        "PILE_N",
        "NMELDS",
        "POT",
        "VOIDS",
        "RESHUFFLES",  # stock rebuilds in the current round
        "RESHUFFLES_TOTAL",
        "WINNER",  # -1 until the game ends (and for an unfinished game)
        "DONE",
        "TAKEN",  # identity taken from the discard this turn and not yet on the table, else -1
        "BONUSES",  # one-turn bonuses in the game
        "DECISIONS",  # policy decisions taken in the game
        "OUT",  # seat that went out in the last round, -1 for a void round
        "VOID_REASON",  # VOID.* of the last round
        "DECK_N",  # cards in the deck
        "PHASE",  # PH.*: what the next step() does
        "REBUY_SCORE",  # the score a rebuy gives in the round being settled ([A30])
        "HIST_N",  # rows of the round's public history (State.hist) so far
        "HIST_LOST",  # history rows of this round not recorded: the history was full
        "TURN_AT",  # TAT.*: where the next turn starts (a position set up mid-turn), else 0
        "PLACED_BEFORE",  # with TURN_AT: the seat to move put cards down before this turn
        # the cards some lay-off could use (options.lay_wants): bit c set when a card of
        # identity c fits some table meld now; LAY_W + i: meld i's own bits; LAY_OK: 1 while
        # these match the table (0 in a zeroed state, after a deal or a position set up by
        # hand: computed again before the next lay-off search)
        "LAY_OK",
        "LAY_WANT",
        # for the take rule's cheap test (options.take_may_work), the same way: TK_NEAR, the
        # naturals a meld takes, with bit 58 + s (an escalera of suit s has room for a joker);
        # TK_ENDS, the naturals an escalera takes (past an end, an end joker's card: a chain
        # of lay-offs starts with one); TK_D + i / TK_E + i: meld i's own
        "TK_NEAR",
        "TK_ENDS",
        # (the per-meld rows last: state.copy_state copies only the rows of the melds in use)
        "LAY_W",
        "TK_D",
        "TK_E",
    ],
    {"LAY_W": MAX_MELDS, "TK_D": MAX_MELDS, "TK_E": MAX_MELDS},
)
# where a turn starts: at the draw (every turn of a game), or, for a position set up by hand,
# after the draw (about to play) or at the discard
TAT = make_enum("TAT", ["DRAW", "PLAY", "DISCARD"])
# SETTLE: a round has been scored; rebuys and elimination come next
PH = make_enum("PH", ["DEAL", "TURN", "DONE", "SETTLE"])
# STOCK: [A14] nothing to draw; TURN_CAP: [A14] max_turns_per_round reached
VOID = make_enum("VOID", ["NONE", "STOCK", "TURN_CAP"])

# --- seat scalars (int64[MAX_SEATS, S.SIZE]) ---
S = make_enum(
    "S",
    [
        "SCORE",
        "REBUYS",
        "STATUS",  # ST.*
        "HAND_N",
        "MELDED",  # put down a meld of their own this round ([A20])
        "PLACED",  # put any card on the table this round ([A28])
        "PAID",
        "ELIM_ROUND",  # round of elimination, -1 if still in
        "PLACE",
        "WON",
        "PENALTY",  # last round's score change
        "BONUS",  # last round: went out with the one-turn bonus
        "BAD_ANSWERS",  # decisions answered out of range (read as the fallback, gate.decide)
        "MELD_FREE",  # 1: the hand held no new meld at the end of the seat's last turn
    ],
)
ST = make_enum("ST", ["ACTIVE", "OVER", "OUT"])  # OVER: transient, during [A29]-[A32]

# --- public view handed to policies (int32[PUB.SIZE]) — rules document A.8 ---
PUB = make_enum(
    "PUB",
    [
        "SEAT",  # the deciding seat
        "NP",
        "STOCK_N",
        "PILE_N",
        "ROUND",
        "TURN",
        "DEALER",
        "MELDED",  # the deciding seat has a meld of its own this round
        "PLACED",  # the deciding seat has put cards on the table this round
        "TAKEN",  # identity taken from the discard and still owed to the table, else -1
        "NMELDS",
        "DECISION",  # DEC.*
        "REBUY_SCORE",  # rebuy decision: the score a rebuy would give
        "ACTIVE",  # players still in the game (not out for good)
        "HIST_LOST",  # history rows of this round not recorded (full history, HIST_CAP)
        "HAND_N",  # + seat: cards in each hand
        "SCORE",  # + seat
        "REBUYS",  # + seat
        "STATUS",  # + seat (ST.*)
        "RULES",  # + R.*: the rule set
    ],
    {
        "HAND_N": MAX_SEATS,
        "SCORE": MAX_SEATS,
        "REBUYS": MAX_SEATS,
        "STATUS": MAX_SEATS,
        "RULES": RULE.SIZE,
    },
)
DEC = make_enum("DEC", ["DRAW", "PLAY", "DISCARD", "REBUY"])
# the policies the engine has its own copy of (sim.loba.policies marks them): a seat's id sits
# in its parameter row at PARAMS_W, past what its decision functions see (gate.decide)
BUILTIN = make_enum("BUILTIN", ["NONE", "GREEDY"])

# --- the round's public history (int16[HIST_CAP, H.SIZE]), handed to policies (api.py) ---
# One row per public event of the round, oldest first: TYPE (HT.*), SEAT, TURN (turn of the
# round, from 0), then by type
#   DRAW     KIND = DRAW.*, CARD = the card taken from the discard pile, -1 from the stock
#   MELD     MELD = meld index, KIND = MELD.*, KEY = rank / suit; escalera P0, P1, P2 = lo, hi,
#            jmask; pierna P0..P3 = copies of suits 0..3
#   LAYOFF   MELD = meld index, CARD = the card, P0 = position (-1 pierna), P1 = the joker's new
#            position (0 = no move)
#   DISCARD  CARD = the card
#   REBUY    KIND = 1 rebought / 0 declined, P0 = rebuys used after it (settling a round)
# Unused columns are 0. A round's rows: at most a draw and a discard per turn, a play per card
# put on the table and a rebuy decision per seat, so HIST_CAP covers the default
# max_turns_per_round; past it rows are dropped and counted (G.HIST_LOST, PUB.HIST_LOST).
H = make_enum("H", ["TYPE", "SEAT", "TURN", "CARD", "MELD", "KIND", "KEY", "P0", "P1", "P2", "P3"])
HT = make_enum("HT", ["DRAW", "MELD", "LAYOFF", "DISCARD", "REBUY"])
HIST_TURNS = next(k.default for k in RULE_KNOBS if k.name == "max_turns_per_round")
HIST_CAP = 2 * HIST_TURNS + MAX_CARDS + MAX_SEATS

# --- per-game, per-seat and per-round record rows: derived from the tables' declaration ---
# --- event trace (sim.loba.trace): int32[cap, EV.SIZE] rows + an int16 payload array ---
# SEAT: -1 when no seat; OFF, LEN: the event's payload in the payload array
from ..events import EV, TC, Trace  # noqa: E402, F401  (the shared event layout)
from .schema import GR, RR, RS, RS_LABELS, SR  # noqa: E402, F401  (re-exported for the kernel)

# Event types (EV.TYPE):
# DEAL     a=dealer b=upcard; payload: per seat (k, k cards), then the stock top first
# DRAW     a=DRAW.* b=card
# REBUILD  payload: the new stock top first
# MELD     a=meld id b=kind c=key; payload escalera (lo, hi, jmask) | pierna (c0..c3)
# LAYOFF   a=meld id b=card c=position (-1 pierna) d=joker's new position (0 none)
# DISCARD  b=card
# OUT      a=one-turn bonus
# VOID     a=VOID.* reason
# SCORE    payload: penalties per seat, then scores per seat
# OVER     a=score
# REBUY    a=new score b=pot after c=rebuys used
# ELIM     a=score
# END      a=winner (-1 unfinished) b=rounds c=pot
E = make_enum(
    "E",
    [
        "NONE",
        "DEAL",
        "DRAW",
        "REBUILD",
        "MELD",
        "LAYOFF",
        "DISCARD",
        "OUT",
        "VOID",
        "SCORE",
        "OVER",
        "REBUY",
        "ELIM",
        "END",
    ],
)

# --- the seats' decision functions: one tuple (an entry per seat) per decision kind ---
SeatFns = namedtuple("SeatFns", ["draw", "play", "discard", "rebuy"])

# --- scratch arrays of one game (state.new_bufs) and the event trace (sim.events.new_trace) ---
Scratch = namedtuple(
    "Scratch",
    [
        "acts",
        "plan",
        "pub",
        "hand",
        "melds",
        "rstat",
        "rest",
        "seen",
        "queue",
        "arena",
    ],
)
Scratch.__doc__ = """Per-game scratch arrays: acts int16[k, A.SIZE] (the engine's options;
k = moves.options_bound), plan int16[k, A.SIZE] (trial options of the take rule), pub
int32[PUB.SIZE] (the public view, rules filled in), hand int8[HAND_W] and melds
int16[MAX_MELDS, M.SIZE] (trial copies), rstat int64[MAX_SEATS] (each seat's status in the
round being settled, RS.*); for the take rule (sim.loba.takes): rest int8[HAND_W] (a trial
hand), seen int64[2^k] (a set of escalera states, all -1 between searches) and queue
int64[takes.search_bound]; arena uint8[MAX_SEATS, AR_ACTS + 2 k A.SIZE + ARENA_PAD]: each
plug-in seat's copy of its view (gate.ask_arena; the offsets are AR_*).
"""


TakeScratch = namedtuple("TakeScratch", ["hand", "melds", "plan", "rest", "seen", "queue"])
TakeScratch.__doc__ = """The arrays of a :class:`Scratch` (the fields of the same names) that
the take rule's trials use ([A12], sim.loba.options.keep_placeable): handed to its out-of-line
work instead of the whole scratch, since a call passes every field of every array it is
handed (measured: docs/performance.md)."""

def _r8(n: int) -> int:
    return -(-n // 8) * 8


# --- a plug-in seat's arena (gate.ask_arena): byte offsets of its view's copies in its row ---
ARENA_PAD = 4096  # bytes of zeros before and after: a read or write that far past an end stays
AR_HAND = ARENA_PAD  # in the seat's own row
AR_MELDS = AR_HAND + _r8(N_IDS)
AR_PILE = AR_MELDS + _r8(MAX_MELDS * M.SIZE * 2)
AR_PUB = AR_PILE + _r8(MAX_CARDS * 2)
AR_PARAMS = AR_PUB + _r8(PUB.SIZE * 4)
AR_RNG = AR_PARAMS + PARAMS_W * 8
AR_HIST = AR_RNG + 16
AR_MEM = AR_HIST + _r8(HIST_CAP * H.SIZE * 2)
AR_ACTS = AR_MEM + MEM_N * 8  # then the options, k rows, and ARENA_PAD


State = namedtuple("State", ["hands", "melds", "stock", "pile", "g", "s", "rng", "hist", "mem"])
State.__doc__ = """One game's whole state, all arrays (copy every field to fork a game).

hands int8[MAX_SEATS, HAND_W] card counts (identities 0..52, then zero padding); melds
int16[MAX_MELDS, M.SIZE]; stock/pile int16[MAX_CARDS] card identities bottom..top (top =
index n-1); g int64[G.SIZE]; s int64[MAX_SEATS, S.SIZE]; rng uint64[2 + 2 MAX_SEATS]: the
game's stream ``rng[0:2]`` (deals, first dealer, stock rebuilds) and seat q's own
``rng[2+2q:4+2q]`` (sim.rng.seed_game), separate so that no policy can learn the deal or steer
another seat; hist int16[HIST_CAP, H.SIZE]: the round's public history, ``g[G.HIST_N]`` rows;
mem float64[MAX_SEATS, MEM_N]: each seat's memory (zeroed at game start).
"""

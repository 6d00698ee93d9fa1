"""Array layouts shared by the Loba kernel, its policies and the Python boundary.

Enums are plain module-level ints (Numba folds them into compiled code as literals); labels
appear only at the boundary (:mod:`sim.results`). Everything a game is lives in a
:class:`State` of arrays, so a game can be copied (forked) at any decision and both copies
played on.
"""

from __future__ import annotations

from collections import namedtuple

MAX_SEATS = 5
N_IDS = 53  # 52 natural identities + the joker identity (sim.cards)
HAND_W = 56  # a hand row: the 53 counts padded to whole 8-byte words (moves.suit_masks)
JOKER = 52
MAX_CARDS = 52 * 3 + 8  # largest deck the rule knobs allow
MAX_MELDS = 64

# --- table meld row (int16[MAX_MELDS, MF]) ---
M_KIND = 0  # MELD_PIERNA | MELD_ESCALERA
M_KEY = 1  # pierna: rank 1..13; escalera: suit 0..3
M_LO = 2  # escalera: lowest position 1..14
M_HI = 3  # escalera: highest position
M_JMASK = 4  # escalera: bit p set = a joker stands at position p
M_N = 5  # cards in the meld
M_C0 = 6  # pierna: copies of suit 0..3 at M_C0 + suit
M_OWNER = 10  # seat that put it down
MF = 11
MELD_PIERNA = 0
MELD_ESCALERA = 1

# --- play action row (int16[MAX_ACTS, AF]); also used for draw/discard/rebuy options ---
A_TYPE = 0  # PLAY_MELD | PLAY_LAYOFF
A_KIND = 1  # new meld: MELD_*            | lay-off: meld index
A_KEY = 2  # new meld: rank or suit       | lay-off: card identity
A_LO = 3  # new meld: lo (escalera) / suit mask (pierna) | lay-off: position (-1 pierna)
A_HI = 4  # new meld: hi                  | lay-off: joker's new position (0 = no move)
A_JMASK = 5  # new meld: joker mask
A_N = 6  # cards the play takes from hand
AF = 7
PLAY_MELD = 0
PLAY_LAYOFF = 1
A_MELD = A_KIND
A_CARD = A_KEY
A_POS = A_LO
A_MOVE = A_HI
MAX_ACTS = 256

# draw options: acts[i, 0] = DRAW_STOCK | DRAW_DISCARD; discard options: acts[i, 0] = card id;
# rebuy options: acts[i, 0] = 0 (decline) | 1 (rebuy)
DRAW_STOCK = 0
DRAW_DISCARD = 1

# --- game scalars (int64[GF]) ---
G_NP = 0  # players at the table
G_ROUND = 1  # rounds started so far (current round number, 1-based)
G_DEALER = 2
G_FIRST_DEALER = 3
G_CUR = 4  # seat on turn
G_TURN = 5  # turns taken in the current round
G_TURNS = 6  # turns taken in the game
G_STOCK_N = 7
G_PILE_N = 8
G_NMELDS = 9
G_POT = 10
G_VOIDS = 11
G_RESHUFFLES = 12  # stock rebuilds in the current round
G_RESHUFFLES_TOTAL = 13
G_WINNER = 14  # -1 until the game ends (and for an unfinished game)
G_DONE = 15
G_TAKEN = 16  # identity taken from the discard this turn and not yet on the table, else -1
G_BONUSES = 17  # one-turn bonuses in the game
G_DECISIONS = 18  # policy decisions taken in the game
G_OUT = 19  # seat that went out in the last round, -1 for a void round
G_VOID_REASON = 20  # VOID_* of the last round
G_DECK_N = 21  # cards in the deck
G_PHASE = 22  # PH_*: what the next step() does
GF = 24
PH_DEAL = 0
PH_TURN = 1
PH_DONE = 2
PH_SETTLE = 3  # a round has been scored; rebuys and elimination come next
VOID_NONE = 0
VOID_STOCK = 1  # [A14] nothing to draw
VOID_TURN_CAP = 2  # [A14] max_turns_per_round reached

# --- seat scalars (int64[MAX_SEATS, SF]) ---
S_SCORE = 0
S_REBUYS = 1
S_STATUS = 2  # ST_*
S_HAND_N = 3
S_MELDED = 4  # put down a meld of their own this round ([A20])
S_PLACED = 5  # put any card on the table this round ([A28])
S_PAID = 6
S_ELIM_ROUND = 7  # round of elimination, -1 if still in
S_PLACE = 8
S_WON = 9
S_PENALTY = 10  # last round's score change
S_BONUS = 11  # last round: went out with the one-turn bonus
SF = 12
ST_ACTIVE = 0
ST_OVER = 1  # transient, during [A29]-[A32]
ST_OUT = 2  # eliminated for good

# --- public view handed to policies (int32[PUB_SIZE]) — RULES.md A.8 ---
PUB_SEAT = 0  # the deciding seat
PUB_NP = 1
PUB_STOCK_N = 2
PUB_PILE_N = 3
PUB_ROUND = 4
PUB_TURN = 5
PUB_DEALER = 6
PUB_MELDED = 7  # the deciding seat has a meld of its own this round
PUB_PLACED = 8  # the deciding seat has put cards on the table this round
PUB_TAKEN = 9  # identity taken from the discard and still owed to the table, else -1
PUB_NMELDS = 10
PUB_DECISION = 11  # DEC_*
PUB_REBUY_SCORE = 12  # rebuy decision: the score a rebuy would give
PUB_ACTIVE = 13  # players still in the game (not out for good)
PUB_HAND_N = 16  # + seat: cards in each hand
PUB_SCORE = 21  # + seat
PUB_REBUYS = 26  # + seat
PUB_STATUS = 31  # + seat (ST_*)
PUB_RULES = 40  # + R_* : the rule set
PUB_SIZE = 64
DEC_DRAW = 0
DEC_PLAY = 1
DEC_DISCARD = 2
DEC_REBUY = 3

# --- per-game output rows ---
GR_WINNER = 0
GR_ROUNDS = 1
GR_TURNS = 2
GR_VOIDS = 3
GR_POT = 4
GR_RESHUFFLES = 5
GR_BONUSES = 6
GR_FIRST_DEALER = 7
GR_DECISIONS = 8
GR_SIZE = 9

SR_SCORE = 0
SR_REBUYS = 1
SR_ELIM_ROUND = 2
SR_PLACE = 3
SR_PAID = 4
SR_WON = 5
SR_SIZE = 6

RR_DEALER = 0
RR_OUT = 1  # 1 if this seat went out
RR_BONUS = 2
RR_PENALTY = 3
RR_SCORE = 4
RR_STATUS = 5  # RS_*
RR_TURNS = 6
RR_RESHUFFLES = 7
RR_VOID = 8
RR_SIZE = 9
RS_ACTIVE = 0
RS_OVER = 1  # went over this round and is out for good
RS_REBOUGHT = 2
RS_ELIMINATED = 3  # out before this round
RS_LABELS = ("active", "over", "rebought", "eliminated")

# --- event trace (sim.trace): int32[cap, EF] rows + an int16 payload array ---
EV_TYPE = 0
EV_ROUND = 1
EV_SEAT = 2  # -1 when no seat
EV_A = 3
EV_B = 4
EV_C = 5
EV_D = 6
EV_OFF = 7  # payload offset
EV_LEN = 8  # payload length
EF = 9
EV_DEAL = 1  # a=dealer b=upcard; payload: per seat (k, k cards), then the stock top first
EV_DRAW = 2  # a=DRAW_STOCK|DRAW_DISCARD b=card
EV_REBUILD = 3  # payload: the new stock top first
EV_MELD = 4  # a=meld id b=kind c=key; payload escalera (lo, hi, jmask) | pierna (c0..c3)
EV_LAYOFF = 5  # a=meld id b=card c=position (-1 pierna) d=joker's new position (0 none)
EV_DISCARD = 6  # b=card
EV_OUT = 7  # a=one-turn bonus
EV_VOID = 8  # a=VOID_* reason
EV_SCORE = 9  # payload: penalties per seat, then scores per seat
EV_OVER = 10  # a=score
EV_REBUY = 11  # a=new score b=pot after c=rebuys used
EV_ELIM = 12  # a=score
EV_END = 13  # a=winner (-1 unfinished) b=rounds c=pot

State = namedtuple("State", ["hands", "melds", "stock", "pile", "g", "s", "rng"])
State.__doc__ = """One game's whole state, all arrays (copy every field to fork a game).

hands int8[MAX_SEATS, HAND_W] card counts (identities 0..52, then zero padding); melds
int16[MAX_MELDS, MF]; stock/pile int16[MAX_CARDS]
card identities bottom..top (top = index n-1); g int64[GF]; s int64[MAX_SEATS, SF];
rng uint64[4]: two random streams, ``rng[0:2]`` the game's (deals, first dealer, stock
rebuilds) and ``rng[2:4]`` the policies' own, separate so that no policy
can learn the deal from the generator. They share one array because every field of State is
passed to each kernel call: an eighth array cost about 4% of throughput.
"""

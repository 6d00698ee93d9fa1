"""The ``careful`` policy: greedy's discard made careful with what the seat has seen.

Each test hands ``careful_discard`` a literal view (hand, table, pile, public row, history) and
checks the one card it picks, beside the card ``greedy`` picks in the same view; then a short
run checks that it plays whole games without a bad answer and keeps its memory per round.
"""

from __future__ import annotations

import numpy as np
import polars as pl

import sim
from sim.loba import policies as P
from sim.loba.cards import parse_card, suit_of
from sim.loba.layout import HAND_W, HT, MAX_MELDS, MELD, MEM_N, N_IDS, PARAMS_W, PUB, ST, H, M
from sim.loba.policies.careful import C_RANKS, C_ROWS
from sim.setup import make_rules

POLICY = P.POLICIES["careful"]


def view(hand: str, table=(), pile: str = "", history=(), seat: int = 0, rules=None):
    """The arguments of a discard decision for ``seat`` of four, every card of ``hand`` an
    option. ``table``: (owner, kind, key, lo, hi) escaleras or (owner, kind, rank, copies)."""
    R = (rules or make_rules()).to_array()
    h = np.zeros(HAND_W, dtype=np.int8)
    for c in hand.split():
        h[parse_card(c)] += 1
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    for i, (owner, kind, key, *rest) in enumerate(table):
        melds[i, M.OWNER], melds[i, M.KIND], melds[i, M.KEY] = owner, kind, key
        if kind == MELD.ESCALERA:
            melds[i, M.LO], melds[i, M.HI] = rest
        else:
            for s, k in enumerate(rest[0]):
                melds[i, M.C0 + s] = k
    pl_ = np.array([parse_card(c) for c in pile.split()], dtype=np.int16)
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.SEAT], pub[PUB.NP], pub[PUB.NMELDS] = seat, 4, len(table)
    pub[PUB.PILE_N] = len(pl_)
    for q in range(4):
        pub[PUB.STATUS + q] = ST.ACTIVE
    pub[PUB.RULES : PUB.RULES + len(R)] = R
    hist = np.zeros((len(history), H.SIZE), dtype=np.int16)
    for i, (t, who, card) in enumerate(history):
        hist[i, H.TYPE], hist[i, H.SEAT], hist[i, H.CARD] = t, who, parse_card(card)
    acts = np.zeros((N_IDS, 7), dtype=np.int16)
    opts = [c for c in range(N_IDS) if h[c] > 0]
    acts[: len(opts), 0] = opts
    params = np.zeros(PARAMS_W, dtype=np.float64)
    params[: len(POLICY.params)] = list(POLICY.params.values())
    rng = np.zeros(2, dtype=np.uint64)
    mem = np.zeros(MEM_N, dtype=np.float64)
    seen = [h[:N_IDS], melds[: len(table)], pl_, pub, params, acts[: len(opts)], hist]
    for a in seen:  # as the engine hands them over: read-only (the decision signature)
        a.flags.writeable = False
    hand_, melds_, pile_, pub_, params_, acts_, hist_ = seen
    return (hand_, melds_, pile_, pub_, params_, rng, acts_, len(opts), hist_, mem)


def choice(fn, args) -> str:
    from sim.loba.cards import card_str

    k = fn(*args)
    return card_str(int(args[6][k, 0]))


SPADES = suit_of(parse_card("2S"))
RUN_5_8_S = (1, MELD.ESCALERA, SPADES, 5, 8)  # 5-6-7-8 of spades, put down by seat 1


def test_careful_keeps_a_card_the_next_player_could_lay_off():
    """9S goes on the next player's 5-8S: greedy throws it (9 points), careful keeps it and
    throws 2H; the same run owned by a player further round is a smaller reason (careful's
    ``keep`` alone: 9 - 6 = 3 > 2, so 9S goes)."""
    args = view("9S 2H", table=[RUN_5_8_S])
    assert choice(P.greedy_discard, args) == "9S"
    assert choice(P.careful_discard, args) == "2H"
    far = view("9S 2H", table=[(2, MELD.ESCALERA, SPADES, 5, 8)])
    assert choice(P.careful_discard, far) == "9S"


def test_careful_keeps_a_card_for_a_pierna_the_next_player_may_join():
    """8C may join the next player's pierna of eights (8S 8H 8C): kept."""
    copies = [0, 0, 0, 0]
    for c in ("8S", "8H", "8C"):
        copies[suit_of(parse_card(c))] = 1
    eights = (1, MELD.PIERNA, 8, tuple(copies))
    args = view("8C 3D", table=[eights])
    assert choice(P.greedy_discard, args) == "8C"
    assert choice(P.careful_discard, args) == "3D"


def test_careful_drops_a_pair_whose_pierna_can_no_longer_be_made():
    """7H 7S help each other toward a pierna while a 7 of a third suit is unseen; with both
    decks' 7D and 7C in the pile the pair is dead, and careful throws a seven, not the 6D."""
    live = view("7H 7S 6D")
    assert choice(P.careful_discard, live) == choice(P.greedy_discard, live) == "6D"
    dead = view("7H 7S 6D", pile="7D 7C 7D 7C")
    assert choice(P.greedy_discard, dead) == "6D"
    assert choice(P.careful_discard, dead) in ("7H", "7S")


def test_careful_reads_the_next_players_discards_from_history_into_memory():
    """Tied on greedy's key (ten points each, greedy throws JD), careful throws the 10C: the
    next player (seat 1) discarded a ten this round. Its memory holds the ranks it read and how
    many rows, so the next decision reads only new rows."""
    history = [(HT.DISCARD, 1, "10H"), (HT.DISCARD, 2, "JS"), (HT.DISCARD, 3, "9C")]
    args = view("JD 10C", history=history)
    assert choice(P.greedy_discard, args) == "JD"
    assert choice(P.careful_discard, args) == "10C"
    mem = args[-1]
    assert int(mem[C_RANKS]) == 1 << 10 and int(mem[C_ROWS]) == len(history)
    # seat 2's discard of a jack is not the next player's: no reason to prefer the jack
    args = view("JD 10C", history=[(HT.DISCARD, 2, "JH")])
    assert choice(P.careful_discard, args) == "JD"


def test_careful_plays_whole_games_on_every_preset():
    spec = sim.games.get_game("loba")
    for preset in spec.rules.presets:
        res = sim.simulate(preset, "careful,greedy,careful,greedy", games=200, seed=3)
        assert res.seats["bad_answers"].sum() == 0
        assert pl.Series(res.games["winner"]).null_count() == 0

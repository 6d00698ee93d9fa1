"""The ``smart`` policy: careful's discard, a hold for the one-turn bonus [A28], a discard take
that keeps the hold, plays ordered by what they leave, and a hurried discard late in a round.

Each test hands one of smart's decision functions a literal view (hand, table, pile, public row,
history, options), read-only as the engine hands it over, and checks its answer, beside what
``greedy`` or ``careful`` answers in the same view where that shows the feature; then short runs
check that it plays whole games under every preset without a bad answer.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import sim
from sim.loba import policies as P
from sim.loba.cards import card_str, parse_card, suit_of
from sim.loba.layout import (
    DRAW,
    HAND_W,
    HT,
    MAX_MELDS,
    MELD,
    MEM_N,
    N_IDS,
    PARAMS_W,
    PLAY,
    PUB,
    ST,
    A,
    H,
    M,
)
from sim.loba.moves import list_plays
from sim.loba.policies.careful import C_RANKS
from sim.setup import make_rules

POLICY = P.POLICIES["smart"]
FAR = (9, 9, 9, 9)  # every hand full: smart may hold
SPADES = suit_of(parse_card("2S"))
RUN_5_8_S = (1, MELD.ESCALERA, SPADES, 5, 8)  # 5-6-7-8 of spades, put down by seat 1


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def view(
    hand: str,
    kind: str = "discard",
    table=(),
    pile: str = "",
    history=(),
    sizes=FAR,
    placed: int = 0,
    rules=None,
    **params,
):
    """The arguments of a ``kind`` decision (draw, play or discard) for seat 0 of four.

    ``table``: (owner, kind, key, lo, hi) escaleras or (owner, kind, rank, copies);
    ``sizes``: every seat's hand size; ``placed``: seat 0 has put cards down this round (and
    has a meld of its own); ``params``: smart's parameters that differ from its defaults. The
    options: every card of the hand (discard), stock and discard (draw), every legal play
    (play)."""
    R = (rules or make_rules()).to_array()
    h = np.zeros(HAND_W, dtype=np.int8)
    for c in cards(hand):
        h[c] += 1
    melds = np.zeros((MAX_MELDS, M.SIZE), dtype=np.int16)
    for i, (owner, mkind, key, *rest) in enumerate(table):
        melds[i, M.OWNER], melds[i, M.KIND], melds[i, M.KEY] = owner, mkind, key
        if mkind == MELD.ESCALERA:
            melds[i, M.LO], melds[i, M.HI] = rest
        else:
            for s, k in enumerate(rest[0]):
                melds[i, M.C0 + s] = k
    nm = len(table)
    pl_ = np.array(cards(pile), dtype=np.int16)
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.SEAT], pub[PUB.NP], pub[PUB.NMELDS] = 0, 4, nm
    pub[PUB.PILE_N], pub[PUB.TAKEN] = len(pl_), -1
    pub[PUB.PLACED] = pub[PUB.MELDED] = placed
    for q in range(4):
        pub[PUB.STATUS + q] = ST.ACTIVE
        pub[PUB.HAND_N + q] = sizes[q]
    pub[PUB.RULES : PUB.RULES + len(R)] = R
    hist = np.zeros((len(history), H.SIZE), dtype=np.int16)
    for i, (t, who, card) in enumerate(history):
        hist[i, H.TYPE], hist[i, H.SEAT], hist[i, H.CARD] = t, who, parse_card(card)
    if kind == "discard":
        opts = np.zeros((N_IDS, A.SIZE), dtype=np.int16)
        held = [c for c in range(N_IDS) if h[c] > 0]
        opts[: len(held), 0] = held
        opts = opts[: len(held)]
    elif kind == "draw":
        opts = np.zeros((2, A.SIZE), dtype=np.int16)
        opts[:, 0] = (DRAW.STOCK, DRAW.DISCARD)
    else:
        opts = list_plays(h[:N_IDS], melds[:nm], bool(placed), R)
    row = dict(POLICY.params, **params)
    par = np.zeros(PARAMS_W, dtype=np.float64)
    par[: len(row)] = list(row.values())
    rng = np.zeros(2, dtype=np.uint64)
    mem = np.zeros(MEM_N, dtype=np.float64)
    seen = [h[:N_IDS], melds[:nm], pl_, pub, par, opts, hist]
    for a in seen:  # as the engine hands them over: read-only (the decision signature)
        a.flags.writeable = False
    hand_, melds_, pile_, pub_, par_, acts_, hist_ = seen
    return (hand_, melds_, pile_, pub_, par_, rng, acts_, len(acts_), hist_, mem)


def discarded(fn, args) -> str:
    return card_str(int(args[6][fn(*args), 0]))


def drawn(args) -> int:
    return int(args[6][P.smart_draw(*args), 0])


def played(fn, args):
    """The play ``fn`` chooses: None for stop, else how many cards of the hand it puts down."""
    k = fn(*args)
    return None if k < 0 else int(args[6][k, A.N])


# ---------------------------------------------------------------- discard


def test_smart_parameters_are_named_with_declared_ranges():
    assert list(POLICY.params) == [
        "danger",
        "safe",
        "keep",
        "patience",
        "reach",
        "grab",
        "close",
        "dump",
    ]
    assert set(POLICY.ranges) == set(POLICY.params)


def test_smart_drops_a_run_pair_whose_cards_are_dead():
    """8H 9H help each other while a 7H or a 10H is unseen; with both decks' 7H and 10H in the
    pile the pair is dead and smart throws the 9H, not the 7C (greedy keeps the pair)."""
    live = view("8H 9H 7C")
    assert discarded(P.smart_discard, live) == discarded(P.greedy_discard, live) == "7C"
    dead = view("8H 9H 7C", pile="7H 10H 7H 10H")
    assert discarded(P.greedy_discard, dead) == "7C"
    assert discarded(P.smart_discard, dead) == "9H"


def test_smart_drops_a_pierna_pair_that_can_no_longer_be_made():
    live = view("7H 7S 6D")
    assert discarded(P.smart_discard, live) == "6D"
    dead = view("7H 7S 6D", pile="7D 7C 7D 7C")
    assert discarded(P.smart_discard, dead) in ("7H", "7S")


def test_smart_does_not_feed_the_next_player_a_lay_off():
    """9S goes on the next player's 5-8S: greedy throws it, smart keeps it and throws 2H."""
    args = view("9S 2H", table=[RUN_5_8_S])
    assert discarded(P.greedy_discard, args) == "9S"
    assert discarded(P.smart_discard, args) == "2H"


def test_smart_prefers_a_rank_the_next_player_threw_away():
    """Tied on greedy's key, smart throws 10C: the next player (seat 1) discarded a ten this
    round (read from the history into its memory)."""
    history = [(HT.DISCARD, 1, "10H"), (HT.DISCARD, 2, "JS")]
    args = view("JD 10C", history=history)
    assert discarded(P.greedy_discard, args) == "JD"
    assert discarded(P.smart_discard, args) == "10C"
    assert int(args[-1][C_RANKS]) == 1 << 10


def test_smart_dumps_points_when_an_opponent_is_close_to_going_out():
    """QD JD help each other and 3C is cheap: with every hand full smart throws the 3C (as
    careful does); when an opponent holds ``close`` = 2 cards each penalty point weighs
    ``1 + dump`` = 3 and it throws the queen."""
    far = view("QD JD 3C")
    assert discarded(P.smart_discard, far) == discarded(P.careful_discard, far) == "3C"
    close = view("QD JD 3C", sizes=(9, 9, 2, 9))
    assert discarded(P.careful_discard, close) == "3C"
    assert discarded(P.smart_discard, close) == "QD"
    assert discarded(P.smart_discard, view("QD JD 3C", sizes=(9, 9, 2, 9), dump=0)) == "3C"
    assert discarded(P.smart_discard, view("QD JD 3C", sizes=(9, 9, 3, 9))) == "3C"


# ---------------------------------------------------------------- play: the hold [A28]

HOLDING = "4H 5H 6H 9S 9D 9C KD 2C 7S 10C"  # two melds, four cards no play puts down


def test_smart_holds_its_melds_while_every_opponent_has_many_cards():
    """Nothing put down yet, four loose cards (<= reach = 6), every opponent at 9 cards: smart
    stops without putting a meld down (greedy plays the largest)."""
    args = view(HOLDING, kind="play")
    assert played(P.greedy_play, args) == 3
    assert played(P.smart_play, args) is None


def test_smart_lays_down_when_an_opponent_is_close():
    """An opponent at ``patience`` = 3 cards: no more holding, smart plays."""
    args = view(HOLDING, kind="play", sizes=(10, 9, 3, 9))
    assert played(P.smart_play, args) == 3
    assert played(P.smart_play, view(HOLDING, kind="play", sizes=(10, 9, 4, 9))) is None
    # patience = 200: never holds
    assert played(P.smart_play, view(HOLDING, kind="play", patience=200)) == 3


def test_smart_lays_down_once_it_has_put_cards_down_or_is_far_from_going_out():
    """No bonus left once cards are on the table; and a hand with more than ``reach`` loose
    cards plays rather than hold."""
    assert played(P.smart_play, view(HOLDING, kind="play", placed=1)) == 3
    far = "4H 5H 6H 2C 4D 6S 8C 10D QS KC"  # one meld, seven loose cards
    assert played(P.smart_play, view(far, kind="play")) == 3
    assert played(P.smart_play, view(far, kind="play", reach=7)) is None


def test_smart_goes_out_in_one_turn_while_holding():
    """All but one card in melds: smart puts them down (the going-out turn, for the bonus)."""
    args = view("4H 5H 6H 9S 9D 9C KD", kind="play")
    assert played(P.smart_play, args) == 3


# ---------------------------------------------------------------- play: the order


def test_smart_plays_the_meld_that_leaves_the_fewest_cards():
    """5H-8H then 8S 8D KC 2D stay in hand (greedy's largest first, four cards); 5H-7H (or the
    pierna of eights) first lets both melds down and leaves KC 2D."""
    args = view("5H 6H 7H 8H 8S 8D KC 2D", kind="play", placed=1)
    assert played(P.greedy_play, args) == 4
    k = P.smart_play(*args)
    act = args[6][k]
    assert act[A.TYPE] == PLAY.MELD and act[A.N] == 3


# ---------------------------------------------------------------- draw


def test_smart_takes_the_discard_when_not_holding():
    """Cards already down (no bonus to keep): the offered discard is taken, as greedy does."""
    args = view("4H 5H 6H 9S 9D 9C KD 2C 7S", kind="draw", pile="3C 7H", placed=1)
    assert drawn(args) == DRAW.DISCARD


def test_smart_takes_the_discard_while_far_from_going_out():
    """Holding, but no meld in hand (nine loose cards > grab = 3): the take is worth more."""
    args = view("4H 5H 2C 4D 6S 8C 10D QS KC", kind="draw", pile="3C 6H")
    assert drawn(args) == DRAW.DISCARD


def test_smart_keeps_its_hold_rather_than_take_a_discard_that_does_not_go_out():
    """Three loose cards (<= grab): taking 7H would put 4H-7H down and lose the bonus, and the
    hand still could not go out; smart draws from the stock. grab = -1 always takes."""
    hand = "4H 5H 6H 9S 9D 9C KD 2C 7S"
    assert drawn(view(hand, kind="draw", pile="3C 7H")) == DRAW.STOCK
    assert drawn(view(hand, kind="draw", pile="3C 7H", grab=-1)) == DRAW.DISCARD
    assert drawn(view(hand, kind="draw", pile="3C 7H", sizes=(9, 9, 3, 9))) == DRAW.DISCARD


def test_smart_takes_the_discard_that_goes_out_in_one_turn():
    """2S makes a pierna with 2C 2D: every card but KD goes down, KD is the discard."""
    args = view("4H 5H 6H 9S 9D 9C KD 2C 2D", kind="draw", pile="3C 2S")
    assert drawn(args) == DRAW.DISCARD


# ---------------------------------------------------------------- whole games


@pytest.mark.parametrize("preset", list(sim.games.get_game("loba").rules.presets))
def test_smart_plays_whole_games_on_every_preset(preset):
    res = sim.simulate(preset, "smart,greedy,careful,smart", games=200, seed=3)
    assert res.seats["bad_answers"].sum() == 0
    assert pl.Series(res.games["winner"]).null_count() == 0
    assert res.games["one_turn_bonuses"].sum() > 0


def test_smart_plays_three_and_five_handed():
    for seats in ("smart,smart,greedy", "smart,greedy,hold,careful,smart"):
        res = sim.simulate("pagat", seats, games=100, seed=5)
        assert res.seats["bad_answers"].sum() == 0

"""``smart``: careful's discard, holding for the bonus, ordered plays, a late dump.

* ``smart``   ``careful``'s discard (dead cards counted with ``known_copies``, a card kept only
  while it can still complete a meld, no lay-off fed to the next player, the next player's
  discards read from ``hist`` into ``mem``: ``danger``, ``safe``, ``keep``), plus four things.
  It holds its melds for the one-turn bonus ([A28], as ``hold``) while nothing of its own is on
  the table, every opponent holds more than ``patience`` cards and at most ``reach`` cards of
  its hand are loose (no play puts them down): then it stops without playing unless some
  ordering goes out at once. It takes the discard whenever the engine offers it (the card then
  goes onto the table, [A11]/[A12], so it always advances a meld), except while holding with at
  most ``grab`` loose cards before the draw, when it takes it only to go out at once and else
  draws from the stock. When it plays, it plays the option after which playing largest-first
  leaves the fewest cards in hand, then the fewest points (``greedy``: the largest meld). And
  when an opponent holds ``close`` cards or fewer, each penalty point weighs ``1 + dump`` in
  its discard key.
"""

from __future__ import annotations

import numpy as np

from ...jit import kernel
from ...policies.api import decision
from ...stack import stack_array
from ..greedy import (
    _A_SIZE,
    _M_SIZE,
    _N_RULES,
    best_play,
    cards_covered,
    loose_cards,
    may_go_out_with,
    play_key,
)
from ..layout import DRAW, HAND_W, MAX_MELDS, N_IDS, PLAY, PUB, ST, A
from ..moves import (
    hand_value,
    largest_new_meld,
    layoff_cover,
    meld_cover,
    rules_into,
)
from ..playout import option_out_from, way_out
from ..rules import RULE
from .careful import careful_pick
from .hold import take_goes_out

# smart's parameter slots, in the order of its ``params``
S_DANGER, S_SAFE, S_KEEP, S_PATIENCE, S_REACH, S_GRAB, S_CLOSE, S_DUMP = range(8)


@kernel
def fewest_opponent_cards(pub):
    """The fewest cards any other active player holds (a large number when none is left)."""
    me = pub[PUB.SEAT]
    m = 1 << 20
    for q in range(pub[PUB.NP]):
        if q != me and pub[PUB.STATUS + q] == ST.ACTIVE and pub[PUB.HAND_N + q] < m:
            m = pub[PUB.HAND_N + q]
    return m


@kernel(readonly=("hand", "melds", "pub"))
def loose_in_hand(hand, melds, pub):
    """Cards of the hand that no play open to the seat now puts down (new melds, and lay-offs
    once it may lay off, [A20]): what it still lacks to go out in one turn. (The cards the
    plays cover, :func:`~sim.loba.moves.meld_cover` and :func:`~sim.loba.moves.layoff_cover`,
    found without listing the plays.)"""
    R = rules_into(pub, stack_array(_N_RULES, 0, np.int64))
    hn = 0
    for i in range(N_IDS):
        hn += hand[i]
    cover = meld_cover(hand, hn, R)
    if pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1:
        cover |= layoff_cover(hand, hn, melds, pub[PUB.NMELDS], R)
    return loose_cards(hand, cover)


@kernel(readonly=("hand", "melds", "pub", "acts"))
def fewest_left(hand, melds, pub, acts, n):
    """The option after which playing largest-first leaves the fewest cards in hand, then the
    fewest penalty points ([A3]); ties: greedy's order (largest meld, high end). Going out, when
    some ordering does, leaves the fewest cards of all. (Its scratch is on its own stack,
    :func:`~sim.stack.stack_array`; the work is done in :func:`fewest_left_on`; the play-outs
    need one option row and search for a new meld only where one can be,
    :mod:`sim.loba.playout`.)"""
    R = rules_into(pub, stack_array(_N_RULES, 0, np.int64))
    h = stack_array(HAND_W, 0, np.int8)
    for c in range(N_IDS, HAND_W):  # (the padding read eight counts at a time: zeros)
        h[c] = 0
    opts = stack_array(1, _A_SIZE, np.int16)
    ms = stack_array(MAX_MELDS, _M_SIZE, np.int16)
    return fewest_left_on(hand, melds, pub, acts, n, R, h, opts, ms)


@kernel(readonly=("hand", "melds", "pub", "acts"))
def fewest_left_on(hand, melds, pub, acts, n, R, h, opts, ms):
    """:func:`fewest_left` on its scratch (``h``, ``opts``, ``ms``)."""
    nm = pub[PUB.NMELDS]
    seat = pub[PUB.SEAT]
    melded = pub[PUB.RULES + RULE.LAYOFF_REQUIRES_OWN_MELD] == 0 or pub[PUB.MELDED] == 1
    hn = 0
    for c in range(N_IDS):
        hn += int(hand[c])
    row = opts[0]
    meldable = False  # does the hand hold a new meld (else no play-out searches for one)?
    for i in range(n):
        meldable |= acts[i, A.TYPE] == PLAY.MELD
    if not meldable:  # (the options may leave some out: a taken discard's, [A12])
        meldable = largest_new_meld(hand, hn, R, row)
    best = -1
    best_key = np.int64(1) << 62
    for i in range(n):
        g = play_key(acts[i])
        if best_key <= 0 and -g >= best_key:
            continue  # the best goes out (key -g): only a larger meld that goes out beats it
        left = option_out_from(hand, hn, melds, nm, R, melded, seat, acts[i], h, ms, row, meldable)
        points = hand_value(h, R[RULE.ACE_VALUE], R[RULE.JOKER_VALUE])
        key = (np.int64(left) * 100000 + points) * 10000 - g
        if key < best_key:
            best_key = key
            best = i
    return best


@kernel
def smart_holding(pub, params):
    """Still playing for the one-turn bonus ([A28]): nothing of the seat's on the table this
    round, and every opponent holds more than ``patience`` cards."""
    return pub[PUB.PLACED] == 0 and fewest_opponent_cards(pub) > params[S_PATIENCE]


@kernel(readonly=("hand", "melds", "pile", "pub", "params", "acts"))
def smart_take(hand, melds, pile, pub, params, acts, n):
    """smart's draw (below)."""
    stock = 0
    take = -1
    for i in range(n):
        if acts[i, 0] == DRAW.DISCARD:
            take = i
        else:
            stock = i
    if take < 0:
        return stock
    if not smart_holding(pub, params) or loose_in_hand(hand, melds, pub) > params[S_GRAB]:
        return take
    return take if take_goes_out(hand, melds, pile, pub) else stock


@kernel(readonly=("hand", "melds", "pub", "params", "acts"))
def smart_next(hand, melds, pub, params, acts, n):
    """smart's play (below)."""
    if pub[PUB.TAKEN] < 0 and smart_holding(pub, params):
        cover = cards_covered(acts, n)
        loose = loose_cards(hand, cover)
        if loose <= params[S_REACH]:
            if may_go_out_with(hand, melds, pub, cover, loose):
                k = way_out(hand, melds, pub, acts, n, -1, False)
                if k >= 0:
                    return k
            return -1
    if n >= 2:
        return fewest_left(hand, melds, pub, acts, n)
    return best_play(acts, n)


@kernel(readonly=("hand", "melds", "pile", "pub", "params", "acts", "hist"))
def smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem):
    """smart's discard (below)."""
    weight = 1.0
    if fewest_opponent_cards(pub) <= params[S_CLOSE]:
        weight += params[S_DUMP]
    return careful_pick(hand, melds, pile, pub, params, acts, n, hist, mem, weight)


@decision
def smart_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """The discard when it is offered (so it goes onto the table this turn, [A11]/[A12]),
    unless the seat holds for the bonus and is close to it (at most ``grab`` cards its melds
    do not use): then only when it goes out at once."""
    return smart_take(hand, melds, pile, pub, params, acts, n)


@decision
def smart_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """Holding for the bonus with at most ``reach`` cards no play puts down: go out if some
    ordering does, else stop. Otherwise play everything, each time the play after which
    largest-first leaves the fewest cards (then points) in hand."""
    return smart_next(hand, melds, pub, params, acts, n)


@decision
def smart_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """careful's discard (``danger``, ``safe``, ``keep``), in a hurry when an opponent holds
    ``close`` cards or fewer: each penalty point then weighs ``1 + dump``."""
    return smart_throw(hand, melds, pile, pub, params, acts, n, hist, mem)


# smart's defaults as an array (mc hands them to its own smart play; the registry checks
# them against smart's Policy)
SMART_PARAMS = np.array([6.0, 2.0, 6.0, 3.0, 6.0, 3.0, 2.0, 2.0], dtype=np.float64)

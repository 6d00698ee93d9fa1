"""Plug-ins that try to cheat (tests/loba/test_policy_seal.py): each plays like ``greedy`` and also
tries one way around the seal of gate.decide (sim/loba/api.py). The ones that write into a
read-only argument must not compile; the ones that read past an end must raise IndexError;
the ones that write their own stream or memory must change nothing but themselves."""

import numba
import numpy as np

from sim.loba.greedy import best_discard, out_or_largest
from sim.loba.layout import JOKER, PUB
from sim.loba.policies import greedy_draw
from sim.policies.api import AddOnRule, Policy, decision


@decision
def play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return out_or_largest(hand, melds, pub, acts, n)


@decision
def discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n)


# ---- writes into read-only arguments: refused when compiled


@decision
def zero_hand(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for c in range(53):
        hand[c] = 0  # the measured leak: an empty hand at the discard won every game
    return best_discard(hand, pub, acts, n)


@decision
def add_jokers(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    hand[JOKER] += 2
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)


@decision
def foreign_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    acts[0, 0] = 60  # a card it does not hold / an identity out of range
    return 0


@decision
def write_melds(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if melds.shape[0] > 0:
        melds[0, 0] = 0
    return out_or_largest(hand, melds, pub, acts, n)


@decision
def write_pile(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    pile[0] = JOKER
    return 0


@decision
def write_pub(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    pub[PUB.RULES] = 0
    return 0


@decision
def write_params(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    params[0] += 1.0  # shared by the threads of a run: two identical runs differed
    return 0


@decision
def write_hist(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    if hist.shape[0] > 0:
        hist[0, 0] = 0
    return 0


WRITERS = {
    "zero_hand": zero_hand,
    "add_jokers": add_jokers,
    "foreign_discard": foreign_discard,
    "write_melds": write_melds,
    "write_pile": write_pile,
    "write_pub": write_pub,
    "write_params": write_params,
    "write_hist": write_hist,
}

# ---- reads past an end: IndexError


@decision
def next_hand(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem) + hand[56 + 3] * 0


@decision
def stale_acts(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n) + acts[n, 0] * 0


@decision
def past_pile(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return (
        greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
        + pile[pub[PUB.PILE_N]] * 0
    )


@decision
def past_melds(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return out_or_largest(hand, melds, pub, acts, n) + melds[pub[PUB.NMELDS], 0] * 0


@decision
def past_hist(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return best_discard(hand, pub, acts, n) + hist[hist.shape[0], 0] * 0


@decision
def past_rng(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem) + int(rng[2] * 0)


next_hand_policy = Policy("next_hand", next_hand, play, discard)
stale_acts_policy = Policy("stale_acts", greedy_draw, play, stale_acts)
past_pile_policy = Policy("past_pile", past_pile, play, discard)
past_melds_policy = Policy("past_melds", greedy_draw, past_melds, discard)
past_hist_policy = Policy("past_hist", greedy_draw, play, past_hist)
past_rng_policy = Policy("past_rng", past_rng, play, discard)

# ---- its own stream and memory: writable, and private


@decision
def zero_rng_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    rng[0] = 0  # the measured leak: this changed how the `random` seats played
    rng[1] = 0
    for i in range(mem.shape[0]):
        mem[i] = 1e300
    return greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)


@decision
def zero_rng_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    rng[0] = 0
    rng[1] = 0
    return best_discard(hand, pub, acts, n)


@decision
def zero_rng_rebuy(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    rng[0] = 0
    rng[1] = 0
    return 1


zero_rng = Policy("zero_rng", zero_rng_draw, play, zero_rng_discard)
zero_rng_rebuy_rule = AddOnRule("zero_rng", zero_rng_rebuy)


@decision
def check_view(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    """0, or 999 (a bad answer) when the view is not exactly what the contract says: every
    array exactly as long as what it holds. Counts its decisions in ``mem[15]``."""
    mem[15] += 1.0
    if hand.shape[0] != 53 or acts.shape[0] != n or melds.shape[0] != pub[PUB.NMELDS]:
        return 999
    if pile.shape[0] != pub[PUB.PILE_N] or params.shape[0] != 16 or mem.shape[0] != 16:
        return 999
    if rng.shape[0] != 2:
        return 999
    return 0


@decision
def check_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    k = check_view(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
    return k if k == 999 else greedy_draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem)


@decision
def check_play(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    k = check_view(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
    return k if k == 999 else out_or_largest(hand, melds, pub, acts, n)


@decision
def check_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    k = check_view(hand, melds, pile, pub, params, rng, acts, n, hist, mem)
    return k if k == 999 else best_discard(hand, pub, acts, n)


checker = Policy("checker", check_draw, check_play, check_discard)


# ---- routes around the bounds checks (a helper compiled without them): the arena's job.
# Each plays exactly like ``plain`` (the same answers); only what it reads or writes out of
# bounds differs, so its games equal plain's unless that reached the game.
@numba.njit(boundscheck=False)
def _get(a, i):
    return a[i]


@numba.njit(boundscheck=False)
def _put(a, i, v):
    a[i] = v


@numba.njit(boundscheck=False)
def _put_before(a, k, v):
    a[np.uint64(0) - np.uint64(k)] = v  # (unsigned: no wrap-around to the end, as -k would)


@decision
def peek_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    for i in range(16):  # what lies just past its hand: in the game's state, the next hand
        mem[i] = _get(hand, 56 + i)
    return best_discard(hand, pub, acts, n)


@decision
def poke_discard(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    k = best_discard(hand, pub, acts, n)  # (first: the pokes may land in its own copies)
    _put_before(rng, 1, rng[0] ^ 0x5DEECE66D)  # before its stream: another's, or the deal's
    _put_before(rng, 2, rng[1] + 1)
    _put_before(mem, 1, 7.0)  # the previous seat's memory
    _put(mem, 16, 7.0)  # the next seat's memory
    return k


plain = Policy("plain", greedy_draw, play, discard)
peek_policy = Policy("peek", greedy_draw, play, peek_discard)
poke_policy = Policy("poke", greedy_draw, play, poke_discard)

"""Counter-based per-game random streams (njit).

Every game draws from its own stream, seeded from ``(seed, game index)`` alone, so a game is the
same game whatever the thread count, chunk size or backend. The generator is ``xorshift128+``
(two uint64 words of state), seeded through SplitMix64; a stream's state is a 2-element uint64
array that lives inside the game state (a forked game carries its streams along).
"""

from __future__ import annotations

import numpy as np

from .jit import DISABLED, jit

if DISABLED:  # plain-Python mode: numpy warns on the intended uint64 wrap-around
    import warnings

    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@jit
def splitmix64(x):
    """One SplitMix64 output for input ``x`` (a pure function: counter -> random word)."""
    z = np.uint64(x) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@jit
def seed_stream(state, seed, index):
    """Fill ``state`` (uint64[2]) with the stream of game ``index`` of a run seeded ``seed``."""
    a = splitmix64(np.uint64(seed) * np.uint64(0x100000001B3) ^ splitmix64(np.uint64(index)))
    b = splitmix64(a ^ np.uint64(index))
    if a == 0 and b == 0:
        b = np.uint64(1)
    state[0] = a
    state[1] = b


POLICY_STREAM = np.uint64(0x5EED0F0150C1E5)  # salt of the policies' stream


@jit
def seed_game(rng, seed, index):
    """Seed game ``index``'s streams in ``rng`` (uint64[2 + 2k]): the deal stream in
    ``rng[0:2]`` and one stream per seat ``q < k`` in ``rng[2+2q:4+2q]``, derived from
    ``(seed, index, q)`` alone (a seat's stream tells nothing about the deal or another seat's)."""
    seed_stream(rng[:2], seed, index)
    base = splitmix64(np.uint64(seed) ^ POLICY_STREAM)
    for q in range((rng.shape[0] - 2) // 2):
        seed_stream(rng[2 + 2 * q : 4 + 2 * q], base ^ np.uint64(q + 1), index)


@jit
def next_u64(state):
    """Next 64-bit word of the stream (xorshift128+)."""
    s1 = state[0]
    s0 = state[1]
    result = s0 + s1
    state[0] = s0
    s1 ^= s1 << np.uint64(23)
    state[1] = s1 ^ s0 ^ (s1 >> np.uint64(18)) ^ (s0 >> np.uint64(5))
    return result


@jit
def below(state, n):
    """Uniform integer in ``[0, n)`` (``n >= 1``), by Lemire's multiply-shift on 32 high bits."""
    r = next_u64(state) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@jit
def shuffle(state, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place: :func:`below` at every step, its stream's
    two words kept in registers until the end (the same draws; a store and a load of each per
    step were the deal's longest chain)."""
    a = state[0]
    b = state[1]
    for i in range(n - 1, 0, -1):
        r = (b + a) >> np.uint64(32)  # next_u64, then below(i + 1)
        a ^= a << np.uint64(23)
        a, b = b, a ^ b ^ (a >> np.uint64(18)) ^ (b >> np.uint64(5))
        j = np.int64((r * np.uint64(i + 1)) >> np.uint64(32))
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
    state[0] = a
    state[1] = b

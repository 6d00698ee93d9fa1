"""Trick maths of Three-Player Moon ([B6]-[B8]) as compiled functions, callable from Python.

Contracts (``trump``): 0..6 a number, :data:`~.layout.DOUBLES` (7), :data:`~.layout.NO_TRUMP`
(8). Everything here is a pure function of tiles and the contract:

* [B6] number trump n: every tile bearing n is trump and nothing else (it leaves its other
  number's suit); trumps rank n-n high, then by their other number, descending. Trump 0: the
  0-0 is the only trump. Doubles trump: the seven doubles (6-6 high ... 0-0 low), which leave
  their number suits. No trump: every tile keeps its suits, doubles top their suits ([B2]).
* [B7] a trump lead calls trumps; a non-trump lead calls the suit of its higher number (a
  double: its own number). Following suit s: a non-trump tile bearing s (a double follows only
  its own number); following a trump lead: any trump. Who can follow must.
* [B8] the highest trump played wins, else the highest tile of the suit led.

A tile's strength in a trick is one integer, :func:`play_key`: 8 + its trump rank for a trump,
its rank in the suit led for a tile that follows, -1 for anything else; the winner is the
largest key (keys of distinct tiles never tie).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..jit import DISABLED, kernel
from .layout import DOUBLES, LED_TRUMP, N_TILES, NO_TRUMP
from .tiles import HI, LO

_HI = HI
_LO = LO


def _follow_table() -> np.ndarray:
    """FOLLOW[trump, led]: bits of the tiles that follow the led suit ``led`` (0..6, or
    LED_TRUMP) under ``trump`` — [B6]/[B7] as a table, checked against :func:`follows` by the
    tests."""
    out = np.zeros((NO_TRUMP + 1, LED_TRUMP + 1), dtype=np.int64)
    for c in range(NO_TRUMP + 1):
        for t in range(N_TILES):
            h, lo = int(HI[t]), int(LO[t])
            trump = c != NO_TRUMP and (h == lo if c == DOUBLES else c in (h, lo))
            if trump:
                out[c, LED_TRUMP] |= 1 << t
            else:
                out[c, h] |= 1 << t
                if lo != h:
                    out[c, lo] |= 1 << t
    return out


FOLLOW = _follow_table()


def _key_tables() -> tuple[np.ndarray, np.ndarray]:
    """LED_OF[trump, tile]: the suit ``tile`` calls when led (:func:`led_suit_of`);
    KEY[trump, led, tile]: its :func:`play_key_of` in a trick led ``led`` — [B7]/[B8] as
    tables, built from the plain-Python rules below and checked against them by the tests."""
    led_of = np.zeros((NO_TRUMP + 1, N_TILES), dtype=np.int64)
    key = np.zeros((NO_TRUMP + 1, LED_TRUMP + 1, N_TILES), dtype=np.int64)
    for c in range(NO_TRUMP + 1):
        for t in range(N_TILES):
            led_of[c, t] = led_suit_of(t, c)
            for led in range(LED_TRUMP + 1):
                key[c, led, t] = play_key_of(t, led, c)
    return led_of, key


def _is_trump_of(tile: int, trump: int) -> bool:
    h, lo = int(HI[tile]), int(LO[tile])
    if trump == NO_TRUMP:
        return False
    if trump == DOUBLES:
        return h == lo
    return trump in (h, lo)


def led_suit_of(tile: int, trump: int) -> int:
    """[B7] :func:`led_suit` in plain Python."""
    return LED_TRUMP if _is_trump_of(tile, trump) else int(HI[tile])


def play_key_of(tile: int, led: int, trump: int) -> int:
    """[B8] :func:`play_key` in plain Python: 8 + trump rank for a trump ([B6]), the rank in
    the suit led for a tile that follows it, -1 otherwise."""
    h, lo = int(HI[tile]), int(LO[tile])
    if _is_trump_of(tile, trump):
        if trump == DOUBLES:
            return 8 + h
        return 8 + (7 if h == lo else (lo if h == trump else h))
    if led != LED_TRUMP and led in (h, lo):
        return 7 if h == lo else (lo if h == led else h)
    return -1


LED_OF, KEY = _key_tables()


@kernel
def bit(tile):
    """The bit of ``tile`` in a hand held as bits (int64, whatever the type of ``tile``)."""
    return np.int64(1) << np.int64(tile)


if DISABLED:

    def popcount(x):
        """Set bits of a non-negative int64 (plain Python: no wrapping multiply to warn)."""
        return bin(int(x)).count("1")

    def low_index(x):
        """Index of the lowest set bit of ``x`` (> 0)."""
        return (int(x) & -int(x)).bit_length() - 1

else:

    @kernel
    def popcount(x):
        """Set bits of a non-negative int64 (SWAR: no table, no loop)."""
        v = np.uint64(x)
        v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
        m2 = np.uint64(0x3333333333333333)
        v = (v & m2) + ((v >> np.uint64(2)) & m2)
        v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))

    @kernel
    def low_index(x):
        """Index of the lowest set bit of ``x`` (> 0): one ``tzcnt``."""
        return trailing_zeros(np.int64(x))


@kernel
def bits_of(own):
    """A tile mask (int8[N_TILES]) as a 22-bit integer, bit t = tile t."""
    b = 0
    for t in range(N_TILES):
        if own[t] != 0:
            b |= bit(t)
    return b


@kernel
def is_trump(tile, trump):
    """[B6] the tile is a trump under contract ``trump``."""
    h = _HI[tile]
    lo = _LO[tile]
    if trump == NO_TRUMP:
        return False
    if trump == DOUBLES:
        return h == lo
    return h == trump or lo == trump


@kernel
def trump_rank(tile, trump):
    """[B6] rank of a trump tile among the trumps: doubles trump, its number (0-0 = 0 ...
    6-6 = 6); number trump n, 7 for n-n, else its other number."""
    h = _HI[tile]
    lo = _LO[tile]
    if trump == DOUBLES:
        return np.int64(h)
    if h == lo:
        return np.int64(7)
    return np.int64(lo) if h == trump else np.int64(h)


@kernel
def suit_rank(tile, suit):
    """[B2] rank of a tile within ``suit`` (7 = the double, else the other number); -1 when
    the tile does not bear ``suit``. Trumps are the caller's concern."""
    h = _HI[tile]
    lo = _LO[tile]
    if h == lo:
        return np.int64(7) if h == suit else np.int64(-1)
    if h == suit:
        return np.int64(lo)
    if lo == suit:
        return np.int64(h)
    return np.int64(-1)


@kernel
def led_suit(tile, trump):
    """[B7] the suit a lead calls: :data:`LED_TRUMP` (7) for a trump, else its higher number
    (a double its own)."""
    if is_trump(tile, trump):
        return np.int64(LED_TRUMP)
    return np.int64(_HI[tile])


@kernel
def follows(tile, led, trump):
    """[B7] ``tile`` follows the led suit ``led`` (0..6 or LED_TRUMP) under ``trump``."""
    if led == LED_TRUMP:
        return is_trump(tile, trump)
    if is_trump(tile, trump):
        return False
    return _HI[tile] == led or _LO[tile] == led


@kernel
def play_key(tile, led, trump):
    """Strength of ``tile`` in a trick whose led suit is ``led``: 8 + trump rank for a trump,
    the suit rank for a tile that follows, -1 otherwise ([B8])."""
    if is_trump(tile, trump):
        return 8 + trump_rank(tile, trump)
    if led != LED_TRUMP and (_HI[tile] == led or _LO[tile] == led):
        return suit_rank(tile, led)
    return np.int64(-1)


@kernel
def trick_winner(t0, t1, t2, trump):
    """[B8] index (0, 1, 2 in play order) of the tile that wins the trick t0 (led), t1, t2
    (the keys of :func:`play_key`, read from :data:`KEY`)."""
    key = KEY[trump, LED_OF[trump, t0]]
    k0 = key[t0]
    k1 = key[t1]
    k2 = key[t2]
    if k0 >= k1 and k0 >= k2:
        return np.int64(0)
    return np.int64(1) if k1 >= k2 else np.int64(2)


@kernel
def legal_plays(hand, led_tile, trump, out):
    """[B7] the tiles of ``hand`` (int8[N_TILES], 1 = held) that may be played to a trick led
    by ``led_tile`` (-1: the player leads; every tile). Writes them into ``out`` in id order and
    returns how many."""
    n = 0
    if led_tile >= 0:
        led = led_suit(led_tile, trump)
        for t in range(N_TILES):
            if hand[t] != 0 and follows(t, led, trump):
                out[n] = t
                n += 1
        if n > 0:
            return n
    for t in range(N_TILES):
        if hand[t] != 0:
            out[n] = t
            n += 1
    return n


@kernel
def legal_mask(bits, led_tile, trump):
    """[B7] :func:`legal_plays` on a hand given as bits (bit t = tile t): the bits of the tiles
    that may be played."""
    if led_tile < 0:
        return bits
    m = bits & FOLLOW[trump, LED_OF[trump, led_tile]]
    return m if m != 0 else bits


def legal_list(hand, led_tile: int, trump: int) -> list[int]:
    """:func:`legal_plays` from Python: ``hand`` an iterable of tile ids; a list of ids."""
    mask = np.zeros(N_TILES, dtype=np.int8)
    for t in hand:
        mask[int(t)] = 1
    out = np.zeros(N_TILES, dtype=np.int64)
    n = legal_plays(mask, int(led_tile), int(trump), out)
    return [int(x) for x in out[:n]]

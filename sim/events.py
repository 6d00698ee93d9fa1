"""Event recording for any game's kernel: one buffer layout, one append, one read-out.

A recording is a :class:`Trace` of three arrays: ``evs`` int32[cap, EV.SIZE] event rows,
``pay`` int16[payload cap] each event's variable payload (hands dealt, stock orders, scores),
and ``cnt`` int64[TC.SIZE] counters. A game's engine appends with :func:`ev` (a row: type,
round or hand, seat, four scalars) and :func:`ev_push` (payload entries of that row); each
game's trace module decodes the rows into JSON-ready dicts.

A kernel that records only sometimes takes a trace either way and asks :func:`tracing` before
building an event: batches pass :data:`NO_TRACE` (no room), so one compiled kernel serves the
batch, the replay and the game handle (a game whose kernel takes ``tr=None`` instead gets
every ``if tr is not None`` block compiled out, at the price of a second compiled kernel).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .jit import jit, kernel
from .rules import make_enum

# ROUND: the round (Loba) or hand (Moon) number; SEAT: -1 when no seat; OFF, LEN: the payload
EV = make_enum("EV", ["TYPE", "ROUND", "SEAT", "A", "B", "C", "D", "OFF", "LEN"])
TC = make_enum("TC", ["EVENTS", "PAYLOAD", "OVERFLOW"])
Trace = namedtuple("Trace", ["evs", "pay", "cnt"])
Trace.__doc__ = """An event recording: evs int32[cap, EV.SIZE], pay int16[payload cap], cnt
int64[TC.SIZE] (TC.EVENTS rows used, TC.PAYLOAD entries used, TC.OVERFLOW set when a buffer
was full: the caller records again with more room)."""


@jit
def new_trace(ev_cap, pay_cap):
    """A :class:`Trace` with room for ``ev_cap`` events and ``pay_cap`` payload entries."""
    return Trace(
        np.zeros((ev_cap, EV.SIZE), dtype=np.int32),
        np.zeros(pay_cap, dtype=np.int16),
        np.zeros(TC.SIZE, dtype=np.int64),
    )


def empty_trace() -> Trace:
    """A trace with no room (built in Python: nothing to compile); :func:`tracing` is False."""
    return Trace(
        np.zeros((0, EV.SIZE), dtype=np.int32),
        np.zeros(0, dtype=np.int16),
        np.zeros(TC.SIZE, dtype=np.int64),
    )


NO_TRACE = empty_trace()  # nothing is ever written into it


@kernel
def tracing(tr):
    """Whether ``tr`` records events (False for :data:`NO_TRACE`)."""
    return tr.evs.shape[0] > 0


@kernel
def ev(tr, typ, rnd, seat, a, b, c, d):
    """Append one event row; returns its index (-1 when full: ``TC.OVERFLOW`` is then set)."""
    evs, cnt = tr.evs, tr.cnt
    i = cnt[TC.EVENTS]
    if i >= evs.shape[0]:
        if evs.shape[0] > 0:
            cnt[TC.OVERFLOW] = 1
        return -1
    evs[i, EV.TYPE] = typ
    evs[i, EV.ROUND] = rnd
    evs[i, EV.SEAT] = seat
    evs[i, EV.A] = a
    evs[i, EV.B] = b
    evs[i, EV.C] = c
    evs[i, EV.D] = d
    evs[i, EV.OFF] = cnt[TC.PAYLOAD]
    evs[i, EV.LEN] = 0
    cnt[TC.EVENTS] = i + 1
    return i


@kernel
def ev_push(tr, i, value):
    """Append ``value`` to the payload of event ``i``."""
    cnt = tr.cnt
    if i < 0:
        return
    j = cnt[TC.PAYLOAD]
    if j >= tr.pay.shape[0]:
        cnt[TC.OVERFLOW] = 1
        return
    tr.pay[j] = value
    cnt[TC.PAYLOAD] = j + 1
    tr.evs[i, EV.LEN] += 1


def recorded(tr) -> tuple[np.ndarray, np.ndarray, bool]:
    """(events, payload, overflowed) recorded so far in ``tr`` (copies)."""
    evs, pay, cnt = tr
    return evs[: cnt[TC.EVENTS]].copy(), pay[: cnt[TC.PAYLOAD]].copy(), bool(cnt[TC.OVERFLOW])

"""What a failed run says: one sentence naming whose code failed, where, and what is kept.

Every game is played through :func:`sim.chunks.run_chunk`, so every command (``simulate``,
``bench``, ``tournament``, ``sweep``, ``tune``, ``rebuy-value``, ``replay``) meets an exception
raised inside the kernel there. The kernel cannot say which seat's function raised (an
exception leaves compiled code with its message only), so :func:`diagnose` finds out by playing
again: games are independent and deterministic, so the first failing game is found by halving
the failing range, and that game is played once more with every seat's decision functions
wrapped by :func:`tagged` (same signature: the kernel is not compiled again), each wrapper
turning an exception into :class:`Tagged` naming its seat and decision kind. The result is a
:class:`PlayFault` — "seat 0 (policy 'bad.py:boom') raised ValueError at a play decision in
game 17: ..." — which every command prints as it is, with exit code 1 (it is not bad input).

A failure that does not happen again when played again (memory, a full disk) is not a
:class:`PlayFault`: the original exception stands, and the runners retry it once.
"""

from __future__ import annotations

import contextlib
import functools

import numba

from .jit import compiled


class RunFailure(RuntimeError):
    """A run stopped by a failure that is not bad input (exit code 1). One sentence."""


class PlayFault(RunFailure):
    """A seat's decision function raised while the games were played. ``str()`` is the
    sentence; the fields say the same for programs."""

    def __init__(self, text: str, game: int = -1, seat: int = -1, kind: str = "", error: str = ""):
        super().__init__(text)
        self.game, self.seat, self.kind, self.error = game, seat, kind, error

    def __reduce__(self):  # (it crosses process boundaries: the isolated child, Dask)
        return (PlayFault, (str(self), self.game, self.seat, self.kind, self.error))

    def kept(self, tail: str) -> PlayFault:
        """The same fault with ``tail`` (what is kept, how to finish) in its sentence."""
        text = str(self).rstrip(".") + tail + "."
        return PlayFault(text, self.game, self.seat, self.kind, self.error)


@contextlib.contextmanager
def fault_context(where: str, kept: str = ""):
    """A :class:`PlayFault` raised inside also says which of many runs it happened in
    (``where``: " of seating 3 of 12 (...)", put after its "in game 14") and what those runs
    kept (``kept``: "; the seatings before it are kept in ...", put at its end)."""
    try:
        yield
    except PlayFault as e:
        at = f" in game {e.game}"
        text = str(e).replace(at, at + where, 1) if at in str(e) else str(e)
        raise PlayFault(text, e.game, e.seat, e.kind, e.error).kept(kept) from None


class Tagged(Exception):
    """Raised by a :func:`tagged` wrapper: ``args[0]`` is ``"seat,kind"``."""


@functools.lru_cache(maxsize=256)
def tagged(fn, sig, seat: int, kind: str):
    """``fn`` (a compiled decision function of signature ``sig``) wrapped so that any
    exception it raises comes out as ``Tagged("seat,kind")``. (Numba cannot raise inside an
    ``except`` block, hence the flag.)"""
    names = ", ".join(f"a{i}" for i in range(len(sig.args)))
    src = (
        f"def tagged_decision({names}):\n"
        "    bad = False\n"
        "    r = 0\n"
        "    try:\n"
        f"        r = fn({names})\n"
        "    except Exception:\n"
        "        bad = True\n"
        "    if bad:\n"
        "        raise Tagged(TAG)\n"
        "    return r\n"
    )
    ns = {"fn": fn, "Tagged": Tagged, "TAG": f"{seat},{kind}"}
    exec(src, ns)  # (one wrapper per arity: the kernel's signature is fixed per game)
    return compiled(numba.njit(ns["tagged_decision"]), sig)


def error_words(exc: BaseException) -> str:
    """``ValueError: its message`` — with what a bounds-check IndexError means."""
    text = f"{type(exc).__name__}: {exc}".strip().rstrip(".").replace("\n", " ")
    if isinstance(exc, IndexError) and "out of bounds" in str(exc):
        text += " (a read or write past the end of one of its arrays)"
    return text


def _fails(play, lo: int, hi: int, fns) -> BaseException | None:
    try:
        play(lo, hi - lo, fns)
    except Exception as e:
        return e
    return None


def builtin_functions(spec) -> set[int]:
    """ids of the decision and add-on functions of the game's own policies and rules."""
    out = {id(f) for p in spec.policies.values() for f in p.decisions(spec.decisions)}
    for registry, _default in spec.addons.values():
        out |= {id(r.decide) for r in registry.values()}
    return out


def diagnose(spec, play, start: int, count: int, fns, labels):
    """The :class:`PlayFault` for an exception raised while games ``start .. start+count-1``
    were played by ``play(first, count, fns)``; None when none is raised again (then it was
    not a seat's doing that can be named).

    ``fns``: the kernel's function tables (:meth:`sim.game.GameSpec.fn_tables`), ``labels``:
    the seats as written, for the sentence."""
    lo, hi = start, start + count
    if _fails(play, lo, hi, fns) is None:
        return None
    while hi - lo > 1:  # games are independent: halve to the first one that fails
        mid = (lo + hi) // 2
        if _fails(play, lo, mid, fns) is not None:
            hi = mid
        else:
            lo = mid
    game = lo
    err = error_words(_fails(play, game, game + 1, fns))
    own = builtin_functions(spec)
    n = len(labels)
    wrapped = tuple(
        tuple(
            tagged(f, spec.signature, q, kind) if q < n and id(f) not in own else f
            for q, f in enumerate(per_seat)
        )
        for kind, per_seat in zip(spec.kinds, fns, strict=True)
    )
    again = _fails(play, game, game + 1, wrapped)
    if isinstance(again, Tagged):
        seat_s, kind = again.args[0].split(",")
        seat = int(seat_s)
        text = f"Seat {seat} ({labels[seat]}) raised {err} at a {kind} decision in game {game}."
        return PlayFault(text, game, seat, kind, err)
    return PlayFault(
        f"The game engine raised {err} in game {game}, outside the seats' plug-in code; this is"
        " a bug in loba-sim, please report it with the command line.",
        game,
        -1,
        "",
        err,
    )

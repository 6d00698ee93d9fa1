"""The policy plug-in contract.

A policy is four compiled decision functions, one per decision kind, all of the one signature
:data:`DECIDE_SIG`::

    def decide(hand, melds, pile, pub, params, rng, acts, n) -> int

* ``hand``   int8[53]: the deciding seat's own card counts (sim.cards identities).
* ``melds``  int16[MAX_MELDS, MF]: table melds, rows ``0 .. pub[PUB_NMELDS]-1`` in use
  (columns ``M_*`` of :mod:`sim.loba.layout`).
* ``pile``   int16[MAX_CARDS]: the discard pile bottom..top, ``pub[PUB_PILE_N]`` cards.
* ``pub``    int32[PUB_SIZE]: the public view (``PUB_*``): seat, stock size, every hand's size,
  scores, rebuys, statuses, the rule array at ``PUB_RULES + R_*``, and the decision kind.
* ``params`` float64[N_PARAMS]: this seat's parameters (policy slots 0-7, rebuy slots 8-15).
* ``rng``    uint64[2]: the policies' random stream of this game (separate from the stream that
  shuffles the deck, so it tells nothing about the cards); draw from it with
  :func:`sim.rng.below`.
* ``acts``, ``n``: the options, rows ``0 .. n-1`` (``A_*`` columns for plays).

What it returns, by decision:

* **draw**: index of ``acts[i, 0]`` in {``DRAW_STOCK``, ``DRAW_DISCARD``}; the discard is
  offered only when the rules let this seat put it on the table this turn ([A11]/[A12]).
* **play**: index of a play, or ``-1`` to stop playing. When ``pub[PUB_TAKEN] >= 0`` the
  options are the plays that put the taken discard down and one must be chosen.
* **discard**: index of a legal discard (``acts[i, 0]`` is the card identity).
* **rebuy** (rebuy rules): ``1`` to rebuy at score ``pub[PUB_REBUY_SCORE]``, ``0`` to decline.

The kernel never hands a policy another player's hand or the stock order (RULES.md A.8). An
out-of-range answer is read as the first option (or "stop" for plays).

Write the functions with :func:`decision` in any module, wrap them in a :class:`Policy` (or a
:class:`RebuyRule`), and select them by ``path/to/module.py:NAME`` or ``package.module:NAME``
in a seat string. They run inside the compiled kernel, through first-class function calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numba import types
from numba.core.typing.typeof import typeof_impl

from ..jit import DISABLED, jit

N_PARAMS = 16
POLICY_SLOTS = 8  # params[0:8] policy, params[8:16] rebuy rule
REBUY_SLOT0 = 8

DECIDE_SIG = types.int64(
    types.int8[::1],
    types.int16[:, ::1],
    types.int16[::1],
    types.int32[::1],
    types.float64[::1],
    types.uint64[::1],
    types.int16[:, ::1],
    types.int64,
)


def decision(fn=None, *, alloc: bool = False):
    """Mark ``fn`` as a decision function of the plug-in signature :data:`DECIDE_SIG`.

    It is compiled (or loaded from the on-disk cache) when a seat first uses it
    (:func:`compiled`), so importing a module of policies compiles nothing. Pass
    ``alloc=True`` (``@decision(alloc=True)``) if the function allocates arrays.
    """
    if fn is None:
        return lambda f: jit(alloc=alloc)(f)
    return jit(alloc=alloc)(fn)


def compiled(fn):
    """``fn`` compiled for :data:`DECIDE_SIG` and closed to other signatures, as the kernel's
    function tables need it (one machine-code entry point per function). Raises ``TypeError``
    with one sentence if ``fn`` is not a :func:`decision` function."""
    if DISABLED:
        return fn
    if not hasattr(fn, "compile") or not hasattr(fn, "disable_compile"):
        raise TypeError(f"{fn!r} is not a @decision function.")
    if fn._can_compile:
        fn.compile(DECIDE_SIG)
        fn.disable_compile()
    if DECIDE_SIG.args not in fn.overloads or len(fn.overloads) != 1:
        raise TypeError(f"{fn.__name__} is not compiled for the decision signature alone.")
    return fn


class Handle(types.WrapperAddressProtocol):
    """A compiled decision function as a bare entry point, for kernel calls made often from
    Python (:meth:`sim.loba.play.Game.step`).

    Handing the kernel a tuple of dispatchers makes Numba type and unbox each of them on every
    call (about a millisecond for a game's tables). A handle is typed from its signature and
    carries its address, so the call costs microseconds. The kernel then calls the function
    through its C wrapper instead of directly: same function, same results, a little slower
    per decision, so batches keep passing the dispatchers themselves.
    """

    __slots__ = ("fn", "_addr")

    def __init__(self, fn):
        from numba.experimental.function_type import _get_wrapper_address

        self.fn = compiled(fn)  # kept alive: the address points into its code
        self._addr = _get_wrapper_address(self.fn, DECIDE_SIG)

    def __wrapper_address__(self) -> int:
        return self._addr

    def signature(self):
        return DECIDE_SIG


_HANDLE_TYPE = types.FunctionType(DECIDE_SIG)


@typeof_impl.register(Handle)
def _typeof_handle(val, c):
    return _HANDLE_TYPE  # built once: Numba would build a FunctionType per handle per call


def handles(table: tuple) -> tuple:
    """A tuple of decision functions as :class:`Handle` objects."""
    return tuple(f if isinstance(f, Handle) else Handle(f) for f in table)


@dataclass(frozen=True)
class Policy:
    """A playing policy: draw, play and discard decisions, plus named parameters.

    ``params`` maps parameter names to defaults, in slot order (at most 8); the kernel hands
    them to every decision as ``params[slot]``.
    """

    name: str
    draw: Any
    play: Any
    discard: Any
    params: dict[str, float] = field(default_factory=dict)
    doc: str = ""


@dataclass(frozen=True)
class RebuyRule:
    """A rebuy rule ([A30]): one decision function; parameters sit in slots 8-15."""

    name: str
    decide: Any
    params: dict[str, float] = field(default_factory=dict)
    doc: str = ""

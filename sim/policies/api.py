"""The policy plug-in contract, for any game.

A game (:class:`sim.game.GameSpec`) names its decision kinds (Loba: ``draw``, ``play``,
``discard``; Moon: ``bid``, ``trump``, ``play``) and one compiled signature that every decision
function of that game has (``DECIDE_SIG`` in the game package's ``api.py``; the arguments
are what a player at the table may see, documented there). A :class:`Policy` bundles one
function per kind and its named parameters; an :class:`AddOnRule` is a one-decision rule a
seat adds with ``+KIND=NAME`` (Loba's rebuy rules: ``greedy+rebuy=never``).

Write the functions with :func:`decision` in any module, wrap them in a :class:`Policy`, and
select them with ``path/to/module.py:NAME`` or ``package.module:NAME`` in a seat string. They
run inside the compiled kernel, through first-class function calls.

Parameters: a seat's parameter row is ``float64[N_PARAMS]``: the policy's own at slots
``0 .. 7`` in declaration order, the ``k``-th add-on's at ``8 (k + 1) ..``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numba import types
from numba.core.typing.typeof import typeof_impl

from ..games import DEFAULT_GAME, get_game
from ..jit import compiled, jit

POLICY_SLOTS = 8  # parameters per policy or add-on rule


def addon_slot(k: int) -> int:
    """First parameter slot of the ``k``-th add-on rule of a seat."""
    return POLICY_SLOTS * (k + 1)


def decision(fn=None, *, alloc: bool = False):
    """Mark ``fn`` as a decision function (compiled for its game's signature on first use).

    It is compiled (or loaded from the on-disk cache) when a seat first uses it
    (:func:`compiled`), so importing a module of policies compiles nothing. Pass
    ``alloc=True`` (``@decision(alloc=True)``) if the function allocates arrays.

    Decision functions are compiled with Numba's ``boundscheck``: an index past the end of an
    argument raises ``IndexError`` (a batch run stops with it) instead of reading the memory
    beyond (the game's api.py says what is and is not guaranteed).
    """
    if fn is None:
        return lambda f: jit(alloc=alloc, boundscheck=True)(f)
    return jit(alloc=alloc, boundscheck=True)(fn)


class Handle(types.WrapperAddressProtocol):
    """A compiled decision function as a bare entry point, for kernel calls made often from
    Python (a game handle's ``step``).

    Handing the kernel a tuple of dispatchers makes Numba type and unbox each of them on every
    call (about a millisecond for a game's tables). A handle is typed from its signature and
    carries its address, so the call costs microseconds. The kernel then calls the function
    through its C wrapper instead of directly: same function, same results, a little slower
    per decision, so batches keep passing the dispatchers themselves.
    """

    __slots__ = ("fn", "_addr", "_sig", "_addresses")
    _types: dict = {}

    def __init__(self, fn, sig):
        from numba.experimental.function_type import _get_wrapper_address

        self.fn = compiled(fn, sig)  # kept alive: the address points into its code
        self._sig = sig
        self._addr = _get_wrapper_address(self.fn, sig)
        self._addresses = {}  # (Numba's per-call address look-ups, kept: sim.jit._entry_address)
        if sig not in Handle._types:
            Handle._types[sig] = types.FunctionType(sig)

    def __wrapper_address__(self) -> int:
        return self._addr

    def signature(self):
        return self._sig


@typeof_impl.register(Handle)
def _typeof_handle(val, c):
    return Handle._types[val._sig]  # built once: Numba would build one per handle per call


def handles(table: tuple, sig) -> tuple:
    """A tuple of decision functions as :class:`Handle` objects."""
    return tuple(f if isinstance(f, Handle) else Handle(f, sig) for f in table)


class Policy:
    """A playing policy: one decision function per decision kind of its game, plus named
    parameters (at most :data:`POLICY_SLOTS`, defaults in slot order) and a one-line doc.

    ``Policy("mine", draw=d, play=p, discard=x, params={"nerve": 0.5}, doc="...")``, or the
    functions positionally in the game's kind order. ``game``: the name of the game it plays
    (None: the default game, :data:`sim.games.DEFAULT_GAME`).
    ``ranges``: parameter -> (lowest, highest) value a seat string may give it, both included
    (a value outside is refused with one sentence); a parameter without one takes any finite
    number. ``quick``: the parameters registry-wide checks seat it with (``"n=2:width=3"``: a
    search policy's cheap setting; :func:`sim.testing.quick_seat`), "" for its defaults.
    ``builtin``: the id of the game engine's own copy of this policy (0: none; Loba's
    :data:`sim.loba.layout.BUILTIN`), which the engine then calls directly instead of through
    the function table: it must give the same answers as the functions.
    """

    def __init__(
        self,
        name,
        *fns,
        params=None,
        doc: str = "",
        game: str | None = None,
        ranges=None,
        quick: str = "",
        builtin: int = 0,
        **named,
    ):
        self.name = name
        self.builtin = builtin
        self.quick = quick
        self.positional = tuple(fns)
        self.named = dict(named)
        self.params = dict(params or {})
        self.ranges = check_ranges(name, self.params, ranges)
        self.doc = doc
        self.game = DEFAULT_GAME if game is None else game

    def decisions(self, kinds: tuple[str, ...]) -> tuple:
        """The functions in ``kinds`` order; ValueError (one sentence) if one is missing."""
        if self.positional and self.named:
            raise ValueError(f"Policy '{self.name}' mixes positional and named decisions.")
        if self.positional:
            if len(self.positional) != len(kinds):
                raise ValueError(
                    f"Policy '{self.name}' has {len(self.positional)} decision functions; its"
                    f" game needs {len(kinds)} ({', '.join(kinds)})."
                )
            return self.positional
        missing = [k for k in kinds if k not in self.named]
        extra = [k for k in self.named if k not in kinds]
        if missing or extra:
            raise ValueError(
                f"Policy '{self.name}' must give the decisions {', '.join(kinds)}"
                + (f"; it lacks {', '.join(missing)}" if missing else "")
                + (f"; {', '.join(extra)} is not one" if extra else "")
                + "."
            )
        return tuple(self.named[k] for k in kinds)

    def __getattr__(self, kind: str):
        d = self.__dict__
        if kind in d.get("named", {}):
            return d["named"][kind]
        if d.get("positional") and not kind.startswith("_"):
            kinds = get_game(d["game"]).decisions
            if kind in kinds and len(d["positional"]) == len(kinds):
                return d["positional"][kinds.index(kind)]
        raise AttributeError(kind)

    def __repr__(self) -> str:
        return f"Policy({self.name!r}, game={self.game!r})"


def check_ranges(name: str, params: dict, ranges) -> dict[str, tuple[float, float]]:
    """``ranges`` as a dict of (low, high) floats, checked against ``params``' names and
    defaults (a programming error, so ValueError)."""
    out = {}
    for k, (lo, hi) in dict(ranges or {}).items():
        if k not in params:
            raise ValueError(f"'{name}' declares a range for '{k}', which is not a parameter.")
        lo, hi = float(lo), float(hi)
        if not lo <= float(params[k]) <= hi:
            raise ValueError(f"'{name}': the default {k}={params[k]} is outside {lo:g}..{hi:g}.")
        out[k] = (lo, hi)
    return out


@dataclass(frozen=True)
class AddOnRule:
    """A one-decision rule a seat adds with ``+KIND=NAME`` (Loba: ``+rebuy=never``);
    ``ranges`` as for :class:`Policy`.

    ``load``: a rule whose parameter values come from a file, named ``+KIND=NAME:PATH``
    (everything after ``NAME:`` is the path; Loba's ``rebuy=table:PATH``). ``load(path)``
    returns ``(values, rules_id)``: a value for every name of ``params`` and the rules id the
    file was made under (None if it does not record one; a run under other rules is then
    refused), or raises ``ValueError`` with one sentence. The seat's label names the path, not
    the values, so it reads the file again wherever it is parsed."""

    name: str
    decide: Any
    params: dict[str, float] = field(default_factory=dict)
    doc: str = ""
    game: str | None = None  # None: the default game (sim.games.DEFAULT_GAME)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    load: Any = None

    def __post_init__(self):
        if self.game is None:
            object.__setattr__(self, "game", DEFAULT_GAME)
        object.__setattr__(self, "ranges", check_ranges(self.name, self.params, self.ranges))

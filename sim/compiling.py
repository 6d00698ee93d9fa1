"""A cold first run, piece by piece: what compiles, how long it should take on this machine,
and what the command line says while it does (:class:`Progress`) and after (:func:`report`).

A game names the pieces of its kernel (``GameSpec.compile_pieces``: the engine's functions that
compile apart, and one entry standing for each seat's decision function), each with its
typical cost; :meth:`sim.game.GameSpec.fn_tables` adds the run's seat functions
(:func:`plan`). :mod:`sim.jit` notes every top-level compile as it starts and ends, in this
process and in the child of :func:`sim.jit.compile_aside`; a piece is done when either
process has compiled it or loaded it from the on-disk cache.

The estimate: each piece's typical seconds (:class:`Piece`: measured on the development
machine, see the tables in the games' ``kernel.py``), for the way it is compiled here (in one
process, or shared with the child on two cores or more), scaled by how busy this machine is
against the machine the table was measured on (:func:`slowdown`: cores and ``os.getloadavg``),
then, as pieces finish, more and more by how long they really took against the table.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from dataclasses import dataclass, replace

from . import jit


@dataclass(frozen=True)
class Piece:
    """One piece of a game's kernel that compiles on its own. ``key``: the function
    (:func:`sim.jit.function_key`; ``""``: the template of each seat's decision function);
    ``alone``: its typical seconds when one process compiles everything; ``shared``: when the
    child of :func:`sim.jit.compile_aside` compiles its share at the same time; ``aside``:
    the child compiles this one (when there is a child)."""

    name: str
    key: str
    alone: float
    shared: float
    aside: bool = False
    seat: bool = False  # a seat's decision function (not the engine's)


SEAT = Piece("seat function", "", 1.0, 1.0)  # a game that names no cost of its own

# The machine the games' tables stand for: 2 cores, nothing else running (the quickest of
# several runs on the development machine). :func:`slowdown` scales from there.
REFERENCE_CORES = 2
REFERENCE_LOAD = 0.0

PLANS: dict[str, list[Piece]] = {}  # game -> the pieces of its last planned run
_lock = threading.Lock()
_active: Progress | None = None


def machine_load() -> tuple[int, float]:
    """(cores, 1-minute load average) of this machine (load 0 where the system has none)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return os.cpu_count() or 1, float(load)


def _busy(procs: int, cores: int, load: float) -> float:
    """How many times slower than alone on a core each of ``procs`` compiling processes
    runs beside ``load`` other runnable processes on ``cores`` cores (each compile uses one
    core)."""
    return max(1.0, (load + procs) / max(cores, 1))


def slowdown(procs: int, cores: int | None = None, load: float | None = None) -> float:
    """The factor from a piece's typical seconds (measured on the reference machine,
    :data:`REFERENCE_CORES` cores at load :data:`REFERENCE_LOAD`) to this machine now, with
    ``procs`` processes compiling (2: the child of :func:`sim.jit.compile_aside` too)."""
    c, ld = machine_load()
    cores = c if cores is None else cores
    load = ld if load is None else load
    return _busy(procs, cores, load) / _busy(procs, REFERENCE_CORES, REFERENCE_LOAD)


def shared_mode(spec) -> bool:
    """Whether a cold run of ``spec``'s game compiles in two processes here."""
    return bool(spec.precompile) and jit.aside_possible()


def pieces_of(spec, seat_functions) -> list[Piece]:
    """The engine's pieces of ``spec`` and one piece per seat function (a dispatcher)."""
    table = tuple(getattr(spec, "compile_pieces", ()) or ())
    seat = next((p for p in table if not p.key), SEAT)
    out = [p for p in table if p.key]
    for f in seat_functions:
        out.append(replace(seat, name=f.__name__, key=jit.function_key(f), seat=True))
    return out


def _guessed(spec) -> list[Piece]:
    """The pieces of a run before its seats are known: one seat function per decision kind
    and add-on (one policy at every seat)."""
    seat = pieces_of(spec, [])
    table = tuple(getattr(spec, "compile_pieces", ()) or ())
    tmpl = next((p for p in table if not p.key), SEAT)
    return seat + [replace(tmpl, key=f"?{k}", seat=True) for k in spec.kinds]


def plan(spec, seats) -> None:
    """Note the pieces a run of ``seats`` compiles (:meth:`sim.game.GameSpec.fn_tables`), for
    the progress shown now (if any) and for :func:`report`."""
    pieces = pieces_of(spec, spec.seat_functions(seats))
    with _lock:
        PLANS[spec.name] = pieces
        active = _active
    if active is not None and active.game == spec.name:
        active.planned(pieces)


def estimate(pieces, shared: bool, factor: float) -> float:
    """Seconds to compile ``pieces``: the longer of the two processes' shares when the child
    compiles its pieces beside this process, else their sum; times ``factor``."""
    lanes = [0.0, 0.0]
    for p in pieces:
        lanes[1 if (shared and p.aside) else 0] += p.shared if shared else p.alone
    return max(lanes) * factor


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"


class Progress:
    """What a cold first run says on ``stream`` (stderr) while the kernel compiles: a first
    line with the estimate, then, on a terminal, one line redrawn every second, else one line
    per finished piece (and one after :data:`QUIET_S` seconds without any); a last line
    when every planned piece is done. :meth:`close` stops it early (quietly)."""

    QUIET_S = 15.0  # not on a terminal: a line at least this often while nothing finishes
    TICK_S = 1.0  # on a terminal: the line is redrawn this often

    def __init__(self, spec, stream=None, tty: bool | None = None, cache_on: bool = True):
        self.spec, self.game = spec, spec.name
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            try:
                tty = self.stream.isatty()
            except (AttributeError, ValueError):
                tty = False
        self.tty, self.cache_on = tty, cache_on
        self.shared = shared_mode(spec)
        self.cores, self.load = machine_load()
        self.load_factor = slowdown(2 if self.shared else 1, self.cores, self.load)
        self.pieces = pieces_of(spec, [])  # the engine's, until the run's plan comes
        self._guess = _guessed(spec)
        self.done: dict[str, tuple[str, float, str]] = {}  # key -> (how, seconds, where)
        self.running: dict[str, tuple[float, str]] = {}  # key -> (since, where)
        self.has_plan = False
        self.t0 = time.perf_counter()
        self.t_line = self.t0
        self._width = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.closed = False

    # ------------------------------------------------------------------ the estimate
    def factor(self) -> float:
        """:attr:`load_factor` at first, then more and more the ratio of the measured to the
        typical seconds of the pieces compiled so far (weighted by their share of the work)."""
        mode = "shared" if self.shared else "alone"
        typical = measured = 0.0
        for p in self.pieces:
            d = self.done.get(p.key)
            if d is not None and d[0] == "compiled":
                typical += getattr(p, mode)
                measured += d[1]
        if typical <= 0:
            return self.load_factor
        total = sum(getattr(p, mode) for p in self.pieces) or typical
        w = min(typical / total, 1.0)
        return (1 - w) * self.load_factor + w * measured / typical

    def remaining(self, now: float | None = None) -> float:
        """Seconds to go: the pieces not done, less the time the running ones have had."""
        now = time.perf_counter() if now is None else now
        f = self.factor()
        lanes = [0.0, 0.0]
        for p in self.pieces if self.has_plan else self._guess:
            if p.key in self.done:
                continue
            cost = (p.shared if self.shared else p.alone) * f
            since = self.running.get(p.key)
            if since is not None:
                cost = max(cost - (now - since[0]), 0.1 * cost)
            lanes[1 if (self.shared and p.aside) else 0] += cost
        return max(lanes)

    # ------------------------------------------------------------------ events
    def start(self) -> Progress:
        """Print the first line and start following the compile notes."""
        total = estimate(self._guess, self.shared, self.load_factor)
        how = "first run only" if self.cache_on else "the kernel cache is off"
        where = f"{self.cores} core{'s' * (self.cores != 1)}, load {self.load:.1f}"
        self._write(
            f"compiling the game kernel ({how}; about {total:.0f} s on this machine: {where})...",
            end=True,
        )
        with _lock:
            _set_active(self)
        with jit._watch_lock:  # (what began before too: the child may have started already)
            self.running.update(jit.RUNNING)
            jit._watchers.append(self._event)
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()
        return self

    def planned(self, pieces) -> None:
        with self._lock:
            self.pieces = list(pieces)
            self.has_plan = True
        self._maybe_finish()

    def _event(self, event, key, how, seconds, where) -> None:
        now = time.perf_counter()
        with self._lock:
            if self.closed:
                return
            if event == "start":
                self.running.setdefault(key, (now, where))
                return
            self.running.pop(key, None)
            piece = next((p for p in self.pieces if p.key == key), None)
            if how is None or piece is None or key in self.done:
                return
            self.done[key] = (how, seconds, where)
            if not self.tty:
                self._line(now, piece, how, seconds, where)
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        with self._lock:
            if self.closed or not self.has_plan:
                return
            if any(p.key not in self.done for p in self.pieces):
                return
        self.close(final=True)

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK_S if self.tty else 1.0):
            now = time.perf_counter()
            with self._lock:
                if self.closed:
                    return
                if self.tty:
                    self._redraw(now)
                elif now - self.t_line >= self.QUIET_S:
                    self._line(now)

    # ------------------------------------------------------------------ words
    def _names(self, keys) -> list[str]:
        names = []
        for k in keys:
            p = next((p for p in self.pieces if p.key == k), None)
            if p is not None:
                aside = self.running[k][1] == "aside"
                names.append(p.name + (" (second process)" if aside else ""))
        return names

    def _status(self, now: float) -> str:
        """Pieces left (once the run's plan is known: before, or when the work is done in
        another process, there is nothing to count), those compiling, the time."""
        parts = []
        if self.has_plan:
            left = sum(p.key not in self.done for p in self.pieces)
            parts.append(f"{left} of {len(self.pieces)} pieces left")
        now_ = self._names(self.running)
        if now_:
            shown = ", ".join(now_[:3]) + (", ..." if len(now_) > 3 else "")
            parts.append(f"compiling {shown}")
        parts.append(
            f"{now - self.t0:.0f} s elapsed, about {max(self.remaining(now), 1):.0f} s to go"
        )
        return "; ".join(parts)

    def _line(self, now, piece=None, how=None, seconds=None, where=None) -> None:
        if piece is None:
            head = "  still compiling"
        else:
            word = "loaded from cache" if how == "loaded" else "compiled"
            by = " by the second process" if where == "aside" else ""
            head = f"  {piece.name} {word}{by} ({_seconds(seconds)})"
            if all(p.key in self.done for p in self.pieces):
                self._write(head, end=True)  # (the last: the closing line says the rest)
                return
        self._write(f"{head}: {self._status(now)}", end=True)
        self.t_line = now

    def _redraw(self, now) -> None:
        last = ""
        if self.done:
            k = next(reversed(self.done))
            p = next((p for p in self.pieces if p.key == k), None)
            if p is not None:
                last = f"{p.name} done; "
        self._write(f"compiling: {last}{self._status(now)}")

    def _write(self, text: str, end: bool = False) -> None:
        """``text`` as a line of its own (``end``), or, on a terminal, as the line redrawn."""
        try:
            if self.tty and not end:
                pad = max(self._width - len(text), 0)
                self.stream.write("\r" + text + " " * pad)
                self._width = len(text)
            else:
                self._clear()
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _clear(self) -> None:
        """Blank the redrawn line (a terminal's), if one is shown."""
        if self.tty and self._width:
            with contextlib.suppress(OSError, ValueError):
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
            self._width = 0

    def close(self, final: bool = False) -> None:
        """Stop following the compile notes; ``final``: every piece is done, say so (with
        the time it took and how many were loaded from the cache instead)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._stop.set()
            if final:
                took = time.perf_counter() - self.t0
                loaded = sum(d[0] == "loaded" for d in self.done.values())
                n = len(self.done)
                what = f"{n} pieces" + (f", {loaded} loaded from the cache" if loaded else "")
                after = (
                    "; later runs load it from the cache"
                    if self.cache_on
                    else "; the kernel cache is off: every run compiles it"
                )
                self._write(f"compiled the game kernel in {took:.0f} s ({what}){after}", end=True)
            elif self.tty and self._width:
                self._clear()
        jit.unwatch(self._event)
        with _lock:
            if _active is self:
                _set_active(None)


def _set_active(p: Progress | None) -> None:
    global _active
    _active = p


def start(spec, stream=None, tty: bool | None = None, cache_on: bool = True) -> Progress:
    """Show a cold first run's progress (:class:`Progress`) until every piece ``spec``'s run
    plans is done, or :func:`stop`."""
    stop()
    return Progress(spec, stream, tty, cache_on).start()


def stop() -> None:
    """Close the progress shown now, if any, without its last line."""
    with _lock:
        p = _active
    if p is not None:
        p.close()


# ---------------------------------------------------------------------------- -v
def report(game: str, since: int = 0) -> list[str]:
    """How each piece of ``game``'s kernel came to be ready in this process (for ``-v``):
    one line per engine piece, one for the seat functions and one for other functions,
    each ``compiled (N s)``, ``compiled by the second process (N s)`` and/or ``loaded from
    cache (N s)``, from the compile notes after the first ``since`` (those of one command);
    a piece that was ready before says so. Empty before any run of ``game`` was planned."""
    pieces = PLANS.get(game)
    with jit._watch_lock:
        notes = list(jit.COMPILES[since:])
    if not pieces:
        return []
    engine = [p for p in pieces if not p.seat]
    seats = [p for p in pieces if p.seat]
    known = {p.key for p in pieces}
    lines = [f"{p.name} {_how([n for n in notes if n.key == p.key])}" for p in engine]
    if seats:
        mine = [n for n in notes if n.key in {p.key for p in seats}]
        lines.append(f"seat functions ({len(seats)}): {_how(mine)}")
    other = [n for n in notes if n.key not in known and n.where == "here"]
    if other:
        lines.append(f"other functions ({len({n.key for n in other})}): {_how(other)}")
    return lines


def _how(notes) -> str:
    """``compiled (N s)``, ``compiled by the second process (N s)``, ``loaded from cache
    (N s)``, joined (one function: in the order they happened); the count of functions of each
    where a group's functions differ."""
    groups = [
        ("compiled", "here", "compiled"),
        ("compiled", "aside", "compiled by the second process"),
        ("loaded", "here", "loaded from cache"),
    ]
    found = [
        (words, [n for n in notes if n.how == how and n.where == where])
        for how, where, words in groups
    ]
    found = [(words, got) for words, got in found if got]
    if not found:
        return "in memory already (nothing to compile or load)"
    one = len({n.key for n in notes}) == 1
    parts = [
        f"{'' if one or len(found) == 1 else f'{len({n.key for n in got})} '}{words}"
        f" ({sum(n.seconds for n in got):.2f} s)"
        for words, got in found
    ]
    return (", then " if one else ", ").join(parts)

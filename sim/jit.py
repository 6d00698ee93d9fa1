"""The project's one jit decorator (STYLE.md 7).

Every compiled function in the project goes through :func:`jit`, so Numba options live in one
place. Environment overrides:

* ``LOBA_JIT_CACHE=0`` turns the on-disk cache off (default on: later processes start fast).
* ``LOBA_CACHE_DIR`` moves the cache; it wins over Numba's ``NUMBA_CACHE_DIR``, which is
  used when it alone is set; the default is ``~/.cache/loba-sim`` (:func:`cache_base`). Under
  that base each version of the sources *and* of the code-generation switches (today
  ``NUMBA_BOUNDSCHECK``) gets its own sub-folder, so bounds-checked and unchecked machine code
  never share one, and only the :data:`KEEP_CACHES` most recently used are kept.
* ``NUMBA_DISABLE_JIT=1`` (Numba's own switch) runs everything as plain Python, for readable
  tracebacks and coverage; the test-suite runs a small sample that way.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import inspect
import os
import threading
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import numba
from numba.core import sigutils, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.errors import TypingError
from numba.core.registry import CPUDispatcher

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

CACHE = os.environ.get("LOBA_JIT_CACHE", "1") != "0"


def cache_base() -> tuple[str, str]:
    """(folder, where it comes from): ``LOBA_CACHE_DIR`` if set, else ``NUMBA_CACHE_DIR`` if
    set, else ``$XDG_CACHE_HOME/loba-sim`` (``~/.cache/loba-sim``)."""
    for var in ("LOBA_CACHE_DIR", "NUMBA_CACHE_DIR"):
        if os.environ.get(var):
            return os.environ[var], var
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return os.path.join(home, "loba-sim"), "default"


def _source_cache_dir() -> str:
    """A cache folder keyed by a hash of every source file of ``sim`` and of the switches that
    change the machine code (``NUMBA_BOUNDSCHECK``).

    Numba's own cache only notices changes to the file that holds the cached function, not to
    the helpers compiled into it, nor to its own switches; keying the folder by all of
    ``sim``'s sources means an edited or upgraded engine never runs stale machine code, and by
    the switches that a bounds-checked run never loads unchecked code.
    """
    root = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    h.update(f"boundscheck={bool(numba.config.BOUNDSCHECK)}".encode())
    return os.path.join(cache_base()[0], "numba-" + h.hexdigest()[:16])


KEEP_CACHES = 4  # source versions whose compiled code stays on disk
_STAMP = ".last-used"


def _prune_caches(current: str, keep: int = KEEP_CACHES) -> list[str]:
    """Mark ``current`` as just used and delete all but the ``keep`` most recently used
    ``numba-*`` folders next to it (best effort: a folder in use elsewhere or unremovable
    is left). Every edit or upgrade of the engine starts a new folder of about 10 MB; without
    this they would pile up. Returns the folders removed."""
    import re
    import shutil
    import time

    removed = []
    try:
        os.makedirs(current, exist_ok=True)
        Path(current, _STAMP).write_text(str(time.time()))
        base = Path(current).parent
        olds = []
        for d in base.iterdir():
            if d.is_dir() and re.fullmatch(r"numba-[0-9a-f]{16}", d.name) and str(d) != current:
                stamp = d / _STAMP
                olds.append((stamp.stat().st_mtime if stamp.exists() else d.stat().st_mtime, d))
        for _, d in sorted(olds, reverse=True)[max(keep - 1, 0) :]:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    except OSError:
        pass
    return removed


if CACHE:
    numba.config.CACHE_DIR = _source_cache_dir()
    _prune_caches(numba.config.CACHE_DIR)
DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


# ---------------------------------------------------------------- what compiles, as it happens
# Every compile of a project function, at the top (a function typed inside another one's compile
# is part of that one), is timed and noted: compiled, or loaded from the on-disk cache. The CLI
# shows a cold first run's progress from these notes (sim.compiling) and -v lists them. The
# child process of compile_aside writes its notes on its standard output, one tab-separated
# line each (_REPORT_TAG), and the parent reads them (where="aside").


class Compiled(NamedTuple):
    """One top-level compile in this process, or in the child of :func:`compile_aside`."""

    key: str  # the function, "module.qualname" (:func:`function_key`)
    how: str  # "compiled", or "loaded" from the on-disk cache
    seconds: float
    where: str  # "here" (this process) or "aside" (the child of compile_aside)


COMPILES: list[Compiled] = []  # in the order they finished
RUNNING: dict[str, tuple[float, str]] = {}  # key -> (perf_counter when it began, where)
_watchers: list = []  # callables (event, key, how, seconds, where); event "start" or "done"
_watch_lock = threading.Lock()
_watch_tls = threading.local()
_REPORT_ENV = "_LOBA_ASIDE_REPORT"  # set in the child's environment: it writes its notes out
_REPORT_TAG = "loba-compile"


def function_key(fn) -> str:
    """``module.qualname`` of a function or a dispatcher: how compile notes name it."""
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}.{py.__qualname__}"


def watch(fn) -> None:
    """Call ``fn(event, key, how, seconds, where)`` on every compile note from now on: event
    ``"start"`` (how None) when a top-level compile begins, ``"done"`` when it ends (how
    ``"compiled"``, ``"loaded"`` or None when it had nothing to do or failed)."""
    with _watch_lock:
        _watchers.append(fn)


def unwatch(fn) -> None:
    with _watch_lock, contextlib.suppress(ValueError):
        _watchers.remove(fn)


def _note(event: str, key: str, how: str | None, seconds: float, where: str) -> None:
    with _watch_lock:
        if event == "start":
            RUNNING.setdefault(key, (time.perf_counter(), where))
        else:
            RUNNING.pop(key, None)
            if how:
                COMPILES.append(Compiled(key, how, seconds, where))
        listeners = list(_watchers)
    for fn in listeners:
        with contextlib.suppress(Exception):  # (a display that fails never stops a compile)
            fn(event, key, how, seconds, where)


def _watched(method):
    """Time a dispatcher's compile at the top (not inside another one's) and note it."""

    @functools.wraps(method)
    def watched(self, *args):
        depth = getattr(_watch_tls, "depth", 0)
        _watch_tls.depth = depth + 1
        try:
            if depth:
                return method(self, *args)
            key = function_key(self)
            hits = sum(getattr(self, "_cache_hits", {}).values())
            made = len(self.overloads)
            _note("start", key, None, 0.0, "here")
            t = time.perf_counter()
            how = None
            try:
                out = method(self, *args)
                if len(self.overloads) > made:  # (Numba counts a load from disk as a hit)
                    loaded = sum(getattr(self, "_cache_hits", {}).values()) > hits
                    how = "loaded" if loaded else "compiled"
                return out
            finally:
                _note("done", key, how, time.perf_counter() - t, "here")
        finally:
            _watch_tls.depth = depth

    return watched


def _report_out(event, key, how, seconds, where) -> None:
    """In the child of :func:`compile_aside`: each note as a line on its standard output."""
    import sys

    sys.stdout.write(f"{_REPORT_TAG}\t{event}\t{key}\t{how or ''}\t{seconds:.3f}\n")
    sys.stdout.flush()


if os.environ.get(_REPORT_ENV) == "1":
    watch(_report_out)


def _read_child(stream) -> None:
    """The parent's side of :func:`_report_out`: note each line the child writes, until it
    ends (other lines are ignored)."""
    with contextlib.suppress(Exception):
        for raw in stream:
            parts = raw.decode("utf-8", "replace").rstrip("\n").split("\t")
            if len(parts) == 5 and parts[0] == _REPORT_TAG:
                _, event, key, how, secs = parts
                _note(event, key, how or None, float(secs), "aside")


class _NoLiteralDispatcher(CPUDispatcher):
    """A dispatcher that compiles one specialisation per function, not per caller's types.

    Numba compiles a separate machine-code copy of a callee for every distinct tuple of
    argument types it is called with from compiled code, and each copy links (and optimises)
    everything below it again. Three erasures keep one copy where the differences mean nothing:

    * a constant argument is typed as its type, not ``Literal[int](value)`` (``_emit`` alone
      was compiled 19 times);
    * a signed integer narrower than 64 bits is passed as ``int64`` (an ``int16`` cell of a
      state array and an ``int64`` loop counter call the same code);
    * an array argument named in ``readonly`` (``@jit(readonly=("melds",))``: the function
      only reads it) is passed read-only, so the engine's writable arrays and the read-only
      views a decision function hands over share one copy. Numba converts a writable array to
      a read-only one for free; a function that writes into such an argument fails to compile.
    """

    _ro: frozenset = frozenset()

    def _erase(self, i, a):
        a = types.unliteral(a)
        if isinstance(a, types.Integer) and a.signed and a.bitwidth < 64:
            return types.int64
        if i in self._ro and isinstance(a, types.Array) and a.mutable:
            return a.copy(readonly=True)
        return a

    _sigs = None  # signatures given to :func:`jit`, until compiled (:meth:`compile_signed`)
    _signed = False  # given signatures: compiled for those alone, never for a caller's types

    @_watched
    def compile_signed(self) -> None:
        """Compile this function for the signatures given to :func:`jit`, alone, and close it
        to others (as Numba's eager compiling does, but when first needed). Under Numba's
        compiler lock: a second thread that needs it meanwhile waits for it."""
        with global_compiler_lock:
            sigs, self._sigs = self._sigs, None
            if sigs is None:
                return
            _SIGNED.remove(self)
            for sig in sigs:
                super().compile(sig.args)
            self.disable_compile()

    @_watched
    def compile(self, sig):
        if self._signed:  # first needed (typed in a caller, or called from Python)
            if self._sigs is not None or self._can_compile:  # (another thread may be at it)
                self.compile_signed()
            # the caller's types may need a conversion (dispatchers to first-class functions):
            # the closed dispatcher finds the overload itself when called again
            args, _ = sigutils.normalize_signature(sig) if sig is not None else ((), None)
            found = self.overloads.get(tuple(args))
            return found.entry_point if found is not None else lambda *a: self(*a)
        return super().compile(sig)

    def get_call_template(self, args, kws):
        names = getattr(self, "_arg_names", None)  # (a copy Numba rebuilt from a pickle
        if names is None:  # has only what Numba gives it)
            names = self._arg_names = list(inspect.signature(self.py_func).parameters)
        args = tuple(self._erase(i, a) for i, a in enumerate(args))
        kws = {k: self._erase(names.index(k) if k in names else -1, v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


# ---------------------------------------------------------------- inlining without quadratic copies
# Numba inlines an ``inline="always"`` callee by copying its IR block by block, each block with
# ``copy.deepcopy`` on its own, so each copy also copies the callee's whole scope (every variable
# of the function): a function of B blocks and V variables costs B x V, twice per call site
# (numba/numba#8989, #9204; numba/numba-cuda#688). In this project's engine that was over a third
# of its compile time. Copying all blocks of one function with one shared memo copies the scope
# once, as one ``deepcopy`` of the whole function would: the same IR, so the same machine code
# (tests/core/test_jit_inline.py compares the two). Installed when Numba first inlines (not at
# import: a run from the cache never loads it), only where Numba's code is the code this was
# written against; ``LOBA_FAST_INLINE=0`` turns it off (for A/B measures).

FAST_INLINE = os.environ.get("LOBA_FAST_INLINE", "1") != "0"
_inline_state = {"tried": False, "applied": False}
_inline_tls = threading.local()


class _SharedMemoCopy:
    """Stands in for the ``copy`` module inside ``numba.core.inline_closurecall``: while
    ``InlineWorker.inline_ir`` runs, the blocks of one scope are deep-copied with one memo."""

    def __init__(self, block_type):
        self._block = block_type

    def __getattr__(self, name):
        return getattr(copy, name)

    def deepcopy(self, x, memo=None):
        memos = getattr(_inline_tls, "memos", None)
        if memo is None and memos is not None and isinstance(x, self._block):
            s = x.scope
            entry = memos.get(id(s))
            if entry is None or entry[0] is not s:
                entry = memos[id(s)] = (s, {})  # (the scope itself kept: its id stays its own)
            memo = entry[1]
        return copy.deepcopy(x, memo)


def _share_inline_copies() -> bool:
    """Install :class:`_SharedMemoCopy` (once per process); returns whether it is in place."""
    if _inline_state["tried"]:
        return _inline_state["applied"]
    _inline_state["tried"] = True
    if not FAST_INLINE or DISABLED:
        return False
    try:
        from numba.core import inline_closurecall as icc
        from numba.core import ir

        src = inspect.getsource(icc.InlineWorker.inline_ir)
    except (ImportError, AttributeError, OSError, TypeError):
        return False
    if "copy.deepcopy(the_ir.blocks[block_label])" not in src or icc.copy is not copy:
        return False  # a Numba whose inlining this was not written for: leave it be
    inline_ir = icc.InlineWorker.inline_ir

    def shared_memo_inline_ir(self, *args, **kwargs):
        outer = getattr(_inline_tls, "memos", None)
        _inline_tls.memos = {}
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _inline_tls.memos = outer

    icc.copy = _SharedMemoCopy(ir.Block)
    icc.InlineWorker.inline_ir = shared_memo_inline_ir
    _inline_state["applied"] = True
    return True


def _inline_first(run_pass):
    def run_pass_once_patched(self, state):
        if not _inline_state["tried"]:
            _share_inline_copies()
        return run_pass(self, state)

    return run_pass_once_patched


if FAST_INLINE and not DISABLED:
    from numba.core.untyped_passes import InlineInlinables

    InlineInlinables.run_pass = _inline_first(InlineInlinables.run_pass)


def _no_literals(d, readonly=()):
    if isinstance(d, CPUDispatcher) and type(d) is CPUDispatcher:
        d.__class__ = _NoLiteralDispatcher
        d._arg_names = list(inspect.signature(d.py_func).parameters)
        unknown = set(readonly) - set(d._arg_names)
        if unknown:
            raise TypeError(f"{d.py_func.__name__} has no argument {', '.join(sorted(unknown))}.")
        d._ro = frozenset(d._arg_names.index(n) for n in readonly)
    return d


def jit(*args, parallel: bool = False, alloc: bool = True, readonly=(), **kwargs):
    """``numba.njit`` with the project's defaults (``cache``, no ``fastmath``: integer code).

    Use bare (``@jit``), with a signature (``@jit(SIG)``, or a list of them) or with options
    (``@jit(parallel=True)``). A function given signatures is compiled for exactly those, and
    closed to others, as Numba's eager compiling does, but not at import: when first needed
    (:meth:`_NoLiteralDispatcher.compile_signed`), so importing the package compiles nothing
    (measured: importing ``cli`` on a cold cache took 10-12 s when these compiled eagerly).
    It is compiled with reference counting whoever needs it first (see :func:`compile_signed`).

    ``alloc=False`` marks a function that never allocates arrays: it is compiled without
    Numba's reference counting, whose atomic increments on every array argument otherwise
    dominate the cost of small hot functions (measured: docs/performance.md). ``readonly``:
    names of array arguments the function only reads (see :class:`_NoLiteralDispatcher`).
    """
    opts = {"cache": CACHE, "nogil": True, "error_model": "numpy"}
    opts.update(kwargs)
    if parallel:
        opts["parallel"] = True
    if not alloc and not DISABLED:
        opts["_nrt"] = False
    if args and callable(args[0]):
        return _no_literals(numba.njit(**opts)(args[0]), readonly)
    if args and not DISABLED:  # signatures: compiled for those alone, when first needed
        sigs = list(args[0]) if isinstance(args[0], (list, tuple)) else [args[0]]

        opts["_nrt"] = True  # (said, not inherited from a caller compiled without it)

        def signed(fn):
            d = _no_literals(numba.njit(**opts)(fn), readonly)
            d._sigs = sigs
            d._signed = True
            _SIGNED.append(d)
            return d

        return signed
    deco = numba.njit(*args, **opts)
    return lambda fn: _no_literals(deco(fn), readonly)


# functions given signatures (:func:`jit`) not compiled yet
_SIGNED: list[CPUDispatcher] = []


class _Entry(_NoLiteralDispatcher):
    """A dispatcher handed from Python to compiled code as a first-class function on every
    call (:func:`entry`); its addresses are kept (:func:`_entry_address`)."""

    _addresses: dict


def entry(d):
    """Make ``d`` (a :func:`jit` dispatcher) cheap to hand from Python to compiled code as a
    first-class function (:class:`_Entry`)."""
    if isinstance(d, _NoLiteralDispatcher):
        d.__class__ = _Entry
        d._addresses = {}
    return d


def _entry_address(name: str):
    """Numba's ``numba.experimental.function_type.<name>``, which Numba's unboxing of a
    first-class function calls by name on every call, asking for the function's two
    addresses (its C wrapper's and its own): about 25 us each, mostly spent hashing and
    walking the signature's types (a quarter of a game handle's ``step``). An object with an
    ``_addresses`` table (an :class:`_Entry`, a :class:`sim.policies.api.Handle`) keeps the
    answers: Numba hands over the same signature object every time."""
    import numba.experimental.function_type as fnt

    get = getattr(fnt, name)

    def address(func, sig):
        table = getattr(func, "_addresses", None)
        if table is None:
            return get(func, sig)
        key = (name, id(sig))
        hit = table.get(key)
        if hit is None or hit[0] is not sig:
            hit = table[key] = (sig, get(func, sig))  # (sig kept: its id stays taken)
        return hit[1]

    address.__wrapped__ = get
    setattr(fnt, name, address)


if not DISABLED:
    for _name in ("_get_wrapper_address", "_get_jit_address"):
        _entry_address(_name)


def in_python(fn):
    """The Python body of ``fn``, a compiled function that allocates (a blank game state):
    called from Python, it then needs no compiling, so a cold first run compiles only what
    the engine runs (measured: 1.5 s on its critical path). Compiled callers still call
    ``fn``."""
    return getattr(fn, "py_func", fn)


def compile_signed() -> None:
    """Compile every function given signatures (:func:`jit`) that is not compiled yet, each
    for its signatures alone. Each also compiles by itself when first needed, typed in a
    caller or called from Python; it says ``_nrt=True`` (reference counting), since these
    functions allocate arrays, and a function that does not say it inherits the setting of
    the caller it is first compiled in: inside a caller compiled without reference counting
    (``alloc=False``) it would fail ("Only accept returning of array passed into the
    function as argument")."""
    while _SIGNED:
        _SIGNED[0].compile_signed()


def kernel(*args, **kwargs):
    """:func:`jit` for hot array code that never allocates (``alloc=False``)."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return jit(alloc=False)(args[0])
    return jit(*args, alloc=False, **kwargs)


def _index_files(fn, depth: int = 4) -> list[str]:
    """The Numba index files of ``fn`` (a dispatcher) or of the dispatchers a plain Python
    entry function (a game's ``play_batch``) calls by name, looking through plain functions
    it calls in turn (``depth`` levels); empty when none is known."""
    if hasattr(fn, "_cache"):
        try:
            return [fn._cache._cache_file._index_path]  # Numba internals: best effort
        except AttributeError:
            return []
    if depth == 0 or not hasattr(fn, "__code__"):
        return []
    g = getattr(fn, "__globals__", {})
    paths = []
    for n in fn.__code__.co_names:
        f = g.get(n)
        if hasattr(f, "_cache") or (callable(f) and hasattr(f, "__code__")):
            paths += _index_files(f, depth - 1)
    return paths


def kernel_cached(fn=None) -> bool:
    """Whether compiled code is already on disk, so a run starts without compiling.

    Cheap (no compiling): given ``fn`` (a dispatcher, or a plain entry such as a game's
    ``play_batch``, whose called dispatchers are looked at), whether their Numba index files
    (``*.nbi``) exist in this source version's cache folder; without ``fn``, or when none can
    be found, whether that folder holds any index file. False when the on-disk cache is off
    (every process compiles); True under ``NUMBA_DISABLE_JIT`` (nothing compiles).
    """
    if DISABLED:
        return True
    if not CACHE:
        return False
    try:
        paths = _index_files(fn) if fn is not None else []
        if paths:
            return all(os.path.exists(p) for p in paths)
        root = Path(numba.config.CACHE_DIR or _source_cache_dir())
        return any(root.rglob("*.nbi"))
    except OSError:
        return False


# ---------------------------------------------------------------- compiling on two cores
# A cold first run compiles independent things: the seats' decision functions and the pieces
# of the game's engine (typed on the decision signature only, never on the functions
# themselves). Numba compiles on one thread per process, so on a machine with two or more
# cores a child process compiles the engine's largest piece into the on-disk cache while this
# process compiles the rest of the engine (:func:`compile_share`) and the seats' functions;
# the engine's first call then waits for the child and loads its machine code. Each process
# loads from the cache what the other finished first. ``LOBA_COMPILE_ASIDE=0`` turns this off.
# A child that fails or is slow costs nothing but the wait: this process then compiles the
# piece itself.

ASIDE = os.environ.get("LOBA_COMPILE_ASIDE", "1") != "0"
ASIDE_WAIT = 900  # seconds the engine's first call waits for the child at most
_aside: dict[str, object] = {}  # key -> the child process (subprocess.Popen)
_readers: dict[str, threading.Thread] = {}  # key -> the thread reading its notes


def compile_aside(key: str, target: str, cached) -> bool:
    """Start compiling ``target`` (``"module:function"``, a function that compiles the engine
    into the cache) in a child process, unless it is off, pointless or already under way:
    the cache is off, JIT is disabled, one core only, or ``cached()`` (cheap) says the engine
    is on disk already. Returns whether a child was started."""
    import subprocess
    import sys

    if not aside_possible() or key in _aside:
        return False
    if cached():
        return False
    mod, _, fn = target.partition(":")
    code = f"import {mod} as m; m.{fn}()"
    try:
        child = _aside[key] = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,  # (closed at once or by tell_aside: see there)
            stdout=subprocess.PIPE,  # its compile notes (_report_out), read by a thread here
            stderr=subprocess.DEVNULL,
            env={**os.environ, _REPORT_ENV: "1"},
        )
    except OSError:
        return False
    reader = threading.Thread(target=_read_child, args=(child.stdout,), daemon=True)
    reader.start()
    _readers[key] = reader
    return True


def aside_possible() -> bool:
    """Whether :func:`compile_aside` may start a child at all: it is on, the on-disk cache is
    on (the child's work reaches this process through it), JIT is on, two cores or more."""
    return ASIDE and CACHE and not DISABLED and (os.cpu_count() or 1) >= 2


def tell_aside(key: str, lines: tuple[str, ...] = ()) -> None:
    """Write ``lines`` to the standard input of ``key``'s child (:func:`compile_aside`), once,
    and close it: the run's seats, which it compiles after its part of the engine (it reads
    its input to the end; a closed input says there is nothing more). :func:`wait_aside`
    closes it too, so a child never waits for input its parent will not send."""
    _close_input(_aside.get(key), lines)


def _close_input(child, lines: tuple[str, ...] = ()) -> None:
    stdin = getattr(child, "stdin", None)
    if stdin is None or stdin.closed:
        return
    with contextlib.suppress(OSError, ValueError):  # (a child that already ended)
        stdin.write("".join(f"{line}\n" for line in lines).encode())
    with contextlib.suppress(OSError, ValueError):
        stdin.close()


def aside_running(key: str) -> bool:
    """Whether this process started a child compiling ``key``'s engine that has not been
    waited for and is still running (a cold cache: this process may share the work)."""
    child = _aside.get(key)
    return bool(child) and child.poll() is None


def compile_share(key: str, target: str | None) -> None:
    """While a child compiles ``key``'s engine (:func:`compile_aside`), compile here the
    pieces of it that the child would compile itself only later (``target``,
    ``"module:function"``), so that it loads them from the cache instead. Best effort:
    anything that fails here is compiled by the child itself."""
    if not target or not aside_running(key):
        return
    import importlib

    mod, _, fn = target.partition(":")
    with contextlib.suppress(Exception):
        getattr(importlib.import_module(mod), fn)()


def wait_aside(key: str) -> None:
    """Before the engine's first call: wait for a child started by :func:`compile_aside`
    (at most :data:`ASIDE_WAIT` s; a child still running then is stopped)."""
    child = _aside.get(key)
    if child is None or child is False:
        return
    _aside[key] = False  # waited for once; never started again in this process
    import subprocess

    _close_input(child)  # (nothing more to tell it)

    try:
        child.wait(ASIDE_WAIT)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    except BaseException:
        child.kill()
        raise
    reader = _readers.pop(key, None)
    if reader is not None:
        reader.join(5)  # (its last notes: the child has ended, its output is closed)
    with _watch_lock:  # (a child stopped mid-compile: nothing of it runs any more)
        for k in [k for k, (_, where) in RUNNING.items() if where == "aside"]:
            del RUNNING[k]


def compiled(fn, sig):
    """``fn`` compiled for ``sig`` and closed to other signatures, as the kernel's function
    tables need it (one machine-code entry point per function). Raises ``TypeError`` with one
    sentence if ``fn`` is not a :func:`decision` function."""
    if DISABLED:
        return fn
    if not hasattr(fn, "compile") or not hasattr(fn, "disable_compile"):
        raise TypeError(f"{fn!r} is not a @decision function.")
    if fn._can_compile:
        try:
            fn.compile(sig)
        except TypingError as e:
            if "readonly" in str(e) or "read-only" in str(e):
                raise TypeError(
                    f"{fn.__name__} writes into an argument its game hands over read-only (a"
                    " decision may write only its random stream and its memory)."
                ) from e
            raise
        fn.disable_compile()
    if sig.args not in fn.overloads or len(fn.overloads) != 1:
        raise TypeError(f"{fn.__name__} is not compiled for the decision signature alone.")
    return fn

"""What a command shows on the terminal besides its result: -v lines, progress bars, the
compile notice, warnings, tables, and files written whole."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from sim.games import get_game
from sim.house import is_house_file

VERBOSE = "loba.verbose"  # key in click's context meta (shared by the group and its commands)


class Verbose:
    """-v/--verbose: what a command does, as lines on stderr; silent without -v."""

    def __init__(self):
        ctx = click.get_current_context(silent=True)
        self.on = bool(ctx is not None and ctx.meta.get(VERBOSE))
        self.t = time.perf_counter()
        self.notes = compile_notes()  # compiles noted before this command: not its own

    def __call__(self, text: str) -> None:
        if self.on:
            click.echo(f"[loba] {text}", err=True)

    def lap(self) -> float:
        """Seconds since the last lap (or since the command started)."""
        now = time.perf_counter()
        d, self.t = now - self.t, now
        return d

    def run(self, rules, seats, seed, preset=None, run_dir=None) -> None:
        """The lines that say what defines a run (or a replayed game): its rules (from a
        house-rules file ``preset`` or a run directory, if so), seats, seed and kernel cache."""
        if not self.on:
            return
        source = run_dir or (preset if is_house_file(preset) else None)
        src = f" (from {source})" if source else ""
        self(f"game {rules.game}; rules {rules.id}{src}, rules version {rules.version}")
        labels = [s if isinstance(s, str) else s.label for s in seats]
        self(f"seats {','.join(labels)}; seed {seed}")
        self(f"kernel cache: {cache_text(rules.game)}")

    def kernel(self, game) -> None:
        """One line per piece of ``game``'s kernel: compiled (where, seconds) or loaded from
        the on-disk cache (seconds), by this command (:func:`sim.compiling.report`)."""
        if not self.on:
            return
        from sim.compiling import report

        for line in report(game, since=self.notes):
            self(f"kernel: {line}")


def compile_notes() -> int:
    """How many compiles this process has noted so far (:data:`sim.jit.COMPILES`), without
    importing the compiler for a command that never needs it."""
    jit = sys.modules.get("sim.jit")
    return len(jit.COMPILES) if jit is not None else 0


def cache_text(game) -> str:
    """Where the compiled kernels are kept and whether this game's is there already."""
    import numba

    from sim import jit

    if jit.DISABLED:
        return "none (NUMBA_DISABLE_JIT: everything runs as plain Python)"
    if not jit.CACHE:
        return "off (LOBA_JIT_CACHE=0): the kernel compiles in every process"
    state = (
        "loaded from the cache" if jit.kernel_cached(get_game(game).play_batch)
        else "to be compiled"
    )  # fmt: skip
    src = jit.cache_base()[1]
    src = "default" if src == "default" else f"from {src}"
    bc = ", bounds-checked" if numba.config.BOUNDSCHECK else ""
    return f"{numba.config.CACHE_DIR} ({src}{bc}; this game's kernel: {state})"


def announce_compile(game: str | None = None, quiet: bool = False):
    """On a cold cache (checked cheaply, nothing compiled), show the kernel's compile on stderr
    as it goes (:class:`sim.compiling.Progress`): a first line with the estimate for this
    machine before anything compiles, then the pieces as they finish; a first run is otherwise
    half a minute of silence. Closed when the command ends. Returns it, or None."""
    from sim import compiling, jit

    spec = get_game(game)
    if quiet or jit.kernel_cached(spec.play_batch):
        return None
    progress = compiling.start(spec, cache_on=jit.CACHE)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(progress.close)
    return progress


def count(n: int, what: str) -> str:
    """``1 chunk``, ``3 chunks``."""
    return f"{n:,} {what}{'s' * (n != 1)}"


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """``progress(done, total)`` for long work: a bar on stderr, opened at the first update
    (so bad input fails before any output) and only when stderr is a terminal (a pipe or a log
    gets nothing); ``min_total``: work this small gets no bar. A context manager closes it."""

    def __init__(self, label: str = "games", min_total: int = 0):
        self.label, self.min_total, self.bar = label, min_total, None
        self.on = stderr_is_terminal()

    def __call__(self, done: int, total: int) -> None:
        if not self.on or total < self.min_total:
            return
        if self.bar is None:
            end_compile_progress()  # (its line on the terminal ends first)
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.bar.pos)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        end_compile_progress()
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def end_compile_progress() -> None:
    """Close the compile progress on the terminal, if one is shown (:func:`announce_compile`)."""
    compiling = sys.modules.get("sim.compiling")
    if compiling is not None:
        compiling.stop()


def cells_progress(i, n, name) -> None:
    """A sweep's progress: one line per cell on stderr."""
    click.echo(f"cell {i + 1}/{n}: {name}", err=True)


def given(ctx, name: str) -> bool:
    """Whether option ``name`` was written on the command line (not left at its default)."""
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE


def no_effect(flag: str, when: str, why: str) -> None:
    """One warning line on stderr for an option that does nothing here; the command goes on
    (exit code unchanged)."""
    click.echo(f"Warning: {flag} has no effect {when}: {why}", err=True)


def table(rows, head) -> list[str]:
    """Rows as aligned text lines under the header ``head``."""
    w = [max([len(str(h))] + [len(str(r[i])) for r in rows]) for i, h in enumerate(head)]
    out = ["  ".join(str(h).ljust(w[i]) for i, h in enumerate(head)).rstrip()]
    out += ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    return out


def echo_lines(lines, err: bool = False) -> None:
    for line in lines:
        click.echo(line, err=err)


def emit(fmt: str, as_dict, frame, as_text) -> None:
    """A result in the --format asked for: JSON of ``as_dict()``, CSV of ``frame``, or the
    readable ``as_text()``."""
    from analysis.text import render

    if fmt == "json":
        click.echo(json.dumps(as_dict(), indent=1, default=str))
    elif fmt == "csv":
        click.echo(render(frame, "csv"))
    else:
        click.echo(as_text())


class WarnToStderr:
    """Show the analysis' warnings (e.g. an interrupted run) as one line on stderr."""

    def __enter__(self):
        import warnings

        from numba.core.errors import NumbaExperimentalFeatureWarning

        self._cm = warnings.catch_warnings(record=True)
        self._seen = self._cm.__enter__()
        warnings.simplefilter("always")
        # "always" would also surface what sim/jit.py silences: Numba's notes to developers
        warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        for w in self._seen:
            click.echo(f"Warning: {w.message}", err=True)
        return False


def check_plot_file(plot_file) -> None:
    """--plot FILE: writable, and of a kind matplotlib writes (one sentence if not)."""
    if plot_file is None:
        return
    from matplotlib.figure import Figure

    from sim.files import check_out_file

    check_out_file(plot_file, "Plot file")
    kinds = Figure().canvas.get_supported_filetypes()
    kind = Path(plot_file).suffix.lstrip(".").lower()
    if kind and kind not in kinds:
        raise ValueError(
            f"--plot '{plot_file}': matplotlib cannot write .{kind} files; use .png or"
            f" one of {', '.join(sorted(kinds))}."
        )


def save_plot(fig, plot_file) -> None:
    """Write a figure whole or not at all (temporary file, renamed) and say so on stderr."""
    from sim.files import atomic_output

    with atomic_output(plot_file, "Plot file") as tmp:
        fig.savefig(tmp, dpi=110, format=Path(plot_file).suffix.lstrip(".").lower() or "png")
    click.echo(f"wrote {plot_file}", err=True)


def guarded(fn, spec, seat_list, *args, doing: str, specs="portable") -> list:
    """The items of ``fn(game, *args[:1], seat strings, *args[1:])``
    (:func:`sim.isolated.guarded`): in a child process when a seat is a plug-in, so that a
    crash, a hang or an exception in its code ends in one sentence. ``specs``: the seat strings
    handed on (default: ``seat_list``'s, portable to another process)."""
    from sim.isolated import guarded as run_guarded
    from sim.isolated import seats_with_plugins
    from sim.setup import portable_seat

    plays = tuple(portable_seat(s) for s in seat_list) if specs == "portable" else specs
    first, rest = args[:1], args[1:]
    return list(
        run_guarded(
            fn, spec.name, *first, plays, *rest, seats=seats_with_plugins(seat_list), doing=doing
        )
    )

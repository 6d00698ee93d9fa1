"""The ``loba`` command line: parses, calls sim/ or analysis/, prints or writes. No game logic.

Every bad input (rule name or value, seat string, card, player count, output directory) ends
with one sentence on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from sim.faults import RunFailure
from sim.games import DEFAULT_GAME, GameError, game_names, get_game
from sim.house import is_house_file
from sim.policies import SeatError
from sim.results import RunDirError
from sim.rules import RuleError
from sim.setup import settings

USER_ERRORS = (RuleError, SeatError, GameError, RunDirError, ValueError, FileNotFoundError)


def _house_rules(preset: str | None, sets: tuple[str, ...], game: str | None = None):
    """(rule set, house-rules file or None) of ``--rules`` and ``--set``."""
    s = settings(preset, sets, None, game)
    return s.rules, s.house


def _rules(preset: str | None, sets: tuple[str, ...], game: str | None = None):
    """The rule set of ``--rules`` (a preset, a canonical id or a house-rules file) plus
    ``--set`` overrides."""
    return settings(preset, sets, None, game).rules


def _run_setup(preset, sets, seats, game=None):
    """(rules, seats, label) of --rules/--set/--seats (:func:`sim.setup.settings`)."""
    return settings(preset, sets, seats, game)[:3]


def _presets() -> str:
    return "; ".join(f"{g}: {', '.join(get_game(g).rules.presets)}" for g in game_names())


game_option = click.option(
    "--game",
    "game",
    type=click.Choice(game_names()),
    default=None,
    help=f"The game (default {DEFAULT_GAME}, or the one a --rules id names).",
)
rules_option = click.option(
    "--rules",
    "preset",
    metavar="RULES",
    default=None,
    help="A preset, a canonical rules id such as pagat(elimination_score=151), or a house-rules"
    " file such as house.toml (its rules, and its seats unless --seats is given; 'loba rules"
    " --format toml' writes one) (presets: " + _presets() + ").",
)
seats_option = click.option(
    "--seats",
    default=None,
    help="Comma-separated seat strings, one per player (default: the game's standard"
    " seating, e.g. greedy,greedy,greedy,greedy for Loba). A seat is"
    " POLICY[:param=value...][+rebuy=RULE[:param=value]]: greedy, hold:patience=2,"
    " random+rebuy=never, my_policy.py:NAME; 'loba policies' lists them.",
)
field_option = click.option(
    "--field",
    "field_names",
    default=None,
    metavar="FIELDS",
    help="Play (or read) the analysis once per field of players, comma separated, weakest"
    " first: greedy (every seat greedy), smart (every seat smart), mixed (greedy and smart"
    " alternating, seat 0 greedy) or any built-in policy; each field's finding is set"
    " against the first's: holds, flips or indistinguishable from noise.",
)


def setup_options(f):
    """--game, --rules, --set and --seats: what a command that plays games is given."""
    return game_option(rules_option(set_option(seats_option(f))))


def _fields_option(ctx, field_names, seats) -> list[str] | None:
    """--field FIELDS checked (one sentence for an unknown field, or --seats beside it)."""
    if field_names is None:
        return None
    from analysis.field import parse_fields

    if seats is not None:
        raise ValueError("--field and --seats both name the players; give one of them.")
    p = ctx.params
    game = _rules(p.get("preset"), p.get("sets") or (), p.get("game")).game
    return parse_fields(field_names, game)


set_option = click.option(
    "--set",
    "sets",
    metavar="KNOB=VALUE",
    multiple=True,
    help="Override one rule knob; repeat for more (see 'loba rules').",
)


def _examples(*lines: str) -> str:
    """A --help epilogue of example command lines (kept as written: \\b stops rewrapping)."""
    return "\b\nExamples:\n" + "\n".join(f"  {x}" for x in lines)


EXAMPLES = {
    "rules": _examples(
        "loba rules                                  # every knob of the default rules",
        "loba rules classic --set elimination_score=151",
        "loba rules 'pagat(max_rebuys=0)'            # a canonical id",
        "loba rules --set elimination_score=151 --format toml > house.toml",
        "loba rules --rules house.toml               # what a house-rules file holds",
    ),
    "policies": _examples("loba policies", "loba policies --game loba"),
    "tables": _examples("loba tables --game loba"),
    "check-meld": _examples(
        "loba check-meld 5S 6S JK                    # valid: escalera 5S 6S JK(7S)",
        "loba check-meld KS KH KD KC --rules rami",
    ),
    "simulate": _examples(
        "loba simulate --games 20000",
        "loba simulate --rules rami --seats greedy,hold:patience=2,random+rebuy=never --seed 7",
        "loba simulate --set elimination_score=151 --games 100000 --rounds --out runs/e151",
        "loba simulate --resume runs/e151            # finish an interrupted run",
        "loba simulate --games 1000000 --out runs/m --backend dask --workers 4",
    ),
    "bench": _examples("loba bench", "loba bench --games 50000 --seats hold,hold,hold,hold"),
    "replay": _examples(
        "loba replay --seats greedy,hold,random --seed 7 --index 1234",
        "loba replay --seed 7 --index 1234 --format jsonl > g.jsonl",
        "loba replay runs/e151 --index 12            # game 12 of a run directory",
        "loba replay --position examples/moon_play.toml --seed 3   # play on from a position",
    ),
    "audit": _examples("loba audit g.jsonl"),
    "summarize": _examples(
        "loba summarize runs/e101",
        "loba summarize runs/e101 runs/e151 --format csv > metrics.csv",
    ),
    "compare": _examples(
        "loba compare runs/e101 runs/e151            # same --seed: paired, game by game",
        "loba compare runs/a runs/b --label mine --label theirs --format json",
        "loba compare runs/moon runs/moon-nodoubles        # Moon runs: Moon's figures",
        "loba compare sweeps/skill/field=*/cells/* --field greedy,mixed,smart   # across skill",
    ),
    "calibrate": _examples(
        "loba calibrate --runs 60 --games 4000            # Loba, 4 x greedy",
        "loba calibrate --game moon --seats count,count,count --runs 20 --games 2000",
    ),
    "sweep": _examples(
        "loba sweep --vary elimination_score=101,151,201 --games 5000 --out sweeps/e",
        "loba sweep --vary elimination_score=101,151 --vary max_rebuys=0,1,2 --out sweeps/h",
        "loba sweep --game moon --vary allow_doubles_trump=true,false --games 20000 --out sweeps/m",
        "loba sweep --vary elimination_score=101,151 --field greedy,mixed,smart --out sweeps/skill",
    ),
    "report": _examples(
        "loba report runs/e101 -o report.html",
        "loba report runs/e101 runs/e151 -o report.html --rebuy-games 2000",
        "loba report sweeps/skill/field=*/cells/* -o skill.html     # with 'Across skill'",
    ),
    "rebuy-value": _examples(
        "loba rebuy-value --mode policy --games 50000",
        "loba rebuy-value --mode state --games 2000 --plot rebuy.png",
        "loba rebuy-value --seats greedy,greedy,greedy --format json",
        "loba rebuy-value --mode state --games 2000 --save rebuy.csv   # for rebuy=table:FILE",
        "loba rebuy-value --seats careful,greedy,greedy,greedy --rebuy table:rebuy.csv",
        "loba rebuy-value --field greedy,mixed,smart --games 50000   # holds, flips or noise?",
    ),
    "tournament": _examples(
        "loba tournament --seats-pool random,greedy,hold,careful,wary --players 4 --games 2000",
        "loba tournament --seats-pool greedy,hold:patience=1,hold:patience=6 --plot t.png",
        "loba tournament --players 3 --all-orders --out runs/t3 --format json",
        "loba tournament --game moon --games 5000    # random, greedy, count at 3 seats",
    ),
    "tune": _examples(
        "loba tune hold --against greedy --param patience=0..12 --games 4000 --trials 20",
        "loba tune careful --against greedy --param danger=0..20 --param keep=0.0..12",
        "loba tune careful:safe=1 --against greedy,wary,hold --param keep=0..20 --out tunes/c",
        "loba tune wary --param margin=0..10 --pruner halving --format json > wary.json",
    ),
}

ENVIRONMENT = """\b
Environment:
  LOBA_CACHE_DIR   where compiled kernels are kept (default ~/.cache/loba-sim); it wins over
                   NUMBA_CACHE_DIR, used when it alone is set
  LOBA_JIT_CACHE   0 turns the on-disk kernel cache off
  LOBA_COMPILE_ASIDE  0: a cold first run compiles in one process (default: the engine in a
                   child process while the seats' policies compile, on 2+ cores)
  LOBA_FAST_INLINE  0: Numba's own (slower) copying when it inlines, for comparison
  LOBA_ISOLATE     simulate: 1 plays chunks in a child process (a crash is reported, not
                   fatal), 0 never; default: only when a seat uses a plug-in policy
  NUMBA_NUM_THREADS, NUMBA_DISABLE_JIT, NUMBA_BOUNDSCHECK   Numba's own switches

\b
Shell completion (bash; zsh and fish alike, see docs/cli.md):
  eval "$(_LOBA_COMPLETE=bash_source loba)"
"""


VERBOSE = "loba.verbose"  # key in click's context meta (shared by the group and its commands)


def _set_verbose(ctx, param, value):
    if value:
        ctx.meta[VERBOSE] = True


verbose_option = click.option(
    "-v",
    "--verbose",
    is_flag=True,
    expose_value=False,
    callback=_set_verbose,
    help="Say on stderr what is done: rules id, seats, seed, threads, chunk sizes, kernel"
    " cache and the seconds each phase takes (the output itself is unchanged).",
)


def out_options(writes: str, replacing: str | None = None):
    """``--out DIR`` (``writes``: what it writes there) and ``--overwrite`` (``replacing``: what
    a second run replaces), for every command that writes a directory."""

    def deco(f):
        more = f" (replacing {replacing})" if replacing else ""
        f = click.option(
            "--overwrite", is_flag=True, help=f"Allow writing into a non-empty --out{more}."
        )(f)
        return click.option(
            "--out", "out_dir", default=None, type=click.Path(file_okay=False), help=writes
        )(f)

    return deco


threads_option = click.option(
    "--threads", default=None, type=int, help="Kernel threads (default: all cores)."
)


class _Verbose:
    """-v/--verbose: what a command does, as lines on stderr; silent without -v."""

    def __init__(self):
        ctx = click.get_current_context(silent=True)
        self.on = bool(ctx is not None and ctx.meta.get(VERBOSE))
        self.t = time.perf_counter()
        self.notes = _compile_notes()  # compiles noted before this command: not its own

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
        self(f"kernel cache: {_cache_text(rules.game)}")

    def kernel(self, game) -> None:
        """One line per piece of ``game``'s kernel: compiled (where, seconds) or loaded from
        the on-disk cache (seconds), by this command (:func:`sim.compiling.report`)."""
        if not self.on:
            return
        from sim.compiling import report

        for line in report(game, since=self.notes):
            self(f"kernel: {line}")


def _compile_notes() -> int:
    """How many compiles this process has noted so far (:data:`sim.jit.COMPILES`), without
    importing the compiler for a command that never needs it."""
    jit = sys.modules.get("sim.jit")
    return len(jit.COMPILES) if jit is not None else 0


def _cache_text(game) -> str:
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=ENVIRONMENT)
@click.version_option(package_name="loba-sim", prog_name="loba")
@verbose_option
def cli():
    """Simulate and analyse the rummy game Loba de Menos and the domino game Three-Player
    Moon. The rules the tool implements: docs/rules.md."""


def _announce_compile(game: str | None = None, quiet: bool = False):
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


def _count(n: int, what: str) -> str:
    """``1 chunk``, ``3 chunks``."""
    return f"{n:,} {what}{'s' * (n != 1)}"


def _stderr_is_terminal() -> bool:
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
        self.on = _stderr_is_terminal()

    def __call__(self, done: int, total: int) -> None:
        if not self.on or total < self.min_total:
            return
        if self.bar is None:
            _end_compile_progress()  # (its line on the terminal ends first)
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.bar.pos)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _end_compile_progress()
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _end_compile_progress() -> None:
    """Close the compile progress on the terminal, if one is shown (:func:`_announce_compile`)."""
    compiling = sys.modules.get("sim.compiling")
    if compiling is not None:
        compiling.stop()


def _given(ctx, name: str) -> bool:
    """Whether option ``name`` was written on the command line (not left at its default)."""
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE


def _no_effect(flag: str, when: str, why: str) -> None:
    """One warning line on stderr for an option that does nothing here; the command goes on
    (exit code unchanged)."""
    click.echo(f"Warning: {flag} has no effect {when}: {why}", err=True)


def _table(rows, head) -> list[str]:
    w = [max([len(str(h))] + [len(str(r[i])) for r in rows]) for i, h in enumerate(head)]
    out = ["  ".join(str(h).ljust(w[i]) for i, h in enumerate(head)).rstrip()]
    out += ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    return out


@cli.command("rules", epilog=EXAMPLES["rules"])
@click.argument("preset", required=False)
@click.option(
    "--rules",
    "rules_opt",
    metavar="RULES",
    default=None,
    help="The same as PRESET: a preset, a canonical rules id or a house-rules .toml file.",
)
@set_option
@game_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "toml"]),
    default="table",
    show_default=True,
    help="A readable table; JSON: the rules id and one record per knob; TOML: a house-rules"
    " file (every knob, for --rules FILE.toml).",
)
@click.option(
    "--seats",
    default=None,
    help="With --format toml: the seats the file names (default: those of a house-rules"
    " --rules file, else none).",
)
@click.option(
    "--label",
    default=None,
    help="With --format toml: the label the file gives its runs (default: as --rules FILE).",
)
def rules_cmd(preset, rules_opt, sets, game, fmt, seats, label):
    """Print every rule knob: value, default, rule id, allowed values and meaning
    (* marks a value that differs from the default), or write them as a house-rules file."""
    if preset is not None and rules_opt is not None:
        raise click.UsageError("Give the rules once: PRESET or --rules.")
    preset = preset if rules_opt is None else rules_opt
    if fmt != "toml" and (seats is not None or label is not None):
        raise click.UsageError("--seats and --label go into a house-rules file: add --format toml.")
    rules, house = _house_rules(preset, sets, game)
    if fmt == "toml":
        from sim.house import house_toml
        from sim.setup import check_run

        if house is not None:
            seats = house.pick_seats(seats)
            label = house.label if label is None else label
        if label is not None and not label.strip():
            raise click.UsageError("--label is empty: give the house rules a name.")
        seat_list = None if seats is None else check_run(rules, seats, 1, 0)[2]
        click.echo(house_toml(rules, seat_list, label and label.strip()), nl=False)
        return
    if fmt == "json":
        keys = ("knob", "value", "default", "rule", "allowed", "meaning")
        knobs = [dict(zip(keys, row, strict=True)) for row in rules.describe()]
        report = {"game": rules.game, "rules_id": rules.id, "knobs": knobs}
        click.echo(json.dumps(report, indent=2))
        return
    rows = [
        (k, v + (" *" if v != d else ""), d, r, alt, meaning)
        for k, v, d, r, alt, meaning in rules.describe()
    ]
    click.echo(f"rules: {rules.id}")
    for line in _table(rows, ("knob", "value", "default", "rule", "allowed", "meaning")):
        click.echo(line)


text_json_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output: readable text, or JSON for tools.",
)


def _param_records(obj) -> dict:
    """Each parameter's default and range (``null`` where none is declared), for JSON; none
    for a rule that reads its values from a file (``table:PATH``)."""
    if getattr(obj, "load", None) is not None:
        return {}
    ranges = getattr(obj, "ranges", {}) or {}
    return {
        k: {"default": v, "range": list(ranges[k]) if k in ranges else None}
        for k, v in obj.params.items()
    }


@cli.command("policies", epilog=EXAMPLES["policies"])
@game_option
@text_json_option
def policies_cmd(game, fmt):
    """List every built-in policy and add-on rule (Loba's rebuy rules) with its parameters,
    defaults and what it does."""
    specs = [get_game(game)] if game else [get_game(g) for g in game_names()]
    if fmt == "json":
        out = {
            spec.name: {
                "policies": {
                    n: {"params": _param_records(p), "doc": p.doc} for n, p in spec.policies.items()
                },
                **{
                    f"{kind}_rules": {
                        n: {"params": _param_records(r), "doc": r.doc} for n, r in reg.items()
                    }
                    for kind, (reg, _default) in spec.addons.items()
                },
            }
            for spec in specs
        }
        click.echo(json.dumps(out, indent=2))
        return
    for spec in specs:
        rows = [(name, _params(p), p.doc) for name, p in spec.policies.items()]
        click.echo(f"{spec.title} policies (seat: POLICY[:param=value...]):")
        for line in _table(rows, ("policy", "parameters", "what it does")):
            click.echo("  " + line)
        for kind, (registry, default) in spec.addons.items():
            rows = [(name, _params(r), r.doc) for name, r in registry.items()]
            click.echo(f"{spec.title} {kind} rules (seat: POLICY+{kind}=RULE; default {default}):")
            for line in _table(rows, (f"{kind} rule", "parameters", "what it does")):
                click.echo("  " + line)


@cli.command("check-trick")
@click.option(
    "--trump",
    "trump",
    required=True,
    metavar="TRUMP",
    help="The contract: a number 0-6, doubles, or none.",
)
@click.option(
    "--led", "led", default=None, metavar="TILE", help="With --hand: the tile that led the trick."
)
@click.option(
    "--hand",
    "hand",
    default=None,
    metavar="TILES",
    help="With --led: the tiles in hand, comma separated (5-5,6-1,3-2).",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"winner": i} or {"legal": [...]}.')
@click.argument("tiles", nargs=-1)
def check_trick_cmd(trump, led, hand, as_json, tiles):
    """Three-Player Moon: who wins a trick of TILES (in play order, the first led) and why, or
    with --led/--hand which tiles may be played ([B6]-[B8]).

    \b
    Examples:
      loba check-trick --trump 6 6-4 6-6 6-5
      loba check-trick --trump doubles --led 6-4 --hand 5-5,6-1,3-2 --json
    """
    tools = get_game("moon").tools
    if (led is None) != (hand is None):
        raise click.UsageError("Give --led and --hand together (or three TILES of a trick).")
    if led is not None:
        if tiles:
            raise click.UsageError("Give either TILES of a trick or --led/--hand, not both.")
        legal = tools["legal_tiles"](trump, led, hand)
        if as_json:
            click.echo(json.dumps({"legal": legal}))
        else:
            click.echo("may play: " + (" ".join(legal) if legal else "nothing"))
        return
    winner, why = tools["trick_winner"](trump, list(tiles))
    click.echo(json.dumps({"winner": winner}) if as_json else why)


@cli.command("moves")
@click.argument("position", type=click.Path(dir_okay=False))
@click.option(
    "--after-draw",
    "after_draw",
    metavar="CARD",
    default=None,
    help="From a position about to draw: the plays after drawing CARD from the stock.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def moves_cmd(position, after_draw, as_json):
    """Every legal option of the seat to move in a POSITION file (TOML, see docs/positions.md).
    Loba: draws (and whether the discard may be taken, and why), plays, or discards. Moon
    (game = "moon"): calls, the widow's discard and trump, or the tiles that may be played
    (and whether the seat must follow)."""
    from sim.position import position_game

    positions = position_game(position).positions
    m = positions.moves(positions.load(position), after_draw)
    if as_json:
        click.echo(json.dumps(m, indent=2))
    else:
        click.echo(positions.moves_text(m), nl=False)


@cli.command("tables", epilog=EXAMPLES["tables"])
@game_option
@text_json_option
def tables_cmd(game, fmt):
    """List the tables a run writes, with every column's type and meaning."""
    specs = [get_game(game)] if game else [get_game(g) for g in game_names()]
    if fmt == "json":
        out = {
            spec.name: {
                t.name: {
                    "doc": t.doc,
                    "detail": bool(t.detail),
                    "columns": [{"name": c.name, "type": c.dtype, "doc": c.doc} for c in t.columns],
                }
                for t in spec.tables
            }
            for spec in specs
        }
        click.echo(json.dumps(out, indent=2))
        return
    for spec in specs:
        for t in spec.tables:
            when = " (with --rounds)" if t.detail else ""
            click.echo(f"{spec.name} {t.name}.parquet{when}: {t.doc}")
            rows = [(c.name, c.dtype, c.doc) for c in t.columns]
            for line in _table(rows, ("column", "type", "meaning")):
                click.echo("  " + line)


def _params(obj) -> str:
    """``patience=3 (0..200)``: each parameter's default and, if declared, its range; ``PATH``
    for a rule that reads its values from a file (``table:PATH``)."""
    if getattr(obj, "load", None) is not None:
        return "PATH (a file)"
    ranges = getattr(obj, "ranges", {}) or {}

    def one(k, v):
        r = ranges.get(k)
        return f"{k}={v:g}" + (f" ({r[0]:g}..{r[1]:g})" if r else "")

    return ", ".join(one(k, v) for k, v in obj.params.items()) or "-"


@cli.command("check-meld", epilog=EXAMPLES["check-meld"])
@rules_option
@set_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='text: "valid: ..." or "invalid: ..."; json: {"valid", "text", "cards", "rules_id"}.',
)
@click.argument("cards", nargs=-1, required=True)
def check_meld_cmd(preset, sets, fmt, cards):
    """Judge CARDS as a new Loba meld laid down from hand (exit 0 valid, 1 invalid)."""
    spec = get_game("loba")
    rules = _rules(preset, sets, "loba")
    ok, text = spec.tools["check_meld"](list(cards), rules)
    if fmt == "json":
        report = {"valid": bool(ok), "text": text, "cards": list(cards), "rules_id": rules.id}
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(("valid: " if ok else "invalid: ") + text)
    sys.exit(0 if ok else 1)


@cli.command("simulate", epilog=EXAMPLES["simulate"])
@setup_options
@click.option("--games", default=20000, show_default=True, type=int, help="Games to play.")
@click.option("--seed", default=0, show_default=True, type=int, help="Run seed.")
@click.option(
    "--threads",
    default=None,
    type=int,
    help="Kernel threads (default: all cores; with dask: per kernel call on a worker).",
)
@click.option(
    "--rounds", "record_rounds", is_flag=True, help="Also record rounds.parquet (with --out)."
)
@out_options("Write a run directory (manifest.json + Parquet tables, one part per chunk).")
@click.option(
    "--resume",
    "resume_dir",
    default=None,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Finish an interrupted run directory (its manifest gives rules, seats, seed, games).",
)
@click.option(
    "--chunk-size",
    default=None,
    type=int,
    help="Games per chunk, i.e. per Parquet part (default 8192; 512 with --rounds); with"
    " --resume, the missing games are played in parts of at most this size.",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where chunks run: this process, or a Dask cluster.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a local cluster for the run).",
)
@click.option(
    "--workers",
    default=None,
    type=int,
    help="Worker processes of the local Dask cluster (default: one per core).",
)
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@verbose_option
@click.pass_context
def simulate_cmd(
    ctx,
    game,
    preset,
    sets,
    seats,
    games,
    seed,
    threads,
    record_rounds,
    out_dir,
    overwrite,
    resume_dir,
    chunk_size,
    backend,
    scheduler,
    workers,
    quiet,
    as_json,
):
    """Play GAMES complete games and summarise them.

    Chunks of games stream to --out as they finish (bounded memory at any size); an
    interrupted run is finished with --resume DIR.

    Ctrl-C stops the run at once (exit 130), even in a plug-in stuck in a loop, keeping every
    finished chunk in --out. With a plug-in seat the chunks are played in a child process: a
    plug-in that crashes it (e.g. a segfault) stops the run with one sentence naming the seat
    (exit 1), and the finished chunks resume.
    """
    from sim.chunks import MAX_THREADS, ChunkError, chunk_games
    from sim.results import RunDir
    from sim.runner import resume_run, stream_run

    log = _Verbose()
    target = resume_dir or out_dir
    label = None
    if resume_dir is not None:
        fixed = [
            ("game", "--game"),
            ("preset", "--rules"),
            ("sets", "--set"),
            ("seats", "--seats"),
            ("games", "--games"),
            ("seed", "--seed"),
            ("record_rounds", "--rounds"),
            ("out_dir", "--out"),
            ("overwrite", "--overwrite"),
        ]
        for name, flag in fixed:
            if _given(ctx, name):
                raise click.UsageError(
                    f"--resume takes the run's settings from its manifest; leave out {flag}."
                )
        run = RunDir.read(resume_dir)
        manifest = run.manifest
        run_game = manifest.get("game")
        label = manifest.get("label") if isinstance(manifest.get("label"), str) else None
        if log.on:
            from sim.setup import resolve_rules

            done, total = run.games_done(), manifest["games"]
            log(f"resuming '{resume_dir}': {done:,} of {total:,} games done")
            try:  # a manifest resume refuses is refused below, in its own words
                rules = resolve_rules(manifest["rules_id"], run_game)
                log.run(rules, manifest["seats"], manifest["seed"])
            except ValueError:
                pass
            chunk = min(chunk_size or run.chunk_size, run.chunk_size)
            log(f"chunks of at most {chunk:,} games")
    else:
        from sim.runner import _check_backend
        from sim.setup import check_run

        rules, seats, label = _run_setup(preset, sets, seats, game)
        spec, rules, seat_list = check_run(rules, seats, games, seed)
        _check_backend(backend, scheduler, workers, chunk_size, threads)
        if out_dir is not None:
            from sim.results import check_out_dir

            check_out_dir(out_dir, overwrite)
        else:
            if record_rounds:
                _no_effect(
                    "--rounds", "without --out", "rounds are recorded only in a run directory."
                )
            if overwrite:
                _no_effect("--overwrite", "without --out", "nothing is written.")
        run_game = spec.name
        if log.on:
            log.run(rules, seat_list, seed, preset)
            chunk = chunk_games(games, chunk_size, record_rounds)
            log(
                f"{games:,} games in chunks of {chunk:,} ({_count(-(-games // chunk), 'chunk')})"
                + (f", written to '{out_dir}'" if out_dir else ", not written (no --out)")
                + (f"; label '{label}'" if label else "")
            )
    if log.on:
        if backend == "local":
            t = min(threads or MAX_THREADS, MAX_THREADS)
            log(f"backend local: {_count(t, 'kernel thread')} of {MAX_THREADS} available")
        else:
            where = scheduler or f"a local cluster of {workers or 'one worker per core'}"
            log(f"backend dask on {where}; {threads or 'all'} kernel threads per call")
        log(f"checked the input in {log.lap():.2f} s")
    if scheduler is None:  # a remote cluster compiles on its workers, with their own cache
        _announce_compile(run_game, quiet)
    bar = ProgressBar("games")  # opened at the first finished chunk, after every check
    bar.on = bar.on and not quiet
    where = dict(backend=backend, scheduler=scheduler, workers=workers, threads=threads)
    try:
        with bar:
            if resume_dir is not None:
                rep = resume_run(resume_dir, chunk_size=chunk_size, progress=bar, **where)
            else:
                rep = stream_run(
                    rules,
                    seat_list,
                    games=games,
                    seed=seed,
                    out_dir=out_dir,
                    overwrite=overwrite,
                    record_rounds=record_rounds,
                    chunk_size=chunk_size,
                    progress=bar,
                    label=label,
                    **where,
                )
    except KeyboardInterrupt:  # the bar is closed first: the sentence stands on its own line
        click.echo(_interrupted(target), err=True)
        raise click.exceptions.Exit(130) from None
    except ChunkError as e:
        click.echo(f"Error: {e}", err=True)
        raise click.exceptions.Exit(1) from None
    for text in rep.replayed:  # resume found a listed part damaged: it was played again
        click.echo(f"Warning: {text}; its games were played again.", err=True)
    if log.on:
        ph = rep.phases
        log.kernel(run_game)
        log(
            f"kernel ready in {ph.get('load', 0):.2f} s; played"
            f"{' and wrote' if target else ''} {rep.games:,} games in {ph.get('play', 0):.2f} s;"
            f" summarised in {ph.get('finish', 0):.2f} s ({log.lap():.2f} s in all)"
        )
    if quiet:
        return
    s = rep.summary
    if as_json:
        head = {
            "game": rep.game,
            "rules_id": rep.rules_id,
            "seat_labels": list(rep.seat_labels),  # "seats" is the summary's per-seat table
            "seed": rep.seed,
            **({"label": label} if label else {}),
        }
        click.echo(json.dumps({**head, **s, "backend": rep.backend}, indent=2))
        return
    spec = get_game(rep.game)
    b = rep.backend
    how = (
        f"{b['threads']} threads"
        if b["backend"] == "local"
        else f"dask on {b['scheduler']}, {b['workers']} worker{'s' * (b['workers'] != 1)}"
    )
    if label:
        click.echo(f"label {label}")
    click.echo(f"rules {rep.rules_id}  seats {','.join(rep.seat_labels)}  seed {rep.seed}")
    click.echo(
        f"{s['games']} games in {s['elapsed_seconds']:.2f} s ({s['games_per_second']:,.0f} games/s,"
        f" {how}); {s['unfinished']} unfinished"
    )
    for line in spec.summary.lines(s):
        click.echo(line)
    click.echo("win share by seat (95% Wilson interval):")
    for row in s["seats"]:
        click.echo(
            f"  seat {row['seat']} {row['policy']:<24} {row['share']:7.2%}  "
            f"[{row['ci_low']:.2%}, {row['ci_high']:.2%}]"
        )
    bad = [r for r in s["seats"] if r.get("bad_answers")]
    if bad:
        click.echo(
            "bad answers (out of range, read as the fallback): "
            + "; ".join(f"seat {r['seat']} {r['policy']} {r['bad_answers']:,}" for r in bad)
        )
    if resume_dir is not None:
        click.echo(f"resumed {resume_dir}: played the {rep.games} missing games")
    elif out_dir is not None:
        click.echo(f"wrote {out_dir}")


def _interrupted(target) -> str:
    """The one sentence after Ctrl-C stopped a run: what is kept and how to finish."""
    from sim.results import RunDir

    nothing = "Interrupted; nothing was saved (use --out DIR to keep finished chunks)."
    if target is None:
        return nothing
    try:
        m = RunDir.read(target).manifest
    except Exception:  # stopped before the run directory was made
        return nothing
    return (
        f"Interrupted: {m['games_done']} of {m['games']} games are on disk in"
        f" '{target}'; finish with: loba simulate --resume {target}"
    )


@cli.command("bench", epilog=EXAMPLES["bench"])
@click.option("--games", default=20000, show_default=True, type=int)
@game_option
@seats_option
@rules_option
@set_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the report lines; json: game, rules id, seats, games and those lines.",
)
@verbose_option
def bench_cmd(games, game, seats, preset, sets, fmt):
    """Throughput of the kernel (1 thread and all threads) against a floor kernel."""
    from sim.isolated import bench_lines
    from sim.setup import check_run

    if isinstance(games, bool) or games < 1:
        raise ValueError(f"--games must be a whole number of at least 1, not {games}.")
    rules, seats, _ = _run_setup(preset, sets, seats, game)
    spec, rules, seat_list = check_run(rules, seats, games, 0)
    log = _Verbose()
    log.run(rules, seat_list, 0, preset)
    _announce_compile(spec.name)
    lines = _guarded(
        bench_lines, spec, seat_list, rules.id, games, 12345, doing="while benchmarking"
    )
    log(f"benchmarked {games:,} games in {log.lap():.2f} s")
    log.kernel(spec.name)
    if fmt == "json":
        report = {
            "game": spec.name,
            "rules_id": rules.id,
            "seats": [s.label for s in seat_list],
            "games": games,
            "report": list(lines),
        }
        click.echo(json.dumps(report, indent=2))
        return
    for line in lines:
        click.echo(line)


@cli.command("replay", epilog=EXAMPLES["replay"])
@click.argument("run_dir", required=False, metavar="[RUN_DIR]")
@click.option(
    "--game",
    "game",
    default=None,
    metavar="GAME",
    help=f"The game ({', '.join(game_names())}); a number here is read as --index (the"
    " older spelling).",
)
@rules_option
@set_option
@seats_option
@click.option(
    "--seed",
    type=int,
    default=None,
    help="The run's seed (with --position: drives the policies' random choices and, in Loba,"
    " orders the stock cards the file does not name; default 0).",
)
@click.option(
    "--index", "index", type=int, default=None, help="Game index within the run (0 = first)."
)
@click.option(
    "--position",
    "position",
    type=click.Path(dir_okay=False),
    default=None,
    help="Play on from a position file (Loba or Moon, docs/positions.md) instead.",
)
@click.option(
    "--to-game-end",
    "to_end",
    is_flag=True,
    help="With --position: play to the end of the game, not of the round (Moon: the hand).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text", show_default=True
)
@click.option(
    "--round",
    "only_round",
    type=int,
    default=None,
    help="Show only round N (in a game played in hands: hand N).",
)
@verbose_option
def replay_cmd(run_dir, game, preset, sets, seats, seed, index, position, to_end, fmt, only_round):
    """Play game INDEX of a run again and show every move (text) or every event (jsonl).

    With RUN_DIR (a run directory of 'loba simulate --out') the game, rules, seats and seed
    come from its manifest: 'loba replay runs/x --index 12' is game 12 of that run. Options
    that contradict the manifest are refused.
    """
    from sim.isolated import position_events, replay_events
    from sim.trace import to_jsonl, to_text

    log = _Verbose()
    if position is not None:
        from sim.position import position_game

        bad = index is not None or preset or sets or run_dir
        spec = None if bad else position_game(position)
        if bad or game not in (None, spec.name):
            raise click.UsageError(
                "--position replays a position file (its rules are in it): leave out"
                " RUN_DIR, --index, --game, --rules and --set."
            )
        plays = None if seats is None else tuple(s.strip() for s in seats.split(","))
        from sim.policies import parse_seats

        seat_list = parse_seats(plays, game=spec) if plays else []
        events = _guarded(
            position_events,
            spec,
            seat_list,
            str(Path(position).resolve()),
            seed or 0,
            to_end,
            doing="while playing on from the position",
            specs=plays,
        )[0]
        click.echo(to_jsonl(events) if fmt == "jsonl" else to_text(events, only_round), nl=False)
        return
    if game is not None and game.strip().lstrip("-").isdigit():
        if index is not None:
            raise click.UsageError("Give the game index once: --index N.")
        game, index = None, int(game)
    if index is None:
        raise click.UsageError("Which game? Give its index in the run: --index N.")
    if run_dir is not None:
        rules, seats, seed = _run_settings(run_dir, game, preset, sets, seats, seed, index)
        game = rules.game
    elif seed is None:
        raise click.UsageError("Give the run's seed (--seed S), or the run directory.")
    else:
        rules, seats, _ = _run_setup(preset, sets, seats, game)
    from sim.setup import check_run
    from sim.trace import check_index

    spec, _, seat_list = check_run(rules, seats, 1, seed, game)  # bad input fails first
    check_index(index)
    log.run(rules, seat_list, seed, preset, run_dir)
    log(f"game index {index}; checked the input in {log.lap():.2f} s")
    _announce_compile(spec.name)
    events = _guarded(
        replay_events, spec, seat_list, rules.id, seed, index, doing=f"while replaying game {index}"
    )[0]
    log(f"replayed game {index} ({len(events):,} events) in {log.lap():.2f} s")
    log.kernel(spec.name)
    unit = spec.part  # (the key the game's events number its parts by)
    if only_round is not None and not any(e.get(unit) == only_round for e in events):
        raise ValueError(f"Game {index} has no {unit} {only_round}.")
    if fmt == "jsonl":
        if only_round is not None:  # the header and the end stay
            keep = (None, only_round)
            events = [e for e in events if e.get(unit) in keep or e["type"] in ("game", "end")]
        click.echo(to_jsonl(events), nl=False)
    else:
        click.echo(to_text(events, only_round), nl=False)


def _guarded(fn, spec, seat_list, *args, doing: str, specs="portable") -> list:
    """The items of ``fn(game, *args[:1], seat strings, *args[1:])``
    (:func:`sim.isolated.guarded`): in a child process when a seat is a plug-in, so that a
    crash, a hang or an exception in its code ends in one sentence. ``specs``: the seat strings
    handed on (default: ``seat_list``'s, portable to another process)."""
    from sim.isolated import guarded, seats_with_plugins
    from sim.setup import portable_seat

    plays = tuple(portable_seat(s) for s in seat_list) if specs == "portable" else specs
    first, rest = args[:1], args[1:]
    return list(
        guarded(
            fn, spec.name, *first, plays, *rest, seats=seats_with_plugins(seat_list), doing=doing
        )
    )


def _run_settings(run_dir, game, preset, sets, seats, seed, index):
    """(rules, seat strings, seed) of the run in ``run_dir``, from its manifest, after checking
    that the options given agree with it and that game ``index`` is one of its games."""
    from sim.policies import parse_seats
    from sim.results import RunDir
    from sim.rules import parse_assignments
    from sim.setup import resolve_rules

    if run_dir.strip().isdigit() and not Path(run_dir).exists():
        raise click.UsageError(f"No run directory '{run_dir}'; a game index is --index {run_dir}.")
    run = RunDir.read(run_dir, strict=False)
    m, spec = run.manifest, run.spec
    where = f"the run in '{run.path}'"
    if game is not None and get_game(game).name != spec.name:
        raise click.UsageError(f"--game {game} contradicts {where}, a {spec.title} run.")
    try:
        rules = resolve_rules(m["rules_id"], spec.name)
    except ValueError as e:
        raise RunDirError(f"'{run.path / 'manifest.json'}' is corrupt: {e}") from None
    house = None
    if preset is not None or sets:
        given, house = (
            _house_rules(preset, sets, spec.name)
            if preset is not None
            else (rules.replace(**parse_assignments(sets)), None)
        )
        if given.id != rules.id:
            raise click.UsageError(
                f"--rules/--set give {given.id}, but {where} was played under {rules.id}."
            )
    if house is not None:
        seats = house.pick_seats(seats)
    if seats is not None:
        mine = [s.label for s in parse_seats(seats, game=spec)]
        if mine != m["seats"]:
            raise click.UsageError(
                f"--seats {','.join(mine)} contradicts {where}, seated {','.join(m['seats'])}."
            )
    if seed is not None and seed != m["seed"]:
        raise click.UsageError(f"--seed {seed} contradicts {where}, played with seed {m['seed']}.")
    first, n = m["first_game"], m["games"]
    if not first <= index < first + n:
        raise click.UsageError(
            f"{where[0].upper()}{where[1:]} has games {first} to {first + n - 1}, not game {index}."
        )
    if m["rules_version"] != rules.version:
        click.echo(
            f"Warning: {where} was played under rules version {m['rules_version']} and this"
            f" loba plays version {rules.version}, so the replay may differ from its tables.",
            err=True,
        )
    specs = m.get("seat_specs")  # plug-in paths made absolute; the labels otherwise
    good = isinstance(specs, list) and len(specs) == len(m["seats"])
    good = good and all(isinstance(x, str) for x in specs)
    return rules, specs if good else m["seats"], m["seed"]


@cli.command("audit", epilog=EXAMPLES["audit"])
@click.argument("trace", type=click.Path(dir_okay=False))
def audit_cmd(trace):
    """Re-check a JSON Lines trace against the rules with the game's independent auditor
    (exit 0 "ok", 1 with one line per violation)."""
    from sim.rules import split_game

    p = Path(trace)
    if not p.exists():
        raise FileNotFoundError(f"Trace file '{trace}' does not exist.")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"Trace file '{trace}' cannot be read as text ({e}).") from None
    events = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
            raise ValueError(f"Line {i} of '{trace}' is not JSON (or nests too deep).") from None
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise ValueError(f"Line {i} of '{trace}' is not a trace event (an object with a type).")
        events.append(ev)
    if not events or events[0]["type"] != "game" or not isinstance(events[0].get("rules_id"), str):
        raise ValueError(f"'{trace}' is not a game trace: it must start with a game header line.")
    game, _ = split_game(events[0]["rules_id"], None)
    spec = get_game(game)
    players = events[0].get("players", spec.max_seats)  # a header that says how many
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not (1 <= players <= spec.max_seats)
    ):
        raise ValueError(
            f"'{trace}' is not a game trace: its header says {str(players)[:40]!r} players, not"
            f" a whole number from 1 to {spec.max_seats}."
        )
    try:
        problems = spec.audit(events)
    except Exception as e:  # events the auditor cannot even read (wrong types, missing keys)
        what = f"{type(e).__name__}: {e}".splitlines()[0][:120].rstrip(".")
        raise ValueError(
            f"'{trace}' is not a well-formed {spec.title} trace: the auditor cannot read its"
            f" events ({what})."
        ) from None
    for line in problems:
        click.echo(line)
    if problems:
        sys.exit(1)
    click.echo("ok")


@cli.command("verify")
@click.argument("run_dir")
@click.option(
    "--quick", is_flag=True, help="Check sizes and checksums only, without decoding the parts."
)
@text_json_option
def verify_cmd(run_dir, quick, fmt):
    """Check every part of RUN_DIR against its manifest (size, SHA-256, rows, games) and name
    anything missing, damaged, foreign or unlisted (exit 0 whole, 1 with one line a problem)."""
    from sim.results import RunDir

    run = RunDir.read(run_dir)
    problems = run.inspect(full=not quick)
    m = run.manifest
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "run": str(run.path),
                    "ok": not problems,
                    "complete": bool(m["complete"]),
                    "games": m["games"],
                    "games_done": run.games_done(),
                    "checked": "sizes and checksums" if quick else "sizes, checksums, rows, games",
                    "problems": [
                        {"kind": p.kind, "path": str(p.path), "part": p.part, "text": p.text}
                        for p in problems
                    ],
                },
                indent=2,
            )
        )
        sys.exit(1 if problems else 0)
    for p in problems:
        click.echo(p.text + ".")
    if problems:
        bad = sum(p.spoils or p.kind == "layout" for p in problems)
        cure = (
            f"'loba simulate --resume {run.path}' plays the damaged games again"
            if bad
            else f"'loba simulate --resume {run.path}' removes unlisted leftovers"
            if not m["complete"]
            else "move the unlisted files out of the run directory"
        )
        click.echo(
            f"{len(problems)} problem{'s' * (len(problems) != 1)} in '{run.path}'"
            f" ({bad} listed part{'s' * (bad != 1)} damaged or missing); {cure}.",
            err=True,
        )
        sys.exit(1)
    state = (
        "complete"
        if m["complete"]
        else f"incomplete, finish with 'loba simulate --resume {run.path}'"
    )
    how = "sizes and checksums" if quick else "sizes, checksums, rows and games"
    click.echo(
        f"ok: '{run.path}' has {run.games_done()} of {m['games']} games in {len(run.parts)}"
        f" listed parts per table, every one whole ({how} checked; {state})."
    )


def read_options(f):
    """--verify and --skip-damaged for commands that read run directories."""
    import functools

    @functools.wraps(f)
    def wrapper(*args, verify_parts=False, skip_damaged=False, **kwargs):
        from analysis.io import reading

        with reading(verify=verify_parts, skip_damaged=skip_damaged):
            return f(*args, **kwargs)

    wrapper = click.option(
        "--skip-damaged",
        is_flag=True,
        help="Read around damaged or missing parts (a warning says which games are left out)"
        " instead of refusing the run.",
    )(wrapper)
    return click.option(
        "--verify",
        "verify_parts",
        is_flag=True,
        help="Decode and check every part (rows, games), not only its size and checksum.",
    )(wrapper)


# ---------------------------------------------------------------- analysis (analysis/)
format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="Output: a readable table, CSV or JSON records.",
)
label_option = click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="NAME",
    help="Name each RUN_DIR (one --label per directory, in order); same name = pooled.",
)


class _WarnToStderr:
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


@cli.command("summarize", epilog=EXAMPLES["summarize"])
@read_options
@click.argument("run_dirs", nargs=-1, required=True)
@label_option
@format_option
def summarize_cmd(run_dirs, labels, fmt):
    """Key metrics of RUN_DIRS (made by 'loba simulate --out') with 95% intervals."""
    import analysis
    from analysis.text import metrics_text, render

    with _WarnToStderr():
        df = analysis.summarize(list(run_dirs), list(labels) or None)
    click.echo(metrics_text(df) if fmt == "table" else render(df, fmt))


@cli.command("calibrate", epilog=EXAMPLES["calibrate"])
@setup_options
@click.option("--runs", default=60, show_default=True, type=int, help="Runs on distinct seeds.")
@click.option("--games", default=4000, show_default=True, type=int, help="Games per run.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the first run.")
@click.option("--threads", default=None, type=int, help="Kernel threads (default: all cores).")
@format_option
@verbose_option
def calibrate_cmd(game, preset, sets, seats, runs, games, seed, threads, fmt):
    """Are the intervals honest? RUNS runs of GAMES games on distinct seeds: for every figure
    'loba summarize' gives an interval, the spread of its estimates across the runs over the
    standard error the intervals state (honest: about 1), their coverage, and how often
    'loba compare' calls two runs of the same rules different (A/A, after correction)."""

    from analysis.calibration import calibrate, calibration_text

    rules, seats, _ = _run_setup(preset, sets, seats, game)
    _announce_compile(rules.game)

    def progress(k, n):
        if _stderr_is_terminal():
            click.echo(f"\rrun {k}/{n}", err=True, nl=k == n)

    cal = calibrate(rules.game, runs, games, rules, seats, seed, threads, progress)
    _emit(fmt, cal.to_dict, cal.table, lambda: calibration_text(cal))


def _emit(fmt: str, as_dict, table, as_text) -> None:
    """A result in the --format asked for: JSON of ``as_dict()``, CSV of ``table``, or the
    readable ``as_text()``."""
    from analysis.text import render

    if fmt == "json":
        click.echo(json.dumps(as_dict(), indent=1))
    elif fmt == "csv":
        click.echo(render(table, "csv"))
    else:
        click.echo(as_text())


@cli.command("compare", epilog=EXAMPLES["compare"])
@read_options
@click.argument("run_dirs", nargs=-1, required=True)
@label_option
@click.option("--baseline", default=None, help="Variant to compare against (default: first).")
@field_option
@format_option
def compare_cmd(run_dirs, labels, baseline, field_names, fmt):
    """Rule sets side by side: every metric, its difference from the baseline and its interval.

    Runs of the same seeds and games (the same --seed and --games under different rules) are
    compared game by game: the paired interval, with the unpaired one beside it. With --field,
    the runs of each field (their seats) are compared on their own, and every difference is
    set against the first field's: holds, flips or indistinguishable from noise.
    """
    import analysis
    from analysis.text import compare_text, render
    from analysis.words import compare_sentences

    if field_names is not None:
        return _compare_fields(run_dirs, labels, baseline, field_names, fmt)
    with _WarnToStderr():
        df = analysis.compare_runs(list(run_dirs), list(labels) or None, baseline)
    if fmt != "table":
        click.echo(render(df, fmt))
        return
    for line in compare_sentences(df):
        click.echo(line)
    click.echo("")
    click.echo(compare_text(df))


def _compare_fields(run_dirs, labels, baseline, field_names, fmt):
    """compare --field: each field's runs compared on their own, then across skill."""
    import polars as pl

    from analysis.field import compare_field_runs, compare_fields_sentences, parse_fields
    from analysis.text import compare_text, render

    fields = parse_fields(field_names)
    if labels and len(labels) != len(run_dirs):
        raise ValueError(f"Give one label per run directory ({len(run_dirs)}), not {len(labels)}.")
    with _WarnToStderr():
        df = compare_field_runs(run_dirs, fields, baseline, list(labels) or None)
    if fmt != "table":
        click.echo(render(df, fmt))
        return
    for f in fields:
        part = df.filter(pl.col("field") == f)
        click.echo(f"{f} players:")
        click.echo(compare_text(part))
        click.echo("")
    click.echo(f"Across skill (each field against {fields[0]} players):")
    for line in compare_fields_sentences(df):
        click.echo(line)


@cli.command("sweep", epilog=EXAMPLES["sweep"])
@game_option
@rules_option
@set_option
@click.option(
    "--vary",
    "vary",
    multiple=True,
    required=True,
    metavar="KNOB=V1,V2,...",
    help="A knob and its values; give one or two.",
)
@seats_option
@click.option("--games", default=2000, show_default=True, type=int, help="Games per cell.")
@click.option("--seed", default=0, show_default=True, type=int, help="Run seed (every cell).")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory for the cells' runs (cells/KNOB=VALUE/..., Hive-style), summary.csv/json"
    " and sweep.png.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Allow writing into a non-empty --out (replacing a previous sweep's cells/, rebuy/).",
)
@threads_option
@click.option(
    "--rounds",
    "record_rounds",
    is_flag=True,
    help="Also record the detail table (Loba: rounds.parquet, Moon: hands.parquet).",
)
@click.option(
    "--no-rebuy-value",
    "no_rebuy",
    is_flag=True,
    help="Skip the paired always/never rebuy runs (halves the work; Moon has no rebuys).",
)
@field_option
@format_option
@verbose_option
@click.pass_context
def sweep_cmd(
    ctx,
    field_names,
    game,
    preset,
    sets,
    vary,
    seats,
    games,
    seed,
    out_dir,
    overwrite,
    threads,
    record_rounds,
    no_rebuy,
    fmt,
):
    """Play the grid of knob values (same seeds in every cell) and summarise each cell."""
    from analysis.bygame import analysis_of
    from analysis.sweep import FAMILY_NOTE, experiment_notes, run_sweep
    from analysis.text import render
    from sim.rules import parse_assignments

    log = _Verbose()
    fields = _fields_option(ctx, field_names, seats)
    if preset is not None and is_house_file(preset):  # its seats, unless --seats is given
        seats = _run_setup(preset, (), seats)[1]
    if fields is not None:
        return _field_sweep(fields, game, preset, sets, vary, seats, games, seed, out_dir,
                            overwrite, threads, record_rounds, no_rebuy, fmt)  # fmt: skip
    if log.on:
        base = _rules(preset, sets)
        log(f"base rules {base.id}; varying {'; '.join(vary)}")
        who = seats or get_game(base.game).default_seats
        log(f"seats {who}; seed {seed}; {games:,} games a cell")
        log(f"kernel cache: {_cache_text(base.game)}")

    def progress(i, n, name):
        click.echo(f"cell {i + 1}/{n}: {name}", err=True)

    res = run_sweep(
        preset,
        parse_assignments(sets),
        list(vary),
        seats,
        games,
        seed,
        out_dir,
        overwrite,
        not no_rebuy,
        threads,
        record_rounds,
        progress,
        game,
    )
    metrics = analysis_of(res.game)
    keep = res.knobs + [c for c in res.summary.columns if c in metrics.shown(not no_rebuy)]
    units = metrics.sweep_units
    click.echo(render(res.summary, fmt, units, columns=keep))
    if fmt == "table" and not no_rebuy:  # --no-rebuy-value: no experiment value to explain
        for line in experiment_notes(res.summary, res.knobs, res.game):
            click.echo(line)
    if fmt == "table":
        click.echo(FAMILY_NOTE)
    log(f"swept in {log.lap():.2f} s")
    click.echo(f"wrote {out_dir} (summary.csv, sweep.png, cells/)", err=True)


def _field_sweep(fields, game, preset, sets, vary, seats, games, seed, out_dir, overwrite,
                 threads, record_rounds, no_rebuy, fmt):  # fmt: skip
    """sweep --field: the grid once per field, then each printed figure across skill."""
    from analysis.bygame import analysis_of
    from analysis.sweep import experiment_notes, field_sweep_sentences, run_field_sweep
    from analysis.text import render
    from sim.rules import parse_assignments

    def progress(i, n, name):
        click.echo(f"cell {i + 1}/{n}: {name}", err=True)

    players = len(seats.split(",")) if seats else None  # a house file's seats: its players
    res = run_field_sweep(
        preset, parse_assignments(sets), list(vary), fields, players, games, seed, out_dir,
        overwrite, not no_rebuy, threads, record_rounds, progress, game,
    )  # fmt: skip
    metrics = analysis_of(res.game)
    if fmt != "table":
        click.echo(render(res.summary, fmt))
    else:
        shown = [c for c in res.summary.columns if c in metrics.shown(not no_rebuy)]
        table = res.summary.select("field", *res.knobs, *shown)
        click.echo(render(table, fmt, metrics.sweep_units))
        for f, sw in res.sweeps.items():
            for line in experiment_notes(sw.summary, sw.knobs, sw.game) if not no_rebuy else ():
                click.echo(f"{f}: {line}")
        click.echo("")
        click.echo(f"Across skill (each field against {fields[0]} players, same seeds):")
        for line in field_sweep_sentences(res):
            click.echo(line)
    click.echo(
        f"wrote {out_dir} (summary.csv; a sweep per field: "
        f"{', '.join(str(sw.out.name) for sw in res.sweeps.values())})",
        err=True,
    )


@cli.command("report", epilog=EXAMPLES["report"])
@read_options
@click.argument("run_dirs", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    "out_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="The HTML file to write.",
)
@click.option("--title", default=None, help="Title of the report.")
@label_option
@click.option(
    "--rebuy-games",
    default=0,
    show_default=True,
    type=int,
    help="Also run the state-level rebuy experiment on this many games.",
)
@click.option(
    "--rebuy-reps",
    default=8,
    show_default=True,
    type=int,
    help="Branch pairs per rebuy decision in that experiment.",
)
@field_option
def report_cmd(run_dirs, out_file, title, labels, rebuy_games, rebuy_reps, field_names):
    """Write one self-contained HTML report (findings, tables, figures) of RUN_DIRS."""
    from analysis.report import build_report
    from sim.results import atomic_output

    if not 0 <= rebuy_games <= 10**12:
        raise ValueError(
            f"--rebuy-games must be a whole number from 0 to 10^12, not {rebuy_games}."
        )
    if not 1 <= rebuy_reps <= 256:
        raise ValueError(f"--rebuy-reps must be a whole number from 1 to 256, not {rebuy_reps}.")
    # checked before anything is read; written whole or not at all (temporary file, renamed)
    with (
        _WarnToStderr(),
        atomic_output(out_file, "Report file") as tmp,
        ProgressBar("rebuy experiment, games") as bar,
    ):
        build_report(
            list(run_dirs), tmp, title, list(labels) or None, experiment_games=rebuy_games,
            experiment_reps=rebuy_reps, progress=bar, fields=field_names,
        )  # fmt: skip
    path = Path(out_file)
    click.echo(f"wrote {path}")


REBUY_MODE_OPTIONS = {  # rebuy-value options read in one mode only: name -> (flag, mode)
    "seat": ("--seat", "policy"),
    "threads": ("--threads", "policy"),
    "rule": ("--rebuy", "policy"),
    "against": ("--against", "policy"),
    "save_file": ("--save", "state"),
    "reps": ("--reps", "state"),
    "by": ("--by", "state"),
    "min_cases": ("--min-cases", "state"),
}


@cli.command("rebuy-value", epilog=EXAMPLES["rebuy-value"])
@click.option(
    "--mode",
    type=click.Choice(["policy", "state"]),
    default="policy",
    show_default=True,
    help="policy: same seeds with one seat on rebuy=always vs never (or --rebuy RULE vs "
    "--against); state: fork the game at every rebuy decision.",
)
@rules_option
@set_option
@seats_option
@click.option(
    "--seat",
    default=0,
    show_default=True,
    type=int,
    help="policy mode: the seat that switches its rebuy rule.",
)
@click.option(
    "--rebuy",
    "rule",
    default=None,
    metavar="RULE",
    help="policy mode: compare this rebuy rule (table:FILE, if_opponents:k=1, ...) with each "
    "--against rule on the same seeds, instead of always with never.",
)
@click.option(
    "--against",
    "against",
    default=None,
    metavar="RULES",
    help="policy mode, with --rebuy: the rules to compare it with, comma separated "
    "[default: always,never,if_opponents].",
)
@click.option(
    "--games",
    default=None,
    type=int,
    help="Games (default 20000 in policy mode, 1000 in state mode).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Run seed.")
@click.option(
    "--reps",
    default=8,
    show_default=True,
    type=int,
    help="state mode: branch pairs played per decision.",
)
@click.option(
    "--by",
    "by",
    default="players_left,gap_band,rebuys_used",
    show_default=True,
    help="state mode: columns to tabulate by.",
)
@click.option(
    "--min-cases",
    default=30,
    show_default=True,
    type=int,
    help="state mode: cells with fewer decisions are marked too few to trust.",
)
@click.option(
    "--plot",
    "plot_file",
    default=None,
    type=click.Path(dir_okay=False),
    help="Save a figure (PNG) here.",
)
@click.option(
    "--out",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="policy: write both runs here (with --rebuy: OUT/rule, OUT/against-1, ...); state: "
    "write decisions.parquet here.",
)
@click.option(
    "--save",
    "save_file",
    default=None,
    type=click.Path(dir_okay=False),
    help="state mode: write the table by players_left,gap_band,rebuys_used with the rules id "
    "(CSV; .parquet or .json by the name), for seats on rebuy=table:FILE.",
)
@click.option("--threads", default=None, type=int, help="Worker threads (policy mode).")
@field_option
@format_option
@verbose_option
@click.pass_context
def rebuy_value_cmd(
    ctx,
    field_names,
    mode,
    preset,
    sets,
    seats,
    seat,
    rule,
    against,
    games,
    seed,
    reps,
    by,
    min_cases,
    plot_file,
    out_dir,
    save_file,
    threads,
    fmt,
):
    """What a rebuy is worth in stakes, with intervals, in words a player understands.

    With --rebuy RULE (policy mode) it compares that rebuy rule with each --against rule
    instead: the same seeds, seat --seat switching, paired game by game. State mode with
    --save FILE writes the table a seat on rebuy=table:FILE reads (it rebuys where the
    value is positive)."""
    from analysis.loba import GAME
    from analysis.loba import rebuy as rb
    from analysis.loba.rebuy_value import rebuy_value
    from analysis.loba.words import REBUY_MODES
    from analysis.text import render
    from sim.results import check_out_dir

    fields = _fields_option(ctx, field_names, seats)
    rules, seats, _ = _run_setup(preset, sets, seats, GAME)
    seats = seats or get_game(GAME).default_seats
    if games is not None and games < 1:
        raise ValueError(f"--games must be a whole number of at least 1, not {games}.")
    from sim.chunks import check_whole

    check_whole("--reps", reps, 1, rb.MAX_REPS)  # (in either mode: never silently ignored)
    check_whole("--min-cases", min_cases, 1, 10**9)
    if fields is not None and len(fields) > 1:
        for given, flag in (
            (plot_file, "--plot"),
            (save_file if mode == "state" else None, "--save"),
        ):
            if given is not None:
                raise ValueError(f"{flag} writes one field's result; give one --field with it.")
    _check_plot_file(plot_file)  # every destination is checked before any game is played
    if out_dir is not None:
        check_out_dir(out_dir)
    if save_file is not None and mode == "state":
        from sim.results import check_out_file

        check_out_file(save_file, "Rebuy table")
    if against is not None and rule is None and mode == "policy":
        raise ValueError("--against needs --rebuy RULE: the rule to compare with those.")
    from sim.setup import check_run

    if fields is not None:
        from analysis.field import field_seats

        seats = {f: field_seats(f, len(seats.split(","))) for f in fields}
        for s_ in seats.values():
            check_run(rules, s_, 1, seed)
        seat_list = check_run(rules, seats[fields[0]], 1, seed)[2]
    else:
        seat_list = check_run(rules, seats, 1, seed)[2]  # bad seats/seed fail before the notice
    for name, (flag, only) in REBUY_MODE_OPTIONS.items():
        if only != mode and _given(ctx, name):
            _no_effect(flag, f"in {mode} mode", f"it is read in {only} mode only.")
    log = _Verbose()
    log.run(rules, seat_list, seed, preset)
    _announce_compile(GAME)

    res = rebuy_value(
        rules, seats, mode, seat=seat, rule=rule, against=against, games=games, seed=seed,
        reps=reps, by=by, min_cases=min_cases, plot=plot_file is not None, out_dir=out_dir,
        save_file=save_file, threads=threads, bar=ProgressBar,
    )  # fmt: skip
    for f in res.wrote:
        click.echo(f"wrote {f}", err=True)
    log(f"{mode} mode on {res.games:,} games in {log.lap():.2f} s")
    if fmt == "table":
        for line in res.lines:
            click.echo(line)
        if not res.empty:
            click.echo("")
            click.echo(render(res.table, fmt))
            click.echo("")
            click.echo(REBUY_MODES)
    else:  # csv/json stay machine-readable; the reason goes to stderr
        for line in res.empty or ():
            click.echo(line, err=True)
        click.echo(render(res.table, fmt))
    if res.figure is not None:
        _save_plot(res.figure, plot_file)


def _check_plot_file(plot_file) -> None:
    """--plot FILE: writable, and of a kind matplotlib writes (one sentence if not)."""
    if plot_file is None:
        return
    from matplotlib.figure import Figure

    from sim.results import check_out_file

    check_out_file(plot_file, "Plot file")
    kinds = Figure().canvas.get_supported_filetypes()
    kind = Path(plot_file).suffix.lstrip(".").lower()
    if kind and kind not in kinds:
        raise ValueError(
            f"--plot '{plot_file}': matplotlib cannot write .{kind} files; use .png or"
            f" one of {', '.join(sorted(kinds))}."
        )


def _save_plot(fig, plot_file) -> None:
    """Write a figure whole or not at all (temporary file, renamed) and say so on stderr."""
    from sim.results import atomic_output

    with atomic_output(plot_file, "Plot file") as tmp:
        fig.savefig(tmp, dpi=110, format=Path(plot_file).suffix.lstrip(".").lower() or "png")
    click.echo(f"wrote {plot_file}", err=True)


PROGRESS_AFTER = 2.0  # seconds: a tournament this long says on stderr which seating it plays


@cli.command("tournament", epilog=EXAMPLES["tournament"])
@game_option
@rules_option
@set_option
@click.option(
    "--seats-pool",
    "pool",
    default=None,
    metavar="SEAT,SEAT,...",
    help="The policies to rate, as seat strings (greedy, hold:patience=2, my.py:NAME,"
    " greedy+rebuy=never; default: the seats of a house-rules --rules file, else every"
    " built-in policy of the game).",
)
@click.option(
    "--players",
    default=None,
    type=int,
    help="Seats at each table (default: as many as a house-rules file seats, else the game's"
    " usual table, 4 for Loba, 3 for Moon).",
)
@click.option(
    "--games",
    default=2000,
    show_default=True,
    type=int,
    help="Games per seating; every seating plays the same deals (games 0..N-1 of --seed).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Run seed (every seating).")
@click.option(
    "--repeats",
    is_flag=True,
    help="Also seatings where a policy sits more than once (every group with at least two"
    " different policies).",
)
@click.option(
    "--all-orders",
    is_flag=True,
    help="Every order of each group of policies, not only its rotations (k! seatings a group"
    " instead of k), so each policy also sits after each other one equally often.",
)
@click.option(
    "--resamples",
    default=200,
    show_default=True,
    type=int,
    help="Bootstrap resamples of the deals for the ratings' 95% intervals (20 to 100,000).",
)
@threads_option
@out_options(
    "Write a run directory per seating (OUT/seatings/NNN-SEATS/, read by 'loba summarize')"
    " and OUT/tournament.json (settings, ratings, win shares).",
    "a previous tournament's seatings/",
)
@click.option(
    "--plot",
    "plot_file",
    default=None,
    type=click.Path(dir_okay=False),
    help="Save a figure (PNG) here: the ratings with their intervals and the win-share matrix.",
)
@format_option
@verbose_option
def tournament_cmd(
    game,
    preset,
    sets,
    pool,
    players,
    games,
    seed,
    repeats,
    all_orders,
    resamples,
    threads,
    out_dir,
    overwrite,
    plot_file,
    fmt,
):
    """Rate policies against each other: every seating of --players seats from the pool, on
    the same deals, rated by their finishing order (Plackett-Luce, bootstrap intervals), with
    each pair's win shares.

    Seatings: every combination of --players different pool policies, each in its rotations
    (so each policy sits in every seat equally often); with fewer policies than seats, every
    group in which each pool policy sits. --games N is per seating. A rating difference d
    means: finishes above the other with probability 1 / (1 + e^-d).
    """
    from analysis import tournament as T
    from analysis.text import render, tournament_text
    from sim.chunks import set_threads

    log = _Verbose()
    rules, house = _house_rules(preset, sets, game)
    if pool is None and house is not None and house.seats is not None:
        pool = ",".join(dict.fromkeys(house.seats))  # rate the house file's own players
        players = len(house.seats) if players is None else players
    plan = T.plan(rules, pool, players, games, seed, resamples, repeats, all_orders)
    set_threads(threads)
    if out_dir is not None:
        from sim.results import check_out_dir

        check_out_dir(out_dir, overwrite)
    _check_plot_file(plot_file)
    log.run(rules, list(plan.pool), seed, preset)
    log(f"{plan.describe()}; {games:,} games each, {plan.total_games:,} in all")
    _announce_compile(rules.game)
    start = time.perf_counter()

    def progress(i, n, seating):
        if time.perf_counter() - start > PROGRESS_AFTER or log.on:
            click.echo(f"seating {i + 1}/{n}: {','.join(seating)}", err=True)

    res = T.run_tournament(plan, threads, out_dir, overwrite, progress)
    log(f"played and rated in {log.lap():.2f} s")
    if fmt == "json":
        click.echo(json.dumps(res.to_dict(), indent=1, default=str))
    elif fmt == "csv":
        click.echo(render(res.policies, "csv"))
    else:
        click.echo(tournament_text(res))
    if plot_file is not None:
        from analysis.plots import tournament_plot

        _save_plot(tournament_plot(res.policies, res.pairs, plan.pool[0]), plot_file)
    if out_dir is not None:
        click.echo(f"wrote {out_dir} ({T.FILE}, {T.SEATINGS}/)", err=True)


@cli.command("tune", epilog=EXAMPLES["tune"])
@click.argument("policy")
@click.option(
    "--against",
    "against",
    default=None,
    metavar="SEAT[,SEAT...]",
    help="The field: one seat string for every other seat, or one per other seat (default:"
    " the game's default policy, greedy for Loba).",
)
@click.option(
    "--param",
    "params",
    metavar="NAME=LO..HI",
    multiple=True,
    required=True,
    help="A parameter to tune and its range, inside the policy's own range; repeat for more."
    " Whole numbers when both bounds are written as whole numbers and the default is one"
    " (patience=0..12); any number, to 4 significant digits, when a bound has a point"
    " (keep=0.0..12).",
)
@click.option(
    "--games",
    default=4000,
    show_default=True,
    type=int,
    help="Games a full trial plays, over all seatings (rounded up to whole deals: a deal is"
    " played once in each seating).",
)
@click.option("--trials", default=20, show_default=True, type=int, help="Optuna trials.")
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=int,
    help="Seed of the tuning games (every trial plays the same) and of the sampler.",
)
@game_option
@rules_option
@set_option
@click.option(
    "--players",
    default=None,
    type=int,
    help="Seats at the table (default: --against's seats plus one; with one --against seat,"
    " the game's usual table, 4 for Loba).",
)
@click.option(
    "--pruner",
    type=click.Choice(["race", "halving", "none"]),
    default="race",
    show_default=True,
    help="race: stop a trial clearly worse than the best one on the same deals (paired 95%"
    " interval below 0); halving: Optuna's successive halving (only the better half goes on);"
    " none: every trial plays all its games.",
)
@click.option(
    "--eval-games",
    default=None,
    type=int,
    help="Fresh games (a seed tuning did not use) for the best and the default seat"
    " (default: --games; 0: no fresh evaluation).",
)
@threads_option
@out_options(
    "Write OUT/study.parquet and OUT/study.csv (one row per trial) and OUT/best.json"
    " (settings, best seat, evaluation)."
)
@format_option
@verbose_option
def tune_cmd(
    policy,
    against,
    params,
    games,
    trials,
    seed,
    game,
    preset,
    sets,
    players,
    pruner,
    eval_games,
    threads,
    out_dir,
    overwrite,
    fmt,
):
    """Tune POLICY's parameters against a field with Optuna, then measure the best seat on
    fresh games against the default one.

    POLICY is a seat string (hold, careful:safe=1, wary+rebuy=never); its given values stay
    fixed. Every trial plays the same deals (games 0.. of --seed), each in every seating, the
    tuned seat rotating through all seats; its score is its win share. Trials play in rungs of
    1/8, 1/4, 1/2 and all of --games and may be pruned at each. The best seat and the default
    seat then play the same fresh games: each one's win share with its 95% interval, and their
    paired difference.
    """
    from analysis import tune as T
    from analysis.text import tune_text
    from sim.chunks import set_threads

    log = _Verbose()
    rules = _rules(preset, sets, game)
    plan = T.plan(
        policy,
        against,
        list(params),
        games,
        trials,
        seed,
        rules,
        players,
        eval_games,
        pruner=pruner,
        threads=threads,
    )
    set_threads(threads)
    if out_dir is not None:
        from sim.results import check_out_dir

        check_out_dir(out_dir, overwrite)
    log.run(rules, [plan.default_seat, *plan.field], seed, preset)
    log(
        f"tuning {', '.join(r.text() for r in plan.ranges)}; rungs of"
        f" {', '.join(f'{d * plan.players:,}' for d in plan.rung_deals)} games;"
        f" evaluation seed {plan.eval_seed}"
    )
    _announce_compile(rules.game)

    def on_trial(row):
        log(
            f"trial {row['trial']}: {row['seat']} {row['state']} after {row['games']:,} games,"
            f" win share {row['win_share']:.4f}"
        )

    with ProgressBar("trials") as bar:
        res = T.run_tune(plan, bar, on_trial, evaluate=False)
    if plan.eval_deals:
        with ProgressBar("fresh games") as bar:
            res.evaluation = T.evaluate_seat(plan, res.best_seat, bar)
    log(f"tuned and evaluated in {log.lap():.2f} s")
    _emit(fmt, res.to_dict, res.study, lambda: tune_text(res))
    if out_dir is not None:
        res.write(out_dir, overwrite)
        click.echo(f"wrote {out_dir} ({', '.join(T.STUDY_FILES)})", err=True)


def _refuse_empty(group: click.Group) -> None:
    """An empty value is never a default: every text option and argument of every command
    refuses ``''`` (or only spaces) in one sentence, instead of reading it as "not given"."""

    def wrap(param):
        inner = param.callback

        def check(ctx, p, value):
            values = value if isinstance(value, (tuple, list)) else (value,)
            if any(isinstance(v, str) and not v.strip() for v in values):
                raise click.BadParameter("empty; give it a value, or leave it out.")
            return inner(ctx, p, value) if inner is not None else value

        param.callback = check

    for cmd in group.commands.values():
        for param in cmd.params:
            if isinstance(param.type, click.types.StringParamType):
                wrap(param)


_refuse_empty(cli)


def main(argv=None) -> int:
    """Entry point: user errors -> one sentence and exit code 2."""
    try:
        rv = cli.main(args=argv, prog_name="loba", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        click.echo(f"Error: {e.format_message()}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return 130
    except USER_ERRORS as e:
        click.echo(f"Error: {e}", err=True)
        return 2
    except RunFailure as e:  # a seat's code failed, or a run stopped: not the input's fault
        click.echo(f"Error: {e}", err=True)
        return 1


def run() -> None:
    """Console-script entry (``loba``). After Ctrl-C the process ends at once (os._exit, once
    the output is flushed): a kernel call stuck in a plug-in's loop cannot be stopped, and a
    normal exit would wait for its thread forever."""
    code = main()
    if code == 130:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        os._exit(130)
    sys.exit(code)


if __name__ == "__main__":
    run()

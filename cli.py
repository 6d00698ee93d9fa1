"""The ``loba`` command line: each command parses its options, calls one function of sim/ or
analysis/ and prints. The options the commands share, the terminal's progress and -v lines, and
the commands' printing are in :mod:`analysis.cli`; a game's own commands (Loba's
``check-meld``, Moon's ``check-trick``) are in its analysis package, named by its spec
(``GameSpec.commands``) and added here.

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

from analysis.cli import console as C
from analysis.cli import options as O
from analysis.cli import runs as R
from analysis.cli.options import examples
from sim.faults import RunFailure
from sim.files import RunDirError
from sim.game import load_ref
from sim.games import GameError, all_games, get_game
from sim.policies import SeatError
from sim.rules import RuleError
from sim.setup import settings

USER_ERRORS = (RuleError, SeatError, GameError, RunDirError, ValueError, FileNotFoundError)

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
  LOBA_GAMES       outside games, NAME=MODULE[,...] (a package exporting a GameSpec as
                   SPEC), e.g. toy=examples.toy.spec; see docs/development.md
  NUMBA_NUM_THREADS, NUMBA_DISABLE_JIT, NUMBA_BOUNDSCHECK   Numba's own switches

\b
Shell completion (bash; zsh and fish alike, see docs/cli.md):
  eval "$(_LOBA_COMPLETE=bash_source loba)"
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=ENVIRONMENT)
@click.version_option(package_name="loba-sim", prog_name="loba")
@O.verbose_option
def cli():
    """Simulate and analyse the rummy game Loba de Menos and the domino game Three-Player
    Moon. The rules the tool implements: docs/rules.md."""


@cli.command("rules", epilog=examples(
    "loba rules                                  # every knob of the default rules",
    "loba rules classic --set elimination_score=151",
    "loba rules 'pagat(max_rebuys=0)'            # a canonical id",
    "loba rules --set elimination_score=151 --format toml > house.toml",
    "loba rules --rules house.toml               # what a house-rules file holds",
))  # fmt: skip
@click.argument("preset", required=False)
@click.option("--rules", "rules_opt", metavar="RULES", default=None,
              help="The same as PRESET: a preset, a canonical rules id or a house-rules .toml"
              " file.")  # fmt: skip
@O.set_option
@O.game_option
@O.format_choice(("table", "json", "toml"), "A readable table; JSON: the rules id and one record"
                 " per knob; TOML: a house-rules file (every knob, for --rules FILE.toml).")
@click.option("--seats", default=None, help="With --format toml: the seats the file names"
              " (default: those of a house-rules --rules file, else none).")  # fmt: skip
@click.option("--label", default=None, help="With --format toml: the label the file gives its"
              " runs (default: as --rules FILE).")  # fmt: skip
def rules_cmd(preset, rules_opt, sets, game, fmt, seats, label):
    """Print every rule knob: value, default, rule id, allowed values and meaning
    (* marks a value that differs from the default), or write them as a house-rules file."""
    from analysis.cli.listing import rules_output

    if preset is not None and rules_opt is not None:
        raise click.UsageError("Give the rules once: PRESET or --rules.")
    if fmt != "toml" and (seats is not None or label is not None):
        raise click.UsageError("--seats and --label go into a house-rules file: add --format toml.")
    s = settings(preset if rules_opt is None else rules_opt, sets, None, game)
    click.echo(rules_output(s.rules, s.house, fmt, seats, label), nl=False)


@cli.command("policies", epilog=examples("loba policies", "loba policies --game loba"))
@O.game_option
@O.text_json_option
def policies_cmd(game, fmt):
    """List every built-in policy and add-on rule (Loba's rebuy rules) with its parameters,
    defaults and what it does."""
    from analysis.cli.listing import policies_output

    click.echo(policies_output(game, fmt), nl=False)


@cli.command("tables", epilog=examples("loba tables --game loba"))
@O.game_option
@O.text_json_option
def tables_cmd(game, fmt):
    """List the tables a run writes, with every column's type and meaning."""
    from analysis.cli.listing import tables_output

    click.echo(tables_output(game, fmt), nl=False)


@cli.command("moves", epilog=examples("loba moves examples/one_turn.toml --json"))
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--after-draw", "after_draw", metavar="CARD", default=None,
              help="From a position about to draw: the plays after drawing CARD from the"
              " stock.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def moves_cmd(position, after_draw, as_json):
    """Every legal option of the seat to move in a POSITION file (TOML, see docs/positions.md).
    Loba: draws (and whether the discard may be taken, and why), plays, or discards. Moon
    (game = "moon"): calls, the widow's discard and trump, or the tiles that may be played
    (and whether the seat must follow)."""
    from sim.position import position_game

    positions = position_game(position).positions
    m = positions.moves(positions.load(position), after_draw)
    click.echo(json.dumps(m, indent=2) if as_json else positions.moves_text(m), nl=as_json)


@cli.command("simulate", epilog=examples(
    "loba simulate --games 20000",
    "loba simulate --rules rami --seats greedy,hold:patience=2,random+rebuy=never --seed 7",
    "loba simulate --set elimination_score=151 --games 100000 --rounds --out runs/e151",
    "loba simulate --resume runs/e151            # finish an interrupted run",
    "loba simulate --games 1000000 --out runs/m --backend dask --workers 4",
))  # fmt: skip
@O.setup_options
@O.games_option()
@O.seed_option()
@click.option("--threads", default=None, type=int, help="Kernel threads (default: all cores;"
              " with dask: per kernel call on a worker).")  # fmt: skip
@click.option("--rounds", "record_rounds", is_flag=True,
              help=f"Also record the detail table ({O.detail_tables()}; with --out).")
@O.out_options("Write a run directory (manifest.json + Parquet tables, one part per chunk).")
@click.option("--resume", "resume_dir", default=None, metavar="DIR",
              type=click.Path(file_okay=False), help="Finish an interrupted run directory (its"
              " manifest gives rules, seats, seed, games).")  # fmt: skip
@click.option("--chunk-size", default=None, type=int, help="Games per chunk, i.e. per Parquet"
              " part (default 8192; 512 with --rounds); with --resume, the missing games are"
              " played in parts of at most this size.")  # fmt: skip
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where chunks run: this process, or a Dask cluster.")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler, e.g."
              " tcp://10.0.0.5:8786 (default: a local cluster for the run).")  # fmt: skip
@click.option("--workers", default=None, type=int, help="Worker processes of the local Dask"
              " cluster (default: one per core).")  # fmt: skip
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@O.verbose_option
@click.pass_context
def simulate_cmd(ctx, game, preset, sets, seats, games, seed, threads, record_rounds, out_dir,
                 overwrite, resume_dir, chunk_size, backend, scheduler, workers, quiet,
                 as_json):  # fmt: skip
    """Play GAMES complete games and summarise them.

    Chunks of games stream to --out as they finish (bounded memory at any size); an
    interrupted run is finished with --resume DIR.

    Ctrl-C stops the run at once (exit 130), even in a plug-in stuck in a loop, keeping every
    finished chunk in --out. With a plug-in seat the chunks are played in a child process: a
    plug-in that crashes it (e.g. a segfault) stops the run with one sentence naming the seat
    (exit 1), and the finished chunks resume.
    """
    from sim.chunks import ChunkError
    from sim.runner import check_backend, resume_run, stream_run

    log = C.Verbose()
    if resume_dir is not None:
        for name, flag in R.RESUME_FIXED.items():
            if C.given(ctx, name):
                raise click.UsageError(
                    f"--resume takes the run's settings from its manifest; leave out {flag}."
                )
        run_game, label = R.resume_plan(resume_dir, chunk_size, log)
    else:
        from sim.files import check_out_dir
        from sim.setup import check_run

        rules, seats, label = settings(preset, sets, seats, game)[:3]
        spec, rules, seat_list = check_run(rules, seats, games, seed)
        check_backend(backend, scheduler, workers, chunk_size, threads)
        if out_dir is not None:
            check_out_dir(out_dir, overwrite)
        else:
            if record_rounds:
                C.no_effect("--rounds", "without --out", "the detail table is recorded only in"
                            " a run directory.")  # fmt: skip
            if overwrite:
                C.no_effect("--overwrite", "without --out", "nothing is written.")
        run_game = spec.name
        R.log_new_run(log, rules, seat_list, seed, preset, games, chunk_size, record_rounds,
                      out_dir, label)  # fmt: skip
    R.log_backend(log, backend, scheduler, workers, threads)
    if scheduler is None:  # a remote cluster compiles on its workers, with their own cache
        C.announce_compile(run_game, quiet)
    bar = C.ProgressBar("games")  # opened at the first finished chunk, after every check
    bar.on = bar.on and not quiet
    where = dict(backend=backend, scheduler=scheduler, workers=workers, threads=threads)
    try:
        with bar:
            if resume_dir is not None:
                rep = resume_run(resume_dir, chunk_size=chunk_size, progress=bar, **where)
            else:
                rep = stream_run(rules, seat_list, games=games, seed=seed, out_dir=out_dir,
                                 overwrite=overwrite, record_rounds=record_rounds,
                                 chunk_size=chunk_size, progress=bar, label=label, **where)
    except KeyboardInterrupt:  # the bar is closed first: the sentence stands on its own line
        click.echo(R.interrupted(resume_dir or out_dir), err=True)
        raise click.exceptions.Exit(130) from None
    except ChunkError as e:
        click.echo(f"Error: {e}", err=True)
        raise click.exceptions.Exit(1) from None
    for text in rep.replayed:  # resume found a listed part damaged: it was played again
        click.echo(f"Warning: {text}; its games were played again.", err=True)
    if log.on:
        ph = rep.phases
        log.kernel(run_game)
        log(f"kernel ready in {ph.get('load', 0):.2f} s; played"
            f"{' and wrote' if resume_dir or out_dir else ''} {rep.games:,} games in"
            f" {ph.get('play', 0):.2f} s; summarised in {ph.get('finish', 0):.2f} s"
            f" ({log.lap():.2f} s in all)")  # fmt: skip
    if not quiet:
        text = [R.summary_json(rep, label)] if as_json else R.summary_lines(
            rep, label, resume_dir, out_dir)  # fmt: skip
        C.echo_lines(text)


@cli.command("bench", epilog=examples(
    "loba bench", "loba bench --games 50000 --seats hold,hold,hold,hold"
))  # fmt: skip
@O.games_option(20000, None)
@O.setup_options
@O.format_choice(("text", "json"), "text: the report lines; json: game, rules id, seats, games"
                 " and those lines.")  # fmt: skip
@O.verbose_option
def bench_cmd(games, game, preset, sets, seats, fmt):
    """Throughput of the kernel (1 thread and all threads) against a floor kernel, and of the
    same games end to end (a run directory written, as simulate --out does)."""
    from analysis.cli.listing import bench_table
    from sim.game import BenchFigure
    from sim.isolated import bench_lines
    from sim.runner import end_to_end
    from sim.setup import check_run

    if isinstance(games, bool) or games < 1:
        raise ValueError(f"--games must be a whole number of at least 1, not {games}.")
    rules, seats, _ = settings(preset, sets, seats, game)[:3]
    spec, rules, seat_list = check_run(rules, seats, games, 0)
    log = C.Verbose()
    log.run(rules, seat_list, 0, preset)
    C.announce_compile(spec.name)
    items = C.guarded(bench_lines, spec, seat_list, rules.id, games, 12345,
                      doing="while benchmarking")  # fmt: skip
    figures = [x for x in items if isinstance(x, BenchFigure)]
    lines = [x for x in items if not isinstance(x, BenchFigure)]
    e2e = {f.threads: end_to_end(rules, seat_list, games, 12345, f.threads) for f in figures}
    log(f"benchmarked {games:,} games in {log.lap():.2f} s")
    log.kernel(spec.name)
    if fmt == "json":
        seat_labels = [s.label for s in seat_list]
        rows = [{**f._asdict(), "end_to_end_games_per_s": e2e[f.threads]} for f in figures]
        lines = [json.dumps({"game": spec.name, "rules_id": rules.id, "seats": seat_labels,
                             "games": games, "report": lines, "figures": rows},
                            indent=2)]  # fmt: skip
    else:
        lines += bench_table(figures, e2e)
    C.echo_lines(lines)


@cli.command("replay", epilog=examples(
    "loba replay --seats greedy,hold,random --seed 7 --index 1234",
    "loba replay --seed 7 --index 1234 --format jsonl > g.jsonl",
    "loba replay runs/e151 --index 12            # game 12 of a run directory",
    "loba replay --position examples/moon_play.toml --seed 3   # play on from a position",
))  # fmt: skip
@click.argument("run_dir", required=False, metavar="[RUN_DIR]")
@click.option("--game", "game", default=None, metavar="GAME", help="The game (one of"
              f" {', '.join(g.name for g in all_games())}); a number here is read as --index"
              " (the older spelling).")  # fmt: skip
@O.rules_option
@O.set_option
@O.seats_option
@O.seed_option("The run's seed (with --position: drives the policies' random choices and deals"
               " what the file leaves unnamed; default 0).", None)  # fmt: skip
@click.option("--index", "index", type=int, default=None,
              help="Game index within the run (0 = first).")  # fmt: skip
@click.option("--position", "position", type=click.Path(dir_okay=False), default=None,
              help="Play on from a position file (docs/positions.md) instead.")  # fmt: skip
@click.option("--to-game-end", "to_end", is_flag=True, help="With --position: play to the end"
              f" of the game, not of the {O.parts()} it is in.")  # fmt: skip
@O.format_choice(("text", "jsonl"), None)
@click.option("--round", "only_round", type=int, default=None,
              help=f"Show only {O.parts()} N (a game's parts, as its trace numbers them).")
@O.verbose_option
def replay_cmd(run_dir, game, preset, sets, seats, seed, index, position, to_end, fmt, only_round):
    """Play game INDEX of a run again and show every move (text) or every event (jsonl).

    With RUN_DIR (a run directory of 'loba simulate --out') the game, rules, seats and seed
    come from its manifest: 'loba replay runs/x --index 12' is game 12 of that run. Options
    that contradict the manifest are refused.
    """
    from sim.isolated import replay_events
    from sim.setup import check_run
    from sim.trace import check_index, to_jsonl, to_text

    log = C.Verbose()
    if position is not None:
        refused = bool(index is not None or preset or sets or run_dir)
        events = R.position_replay(position, seats, seed, to_end, refused, game)
    else:
        if game is not None and game.strip().lstrip("-").isdigit():
            if index is not None:
                raise click.UsageError("Give the game index once: --index N.")
            game, index = None, int(game)
        if index is None:
            raise click.UsageError("Which game? Give its index in the run: --index N.")
        if run_dir is not None:
            rules, seats, seed = R.run_settings(run_dir, game, preset, sets, seats, seed, index)
        elif seed is None:
            raise click.UsageError("Give the run's seed (--seed S), or the run directory.")
        else:
            rules, seats, _ = settings(preset, sets, seats, game)[:3]
        spec, _, seat_list = check_run(rules, seats, 1, seed, rules.game)  # bad input first
        check_index(index)
        log.run(rules, seat_list, seed, preset, run_dir)
        log(f"game index {index}; checked the input in {log.lap():.2f} s")
        C.announce_compile(spec.name)
        events = C.guarded(replay_events, spec, seat_list, rules.id, seed, index,
                           doing=f"while replaying game {index}")[0]  # fmt: skip
        log(f"replayed game {index} ({len(events):,} events) in {log.lap():.2f} s")
        log.kernel(spec.name)
        if fmt == "jsonl":
            events = R.only_part(events, spec, index, only_round)
        elif only_round is not None:
            R.only_part(events, spec, index, only_round)  # (refuses a part the game lacks)
    click.echo(to_jsonl(events) if fmt == "jsonl" else to_text(events, only_round), nl=False)


@cli.command("audit", epilog=examples("loba audit g.jsonl"))
@click.argument("trace", type=click.Path(dir_okay=False))
def audit_cmd(trace):
    """Re-check a JSON Lines trace against the rules with the game's independent auditor
    (exit 0 "ok", 1 with one line per violation)."""
    from sim.trace import audit_trace

    problems = audit_trace(trace)
    C.echo_lines(problems or ["ok"])
    if problems:
        sys.exit(1)


@cli.command("verify", epilog=examples("loba verify runs/e151 --quick"))
@click.argument("run_dir")
@click.option("--quick", is_flag=True,
              help="Check sizes and checksums only, without decoding the parts.")  # fmt: skip
@O.text_json_option
def verify_cmd(run_dir, quick, fmt):
    """Check every part of RUN_DIR against its manifest (size, SHA-256, rows, games) and name
    anything missing, damaged, foreign or unlisted (exit 0 whole, 1 with one line a problem)."""
    from sim.rundir import RunDir

    run = RunDir.read(run_dir)
    problems = run.inspect(full=not quick)
    out, err = R.verify_output(run, problems, quick, fmt)
    C.echo_lines(out)
    C.echo_lines(err, err=True)
    if problems:
        sys.exit(1)


@cli.command("summarize", epilog=examples(
    "loba summarize runs/e101",
    "loba summarize runs/e101 runs/e151 --format csv > metrics.csv",
    "loba summarize runs/e101 --quantiles rounds_per_game --share 'rounds_per_game in 8..12'",
))  # fmt: skip
@O.read_options
@click.argument("run_dirs", nargs=-1, required=True)
@O.label_option
@O.distribution_options
@O.format_option
def summarize_cmd(run_dirs, labels, quantiles, shares, fmt):
    """Key metrics of RUN_DIRS (made by 'loba simulate --out') with 95% intervals."""
    import analysis
    from analysis.text import metrics_text, render

    with C.WarnToStderr():
        df = analysis.summarize(list(run_dirs), list(labels) or None, quantiles, shares)
    click.echo(metrics_text(df) if fmt == "table" else render(df, fmt))


@cli.command("calibrate", epilog=examples(
    "loba calibrate --runs 60 --games 4000            # Loba, 4 x greedy",
    "loba calibrate --game moon --seats count,count,count --runs 20 --games 2000",
))  # fmt: skip
@O.setup_options
@click.option("--runs", default=60, show_default=True, type=int, help="Runs on distinct seeds.")
@O.games_option(4000, "Games per run.")
@O.seed_option("Seed of the first run.")
@O.threads_option
@O.format_option
@O.verbose_option
def calibrate_cmd(game, preset, sets, seats, runs, games, seed, threads, fmt):
    """Are the intervals honest? RUNS runs of GAMES games on distinct seeds: for every figure
    'loba summarize' gives an interval, the spread of its estimates across the runs over the
    standard error the intervals state (honest: about 1), their coverage, and how often
    'loba compare' calls two runs of the same rules different (A/A, after correction)."""
    from analysis.calibration import calibrate, calibration_text

    rules, seats, _ = settings(preset, sets, seats, game)[:3]
    C.announce_compile(rules.game)

    def progress(k, n):
        if C.stderr_is_terminal():
            click.echo(f"\rrun {k}/{n}", err=True, nl=k == n)

    cal = calibrate(rules.game, runs, games, rules, seats, seed, threads, progress)
    C.emit(fmt, cal.to_dict, cal.table, lambda: calibration_text(cal))


@cli.command("compare", epilog=examples(
    "loba compare runs/e101 runs/e151            # same --seed: paired, game by game",
    "loba compare runs/a runs/b --label mine --label theirs --format json",
    "loba compare runs/moon runs/moon-nodoubles        # Moon runs: Moon's figures",
    "loba compare sweeps/skill/field=*/cells/* --field greedy,mixed,smart   # across skill",
))  # fmt: skip
@O.read_options
@click.argument("run_dirs", nargs=-1, required=True)
@O.label_option
@click.option("--baseline", default=None, help="Variant to compare against (default: first).")
@O.field_option
@O.format_option
def compare_cmd(run_dirs, labels, baseline, field_names, fmt):
    """Rule sets side by side: every metric, its difference from the baseline and its interval.

    Runs of the same seeds and games (the same --seed and --games under different rules) are
    compared game by game: the paired interval, with the unpaired one beside it. With --field,
    the runs of each field (their seats) are compared on their own, and every difference is
    set against the first field's: holds, flips or indistinguishable from noise.
    """
    import analysis
    from analysis.field import compare_field_runs, compare_fields_output, parse_fields
    from analysis.text import compare_text, render
    from analysis.words import compare_sentences

    if field_names is not None:
        fields = parse_fields(field_names)
        if labels and len(labels) != len(run_dirs):
            raise ValueError(f"Give one label per run directory ({len(run_dirs)}), not"
                             f" {len(labels)}.")  # fmt: skip
        with C.WarnToStderr():
            df = compare_field_runs(run_dirs, fields, baseline, list(labels) or None)
        C.echo_lines(compare_fields_output(df, fields, fmt))
        return
    with C.WarnToStderr():
        df = analysis.compare_runs(list(run_dirs), list(labels) or None, baseline)
    out = [render(df, fmt)] if fmt != "table" else [*compare_sentences(df), "", compare_text(df)]
    C.echo_lines(out)


@cli.command("sweep", epilog=examples(
    "loba sweep --vary elimination_score=101,151,201 --games 5000 --out sweeps/e",
    "loba sweep --vary elimination_score=101,151 --vary max_rebuys=0,1,2 --out sweeps/h",
    "loba sweep --game moon --vary allow_doubles_trump=true,false --games 20000 --out sweeps/m",
    "loba sweep --vary elimination_score=101,151 --field greedy,mixed,smart --out sweeps/skill",
))  # fmt: skip
@O.game_option
@O.rules_option
@O.set_option
@click.option("--vary", "vary", multiple=True, required=True, metavar="KNOB=V1,V2,...",
              help="A knob and its values; give one or two.")  # fmt: skip
@O.seats_option
@O.games_option(2000, "Games per cell.")
@O.seed_option("Run seed (every cell).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for the cells' runs (cells/KNOB=VALUE/..., Hive-style),"
              " summary.csv/json and sweep.png.")  # fmt: skip
@click.option("--overwrite", is_flag=True, help="Allow writing into a non-empty --out"
              " (replacing a previous sweep's cells/ and its experiment's runs).")  # fmt: skip
@O.threads_option
@click.option("--rounds", "record_rounds", is_flag=True,
              help=f"Also record the detail table ({O.detail_tables()}).")
@click.option("--no-experiment", "--no-rebuy-value", "no_experiment", is_flag=True,
              help="Skip the game's paired experiment runs, if it has one (Loba: the value of"
              " always rebuying; halves the work).")  # fmt: skip
@O.field_option
@O.format_option
@O.verbose_option
@click.pass_context
def sweep_cmd(ctx, field_names, game, preset, sets, vary, seats, games, seed, out_dir, overwrite,
              threads, record_rounds, no_experiment, fmt):  # fmt: skip
    """Play the grid of knob values (same seeds in every cell) and summarise each cell."""
    from analysis.sweep import run_field_sweep, run_sweep, sweep_output
    from sim.house import is_house_file
    from sim.rules import parse_assignments

    log = C.Verbose()
    fields = O.fields_of(ctx, field_names, seats)
    if preset is not None and is_house_file(preset):  # its seats, unless --seats is given
        seats = settings(preset, (), seats).seats
    work = (preset, parse_assignments(sets), list(vary))
    more = (games, seed, out_dir, overwrite, not no_experiment, threads, record_rounds,
            C.cells_progress, game)  # fmt: skip
    if fields is not None:
        players = len(seats.split(",")) if seats else None  # a house file's seats: its players
        res = run_field_sweep(*work, fields, players, *more)
        done = ", ".join(str(sw.out.name) for sw in res.sweeps.values())
        done = f"summary.csv; a sweep per field: {done}"
    else:
        if log.on:
            base = settings(preset, sets, None, game).rules
            log(f"base rules {base.id}; varying {'; '.join(vary)}")
            log(f"seats {seats or get_game(base.game).default_seats}; seed {seed};"
                f" {games:,} games a cell")  # fmt: skip
            log(f"kernel cache: {C.cache_text(base.game)}")
        res = run_sweep(*work, seats, *more)
        done = "summary.csv, sweep.png, cells/"
    C.echo_lines(sweep_output(res, fmt, not no_experiment))
    log(f"swept in {log.lap():.2f} s")
    click.echo(f"wrote {out_dir} ({done})", err=True)


@cli.command("findings", epilog=examples(
    "loba findings --games 20000 --games-expert 400 --seed 1 --out findings/loba",
    "loba findings --game moon --field greedy,mixed,expert --games 20000 --games-expert 150",
    "loba findings --game moon --field greedy,count --finding bids,widow --games 5000",
))  # fmt: skip
@O.game_option
@O.field_option
@O.games_option(20000, "Games per field and arm (every arm plays games 0..N-1 of --seed).")
@click.option("--games-expert", "games_expert", default=None, type=int, help="Games per arm of"
              " the expert field (searching players are slow; default: --games).")  # fmt: skip
@O.seed_option("Run seed (every field and arm).")
@click.option("--finding", "only", default=None, metavar="KEYS", help="Only these findings,"
              " comma separated (default: every finding the game declares).")  # fmt: skip
@O.threads_option
@O.out_options(
    "Keep each field's runs as run directories (OUT/field=NAME/ARM/: read again by the same"
    " command, resumed when unfinished, grown by more --games into ARM@FIRST/) and write"
    " OUT/findings.json and findings.csv.",
    "runs of other settings",
)
@O.format_option
@click.pass_context
def findings_cmd(ctx, game, field_names, games, games_expert, seed, only, threads, out_dir,
                 overwrite, fmt):  # fmt: skip
    """Do the game's headline findings hold for stronger players? Each finding the game
    declares (analysis/GAME/findings.py; --finding picks some) is measured once per field of
    players, weakest first, with its 95% interval (by game; paired on the same seeds), and set
    against the first field: holds, changes, or flips (docs/analysis.md)."""
    from analysis.field import parse_fields
    from analysis.findings import findings_output, run_findings, study_of
    from sim.chunks import check_whole

    name = get_game(game).name
    study = study_of(name)
    fields = parse_fields(field_names if field_names is not None else list(study.fields), name)
    check_whole("--games", games, 2, 10**9)
    per = {f: games for f in fields}
    if games_expert is not None:
        check_whole("--games-expert", games_expert, 2, 10**9)
        if "expert" not in fields:
            raise ValueError("--games-expert sets the expert field's games; --field names no"
                             " expert field.")  # fmt: skip
        per["expert"] = games_expert
    C.announce_compile(name)

    def progress(label, done, total):
        if C.stderr_is_terminal():
            click.echo(f"\r{label}: {done:,}/{total:,} games", err=True, nl=done == total)

    res = run_findings(name, fields, per, seed, out_dir, overwrite, threads, progress, only)
    C.echo_lines(findings_output(res, fmt))
    if out_dir is not None:
        click.echo(f"wrote {out_dir} (findings.json, findings.csv, field=*/)", err=True)


@cli.command("report", epilog=examples(
    "loba report runs/e101 -o report.html",
    "loba report runs/e101 runs/e151 -o report.html --rebuy-games 2000",
    "loba report sweeps/skill/field=*/cells/* -o skill.html     # with 'Across skill'",
))  # fmt: skip
@O.read_options
@click.argument("run_dirs", nargs=-1, required=True)
@click.option("-o", "--output", "out_file", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")  # fmt: skip
@click.option("--title", default=None, help="Title of the report.")
@O.label_option
@click.option("--experiment-games", "--rebuy-games", "games", default=0, show_default=True,
              type=int, help="Also run the game's experiment (Loba: the state-level rebuy"
              " value) on this many games.")  # fmt: skip
@click.option("--experiment-reps", "--rebuy-reps", "reps", default=8, show_default=True,
              type=int, help="Branch pairs per decision in that experiment.")  # fmt: skip
@O.field_option
def report_cmd(run_dirs, out_file, title, labels, games, reps, field_names):
    """Write one self-contained HTML report (findings, tables, figures) of RUN_DIRS."""
    from analysis.report import build_report
    from sim.chunks import check_whole
    from sim.files import atomic_output

    check_whole("--experiment-games", games, 0, 10**12)
    check_whole("--experiment-reps", reps, 1, 256)
    # checked before anything is read; written whole or not at all (temporary file, renamed)
    with (
        C.WarnToStderr(),
        atomic_output(out_file, "Report file") as tmp,
        C.ProgressBar("experiment, games") as bar,
    ):
        build_report(list(run_dirs), tmp, title, list(labels) or None,
                     experiment_games=games, experiment_reps=reps, progress=bar,
                     fields=field_names)  # fmt: skip
    click.echo(f"wrote {Path(out_file)}")


PROGRESS_AFTER = 2.0  # seconds: a tournament this long says on stderr which seating it plays


@cli.command("tournament", epilog=examples(
    "loba tournament --seats-pool random,greedy,hold,careful,wary --players 4 --games 2000",
    "loba tournament --seats-pool greedy,hold:patience=1,hold:patience=6 --plot t.png",
    "loba tournament --players 3 --all-orders --out runs/t3 --format json",
    "loba tournament --game moon --seats-pool random,greedy,count --games 5000",
))  # fmt: skip
@O.game_option
@O.rules_option
@O.set_option
@click.option("--seats-pool", "pool", default=None, metavar="SEAT,SEAT,...", help="The policies"
              " to rate, as seat strings (greedy, hold:patience=2, my.py:NAME; default: the"
              " seats of a house-rules --rules file, else every built-in policy of the game).")
@click.option("--players", default=None, type=int, help="Seats at each table (default: as many"
              " as a house-rules file seats, else the game's usual table).")  # fmt: skip
@O.games_option(2000, "Games per seating; every seating plays the same deals (games 0..N-1 of"
                " --seed).")  # fmt: skip
@O.seed_option("Run seed (every seating).")
@click.option("--repeats", is_flag=True, help="Also seatings where a policy sits more than once"
              " (every group with at least two different policies).")  # fmt: skip
@click.option("--all-orders", is_flag=True, help="Every order of each group of policies, not"
              " only its rotations (k! seatings a group instead of k), so each policy also sits"
              " after each other one equally often.")  # fmt: skip
@click.option("--resamples", default=200, show_default=True, type=int, help="Bootstrap resamples"
              " of the deals for the ratings' 95% intervals (20 to 100,000).")  # fmt: skip
@O.threads_option
@O.out_options(
    "Write a run directory per seating (OUT/seatings/NNN-SEATS/, read by 'loba summarize')"
    " and OUT/tournament.json (settings, ratings, win shares).",
    "a previous tournament's seatings/",
)
@O.plot_option("Save a figure (PNG) here: the ratings with their intervals and the win-share"
               " matrix.")  # fmt: skip
@O.format_option
@O.verbose_option
def tournament_cmd(game, preset, sets, pool, players, games, seed, repeats, all_orders,
                   resamples, threads, out_dir, overwrite, plot_file, fmt):  # fmt: skip
    """Rate policies against each other: every seating of --players seats from the pool, on
    the same deals, rated by their finishing order (Plackett-Luce, bootstrap intervals), with
    each pair's win shares.

    Seatings: every combination of --players different pool policies, each in its rotations
    (so each policy sits in every seat equally often); with fewer policies than seats, every
    group in which each pool policy sits. --games N is per seating. A rating difference d
    means: finishes above the other with probability 1 / (1 + e^-d).
    """
    from analysis import tournament as T
    from analysis.text import tournament_text
    from sim.chunks import set_threads

    log = C.Verbose()
    s = settings(preset, sets, None, game)
    if pool is None and s.house is not None and s.house.seats is not None:
        pool = ",".join(dict.fromkeys(s.house.seats))  # rate the house file's own players
        players = len(s.house.seats) if players is None else players
    plan = T.plan(s.rules, pool, players, games, seed, resamples, repeats, all_orders)
    set_threads(threads)
    _check_out(out_dir, overwrite)
    C.check_plot_file(plot_file)
    log.run(s.rules, list(plan.pool), seed, preset)
    log(f"{plan.describe()}; {games:,} games each, {plan.total_games:,} in all")
    C.announce_compile(s.rules.game)
    start = time.perf_counter()

    def progress(i, n, seating):
        if time.perf_counter() - start > PROGRESS_AFTER or log.on:
            click.echo(f"seating {i + 1}/{n}: {','.join(seating)}", err=True)

    res = T.run_tournament(plan, threads, out_dir, overwrite, progress)
    log(f"played and rated in {log.lap():.2f} s")
    C.emit(fmt, res.to_dict, res.policies, lambda: tournament_text(res))
    if plot_file is not None:
        from analysis.plots import tournament_plot

        C.save_plot(tournament_plot(res.policies, res.pairs, plan.pool[0]), plot_file)
    if out_dir is not None:
        click.echo(f"wrote {out_dir} ({T.FILE}, {T.SEATINGS}/)", err=True)


def _check_out(out_dir, overwrite) -> None:
    if out_dir is not None:
        from sim.files import check_out_dir

        check_out_dir(out_dir, overwrite)


@cli.command("tune", epilog=examples(
    "loba tune hold --against greedy --param patience=0..12 --games 4000 --trials 20",
    "loba tune careful --against greedy --param danger=0..20 --param keep=0.0..12",
    "loba tune careful:safe=1 --against greedy,wary,hold --param keep=0..20 --out tunes/c",
    "loba tune wary --param margin=0..10 --pruner halving --format json > wary.json",
))  # fmt: skip
@click.argument("policy")
@click.option("--against", "against", default=None, metavar="SEAT[,SEAT...]", help="The field:"
              " one seat string for every other seat, or one per other seat (default: the"
              " game's default policy).")  # fmt: skip
@click.option("--param", "params", metavar="NAME=LO..HI", multiple=True, required=True,
              help="A parameter to tune and its range, inside the policy's own range; repeat"
              " for more. Whole numbers when both bounds are written as whole numbers and the"
              " default is one (patience=0..12); any number, to 4 significant digits, when a"
              " bound has a point (keep=0.0..12).")  # fmt: skip
@O.games_option(4000, "Games a full trial plays, over all seatings (rounded up to whole deals:"
                " a deal is played once in each seating).")  # fmt: skip
@click.option("--trials", default=20, show_default=True, type=int, help="Optuna trials.")
@O.seed_option("Seed of the tuning games (every trial plays the same) and of the sampler.")
@O.game_option
@O.rules_option
@O.set_option
@click.option("--players", default=None, type=int, help="Seats at the table (default:"
              " --against's seats plus one; with one --against seat, the game's usual"
              " table).")  # fmt: skip
@click.option("--pruner", type=click.Choice(["race", "halving", "none"]), default="race",
              show_default=True, help="race: stop a trial clearly worse than the best one on"
              " the same deals (paired 95% interval below 0); halving: Optuna's successive"
              " halving (only the better half goes on); none: every trial plays all its"
              " games.")  # fmt: skip
@click.option("--eval-games", default=None, type=int, help="Fresh games (a seed tuning did not"
              " use) for the best and the default seat (default: --games; 0: no fresh"
              " evaluation).")  # fmt: skip
@O.threads_option
@O.out_options("Write OUT/study.parquet and OUT/study.csv (one row per trial) and"
               " OUT/best.json (settings, best seat, evaluation).")  # fmt: skip
@O.format_option
@O.verbose_option
def tune_cmd(policy, against, params, games, trials, seed, game, preset, sets, players, pruner,
             eval_games, threads, out_dir, overwrite, fmt):  # fmt: skip
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

    log = C.Verbose()
    rules = settings(preset, sets, None, game).rules
    plan = T.plan(policy, against, list(params), games, trials, seed, rules, players,
                  eval_games, pruner=pruner, threads=threads)  # fmt: skip
    set_threads(threads)
    _check_out(out_dir, overwrite)
    log.run(rules, [plan.default_seat, *plan.field], seed, preset)
    log(f"tuning {', '.join(r.text() for r in plan.ranges)}; rungs of"
        f" {', '.join(f'{d * plan.players:,}' for d in plan.rung_deals)} games;"
        f" evaluation seed {plan.eval_seed}")  # fmt: skip
    C.announce_compile(rules.game)

    def on_trial(row):
        log(f"trial {row['trial']}: {row['seat']} {row['state']} after {row['games']:,} games,"
            f" win share {row['win_share']:.4f}")  # fmt: skip

    with C.ProgressBar("trials") as bar:
        res = T.run_tune(plan, bar, on_trial, evaluate=False)
    if plan.eval_deals:
        with C.ProgressBar("fresh games") as bar:
            res.evaluation = T.evaluate_seat(plan, res.best_seat, bar)
    log(f"tuned and evaluated in {log.lap():.2f} s")
    C.emit(fmt, res.to_dict, res.study, lambda: tune_text(res))
    if out_dir is not None:
        res.write(out_dir, overwrite)
        click.echo(f"wrote {out_dir} ({', '.join(T.STUDY_FILES)})", err=True)


@cli.command("warm", epilog=examples("loba warm", "loba warm --game moon", "loba warm --search"))
@O.game_option
@click.option("--search", is_flag=True, help="Also the search policies (those with a cheap"
              " quick setting, 'loba policies'): their own code compiles for minutes.")  # fmt: skip
def warm_cmd(game, search):
    """Compile every game's kernel and every built-in policy into the kernel cache now (the
    README's install command runs it), so that no later command waits for a compile."""
    from sim.runner import warm

    C.announce_compile(game)
    warm(game, click.echo, search)


@cli.command("advise", epilog=examples(
    "loba advise --targets examples/advise/loba-evening.toml --budget 120000 --out advice/e",
    "loba advise --target 'rounds_per_game in 8..12' --target 'comeback >= 0.15'"
    " --vary elimination_score=81..201 --vary max_rebuys=0..2",
    "loba advise --targets examples/advise/loba-evening.toml --field greedy,mixed,smart",
    "loba advise --game moon --target 'hands_per_game in 6..10' --vary target=11..41",
    "loba advise --check advice/e --games 200000     # the answer again, on fresh games",
))  # fmt: skip
@click.option("--targets", "targets_file", default=None, type=click.Path(dir_okay=False),
              help="A TOML file: targets = [\"rounds_per_game in 8..12\", ...], optionally an"
              " [advise] table (vary, seconds_per_turn) and house rules (game, preset, seats,"
              " [knobs]: the base rules).")  # fmt: skip
@click.option("--target", "target_texts", multiple=True, metavar="TARGET",
              help="A target: METRIC in LO..HI, METRIC <= X, METRIC >= X,"
              " share(METRIC in LO..HI) >= P or q90(METRIC) <= X; repeat for more"
              " (docs/advise.md lists the metrics).")  # fmt: skip
@click.option("--vary", "vary", multiple=True, metavar="KNOB=LO..HI|A,B,C", help="A knob to"
              " search and its range or values; repeat for more (default: the targets file's,"
              " else every knob of the game's default space).")  # fmt: skip
@O.setup_options
@O.field_option
@click.option("--budget", default=200_000, show_default=True, type=int, help="Games to play in"
              " all: the search and the fresh games verifying the best settings.")  # fmt: skip
@O.seed_option("Seed of the search's games (every candidate plays the same) and its sampler"
               " (default 0; with --check, of the fresh games: default 424242).", None)
@click.option("--seconds-per-turn", "seconds_per_turn", default=None, type=float,
              help="Seconds a turn takes at the table, for 'minutes' (default: the targets"
              " file's, else the game's: docs/advise.md).")  # fmt: skip
@O.threads_option
@O.out_options("Write the study (every trial, its seeds and games), the verification, the"
               " answer (advice.txt/json), advised.toml and, when targets conflict, front.png;"
               " the same command on the same --out resumes. With --check: the check's"
               " check.csv, check.json and check.txt.", "a previous advise")
@click.option("--check", "check", default=None, metavar="OUT|RULES", help="Re-play instead an"
              " advise's answer (its --out folder: its advised.toml, targets and fields) or any"
              " rules (a house-rules file, with --targets/--target) on fresh games, and judge"
              " each target.")  # fmt: skip
@O.games_option(None, "With --check: games a field (default 20,000).")
@O.format_choice(("table", "json"), "A readable table and paragraph, or JSON.")
@O.verbose_option
@click.pass_context
def advise_cmd(ctx, targets_file, target_texts, vary, game, preset, sets, seats, field_names,
               budget, seed, seconds_per_turn, threads, out_dir, overwrite, check, games,
               fmt):  # fmt: skip
    """Search the house rules for a setting that meets TARGETS: Optuna on common random
    numbers, candidates clearly outside a target stopped early, the best verified on fresh
    games with 95% intervals; write the winner as a house-rules file (OUT/advised.toml).
    With --check, re-play an answer on games of another seed (default 424242) instead.
    """
    from analysis import advise as A
    from sim.chunks import set_threads

    log = C.Verbose()
    if check is not None:
        O.refuse_given(ctx, "--check re-plays the rules it names", "vary", "budget", "preset",
                       "sets")  # fmt: skip
        if out_dir is not None:  # before any game
            from sim.files import RunDirError, check_out_dir

            try:
                check_out_dir(out_dir, overwrite)
            except RunDirError as e:
                raise click.UsageError(str(e)) from None
        elif overwrite:
            C.no_effect("--overwrite", "without --out", "nothing is written.")
        with C.ProgressBar("games") as bar:
            df = A.check(target_texts, check, seats, field_names,
                         20_000 if games is None else games,
                         A.CHECK_SEED if seed is None else seed, game, seconds_per_turn,
                         targets_file, threads, bar)  # fmt: skip
        C.emit(fmt, df.to_dicts, df, lambda: A.check_text(df))
        if out_dir is not None:
            A.write_check(df, out_dir)
            click.echo(f"wrote {out_dir} ({', '.join(A.CHECK_FILES)})", err=True)
        return None
    O.refuse_given(ctx, "--games counts the games of a --check (an advise plays its --budget)",
                   "games")  # fmt: skip
    if targets_file is None and not target_texts:
        raise click.UsageError("Give the targets: --targets FILE or --target TARGET.")
    plan = A.plan(list(target_texts), targets_file, list(vary), preset, sets, seats,
                  field_names, budget, seed or 0, game, seconds_per_turn, threads)  # fmt: skip
    set_threads(threads)
    if out_dir is None and overwrite:
        C.no_effect("--overwrite", "without --out", "nothing is written.")
    resumed = A.prepare_out(plan, out_dir, overwrite) if out_dir is not None else False
    log(f"advise {plan.describe()}")
    if resumed:
        click.echo(f"resuming the advise in {out_dir} (its games are read, not played again)",
                   err=True)  # fmt: skip
    C.announce_compile(plan.game)

    def on_trial(row):
        log(f"trial {row['trial']}: {row['setting']} {row['state']} after {row['games']:,}"
            f" games a field")  # fmt: skip

    try:
        with C.ProgressBar("games") as bar:
            res = A.run_advise(plan, out_dir, bar, on_trial)
    except KeyboardInterrupt:
        keep = f"the same command resumes it from {out_dir}" if out_dir else "nothing was kept"
        click.echo(f"Interrupted; {keep}.", err=True)
        raise click.exceptions.Exit(130) from None
    log(f"advised in {log.lap():.2f} s ({res.simulated:,} games played by this command)")
    C.emit(fmt, res.to_dict, res.study, res.text)
    if out_dir is not None:
        res.write(out_dir)
        click.echo(f"wrote {out_dir} (advice.txt, advised.toml, study.csv, ...)", err=True)


for _spec in all_games():  # each game's own commands (GameSpec.commands)
    for _ref in _spec.commands:
        cli.add_command(load_ref(_ref))


O.refuse_empty(cli)  # an empty value is refused in one sentence, never a default


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
    except (click.exceptions.Abort, KeyboardInterrupt):
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

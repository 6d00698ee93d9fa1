"""The ``loba`` command line: parses, calls sim/ or analysis/, prints or writes. No game logic.

Every bad input (rule name or value, seat string, card, player count, output directory) ends
with one sentence on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sim.cards import CardError
from sim.policies import SeatError
from sim.results import RunDirError
from sim.rules import PRESETS, RuleError

USER_ERRORS = (RuleError, SeatError, CardError, RunDirError, ValueError, FileNotFoundError)


def _rules(preset: str | None, sets: tuple[str, ...]):
    from sim.rules import DEFAULT_PRESET, make_rules, parse_assignments

    return make_rules(preset or DEFAULT_PRESET, **parse_assignments(sets))


rules_option = click.option(
    "--rules",
    "preset",
    metavar="PRESET",
    default=None,
    help=f"Rule preset: {', '.join(PRESETS)} (default pagat).",
)
set_option = click.option(
    "--set",
    "sets",
    metavar="KNOB=VALUE",
    multiple=True,
    help="Override one rule knob; repeat for more (see 'loba rules').",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="loba-sim", prog_name="loba")
def cli():
    """Simulate and analyse the rummy game Loba de Menos."""


@cli.command("rules")
@click.argument("preset", required=False)
@set_option
def rules_cmd(preset, sets):
    """Print every rule knob: value, default, rule id and meaning."""
    from sim.rules import describe

    rules = _rules(preset, sets)
    rows = describe(rules)
    click.echo(f"rules: {rules.id}")
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    head = ("knob", "value", "default", "rule")
    w = [max(w[i], len(head[i])) for i in range(4)]
    click.echo("  ".join(h.ljust(w[i]) for i, h in enumerate(head)) + "  meaning")
    for r in rows:
        mark = "*" if r[1] != r[2] else " "
        click.echo("  ".join(r[i].ljust(w[i]) for i in range(4)) + f" {mark}{r[4]}")


@cli.command("check-meld")
@rules_option
@set_option
@click.argument("cards", nargs=-1, required=True)
def check_meld_cmd(preset, sets, cards):
    """Judge CARDS as a new meld laid down from hand (exit 0 valid, 1 invalid)."""
    from sim.cards import parse_cards
    from sim.melds import check_meld

    rules = _rules(preset, sets)
    ids = parse_cards(list(cards))
    ok, text = check_meld(ids, rules)
    click.echo(("valid: " if ok else "invalid: ") + text)
    sys.exit(0 if ok else 1)


@cli.command("simulate")
@rules_option
@set_option
@click.option(
    "--seats",
    default="greedy,greedy,greedy,greedy",
    show_default=True,
    help="Comma-separated seat strings, one per player (2-5).",
)
@click.option("--games", default=20000, show_default=True, type=int, help="Games to play.")
@click.option("--seed", default=0, show_default=True, type=int, help="Run seed.")
@click.option("--threads", default=None, type=int, help="Worker threads (default: all cores).")
@click.option("--rounds", "record_rounds", is_flag=True, help="Also record rounds.parquet.")
@click.option(
    "--out",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Write a run directory (manifest.json + Parquet tables).",
)
@click.option("--overwrite", is_flag=True, help="Allow writing into a non-empty --out.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate_cmd(
    preset, sets, seats, games, seed, threads, record_rounds, out_dir, overwrite, quiet, as_json
):
    """Play GAMES complete games and summarise them."""
    from sim.policies import parse_seats
    from sim.runner import simulate

    rules = _rules(preset, sets)
    seat_list = parse_seats(seats)
    rules.check_players(len(seat_list))
    if out_dir is not None:
        p = Path(out_dir)
        if p.exists() and any(p.iterdir()) and not overwrite:
            raise RunDirError(
                f"Output directory '{p}' is not empty: choose another or pass --overwrite."
            )
    bar = None
    if not quiet and games >= 50000:
        bar = click.progressbar(length=games, label="games", file=sys.stderr)
        bar.__enter__()

    def progress(done, total):
        if bar is not None:
            bar.update(done - bar.pos)

    try:
        res = simulate(
            rules,
            seat_list,
            games=games,
            seed=seed,
            threads=threads,
            record_rounds=record_rounds,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if out_dir is not None:
        res.write(out_dir, overwrite=overwrite)
    if quiet:
        return
    s = res.summary()
    if as_json:
        click.echo(json.dumps(s, indent=2))
        return
    click.echo(f"rules {rules.id}  seats {','.join(res.seat_labels)}  seed {seed}")
    click.echo(
        f"{s['games']} games in {s['elapsed_seconds']:.2f} s ({s['games_per_second']:,.0f} games/s,"
        f" {res.threads} threads); {s['unfinished']} unfinished"
    )
    click.echo(
        f"mean rounds/game {s['mean_rounds']:.2f}, turns/game {s['mean_turns']:.1f}, "
        f"rebuys/game {s['rebuys_per_game']:.2f}, one-turn bonus rate "
        f"{s['one_turn_bonus_rate']:.2%} of rounds, void rounds {s['void_rounds']}"
    )
    click.echo("win share by seat (95% Wilson interval):")
    for row in s["seats"]:
        click.echo(
            f"  seat {row['seat']} {row['policy']:<24} {row['share']:7.2%}  "
            f"[{row['ci_low']:.2%}, {row['ci_high']:.2%}]"
        )
    if out_dir is not None:
        click.echo(f"wrote {out_dir}")


@cli.command("bench")
@click.option("--games", default=20000, show_default=True, type=int)
@click.option("--seats", default="greedy,greedy,greedy,greedy", show_default=True)
@rules_option
@set_option
def bench_cmd(games, seats, preset, sets):
    """Throughput of the kernel (1 thread and all threads) against a floor kernel."""
    from sim.bench import run_bench

    rules = _rules(preset, sets)
    for line in run_bench(rules, seats, games):
        click.echo(line)


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


def run() -> None:
    """Console-script entry (``loba``)."""
    sys.exit(main())


if __name__ == "__main__":
    run()

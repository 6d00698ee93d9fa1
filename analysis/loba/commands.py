"""Loba's own commands (its spec's ``commands``): ``check-meld`` and ``rebuy-value``."""

from __future__ import annotations

import json
import sys

import click

from ..cli import console as C
from ..cli import options as O

GAME = "loba"


@click.command("check-meld", epilog=O.examples(
    "loba check-meld 5S 6S JK                    # valid: escalera 5S 6S JK(7S)",
    "loba check-meld KS KH KD KC --rules rami",
))  # fmt: skip
@O.rules_option
@O.set_option
@O.format_choice(
    ("text", "json"),
    'text: "valid: ..." or "invalid: ..."; json: {"valid", "text", "cards", "rules_id"}.',
)
@click.argument("cards", nargs=-1, required=True)
def check_meld(preset, sets, fmt, cards):
    """Judge CARDS as a new Loba meld laid down from hand (exit 0 valid, 1 invalid)."""
    from sim.loba.melds import check_meld as judge
    from sim.setup import settings

    rules = settings(preset, sets, None, GAME).rules
    ok, text = judge(list(cards), rules)
    if fmt == "json":
        report = {"valid": bool(ok), "text": text, "cards": list(cards), "rules_id": rules.id}
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(("valid: " if ok else "invalid: ") + text)
    sys.exit(0 if ok else 1)


MODE_OPTIONS = {  # rebuy-value options read in one mode only: name -> (flag, mode)
    "seat": ("--seat", "policy"),
    "threads": ("--threads", "policy"),
    "rule": ("--rebuy", "policy"),
    "against": ("--against", "policy"),
    "save_file": ("--save", "state"),
    "reps": ("--reps", "state"),
    "by": ("--by", "state"),
    "min_cases": ("--min-cases", "state"),
}


def _opt(name, flag, mode, text, **kw):
    """An option read in one mode only (``mode``: its help says so)."""
    return click.option(name, flag, help=f"{mode} mode: {text}" if mode else text, **kw)


@click.command("rebuy-value", epilog=O.examples(
    "loba rebuy-value --mode policy --games 50000",
    "loba rebuy-value --mode state --games 2000 --plot rebuy.png",
    "loba rebuy-value --seats greedy,greedy,greedy --format json",
    "loba rebuy-value --mode state --games 2000 --save rebuy.csv   # for rebuy=table:FILE",
    "loba rebuy-value --seats careful,greedy,greedy,greedy --rebuy table:rebuy.csv",
    "loba rebuy-value --field greedy,mixed,smart --games 50000   # holds, flips or noise?",
))  # fmt: skip
@click.option(
    "--mode",
    type=click.Choice(["policy", "state"]),
    default="policy",
    show_default=True,
    help="policy: same seeds with one seat on rebuy=always vs never (or --rebuy RULE vs "
    "--against); state: fork the game at every rebuy decision.",
)
@O.rules_option
@O.set_option
@O.seats_option
@_opt("--seat", "seat", "policy", "the seat that switches its rebuy rule.", default=0,
      show_default=True, type=int)  # fmt: skip
@_opt("--rebuy", "rule", "policy", "compare this rebuy rule (table:FILE, if_opponents:k=1, ...)"
      " with each --against rule on the same seeds, instead of always with never.",
      default=None, metavar="RULE")  # fmt: skip
@_opt("--against", "against", "policy", "with --rebuy: the rules to compare it with, comma"
      " separated [default: always,never,if_opponents].", default=None,
      metavar="RULES")  # fmt: skip
@O.games_option(None, "Games (default 20000 in policy mode, 1000 in state mode).")
@O.seed_option()
@_opt("--reps", "reps", "state", "branch pairs played per decision.", default=8,
      show_default=True, type=int)  # fmt: skip
@_opt("--by", "by", "state", "columns to tabulate by.", default="players_left,gap_band,rebuys_used",
      show_default=True)  # fmt: skip
@_opt("--min-cases", "min_cases", "state", "cells with fewer decisions are marked too few to"
      " trust.", default=30, show_default=True, type=int)  # fmt: skip
@O.plot_option()
@click.option(
    "--out",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="policy: write both runs here (with --rebuy: OUT/rule, OUT/against-1, ...); state: "
    "write decisions.parquet here.",
)
@_opt("--save", "save_file", "state", "write the table by players_left,gap_band,rebuys_used"
      " with the rules id (CSV; .parquet or .json by the name), for seats on rebuy=table:FILE.",
      default=None, type=click.Path(dir_okay=False))  # fmt: skip
@_opt("--threads", "threads", None, "Worker threads (policy mode).", default=None, type=int)
@O.field_option
@O.format_option
@O.verbose_option
@click.pass_context
def rebuy_value(ctx, field_names, mode, preset, sets, seats, seat, rule, against, games, seed,
                reps, by, min_cases, plot_file, out_dir, save_file, threads, fmt):  # fmt: skip
    """What a rebuy is worth in stakes, with intervals, in words a player understands.

    With --rebuy RULE (policy mode) it compares that rebuy rule with each --against rule
    instead: the same seeds, seat --seat switching, paired game by game. State mode with
    --save FILE writes the table a seat on rebuy=table:FILE reads (it rebuys where the
    value is positive)."""
    from analysis.text import render

    from .rebuy_value import check_request, rebuy_value
    from .words import REBUY_MODES

    fields = O.fields_of(ctx, field_names, seats)
    rules, seats, seat_list = check_request(preset, sets, seats, fields, mode, games, reps,
                                            min_cases, plot_file, out_dir, save_file, rule,
                                            against, seed)  # fmt: skip
    for name, (flag, only) in MODE_OPTIONS.items():
        if only != mode and C.given(ctx, name):
            C.no_effect(flag, f"in {mode} mode", f"it is read in {only} mode only.")
    log = C.Verbose()
    log.run(rules, seat_list, seed, preset)
    C.announce_compile(GAME)
    res = rebuy_value(
        rules, seats, mode, seat=seat, rule=rule, against=against, games=games, seed=seed,
        reps=reps, by=by, min_cases=min_cases, plot=plot_file is not None, out_dir=out_dir,
        save_file=save_file, threads=threads, bar=C.ProgressBar,
    )  # fmt: skip
    C.echo_lines((f"wrote {f}" for f in res.wrote), err=True)
    log(f"{mode} mode on {res.games:,} games in {log.lap():.2f} s")
    if fmt == "table":
        C.echo_lines(res.lines)
        if not res.empty:
            C.echo_lines(["", render(res.table, fmt), "", REBUY_MODES])
    else:  # csv/json stay machine-readable; the reason goes to stderr
        C.echo_lines(res.empty or (), err=True)
        click.echo(render(res.table, fmt))
    if res.figure is not None:
        C.save_plot(res.figure, plot_file)

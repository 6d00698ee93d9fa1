"""The ``rebuy-value`` command's work: what a rebuy is worth, in one seating or once per field
of players (:mod:`analysis.field`), as a table, sentences and a figure.

:func:`rebuy_value` runs one mode (``policy``: :func:`analysis.loba.rebuy.rebuy_value_policy`,
or :func:`~analysis.loba.rebuy.compare_rebuy_rules` with a ``rule``; ``state``:
:func:`~analysis.loba.rebuy.rebuy_value_state`) and returns a :class:`RebuyValue`; the command
parses its options and prints the result. :func:`rebuy_value_fields` is the policy mode across
fields from Python.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..field import across_sentences, add_across, field_seats, parse_fields
from . import plots, words
from . import rebuy as rb

DEFAULT_PLAYERS = 4  # seats of a field's table unless told
POLICY_GAMES = 20000  # default games of each mode
STATE_GAMES = 1000
DEFAULT_AGAINST = "always,never,if_opponents"
# the state table's columns a stacked table of fields is keyed by (those it has)
STATE_KEYS = ("players_left", "gap_band", "rebuys_used", "others_over", "policy", "round")


@dataclass
class RebuyValue:
    """What ``rebuy-value`` shows: ``table`` (None when no field had one), ``lines`` (the
    sentences), ``empty`` (why there is no table, instead of an empty one; None when there is
    one), ``figure`` (with ``plot``), ``games`` (played per seating) and ``wrote`` (files
    written besides the runs)."""

    table: pl.DataFrame | None
    lines: list[str]
    empty: list[str] | None
    figure: object
    games: int
    wrote: list[str] = field(default_factory=list)


def check_request(preset, sets, seats, fields, mode, games, reps, min_cases, plot_file,
                  out_dir, save_file, rule, against, seed):
    """The ``rebuy-value`` command's input checked before any game is played (one sentence
    for the first bad value): returns (rules, seats — a seat string, or field -> seat string
    with ``fields`` —, the first seating's parsed seats)."""
    from sim.chunks import check_whole
    from sim.files import check_out_dir, check_out_file
    from sim.games import get_game
    from sim.setup import check_run, settings

    from ..cli.console import check_plot_file

    rules, seats, _ = settings(preset, sets, seats, "loba")[:3]
    seats = seats or get_game(rules.game).default_seats
    if games is not None and games < 1:
        raise ValueError(f"--games must be a whole number of at least 1, not {games}.")
    check_whole("--reps", reps, 1, rb.MAX_REPS)  # (in either mode: never silently ignored)
    check_whole("--min-cases", min_cases, 1, 10**9)
    if fields is not None and len(fields) > 1:
        for given, flag in ((plot_file, "--plot"), (save_file if mode == "state" else None,
                                                     "--save")):  # fmt: skip
            if given is not None:
                raise ValueError(f"{flag} writes one field's result; give one --field with it.")
    check_plot_file(plot_file)  # every destination is checked before any game is played
    if out_dir is not None:
        check_out_dir(out_dir)
    if save_file is not None and mode == "state":
        check_out_file(save_file, "Rebuy table")
    if against is not None and rule is None and mode == "policy":
        raise ValueError("--against needs --rebuy RULE: the rule to compare with those.")
    if fields is not None:
        seats = {f: field_seats(f, len(seats.split(","))) for f in fields}
        for s_ in seats.values():
            check_run(rules, s_, 1, seed)
        return rules, seats, check_run(rules, seats[fields[0]], 1, seed)[2]
    return rules, seats, check_run(rules, seats, 1, seed)[2]  # bad seats/seed fail first


def _no_bar(label, **kw):
    return contextlib.nullcontext(None)


def rebuy_value(
    rules,
    seats,
    mode: str = "policy",
    *,
    seat: int = 0,
    rule: str | None = None,
    against: str | None = None,
    games: int | None = None,
    seed: int = 0,
    reps: int = 8,
    by: str = "players_left,gap_band,rebuys_used",
    min_cases: int = rb.MIN_CASES,
    plot: bool = False,
    out_dir=None,
    save_file=None,
    threads: int | None = None,
    bar=_no_bar,
) -> RebuyValue:
    """The value of rebuying under ``rules`` (a RuleSet) with ``seats``: a seat string, or
    field name -> seat string to run once per field (stacked, with each finding's verdict
    across skill against the first field). ``bar(label, min_total=...)``: a context manager
    giving a ``progress(done, total)`` callable (or None). See the command's options for the
    rest (``loba rebuy-value --help``)."""
    if isinstance(seats, dict):
        return _fields(seats, rules, mode, seat, rule, against, games, seed, reps, by,
                       min_cases, out_dir, save_file, threads, bar)  # fmt: skip
    return _one(rules, seats, mode, seat, rule, against, games, seed, reps, by, min_cases,
                plot, out_dir, save_file, threads, bar)  # fmt: skip


def _one(rules, seats, mode, seat, rule, against, games, seed, reps, by, min_cases, plot,
         out_dir, save_file, threads, bar) -> RebuyValue:  # fmt: skip
    from sim.files import atomic_output
    from sim.setup import check_run

    seat_list = check_run(rules, seats, 1, seed)[2]
    ruled_out = words.rebuys_ruled_out(rules, len(seat_list))
    empty = None  # why there is no table to show (instead of an empty one)
    wrote = []
    if mode == "policy" and rule is not None:
        n = POLICY_GAMES if games is None else games
        vs = DEFAULT_AGAINST if against is None else against
        with bar("games (each rule in turn)") as progress:
            res = rb.compare_rebuy_rules(
                rules, seats, rule, vs, n, seed, seat, threads, out_dir, progress=progress
            )
        table = res.table
        lines = words.rebuy_rule_sentences(table, seat, res.rules_id, res.rule)
        if ruled_out:
            lines = empty = [ruled_out]
        fig = plots.rebuy_rules_plot(table, res.rule) if plot else None
    elif mode == "policy":
        n = POLICY_GAMES if games is None else games
        with bar("games (rebuying, then not)") as progress:
            res = rb.rebuy_value_policy(
                rules, seats, n, seed, seat, threads, out_dir, progress=progress
            )
        table = res.table
        lines = words.rebuy_policy_sentences(table, seat, res.rules_id)
        if ruled_out:  # both runs are the same games: differences of 0, no interval
            lines = empty = [ruled_out]
        fig = plots.rebuy_policy_plot(table) if plot else None
    else:
        n = STATE_GAMES if games is None else games
        with bar("games", min_total=200) as progress:
            dec = rb.rebuy_value_state(rules, seats, n, seed, reps, progress=progress)
        if out_dir is not None:
            with atomic_output(Path(out_dir) / "decisions.parquet") as tmp:
                dec.write_parquet(tmp)
        if save_file is not None:
            labels = ",".join(s.label for s in seat_list)
            rb.save_state_table(dec, save_file, labels, min_cases, rules_id=rules.id)
            wrote.append(str(save_file))
        keys = [c.strip() for c in by.split(",") if c.strip()]
        table = rb.tabulate_state_value(dec, keys, min_cases=min_cases)
        lines = [
            f"{dec.height:,} rebuy decisions in {n:,} games of {rules.id}, {reps} branch "
            "pairs each."
        ]
        if dec.height == 0:
            empty = [words.no_rebuy_reason(rules, len(seat_list))]
            lines += empty
        lines += words.rebuy_state_sentences(
            rb.tabulate_state_value(dec, ["players_left"], min_cases=min_cases)
        )
        fig = (
            plots.rebuy_heatmap(rb.tabulate_state_value(dec, min_cases=min_cases)) if plot else None
        )
    return RebuyValue(table, lines, empty, fig, n, wrote)


def _fields(seats: dict, rules, mode, seat, rule, against, games, seed, reps, by, min_cases,
            out_dir, save_file, threads, bar) -> RebuyValue:  # fmt: skip
    """rebuy-value once per field (``seats``: field -> seat string), the tables stacked with a
    ``field`` column and the verdict across skill against the first field."""
    fields = list(seats)
    tables, lines, empties, n, wrote = [], [], [], 0, []
    for f, s_ in seats.items():
        out = None if out_dir is None else str(Path(out_dir) / f)
        r = _one(rules, s_, mode, seat, rule, against, games, seed, reps, by, min_cases, False,
                 out, save_file, threads, bar)  # fmt: skip
        n = r.games
        wrote += r.wrote
        lines.append(f"{f} players ({s_}):")
        lines += [f"  {ln}" for ln in r.lines]
        if r.empty:
            empties.append(f"{f}: {r.empty[0]}")
            continue
        tables.append(r.table.select(pl.lit(f).alias("field"), pl.all()))
    if not tables:
        return RebuyValue(None, lines, empties or None, None, n, wrote)
    table = pl.concat(tables, how="diagonal_relaxed")
    if mode == "policy":
        keys = ["against", "measure"] if rule is not None else ["measure"]
        est, lo, hi = "difference", "paired_low", "paired_high"

        def name(r):
            what = f"{rule} - {r['against']}" if rule is not None else "rebuying - declining"
            return f"{r['measure']} ({what})"

        def unit(r):
            return r["unit"]
    else:
        keys = [c for c in table.columns if c in STATE_KEYS]
        est, lo, hi = "value", "ci_low", "ci_high"

        def name(r):
            return "value of rebuying (stakes), " + ", ".join(f"{k} {r[k]}" for k in keys)

        unit = None
    table = add_across(table, keys, est, lo, hi, fields)
    if len(fields) > 1:
        lines += ["", f"Across skill (each field against {fields[0]} players):"]
        lines += across_sentences(table, keys, est, lo, hi, name, unit)
    return RebuyValue(table, lines, None, None, n, wrote)


def rebuy_value_fields(
    rules="pagat",
    fields=("greedy", "smart", "mixed"),
    games: int = 20000,
    seed: int = 0,
    seat: int = 0,
    players: int = DEFAULT_PLAYERS,
    threads: int | None = None,
) -> pl.DataFrame:
    """:func:`analysis.loba.rebuy.rebuy_value_policy` once per field (seat ``seat`` always vs
    never rebuying, the same seeds in every field), stacked with a ``field`` column and the
    verdict across skill of each measure against the first field (what ``loba rebuy-value
    --field`` prints)."""
    fields = parse_fields(fields)
    parts = []
    for f in fields:
        t = rb.rebuy_value_policy(rules, field_seats(f, players), games, seed, seat, threads).table
        parts.append(t.select(pl.lit(f).alias("field"), pl.all()))
    df = pl.concat(parts, how="diagonal_relaxed")
    return add_across(df, ["measure"], "difference", "paired_low", "paired_high", fields)


def rebuy_fields_sentences(df: pl.DataFrame) -> list[str]:
    """The lines of :func:`rebuy_value_fields` across skill, one per measure."""
    return across_sentences(
        df,
        ["measure"],
        "difference",
        "paired_low",
        "paired_high",
        lambda r: f"{r['measure']} (rebuying - declining)",
        lambda r: r["unit"],
    )

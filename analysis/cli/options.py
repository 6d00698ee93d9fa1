"""The options the ``loba`` commands share, each declared once (cli.py and the games' own
commands, e.g. :mod:`analysis.loba.commands`, put them on their commands)."""

from __future__ import annotations

import functools

import click

from sim.games import DEFAULT_GAME, all_games, game_names, get_game
from sim.setup import settings

from .console import VERBOSE


def examples(*lines: str) -> str:
    """A --help epilogue of example command lines (kept as written: \\b stops rewrapping)."""
    return "\b\nExamples:\n" + "\n".join(f"  {x}" for x in lines)


def _presets() -> str:
    return "; ".join(f"{g}: {', '.join(get_game(g).rules.presets)}" for g in game_names())


class GameChoice(click.Choice):
    """The registered games, read when a value is checked (an outside game registered after
    this module was imported is a choice too)."""

    def __init__(self):
        super().__init__(game_names())

    @property
    def choices(self):
        return tuple(game_names())

    @choices.setter
    def choices(self, value):  # (click sets it once; the registry is the truth)
        pass


game_option = click.option(
    "--game",
    "game",
    type=GameChoice(),
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
set_option = click.option(
    "--set",
    "sets",
    metavar="KNOB=VALUE",
    multiple=True,
    help="Override one rule knob; repeat for more (see 'loba rules').",
)


def detail_tables() -> str:
    """Each game's detail table, for a help text: ``Loba: rounds.parquet, ...``."""
    return ", ".join(f"{g.title}: {g.detail.name}.parquet" for g in all_games() if g.detail)


def parts() -> str:
    """What each game is played in (its spec's ``part``): ``hand or round``."""
    return " or ".join(sorted({g.part for g in all_games()}))


def _seat_grammar() -> str:
    """Each game's seat string, from its add-on kinds: POLICY[:param=value...][+KIND=RULE...]."""
    forms = {
        "POLICY[:param=value...]"
        + "".join(f"[+{kind}=RULE[:param=value]]" for kind in get_game(g).addons)
        for g in game_names()
    }
    return " or ".join(sorted(forms, key=len, reverse=True))


seats_option = click.option(
    "--seats",
    default=None,
    help="Comma-separated seat strings, one per player (default: the game's standard"
    f" seating, e.g. {get_game(DEFAULT_GAME).default_seats}). A seat is {_seat_grammar()}:"
    " greedy, hold:patience=2, random+rebuy=never, my_policy.py:NAME; 'loba policies' lists"
    " them.",
)
field_option = click.option(
    "--field",
    "field_names",
    default=None,
    metavar="FIELDS",
    help="Play (or read) the analysis once per field of players, comma separated, weakest"
    " first: a field the game names (greedy: every seat greedy; mixed: greedy and a stronger"
    " policy alternating, seat 0 greedy; expert: its searching player; each game's list is in"
    " docs/analysis.md) or any built-in policy in every seat; each field's finding is set"
    " against the first's: holds, flips or indistinguishable from noise.",
)
threads_option = click.option(
    "--threads", default=None, type=int, help="Kernel threads (default: all cores)."
)


def setup_options(f):
    """--game, --rules, --set and --seats: what a command that plays games is given."""
    return game_option(rules_option(set_option(seats_option(f))))


def games_option(default=20000, text="Games to play."):
    return click.option("--games", default=default, show_default=default is not None, type=int,
                        help=text)  # fmt: skip


def seed_option(text="Run seed.", default=0):
    return click.option(
        "--seed", default=default, show_default=default is not None, type=int, help=text
    )


def plot_option(text="Save a figure (PNG) here."):
    return click.option(
        "--plot", "plot_file", default=None, type=click.Path(dir_okay=False), help=text
    )


def format_choice(choices=("table", "csv", "json"), text="Output: a readable table, CSV or"
                  " JSON records."):  # fmt: skip
    """``--format`` with these choices (the first is the default)."""
    return click.option("--format", "fmt", type=click.Choice(list(choices)), default=choices[0],
                        show_default=True, help=text)  # fmt: skip


format_option = format_choice()
text_json_option = format_choice(("text", "json"), "Output: readable text, or JSON for tools.")
label_option = click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="NAME",
    help="Name each RUN_DIR (one --label per directory, in order); same name = pooled.",
)


def distribution_options(f):
    """``--quantiles`` and ``--share`` (summarize): each game's own value of a metric over the
    games (:mod:`analysis.distribution`)."""
    f = click.option(
        "--share",
        "shares",
        multiple=True,
        metavar="'METRIC in LO..HI'",
        help="Also the share of games whose own METRIC lies in a range (METRIC in LO..HI,"
        " METRIC <= X, METRIC < X, >=, >), with its 95% interval; repeat for more.",
    )(f)
    return click.option(
        "--quantiles",
        "quantiles",
        multiple=True,
        metavar="METRIC",
        help="Also each game's own METRIC over the games (rounds_per_game, turns_per_game,"
        " minutes, hands_per_game...: docs/advise.md): its q10, median and q90 with exact 95%"
        " intervals (order statistics); qNN(METRIC) or median(METRIC) for one; repeat or"
        " separate with commas for more.",
    )(f)


def refuse_given(ctx, why: str, *names: str) -> None:
    """One sentence (exit 2) when any option of ``names`` (parameter names) was given on the
    command line: ``why`` says what makes it out of place (``--check re-plays ...``)."""
    from click.core import ParameterSource

    flags = [p.opts[-1] for p in ctx.command.params
             if p.name in names and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE]
    if flags:  # fmt: skip
        raise click.UsageError(f"{why}; leave out {', '.join(flags)}.")


def refuse_empty(group: click.Group) -> None:
    """An empty value is never a default: every text option and argument of every command of
    ``group`` refuses ``''`` (or only spaces) in one sentence, instead of reading it as "not
    given"."""

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


def fields_of(ctx, field_names, seats) -> list[str] | None:
    """--field FIELDS checked (one sentence for an unknown field, or --seats beside it)."""
    if field_names is None:
        return None
    from analysis.field import parse_fields

    if seats is not None:
        raise ValueError("--field and --seats both name the players; give one of them.")
    p = ctx.params
    game = settings(p.get("preset"), p.get("sets") or (), None, p.get("game")).rules.game
    return parse_fields(field_names, game)


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


def read_options(f):
    """--verify and --skip-damaged for commands that read run directories."""

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

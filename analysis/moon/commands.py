"""Three-Player Moon's own command (its spec's ``commands``): ``check-trick``."""

from __future__ import annotations

import json

import click

from ..cli import options as O


@click.command("check-trick", epilog=O.examples(
    "loba check-trick --trump 6 6-4 6-6 6-5",
    "loba check-trick --trump doubles --led 6-4 --hand 5-5,6-1,3-2 --json",
))  # fmt: skip
@click.option(
    "--trump", "trump", required=True, metavar="TRUMP",
    help="The contract: a number 0-6, doubles, or none.",
)  # fmt: skip
@click.option(
    "--led", "led", default=None, metavar="TILE", help="With --hand: the tile that led the trick."
)
@click.option(
    "--hand", "hand", default=None, metavar="TILES",
    help="With --led: the tiles in hand, comma separated (5-5,6-1,3-2).",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help='Print {"winner": i} or {"legal": [...]}.')
@click.argument("tiles", nargs=-1)
def check_trick(trump, led, hand, as_json, tiles):
    """Three-Player Moon: who wins a trick of TILES (in play order, the first led) and why, or
    with --led/--hand which tiles may be played ([B6]-[B8])."""
    from sim.moon.check import legal_tiles, trick_winner_explained

    if (led is None) != (hand is None):
        raise click.UsageError("Give --led and --hand together (or three TILES of a trick).")
    if led is not None:
        if tiles:
            raise click.UsageError("Give either TILES of a trick or --led/--hand, not both.")
        legal = legal_tiles(trump, led, hand)
        if as_json:
            click.echo(json.dumps({"legal": legal}))
        else:
            click.echo("may play: " + (" ".join(legal) if legal else "nothing"))
        return
    winner, why = trick_winner_explained(trump, list(tiles))
    click.echo(json.dumps({"winner": winner}) if as_json else why)

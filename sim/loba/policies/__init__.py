"""Loba's built-in policies (DESIGN.md "Policies") and rebuy rules, written against the plug-in
API, and their registry (:data:`POLICIES`, :data:`REBUY_RULES`: the CLI, ``loba policies`` and
every registry-parametrised test read these). One module per family; each module's docstring
says what its policies do:

* :mod:`.basic`    ``random``, ``greedy``
* :mod:`.hold`     ``hold`` (plays for the one-turn bonus)
* :mod:`.careful`  ``wary``, ``careful`` (discards that read the seat's view and the history)
* :mod:`.smart`    ``smart`` (careful's discard, holding, ordered plays, a late dump)
* :mod:`.mc`       ``mc`` (search: playouts in sampled hidden worlds, :mod:`sim.loba.search`)
* :mod:`.rebuy`    the rebuy rules ``always``, ``never``, ``if_opponents``, ``table``

A new policy: its functions in a family module (or a new one) and one entry in :data:`POLICIES`.
Their strength: docs/loba.md ("How the policies were measured").
"""

from __future__ import annotations

from ...policies.api import AddOnRule, Policy
from ..layout import BUILTIN
from ..rebuy_table import PARAM_NAMES, load_table
from .basic import (
    greedy_discard,
    greedy_draw,
    greedy_play,
    random_discard,
    random_draw,
    random_play,
)
from .careful import careful_discard, wary_discard
from .hold import hold_discard, hold_draw, hold_play
from .mc import mc_discard, mc_draw, mc_play
from .rebuy import REBUY_SLOT0, rebuy_always, rebuy_if_opponents, rebuy_never, rebuy_table
from .smart import SMART_PARAMS, smart_discard, smart_draw, smart_play

# mc's parameters and defaults; deep's are the same slots with other defaults
MC_PARAMS = {
    "n": 16.0,
    "width": 8.0,
    "z": 2.0,
    "opp": 1.0,
    "play": 1.0,
    "field": 0.0,
    "elim": 0.0,
    "batch": 0.0,
}
MC_RANGES = {
    "n": (1, 256),  # hidden worlds sampled per decision (every option on the same ones)
    "width": (1, 64),  # options searched at most (greedy's preferred first; 1: greedy)
    "z": (0, 10),  # standard errors an option must gain over greedy's choice (0: best)
    "opp": (0, 1),  # weight of the opponents' mean penalty in the value (0: own only)
    "play": (0, 1),  # its fast policy: 0 greedy, 1 smart (its own play in the playouts)
    "field": (0, 1),  # the opponents' policy in the playouts: 0 greedy, 1 smart
    "elim": (0, 1000),  # value points a seat pays for reaching the elimination score
    "batch": (0, 256),  # worlds between looks that stop hopeless candidates (0: never)
}
# deep: mc with up to 64 worlds, looking every 8 to stop candidates that show no gain
# (docs/performance.md, "The search policy mc": chosen on paired games against three smart)
DEEP_PARAMS = MC_PARAMS | {"n": 64.0, "batch": 8.0}

__all__ = [
    "POLICIES",
    "REBUY_RULES",
    "REBUY_SLOT0",
    "careful_discard",
    "greedy_discard",
    "greedy_draw",
    "greedy_play",
    "hold_discard",
    "hold_draw",
    "hold_play",
    "mc_discard",
    "mc_draw",
    "mc_play",
    "random_discard",
    "random_draw",
    "random_play",
    "rebuy_always",
    "rebuy_if_opponents",
    "rebuy_never",
    "rebuy_table",
    "smart_discard",
    "smart_draw",
    "smart_play",
    "wary_discard",
]

POLICIES = {
    "random": Policy(
        "random", random_draw, random_play, random_discard, doc="uniform among legal options"
    ),
    "greedy": Policy(
        "greedy",
        greedy_draw,
        greedy_play,
        greedy_discard,
        doc="plays all it can, discards its costliest useless card",
        builtin=BUILTIN.GREEDY,
    ),
    "hold": Policy(
        "hold",
        hold_draw,
        hold_play,
        hold_discard,
        params={"patience": 3.0},
        ranges={"patience": (0, 200)},  # cards in an opponent's hand
        doc="holds melds to go out in one turn unless an opponent has <= patience cards",
    ),
    "wary": Policy(
        "wary",
        greedy_draw,
        greedy_play,
        wary_discard,
        params={"margin": 2.0},
        ranges={"margin": (0, 1000)},  # card-cost points (greedy's discard key)
        doc="greedy, but avoids feeding the next player a card its takes or melds show it uses",
    ),
    "careful": Policy(
        "careful",
        greedy_draw,
        greedy_play,
        careful_discard,
        params={"danger": 6.0, "safe": 2.0, "keep": 6.0},
        ranges={"danger": (0, 1000), "safe": (0, 1000), "keep": (0, 1000)},  # card-cost points
        doc="greedy that counts the cards it has seen and the next player's discards",
    ),
    "smart": Policy(
        "smart",
        smart_draw,
        smart_play,
        smart_discard,
        params={
            "danger": 6.0,
            "safe": 2.0,
            "keep": 6.0,
            "patience": 3.0,
            "reach": 6.0,
            "grab": 3.0,
            "close": 2.0,
            "dump": 2.0,
        },
        ranges={
            "danger": (0, 1000),  # card-cost points, as careful's
            "safe": (0, 1000),
            "keep": (0, 1000),
            "patience": (0, 200),  # cards in an opponent's hand (200: never hold)
            "reach": (0, 200),  # cards no play puts down
            "grab": (-1, 200),  # likewise (-1: always take the discard)
            "close": (0, 200),  # cards in an opponent's hand
            "dump": (0, 100),  # extra weight per penalty point
        },
        doc="careful that holds for the one-turn bonus, orders its plays, dumps points late",
    ),
    "mc": Policy(
        "mc",
        mc_draw,
        mc_play,
        mc_discard,
        params=dict(MC_PARAMS),
        ranges=dict(MC_RANGES),
        doc="search: plays each option out to the round's end in n worlds sampled from its view",
        quick="n=1:width=2",  # registry-wide checks (every preset x player count, no JIT)
    ),
    "deep": Policy(
        "deep",
        mc_draw,
        mc_play,
        mc_discard,
        params=dict(DEEP_PARAMS),
        ranges=dict(MC_RANGES),
        doc="mc with 64 worlds, spent where the options differ (early stops every 8)",
        quick="n=2:width=2:batch=1",  # registry-wide checks (every preset x player count)
    ),
}

REBUY_RULES = {
    "always": AddOnRule("always", rebuy_always, {}, "always rebuy when allowed"),
    "never": AddOnRule("never", rebuy_never, {}, "never rebuy"),
    "if_opponents": AddOnRule(
        "if_opponents",
        rebuy_if_opponents,
        {"k": 2.0},
        "rebuy while at least k others are under the limit",
        ranges={"k": (0, 4)},  # other players at a table of at most five
    ),
    "table": AddOnRule(
        "table",
        rebuy_table,
        dict.fromkeys(PARAM_NAMES, 0.0),  # the table's decline bits, read from the file
        "rebuy where a 'rebuy-value --mode state --save' table's value is > 0 (else decline;"
        " cells it lacks: rebuy)",
        load=load_table,
    ),
}

# mc hands smart's defaults to its own smart play as an array: the two must agree
assert tuple(SMART_PARAMS) == tuple(POLICIES["smart"].params.values())

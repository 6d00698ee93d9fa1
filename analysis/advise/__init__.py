"""The house-rules advisor: which rules meet what a group wants?

**Targets.** A target is a metric, a comparison and a bound (:func:`parse_target`)::

    rounds_per_game in 8..12            a figure inside a range (both ends included)
    seat_spread <= 1.0                  at most (``<`` reads as ``<=``: estimates are
    comeback >= 0.15                    continuous), at least
    share(rounds_per_game in 8..12) >= 0.7   the share of games whose own value is in a range
    share(minutes <= 45) >= 0.9              (or below / above a bound: ``<`` is strict here)
    q90(rounds_per_game) <= 15          a quantile of the games' values (``median`` = q50)

A metric is named by a short name of the game's registration (:class:`analysis.bygame.
TargetSpec`: ``rounds_per_game``, ``comeback``, ``hands_per_game``...), by the name ``loba
summarize`` prints (``"rounds per game"``) or that name in snake case. Shares are fractions
(``0.15``), spreads and edges percentage points (``seat_spread <= 1.0``), ``minutes`` the
turns per game times ``seconds_per_turn`` (the game's default, or the targets file's). Every
estimate is the project's (:mod:`analysis.estimate`: a ratio of per-game sums, its interval
by game); a spread's interval is :func:`analysis.metrics.spread_row`'s; a share of games is a
per-game 0/1 figure; a quantile's interval is the distribution-free one of order statistics
(the games are independent draws).

**Search.** The knobs (``--vary KNOB=LO..HI`` or ``KNOB=A,B,C``; none named: the game's
default space) are searched with Optuna's TPE sampler, seeded, with each target a constraint
(:func:`run_advise`): a trial's objective is the sum of its targets' shortfalls (each in units
of the target's own width, so targets of different units weigh alike) minus, once every target
is met, the smallest margin by which one is. Every candidate plays the same games (common random
numbers: games 0.. of the seed, in every field), in rungs of 1/8, 1/4, 1/2 and all of a trial's
games; after each rung a candidate whose 99% interval lies wholly outside a target, in any
field, stops (racing) — a target that some candidate played in full has met: one that no
candidate meets stops nobody, so the closest settings are measured in full. The budget
(``--budget``, games played in all, search and verification) sets the games of a full trial
(a sixteenth of three quarters of it, per field); the search stops when the next rung would
pass its share, or when every candidate of a finite space has been played (the games it
leaves go to the verification).

**Verification.** The best distinct candidates (:data:`TOP`) play fresh games (games 0.. of a
seed the search never used, :func:`analysis.tune.fresh_seed`), the rest of the budget shared
between them, in every field. Each target's estimate gets its 95% interval; the target is
*met* when the interval lies wholly inside the bound, *not met* when wholly outside, else
*undecided*; so a target that is not met reads "met" with a chance of at most 2.5% (one-sided).
The *confidence* beside it is one minus the one-sided p-value of "the target is not met" (from
the estimate's standard error; for a range, the smaller of its two sides). With fields
(``--field``), a target is met only if it is in every field. The verified candidates are
ranked: fewest targets not met, fewest undecided, smallest shortfall, largest margin.

**Reproducible and resumable.** Every game's per-target values are kept under
``OUT/games/`` as they are played; the same command on the same ``OUT`` replays the search
from them (the sampler, seeded, proposes the same candidates) and plays only what is missing,
so an interrupted advise resumes and the same seed gives the same answer.

**The package**, along its jobs: :mod:`.targets` (what a target may name, the grammar, the
targets file), :mod:`.measure` (estimates, intervals, verdicts; each candidate's games),
:mod:`.search` (the knobs, the plan, the search and its verification, :func:`advise`),
:mod:`.output` (:class:`AdviceResult`: the table, the paragraph, the files and the figures)
and :mod:`.verify` (the re-check on fresh games, :func:`check`); :mod:`.constants` its fixed
numbers. Every public name is importable from here.
"""

from __future__ import annotations

from .constants import (
    ADVISE_VERSION,
    CHECK_SEED,
    FILES,
    MET,
    NOT_MET,
    RACE_LEVEL,
    TOP,
    UNDECIDED,
)
from .measure import GameStore, Measured, assess, measure, setting_text
from .output import AdviceResult, advice_rows, front_plot, ranked_rows, search_plot
from .search import AdvicePlan, Axis, advise, parse_axis, plan, prepare_out, run_advise
from .targets import (
    GRAMMAR,
    Catalog,
    Metric,
    Target,
    TargetsFile,
    catalog,
    parse_target,
    parse_targets,
    read_targets_file,
    snake,
)
from .verify import CHECK_FILES, check, check_text, read_advice, write_check

__all__ = [
    "ADVISE_VERSION",
    "CHECK_FILES",
    "CHECK_SEED",
    "FILES",
    "GRAMMAR",
    "MET",
    "NOT_MET",
    "RACE_LEVEL",
    "TOP",
    "UNDECIDED",
    "AdvicePlan",
    "AdviceResult",
    "Axis",
    "Catalog",
    "GameStore",
    "Measured",
    "Metric",
    "Target",
    "TargetsFile",
    "advice_rows",
    "advise",
    "assess",
    "catalog",
    "check",
    "check_text",
    "write_check",
    "front_plot",
    "measure",
    "parse_axis",
    "parse_target",
    "parse_targets",
    "plan",
    "prepare_out",
    "ranked_rows",
    "read_advice",
    "read_targets_file",
    "run_advise",
    "search_plot",
    "setting_text",
    "snake",
]

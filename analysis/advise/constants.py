"""The advisor's fixed numbers: levels, shares of the budget, sizes, verdicts, files."""

from __future__ import annotations

ADVISE_VERSION = 1  # bumped when the same question would be answered differently
RACE_LEVEL = 0.99  # a candidate stops when a target's interval at this level is outside
TOP = 3  # candidates verified on fresh games
VERIFY_SHARE = 0.25  # of the budget kept for the verification
TRIALS_PER_BUDGET = 16  # full trials the search budget pays for (racing stretches it)
RUNGS = 4
MIN_TRIAL_GAMES = 80  # per field
MIN_VERIFY_GAMES = 100  # per candidate and field
MAX_TRIALS = 2000
MAX_IDLE = 40  # consecutive trials that play nothing (repeats): the sampler is done
MAX_SHORT = 10.0  # the largest shortfall one target adds to the objective, in its widths
MET, NOT_MET, UNDECIDED = "met", "not met", "undecided"
FILES = ("advise.json", "study.parquet", "study.csv", "targets.parquet", "verification.csv",
         "advice.json", "advice.txt", "advised.toml")  # fmt: skip
CHECK_SEED = 424_242  # a check's default seed: neither a search's (0, 1, ...) nor a fresh one

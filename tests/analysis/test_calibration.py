"""The calibration check (analysis.calibration, ``loba calibrate``), small enough for CI.

Every interval ``loba summarize`` gives must be as wide as the run-to-run spread says: over
runs on distinct seeds, the spread of the estimates over the stated standard error is about 1
(before the clustered model: 0.36 for the elimination risk per player-round, 0.50 for the
share of busts that rebought, 2.07 for stock rebuilds). With these few runs the ratio's own
noise is about 1 / sqrt(2 (runs - 1)), so the band here is that of three of its standard
deviations around 1; the seeds are fixed, so the check is deterministic. The figures of few
events use an exact interval, which is conservative: they must cover, not match.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from analysis.calibration import calibrate
from analysis.estimate import EXACT

CASES = {  # game: (runs, games, seats)
    "loba": (30, 1000, "greedy,greedy,greedy,greedy"),
    "moon": (24, 800, "count,count,count"),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def cal(request):
    runs, games, seats = CASES[request.param]
    return calibrate(request.param, runs, games, seats=seats, seed=100)


def test_every_interval_is_as_wide_as_the_spread(cal):
    band = (1 - 3 / math.sqrt(2 * (cal.runs - 1)), 1 + 3 / math.sqrt(2 * (cal.runs - 1)))
    normal = cal.table.filter((pl.col("exact_runs") == 0) & (pl.col("no_interval_runs") == 0))
    assert normal.height >= 8
    bad = cal.outside(band).select("metric", "ratio").to_dicts()
    assert not bad, f"intervals out of {band}: {bad}"


def test_no_interval_is_zero_width(cal):
    assert cal.table["zero_width_runs"].sum() == 0


def test_exact_intervals_of_few_events_cover(cal):
    exact = cal.table.filter(pl.col("exact_runs") > 0)
    assert exact.height >= 1  # unfinished games, at least, never happen here
    for r in exact.iter_rows(named=True):
        assert r["coverage"] >= 0.9, r
    assert exact["exact_runs"].sum() > 0 and EXACT


def test_aa_compare_rarely_calls_the_same_rules_different(cal):
    assert cal.aa_pairs == cal.runs * (cal.runs - 1) // 2
    assert 0.02 <= cal.aa_raw <= 0.09  # single differences: about 5%
    assert cal.aa_familywise <= 0.10  # after Holm's correction: at most 5%, with noise


def test_calibrate_command(capsys):
    import json

    from runs_util import run_cli

    code, out, err = run_cli(capsys, "calibrate", "--runs", 4, "--games", 200, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["runs"] == 4 and d["aa_pairs"] == 6
    names = {f["metric"] for f in d["figures"]}
    assert {"rounds per game", "busts that rebought (share)"} <= names
    exact = [f for f in d["figures"] if f["exact_runs"]]
    assert exact and all(f["no_interval_runs"] == 0 for f in exact)
    code, out, err = run_cli(capsys, "calibrate", "--runs", 2)
    assert code == 2 and "from 3 to" in err and "Traceback" not in err

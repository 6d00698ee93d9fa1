"""The plug-in interface: user policies from their own modules, run inside the kernel."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import sim
from sim.policies import SeatError, parse_seat

HERE = Path(__file__).parents[1]
ROOT = HERE.parent
MIRROR = str(HERE / "plugins" / "mirror.py")
CAUTIOUS = str(ROOT / "examples" / "cautious.py")


def test_plugin_through_kernel_equals_builtin_it_mirrors():
    a = sim.simulate("pagat", f"{MIRROR}:mirror,greedy,greedy", games=300, seed=11)
    b = sim.simulate("pagat", "greedy,greedy,greedy", games=300, seed=11)
    assert a.games.drop("rules_id").equals(b.games.drop("rules_id"))
    assert a.seats.drop("policy").equals(b.seats.drop("policy"))
    assert a.seat_labels[0] == f"{MIRROR}:mirror"


def test_plugin_functions_are_compiled_with_the_plugin_signature():
    seat = parse_seat(f"{MIRROR}:mirror")
    from sim.loba.api import DECIDE_SIG

    for fn in (seat.policy.draw, seat.policy.play, seat.policy.discard):
        assert fn.nopython_signatures and fn.nopython_signatures[0] == DECIDE_SIG


def test_example_cautious_policy_runs_and_takes_no_discards():
    res = sim.simulate(
        "pagat", f"{CAUTIOUS}:cautious:alarm=2,greedy,greedy,greedy", games=400, seed=2
    )
    assert res.seat_labels[0] == f"{CAUTIOUS}:cautious:alarm=2"
    share = res.summary_dict()["seats"][0]["share"]
    assert 0.0 < share < 1.0
    # identical seeds, identical tables: the plug-in is as deterministic as the built-ins
    again = sim.simulate(
        "pagat", f"{CAUTIOUS}:cautious:alarm=2,greedy,greedy,greedy", games=400, seed=2
    )
    assert res.games.equals(again.games)


def test_plugin_errors_are_one_sentence():
    with pytest.raises(SeatError, match="does not exist"):
        parse_seat("nope/missing.py:x")
    with pytest.raises(SeatError, match="is not a Policy"):
        parse_seat(f"{MIRROR}:not_a_policy")
    with pytest.raises(SeatError, match="has no parameter 'zz'"):
        parse_seat(f"{CAUTIOUS}:cautious:zz=1")


BROKEN = """
from sim.policies import Policy, decision


@decision
def draw(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return hand.no_such_attribute


@decision
def ok(hand, melds, pile, pub, params, rng, acts, n, hist, mem):
    return 0


broken = Policy("broken", draw, ok, ok)
plain = Policy("plain", lambda *a: 0, ok, ok)
"""


def test_a_decision_that_does_not_compile_is_one_sentence(tmp_path, capsys):
    mod = tmp_path / "broken.py"
    mod.write_text(BROKEN)
    with pytest.raises(SeatError) as err:
        parse_seat(f"{mod}:broken")
    msg = str(err.value)
    assert "draw cannot be compiled as a decision" in msg and "\n" not in msg
    with pytest.raises(SeatError, match="is not a @decision function"):
        parse_seat(f"{mod}:plain")
    # the CLI turns it into one line and exit code 2
    import cli

    code = cli.main(["simulate", "--games", "5", "--seats", f"{mod}:broken,greedy"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot be compiled as a decision" in err and len(err.strip().splitlines()) == 1


def test_bad_answers_read_as_the_fallback_and_are_counted_per_seat():
    """gate.decide: out-of-range answers are counted (seats.bad_answers) and read as the
    first option (draw, discard), stop (plays) or decline (rebuy) — the game still ends."""
    wild = str(Path(__file__).parents[1] / "plugins" / "wild.py")
    res = sim.simulate(
        "pagat", f"{wild}:wild_policy+rebuy={wild}:wild_rebuy,greedy,greedy", games=40, seed=2
    )
    bad = res.seats.group_by("seat").agg(pl.col("bad_answers").sum()).sort("seat")
    assert bad["bad_answers"][0] > 40 and bad["bad_answers"][1:].to_list() == [0, 0]
    assert res.games["winner"].null_count() == 0
    # a seat that always stops playing never melds: it never goes out by plays
    assert res.seats.filter(pl.col("seat") == 0)["rebuys"].sum() == 0  # declined every rebuy

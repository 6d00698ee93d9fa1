"""Moon through the game-independent seam (:class:`sim.game.GameSpec`): seat strings, function
tables, the protocol's kernel entry, replay, audit, text and bench give what the package's own
helpers give."""

from __future__ import annotations

import numpy as np

from sim.moon.batch import play_batch
from sim.moon.spec import SPEC
from sim.policies import parse_seats


def test_spec_plays_the_same_games_as_the_package():
    seats = parse_seats("count:margin=1,greedy,random", game=SPEC)
    assert [s.label for s in seats] == ["count:margin=1", "greedy", "random"]
    rules = SPEC.rules.make("pagat", max_hands_per_game=60)
    fns, params = SPEC.fn_tables(seats)
    outs = SPEC.empty_outputs(40, 60)
    SPEC.play_batch(rules.to_array(), 3, 7, 5, 40, fns, params, outs)
    mine = play_batch(rules, ["count:margin=1", "greedy", "random"], 7, 5, 40, hands_cap=60)
    assert all(np.array_equal(a, b) for a, b in zip(outs, mine, strict=True))
    ev = SPEC.replay(rules, seats, 7, 6)
    assert SPEC.audit(ev) == []
    assert ev[0]["seats"] == ["count:margin=1", "greedy", "random"]
    assert "Hand 1" in SPEC.to_text(ev, only_round=1)
    assert SPEC.detail_cap(rules) == 60 and SPEC.rule_prefix == "B"
    assert set(SPEC.policies) == {"random", "greedy", "count", "pimc"}


def test_spec_summary_and_bench():
    t = {
        "hands": 80,
        "redeals": 8,
        "moons_tried": 2,
        "moons_made": 1,
        "decisions": 900,
        "contracts": 72,
        "sets": 9,
    }
    f = SPEC.summary.figures(t, 10)
    assert f["mean_hands"] == 8.0 and f["set_rate"] == 0.125
    assert "hands/game" in SPEC.summary.lines(f)[0]
    for few in (1, 2):  # fewer games than the warm-up's eight: no write past the tables
        assert any("games/s" in x for x in SPEC.bench(SPEC.rules.make(), "count,count,count", few))
    lines = list(SPEC.bench(SPEC.rules.make(), "count,count,count", 500))
    assert any("games/s" in x for x in lines)
    floor = [x for x in lines if "floor kernel" in x]  # beside each thread count, as for Loba
    assert floor and all("kernel/floor" in x and "ns/hand/core" in x for x in floor)


def test_warm_compiles_the_fast_policies_and_leaves_the_search_ones_unless_asked():
    """``loba warm --game moon``: one game per policy but the search ones (a ``quick`` setting:
    ``pimc``, minutes to compile), which ``--search`` adds; listed by the registry."""
    from sim.runner import warm

    fast = [name for name, p in SPEC.policies.items() if not p.quick]
    search = [name for name, p in SPEC.policies.items() if p.quick]
    assert fast and search  # Moon has both kinds
    lines = []
    done = warm("moon", lines.append)
    assert [seat for _g, seat, _t in done if "+" not in seat] == fast
    assert all(line.startswith("moon ") and "ready in" in line for line in lines)

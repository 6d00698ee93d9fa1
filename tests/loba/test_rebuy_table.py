"""The learned rebuy rule ``rebuy=table:FILE``: literal tables -> packed bits -> decisions at
literal public views, the cells as analysis/rebuy.py records them, the seat label, refusals
(one sentence, exit code 2), identical play to ``always`` / ``never`` when the table says so,
and the paired comparison of rules (``rebuy-value --rebuy``)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import cli
import sim
from analysis.loba.rebuy import (
    _gap_label,
    compare_rebuy_rules,
    rebuy_value_policy,
    save_state_table,
    state_table,
)
from sim.loba import policies as P
from sim.loba import rebuy_table as T
from sim.loba.layout import HAND_W, MAX_SEATS, MEM_N, PARAMS_W, PUB, ST, H, M
from sim.policies import SeatError, parse_seat
from sim.setup import make_rules, portable_seat

BANDS = T.gap_band_order()  # 0-9, 10-24, 25-49, 50+


def write(tmp_path, rows, name="t.csv", rules_id="loba:pagat"):
    """A table file of ``rows`` (players_left, gap_band, rebuys_used, value)."""
    df = pl.DataFrame(
        rows,
        schema=["players_left", "gap_band", "rebuys_used", "value"],
        orient="row",
    )
    if rules_id is not None:
        df = df.with_columns(pl.lit(rules_id).alias("rules_id"))
    p = tmp_path / name
    if name.endswith(".parquet"):
        df.write_parquet(p)
    else:
        df.write_csv(p)
    return str(p)


def every_cell(value: float, max_rebuys: int = 2):
    return [
        (p, b, r, value) for p in range(2, MAX_SEATS + 1) for b in BANDS for r in range(max_rebuys)
    ]


# ------------------------------------------------------------------ bits
def test_cells_pack_into_bits_by_hand(tmp_path):
    """Cell (players_left, band, rebuys_used) is bit ((r * 4 + p - 2) * 4 + band): 53 to a
    slot; a bit is set where the value is not positive; positive and empty values set none."""
    assert (T.PL_N, T.BANDS_N, T.MAX_CELLS, T.MAX_REBUYS_USED) == (4, 4, 416, 25)
    path = write(
        tmp_path,
        [
            (3, "0-9", 0, -0.5),  # cell 4
            (2, "50+", 1, 0.0),  # cell 19: zero is not positive
            (5, "25-49", 3, -2.0),  # cell 62: slot 1, bit 9
            (4, "10-24", 0, 0.7),  # cell 9: rebuy, no bit
            (4, "0-9", 0, None),  # cell 8: no value, the fallback, no bit
        ],
    )
    values, rid = T.load_table(path)
    assert rid == "loba:pagat"
    assert list(values) == [f"decline{i}" for i in range(8)]
    assert values["decline0"] == float((1 << 4) | (1 << 19))
    assert values["decline1"] == float(1 << 9)
    assert all(values[f"decline{i}"] == 0.0 for i in range(2, 8))
    # the highest cell the slots hold: slot 7, bit 415 - 7 * 53 = 44 (exact in a float64)
    assert T.pack({415: False})[7] == float(1 << 44)
    assert int(T.pack({415: False})[7]) == 1 << 44


def test_gap_bands_match_the_analysis():
    for gap in range(0, 121):
        assert BANDS[T.gap_band(gap)] == _gap_label(gap) == T.gap_label(gap)
    assert T.gap_band(-1) == -1 and T.table_cell(3, -1, 0) == -1
    assert T.table_cell(1, 0, 0) == -1 and T.table_cell(MAX_SEATS + 1, 0, 0) == -1
    assert T.table_cell(2, 0, T.MAX_REBUYS_USED + 1) == -1


def rebuy_view(scores, status, rebuy_score, rebuys, params, seat=0):
    """The arguments of a rebuy decision of ``seat``: four seats with ``scores``, ``status``
    (ST.*), the score a rebuy gives and each seat's rebuys used; read-only as the engine hands
    them over."""
    R = make_rules().to_array()
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    pub[PUB.SEAT], pub[PUB.NP] = seat, 4
    pub[PUB.REBUY_SCORE] = rebuy_score
    for q in range(4):
        pub[PUB.SCORE + q], pub[PUB.STATUS + q], pub[PUB.REBUYS + q] = (
            scores[q],
            status[q],
            rebuys[q],
        )
    for q in range(4, MAX_SEATS):
        pub[PUB.STATUS + q] = ST.OUT
    pub[PUB.ACTIVE] = sum(s != ST.OUT for s in status)
    pub[PUB.RULES : PUB.RULES + len(R)] = R
    prm = np.zeros(PARAMS_W, dtype=np.float64)
    prm[P.REBUY_SLOT0 : P.REBUY_SLOT0 + 8] = params
    acts = np.array([[0] * 7, [1] + [0] * 6], dtype=np.int16)
    seen = [
        np.zeros(HAND_W, dtype=np.int8)[:53],
        np.zeros((0, M.SIZE), dtype=np.int16),
        np.zeros(0, dtype=np.int16),
        pub,
        prm,
        acts,
        np.zeros((0, H.SIZE), dtype=np.int16),
    ]
    for a in seen:
        a.flags.writeable = False
    hand, melds, pile, pub_, prm_, acts_, hist = seen
    rng = np.zeros(2, dtype=np.uint64)
    mem = np.zeros(MEM_N, dtype=np.float64)
    return (hand, melds, pile, pub_, prm_, rng, acts_, 2, hist, mem)


def test_decisions_at_literal_views(tmp_path):
    """Seat 0 went over (105); seat 1 (30) leads, seat 2 (45) sets the rebuy score, seat 3 is
    out: three players left, gap 45 - 30 = 15 (band 10-24)."""
    path = write(
        tmp_path,
        [
            (3, "10-24", 0, -0.2),  # decline
            (3, "10-24", 1, 0.4),  # rebuy
            (3, "0-9", 0, -1.0),  # decline
            (3, "50+", 0, 1.0),  # rebuy
        ],
    )
    prm = list(T.load_table(path)[0].values())
    over, act, out = ST.OVER, ST.ACTIVE, ST.OUT

    def decide(scores, status, rebuy_score, rebuys):
        return P.rebuy_table(*rebuy_view(scores, status, rebuy_score, rebuys, prm))

    base = ([105, 30, 45, 0], [over, act, act, out], 45)
    assert decide(*base, [0, 0, 0, 0]) == 0  # (3, 10-24, 0): decline
    assert decide(*base, [1, 0, 0, 0]) == 1  # (3, 10-24, 1): rebuy
    assert decide(*base, [1, 0, 2, 0]) == 1  # only the decider's own rebuys count
    # the leader at 40: gap 5 (0-9), decline; the leader at -5: gap 50 (50+), rebuy; seat 3
    # (out, its score 0 in the view) is never the leader
    assert decide([105, 40, 45, 0], [over, act, act, out], 45, [0] * 4) == 0
    assert decide([105, -5, 45, 0], [over, act, act, out], 45, [0] * 4) == 1
    # a seat that rebought before this decision (still OVER, at the rebuy score) is no leader,
    # and a seat over the limit still counts among the players left
    assert decide([105, 30, 45, 45], [over, act, act, over], 45, [0] * 4) == 1  # 4 left: absent
    # a cell the table lacks: the fallback, rebuy (two players left, gap 0)
    assert decide([105, 45, 0, 0], [over, act, out, out], 45, [0] * 4) == 1
    # an empty table: always
    zero = [0.0] * 8
    assert P.rebuy_table(*rebuy_view(*base, [0] * 4, zero)) == 1


def test_kernel_cells_are_the_analysis_cells(tmp_path):
    """Real games through the one-game handle: at every rebuy decision the cell is computed
    as analysis/rebuy.py records it (players still in, rebuy score minus the lowest score under
    the limit, rebuys used); each seat on a checkerboard table rebuys exactly where the table
    says so."""
    from sim.loba.play import Game

    rows = [
        (p, b, r, 1.0 if (p + i + r) % 2 else -1.0)
        for p in range(2, MAX_SEATS + 1)
        for i, b in enumerate(BANDS)
        for r in range(2)
    ]
    path = write(tmp_path, rows)
    says = {(p, b, r): v > 0 for p, b, r, v in rows}
    rules = make_rules("pagat")
    seats = ",".join([f"greedy+rebuy=table:{path}"] * 4)
    seen = {True: 0, False: 0}
    for gi in range(40):
        g = Game(rules, seats, seed=5, index=gi, record_rounds=False)
        while g.play_to_rebuy():
            deciders = g.rebuy_decisions()
            if deciders:
                active = [q for q in range(g.n) if g.status(q) == ST.ACTIVE]
                over = [q for q in active if g.score(q) >= rules.elimination_score]
                safe = [g.score(q) for q in active if q not in over]
                gap = max(safe) - min(safe)
                want = {q: says[(len(active), _gap_label(gap), g.rebuys(q))] for q in deciders}
                before = {q: g.rebuys(q) for q in deciders}
            g.step()
            if deciders:
                for q in deciders:
                    assert (g.rebuys(q) == before[q] + 1) == want[q]
                    seen[want[q]] += 1
    assert seen[True] > 5 and seen[False] > 5


# ------------------------------------------------------------------ seats
def test_label_round_trip_and_portable_path(tmp_path, monkeypatch):
    path = write(tmp_path, every_cell(1.0))
    monkeypatch.chdir(tmp_path)
    for text in ("greedy+rebuy=table:t.csv", "hold:patience=2+rebuy=table:t.csv"):
        s = parse_seat(text)
        assert s.label == text and parse_seat(s.label).label == text
        a = s.addon("rebuy")
        assert (a.ref, a.path, a.rules_id) == ("table:t.csv", "t.csv", "loba:pagat")
        assert not a.plugin
        assert portable_seat(s) == text.replace("table:t.csv", f"table:{path}")
        assert parse_seat(portable_seat(s)).param_array().tolist() == s.param_array().tolist()
    assert parse_seat(" greedy + rebuy = table: t.csv ").label == "greedy+rebuy=table:t.csv"


def test_streamed_run_records_the_absolute_path(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, every_cell(-1.0))
    monkeypatch.chdir(tmp_path)
    code = cli.main(["simulate", "--seats", "greedy+rebuy=table:t.csv,greedy,greedy",
                     "--games", "30", "--seed", "4", "--out", "run"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["seats"][0] == "greedy+rebuy=table:t.csv"
    assert man["seat_specs"][0] == f"greedy+rebuy=table:{path}"
    seats = pl.read_parquet(tmp_path / "run" / "seats.parquet")
    assert seats.filter(pl.col("seat") == 0)["rebuys"].sum() == 0  # the table says never


REFUSALS = [
    ("missing.csv", None, "Rebuy table 'missing.csv' does not exist."),
    ("sub", None, "is a directory"),
    ("junk.parquet", b"not parquet", "cannot be read as a CSV, JSON or Parquet table"),
    ("by_players.csv", "players_left,value\n3,0.5\n", "lacks the columns gap_band, rebuys_used"),
    ("other.csv", "other rules", "was measured under loba:pagat(max_rebuys=1), not loba:pagat"),
    ("mixed.csv", "mixed", "mixes decisions of several rule sets"),
    ("bits.csv", "bits", "the rule's 8 parameter slots hold 416 cells, rebuys_used 0 to 25"),
    ("band.csv", "band", "gap_band must be one of 0-9, 10-24, 25-49, 50+"),
    ("twice.csv", "twice", "lists the cell players_left=3, gap_band=0-9, rebuys_used=0 twice"),
    ("left.csv", "left", "players_left must be a whole number from 2 to 5"),
]


def _refused_file(tmp_path, name, content):
    p = tmp_path / name
    if name == "sub":
        p.mkdir()
    elif isinstance(content, bytes):
        p.write_bytes(content)
    elif content == "other rules":
        return write(tmp_path, every_cell(1.0), name, "loba:pagat(max_rebuys=1)")
    elif content == "mixed":
        df = pl.DataFrame(
            {
                "players_left": [3, 4],
                "gap_band": ["0-9", "0-9"],
                "rebuys_used": [0, 0],
                "value": [1.0, 1.0],
                "rules_id": ["loba:pagat", "loba:rami"],
            }
        )
        df.write_csv(p)
    elif content == "bits":
        return write(tmp_path, [(3, "0-9", 26, 1.0)], name)
    elif content == "band":
        return write(tmp_path, [(3, "0-10", 0, 1.0)], name)
    elif content == "twice":
        return write(tmp_path, [(3, "0-9", 0, 1.0), (3, "0-9", 0, -1.0)], name)
    elif content == "left":
        return write(tmp_path, [(1, "0-9", 0, 1.0)], name)
    elif content is not None:
        p.write_text(content)
    return name if content is None and name != "sub" else str(p)


@pytest.mark.parametrize("name, content, needle", REFUSALS)
def test_refusals_are_one_sentence_and_exit_2(tmp_path, capsys, monkeypatch, name, content, needle):
    monkeypatch.chdir(tmp_path)
    path = _refused_file(tmp_path, name, content)
    code = cli.main(["simulate", "--seats", f"greedy+rebuy=table:{path},greedy", "--games", "3"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert needle in err and "Traceback" not in err
    assert err.startswith("Error: ") and err.count("\n") == 1 and err.rstrip().endswith(".")


def test_table_without_a_path_is_refused():
    with pytest.raises(SeatError, match="reads a file: write table:PATH"):
        parse_seat("greedy+rebuy=table")
    with pytest.raises(SeatError, match="reads a file: write table:PATH"):
        parse_seat("greedy+rebuy=table:")


def test_a_table_without_rules_is_not_checked(tmp_path):
    """A table printed with --format csv records no rules: it is taken under any rules."""
    path = write(tmp_path, every_cell(1.0), rules_id=None)
    assert parse_seat(f"greedy+rebuy=table:{path}").addon("rebuy").rules_id is None
    res = sim.simulate("rami", f"greedy+rebuy=table:{path},greedy", games=5, seed=1)
    assert res.games.height == 5


# ------------------------------------------------------------------ play
@pytest.mark.parametrize("value, rule", [(1.0, "always"), (-1.0, "never")])
def test_a_table_that_says_always_or_never_plays_as_that_rule(tmp_path, value, rule):
    """Every cell positive plays exactly as rebuy=always, every cell negative as never: the
    same games, the same seats' results."""
    path = write(tmp_path, every_cell(value), name="t.parquet")
    field = "hold:patience=2,greedy+rebuy=if_opponents:k=1,careful"
    a = sim.simulate("pagat", f"greedy+rebuy=table:{path},{field}", games=300, seed=11)
    b = sim.simulate("pagat", f"greedy+rebuy={rule},{field}", games=300, seed=11)
    assert a.games.equals(b.games)
    assert a.seats.drop("policy").equals(b.seats.drop("policy"))
    rebuys = a.seats.filter(pl.col("seat") == 0)["rebuys"].sum()
    assert (rebuys > 0) if rule == "always" else (rebuys == 0)


def test_saved_state_table_drives_the_rule(tmp_path):
    """rebuy-value --mode state --save writes the table with its rules id; the rule reads it
    back and runs under those rules only."""
    out = tmp_path / "rebuy.csv"
    assert cli.main(["rebuy-value", "--mode", "state", "--games", "4", "--reps", "1",
                     "--seed", "2", "--save", str(out), "--format", "csv"]) == 0  # fmt: skip
    t = pl.read_csv(out)
    assert {"players_left", "gap_band", "rebuys_used", "value", "ci_low", "rules_id"} <= set(
        t.columns
    )
    assert t["rules_id"].unique().to_list() == ["loba:pagat"] and t.height > 0
    values, rid = T.load_table(str(out))
    declines = sum(bin(int(v)).count("1") for v in values.values())
    assert rid == "loba:pagat" and declines == int((t["value"] <= 0).sum())
    s = f"greedy+rebuy=table:{out}"
    assert sim.simulate("pagat", f"{s},greedy,greedy", games=20, seed=3).games.height == 20
    with pytest.raises(SeatError, match="was measured under loba:pagat, not"):
        sim.simulate("pagat(elimination_score=151)", f"{s},greedy", games=2)
    # the Python side: the same table, JSON and Parquet too
    dec = pl.DataFrame(
        {
            "players_left": [3, 3, 4],
            "gap": [5, 7, 60],
            "rebuys_used": [0, 0, 1],
            "value": [-1.0, -2.0, 3.0],
            "win_gain": [0.0, 0.0, 0.1],
            "rules_id": ["loba:pagat"] * 3,
        }
    )
    st = state_table(dec, "greedy,greedy,greedy")
    assert st.select("players_left", "gap_band", "rebuys_used", "cases").rows() == [
        (3, "0-9", 0, 2),
        (4, "50+", 1, 1),
    ]
    for name in ("t.json", "t.parquet"):
        save_state_table(dec, tmp_path / name, "greedy,greedy,greedy")
        values, rid = T.load_table(str(tmp_path / name))
        assert values["decline0"] == float(1 << T.table_cell(3, 0, 0)) and rid == "loba:pagat"


# ------------------------------------------------------------------ rules compared
def test_compare_rules_pairs_each_against_the_candidate():
    """always against never is the policy-level rebuy value; a rule against itself differs in
    no game."""
    r = compare_rebuy_rules("pagat", "greedy,greedy,greedy", "always", ["never", "always"],
                            games=400, seed=2, seat=1)  # fmt: skip
    assert r.seats["always"][1] == "greedy+rebuy=always" and r.against == ["never", "always"]
    ref = rebuy_value_policy("pagat", "greedy,greedy,greedy", games=400, seed=2, seat=1).table
    vs = r.table.filter(pl.col("against") == "never")
    for col in ("difference", "paired_low", "paired_high", "unpaired_low", "games"):
        assert vs[col].to_list() == pytest.approx(ref[col].to_list())
    assert vs["rule"].to_list() == pytest.approx(ref["always"].to_list())
    same = r.table.filter(pl.col("against") == "always")
    assert same["games_that_differ"].to_list() == [0, 0]
    assert same["difference"].to_list() == [0.0, 0.0]


def test_cli_rebuy_rule_comparison(tmp_path, capsys):
    path = write(tmp_path, every_cell(-1.0))
    code = cli.main(["rebuy-value", "--seats", "careful,greedy,greedy", "--games", "300",
                     "--rebuy", f"table:{path}", "--against", "never,always"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert f"seat 0 on rebuy=table:{path} instead of rebuy=never got the same result" in out
    assert "instead of rebuy=always changes its net result by" in out
    code = cli.main(["rebuy-value", "--seats", "greedy,greedy,greedy", "--games", "50",
                     "--rebuy", "never", "--format", "json"])  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["against"] for r in rows[::2]] == ["always", "never", "if_opponents"]
    code = cli.main(["rebuy-value", "--against", "never", "--games", "5"])
    assert code == 2 and "--against needs --rebuy" in capsys.readouterr().err
    code = cli.main(["rebuy-value", "--mode", "state", "--games", "1", "--rebuy", "never"])
    err = capsys.readouterr().err
    assert code == 0 and "--rebuy" in err and "policy mode only" in err


def test_policies_lists_the_table_rule(capsys):
    assert cli.main(["policies", "--game", "loba"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.split()[:1] == ["table"])
    assert "PATH (a file)" in row

"""Inputs that were once read silently wrong (exit 0) are now refused in one sentence, exit 2.

Each case is a command line and a piece of the sentence it must print; the files they need are
written into a temporary folder first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runs_util import run_cli

ROOT = Path(__file__).parents[2]

MOON_LOBA_SEATS = (ROOT / "examples" / "moon_play.toml").read_text().replace(
    'seats = ["count", "count", "count"]', 'seats = ["hold", "hold", "hold"]'
)
FILES = {
    "house_nosuch.toml": 'preset = "pagat"\nseats = ["greedy", "nosuch", "greedy"]\n',
    "moon_loba_seats.toml": MOON_LOBA_SEATS,
    "nested.jsonl": "[" * 100_000 + "]" * 100_000 + "\n",
    "taken_nowhere.toml": 'rules = "pagat"\ndealer = 2\nto_move = 0\nphase = "play"\n'
    'hands = ["4H 5H 6H 7H 8H 3S 3D 3C KD 9C", "2C 4C 6C 8C 10C QC 2D 4D 6D",'
    ' "AS 3H 5S 7S 9S JS KS AD 5D"]\ntaken = "9C"\npile = "8D"\n',
}

CASES = [
    (["simulate", "--rules", "", "--games", "5"], "empty"),
    (["rebuy-value", "--seats", "", "--games", "2"], "empty"),
    (["simulate", "--seats", "hold:patience=1:patience=2,greedy", "--games", "5"], "twice"),
    (["sweep", "--vary", "max_rebuys=0,,1", "--games", "2", "--out", "@out"], "empty value"),
    (["check-trick", "--trump", "6", "--led", "", "--hand", "5-5"], "empty"),
    (["check-trick", "--trump", "6", "--led", "6-4", "--hand",
      "5-5,6-1,3-2,1-1,2-2,3-3,4-4,0-0"], "1 to 7 tiles"),  # fmt: skip
    (["tune", "hold:patience=3", "--param", "patience=0..5", "--games", "8", "--trials", "2"],
     "both fixed in the seat 'hold:patience=3'"),  # fmt: skip
    (["rules", "--rules", "@house_nosuch.toml"], "'seats': unknown policy 'nosuch'"),
    (["moves", "@moon_loba_seats.toml"], "'seats': Unknown policy 'hold'"),
    (["audit", "@nested.jsonl"], "nests too deep"),
    (["moves", "@taken_nowhere.toml"], "'taken': no play this turn can put 9C on the table"),
]


@pytest.mark.parametrize("argv, says", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_refused_in_one_sentence(argv, says, tmp_path, capsys):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    args = [str(tmp_path / a[1:]) if a.startswith("@") else a for a in argv]
    code, out, err = run_cli(capsys, *args)
    assert code == 2, (args, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], err

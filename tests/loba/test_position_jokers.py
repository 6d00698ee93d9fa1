"""[A16]-[A18] A table escalera in a position file reads as ``loba check-meld`` reads it,
bare jokers included: every escalera of every preset (every suit; runs of the preset's
minimum length and longer; 1 up to the preset's jokers per escalera, in every set of
positions), written with bare jokers, with every joker's card, and mixed (one joker written
with its card, the others bare). Before, bare jokers were read under the default rules, so a
rami escalera with two bare jokers was misread (``5S JK JK 8S``: no lay-off offered)."""

from __future__ import annotations

import itertools

import pytest

from sim.loba.cards import card_str, parse_card
from sim.loba.melds import check_meld
from sim.loba.position import PositionError, _meld_text, _table
from sim.loba.rules import SPEC

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def _cases(preset: str):
    rules = SPEC.make(preset)
    for suit in "SH":
        for length in (rules.escalera_min, rules.escalera_min + 2):
            for lo in range(0, 13 - length + 1, 3):
                run = [f"{RANKS[lo + i]}{suit}" for i in range(length)]
                for k in range(1, rules.jokers_per_escalera + 1):
                    for js in itertools.combinations(range(length), k):
                        yield rules, run, js


CASES = [(p, run, js) for p in SPEC.presets for _, run, js in _cases(p)]


@pytest.mark.parametrize("preset", sorted(SPEC.presets))
def test_a16_a18_table_escaleras_read_as_check_meld_reads_them(preset):
    rules = SPEC.make(preset)
    checked = 0
    for _, run, js in _cases(preset):
        bare = ["JK" if i in js else c for i, c in enumerate(run)]
        ok, text = check_meld(bare, rules)
        if not ok:  # e.g. jokers side by side where the rules forbid it
            with pytest.raises(PositionError):
                _table([{"cards": " ".join(bare)}], rules, 3)
            continue
        want = text.removeprefix("escalera ")
        read = want.split()
        written = " ".join(read)  # every joker with its card
        mixed = " ".join(r if r.startswith("JK(") and i == js[0] else b
                         for i, (r, b) in enumerate(zip(read, bare, strict=True)))  # fmt: skip
        for form in (" ".join(bare), written, mixed):
            (m,) = _table([{"cards": form}], rules, 3)
            assert _meld_text(m.cards, m.stands) == want, (preset, form)
        checked += 1
    assert checked >= 20


def test_a16_a17_a_written_reading_that_contradicts_the_bare_ones_is_refused():
    rules = SPEC.make("rami")
    with pytest.raises(PositionError, match="contradict"):
        _table([{"cards": "5S JK(9S) JK 8S"}], rules, 3)
    assert card_str(parse_card("5S")) == "5S"

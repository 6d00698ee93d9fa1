"""Random play-outs with invariant checks after every turn (STYLE.md 9).

Checked after every step of the kernel, independently of it: every card accounted for; every
table meld valid by the oracle (sim/loba/oracle.py); melds only grow and jokers never leave the
table within a round ([A19], [A23]); hand sizes match the cards held; and at each round's end
the scores add up ([A27]-[A30]), the pot equals what was paid ([A4], [A30]) and, at the end,
the winner holds it ([A33]); every game ends.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from sim.loba import oracle
from sim.loba.cards import JOKER, card_value
from sim.loba.layout import PH, ST, G
from sim.loba.play import Game
from sim.rules import RuleSet

MAX_STEPS = 1_000_000


def _table_problems(game: Game, rules: RuleSet) -> list[str]:
    out = []
    for m in game.melds():
        if m["kind"] == "escalera":
            esc = oracle.escalera_window(m["suit"], m["lo"], m["hi"], m["joker_positions"])
            why = oracle.escalera_problem(esc, rules)
        else:
            counts = Counter(c // 13 for c in m["cards"])
            why = oracle.pierna_problem(m["rank"], [counts.get(s, 0) for s in range(4)], rules)
        if why:
            out.append(f"{m}: {why}")
    return out


def hand_points(counts, rules) -> int:
    return sum(
        int(counts[c]) * card_value(c, rules.ace_value, rules.joker_value) for c in range(53)
    )


def check_game(game: Game) -> dict:
    """Play ``game`` to its end, checking invariants after every step. Returns counters."""
    rules = game.rules
    expect = np.array([rules.decks] * 52 + [rules.jokers])
    stats = Counter()
    prev_table = None
    prev_phase = game.phase
    scores_before = game.scores()
    active_before = [game.status(q) == ST.ACTIVE for q in range(game.n)]
    placed_before = None
    for _ in range(MAX_STEPS):
        if game.done:
            break
        if game.phase == PH.TURN:
            seat = game.current
            placed_before = bool(game.st.s[seat, 5])
        game.step()
        stats["steps"] += 1
        census = game.card_census()
        assert np.array_equal(census, expect), f"cards not conserved: {census - expect}"
        for q in range(game.n):
            assert game.hand_size(q) == int(game.hand_counts(q).sum())
        probs = _table_problems(game, rules)
        assert not probs, probs
        table = [sorted(m["cards"]) for m in game.melds()]
        if prev_phase == PH.TURN and prev_table is not None:
            assert len(table) >= len(prev_table)
            for a, b in zip(prev_table, table, strict=False):
                assert not (Counter(a) - Counter(b)), "a table meld lost cards [A19]"
            jokers_now = sum(t.count(JOKER) for t in table)
            assert jokers_now >= sum(t.count(JOKER) for t in prev_table), "[A23]"
        round_ended = game.phase in (PH.DEAL, PH.DONE) and prev_phase == PH.SETTLE
        if round_ended:
            stats["rounds"] += 1
            out = int(game.st.g[G.OUT])
            after = game.scores()
            if out < 0:
                stats["void"] += 1
                assert after == scores_before, "a void round changed scores [A14]"
            else:
                assert game.hand_size(out) == 0, "the seat out still holds cards [A25]"
                raw = {}
                for q in range(game.n):
                    if not active_before[q]:
                        assert after[q] == scores_before[q]
                        continue
                    if q == out:
                        delta = -rules.one_turn_bonus if not placed_before else 0
                        stats["bonus"] += int(not placed_before)
                    else:
                        delta = hand_points(game.hand_counts(q), rules)
                    new = scores_before[q] + delta
                    if rules.score_floor is not None:
                        new = max(new, rules.score_floor)
                    raw[q] = new
                survivors = [v for q, v in raw.items() if v < rules.elimination_score]
                for q, v in raw.items():
                    if v < rules.elimination_score:
                        assert after[q] == v, f"seat {q}: {after[q]} != {v} [A27]"
                    elif game.status(q) == ST.OUT:
                        assert after[q] == v
                        stats["eliminated"] += 1
                    else:  # rebought [A30]
                        assert after[q] == max(survivors), "rebuy score [A30]"
                        assert len(survivors) >= 2 or rules.rebuy_with_one_survivor
                        stats["rebuys"] += 1
            paid = sum(game.paid(q) for q in range(game.n))
            assert game.pot == paid, "pot != stakes + rebuys [A4][A30]"
            scores_before = after
            active_before = [game.status(q) == ST.ACTIVE for q in range(game.n)]
        prev_phase = game.phase
        prev_table = table if game.phase == PH.TURN else None
    assert game.done, "the game did not end"
    assert game.round <= rules.max_rounds_per_game
    if game.winner is not None:
        assert sum(game.status(q) == ST.ACTIVE for q in range(game.n)) == 1
        assert int(game.st.s[game.winner, 9]) == game.pot  # [A33]
    stats["games"] += 1
    return stats


def run(rules, seats: str, games: int, seed: int) -> Counter:
    total = Counter()
    for i in range(games):
        total += check_game(Game(rules, seats, seed=seed, index=i))
    return total

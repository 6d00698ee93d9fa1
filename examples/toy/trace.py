"""Toy Tricks traces: replay one game with recording on, decode its events, and word them.

Schema (one object per event; cards written ``"5H"``, seats 0..n-1, hands and tricks from 1)::

    game        game seed rules_id rules{knob: value} seats[n] players first_leader
    deal        hand leader hands[n][3]
    play        hand trick seat card
    trick       hand trick winner points
    score       hand scores[n]             (the scores after the hand)
    bad_answer  hand seat answer           (an out-of-range answer, read as the first option)
    end         hand winner hands reason   (winner null if unfinished; reason target|cap)
"""

from __future__ import annotations

import numpy as np

from sim.events import EV, TC, Trace, recorded

from .layout import END, HAND_SIZE, MAX_SEATS, E, card_str

END_WORDS = {END.NONE: "none", END.TARGET: "target", END.CAP: "cap"}
TRACE_EVENTS = 4096


def decode(evs, pay, meta: dict) -> list[dict]:
    """Event rows + payload -> dicts. ``meta``: game, seed, rules_id, rules, seats."""
    out: list[dict] = []
    n = len(meta["seats"])
    for row in evs:
        typ, h, q = int(row[EV.TYPE]), int(row[EV.ROUND]), int(row[EV.SEAT])
        a, b = int(row[EV.A]), int(row[EV.B])
        p = [int(x) for x in pay[int(row[EV.OFF]) : int(row[EV.OFF]) + int(row[EV.LEN])]]
        if typ == E.START:
            out.append({"type": "game", **meta, "players": n, "first_leader": a})
        elif typ == E.DEAL:
            hands = [[card_str(c) for c in p[k * HAND_SIZE : (k + 1) * HAND_SIZE]]
                     for k in range(n)]  # fmt: skip
            out.append({"type": "deal", "hand": h, "leader": q, "hands": hands})
        elif typ == E.PLAY:
            out.append({"type": "play", "hand": h, "trick": b + 1, "seat": q, "card": card_str(a)})
        elif typ == E.TRICK:
            out.append({"type": "trick", "hand": h, "trick": a + 1, "winner": q, "points": b})
        elif typ == E.SCORE:
            out.append({"type": "score", "hand": h, "scores": p})
        elif typ == E.BAD:
            out.append({"type": "bad_answer", "hand": h, "seat": q, "answer": a})
        elif typ == E.END:
            out.append({"type": "end", "hand": h, "winner": None if q < 0 else q, "hands": b,
                        "reason": END_WORDS[a]})  # fmt: skip
    return out


def replay(rules, seats, seed: int, game: int) -> list[dict]:
    """Game ``game`` of run (rules, seats, seed), played again by the batch kernel with
    recording on, decoded. ``seats``: parsed seats (:func:`sim.policies.parse_seats`)."""
    from sim.policies import parse_seats

    from .kernel import run_games
    from .spec import SPEC

    seats = parse_seats(seats, game=SPEC) if isinstance(seats, str) else list(seats)
    n = len(seats)
    rules.check_players(n)
    fns, params = SPEC.fn_tables(seats)
    outs = SPEC.empty_outputs(1)
    cap = TRACE_EVENTS
    while True:
        tr = Trace(np.zeros((cap, EV.SIZE), np.int32), np.zeros(8 * cap, np.int16),
                   np.zeros(TC.SIZE, np.int64))  # fmt: skip
        run_games(rules.to_array(), n, np.uint64(seed), int(game), 1, fns[0], params, *outs, tr)
        evs, pay, overflow = recorded(tr)
        if not overflow:
            break
        cap *= 4
    meta = {"game": int(game), "seed": int(seed), "rules_id": rules.id,
            "rules": rules.as_dict(), "seats": [s.label for s in seats]}  # fmt: skip
    return decode(evs, pay, meta)


def to_text(events, only_round: int | None = None) -> str:
    """A readable account, a line per event (a trick on one line); ``only_round``: that hand."""
    lines: list[str] = []
    trick: list[str] = []
    for e in events:
        t = e["type"]
        if only_round is not None and e.get("hand", only_round) != only_round and t != "end":
            continue
        if t == "game":
            lines.append(
                f"Toy Tricks, {e['rules_id']}, seed {e['seed']} game {e['game']}: "
                + ", ".join(f"seat {q} {s}" for q, s in enumerate(e["seats"]))
                + f"; first leader seat {e['first_leader']}."
            )
        elif t == "deal":
            lines.append(f"Hand {e['hand']} (seat {e['leader']} leads):")
            lines += [f"  seat {q}: {' '.join(h)}" for q, h in enumerate(e["hands"])]
        elif t == "play":
            trick.append(f"{e['seat']}:{e['card']}")
        elif t == "trick":
            lines.append(f"  trick {e['trick']}: {' '.join(trick)} -> seat {e['winner']}"
                         f" (+{e['points']})")  # fmt: skip
            trick = []
        elif t == "score":
            lines.append(f"  scores {e['scores']}")
        elif t == "bad_answer":
            lines.append(f"  seat {e['seat']} answered {e['answer']}: read as the first option")
        elif t == "end":
            if e["winner"] is None:
                lines.append(f"Unfinished after {e['hands']} hands (cap).")
            else:
                lines.append(f"Seat {e['winner']} wins after {e['hands']} hands.")
    return "\n".join(lines) + "\n"


assert MAX_SEATS * HAND_SIZE <= 16  # [T1] a deal fits the deck

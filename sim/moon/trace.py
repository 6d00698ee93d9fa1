"""Moon event traces: decode the kernel's event rows into JSON-ready dicts, and into text.

A game is fully determined by (rules, policies, seed, game index): :func:`sim.moon.play.record`
plays it again with recording on; :func:`decode` turns its event rows (:data:`~.layout.EV`,
:data:`~.layout.E`) into one dict per event. Tiles are written in notation, high end first
(``"6-4"``); seats are 0..2; hands and tricks are numbered from 1.

Schema (one object per event; fields may be added, never renamed; docs/traces.md says what
each field means)::

    game     game seed rules_id rules{knob: value} seats[3] first_bidder
    deal     hand opener hands[3][7] widow
    bid      hand seat bid                 (4 | 5 | 6 | 7 | 21 | "pass")
    redeal   hand                          (all passed: the hand is void, [B4])
    widow    hand seat tile                (the bidder takes the widow)
    discard  hand seat tile                (face down, dead for the hand)
    trump    hand seat trump               ("0".."6" | "doubles" | "no_trump")
    play     hand trick seat tile
    trick    hand trick winner
    score    hand bidder bid tricks made deltas[3] scores[3]   (tricks: the bidder's)
    bad_answer hand seat decision answer   (an out-of-range answer, read as the first option)
    end      hand winner hands reason      (winner null if unfinished; reason target|moon|cap)
    position hand opener phase to_move hands[3] widow widow_taken bids trump discard tricks
             current scores                (a replay from a set-up hand: right after the
                                            header, instead of its deal; :func:`position_event`)
    stop     hand reason                   (a replay from a position stopped at the end of its
                                            hand, not of the game)

The order of ``widow`` / ``discard`` / ``trump`` is the order they happened: widow, discard,
trump by default; trump, widow, discard under ``trump_before_widow`` ([B5]).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .layout import DEC, END_LABELS, EV, HAND_SIZE, MAX_SEATS, PASS, TRUMP_NAMES, E
from .tiles import tile_str

DECISION_NAMES = {
    DEC.BID: "bid",
    DEC.DECLARE: "declare",
    DEC.TRUMP: "trump",
    DEC.DISCARD: "discard",
    DEC.PLAY: "play",
}


def decode_arrays(evs, pay, meta: dict) -> list[dict]:
    """Event rows + payload -> dicts. ``meta``: game, seed, rules_id, rules, seats."""
    out: list[dict] = []
    for row in evs:
        typ = int(row[EV.TYPE])
        h = int(row[EV.ROUND])
        q = int(row[EV.SEAT])
        a, b, c = int(row[EV.A]), int(row[EV.B]), int(row[EV.C])
        p = [int(x) for x in pay[int(row[EV.OFF]) : int(row[EV.OFF]) + int(row[EV.LEN])]]
        if typ == E.START:
            out.append({"type": "game", **meta, "first_bidder": a})
        elif typ == E.DEAL:
            hands = [
                [tile_str(t) for t in p[k * HAND_SIZE : (k + 1) * HAND_SIZE]]
                for k in range(MAX_SEATS)
            ]
            out.append(
                {"type": "deal", "hand": h, "opener": q, "hands": hands, "widow": tile_str(p[-1])}
            )
        elif typ == E.BID:
            out.append({"type": "bid", "hand": h, "seat": q, "bid": "pass" if a == PASS else a})
        elif typ == E.REDEAL:
            out.append({"type": "redeal", "hand": h})
        elif typ == E.WIDOW:
            out.append({"type": "widow", "hand": h, "seat": q, "tile": tile_str(a)})
        elif typ == E.DISCARD:
            out.append({"type": "discard", "hand": h, "seat": q, "tile": tile_str(a)})
        elif typ == E.TRUMP:
            out.append({"type": "trump", "hand": h, "seat": q, "trump": TRUMP_NAMES[a]})
        elif typ == E.PLAY:
            out.append({"type": "play", "hand": h, "trick": b + 1, "seat": q, "tile": tile_str(a)})
        elif typ == E.TRICK:
            out.append({"type": "trick", "hand": h, "trick": a + 1, "winner": q})
        elif typ == E.SCORE:
            out.append(
                {
                    "type": "score",
                    "hand": h,
                    "bidder": q,
                    "bid": a,
                    "tricks": b,
                    "made": bool(c),
                    "deltas": p[:MAX_SEATS],
                    "scores": p[MAX_SEATS:],
                }
            )
        elif typ == E.BAD:
            out.append(
                {
                    "type": "bad_answer",
                    "hand": h,
                    "seat": q,
                    "decision": DECISION_NAMES.get(a, str(a)),
                    "answer": b,
                }
            )
        elif typ == E.END:
            out.append(
                {
                    "type": "end",
                    "hand": h,
                    "winner": None if q < 0 else q,
                    "hands": b,
                    "reason": END_LABELS[a],
                }
            )
    return out


def decode(game) -> list[dict]:
    """The recorded events of a :class:`~.play.Game` as dicts (the schema above)."""
    evs, pay, overflow = game.trace_arrays()
    if overflow:
        raise ValueError("The trace overflowed its buffer: record the game with play.record().")
    meta = {
        "game": game.index,
        "seed": game.seed,
        "rules_id": game.rules.id,
        "rules": game.rules.as_dict(),
        "seats": list(game.labels),
    }
    return decode_arrays(evs, pay, meta)


def position_event(pos) -> dict:
    """The ``position`` event that starts a trace replayed from a set-up hand
    (:mod:`.position`): the hand's number and opener, the phase and the seat to move, every
    seat's tiles now, the widow and whether it was taken, the calls so far (from the opener),
    trump and the dead tile once there, the tricks done and the one under way (each with its
    leader, tiles in play order) and the scores before the hand."""

    def trick(tr) -> dict:
        return {"leader": tr.leader, "tiles": [tile_str(t) for t in tr.tiles]}

    return {
        "type": "position",
        "hand": pos.hand,
        "opener": pos.opener,
        "phase": pos.phase,
        "to_move": pos.to_move,
        "hands": [[tile_str(t) for t in sorted(h)] for h in pos.hands],
        "widow": tile_str(pos.widow),
        "widow_taken": pos.widow_taken,
        "bids": ["pass" if b == PASS else b for b in pos.bids],
        "trump": None if pos.trump < 0 else TRUMP_NAMES[pos.trump],
        "discard": None if pos.discard < 0 else tile_str(pos.discard),
        "tricks": [trick(tr) for tr in pos.tricks],
        "current": None if pos.current is None else trick(pos.current),
        "scores": list(pos.scores),
    }


def to_jsonl(events: Iterable[dict]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def _trump_words(name: str) -> str:
    return {"doubles": "doubles trump", "no_trump": "no trump"}.get(name, f"{name}s trump")


def _call_words(seat: int, bid) -> str:
    if bid == "pass":
        return f"seat {seat} passes"
    return f"seat {seat} bids {bid}" + (" (moon)" if bid == 21 else "")


def _position_lines(e: dict) -> tuple[list[str], list[str]]:
    """A ``position`` event as lines, and the trick under way as play notes."""
    lines = [
        f"Hand {e['hand']} (seat {e['opener']} bids first), from a set-up position at phase"
        f" {e['phase']}, seat {e['to_move']} to move:"
    ]
    for q, h in enumerate(e["hands"]):
        lines.append(f"  seat {q}: {' '.join(h)}")
    lines.append(f"  widow: {e['widow']}" + (" (taken)" if e["widow_taken"] else ""))
    if e["bids"]:
        calls = (_call_words((e["opener"] + k) % 3, b) for k, b in enumerate(e["bids"]))
        lines.append("  " + ", ".join(calls))
    if e["discard"] is not None:
        lines.append(f"  the bidder discarded {e['discard']} face down")
    if e["trump"] is not None:
        lines.append(f"  {_trump_words(e['trump'])}")
    cur = e["current"] or {"leader": None, "tiles": []}
    done = e["tricks"]
    for j, tr in enumerate(done):
        won = done[j + 1]["leader"] if j + 1 < len(done) else cur["leader"]
        plays = " ".join(f"{(tr['leader'] + i) % 3}:{x}" for i, x in enumerate(tr["tiles"]))
        lines.append(f"  trick {j + 1}: {plays} -> seat {won}")
    lines.append(f"  scores {e['scores']}")
    return lines, [f"{(cur['leader'] + i) % 3}:{x}" for i, x in enumerate(cur["tiles"])]


def to_text(events: Iterable[dict], only_round: int | None = None) -> str:
    """A readable account of a game, one line per event (tricks on one line each);
    ``only_round``: that hand only (the header and the end stay)."""
    lines: list[str] = []
    trick: list[str] = []
    for e in events:
        t = e["type"]
        if only_round is not None and e.get("hand", only_round) != only_round and t != "end":
            continue
        if t == "game":
            lines.append(
                f"Three-Player Moon, {e['rules_id']}, seed {e['seed']} game {e['game']}: "
                + ", ".join(f"seat {q} {s}" for q, s in enumerate(e["seats"]))
                + f"; first bidder seat {e['first_bidder']}."
            )
        elif t == "deal":
            lines.append(f"Hand {e['hand']} (seat {e['opener']} bids first):")
            for q, h in enumerate(e["hands"]):
                lines.append(f"  seat {q}: {' '.join(h)}")
            lines.append(f"  widow: {e['widow']}")
        elif t == "position":
            more, trick = _position_lines(e)
            lines += more
        elif t == "bid":
            lines.append("  " + _call_words(e["seat"], e["bid"]))
        elif t == "redeal":
            lines.append("  all pass: the hand is void and redealt")
        elif t == "widow":
            lines.append(f"  seat {e['seat']} takes the widow {e['tile']}")
        elif t == "discard":
            lines.append(f"  seat {e['seat']} discards {e['tile']} face down")
        elif t == "trump":
            lines.append(f"  seat {e['seat']} names {_trump_words(e['trump'])}")
        elif t == "play":
            trick.append(f"{e['seat']}:{e['tile']}")
        elif t == "trick":
            lines.append(f"  trick {e['trick']}: {' '.join(trick)} -> seat {e['winner']}")
            trick = []
        elif t == "score":
            res = "made" if e["made"] else "set"
            lines.append(
                f"  seat {e['bidder']} bid {e['bid']}, took {e['tricks']}: {res}; changes "
                f"{e['deltas']}, scores {e['scores']}"
            )
        elif t == "bad_answer":
            lines.append(
                f"  seat {e['seat']} answered {e['answer']} to a {e['decision']} decision: "
                "read as the first option"
            )
        elif t == "stop":
            lines.append(f"The replay stops at the end of hand {e['hand']}.")
        elif t == "end":
            if e["winner"] is None:
                lines.append(f"Unfinished after {e['hands']} hands (cap).")
            else:
                how = "a made moon" if e["reason"] == "moon" else "reaching the target"
                lines.append(f"Seat {e['winner']} wins after {e['hands']} hands, by {how}.")
    return "\n".join(lines) + "\n"

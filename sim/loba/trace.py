"""Loba's event trace: replay any game of any run, as JSON Lines or as text a player can read.

Game ``G`` of a run is fully determined by (rules, seats, seed, G): :func:`replay` plays it
again with the kernel's event recording switched on (see :mod:`sim.loba.engine`, ``ev``) and
decodes the event rows into dicts in the JSON Lines schema below. Batch runs pass a trace with
no room (:data:`sim.events.NO_TRACE`) through the same compiled kernel, and skip every
recording branch.

Schema (one object per line; fields may be added, never renamed; docs/traces.md says what
each field means)::

    game     rules_id rules seed game players seats dealer
    deal     round dealer hands upcard stock            (stock top first)
    draw     round seat from(stock|discard) card
    rebuild  round stock
    meld     round seat meld kind(pierna|escalera) cards [as]
    layoff   round seat meld card end(low|high|null) joker_moved [position as joker_to]
             (after a joker jump [A22], ``end`` is the end the joker went to; the card took
             the joker's old place at the other end)
    discard  round seat card
    out      round seat one_turn
    void     round reason
    score    round penalties scores
    over     round seat score
    rebuy    round seat score pot rebuys
    eliminated round seat
    end      winner rounds pot                          (winner null: stopped at the round cap)
    position round dealer to_move hands table melded placed pile stock scores rebuys status
             phase taken                                (a replay from a set-up table: right
                                                         after the header; :func:`position_event`)
    stop     round reason                               (a replay from a position stopped at the
                                                         end of its round, not of the game)
"""

from __future__ import annotations

from ..trace import check_index
from .cards import JOKER, card_str, position_card, suit_of
from .layout import EV, MELD, VOID, E
from .play import TRACE_EVENTS, Game

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
VOID_REASONS = {VOID.STOCK: "stock_exhausted", VOID.TURN_CAP: "turn_cap"}


def record(rules, seats, seed: int, game: int) -> Game:
    """Play game ``game`` of run (rules, seats, seed) with event recording on."""
    check_index(game)
    cap = TRACE_EVENTS
    while True:
        g = Game(rules, seats, seed=seed, index=game, trace=cap, record_rounds=False).play()
        evs, pay, overflow = g.trace_arrays()
        if not overflow:
            return g
        cap *= 4


def decode(g: Game, start: list[dict] | None = None, melds0: dict | None = None) -> list[dict]:
    """The recorded events of ``g`` as JSON-ready dicts (the schema in the module docstring).

    ``start``: events to put right after the header (a ``position`` event); ``melds0``: the
    table melds already down when recording began (meld id -> the decoder's meld dict)."""
    evs, pay, _ = g.trace_arrays()
    out: list[dict] = [
        {
            "type": "game",
            "rules_id": g.rules.id,
            "rules": dict(g.rules.values),
            "seed": g.seed,
            "game": g.index,
            "players": g.n,
            "seats": [s.label for s in g.seats],
            "dealer": g.first_dealer,
        }
    ]
    out += start or []
    melds: dict[int, dict] = dict(melds0 or {})
    for row in evs:
        t, r, seat = int(row[EV.TYPE]), int(row[EV.ROUND]), int(row[EV.SEAT])
        a, b, c, d = (int(row[k]) for k in (EV.A, EV.B, EV.C, EV.D))
        p = [int(x) for x in pay[row[EV.OFF] : row[EV.OFF] + row[EV.LEN]]]
        if t == E.DEAL:
            melds = {}
            hands, k = [], 0
            for _ in range(g.n):
                m = p[k]
                hands.append([card_str(x) for x in p[k + 1 : k + 1 + m]])
                k += 1 + m
            stock = [card_str(x) for x in p[k:]]
            out.append(
                {
                    "type": "deal",
                    "round": r,
                    "dealer": a,
                    "hands": hands,
                    "upcard": card_str(b),
                    "stock": stock,
                }
            )
        elif t == E.DRAW:
            out.append(
                {
                    "type": "draw",
                    "round": r,
                    "seat": seat,
                    "from": "discard" if a == 1 else "stock",
                    "card": card_str(b),
                }
            )
        elif t == E.REBUILD:
            out.append({"type": "rebuild", "round": r, "stock": [card_str(x) for x in p]})
        elif t == E.MELD:
            if b == MELD.ESCALERA:
                lo, hi, jm = p
                m = {
                    "kind": "escalera",
                    "suit": c,
                    "lo": lo,
                    "hi": hi,
                    "jokers": {q for q in range(lo, hi + 1) if (jm >> q) & 1},
                }
            else:
                m = {"kind": "pierna", "rank": c, "counts": p}
            melds[a] = m
            cards, stands = _meld_cards(m)
            ev = {
                "type": "meld",
                "round": r,
                "seat": seat,
                "meld": a,
                "kind": m["kind"],
                "cards": cards,
            }
            if m["kind"] == "escalera":
                ev["as"] = stands
            out.append(ev)
        elif t == E.LAYOFF:
            m = melds[a]
            ev = {"type": "layoff", "round": r, "seat": seat, "meld": a, "card": card_str(b)}
            if m["kind"] == "pierna":
                m["counts"][suit_of(b)] += 1
                ev.update({"end": None, "joker_moved": False})
            else:
                s = m["suit"]
                if d > 0:  # [A22] the joker at c jumps to d, the natural takes c
                    end = "low" if d < c else "high"
                    m["jokers"].discard(c)
                    m["jokers"].add(d)
                    grow = d
                else:
                    end = "low" if c < m["lo"] else "high"
                    if b == JOKER:
                        m["jokers"].add(c)
                    grow = c
                m["lo"], m["hi"] = min(m["lo"], grow), max(m["hi"], grow)
                ev.update(
                    {
                        "end": end,
                        "joker_moved": d > 0,
                        "position": c,
                        "as": card_str(position_card(c, s)),
                    }
                )
                if d > 0:
                    ev["joker_to"] = card_str(position_card(d, s))
            out.append(ev)
        elif t == E.DISCARD:
            out.append({"type": "discard", "round": r, "seat": seat, "card": card_str(b)})
        elif t == E.OUT:
            out.append({"type": "out", "round": r, "seat": seat, "one_turn": bool(a)})
        elif t == E.VOID:
            out.append({"type": "void", "round": r, "reason": VOID_REASONS.get(a, str(a))})
        elif t == E.SCORE:
            out.append({"type": "score", "round": r, "penalties": p[: g.n], "scores": p[g.n :]})
        elif t == E.OVER:
            out.append({"type": "over", "round": r, "seat": seat, "score": a})
        elif t == E.REBUY:
            out.append(
                {"type": "rebuy", "round": r, "seat": seat, "score": a, "pot": b, "rebuys": c}
            )
        elif t == E.ELIM:
            out.append({"type": "eliminated", "round": r, "seat": seat})
        elif t == E.END:
            out.append({"type": "end", "winner": None if a < 0 else a, "rounds": b, "pot": c})
    return out


def _meld_cards(m: dict) -> tuple[list[str], list[str]]:
    if m["kind"] == "pierna":
        cards = [card_str(s * 13 + m["rank"] - 1) for s in range(4) for _ in range(m["counts"][s])]
        return cards, cards
    cards, stands = [], []
    for q in range(m["lo"], m["hi"] + 1):
        nat = card_str(position_card(q, m["suit"]))
        cards.append("JK" if q in m["jokers"] else nat)
        stands.append(nat)
    return cards, stands


def replay(rules, seats, seed: int = 0, game: int = 0):
    """Events of game ``game`` of the run (rules, seats, seed), as dicts."""
    return decode(record(rules, seats, seed, game))


def _fmt_meld(cards, stands) -> str:
    return " ".join(f"JK({s})" if c == "JK" else c for c, s in zip(cards, stands, strict=True))


def to_text(events: list[dict], only_round: int | None = None) -> str:
    """A readable account of the game, round by round."""
    lines: list[str] = []
    head = events[0]
    one_turn = head.get("rules", {}).get("one_turn_bonus", 10)
    seats = head["seats"]
    name = [f"seat {q} ({s})" for q, s in enumerate(seats)]
    lines.append(
        f"Game {head['game']} of seed {head['seed']} under {head['rules_id']}: "
        f"{head['players']} players, first dealer seat {head['dealer']}."
    )
    lines.append("Seats: " + ", ".join(name) + ".")
    for e in events[1:]:
        r = e.get("round")
        if only_round is not None and r is not None and r != only_round:
            continue
        t = e["type"]
        if t == "position":
            lines.append("")
            lines.append(
                f"== Round {r}, from a set-up position: seat {e['dealer']} dealt, seat"
                f" {e['to_move']} to move{_AT.get(e.get('phase', 'draw'), '')} =="
            )
            if e.get("taken"):
                lines.append(f"  seat {e['to_move']} took {e['taken']} and must put it down")
            for q, h in enumerate(e["hands"]):
                if h:
                    lines.append(f"  {name[q]} holds {' '.join(h)}")
            for i, m in enumerate(e["table"]):
                cards = _fmt_meld(m["cards"], m.get("as", m["cards"]))
                lines.append(f"  on the table, #{i} ({m['kind']}, seat {m['owner']}): {cards}")
            lines.append(
                f"  discard pile {' '.join(e['pile'])} (top last); {len(e['stock'])} cards in"
                " the stock"
            )
            continue
        if t == "stop":
            lines.append("  (the replay stops at the end of the round)")
            continue
        if t == "deal":
            lines.append("")
            lines.append(f"== Round {r}: seat {e['dealer']} deals ==")
            for q, h in enumerate(e["hands"]):
                if h:
                    lines.append(f"  {name[q]} holds {' '.join(h)}")
            lines.append(f"  up-card {e['upcard']}; {len(e['stock'])} cards in the stock")
        elif t == "draw":
            src = "takes the discard" if e["from"] == "discard" else "draws from the stock"
            lines.append(f"  seat {e['seat']} {src}: {e['card']}")
        elif t == "rebuild":
            lines.append(f"  the stock is rebuilt from the discard pile ({len(e['stock'])} cards)")
        elif t == "meld":
            cards = _fmt_meld(e["cards"], e.get("as", e["cards"]))
            lines.append(f"  seat {e['seat']} puts down {e['kind']} #{e['meld']}: {cards}")
        elif t == "layoff":
            card = f"JK({e['as']})" if e["card"] == "JK" else e["card"]
            if e["joker_moved"]:  # [A22] "end" is where the joker went; the card took its place
                took = "high" if e["end"] == "low" else "low"
                where = f" in the joker's place at the {took} end"
                extra = f"; the joker jumps to the {e['end']} end to stand for {e['joker_to']}"
            else:
                where = f" at the {e['end']} end" if e["end"] else ""
                extra = ""
            lines.append(f"  seat {e['seat']} lays off {card} on #{e['meld']}{where}{extra}")
        elif t == "discard":
            lines.append(f"  seat {e['seat']} discards {e['card']}")
        elif t == "out":
            bonus = f" in one turn (-{one_turn} bonus)" if e["one_turn"] else ""
            lines.append(f"  seat {e['seat']} goes out{bonus}")
        elif t == "void":
            lines.append(f"  the round is void ({e['reason'].replace('_', ' ')}): no score changes")
        elif t == "score":
            pen = ", ".join(f"{q}: {p:+d}" for q, p in enumerate(e["penalties"]))
            tot = ", ".join(f"{q}: {s}" for q, s in enumerate(e["scores"]))
            lines.append(f"  penalties {pen}")
            lines.append(f"  totals    {tot}")
        elif t == "over":
            lines.append(f"  seat {e['seat']} is over with {e['score']}")
        elif t == "rebuy":
            lines.append(
                f"  seat {e['seat']} rebuys (re-enganche) at {e['score']}; the pot is {e['pot']}"
            )
        elif t == "eliminated":
            lines.append(f"  seat {e['seat']} is eliminated")
        elif t == "end":
            if e["winner"] is None:
                lines.append(
                    f"\nThe game stops unfinished after {e['rounds']} rounds; "
                    f"the pot of {e['pot']} is returned."
                )
            else:
                lines.append(
                    f"\nSeat {e['winner']} wins the pot of {e['pot']} after {e['rounds']} rounds."
                )
    return "\n".join(lines) + "\n"


_AT = {"play": " (has drawn, about to play)", "discard": " (about to discard)"}


def position_event(pos) -> dict:
    """The ``position`` event that starts a trace replayed from a set-up position: everything
    on the table, as a deal event would give it (hands, stock top first, pile bottom to top),
    plus the melds already down, scores, rebuys, statuses, the seat to move and where its
    turn stands (``phase``: draw, play or discard; ``taken``: a discard it took and still
    owes to the table, [A12]). For the seat to move at phase play or discard, ``placed``
    holds only what it put down before this turn ([A28])."""
    table = []
    for m in pos.table:
        kind = "pierna" if JOKER not in m.cards and len({c % 13 for c in m.cards}) == 1 else None
        entry = {"kind": kind or "escalera", "cards": [card_str(c) for c in m.cards]}
        if kind is None:
            entry["as"] = [card_str(s) for s in m.stands]
        entry["owner"] = m.owner
        table.append(entry)
    return {
        "type": "position",
        "round": pos.round,
        "dealer": pos.dealer,
        "to_move": pos.to_move,
        "hands": [[card_str(c) for c in h] for h in pos.hands],
        "table": table,
        "melded": sorted(pos.melded),
        "placed": sorted(pos.placed),
        "pile": [card_str(c) for c in pos.pile],
        "stock": [card_str(c) for c in pos.stock],
        "scores": list(pos.scores),
        "rebuys": list(pos.rebuys),
        "status": list(pos.status),
        "phase": pos.phase,
        "taken": None if pos.taken is None else card_str(pos.taken),
    }


def replay_position(source, seats=None, seed: int = 0, to_game_end: bool = False) -> list[dict]:
    """Play on from a position file (or dict, :mod:`sim.loba.position`) with the kernel, to the
    end of the round (a final ``stop`` event) or of the game; returns the trace's events. The
    stock cards the file names stay on top in that order; ``seed`` orders the rest of the stock
    and drives the policies and later shuffles."""
    from .position import load_position

    pos = load_position(source, shuffle=seed)
    cap = TRACE_EVENTS
    while True:
        g = pos.game(seats, seed=seed, trace=cap)
        melds0 = {}
        for i, m in enumerate(g.melds()):
            if m["kind"] == "escalera":
                melds0[i] = {
                    "kind": "escalera",
                    "suit": m["suit"],
                    "lo": m["lo"],
                    "hi": m["hi"],
                    "jokers": set(m["joker_positions"]),
                }
            else:
                counts = [sum(1 for c in m["cards"] if suit_of(c) == s) for s in range(4)]
                melds0[i] = {"kind": "pierna", "rank": m["rank"], "counts": counts}
        if to_game_end:
            g.play()
        else:
            g.play_round()
        if not g.trace_arrays()[2]:
            break
        cap *= 4
    events = decode(g, [position_event(pos)], melds0)
    if not to_game_end and events[-1]["type"] != "end":
        events.append({"type": "stop", "round": g.round, "reason": "end of round"})
    return events

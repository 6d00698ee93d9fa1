"""An independent re-check of a Toy Tricks trace (rules T1-T6 in the package docstring).

It imports nothing from ``sim`` nor from the engine: cards are read from their notation
(``"5H"``: rank 5 of hearts) and every rule is applied afresh. :func:`audit` takes the event
dicts of one game (:mod:`.trace`'s schema) and returns the violations, one sentence each (none:
the game followed the rules): [T1] the deck and the player count; [T2] three cards each, all
distinct, the leader's rotation; [T3] play order, cards from the hand, following suit, the
trick's winner and the next leader; [T4] the points; [T5] the game ends exactly when a single
highest score reaches the target, with that winner; [T6] the cap.
"""

from __future__ import annotations

DECK = frozenset((r, s) for r in range(1, 9) for s in "SH")
HAND = 3


def read_card(text) -> tuple[int, str]:
    return (int(str(text)[:-1]), str(text)[-1])


def audit(events: list[dict]) -> list[str]:
    out: list[str] = []
    if not events or events[0].get("type") != "game":
        return ["The trace does not start with a game header."]
    head = events[0]
    rules = head["rules"]
    n = len(head["seats"])
    if not 2 <= n <= 4:
        out.append(f"[T1] {n} players: the game takes 2 to 4.")
    first = head["first_leader"]
    if not 0 <= first < n:
        out.append(f"[T2] first leader {first} is not a seat.")
    scores = [0] * n
    held: list[set] = []
    hand = 0
    leader = next_seat = None
    trick: list[tuple[int, tuple]] = []
    over = False
    tricks_won = 0
    for k, e in enumerate(events[1:], 1):
        t = e["type"]
        where = f"hand {e.get('hand')}"
        if over:
            out.append(f"{where}: an event after the game should have ended.")
            break
        if t == "deal":
            hand += 1
            if e["hand"] != hand:
                out.append(f"[T2] {where}: dealt as hand {e['hand']}, expected {hand}.")
            leader = (first + hand - 1) % n
            if e["leader"] != leader:
                out.append(f"[T2] {where}: seat {e['leader']} leads, expected seat {leader}.")
            cards = [read_card(c) for h in e["hands"] for c in h]
            if len(e["hands"]) != n or any(len(h) != HAND for h in e["hands"]):
                out.append(f"[T2] {where}: not {HAND} cards to each of {n} seats.")
            if len(set(cards)) != len(cards) or not set(cards) <= DECK:
                out.append(f"[T1] {where}: the deal repeats a card or holds one not in the deck.")
            held = [{read_card(c) for c in h} for h in e["hands"]]
            next_seat, trick, tricks_won = leader, [], 0
        elif t == "play":
            q, c = e["seat"], read_card(e["card"])
            if q != next_seat:
                out.append(f"[T3] {where}: seat {q} plays out of turn (seat {next_seat}'s turn).")
            if c not in held[q]:
                out.append(f"[T3] {where}: seat {q} plays {e['card']}, which it does not hold.")
            elif trick and rules["follow"]:
                led = trick[0][1][1]
                if c[1] != led and any(x[1] == led for x in held[q]):
                    out.append(f"[T3] {where}: seat {q} does not follow {led} with {e['card']}.")
            held[q].discard(c)
            trick.append((q, c))
            next_seat = (q + 1) % n
        elif t == "trick":
            if len(trick) != n:
                out.append(f"[T3] {where}: a trick of {len(trick)} cards.")
            else:
                led = trick[0][1][1]
                win = max((x for x in trick if x[1][1] == led), key=lambda x: x[1][0])[0]
                if e["winner"] != win:
                    out.append(f"[T3] {where}: trick won by seat {e['winner']}, not seat {win}.")
                tricks_won += 1
                pts = rules["last_trick"] if tricks_won == HAND else 1
                if e["points"] != pts:
                    out.append(f"[T4] {where}: the trick scores {e['points']}, not {pts}.")
                scores[win] += pts
                next_seat = win
            trick = []
        elif t == "score":
            if tricks_won != HAND:
                out.append(f"[T2] {where}: scored after {tricks_won} tricks, not {HAND}.")
            if e["scores"] != scores:
                out.append(f"[T4] {where}: scores {e['scores']}, expected {scores}.")
            top = max(scores)
            ends = top >= rules["target"] and scores.count(top) == 1
            capped = hand >= rules["max_hands_per_game"]
            want = ("target", scores.index(top)) if ends else ("cap", None) if capped else None
            nxt = events[k + 1] if k + 1 < len(events) else None
            got = (nxt["reason"], nxt["winner"]) if nxt and nxt["type"] == "end" else None
            if got != want:
                out.append(f"[T5] {where}: the game goes on as {got}, expected {want}.")
        elif t == "end":
            if e["hands"] != hand:
                out.append(f"[T6] the end counts {e['hands']} hands, {hand} were dealt.")
            over = True
        elif t != "bad_answer":
            out.append(f"{where}: unknown event type '{t}'.")
    if not over:
        out.append("The trace has no end event.")
    return out

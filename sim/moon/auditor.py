"""An independent re-check of a Moon trace against the rules document, part B.

This module shares no code with the engine (it imports nothing from ``sim``): it reads the
rules afresh, with its own encoding — tiles as (high, low) pairs, trump and suit *orders* as
lists, a trick won by the earliest tile in the trump order, else in the led suit's order — so
a bug in :mod:`sim.moon.tricks` or :mod:`sim.moon.engine` cannot hide by being repeated here.

:func:`audit` takes the event dicts of one game (the :mod:`sim.moon.trace` schema) and returns
a list of violations, one sentence each (empty = the game followed the rules). It checks:

* [B1]/[B3] each deal: 3 hands of 7 and a widow, 22 distinct tiles making up the 22-tile set;
  every tile played comes from the player's hand, the bidder's hand includes the widow, and
  the 21 tiles played plus the dead tile are the 22 tiles.
* [B4] the opener rotation (first bidder of the game + one seat per hand, redeals included),
  one circuit in seat order, legal bid values strictly rising, nothing after a 21, the forced
  last bid under ``all_pass=force_last``, a redeal exactly when all passed.
* [B5] the bidder takes the widow and discards one of its 8 tiles; the order of widow, discard
  and trump per ``trump_before_widow``; the contract allowed (``allow_doubles_trump``).
* [B6]-[B8] the bidder leads the first trick, the winner the next, play goes clockwise; the
  follow rule; the winner of each trick.
* [B9] every score change and running score; [B10] the game ends exactly when it should,
  with the right winner; [B11] the cap; the hand count in the ``end`` event.

A trace replayed from a set-up hand (``loba replay --position``) has a ``position`` event
instead of the hand's deal: it is read as the events that led to it (:func:`from_position`:
the deal rebuilt from the tiles held and played, the calls, the declaration steps done, the
tricks played) and checked like any hand, so the position is held to part B as much as the
play that follows it; the scores start from the position's. A ``stop`` event ends a trace at
the end of a hand when the game should not have ended there.
"""

from __future__ import annotations

TILE_SET = frozenset((a, b) for a in range(7) for b in range(a + 1) if b > 0 or a == 0)
BID_VALUES = (4, 5, 6, 7, 21)


def read_tile(text) -> tuple[int, int]:
    """``"6-4"`` / ``"4-6"`` -> (6, 4)."""
    a, b = (int(x) for x in str(text).split("-"))
    return (max(a, b), min(a, b))


def trump_order(contract: str) -> list[tuple[int, int]]:
    """[B6] the trumps of a contract, best first."""
    if contract == "no_trump":
        return []
    if contract == "doubles":
        return [(n, n) for n in range(6, -1, -1)]
    n = int(contract)
    order = [(n, n)]
    for other in range(6, -1, -1):
        if other != n:
            t = (max(n, other), min(n, other))
            if t in TILE_SET:
                order.append(t)
    return order


def suit_order(suit: int, contract: str) -> list[tuple[int, int]]:
    """[B2]/[B6] the tiles that follow ``suit`` under ``contract`` (no trumps), best first."""
    trumps = set(trump_order(contract))
    order = []
    if (suit, suit) not in trumps:
        order.append((suit, suit))
    for other in range(6, -1, -1):
        if other == suit:
            continue
        t = (max(suit, other), min(suit, other))
        if t in TILE_SET and t not in trumps:
            order.append(t)
    return order


def called_suit(lead: tuple[int, int], contract: str):
    """[B7] what a lead calls: ``"trump"`` or a number (the higher end; a double its own)."""
    if lead in trump_order(contract):
        return "trump"
    return lead[0]


def can_follow(tile: tuple[int, int], called, contract: str) -> bool:
    """[B7] ``tile`` follows the called suit."""
    if called == "trump":
        return tile in trump_order(contract)
    return tile in suit_order(called, contract)


def winner_of(tiles: list[tuple[int, int]], contract: str) -> int:
    """[B8] index of the winning tile of a trick (play order)."""
    trumps = trump_order(contract)
    played_trumps = [t for t in tiles if t in trumps]
    if played_trumps:
        best = min(played_trumps, key=trumps.index)
        return tiles.index(best)
    called = called_suit(tiles[0], contract)
    order = suit_order(called, contract)
    best = min((t for t in tiles if t in order), key=order.index)
    return tiles.index(best)


def from_position(e: dict, rules: dict) -> list[dict]:
    """The events that led to a ``position`` event: the deal (each seat's tiles now and those
    it played; the bidder's also its discard, less the widow once taken), the calls from the
    opener, the declaration steps done in the rules' order, the tricks (each won by the next
    trick's leader)."""
    h = e["hand"]
    done = list(e["tricks"])
    tricks = done + ([e["current"]] if e["current"] else [])
    dealt = [list(hh) for hh in e["hands"]]
    plays = []
    for j, tr in enumerate(tricks):
        for i, x in enumerate(tr["tiles"]):
            q = (tr["leader"] + i) % 3
            dealt[q].append(x)
            plays.append({"type": "play", "hand": h, "trick": j + 1, "seat": q, "tile": x})
        if j < len(done):
            won = tricks[j + 1]["leader"]
            plays.append({"type": "trick", "hand": h, "trick": j + 1, "winner": won})
    calls = [
        {"type": "bid", "hand": h, "seat": (e["opener"] + k) % 3, "bid": b}
        for k, b in enumerate(e["bids"])
    ]
    bidder = next((c["seat"] for c in reversed(calls) if c["bid"] != "pass"), None)
    steps = {
        "trump": {"trump": e["trump"]} if e["trump"] is not None else None,
        "widow": {"tile": e["widow"]} if e["widow_taken"] else None,
        "discard": {"tile": e["discard"]} if e["discard"] is not None else None,
    }
    if bidder is not None:
        if e["discard"] is not None:
            dealt[bidder].append(e["discard"])
        if e["widow_taken"]:
            dealt[bidder] = [x for x in dealt[bidder] if read_tile(x) != read_tile(e["widow"])]
    order = ["trump", "widow", "discard"] if rules["trump_before_widow"] else ["widow", "discard"]
    order += [] if rules["trump_before_widow"] else ["trump"]
    declared = [
        {"type": k, "hand": h, "seat": bidder, **steps[k]} for k in order if steps[k] is not None
    ]
    deal = {"type": "deal", "hand": h, "opener": e["opener"], "hands": dealt, "widow": e["widow"]}
    return [deal, *calls, *declared, *plays]


class _Hand:
    def __init__(self):
        self.hands: list[set] = [set(), set(), set()]
        self.widow = None
        self.bids: list[tuple[int, object]] = []
        self.bidder = None
        self.bid = 0
        self.decl: list[str] = []
        self.trump = None
        self.discard = None
        self.plays: list[tuple[int, tuple[int, int]]] = []
        self.tricks = [0, 0, 0]
        self.leader = None
        self.n_trick_events = 0
        self.redeal = False
        self.scored = False


def audit(events: list[dict], finished: bool = True) -> list[str]:
    """Violations of part B in one game's events (empty list: none found). ``finished=False``
    audits a game stopped between hands (no ``end`` event expected)."""
    bad: list[str] = []

    def fail(msg: str) -> None:
        if len(bad) < 50:
            bad.append(msg)

    if not events or events[0].get("type") != "game":
        return ["The trace does not start with a game header."]
    head = events[0]
    rules = head["rules"]
    first = head["first_bidder"]
    if first not in (0, 1, 2):
        fail(f"First bidder {first} is not a seat [B4].")
    target = rules["target"]
    scores = [0, 0, 0]
    hand_no = 0
    over = None  # (winner, reason) once the game must end
    ended = False
    cur: _Hand | None = None

    def close_hand(h: _Hand) -> None:
        nonlocal over
        if not h.redeal and not h.scored:
            fail(f"Hand {hand_no} ended without a score [B9].")
        if not h.redeal:
            if h.n_trick_events != 7 or len(h.plays) != 21:
                fail(f"Hand {hand_no} had {h.n_trick_events} tricks, not 7 [B9].")
            dealt = set().union(*h.hands)  # what is left in hands must be empty
            if dealt:
                fail(f"Hand {hand_no}: tiles never played: {sorted(dealt)} [B3].")
            played = {t for _, t in h.plays}
            if len(played) != 21 or h.discard in played or len(played | {h.discard}) != 22:
                fail(f"Hand {hand_no}: the 21 tiles played and the dead tile are not the 22 [B3].")
        # [B10] end of game after the hand
        w, why = None, None
        if not h.redeal and h.bidder is not None:
            made = h.tricks[h.bidder] >= h.bid if h.bid != 21 else h.tricks[h.bidder] == 7
            if h.bid == 21 and made and rules["moon"] == "instant":
                w, why = h.bidder, "moon"
            elif made and scores[h.bidder] >= target:
                w, why = h.bidder, "target"
        if w is None:
            inside = [q for q in range(3) if scores[q] >= target]
            if inside:
                top = max(scores[q] for q in inside)
                tops = [q for q in inside if scores[q] == top]
                if len(tops) == 1:
                    w, why = tops[0], "target"
        if w is None and hand_no >= rules["max_hands_per_game"]:
            why = "cap"
        if why is not None:
            over = (w, why)

    body = []
    for e in events[1:]:
        body.append(e)
        if e.get("type") == "position":
            body += from_position(e, rules)
    for e in body:
        t = e.get("type")
        if ended:
            fail(f"Event {t} after the end of the game.")
            continue
        if t == "position":
            if hand_no or cur is not None:
                fail(f"A position event after hand {hand_no} began.")
            hand_no = e["hand"] - 1
            scores[:] = e["scores"]
            continue
        if t == "deal":
            if cur is not None:
                close_hand(cur)
            if over is not None:
                fail(f"Hand {hand_no + 1} was dealt after the game should have ended [B10].")
                over = None
            hand_no += 1
            cur = _Hand()
            if e["hand"] != hand_no:
                fail(f"Deal numbered {e['hand']}, expected hand {hand_no}.")
            opener = (first + hand_no - 1) % 3
            if e["opener"] != opener:
                fail(f"Hand {hand_no} opened by seat {e['opener']}, not seat {opener} [B4].")
            tiles = [read_tile(x) for hh in e["hands"] for x in hh] + [read_tile(e["widow"])]
            if any(len(hh) != 7 for hh in e["hands"]) or len(e["hands"]) != 3:
                fail(f"Hand {hand_no}: a hand does not have 7 tiles [B3].")
            if len(tiles) != 22 or set(tiles) != TILE_SET:
                fail(f"Hand {hand_no}: the deal is not the 22-tile set, each tile once [B1].")
            cur.hands = [{read_tile(x) for x in hh} for hh in e["hands"]]
            cur.widow = read_tile(e["widow"])
            continue
        if cur is None:
            if t != "end":
                fail(f"Event {t} before the first deal.")
            continue
        h = cur
        if t == "bid":
            k = len(h.bids)
            opener = (first + hand_no - 1) % 3
            if any(b == 21 for _, b in h.bids):
                fail(f"Hand {hand_no}: a call after a bid of 21 [B4].")
            if k >= 3:
                fail(f"Hand {hand_no}: more than one circuit of bidding [B4].")
            if e["seat"] != (opener + k) % 3:
                fail(f"Hand {hand_no}: seat {e['seat']} called out of turn [B4].")
            b = e["bid"]
            if b == "pass":
                if k == 2 and h.bid == 0 and rules["all_pass"] == "force_last":
                    fail(
                        f"Hand {hand_no}: the last seat passed after two passes (force_last) [B4]."
                    )
            elif b not in BID_VALUES or b <= h.bid:
                fail(f"Hand {hand_no}: bid {b} is not a legal raise over {h.bid} [B4].")
            else:
                h.bid = b
                h.bidder = e["seat"]
            h.bids.append((e["seat"], b))
        elif t == "redeal":
            if h.bidder is not None or len(h.bids) != 3:
                fail(f"Hand {hand_no}: redeal although someone bid or not all called [B4].")
            if rules["all_pass"] == "force_last":
                fail(f"Hand {hand_no}: a redeal under all_pass=force_last [B4].")
            h.redeal = True
        elif t in ("widow", "discard", "trump"):
            if h.bidder is None:
                fail(f"Hand {hand_no}: {t} without a bidder [B5].")
                continue
            if len(h.bids) != 3 and not any(b == 21 for _, b in h.bids):
                fail(f"Hand {hand_no}: {t} before the auction ended [B4].")
            if e["seat"] != h.bidder:
                fail(f"Hand {hand_no}: {t} by seat {e['seat']}, not the bidder {h.bidder} [B5].")
            h.decl.append(t)
            if t == "widow":
                if read_tile(e["tile"]) != h.widow:
                    fail(f"Hand {hand_no}: the bidder took {e['tile']}, not the widow [B5].")
                h.hands[h.bidder].add(h.widow)
            elif t == "discard":
                d = read_tile(e["tile"])
                if "widow" not in h.decl:
                    fail(f"Hand {hand_no}: discard before taking the widow [B5].")
                if d not in h.hands[h.bidder]:
                    fail(f"Hand {hand_no}: the bidder discarded {e['tile']}, not held [B5].")
                h.hands[h.bidder].discard(d)
                h.discard = d
            else:
                name = e["trump"]
                if name not in ("0", "1", "2", "3", "4", "5", "6", "doubles", "no_trump"):
                    fail(f"Hand {hand_no}: '{name}' is not a contract [B5].")
                if name == "doubles" and not rules["allow_doubles_trump"]:
                    fail(f"Hand {hand_no}: doubles named although not allowed [B5].")
                h.trump = name
            if len(h.decl) == 3:
                want = (
                    ["trump", "widow", "discard"]
                    if rules["trump_before_widow"]
                    else ["widow", "discard", "trump"]
                )
                if h.decl != want:
                    fail(f"Hand {hand_no}: declaration order {h.decl}, expected {want} [B5].")
        elif t == "play":
            if len(h.decl) != 3 or h.trump is None:
                fail(f"Hand {hand_no}: a tile played before the declaration [B5].")
                continue
            k = len(h.plays)
            pos = k % 3
            if pos == 0:
                if k == 0:
                    h.leader = h.bidder  # [B7]
                if e["trick"] != k // 3 + 1:
                    fail(
                        f"Hand {hand_no}: play numbered trick {e['trick']}, expected {k // 3 + 1}."
                    )
            seat = (h.leader + pos) % 3
            if e["seat"] != seat:
                fail(f"Hand {hand_no}: seat {e['seat']} played out of turn (seat {seat}) [B7].")
            tile = read_tile(e["tile"])
            held = h.hands[e["seat"]]
            if tile not in held:
                fail(f"Hand {hand_no}: seat {e['seat']} played {e['tile']}, not in its hand [B7].")
            if pos > 0:
                called = called_suit(h.plays[k - pos][1], h.trump)
                if not can_follow(tile, called, h.trump) and any(
                    can_follow(x, called, h.trump) for x in held
                ):
                    fail(
                        f"Hand {hand_no} trick {k // 3 + 1}: seat {e['seat']} played "
                        f"{e['tile']} but could follow {called} [B7]."
                    )
            held.discard(tile)
            h.plays.append((e["seat"], tile))
        elif t == "trick":
            k = len(h.plays)
            if k % 3 != 0 or k == 0 or k // 3 != h.n_trick_events + 1:
                fail(f"Hand {hand_no}: trick event after {k} plays.")
                continue
            tiles = [tl for _, tl in h.plays[k - 3 : k]]
            w = (h.leader + winner_of(tiles, h.trump)) % 3
            if e["winner"] != w:
                fail(
                    f"Hand {hand_no} trick {k // 3}: seat {e['winner']} took it, but seat {w} "
                    "played the winning tile [B8]."
                )
            h.tricks[w] += 1
            h.leader = w
            h.n_trick_events += 1
        elif t == "score":
            b = h.bidder
            if b is None or e["bidder"] != b or e["bid"] != h.bid:
                fail(f"Hand {hand_no}: score for bidder {e['bidder']} bid {e['bid']} [B9].")
                continue
            tk = h.tricks[b]
            if e["tricks"] != tk:
                fail(f"Hand {hand_no}: bidder's tricks {e['tricks']}, counted {tk} [B9].")
            if h.bid == 21:
                made = tk == 7
                mine = 21 if made else -21
            else:
                made = tk >= h.bid
                if made:
                    mine = tk if rules["made_scores"] == "tricks" else h.bid
                else:
                    mine = -h.bid
            deltas = [mine if q == b else h.tricks[q] for q in range(3)]
            if bool(e["made"]) != made:
                fail(f"Hand {hand_no}: made={e['made']}, but the bidder took {tk} of {h.bid} [B9].")
            if list(e["deltas"]) != deltas:
                fail(f"Hand {hand_no}: score changes {e['deltas']}, expected {deltas} [B9].")
            for q in range(3):
                scores[q] += deltas[q]
            if list(e["scores"]) != scores:
                fail(f"Hand {hand_no}: scores {e['scores']}, expected {scores} [B9].")
            h.scored = True
        elif t == "bad_answer":
            pass
        elif t == "stop":
            close_hand(h)
            ended = True
            if over is not None:
                fail(f"The trace stops after hand {hand_no}, but the game should have ended [B10].")
        elif t == "end":
            close_hand(h)
            ended = True
            if over is None:
                fail(f"The game ended after hand {hand_no} although nobody had won [B10].")
            else:
                w, why = over
                if e["winner"] != w or e["reason"] != why:
                    fail(
                        f"The game ended with winner {e['winner']} ({e['reason']}), expected "
                        f"{w} ({why}) [B10]."
                    )
            if e["hands"] != hand_no:
                fail(f"The end counts {e['hands']} hands, the trace dealt {hand_no} [B11].")
        else:
            fail(f"Unknown event type {t}.")
    if not ended and finished:
        fail("The trace has no end event.")
    if not ended and not finished and cur is not None and (cur.redeal or cur.scored):
        close_hand(cur)
        if over is not None:
            fail(f"The game should have ended after hand {hand_no} [B10].")
    return bad

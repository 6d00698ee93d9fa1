"""Positions as files for Three-Player Moon: set up a hand at any decision, check it, list the
legal options, play on.

A position is a TOML file (or the same keys as a dict, which is how the tests write theirs)::

    game = "moon"                     # required: a file without it is read as Loba
    rules = "gamerules"               # a preset, a canonical id ("moon:pagat(target=31)") or a
                                      # knob table { preset = "bid", target = 31 }
    seats = ["count", "greedy", "random"]   # optional: count at every seat
    hand = 4                          # the hand's number, redeals included (1)
    opener = 1                        # the seat that bid first this hand (0) [B4]
    scores = [12, 9, 15]              # before this hand (0 each)
    phase = "play"                    # bid | declare | play
    hands = ["6-4 5-5 5-4 4-4 1-1", "6-3 4-3 3-3 2-1 0-0", "5-3 5-2 5-1 4-2 4-1"]   # now
    widow = "5-4"                     # the 22nd tile [B3]
    widow_taken = true                # declare: the bidder holds it now (play: always)
    bids = ["pass", 5, 21]            # the calls so far, from the opener: "pass", 4-7 or 21
    trump = "6"                       # 0-6, "doubles", "no_trump" ("none"): at play, and at
                                      # declare once named under trump_before_widow
    discard = "3-1"                   # play: the bidder's dead tile
    tricks = [                        # play: the tricks done, tiles in play order; the
      { leader = 0, tiles = "6-6 6-1 2-2" },  # leader may be left out (it is checked when
      "6-5 6-2 3-2",                          # given: the bidder, then each winner)
    ]
    current = ""                      # play: the trick under way, its tiles so far

:func:`load_position` checks everything on load and names the field of any problem in one
sentence (:class:`~sim.position.PositionError`): every one of the 22 tiles exactly once (the
hands, the widow until taken, the discard, the tricks); the calls legal in order ([B4]) and
the auction over or not as the phase says; the contract allowed ([B5]); each hand's size
(seven dealt, the widow taken, the tiles played); the tricks played: the leaders, the follow
rule ([B7]) and the winners ([B8]), by the engine's own compiled functions
(:func:`.tricks.legal_list`, :func:`.tricks.trick_winner`; the auditor re-reads the position
independently when a replay is audited); scores from which the game goes on ([B10]).

:meth:`Position.game` puts the position into the kernel (a :class:`~.play.Game` whose next
step is the decision of the seat to move); :func:`moves` lists that decision's options, in the
order the engine hands them to a policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..position import PositionError, position_rules, position_seats, read_position, whole
from ..rules import RuleError, RuleSet
from .check import contract_words, parse_contract, suit_words
from .layout import (
    BIDS,
    DOUBLES,
    HAND_SIZE,
    MAX_SEATS,
    MOON_BID,
    N_CONTRACTS,
    N_TILES,
    N_TRICKS,
    PASS,
    PH,
    PL,
    TRUMP_NAMES,
    G,
    S,
)
from .play import TRACE_EVENTS, Game
from .tiles import TileError, parse_tiles, tile_str
from .trace import decode, position_event
from .tricks import bit, follows, led_suit, legal_list, trick_winner

PHASES = ("bid", "declare", "play")
PHASE_AT = {"bid": PH.BID, "declare": PH.DECLARE, "play": PH.PLAY}
KEYS = (
    "game rules seats hand opener scores phase hands widow widow_taken bids trump discard "
    "tricks current"
).split()


@dataclass
class Trick:
    """Tiles in play order from ``leader``; ``winner`` once the trick is complete ([B8])."""

    leader: int
    tiles: list[int]
    winner: int = -1

    def plays(self) -> list[tuple[int, int]]:
        """(seat, tile) in play order."""
        return [((self.leader + j) % MAX_SEATS, t) for j, t in enumerate(self.tiles)]


@dataclass
class Position:
    rules: RuleSet
    seats: list[str]
    hand: int
    opener: int
    scores: list[int]
    phase: str
    hands: list[list[int]]
    widow: int
    widow_taken: bool
    bids: list[int]  # the calls from the opener: PASS (0) or a bid
    trump: int = -1  # -1: not named yet
    discard: int = -1  # -1: not discarded yet
    tricks: list[Trick] = field(default_factory=list)  # complete
    current: Trick | None = None  # phase play: the trick under way

    @property
    def first_bidder(self) -> int:
        """The game's first bidder, from this hand's opener and number ([B4] rotation)."""
        return (self.opener - self.hand + 1) % MAX_SEATS

    @property
    def bid(self) -> int:
        return max(self.bids, default=PASS)

    @property
    def bidder(self) -> int:
        """The seat of the high call, -1 none."""
        return _high_seat(self.opener, self.bids)

    @property
    def to_move(self) -> int:
        if self.phase == "bid":
            return (self.opener + len(self.bids)) % MAX_SEATS
        if self.phase == "declare":
            return self.bidder
        return (self.current.leader + len(self.current.tiles)) % MAX_SEATS

    def plays(self) -> list[tuple[int, int]]:
        """(seat, tile) of every tile played this hand, in order."""
        done = self.tricks + ([self.current] if self.current else [])
        return [p for tr in done for p in tr.plays()]

    def game(self, seats=None, seed: int = 0, trace=False):
        """The position in the kernel: a :class:`~.play.Game` whose next step is the decision
        of the seat to move (the rest of the auction, the declaration, or the tricks).
        ``seats``: seat strings instead of the file's; ``seed``: the policies' random streams
        (and the shuffles of later hands)."""
        from ..policies import parse_seats
        chosen = parse_seats(self.seats if seats is None else seats, game="moon")
        g = Game(self.rules, chosen, seed=seed, first_bidder=self.first_bidder, trace=trace)
        st = g.st
        gs, s = st.g, st.s
        gs[G.HAND] = self.hand
        gs[G.OPENER] = self.opener
        gs[G.WIDOW] = self.widow
        gs[G.TRUMP] = self.trump
        gs[G.DISCARD] = self.discard
        gs[G.BID] = self.bid
        for q, h in enumerate(self.hands):
            s[q, S.SCORE] = self.scores[q]
            for t in h:
                st.hands[q, t] = 1
                s[q, S.BITS] |= int(bit(t))
        for k, b in enumerate(self.bids):
            q = (self.opener + k) % MAX_SEATS
            s[q, S.SAID] = b
            s[q, S.BIDS] += int(b != PASS)
        if self.phase != "bid":  # the auction is over ([B4] as the engine closes it)
            b = self.bidder
            gs[G.BIDDER] = b
            s[b, S.BIDS_WON] = 1
            if self.bid == MOON_BID:
                gs[G.MOONS_TRIED] = 1
                s[b, S.MOONS_TRIED] = 1
        for p, (q, t) in enumerate(self.plays()):
            st.played[PL.TILE + p] = t
            st.played[PL.SEAT + p] = q
            st.played[PL.BY + t] = q
        gs[G.NPLAYED] = len(self.plays())
        gs[G.TRICK] = len(self.tricks)
        for j, tr in enumerate(self.tricks):
            gs[G.WINNERS + j] = tr.winner
            s[tr.winner, S.TRICKS] += 1
        if self.current is not None:
            gs[G.LEADER] = self.current.leader
        gs[G.PHASE] = PHASE_AT[self.phase]
        return g


def _high_seat(opener: int, calls: list[int]) -> int:
    """The seat that made the highest of ``calls`` (bids only rise, [B4]); -1 if all passed."""
    seat = -1
    for k, b in enumerate(calls):
        if b != PASS:
            seat = (opener + k) % MAX_SEATS
    return seat


def legal_calls(rules: RuleSet, calls: list[int]) -> list[int]:
    """[B4] the calls open to the next seat after ``calls``, as the engine offers them: pass
    (unless ``all_pass=force_last`` forces the last seat after two passes), then every bid
    above the high bid, ascending."""
    high = max(calls, default=PASS)
    forced = len(calls) == MAX_SEATS - 1 and high == PASS and rules.all_pass == "force_last"
    return ([] if forced else [PASS]) + [b for b in BIDS if b > high]


def _auction_over(calls: list[int]) -> bool:
    return len(calls) == MAX_SEATS or MOON_BID in calls


# ---------------------------------------------------------------------------- loading
def load_position(source) -> Position:
    """A checked :class:`Position` from a TOML file path, TOML text or a dict of the keys in the
    module docstring."""
    data, _ = read_position(source, KEYS)
    try:
        return _build(data)
    except (RuleError, TileError) as e:
        raise PositionError(str(e)) from None


def _tiles(value, name: str) -> list[int]:
    if value is None or value == "":
        return []
    if not isinstance(value, str | list):
        raise PositionError(f"'{name}' must list tiles like \"6-4 5-5\".")
    try:
        return parse_tiles(value, distinct=False)
    except TileError as e:
        raise PositionError(f"'{name}': {e}") from None


def _tile(value, name: str) -> int:
    ts = _tiles(value, name)
    if len(ts) != 1:
        raise PositionError(f"'{name}' must be one tile, like \"6-4\".")
    return ts[0]


def _call(value, name: str) -> int:
    if isinstance(value, str) and value.strip().lower() == "pass":
        return PASS
    if isinstance(value, bool) or value not in BIDS:
        raise PositionError(f"'{name}' = {value!r} is not a call: \"pass\", 4, 5, 6, 7 or 21 [B4].")
    return int(value)


def _trick(value, name: str) -> tuple[list[int], int | None]:
    """(tiles, leader or None) of ``"6-6 6-1 2-2"`` or ``{ leader = 0, tiles = "..." }``."""
    if isinstance(value, dict):
        extra = set(value) - {"leader", "tiles"}
        if extra or "tiles" not in value:
            raise PositionError(
                f'\'{name}\' must be "6-6 6-1 2-2" or {{ leader = 0, tiles = "6-6 6-1 2-2" }}.'
            )
        lead = value.get("leader")
        return _tiles(value["tiles"], f"{name}.tiles"), (
            None if lead is None else whole(lead, f"{name}.leader", 0, MAX_SEATS - 1)
        )
    return _tiles(value, name), None


def _build(d: dict) -> Position:
    if d.get("game", "moon") != "moon":
        raise PositionError(f"'game' = {d['game']!r}: not a Moon position.")
    from .rules import SPEC

    rules = position_rules(d.get("rules", SPEC.default_preset), "moon")
    seats = d.get("seats")
    if seats is None:
        from ..games import get_game

        seats = get_game("moon").default_seats
    seats = position_seats(seats, "moon", MAX_SEATS, " [B1]")
    hand = whole(d.get("hand", 1), "hand", 1, rules.max_hands_per_game)
    opener = whole(d.get("opener", 0), "opener", 0, MAX_SEATS - 1)
    scores = d.get("scores", [0] * MAX_SEATS)
    if not isinstance(scores, list) or len(scores) != MAX_SEATS:
        raise PositionError(f"'scores' must list one number per seat ({MAX_SEATS}).")
    scores = [whole(v, f"scores[{q}]", -(10**9), 10**9) for q, v in enumerate(scores)]
    phase = d.get("phase")
    if phase not in PHASES:
        raise PositionError(f"'phase' must be one of {', '.join(PHASES)}, not {phase!r}.")
    play = phase == "play"
    for k in ("discard", "tricks", "current"):
        if k in d and not play:
            raise PositionError(f"'{k}' is only for phase \"play\" (the tricks under way).")
    raw = d.get("hands")
    if not isinstance(raw, list) or len(raw) != MAX_SEATS:
        raise PositionError(
            f"'hands' must list every seat's tiles ({MAX_SEATS}), e.g. [\"6-4 5-5\", ...]."
        )
    hands = [_tiles(h, f"hands[{q}]") for q, h in enumerate(raw)]
    if "widow" not in d:
        raise PositionError("'widow' must name the 22nd tile, dealt face down [B3].")
    widow = _tile(d["widow"], "widow")
    taken = d.get("widow_taken", play)
    if not isinstance(taken, bool):
        raise PositionError(f"'widow_taken' takes true or false, not {taken!r}.")
    if taken != play and phase != "declare":
        raise PositionError(
            f"'widow_taken' = {str(taken).lower()} cannot be at phase \"{phase}\": the bidder"
            " takes the widow after the auction and before the first trick [B5]."
        )
    calls = _calls(d.get("bids", []), rules, phase)
    bidder = _high_seat(opener, calls)
    trump = _trump(d, rules, phase, taken)
    discard = _tile(d["discard"], "discard") if "discard" in d else -1
    if play and discard < 0:
        raise PositionError("'discard' must name the bidder's dead tile at phase \"play\" [B5].")
    raw_tricks = d.get("tricks", [])
    if not isinstance(raw_tricks, list):
        raise PositionError("'tricks' must be a list of tricks like \"6-6 6-1 2-2\".")
    tricks = [_trick(x, f"tricks[{j}]") for j, x in enumerate(raw_tricks)]
    current = _trick(d.get("current", ""), "current")
    _account(hands, widow, taken, discard, tricks, current[0])
    done, cur = _walk(tricks, current, bidder, trump) if play else ([], None)
    pos = Position(
        rules, [str(s).strip() for s in seats], hand, opener, scores, phase, hands, widow, taken,
        calls, trump, discard, done, cur,
    )  # fmt: skip
    mine = hands[bidder] + [discard] + [t for s, t in pos.plays() if s == bidder]
    if taken and widow not in mine:
        raise PositionError(
            f"'widow' {tile_str(widow)} was taken, so the bidder (seat {bidder}) holds it, has"
            " played it or has discarded it [B5]."
        )
    _check_sizes(pos)
    if play:
        _check_follow(pos)
    _check_scores(scores, rules)
    return pos


def _calls(raw, rules: RuleSet, phase: str) -> list[int]:
    """[B4] the calls so far, each legal after those before it, and the auction over exactly
    when the phase is past it."""
    if not isinstance(raw, list):
        raise PositionError("'bids' must list the calls so far, e.g. [\"pass\", 5].")
    calls: list[int] = []
    for k, x in enumerate(raw):
        name = f"bids[{k}]"
        c = _call(x, name)
        if _auction_over(calls):
            raise PositionError(
                f"'{name}' comes after the auction ended (one circuit; a 21 ends it at once) [B4]."
            )
        if c not in legal_calls(rules, calls):
            if c == PASS:
                raise PositionError(
                    f"'{name}': the last seat may not pass after two passes"
                    " (all_pass = force_last) [B4]."
                )
            raise PositionError(
                f"'{name}' = {c} does not raise the high bid {max(calls, default=PASS)} [B4]."
            )
        calls.append(c)
    if len(calls) == MAX_SEATS and max(calls) == PASS:
        raise PositionError(
            "'bids': all three passed, so the hand is void and dealt again [B4]; a position is a"
            " hand under way."
        )
    if phase == "bid" and _auction_over(calls):
        raise PositionError(
            "'phase' = \"bid\", but 'bids' holds the whole auction: the bidder declares next."
        )
    if phase != "bid" and not _auction_over(calls):
        raise PositionError(
            f"'phase' = \"{phase}\", but the auction is still going: 'bids' holds {len(calls)}"
            f" of the {MAX_SEATS} calls and no 21 [B4]."
        )
    return calls


def _trump(d: dict, rules: RuleSet, phase: str, taken: bool) -> int:
    """[B5] the contract: named at phase play; at phase declare only under
    ``trump_before_widow``, and then before the widow is taken; allowed by the knobs."""
    tbw = rules.trump_before_widow
    if "trump" not in d:
        if phase == "play":
            raise PositionError(
                "'trump' must name the contract at phase \"play\": 0-6, doubles or no_trump [B5]."
            )
        if phase == "declare" and tbw and taken:
            raise PositionError(
                "'trump' must be named: under trump_before_widow the bidder names trump before"
                " taking the widow [B5]."
            )
        return -1
    if phase == "bid":
        raise PositionError("'trump' is named after the auction, not at phase \"bid\" [B5].")
    if phase == "declare" and not tbw:
        raise PositionError(
            "'trump' is named with the discard under these rules (trump_before_widow = false),"
            ' so a position at phase "declare" has none yet [B5].'
        )
    try:
        c = parse_contract(d["trump"])
    except TileError as e:
        raise PositionError(f"'trump': {e}") from None
    if c == DOUBLES and not rules.allow_doubles_trump:
        raise PositionError(
            "'trump' = \"doubles\" is not allowed under these rules (allow_doubles_trump = false)"
            " [B5]."
        )
    return c


def _account(hands, widow, taken, discard, tricks, current) -> None:
    """[B1] each of the 22 tiles exactly once: in a hand, the widow (until taken), the discard
    or a trick."""
    where: dict[int, str] = {}
    fields = [(f"hands[{q}]", h) for q, h in enumerate(hands)]
    fields += [] if taken else [("widow", [widow])]
    fields += [("discard", [discard])] if discard >= 0 else []
    fields += [(f"tricks[{j}]", tiles) for j, (tiles, _) in enumerate(tricks)]
    fields += [("current", current)]
    for name, tiles in fields:
        for t in tiles:
            if t in where:
                raise PositionError(
                    f"'{name}' holds {tile_str(t)}, which '{where[t]}' holds already: each of the"
                    f" {N_TILES} tiles is in the game once [B1]."
                )
            where[t] = name
    missing = [tile_str(t) for t in range(N_TILES) if t not in where]
    if missing:
        raise PositionError(
            f"No field holds {', '.join(missing)}: each of the {N_TILES} tiles is in a hand, the"
            " widow, the discard or a trick [B1]."
        )


def _walk(tricks, current, bidder: int, trump: int) -> tuple[list[Trick], Trick]:
    """[B7]/[B8] the leader of each trick (the bidder, then each winner), checked against the
    leaders the file gives; each complete trick's winner by the engine's trick_winner."""
    if len(tricks) >= N_TRICKS:
        raise PositionError(
            f"'tricks' holds {len(tricks)} tricks: after {N_TRICKS} the hand is over [B9]."
        )
    done = []
    leader = bidder
    for j, (tiles, given) in enumerate([*tricks, current]):
        name = f"tricks[{j}]" if j < len(tricks) else "current"
        if given is not None and given != leader:
            why = "the bidder leads the first trick" if j == 0 else f"seat {leader} won trick {j}"
            raise PositionError(f"'{name}.leader' = {given}, but {why} and leads [B7].")
        full = j < len(tricks)
        if full and len(tiles) != MAX_SEATS:
            raise PositionError(f"'{name}' holds {len(tiles)} tiles; a trick has {MAX_SEATS}.")
        if not full and len(tiles) >= MAX_SEATS:
            raise PositionError(
                f"'current' holds {len(tiles)} tiles; a complete trick goes in 'tricks'."
            )
        tr = Trick(leader, tiles)
        if full:
            tr.winner = (leader + int(trick_winner(*tiles, trump))) % MAX_SEATS
            leader = tr.winner
            done.append(tr)
    return done, tr


def _check_sizes(pos: Position) -> None:
    """[B3]/[B5]/[B7] seven tiles dealt to each seat; the bidder holds eight from taking the
    widow until its discard; one fewer for each tile played."""
    played = [0] * MAX_SEATS
    for q, _ in pos.plays():
        played[q] += 1
    for q, h in enumerate(pos.hands):
        want = HAND_SIZE - played[q]
        if pos.phase == "bid" or q != pos.bidder:
            why = "seven dealt [B3]" if not played[q] else f"seven dealt, {played[q]} played [B7]"
        elif pos.phase == "declare":
            want += int(pos.widow_taken)
            why = "seven dealt, and the widow " + ("taken" if pos.widow_taken else "not yet taken")
            why += " [B5]"
        else:
            why = f"seven after taking the widow and discarding, {played[q]} played [B5][B7]"
        if len(h) != want:
            raise PositionError(
                f"'hands[{q}]' holds {len(h)} tiles, but seat {q} holds {want} here ({why})."
            )


def _check_follow(pos: Position) -> None:
    """[B7] every tile played followed suit when it could: a seat's tiles at each play are
    those it holds now and those it played from then on."""
    held = [set(h) for h in pos.hands]
    tricks = [*pos.tricks, pos.current]
    for j in range(len(tricks) - 1, -1, -1):  # backwards, putting each trick back in hand
        plays = tricks[j].plays()
        for q, t in plays:
            held[q].add(t)
        name = f"tricks[{j}]" if j < len(pos.tricks) else "current"
        for q, t in plays[1:]:
            legal = legal_list(sorted(held[q]), plays[0][1], pos.trump)
            if t not in legal:
                suit = suit_words(int(led_suit(plays[0][1], pos.trump)))
                raise PositionError(
                    f"'{name}': seat {q} played {tile_str(t)} to a lead of {tile_str(plays[0][1])}"
                    f" although it held {' '.join(tile_str(x) for x in legal)}, so it had to"
                    f" follow {suit} [B7]."
                )


def _check_scores(scores: list[int], rules: RuleSet) -> None:
    """[B10] the game goes on: no single highest score at or above the target (a tie for the
    highest there plays another hand)."""
    top = max(scores)
    if top >= rules.target and scores.count(top) == 1:
        q = scores.index(top)
        raise PositionError(
            f"'scores': seat {q} alone has the highest score, {top}, at or above the target"
            f" {rules.target}, so the game is over [B10]."
        )


# ---------------------------------------------------------------------------- moves
def moves(pos: Position, after_draw: str | None = None) -> dict:
    """The options of the seat to move at its next decision, in the order the engine hands
    them to a policy, with why.

    ``bid``: pass (unless forced) and every bid above the high bid ([B4]). ``declare``: every
    held tile (the widow included) x every allowed contract as (discard, trump); under
    ``trump_before_widow`` the contracts first, then (trump named) the discards ([B5]).
    ``play``: the legal tiles, and whether the seat must follow or may play any ([B7]).
    """
    if after_draw is not None:
        raise PositionError("--after-draw is for Loba positions: a Moon hand has no draw.")
    q = pos.to_move
    R = pos.rules
    hand = sorted(pos.hands[q])
    out: dict = {
        "seat": q,
        "policy": pos.seats[q],
        "hand": " ".join(tile_str(t) for t in hand),
        "phase": pos.phase,
    }
    if pos.phase == "bid":
        calls = legal_calls(R, pos.bids)
        out["decision"] = "bid"
        out["bids"] = ["pass" if b == PASS else b for b in pos.bids]
        out["high_bid"] = pos.bid
        above = f"above the high bid {pos.bid}" if pos.bid else f"{BIDS[0]} or more"
        out["why"] = (
            f"seat {q} may pass, or bid {above} [B4]"
            if PASS in calls
            else f"seat {q} may not pass: the two seats before it passed (all_pass = force_last)"
            " [B4]"
        )
        opts = [{"bid": "pass" if c == PASS else c} for c in calls]
    elif pos.phase == "declare":
        contracts = [c for c in range(N_CONTRACTS) if c != DOUBLES or R.allow_doubles_trump]
        held = sorted(hand + ([] if pos.widow_taken else [pos.widow]))
        names = [TRUMP_NAMES[c] for c in contracts]
        if not pos.widow_taken and not (R.trump_before_widow and pos.trump < 0):
            out["takes_widow"] = tile_str(pos.widow)
        if not R.trump_before_widow:
            out["decision"] = "declare"
            out["why"] = "discard one tile face down and name trump [B5]"
            opts = [{"discard": tile_str(t), "trump": c} for t in held for c in names]
        elif pos.trump < 0:
            out["decision"] = "trump"
            out["why"] = "name trump, then take the widow and discard (trump_before_widow) [B5]"
            opts = [{"trump": c} for c in names]
        else:
            out["decision"] = "discard"
            out["trump"] = TRUMP_NAMES[pos.trump]
            out["why"] = f"discard one tile face down ({contract_words(pos.trump)}) [B5]"
            opts = [{"discard": tile_str(t)} for t in held]
    else:
        cur = pos.current
        lead = cur.tiles[0] if cur.tiles else -1
        legal = legal_list(hand, lead, pos.trump)
        out["decision"] = "play"
        out["trump"] = TRUMP_NAMES[pos.trump]
        out["trick"] = len(pos.tricks) + 1
        out["so_far"] = " ".join(f"{s}:{tile_str(t)}" for s, t in cur.plays())
        out["tricks"] = [0] * MAX_SEATS
        for tr in pos.tricks:
            out["tricks"][tr.winner] += 1
        words = contract_words(pos.trump)
        if lead < 0:
            out["why"] = f"seat {q} leads trick {out['trick']} ({words}): any tile [B7]"
        else:
            led = int(led_suit(lead, pos.trump))
            suit = suit_words(led)
            out["why"] = (
                f"{tile_str(lead)} led {suit} ({words}): seat {q} must follow {suit} [B7]"
                if any(follows(t, led, pos.trump) for t in hand)
                else f"{tile_str(lead)} led {suit} ({words}): seat {q} cannot follow, so may play"
                " any tile [B7]"
            )
        opts = [{"play": tile_str(t)} for t in legal]
    out["options"] = opts
    out["n"] = len(opts)
    return out


def moves_text(m: dict) -> str:
    """The options of :func:`moves` as lines a player reads (a declaration's options one line
    per discard)."""
    lines = [f"seat {m['seat']} ({m['policy']}) holds {m['hand']}"]
    if m["decision"] == "bid" and m["bids"]:
        lines.append(f"calls so far: {' '.join(str(b) for b in m['bids'])}")
    if m["phase"] == "play":
        lines.append(
            f"trick {m['trick']} so far: {m['so_far'] or 'nothing'}; tricks taken {m['tricks']}"
        )
    if "takes_widow" in m:
        lines.append(f"takes the widow {m['takes_widow']} first [B5]")
    lines.append(m["why"])
    n = m["n"]
    lines.append(f"{n} option{'s' * (n != 1)} at phase '{m['phase']}' ({m['decision']}):")
    opts = m["options"]
    if m["decision"] == "declare":
        by_tile: dict[str, list[str]] = {}
        for o in opts:
            by_tile.setdefault(o["discard"], []).append(o["trump"])
        i = 0
        for t, names in by_tile.items():
            span = f"{i + 1}-{i + len(names)}"
            lines.append(f"  {span:>7}. discard {t}, name trump {' '.join(names)}")
            i += len(names)
        return "\n".join(lines) + "\n"
    for i, o in enumerate(opts):
        if "bid" in o:
            t = "pass" if o["bid"] == "pass" else f"bid {o['bid']}" + " (moon)" * (o["bid"] == 21)
        elif "play" in o:
            t = f"play {o['play']}"
        elif "discard" in o:
            t = f"discard {o['discard']}"
        else:
            t = f"name trump {o['trump']}"
        lines.append(f"  {i + 1:>3}. {t}")
    return "\n".join(lines) + "\n"


__all__ = ["Position", "PositionError", "load_position", "moves", "moves_text"]


def replay_position(source, seats=None, seed: int = 0, to_game_end: bool = False) -> list[dict]:
    """Play on from a position file (or dict, :mod:`.position`) with the kernel, to the end of
    the hand (a final ``stop`` event) or of the game; returns the trace's events. Every tile of
    the hand is known, so ``seed`` drives only the policies' random choices (and the shuffles
    of later hands)."""
    pos = load_position(source)
    cap = TRACE_EVENTS
    while True:
        g = pos.game(seats, seed=seed, trace=cap)
        if to_game_end:
            g.play()
        else:
            g.play_hand()
        if not g.trace_arrays()[2]:
            break
        cap *= 4
    events = decode(g)
    events.insert(1, position_event(pos))
    if events[-1]["type"] != "end":
        events.append({"type": "stop", "hand": g.hand_no, "reason": "end of hand"})
    return events

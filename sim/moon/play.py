"""A Python handle on one Moon game, for tests, notebooks and replays.

:class:`Game` owns one :class:`~.layout.State` and advances it with the kernel's own
:func:`~.engine.step` / :func:`~.engine.play_game`, so what it shows is exactly what the batch
kernel does: game ``index`` of a run seeded ``seed`` deals the same tiles, and its policies draw
the same numbers, as row ``index`` of :func:`~.kernel.run_games`. Deals can be given literally
(:func:`deal`), so scenario tests read as data, not as lucky seeds. With ``trace`` on, every
event is recorded (:mod:`.trace` decodes them).

Each call from Python hands the kernel the seats' decision functions (about a millisecond to
unbox); :meth:`Game.play` runs the whole game in one call.
"""

from __future__ import annotations

import numpy as np

from ..events import recorded
from .batch import resolve_rules, seat_label, seat_list, seat_tables
from .engine import new_bufs, new_state, new_trace, play_game, seed_streams, start_game, step
from .layout import HAND_SIZE, MAX_SEATS, N_TILES, PH, G, S
from .schema import HANDS
from .tiles import TileError, parse_tiles
from .trace import decode

TRACE_EVENTS = 4096  # starting capacity; record() grows it when a game needs more


def deal(hands, widow) -> list[int]:
    """The deck row (22 tile ids) that deals ``hands[q]`` (7 tiles each, notation or ids) to
    seat q and leaves ``widow`` face down ([B3]). Refuses a repeated or missing tile."""
    hs = [parse_tiles(h) for h in hands]
    if len(hs) != MAX_SEATS:
        raise TileError(f"A deal has {MAX_SEATS} hands, not {len(hs)}.")
    for q, h in enumerate(hs):
        if len(h) != HAND_SIZE:
            raise TileError(f"Seat {q} needs {HAND_SIZE} tiles, got {len(h)}.")
    row = [t for h in hs for t in h] + parse_tiles([widow])
    parse_tiles(row)  # each tile once
    return row


def deck_array(decks) -> np.ndarray:
    """int8[k, N_TILES] from a list of deals (each a 22-id row, or -1 rows for a shuffle)."""
    if not decks:
        return np.full((1, N_TILES), -1, dtype=np.int8)
    out = np.full((len(decks), N_TILES), -1, dtype=np.int8)
    for r, d in enumerate(decks):
        if d is None:
            continue
        row = list(d)
        if len(row) != N_TILES or sorted(row) != list(range(N_TILES)):
            raise TileError(f"Deal {r + 1} must hold each of the {N_TILES} tiles once.")
        out[r] = row
    return out


class Game:
    """One Moon game. ``policies``: three names / :class:`~sim.policies.api.Policy` objects (see
    :func:`~.batch.resolve_policy`); ``decks``: deals of the first hands (:func:`deal`), later
    hands shuffle; ``first_bidder`` -1 = seeded random ([B4]); ``trace``: record events
    (True, or a capacity)."""

    def __init__(
        self,
        rules=None,
        policies=("count", "count", "count"),
        seed=0,
        index=0,
        decks=None,
        first_bidder=-1,
        hands_cap=None,
        trace=True,
    ):
        self.rules = resolve_rules(rules)
        self.R = self.rules.to_array()
        self.policies = seat_list(policies)
        self.labels = [seat_label(p) for p in self.policies]
        self.fns, self.params = seat_tables(self.policies)
        self.seed = int(seed)
        self.index = int(index)
        self.decks = deck_array(decks)
        cap = self.rules.max_hands_per_game if hands_cap is None else hands_cap
        self.hands_rows = HANDS.empty_array(1, MAX_SEATS, cap)[0]
        self.st = new_state()
        self.bufs = new_bufs(self.R)
        if trace:
            n = TRACE_EVENTS if trace is True else int(trace)
            self.tr = new_trace(n, 8 * n)
        else:
            self.tr = None
        seed_streams(self.st.rng, np.uint64(self.seed), self.index)
        start_game(self.st, int(first_bidder), self.tr)

    # ---- advancing
    def step(self) -> int:
        """One transition (a deal, an auction, a declaration, a trick, a settlement)."""
        return int(
            step(
                self.st,
                self.R,
                self.fns,
                self.params,
                self.decks,
                self.hands_rows,
                self.bufs,
                self.tr,
            )
        )

    def play(self) -> Game:
        """Play to the end of the game (one compiled call)."""
        play_game(
            self.st, self.R, self.fns, self.params, self.decks, self.hands_rows, self.bufs, self.tr
        )
        return self

    def play_hand(self) -> Game:
        """Play until the hand under way (or the next one) is settled, or the game is over."""
        if self.phase == PH.DEAL:
            self.step()
        while self.phase not in (PH.DEAL, PH.DONE):
            self.step()
        return self

    # ---- reading
    @property
    def phase(self) -> int:
        return int(self.st.g[G.PHASE])

    @property
    def done(self) -> bool:
        return self.phase == PH.DONE

    @property
    def winner(self) -> int | None:
        w = int(self.st.g[G.WINNER])
        return None if w < 0 else w

    @property
    def hand_no(self) -> int:
        return int(self.st.g[G.HAND])

    @property
    def scores(self) -> list[int]:
        return [int(x) for x in self.st.s[:, S.SCORE]]

    @property
    def tricks(self) -> list[int]:
        return [int(x) for x in self.st.s[:, S.TRICKS]]

    def hand_of(self, seat: int) -> list[int]:
        return [t for t in range(N_TILES) if self.st.hands[seat, t]]

    def hand_records(self) -> list[dict]:
        """The ``hands`` table rows recorded so far, as dicts (kernel values)."""
        names = [c.name for c in HANDS.columns if c.from_kernel]
        n = min(self.hand_no, self.hands_rows.shape[0])
        if self.phase in (PH.BID, PH.DECLARE, PH.PLAY, PH.SETTLE):
            n = min(n, self.hand_no - 1)
        return [
            {"hand": r + 1, **{k: int(self.hands_rows[r, i]) for i, k in enumerate(names)}}
            for r in range(n)
        ]

    def trace_arrays(self):
        """(events, payload, overflowed) of the recorded trace."""
        if self.tr is None:
            raise ValueError("This game was created without trace=True.")
        return recorded(self.tr)

    def events(self) -> list[dict]:
        """The recorded events as JSON-ready dicts (:mod:`.trace`)."""
        return decode(self)


def record(rules, policies, seed: int, game: int, **kw) -> Game:
    """Play game ``game`` of run (rules, policies, seed) with event recording on, growing the
    trace buffer until the whole game fits."""
    if isinstance(game, bool) or not isinstance(game, int | np.integer) or game < 0:
        raise ValueError(f"The game index must be a whole number of at least 0, not {game}.")
    cap = TRACE_EVENTS
    while True:
        g = Game(rules, policies, seed=seed, index=int(game), trace=cap, **kw).play()
        if not g.trace_arrays()[2]:
            return g
        cap *= 4


def replay(rules, policies, seed: int, game: int) -> list[dict]:
    """Game ``game`` of run (rules, policies, seed), played again and decoded."""
    return decode(record(rules, policies, seed, game))

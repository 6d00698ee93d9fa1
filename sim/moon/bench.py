"""Throughput of the Moon batch kernel: ``python -m sim.moon.bench [games] [threads]``.

Plays ``games`` games of ``moon:gamerules`` with three ``count`` seats (and the other built-in
policies) on 1 and ``threads`` Python threads (the kernel releases the GIL), after a warm-up
call that compiles or loads the kernel, and prints complete games per second.

Beside it, as for Loba, a floor kernel: per hand it only shuffles the 22 tiles, deals seven
to each seat and the widow, and plays seven tricks of a random held tile per seat (no bidding,
no rules, no policy), with the same per-game random streams and as many hands per game as the
measured run; the ratio of the two per-hand costs says what the rules and policies cost.

A search policy at a seat (one with a cheap setting, ``Policy.quick``: ``pimc``) also gets
its cost per decision by kind (:func:`decision_costs`), timed on the views of hands played by
``count`` seats.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..game import BenchFigure
from ..jit import jit
from ..rng import below, seed_stream, shuffle
from .batch import resolve_rules, seat_tables, seat_trust
from .kernel import run_games
from .layout import HAND_SIZE, MAX_SEATS, N_TILES, N_TRICKS
from .schema import GAMES, GR, HANDS, SEATS


@jit
def _floor_games(seed, lo, count, hands_per_game, out):
    """Shuffle, deal and play random tiles for ``hands_per_game`` hands of each game; writes a
    checksum per game into ``out`` (so that nothing is optimised away)."""
    rng = np.zeros(2, dtype=np.uint64)
    tiles = np.zeros(N_TILES, dtype=np.int8)
    held = np.zeros((MAX_SEATS, N_TILES), dtype=np.int8)
    for i in range(count):
        seed_stream(rng, seed, lo + i)
        acc = 0
        for _ in range(hands_per_game):
            for t in range(N_TILES):
                tiles[t] = t
            shuffle(rng, tiles, N_TILES)
            held[:, :] = 0
            for q in range(MAX_SEATS):
                for k in range(HAND_SIZE):
                    held[q, tiles[q * HAND_SIZE + k]] = 1
            for _ in range(N_TRICKS):
                for q in range(MAX_SEATS):
                    j = below(rng, N_TILES)
                    while held[q, j] == 0:
                        j = (j + 1) % N_TILES
                    held[q, j] = 0
                    acc += j
        out[i] = acc


def floor_per_second(games: int, hands_per_game: int, threads: int = 1, seed: int = 1) -> float:
    """Floor games per second on ``threads`` threads (the floor kernel releases the GIL)."""
    out = np.zeros(games, dtype=np.int64)
    _floor_games(np.uint64(seed), 0, 2, 1, np.zeros(2, dtype=np.int64))  # compile / load

    def part(a: int, b: int) -> None:
        _floor_games(np.uint64(seed), a, b - a, hands_per_game, out[a:b])

    return games / _timed(part, games, threads)


def _timed(part, games: int, threads: int) -> float:
    """Seconds to run ``part(a, b)`` over ``games`` split evenly into ``threads`` threads."""
    t = time.perf_counter()
    if threads == 1:
        part(0, games)
    else:
        with ThreadPoolExecutor(threads) as ex:
            bounds = [(games * k // threads, games * (k + 1) // threads) for k in range(threads)]
            list(ex.map(lambda ab: part(*ab), bounds))
    return time.perf_counter() - t


def games_per_second(rules, policies, games: int, threads: int = 1, seed: int = 1) -> float:
    """Complete games per second (see :func:`measure`)."""
    return measure(rules, policies, games, threads, seed)[0]


def measure(rules, policies, games: int, threads: int = 1, seed: int = 1) -> tuple[float, float]:
    """(complete games per second, hands per game) of ``policies`` under ``rules``."""
    rs = resolve_rules(rules)
    R = rs.to_array()
    fns, params = seat_tables(policies)
    trust = seat_trust(policies)
    warm = 8
    g = GAMES.empty_array(max(games, warm), MAX_SEATS)  # the warm-up's games fit, however few
    s = SEATS.empty_array(max(games, warm), MAX_SEATS)
    h = HANDS.empty_array(1, MAX_SEATS, 0)
    run_games(R, np.uint64(seed), 0, warm, fns, params, g[:warm], s[:warm], h, trust)  # load
    g, s = g[:games], s[:games]

    def part(a: int, b: int) -> None:
        run_games(R, np.uint64(seed), a, b - a, fns, params, g[a:b], s[a:b], h, trust)

    dt = _timed(part, games, threads)
    return games / dt, float(g[:, GR.HANDS].mean())


def run_bench(rules, seats, games: int, seed: int = 12345, threads: int = 2):
    """Yield report lines: games/s of ``seats`` under ``rules`` on 1 and ``threads`` threads."""
    from .batch import resolve_policy, seat_label, seat_list

    rs = resolve_rules(rules)
    ss = seat_list(seats)
    t0 = time.perf_counter()
    games_per_second(rs, ss, 8, 1, seed)
    yield f"rules {rs.id}, seats {','.join(seat_label(s) for s in ss)}, {games} games"
    yield f"first call (compile or cache load): {time.perf_counter() - t0:.2f} s"
    for th in sorted({1, threads}):
        gps, hpg = measure(rs, ss, games, th, seed)
        fps = floor_per_second(games, max(1, round(hpg)), th, seed)
        ns = 1e9 * th / (gps * hpg)
        floor_ns = 1e9 * th / (fps * max(1, round(hpg)))
        yield (
            f"{th} thread(s): {gps:,.0f} games/s, {gps * hpg:,.0f} hands/s, {hpg:.2f} hands/game,"
            f" {ns:.0f} ns/hand/core"
        )
        yield (
            f"  floor kernel: {fps:,.0f} games/s, {floor_ns:.0f} ns/hand/core; "
            f"kernel/floor = {ns / floor_ns:.1f}x per hand"
        )
        yield BenchFigure(th, gps, ns / floor_ns)
    for seat in dict.fromkeys(seat_label(s) for s in ss):  # a search policy: its decisions
        pol = resolve_policy(seat)[0]
        if getattr(pol, "quick", ""):
            costs = decision_costs(rs, seat, games=10, seed=seed)
            yield f"{seat}: microseconds per decision, timed on count's hands of 10 games:"
            yield "  " + ", ".join(f"{k} {us:,.0f} ({n})" for k, (n, us) in costs.items())


def decision_costs(rules, seat, games: int = 10, seed: int = 1) -> dict[str, tuple[int, float]]:
    """What one decision of the policy ``seat`` (a seat string) costs, by kind: {kind: (how
    many were timed, mean microseconds)}, kinds ``bid``, ``declare``, ``play`` and
    ``play, trick 1`` .. ``play, trick 6``.

    Timed on the views of hands that three ``count`` seats play (game ``0 .. games-1`` of run
    ``seed``): the opener's first call of each auction, the bidder's declaration (under
    ``trump_before_widow`` its trump), and at each trick the leader's play and the next seat's
    after a random legal lead; each a direct call of the policy's compiled function on a copy
    of the view the engine would hand it (a decision with one legal tile is not asked)."""
    from .api import DECISIONS, compiled_moon
    from .batch import param_row, resolve_policy
    from .engine import copy_state, fill_pub, new_state
    from .layout import BIDS, DEC, DOUBLES, MAX_ACTS, N_CONTRACTS, PASS, PH, PL, PUB, G
    from .play import Game
    from .rules import RULE
    from .tricks import legal_list

    rs = resolve_rules(rules)
    R = rs.to_array()
    pol, ov = resolve_policy(seat)
    bid_fn, trump_fn, play_fn = (compiled_moon(f) for f in pol.decisions(DECISIONS))
    params = param_row(pol, ov)
    pub = np.zeros(PUB.SIZE, dtype=np.int32)
    acts = np.zeros((MAX_ACTS, 2), dtype=np.int16)
    rng = np.zeros(2, dtype=np.uint64)
    pick = np.random.default_rng(seed)
    times: dict[str, list[float]] = {}

    def call(kind, fn, st, q, dec, own, rows):
        fill_pub(st, R, q, dec, pub)
        for i, (a, b) in enumerate(rows):
            acts[i, 0], acts[i, 1] = a, b
        seed_stream(rng, seed, len(times.get(kind, ())))
        played = st.played.copy()
        t = time.perf_counter()
        fn(own, pub, played, params, rng, acts, len(rows))
        times.setdefault(kind, []).append(1e6 * (time.perf_counter() - t))

    call("warm-up", bid_fn, new_state(), 0, DEC.BID, np.zeros(N_TILES, np.int8), [(PASS, 0)])
    times.clear()
    for i in range(games):
        g = Game(rs, ("count",) * MAX_SEATS, seed=seed, index=i, trace=False)
        while not g.done:
            st = g.st
            ph = g.phase
            if ph == PH.BID:
                q = int(st.g[G.OPENER])
                rows = [(b, 0) for b in (PASS, *BIDS)]
                call("bid", bid_fn, st, q, DEC.BID, st.hands[q].copy(), rows)
            elif ph == PH.DECLARE:
                b = int(st.g[G.BIDDER])
                own = st.hands[b].copy()
                cs = [c for c in range(N_CONTRACTS) if c != DOUBLES or R[RULE.ALLOW_DOUBLES_TRUMP]]
                if R[RULE.TRUMP_BEFORE_WIDOW]:
                    call("declare", trump_fn, st, b, DEC.TRUMP, own, [(-1, c) for c in cs])
                else:
                    own[st.g[G.WIDOW]] = 1
                    rows = [(t, c) for t in range(N_TILES) if own[t] for c in cs]
                    call("declare", trump_fn, st, b, DEC.DECLARE, own, rows)
            elif ph == PH.PLAY:
                k = int(st.g[G.TRICK])
                lead = int(st.g[G.LEADER])
                c = int(st.g[G.TRUMP])
                tiles = g.hand_of(lead)
                if len(tiles) > 1:
                    kind = f"play, trick {k + 1}"
                    own = st.hands[lead].copy()
                    call(kind, play_fn, st, lead, DEC.PLAY, own, [(t, 0) for t in tiles])
                    alt = new_state()  # the next seat, after a random legal lead
                    copy_state(st, alt)
                    t0 = tiles[int(pick.integers(len(tiles)))]
                    npl = int(alt.g[G.NPLAYED])
                    alt.hands[lead, t0] = 0
                    alt.played[PL.TILE + npl] = t0
                    alt.played[PL.SEAT + npl] = lead
                    alt.played[PL.BY + t0] = lead
                    alt.g[G.NPLAYED] = npl + 1
                    q = (lead + 1) % MAX_SEATS
                    legal = legal_list(g.hand_of(q), t0, c)
                    if len(legal) > 1:
                        own = alt.hands[q].copy()
                        call(kind, play_fn, alt, q, DEC.PLAY, own, [(t, 0) for t in legal])
            g.step()
    out = {k: (len(v), float(np.mean(v))) for k, v in times.items() if k.startswith(("bid", "de"))}
    plays = [x for k, v in times.items() if k.startswith("play") for x in v]
    if plays:
        out["play"] = (len(plays), float(np.mean(plays)))
    for k in sorted(x for x in times if x.startswith("play")):
        out[k] = (len(times[k]), float(np.mean(times[k])))
    return out


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 100_000
    threads = int(argv[1]) if len(argv) > 1 else 2
    for pol in ("count", "greedy", "random"):
        n = games if pol != "random" else max(games // 50, 100)
        for th in sorted({1, threads}):
            gps = games_per_second("gamerules", [pol] * 3, n, th)
            print(f"{pol:>7} x3, {th} thread(s): {gps:,.0f} games/s")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Pure helpers for a ``check`` command: who wins a trick and why, which tiles may be played.

Contracts are written ``"0"`` .. ``"6"``, ``"doubles"``, ``"none"`` (or ``"no_trump"``); tiles
in notation, either end first (``"4-6"``). Answers name tiles high end first.
"""

from __future__ import annotations

from .layout import DOUBLES, LED_TRUMP, NO_TRUMP, TRUMP_NAMES
from .tiles import HI, LO, TileError, parse_tile, parse_tiles, tile_str
from .tricks import is_trump, led_suit, legal_list, play_key, trick_winner

_CONTRACTS = {
    **{str(n): n for n in range(7)},
    "doubles": DOUBLES,
    "none": NO_TRUMP,
    "no_trump": NO_TRUMP,
    "no-trump": NO_TRUMP,
    "notrump": NO_TRUMP,
    "nt": NO_TRUMP,
}


def parse_contract(text) -> int:
    """``"5"`` -> 5, ``"doubles"`` -> DOUBLES, ``"none"`` -> NO_TRUMP ([B5])."""
    key = str(text).strip().lower()
    if key not in _CONTRACTS:
        raise TileError(f"'{text}' is not a trump: write a number 0-6, doubles, or none [B5].")
    return _CONTRACTS[key]


def contract_words(c: int) -> str:
    if c == DOUBLES:
        return "doubles are trump"
    if c == NO_TRUMP:
        return "no trump"
    return f"{c}s are trump"


def suit_words(led: int) -> str:
    """``trumps`` or ``5s``: a led suit ([B7]) in words."""
    return "trumps" if led == LED_TRUMP else f"{led}s"


def trick_winner_explained(trump_text: str, tiles_text) -> tuple[int, str]:
    """(index 0-2 of the winning tile in play order, one sentence saying why) ([B6]-[B8])."""
    c = parse_contract(trump_text)
    ts = parse_tiles(tiles_text)
    if len(ts) != 3:
        raise TileError(f"A trick has 3 tiles, not {len(ts)}.")
    w = int(trick_winner(ts[0], ts[1], ts[2], c))
    led = int(led_suit(ts[0], c))
    win = tile_str(ts[w])
    lead_words = (
        f"{tile_str(ts[0])} leads {suit_words(led)}"
        if led == LED_TRUMP
        else f"{tile_str(ts[0])} leads {led}s"
    )
    trumps = [t for t in ts if is_trump(t, c)]
    if trumps:
        if len(trumps) == 1:
            why = f"{win} is the only trump played"
        else:
            why = (
                f"{win} is the highest of the trumps played ("
                + ", ".join(tile_str(t) for t in trumps)
                + ")"
            )
        return w, f"{win} wins ({contract_words(c)}; {lead_words}): {why} [B8]."
    followers = [t for t in ts if play_key(t, led, c) >= 0]
    if len(followers) == 1:
        why = f"nobody else followed {led}s and no trump was played"
    elif HI[ts[w]] == LO[ts[w]]:
        why = "the double heads its suit and no trump was played"
    else:
        why = f"it is the highest {led} played (ranked by its other number) and no trump was played"
    return w, f"{win} wins ({contract_words(c)}; {lead_words}): {why} [B8]."


def legal_tiles(trump_text: str, led_text, hand_text) -> list[str]:
    """The tiles of ``hand_text`` a player may play to a trick led by ``led_text`` (empty,
    ``None`` or ``"-"``: the player leads), in the hand's order, high end first ([B7])."""
    c = parse_contract(trump_text)
    hand = parse_tiles(hand_text)
    if not 1 <= len(hand) <= 7:  # [B3]: seven tiles dealt, one played to each trick
        raise TileError(f"A hand in play holds 1 to 7 tiles ([B3]), not {len(hand)}.")
    if led_text is None or str(led_text).strip() in ("", "-"):
        led = -1
    else:
        led = parse_tile(led_text)
        if led in hand:
            raise TileError(f"The led tile {tile_str(led)} cannot also be in the hand.")
    ok = set(legal_list(hand, led, c))
    return [tile_str(t) for t in hand if t in ok]


__all__ = ["TRUMP_NAMES", "legal_tiles", "parse_contract", "trick_winner_explained"]

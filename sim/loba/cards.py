"""Card codes and their notation.

A card *identity* is a small int: ``suit * 13 + (rank - 1)`` for the 52 naturals (suits ``S H D C``
= 0..3, rank ``A`` = 1 … ``K`` = 13) and ``JOKER = 52``. The two decks' copies of one card share
an identity ([A12]: identical cards are interchangeable), so a hand is a vector of 53 counts.

Escalera *positions* run 1..14: ``1`` is the low ace, ``2..13`` the face ranks, ``14`` the high
ace ([A16]).

Notation: rank ``A 2 … 10 J Q K`` followed by suit ``S H D C``; the joker is ``JK``. Input is
case-insensitive (``10h``, ``as``, ``jk``); output is canonical (``10H``, ``AS``, ``JK``).
"""

from __future__ import annotations

from ..jit import kernel

N_IDS = 53
JOKER = 52
SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_OF = {r: i + 1 for i, r in enumerate(RANKS)}
_RANK_OF["T"] = 10
_RANK_OF["1"] = 1


class CardError(ValueError):
    """A card that cannot be read."""


def card_id(rank: int, suit: int) -> int:
    """Identity of the natural card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return suit * 13 + rank - 1


@kernel(inline="always")
def rank_of(cid):
    """Rank 1..13 of a natural card's identity (usable in compiled code)."""
    return cid % 13 + 1


@kernel(inline="always")
def suit_of(cid):
    """Suit 0..3 of a natural card's identity (usable in compiled code)."""
    return cid // 13


def parse_card(text: str) -> int:
    """``"10h"`` -> identity. Raises :class:`CardError` with one readable sentence."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*"):
        return JOKER
    if len(t) < 2 or t[-1] not in SUITS or t[:-1] not in _RANK_OF:
        raise CardError(
            f"'{text}' is not a card: write a rank A 2-10 J Q K and a suit S H D C "
            "(e.g. 10H, AS, QC) or JK for a joker."
        )
    return card_id(_RANK_OF[t[:-1]], SUITS.index(t[-1]))


def parse_cards(items) -> list[int]:
    """Parse several cards; accepts a list of strings or one space/comma separated string."""
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    return [parse_card(x) for x in items]


def card_str(cid: int) -> str:
    """Identity -> canonical notation."""
    if cid == JOKER:
        return "JK"
    if not 0 <= cid < JOKER:
        raise CardError(f"{cid} is not a card identity (0..52).")
    return RANKS[rank_of(cid) - 1] + SUITS[suit_of(cid)]


def position_card(pos: int, suit: int) -> int:
    """Identity of the natural that sits at escalera position ``pos`` (1..14) of ``suit``."""
    return card_id(1 if pos == 14 else pos, suit)


def card_value(cid: int, ace_value: int = 10, joker_value: int = 10) -> int:
    """Penalty value of a card left in hand ([A3])."""
    if cid == JOKER:
        return joker_value
    r = rank_of(cid)
    if r == 1:
        return ace_value
    return min(r, 10)

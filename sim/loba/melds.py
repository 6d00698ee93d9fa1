"""Python layer over the kernel's meld judge: ``check_meld`` and readable meld text."""

from __future__ import annotations

import numpy as np

from ..rules import RuleSet
from . import moves
from .cards import JOKER, N_IDS, card_str, parse_card, position_card
from .layout import MELD
from .rules import SPEC

REASONS = {
    moves.BAD_TOO_FEW: "[A15] a meld needs at least three cards",
    moves.BAD_FEW_NATURALS: "[A17] a meld must hold at least two natural cards",
    moves.BAD_JOKER_IN_PIERNA: "[A17] jokers may only be used in escaleras, not in a pierna",
    moves.BAD_PIERNA_SUITS: "[A15] a pierna must use exactly three different suits",
    moves.BAD_ALL_FOUR: "[A15] a pierna may not cover all four suits",
    moves.BAD_SUIT_COPIES: "[A15] a pierna holds at most {decks} cards of one suit",
    moves.BAD_MIXED: "[A15]/[A16] the cards are neither one rank (pierna) nor one suit (escalera)",
    moves.BAD_DUP_RANK: "[A16] an escalera may not repeat a rank",
    moves.BAD_TOO_MANY_JOKERS: "[A17] an escalera holds at most {jpe} joker(s)",
    moves.BAD_SHORT: "[A16] an escalera needs at least {emin} cards",
    moves.BAD_GAPS: (
        "[A16] the cards are not consecutive in one suit (an ace is high or low, never both, "
        "and runs do not wrap)"
    ),
    moves.BAD_TOO_LONG: "[A16] an escalera is at most 13 cards long",
}


def _counts(cards) -> np.ndarray:
    """Copies of each identity as the kernel's int8 counts; any count past 100 (more copies
    than any deck holds, so the meld is invalid either way) is kept at 100, never wrapped."""
    c = np.zeros(N_IDS, dtype=np.int64)
    for x in cards:
        cid = parse_card(x) if isinstance(x, str) else int(x)
        c[cid] += 1
    return np.minimum(c, 100).astype(np.int8)


def judge(cards, rules: RuleSet | None = None):
    """Kernel verdict on ``cards`` as a new meld: ``(code, kind, key, lo, hi, jmask)``."""
    rules = rules or SPEC.make()
    return moves.judge_meld(_counts(cards), rules.to_array())


def check_meld(cards, rules: RuleSet | None = None) -> tuple[bool, str]:
    """Judge ``cards`` (notation strings or identities) as a new meld laid down from hand.

    Returns ``(True, "<kind> <cards in order>")`` or ``(False, "[rule id] reason")``.
    """
    rules = rules or SPEC.make()
    code, kind, key, lo, hi, jmask = judge(cards, rules)
    if code != moves.OK:
        return False, REASONS[code].format(
            decks=rules.decks, jpe=rules.jokers_per_escalera, emin=rules.escalera_min
        )
    counts = _counts(cards)
    if kind == MELD.ESCALERA:
        parts = []
        for p in range(lo, hi + 1):
            nat = card_str(position_card(p, key))
            parts.append(f"JK({nat})" if (jmask >> p) & 1 else nat)
        return True, "escalera " + " ".join(parts)
    parts = []
    for s in range(4):
        cid = s * 13 + key - 1
        parts += [card_str(cid)] * int(counts[cid])
    return True, "pierna " + " ".join(parts)


__all__ = ["REASONS", "check_meld", "judge", "JOKER"]

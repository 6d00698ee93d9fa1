"""docs/rules.md, the rules reference users get, against RULES.md and the knob registry.

Every rule id of RULES.md ([A1] ... [A33], [A14b], [B1] ... [B11]) must begin exactly one
paragraph or bullet of docs/rules.md (so a reader finds a rule from its id in one hop), and
every Loba knob of the registry must appear with its default, next to its rule and in the knob
table. Where the shared RULES.md is not available (a user's checkout), the expected Loba ids
come from the knob registry instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.loba.rules import KNOBS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"
SPEC = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"

RULE_ID = re.compile(r"\[([AB]\d+[a-z]?)\]")
# A line that starts a paragraph or a bullet with a rule id: "- [A14b] ...", "[B3] ...".
# An indented line without a bullet marker continues a bullet, so it does not count.
DEFINING = re.compile(r"^(?:\s*[-*+]\s+|\s*\d+\.\s+)?(?:\*\*)?\[([AB]\d+[a-z]?)\]")
# Backticked names in RULES.md (knobs and their values), e.g. `discard_take`, `max_rebuys=0`.
TICKED = re.compile(r"`([a-z][a-z0-9_]*)(?:=[^`]*)?`")


def _doc() -> str:
    assert DOC.is_file(), f"{DOC} is missing"
    return DOC.read_text(encoding="utf-8")


def _spec_ids() -> set[str]:
    return set(RULE_ID.findall(SPEC.read_text(encoding="utf-8")))


def _registry_ids() -> set[str]:
    return {str(k.rule).strip("[]") for k in KNOBS}


def _expected_ids() -> set[str]:
    return _spec_ids() if SPEC.is_file() else _registry_ids()


def _fmt(value) -> str:
    """A knob value as the rules document writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _defined_ids(text: str) -> dict[str, list[str]]:
    """Rule id -> the paragraphs/bullets it begins (with their continuation lines)."""
    out: dict[str, list[str]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = DEFINING.match(line)
        if not m:
            continue
        block = [line]
        for nxt in lines[i + 1 :]:
            if not nxt.strip() or DEFINING.match(nxt) or nxt.lstrip().startswith(("#", "|")):
                break
            block.append(nxt)
        out.setdefault(m.group(1), []).append("\n".join(block))
    return out


def _knob_rows(text: str) -> dict[str, list[str]]:
    """Knob name -> the cells of its knob-table row(s): | `name` | `default` | [Axx] | ... |."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([a-z][a-z0-9_]*)`", cells[0]) if cells else None
        if m and len(cells) >= 4 and RULE_ID.fullmatch(cells[2]):
            rows[m.group(1)] = cells
    return rows


def test_knob_registry_is_not_empty():
    assert len(KNOBS) >= 20
    assert {"decks", "jokers", "ace_value", "discard_take", "elimination_score"} <= {
        k.name for k in KNOBS
    }


def test_every_rule_id_is_defined_once_in_the_doc():
    expected = _expected_ids()
    assert expected, "no rule ids to look for"
    if SPEC.is_file():
        # RULES.md part A and B as they stand: A1..A33, A14b, B1..B11.
        assert {f"A{i}" for i in range(1, 34)} | {"A14b"} | {f"B{i}" for i in range(1, 12)} <= (
            expected
        )
    defined = _defined_ids(_doc())
    missing = sorted(expected - set(defined))
    assert not missing, f"rule ids missing from docs/rules.md (at a paragraph start): {missing}"
    twice = sorted(r for r, blocks in defined.items() if len(blocks) > 1)
    assert not twice, f"rule ids that begin more than one paragraph: {twice}"
    unknown = sorted(set(defined) - expected) if SPEC.is_file() else []
    assert not unknown, f"docs/rules.md defines rule ids RULES.md does not have: {unknown}"


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_loba_knob_documented_with_default(knob):
    text = _doc()
    name, default, rule = knob.name, _fmt(knob.default), str(knob.rule).strip("[]")
    # In the knob table: name, default, rule id.
    rows = _knob_rows(text)
    assert name in rows, f"knob {name} has no row in a knob table of docs/rules.md"
    cells = rows[name]
    assert cells[1] == f"`{default}`", f"{name}: table says {cells[1]}, registry default {default}"
    assert cells[2] == f"[{rule}]", f"{name}: table says {cells[2]}, registry rule [{rule}]"
    for choice in getattr(knob, "choices", None) or ():
        if choice != knob.default:
            assert f"`{choice}`" in cells[3], f"{name}: alternative {choice} not in the table"
    # Next to its rule: the paragraph that begins with the rule id names it with its default.
    blocks = "\n".join(_defined_ids(text).get(rule, []))
    assert blocks, f"rule [{rule}] of knob {name} is not defined in docs/rules.md"
    assert re.search(rf"`{name}`\s*=\s*`{re.escape(default)}`", blocks), (
        f"the paragraph of [{rule}] does not say `{name}` = `{default}`"
    )


def test_every_name_of_rules_md_appears_in_the_doc():
    """Every knob and value named in RULES.md parts A and B (Moon knobs included); without
    RULES.md, every registry knob and each of its named values."""
    if SPEC.is_file():
        spec = SPEC.read_text(encoding="utf-8")
        names = set(TICKED.findall(spec[spec.index("## Part A") :]))
        assert {"all_pass", "trump_before_widow", "made_scores", "moon", "target"} <= names
    else:
        names = {k.name for k in KNOBS}
        names |= {c for k in KNOBS for c in (getattr(k, "choices", None) or ())}
    text = _doc()
    missing = sorted(n for n in names if f"`{n}" not in text)
    assert not missing, f"names from RULES.md missing in docs/rules.md: {missing}"

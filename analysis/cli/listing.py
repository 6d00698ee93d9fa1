"""What ``loba rules``, ``loba policies`` and ``loba tables`` print: the registries as readable
tables or JSON (and the rules as a house-rules TOML file)."""

from __future__ import annotations

import json

from sim.games import game_names, get_game

from .console import table


def specs_of(game) -> list:
    """The spec of ``game``, or every game's when it is None."""
    return [get_game(game)] if game else [get_game(g) for g in game_names()]


def rules_output(rules, house, fmt: str, seats=None, label=None) -> str:
    """Every knob of ``rules`` as a table, JSON, or a house-rules file (TOML: the seats and
    label given, else those of the house-rules file ``house`` the rules came from)."""
    if fmt == "toml":
        from sim.house import house_toml
        from sim.setup import check_run

        if house is not None:
            seats = house.pick_seats(seats)
            label = house.label if label is None else label
        if label is not None and not label.strip():
            raise ValueError("--label is empty: give the house rules a name.")
        seat_list = None if seats is None else check_run(rules, seats, 1, 0)[2]
        return house_toml(rules, seat_list, label and label.strip())
    keys = ("knob", "value", "default", "rule", "allowed", "meaning")
    if fmt == "json":
        knobs = [dict(zip(keys, row, strict=True)) for row in rules.describe()]
        report = {"game": rules.game, "rules_id": rules.id, "knobs": knobs}
        return json.dumps(report, indent=2) + "\n"
    rows = [
        (k, v + (" *" if v != d else ""), d, r, alt, meaning)
        for k, v, d, r, alt, meaning in rules.describe()
    ]
    return "\n".join([f"rules: {rules.id}", *table(rows, keys)]) + "\n"


def _param_records(obj) -> dict:
    """Each parameter's default and range (``null`` where none is declared), for JSON; none
    for a rule that reads its values from a file (``table:PATH``)."""
    if getattr(obj, "load", None) is not None:
        return {}
    ranges = getattr(obj, "ranges", {}) or {}
    return {
        k: {"default": v, "range": list(ranges[k]) if k in ranges else None}
        for k, v in obj.params.items()
    }


def _params(obj) -> str:
    """``patience=3 (0..200)``: each parameter's default and, if declared, its range; ``PATH``
    for a rule that reads its values from a file (``table:PATH``)."""
    if getattr(obj, "load", None) is not None:
        return "PATH (a file)"
    ranges = getattr(obj, "ranges", {}) or {}

    def one(k, v):
        r = ranges.get(k)
        return f"{k}={v:g}" + (f" ({r[0]:g}..{r[1]:g})" if r else "")

    return ", ".join(one(k, v) for k, v in obj.params.items()) or "-"


def policies_output(game, fmt: str) -> str:
    """Every built-in policy and add-on rule of ``game`` (None: of every game)."""
    specs = specs_of(game)
    if fmt == "json":
        out = {
            spec.name: {
                "policies": {
                    n: {"params": _param_records(p), "doc": p.doc} for n, p in spec.policies.items()
                },
                **{
                    f"{kind}_rules": {
                        n: {"params": _param_records(r), "doc": r.doc} for n, r in reg.items()
                    }
                    for kind, (reg, _default) in spec.addons.items()
                },
            }
            for spec in specs
        }
        return json.dumps(out, indent=2) + "\n"
    lines = []
    for spec in specs:
        rows = [(name, _params(p), p.doc) for name, p in spec.policies.items()]
        lines.append(f"{spec.title} policies (seat: POLICY[:param=value...]):")
        lines += ["  " + x for x in table(rows, ("policy", "parameters", "what it does"))]
        for kind, (registry, default) in spec.addons.items():
            rows = [(name, _params(r), r.doc) for name, r in registry.items()]
            seat = f"seat: POLICY+{kind}=RULE; default {default}"
            lines.append(f"{spec.title} {kind} rules ({seat}):")
            head = (f"{kind} rule", "parameters", "what it does")
            lines += ["  " + x for x in table(rows, head)]
    return "\n".join(lines) + "\n"


def tables_output(game, fmt: str) -> str:
    """The tables a run of ``game`` (None: of every game) writes, with their columns."""
    specs = specs_of(game)
    if fmt == "json":
        out = {
            spec.name: {
                t.name: {
                    "doc": t.doc,
                    "detail": bool(t.detail),
                    "columns": [{"name": c.name, "type": c.dtype, "doc": c.doc} for c in t.columns],
                }
                for t in spec.tables
            }
            for spec in specs
        }
        return json.dumps(out, indent=2) + "\n"
    lines = []
    for spec in specs:
        for t in spec.tables:
            when = " (with --rounds)" if t.detail else ""
            lines.append(f"{spec.name} {t.name}.parquet{when}: {t.doc}")
            rows = [(c.name, c.dtype, c.doc) for c in t.columns]
            lines += ["  " + x for x in table(rows, ("column", "type", "meaning"))]
    return "\n".join(lines) + "\n"


def bench_table(figures, end_to_end: dict) -> list[str]:
    """``loba bench``'s closing table: per thread count, the kernel's games/s (its
    :class:`sim.game.BenchFigure`), the same games end to end (``simulate --out``,
    ``end_to_end[threads]``), their ratio, and the kernel's time per turn over the floor's."""
    rows = []
    for f in figures:
        e = end_to_end[f.threads]
        floor = "" if f.per_floor is None else f"{f.per_floor:.1f}x"
        rows.append((f.threads, f"{f.games_per_s:,.0f}", f"{e:,.0f}",
                     f"{e / f.games_per_s:.2f}", floor))  # fmt: skip
    head = ("threads", "kernel games/s", "simulate --out games/s", "end to end / kernel",
            "kernel / floor")  # fmt: skip
    return ["", "end to end (a run directory written, as simulate --out) beside the kernel:",
            *table(rows, head)]  # fmt: skip

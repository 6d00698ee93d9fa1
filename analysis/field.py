"""Fields of players: does a finding hold as the players get stronger?

A **field** is the policies at the table. Each game names its fields once, in its own
analysis registration (:attr:`analysis.bygame.GameAnalysis.fields`, read by
:func:`named_fields`), weakest first: by convention ``greedy`` (every seat the game's greedy
policy), ``mixed`` (it and a stronger one alternating), the strongest heuristic alone, and
``expert`` (its searching player in every seat); docs/analysis.md tabulates each game's. They
are used by the
``--field`` option of the commands (``sweep``, ``compare``, ``findings``, and a game's own
experiments) and the report's "Across skill" section.

Any other built-in policy name (``careful``, ``hold``...) is the field of that policy in every
seat. A list of fields (``greedy,smart,mixed``) runs the analysis once per field; list them
weakest first: each field's finding is set against the **first** field's.

Every field plays the same seeds (game ``i`` starts from the same deal), and within a field
the finding is a paired difference with its 95% interval. :func:`skill_verdict` words how the
finding moves from the first field to another:

- ``holds``: both intervals exclude 0 with the same sign;
- ``flips``: both exclude 0, with opposite signs;
- ``indistinguishable from noise``: the first field's interval excludes 0, the other's covers
  it;
- ``emerges``: the first field's interval covers 0, the other's excludes it;
- ``noise in both``: both cover 0;
- ``cannot tell``: an interval is missing (no game differed, too few games).

Beside the verdict, the change of the finding between the two fields (``change``) has an
interval built from the two intervals' half-widths as if the fields were independent samples
(``sqrt(h1² + h2²)``); the fields share their deals, which correlates them positively, so
this interval is if anything too wide.
"""

from __future__ import annotations

import math

import polars as pl

from .errors import AnalysisError

HOLDS = "holds"
FLIPS = "flips"
NOISE = "indistinguishable from noise"
EMERGES = "emerges"
BOTH_NOISE = "noise in both"
CANNOT = "cannot tell"
VERDICTS = (HOLDS, FLIPS, NOISE, EMERGES, BOTH_NOISE, CANNOT)

__all__ = [
    "VERDICTS",
    "add_across",
    "across_sentences",
    "field_of",
    "field_policies",
    "field_seats",
    "named_fields",
    "compare_field_runs",
    "compare_fields",
    "parse_fields",
    "skill_verdict",
]


def _builtin_policies(game: str | None = None) -> list[str]:
    from sim.games import get_game

    return list(get_game(game).policies)


def named_fields(game: str | None = None) -> dict[str, tuple[str, ...]]:
    """``game``'s named fields (None: the default game's), weakest first: name -> the policies
    seated in turn from seat 0 (:attr:`analysis.bygame.GameAnalysis.fields`, declared in the
    game's analysis registration); only those whose policies the game has."""
    from .bygame import for_game

    ga = for_game(game)
    pols = _builtin_policies(game)
    declared = ga.fields if ga is not None else {}
    return {f: tuple(ps) for f, ps in declared.items() if all(p in pols for p in ps)}


def __getattr__(name: str):
    if name == "FIELDS":  # the default game's named fields (before games declared their own)
        return named_fields()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named(game: str | None) -> list[str]:
    return list(named_fields(game))


def field_policies(name: str, game: str | None = None) -> tuple[str, ...]:
    """The policies of field ``name`` of ``game`` (None: the default game) in seat order (repeated
    around the table); any built-in policy of the game that is not a named field is that
    policy in every seat."""
    name = str(name).strip()
    named = named_fields(game)
    if name in named:
        return named[name]
    if name in _builtin_policies(game):
        return (name,)
    choices = [*named, *(p for p in _builtin_policies(game) if p not in named)]
    raise AnalysisError(f"Unknown field '{name}': choose from {', '.join(choices)}.")


def default_players(game: str | None = None) -> int:
    """The table size of ``game``'s standard seating (its spec's ``default_seats``)."""
    from sim.games import get_game

    return len(get_game(game).default_seats.split(","))


def field_seats(name: str, players: int | None = None, game: str | None = None) -> str:
    """The seat string of field ``name`` of ``game`` at ``players`` seats (default: the game's
    table): ``field_seats("mixed") == "greedy,smart,greedy,smart"``."""
    pol = field_policies(name, game)
    players = default_players(game) if players is None else players
    return ",".join(pol[i % len(pol)] for i in range(players))


def parse_fields(text, game: str | None = None) -> list[str]:
    """``"greedy,smart,mixed"`` (or a list) -> the field names of ``game``, checked (one
    sentence for an unknown or repeated field)."""
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [str(x).strip() for x in items if str(x).strip()]
    if not names:
        raise AnalysisError(f"--field names no field: choose from {', '.join(_named(game))}.")
    for n in names:
        field_policies(n, game)
    dup = [n for i, n in enumerate(names) if n in names[:i]]
    if dup:
        raise AnalysisError(f"--field lists '{dup[0]}' twice; name each field once.")
    return names


def field_of(seat_labels, fields=None, game: str | None = None) -> str | None:
    """The field of ``game`` (None: the default game) whose seats are exactly ``seat_labels``
    (``fields``: the names to try, default every named field and every built-in policy), else
    None."""
    labels = [
        s.strip() for s in (seat_labels.split(",") if isinstance(seat_labels, str) else seat_labels)
    ]
    names = list(fields) if fields is not None else [*_named(game), *_builtin_policies(game)]
    for n in names:
        if field_seats(n, len(labels), game).split(",") == labels:
            return n
    return None


def _covers_zero(lo: float, hi: float) -> bool:
    return lo <= 0 <= hi


def _bad(*xs) -> bool:
    return any(x is None or (isinstance(x, float) and math.isnan(x)) for x in xs)


def skill_verdict(ref_low, ref_high, low, high) -> str:
    """How a finding moves from the first field (interval ``ref_low..ref_high``) to another
    (``low..high``): ``holds``, ``flips``, ``indistinguishable from noise``, ``emerges``,
    ``noise in both`` or ``cannot tell`` (module docstring)."""
    if _bad(ref_low, ref_high, low, high):
        return CANNOT
    ref0, oth0 = _covers_zero(ref_low, ref_high), _covers_zero(low, high)
    if ref0 and oth0:
        return BOTH_NOISE
    if ref0:
        return EMERGES
    if oth0:
        return NOISE
    return HOLDS if (ref_low > 0) == (low > 0) else FLIPS


def change_interval(ref, ref_low, ref_high, est, low, high):
    """(est - ref, low, high): the change of a finding between two fields, from the two
    intervals' half-widths combined as independent (conservative for fields on shared deals)."""
    if _bad(ref, ref_low, ref_high, est, low, high):
        return (None, None, None)
    d = float(est) - float(ref)
    h = math.hypot((ref_high - ref_low) / 2, (high - low) / 2)
    return (d, d - h, d + h)


def add_across(
    df: pl.DataFrame,
    keys: list[str],
    est: str,
    low: str,
    high: str,
    fields: list[str] | None = None,
    prefix: str = "",
) -> pl.DataFrame:
    """``df`` (one row per field and key, a ``field`` column) with ``{prefix}across`` (the
    verdict against the first field's row of the same keys; empty for the first field itself
    and for rows without an estimate) and ``{prefix}change``, ``..._low``, ``..._high`` (the
    estimate minus the first field's, :func:`change_interval`)."""
    order = fields or df["field"].unique(maintain_order=True).to_list()
    ref_field = order[0]
    ref = {}
    for r in df.filter(pl.col("field") == ref_field).iter_rows(named=True):
        ref[tuple(r[k] for k in keys)] = r
    verdicts, ch, chl, chh = [], [], [], []
    for r in df.iter_rows(named=True):
        b = ref.get(tuple(r[k] for k in keys))
        if r["field"] == ref_field or b is None or _bad(r[est]):
            verdicts.append("")
            ch.append(None)
            chl.append(None)
            chh.append(None)
            continue
        verdicts.append(skill_verdict(b[low], b[high], r[low], r[high]))
        d, lo, hi = change_interval(b[est], b[low], b[high], r[est], r[low], r[high])
        ch.append(d)
        chl.append(lo)
        chh.append(hi)
    return df.with_columns(
        pl.Series(f"{prefix}across", verdicts, dtype=pl.String),
        pl.Series(f"{prefix}change", ch, dtype=pl.Float64),
        pl.Series(f"{prefix}change_low", chl, dtype=pl.Float64),
        pl.Series(f"{prefix}change_high", chh, dtype=pl.Float64),
    )


def across_sentences(
    df: pl.DataFrame,
    keys: list[str],
    est: str,
    low: str,
    high: str,
    name,
    unit=None,
    prefix: str = "",
) -> list[str]:
    """One line per key of a table made by :func:`add_across`: the finding in each field with
    its interval, then the verdict for each later field::

        net stakes (seat 0 rebuying - declining): +0.2 [+0.17, +0.23] with greedy players,
        +0.1 [+0.07, +0.13] with smart players; smart: holds (change -0.1 [-0.14, -0.06]).

    ``name(row)``: what the key is called; ``unit(row)``: its unit for :mod:`sim.fmt`
    (``share`` prints percentage points)."""
    from sim import fmt

    lines = []
    groups: dict[tuple, list[dict]] = {}
    for r in df.iter_rows(named=True):
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    for rows in groups.values():
        u = unit(rows[0]) if callable(unit) else unit
        parts = [
            f"{fmt.diff(r[est], u)} {fmt.interval(r[low], r[high], u, signed=True)} with"
            f" {r['field']} players"
            for r in rows
        ]
        verdicts = []
        for r in rows[1:]:
            v = r.get(f"{prefix}across") or CANNOT
            c = r.get(f"{prefix}change")
            if c is not None:
                ci = fmt.interval(r[f"{prefix}change_low"], r[f"{prefix}change_high"], u, True)
                v += f" (change {fmt.diff(c, u)} {ci})"
            verdicts.append(f"{r['field']}: {v}")
        tail = f"; {'; '.join(verdicts)}" if verdicts else ""
        lines.append(f"{name(rows[0])}: {', '.join(parts)}{tail}.")
    return lines


# ---------------------------------------------------------------- runs of several fields
def fields_of_runs(rs, fields=None) -> dict[str, list[str]]:
    """The variants of a :class:`analysis.io.RunSet` by field (runs whose seats are a field's,
    :func:`field_of`), fields in the order of ``fields`` (default: of the runs); runs of
    other seatings are left out."""
    out: dict[str, list[str]] = {f: [] for f in fields or ()}
    for run, v in zip(rs.runs, rs.variant_of, strict=True):
        f = field_of(run.seat_labels, fields, run.spec.name)
        if f is not None and v not in out.setdefault(f, []):
            out[f].append(v)
    return out


def paths_in_fields(paths, fields, labels=None) -> tuple[list, list | None]:
    """The run directories among ``paths`` (and their ``labels``) whose seats are one of
    ``fields``; one sentence if a field has none."""
    from .io import load_run

    keep, names, seen, game = [], [], set(), None
    for i, p in enumerate(paths):
        run = load_run(p)
        game = run.spec.name
        f = field_of(run.seat_labels, fields, game)
        if f is not None:
            keep.append(p)
            names.append(labels[i] if labels else None)
            seen.add(f)
    for f in fields:
        if f not in seen:
            raise AnalysisError(
                f"No run has the seats of field '{f}' ({field_seats(f, game=game)}); give runs"
                " simulated with them."
            )
    return keep, (names if labels else None)


def compare_fields(rs, fields=None, baseline: str | None = None) -> pl.DataFrame:
    """:func:`analysis.comparison.compare` within each field of the runs (the same rules in
    every field; the baseline is the first field's first rules, or ``baseline``, a rules id),
    stacked with ``field`` and ``rules`` columns and the verdict across skill of every
    difference against the first field (:func:`add_across` on ``diff``, ``diff_low``,
    ``diff_high``). Needs two fields with at least two rule sets each."""
    from .comparison import compare
    from .io import canonical_id

    groups = {f: vs for f, vs in fields_of_runs(rs, fields).items() if len(vs) >= 2}
    if len(groups) < 2:
        raise AnalysisError(
            "Across skill needs runs of at least two fields, each under at least two rule sets"
            f" (fields: {', '.join(named_fields(rs.game))}); these runs have "
            + (", ".join(f"{f}: {len(v)}" for f, v in fields_of_runs(rs, fields).items()) or "none")
            + "."
        )
    rules_of = {v: rs.runs_of(v)[0].rules_id for vs in groups.values() for v in vs}
    order = list(groups)
    base = canonical_id(baseline) if baseline is not None else rules_of[groups[order[0]][0]]
    parts = []
    for f, vs in groups.items():
        b = next((v for v in vs if canonical_id(rules_of[v]) == canonical_id(base)), None)
        if b is None:
            raise AnalysisError(f"Field '{f}' has no run of the baseline rules '{base}'.")
        g = rs.games.filter(pl.col("variant").is_in(vs))
        s = rs.seats.filter(pl.col("variant").is_in(vs))
        c = compare(g, s, baseline=b, game=rs.game)
        parts.append(
            c.select(
                pl.lit(f).alias("field"),
                pl.col("variant").replace_strict(rules_of, return_dtype=pl.String).alias("rules"),
                pl.lit(rules_of[b]).alias("baseline_rules"),
                pl.all(),
            )
        )
    df = pl.concat(parts, how="diagonal_relaxed")
    return add_across(df, ["rules", "metric"], "diff", "diff_low", "diff_high", order)


def compare_field_runs(paths, fields, baseline: str | None = None, labels=None) -> pl.DataFrame:
    """:func:`compare_fields` of the run directories among ``paths`` (named ``labels``) whose
    seats are one of ``fields`` (what ``compare --field`` prints)."""
    from .io import load_runs

    paths, names = paths_in_fields(list(paths), fields, labels)
    return compare_fields(load_runs(paths, names), fields, baseline)


def compare_fields_sentences(df: pl.DataFrame) -> list[str]:
    """One line per rule set and metric of :func:`compare_fields`: the difference from the
    baseline rules in each field, and the verdict across skill."""
    part = df.filter(pl.col("diff").is_not_null())
    return across_sentences(
        part,
        ["rules", "metric"],
        "diff",
        "diff_low",
        "diff_high",
        lambda r: f"{r['metric']}, {r['rules']} - {r['baseline_rules']}",
        lambda r: r["unit"],
    )


def compare_fields_output(df: pl.DataFrame, fields, fmt: str) -> list[str]:
    """What ``loba compare --field`` prints: each field's comparison, then across skill."""
    from .text import compare_text, render

    if fmt != "table":
        return [render(df, fmt)]
    out = []
    for f in fields:
        out += [f"{f} players:", compare_text(df.filter(pl.col("field") == f)), ""]
    out.append(f"Across skill (each field against {fields[0]} players):")
    return out + compare_fields_sentences(df)

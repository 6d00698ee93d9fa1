"""Run directories -> lazy polars tables, with provenance checks.

A run directory is what ``loba simulate --out DIR`` (or ``Results.write``) writes:
``manifest.json`` plus ``games.parquet``, ``seats.parquet`` and, with ``--rounds``,
``rounds.parquet``, each a folder of parts. Exactly the parts the manifest lists are read, after
checking each one's size and SHA-256 against the manifest (``verify=True``, ``--verify``: also
decoding it and checking its rows and games). A missing, damaged or foreign part is refused in
one sentence (:class:`AnalysisError`) unless ``skip_damaged`` (``--skip-damaged``), which reads
the rest and says which games are missing (:class:`DamagedRunWarning`); files the manifest does
not list are not read (a warning names them). Run directories from before parts were listed
(single-file tables, no ``format``) are read as they are.

:func:`load_run` checks one directory; :func:`load_runs` puts several side by side. Every row
gets two columns: ``run`` (the directory's position in the list) and ``variant`` (what the
metrics group by): the rules id, plus the seating when the runs do not all share one. Runs with
the same variant are pooled; they must then come from the same engine version (``rules_version``)
and must not hold the same games twice. Anything else is refused with :class:`AnalysisError`.

A run whose manifest says ``"complete": false`` (an interrupted chunked run) is read as it is:
its finished games are complete games, so every metric stays valid on them; a
:class:`IncompleteRunWarning` says how many games are there.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .errors import AnalysisError


def required(spec, table: str) -> tuple[str, ...]:
    """The columns a table of ``spec``'s game must have: its declaration (sim.schema)."""
    return tuple(spec.table[table].names)


def _strings(spec) -> set[str]:
    return {c.name for t in spec.tables for c in t.columns if c.dtype in ("cat", "enum")}


MANIFEST_KEYS = ("rules_id", "rules_version", "seats", "n_players", "seed", "games")


class IncompleteRunWarning(UserWarning):
    """A run directory whose manifest says the run was interrupted."""


class DamagedRunWarning(UserWarning):
    """Parts of a run directory were skipped (damaged), or files in it are not listed."""


_POLICY = contextvars.ContextVar("loba_read_policy", default=(False, False))


@contextlib.contextmanager
def reading(verify: bool = False, skip_damaged: bool = False):
    """Within this block, :func:`load_run` decodes every part (``verify``) and reads around
    damaged parts (``skip_damaged``) unless told otherwise (the CLI's --verify/--skip-damaged)."""
    token = _POLICY.set((bool(verify), bool(skip_damaged)))
    try:
        yield
    finally:
        _POLICY.reset(token)


MANIFEST_TYPES = {
    "rules_id": str,
    "rules_version": int,
    "seats": list,
    "n_players": int,
    "seed": int,
    "games": int,
}


def _check_manifest_types(manifest: dict, mpath: Path) -> None:
    for k, typ in MANIFEST_TYPES.items():
        v = manifest[k]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise AnalysisError(f"'{mpath}' is not a run manifest: its '{k}' is malformed.")
    if not all(isinstance(x, str) for x in manifest["seats"]) or not manifest["seats"]:
        raise AnalysisError(f"'{mpath}' is not a run manifest: its 'seats' is malformed.")
    if manifest["games"] < 0 or not isinstance(manifest.get("first_game", 0), int):
        raise AnalysisError(f"'{mpath}' is not a run manifest: its 'games' is malformed.")


def _game_ranges(spans) -> str:
    """``[(0, 99), (300, 399)]`` -> ``0 to 99 and 300 to 399`` (at most 3, then a count)."""
    spans = sorted(spans)
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and merged[-1][1] + 1 >= a:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    words = [f"{a} to {b}" for a, b in merged[:3]]
    if len(merged) > 3:
        words.append(f"{len(merged) - 3} more ranges")
    return ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1]


def _listed_parts(p: Path, verify: bool, skip: bool):
    """The listed, checked part files of a run directory in the parts format:
    (RunDir, table -> files, games read). Refuses or warns as the module docstring says."""
    from sim.files import RunDirError
    from sim.rundir import RunDir

    try:
        run = RunDir.read(p, strict=False)
    except RunDirError as e:
        raise AnalysisError(str(e).rstrip(".") + ".") from None
    problems = run.inspect(full=verify)
    spoiled = [q for q in problems if q.spoils or q.kind == "layout"]
    others = [q for q in problems if q not in spoiled]
    if spoiled and not skip:
        more = len(spoiled) - 1
        also = f" (and {more} more problem{'s' * (more != 1)})" if more else ""
        cure = (
            f"move it away and run 'loba simulate --resume {p}'"
            if spoiled[0].kind == "layout"
            else f"'loba simulate --resume {p}' plays the damaged games again"
        )
        raise AnalysisError(
            f"Run '{p}' is damaged: {spoiled[0].text}{also}; 'loba verify {p}' lists every"
            f" problem, {cure}, and --skip-damaged reads the rest."
        )
    bad = {q.part for q in spoiled if q.part}
    if spoiled:
        spans = [
            (run.parts[n]["first"], run.parts[n]["first"] + run.parts[n]["count"] - 1) for n in bad
        ]
        warnings.warn(
            f"Run '{p}' is damaged ({spoiled[0].text}): skipping {len(bad)} part"
            f"{'s' * (len(bad) != 1)}, so games {_game_ranges(spans)} are missing from the"
            " analysis.",
            DamagedRunWarning,
            stacklevel=3,
        )
    if others:
        n = len(others)
        warnings.warn(
            f"Run '{p}' has {n} file{'s' * (n != 1)} its manifest does not list"
            f" ({others[0].path}{', ...' if n > 1 else ''}); {'they are' if n > 1 else 'it is'}"
            " not read ('loba verify' names them).",
            DamagedRunWarning,
            stacklevel=3,
        )
    listed, games = run.games_done(), run.manifest["games"]
    if run.manifest["complete"] and listed != games:
        raise AnalysisError(
            f"'{p}' is damaged: its manifest says the run is complete with {games} games but"
            f" lists parts of {listed}."
        )
    keep = [n for n in sorted(run.parts, key=lambda n: run.parts[n]["first"]) if n not in bad]
    files = {t: [run.part_path(t, n) for n in keep] for t in run.manifest["tables"]}
    return run, files, sum(run.parts[n]["count"] for n in keep)


def canonical_id(rules_id, game=None) -> str:
    """``rules_id`` in canonical form, with its game (an id that names none: the default game).
    An id this version cannot read (a knob it does not know) is kept as it is."""
    from sim.rules import RuleError
    from sim.setup import parse_rules_id

    try:
        return parse_rules_id(str(rules_id), game).id
    except (RuleError, ValueError):
        return str(rules_id)


def collect(lf: pl.LazyFrame | pl.DataFrame, what: str = "the run's tables") -> pl.DataFrame:
    """``lf.collect()``, turning a read failure (a corrupt Parquet page) into AnalysisError."""
    if isinstance(lf, pl.DataFrame):
        return lf
    try:
        return lf.collect()
    except (pl.exceptions.PolarsError, OSError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AnalysisError(f"Could not read {what}: {first[:200]}.") from None


def _scan(path: Path, table: str, spec, files: list[Path] | None = None) -> pl.LazyFrame:
    if files is not None and not files:  # a run with no (readable) part yet
        return (
            pl.DataFrame(schema=spec.table[table].schema())
            .lazy()
            .select(
                [
                    pl.col(c).cast(pl.String) if c in _strings(spec) else pl.col(c)
                    for c in required(spec, table)
                ]
            )
        )
    if files is None and not path.exists():
        raise AnalysisError(f"Run directory '{path.parent}' has no {table} table ({path.name}).")
    try:
        lf = pl.scan_parquet(files if files is not None else path)
        schema = lf.collect_schema()
    except (pl.exceptions.PolarsError, OSError, ValueError) as e:
        msg = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise AnalysisError(f"'{path}' is not a readable Parquet table ({msg}).") from None
    need = required(spec, table)
    missing = [c for c in need if c not in schema]
    if missing:
        raise AnalysisError(
            f"'{path}' is not a {spec.title} {table} table: it lacks the column(s)"
            f" {', '.join(missing)}."
        )
    strings = _strings(spec)
    exprs = [pl.col(c).cast(pl.String) if c in strings else pl.col(c) for c in need]
    extra = [c for c in schema if c not in need]
    return lf.select(exprs + [pl.col(c) for c in extra])


@dataclass
class Run:
    """One run directory: its manifest and lazy tables (``rounds`` is None when not recorded)."""

    path: Path
    manifest: dict
    games: pl.LazyFrame
    seats: pl.LazyFrame
    rounds: pl.LazyFrame | None
    n_games: int

    @property
    def spec(self):
        """The run's game (:class:`sim.game.GameSpec`; a run that names none: the default
        game)."""
        from sim.games import get_game

        return get_game(self.manifest.get("game"))

    @property
    def rules_id(self) -> str:
        """The canonical id (``loba:pagat``), also for runs written before ids named their
        game (``pagat``)."""
        return canonical_id(self.manifest["rules_id"], self.manifest.get("game"))

    @property
    def seat_labels(self) -> list[str]:
        return list(self.manifest["seats"])

    @property
    def label(self) -> str | None:
        """The run's own name (the ``label`` of the house-rules file it was run with), or None."""
        v = self.manifest.get("label")
        return v if isinstance(v, str) and v else None

    def _repr_html_(self) -> str:
        return runs_html([self], [self.rules_id])

    @property
    def complete(self) -> bool:
        return self.manifest.get("complete", True) is not False


def load_run(path, verify: bool | None = None, skip_damaged: bool | None = None) -> Run:
    """Open one run directory lazily after checking that it is one (manifest, listed parts and
    their checksums, columns, and that the games table holds the rules the manifest names).
    ``verify``/``skip_damaged``: see the module docstring (None: as :func:`reading` says)."""
    policy = _POLICY.get()
    verify = policy[0] if verify is None else verify
    skip_damaged = policy[1] if skip_damaged is None else skip_damaged
    p = Path(path)
    if str(path).strip() == "":
        raise AnalysisError("The run directory is empty: give a directory name.")
    if not p.exists():
        raise AnalysisError(f"Run directory '{p}' does not exist.")
    if not p.is_dir():
        raise AnalysisError(f"'{p}' is not a directory; give the run directory made by --out.")
    mpath = p / "manifest.json"
    if not mpath.exists():
        raise AnalysisError(
            f"'{p}' is not a run directory: it has no manifest.json "
            f"(make one with 'loba simulate --out {p}')."
        )
    try:
        manifest = json.loads(mpath.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise AnalysisError(f"'{mpath}' is not valid JSON.") from None
    except OSError as e:
        raise AnalysisError(f"'{mpath}' cannot be read ({e.strerror or e}).") from None
    if not isinstance(manifest, dict) or any(k not in manifest for k in MANIFEST_KEYS):
        lacking = [k for k in MANIFEST_KEYS if not isinstance(manifest, dict) or k not in manifest]
        raise AnalysisError(f"'{mpath}' is not a run manifest: it lacks {', '.join(lacking)}.")
    _check_manifest_types(manifest, mpath)
    from sim.games import GameError, get_game

    try:
        spec = get_game(manifest.get("game"))  # no "game": written before runs named it
    except GameError as e:
        raise AnalysisError(f"'{mpath}': {e}") from None
    detail = spec.detail
    if "format" in manifest:  # folders of parts: read exactly the listed, checked parts
        rd, files, expect = _listed_parts(p, verify, skip_damaged)
        manifest = rd.manifest
        games = _scan(p / "games.parquet", "games", spec, files["games"])
        seats = _scan(p / "seats.parquet", "seats", spec, files["seats"])
        rounds = (
            _scan(p / f"{detail.name}.parquet", detail.name, spec, files[detail.name])
            if detail is not None and detail.name in files
            else None
        )
    else:  # written before run directories had parts: single files, nothing to check against
        expect = int(manifest["games"]) if manifest.get("complete", True) is not False else None
        games = _scan(p / "games.parquet", "games", spec)
        seats = _scan(p / "seats.parquet", "seats", spec)
        dpath = p / f"{detail.name}.parquet" if detail is not None else None
        rounds = _scan(dpath, detail.name, spec) if dpath is not None and dpath.exists() else None
    head = collect(
        games.select(
            pl.len().alias("n"),
            pl.col("rules_id").n_unique().alias("k"),
            pl.col("rules_id").first().alias("rid"),
        ),
        f"'{p / 'games.parquet'}'",
    )
    n, k, rid = head["n"][0], head["k"][0], head["rid"][0]
    game = manifest.get("game")
    if n > 0 and k != 1:
        raise AnalysisError(
            f"'{p}' is inconsistent: its manifest says rules '{manifest['rules_id']}' but its "
            f"games table holds games of {k} different rule sets (a part of other rules?)."
        )
    if n > 0 and canonical_id(rid, game) != canonical_id(manifest["rules_id"], game):
        raise AnalysisError(
            f"'{p}' is inconsistent: its manifest says rules '{manifest['rules_id']}' but its "
            f"games table holds '{rid}'."
        )
    if n > 0 and "policy" in seats.collect_schema().names():
        pairs = collect(
            seats.select("seat", pl.col("policy").cast(pl.String)).unique(), f"'{p}' seats"
        )
        names = manifest.get("seats", [])
        for q, pol in pairs.iter_rows():
            if not 0 <= q < len(names) or pol != names[q]:
                raise AnalysisError(
                    f"'{p}' is inconsistent: its seats table has '{pol}' at seat {q}, its"
                    f" manifest {names[q] if 0 <= q < len(names) else 'no such seat'}."
                )
    canon = canonical_id(manifest["rules_id"], game)  # every row: the canonical id
    games = games.with_columns(pl.lit(canon, dtype=pl.String).alias("rules_id"))
    run = Run(p, manifest, games, seats, rounds, int(n))
    if not run.complete:
        warnings.warn(
            f"Run '{p}' is incomplete: {n} of {manifest['games']} games were written; "
            "the analysis uses those.",
            IncompleteRunWarning,
            stacklevel=2,
        )
    if expect is not None and n != expect:
        raise AnalysisError(
            f"'{p}' is damaged: its games table has {n} games but its manifest says "
            f"{manifest['games'] if 'format' not in manifest else expect}."
        )
    return run


@dataclass
class RunSet:
    """Several runs side by side. ``games``/``seats``/``rounds`` are lazy frames of all of them
    with ``run`` and ``variant`` columns; ``variants`` lists the variants in load order."""

    runs: list[Run]
    variant_of: list[str]
    games: pl.LazyFrame
    seats: pl.LazyFrame
    rounds: pl.LazyFrame | None
    extra: dict = field(default_factory=dict)

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(self.variant_of))

    def runs_of(self, variant: str) -> list[Run]:
        return [r for r, v in zip(self.runs, self.variant_of, strict=True) if v == variant]

    def manifest(self, variant: str) -> dict:
        """The manifest of the first run of a variant."""
        return self.runs_of(variant)[0].manifest

    @property
    def has_rounds(self) -> bool:
        return self.rounds is not None

    @property
    def game(self) -> str:
        """The runs' game (:func:`load_runs` refuses runs of different games)."""
        return self.runs[0].spec.name

    @property
    def detail(self) -> pl.LazyFrame | None:
        """The detail table (the game's ``GameSpec.detail``) when every run recorded it, else
        None: figures from it would otherwise cover only some runs' games."""
        return self.rounds if all(r.rounds is not None for r in self.runs) else None

    def _repr_html_(self) -> str:
        return runs_html(self.runs, self.variant_of)


def runs_html(runs: list[Run], variants: list[str]) -> str:
    """A notebook's view of run directories: one row per run (its variant, game, rules,
    seats, seed, games and whether the detail table was recorded), from the manifests alone."""
    import html

    head = ("variant", "run", "rules", "seats", "seed", "games", "detail table")
    rows = [
        (
            v,
            str(r.path),
            r.rules_id,
            ", ".join(r.seat_labels),
            r.manifest.get("seed", ""),
            f"{r.n_games:,}",
            "yes" if r.rounds is not None else "no",
        )
        for r, v in zip(runs, variants, strict=True)
    ]
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    th = "".join(f"<th>{h}</th>" for h in head)
    n = len(runs)
    return f"<p>{n} run{'s' * (n != 1)}</p><table><tr>{th}</tr>{cells}</table>"


def _tag(lf: pl.LazyFrame, i: int, variant: str) -> pl.LazyFrame:
    return lf.with_columns(pl.lit(i, dtype=pl.Int32).alias("run"), pl.lit(variant).alias("variant"))


def load_runs(
    paths,
    labels: list[str] | None = None,
    verify: bool | None = None,
    skip_damaged: bool | None = None,
) -> RunSet:
    """Open several run directories (or one) as a :class:`RunSet`.

    ``labels`` (optional, one per path) names the variants yourself; runs given the same label
    are pooled under the same checks. Without them a run is named by its own label (a
    house-rules file's ``label``), else by its rules id (and seats, when the runs' differ).
    Raises :class:`AnalysisError` for an unreadable directory, for pooling runs of different
    engine versions, seats or rules under one label, and for the same games given twice.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise AnalysisError("Give at least one run directory.")
    runs = [load_run(p, verify, skip_damaged) for p in paths]
    games = {r.spec.name for r in runs}
    if len(games) > 1:
        raise AnalysisError(
            f"The runs are of different games ({', '.join(sorted(games))}); analyse each game's"
            " runs on their own."
        )
    if labels is not None and len(labels) != len(runs):
        raise AnalysisError(f"Give one label per run directory ({len(runs)}), not {len(labels)}.")
    seatings = {tuple(r.seat_labels) for r in runs}
    if labels is None:
        variant_of = [
            r.label
            or (r.rules_id if len(seatings) == 1 else f"{r.rules_id} | {','.join(r.seat_labels)}")
            for r in runs
        ]
    else:
        variant_of = [str(x) for x in labels]
    first: dict[str, Run] = {}
    spans: dict[str, list[tuple[Run, int, int, int]]] = {}
    for r, v in zip(runs, variant_of, strict=True):
        m = r.manifest
        if v in first:
            f = first[v]
            fm = f.manifest
            for what, a, b in (
                ("rules", f.rules_id, r.rules_id),
                ("engine rules version", fm["rules_version"], m["rules_version"]),
                ("seats", fm["seats"], m["seats"]),
            ):
                if a != b:
                    raise AnalysisError(
                        f"Runs '{f.path}' and '{r.path}' cannot be pooled as '{v}': their "
                        f"{what} differ ({a} vs {b})."
                    )
        else:
            first[v] = r
        g0 = int(m.get("first_game", 0))
        span = (r, int(m["seed"]), g0, g0 + max(r.n_games, int(m["games"])))
        for o, seed, a, b in spans.get(v, []):
            if seed == span[1] and a < span[3] and span[2] < b:
                raise AnalysisError(
                    f"Runs '{o.path}' and '{r.path}' hold the same games (seed {seed}, games "
                    f"{max(a, span[2])}-{min(b, span[3]) - 1}); pooling them would count them "
                    "twice."
                )
        spans.setdefault(v, []).append(span)
    games = pl.concat(
        [_tag(r.games, i, v) for i, (r, v) in enumerate(zip(runs, variant_of, strict=True))],
        how="diagonal_relaxed",
    )
    seats = pl.concat(
        [_tag(r.seats, i, v) for i, (r, v) in enumerate(zip(runs, variant_of, strict=True))],
        how="diagonal_relaxed",
    )
    with_rounds = [
        _tag(r.rounds, i, v)
        for i, (r, v) in enumerate(zip(runs, variant_of, strict=True))
        if r.rounds is not None
    ]
    rounds = pl.concat(with_rounds, how="diagonal_relaxed") if with_rounds else None
    return RunSet(runs, variant_of, games, seats, rounds)

"""The work behind ``loba simulate``, ``replay``, ``audit`` and ``verify`` that is not parsing:
checking a resume and a replay against the run's manifest, the summary's lines, the sentence
after Ctrl-C, and the verdict on a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sim.games import get_game

from .console import count

RESUME_FIXED = {  # simulate's options a --resume takes from the manifest: name -> flag
    "game": "--game",
    "preset": "--rules",
    "sets": "--set",
    "seats": "--seats",
    "games": "--games",
    "seed": "--seed",
    "record_rounds": "--rounds",
    "out_dir": "--out",
    "overwrite": "--overwrite",
}


def resume_plan(resume_dir, chunk_size, log):
    """(game, label) of the interrupted run in ``resume_dir``, saying with -v what is left."""
    from sim.rundir import RunDir

    run = RunDir.read(resume_dir)
    m = run.manifest
    label = m.get("label") if isinstance(m.get("label"), str) else None
    if log.on:
        from sim.setup import resolve_rules

        log(f"resuming '{resume_dir}': {run.games_done():,} of {m['games']:,} games done")
        try:  # a manifest resume refuses is refused later, in its own words
            log.run(resolve_rules(m["rules_id"], m.get("game")), m["seats"], m["seed"])
        except ValueError:
            pass
        log(f"chunks of at most {min(chunk_size or run.chunk_size, run.chunk_size):,} games")
    return m.get("game"), label


def log_new_run(log, rules, seat_list, seed, preset, games, chunk_size, record, out_dir, label):
    """The -v lines of a new run: what defines it and how it is cut into chunks."""
    if not log.on:
        return
    from sim.chunks import chunk_games, searching

    log.run(rules, seat_list, seed, preset)
    chunk = chunk_games(games, chunk_size, record, searching(seat_list))
    log(
        f"{games:,} games in chunks of {chunk:,} ({count(-(-games // chunk), 'chunk')})"
        + (f", written to '{out_dir}'" if out_dir else ", not written (no --out)")
        + (f"; label '{label}'" if label else "")
    )


def log_backend(log, backend, scheduler, workers, threads) -> None:
    if not log.on:
        return
    from sim.chunks import MAX_THREADS

    if backend == "local":
        t = min(threads or MAX_THREADS, MAX_THREADS)
        log(f"backend local: {count(t, 'kernel thread')} of {MAX_THREADS} available")
    else:
        where = scheduler or f"a local cluster of {workers or 'one worker per core'}"
        log(f"backend dask on {where}; {threads or 'all'} kernel threads per call")
    log(f"checked the input in {log.lap():.2f} s")


def summary_json(rep, label) -> str:
    head = {
        "game": rep.game,
        "rules_id": rep.rules_id,
        "seat_labels": list(rep.seat_labels),  # "seats" is the summary's per-seat table
        "seed": rep.seed,
        **({"label": label} if label else {}),
    }
    return json.dumps({**head, **rep.summary, "backend": rep.backend}, indent=2)


def summary_lines(rep, label, resume_dir, out_dir) -> list[str]:
    """A finished run for the terminal: what it was, its figures, each seat's win share."""
    s, b = rep.summary, rep.backend
    how = (
        f"{b['threads']} threads"
        if b["backend"] == "local"
        else f"dask on {b['scheduler']}, {b['workers']} worker{'s' * (b['workers'] != 1)}"
    )
    out = [f"label {label}"] if label else []
    out.append(f"rules {rep.rules_id}  seats {','.join(rep.seat_labels)}  seed {rep.seed}")
    out.append(
        f"{s['games']} games in {s['elapsed_seconds']:.2f} s ({s['games_per_second']:,.0f} games/s,"
        f" {how}); {s['unfinished']} unfinished"
    )
    out += get_game(rep.game).summary.lines(s)
    out.append("win share by seat (95% Wilson interval):")
    out += [
        f"  seat {r['seat']} {r['policy']:<24} {r['share']:7.2%}  "
        f"[{r['ci_low']:.2%}, {r['ci_high']:.2%}]"
        for r in s["seats"]
    ]
    bad = [r for r in s["seats"] if r.get("bad_answers")]
    if bad:
        out.append(
            "bad answers (out of range, read as the fallback): "
            + "; ".join(f"seat {r['seat']} {r['policy']} {r['bad_answers']:,}" for r in bad)
        )
    if resume_dir is not None:
        out.append(f"resumed {resume_dir}: played the {rep.games} missing games")
    elif out_dir is not None:
        out.append(f"wrote {out_dir}")
    return out


def interrupted(target) -> str:
    """The one sentence after Ctrl-C stopped a run: what is kept and how to finish."""
    from sim.rundir import RunDir

    nothing = "Interrupted; nothing was saved (use --out DIR to keep finished chunks)."
    if target is None:
        return nothing
    try:
        m = RunDir.read(target).manifest
    except Exception:  # stopped before the run directory was made
        return nothing
    return (
        f"Interrupted: {m['games_done']} of {m['games']} games are on disk in"
        f" '{target}'; finish with: loba simulate --resume {target}"
    )


def run_settings(run_dir, game, preset, sets, seats, seed, index):
    """(rules, seat strings, seed) of the run in ``run_dir``, from its manifest, after checking
    that the options given agree with it and that game ``index`` is one of its games."""
    from sim.files import RunDirError
    from sim.policies import parse_seats
    from sim.rules import parse_assignments
    from sim.rundir import RunDir
    from sim.setup import resolve_rules, settings

    if run_dir.strip().isdigit() and not Path(run_dir).exists():
        raise ValueError(f"No run directory '{run_dir}'; a game index is --index {run_dir}.")
    run = RunDir.read(run_dir, strict=False)
    m, spec = run.manifest, run.spec
    where = f"the run in '{run.path}'"
    if game is not None and get_game(game).name != spec.name:
        raise ValueError(f"--game {game} contradicts {where}, a {spec.title} run.")
    try:
        rules = resolve_rules(m["rules_id"], spec.name)
    except ValueError as e:
        raise RunDirError(f"'{run.path / 'manifest.json'}' is corrupt: {e}") from None
    house = None
    if preset is not None or sets:
        if preset is not None:
            s = settings(preset, sets, None, spec.name)
            given, house = s.rules, s.house
        else:
            given = rules.replace(**parse_assignments(sets))
        if given.id != rules.id:
            raise ValueError(
                f"--rules/--set give {given.id}, but {where} was played under {rules.id}."
            )
    if house is not None:
        seats = house.pick_seats(seats)
    if seats is not None:
        mine = [s.label for s in parse_seats(seats, game=spec)]
        if mine != m["seats"]:
            raise ValueError(
                f"--seats {','.join(mine)} contradicts {where}, seated {','.join(m['seats'])}."
            )
    if seed is not None and seed != m["seed"]:
        raise ValueError(f"--seed {seed} contradicts {where}, played with seed {m['seed']}.")
    first, n = m["first_game"], m["games"]
    if not first <= index < first + n:
        raise ValueError(
            f"{where[0].upper()}{where[1:]} has games {first} to {first + n - 1}, not game {index}."
        )
    if m["rules_version"] != rules.version:
        click.echo(
            f"Warning: {where} was played under rules version {m['rules_version']} and this"
            f" loba plays version {rules.version}, so the replay may differ from its tables.",
            err=True,
        )
    specs = m.get("seat_specs")  # plug-in paths made absolute; the labels otherwise
    good = isinstance(specs, list) and len(specs) == len(m["seats"])
    good = good and all(isinstance(x, str) for x in specs)
    return rules, specs if good else m["seats"], m["seed"]


def position_replay(position, seats, seed, to_end, refused: bool, game=None) -> list[dict]:
    """The events of the game played on from a position file (``refused``: options given
    that a position file settles itself; ``game``: the game asked for, if any)."""
    from sim.isolated import position_events
    from sim.policies import parse_seats
    from sim.position import position_game

    from .console import guarded

    spec = None if refused else position_game(position)
    if refused or game not in (None, spec.name):
        raise click.UsageError(
            "--position replays a position file (its rules are in it): leave out"
            " RUN_DIR, --index, --game, --rules and --set."
        )
    plays = None if seats is None else tuple(s.strip() for s in seats.split(","))
    # the seats that play (--seats, else the file's own): a plug-in among them plays in a child
    if plays:
        seat_list = parse_seats(plays, game=spec)
    else:
        try:
            seat_list = parse_seats(list(_position_seats(position)), game=spec)
        except (ValueError, TypeError):
            seat_list = []  # (not seats: the position's own reader says why, in its words)
    return guarded(
        position_events, spec, seat_list, str(Path(position).resolve()), seed or 0, to_end,
        doing="while playing on from the position", specs=plays,
    )[0]  # fmt: skip


def _position_seats(position) -> tuple[str, ...]:
    """The seat strings a position file names itself (none if it names none: its game's
    default seats play, which are built in)."""
    from sim.position import read_position

    seats = read_position(position)[0].get("seats") or ()
    if isinstance(seats, str):
        seats = seats.split(",")
    return tuple(s.strip() for s in seats)


def only_part(events, spec, index, only) -> list[dict]:
    """The events of part ``only`` (a round, a hand) with the header and the end."""
    unit = spec.part  # (the key the game's events number its parts by)
    if only is None:
        return events
    if not any(e.get(unit) == only for e in events):
        raise ValueError(f"Game {index} has no {unit} {only}.")
    return [e for e in events if e.get(unit) in (None, only) or e["type"] in ("game", "end")]


def verify_output(run, problems, quick: bool, fmt: str) -> tuple[list[str], list[str]]:
    """(stdout lines, stderr lines) of ``loba verify``: one line a problem and the verdict."""
    m = run.manifest
    if fmt == "json":
        report = {
            "run": str(run.path),
            "ok": not problems,
            "complete": bool(m["complete"]),
            "games": m["games"],
            "games_done": run.games_done(),
            "checked": "sizes and checksums" if quick else "sizes, checksums, rows, games",
            "problems": [
                {"kind": p.kind, "path": str(p.path), "part": p.part, "text": p.text}
                for p in problems
            ],
        }
        return [json.dumps(report, indent=2)], []
    resume = f"'loba simulate --resume {run.path}'"
    if problems:
        bad = sum(p.spoils or p.kind == "layout" for p in problems)
        cure = (
            f"{resume} plays the damaged games again"
            if bad
            else f"{resume} removes unlisted leftovers"
            if not m["complete"]
            else "move the unlisted files out of the run directory"
        )
        return [p.text + "." for p in problems], [
            f"{len(problems)} problem{'s' * (len(problems) != 1)} in '{run.path}'"
            f" ({bad} listed part{'s' * (bad != 1)} damaged or missing); {cure}."
        ]
    state = "complete" if m["complete"] else f"incomplete, finish with {resume}"
    how = "sizes and checksums" if quick else "sizes, checksums, rows and games"
    return [
        f"ok: '{run.path}' has {run.games_done()} of {m['games']} games in {len(run.parts)}"
        f" listed parts per table, every one whole ({how} checked; {state})."
    ], []

"""The bad-input matrix: every command x every option x degenerate values, every kind of
damaged run directory, every kind of malformed trace. Each case must end with exit 0, with the
command's documented exit 1 (check-meld, audit, verify), or with exit 2 and one sentence on
stderr: never a traceback, a crash or a hang.

The cases are generated from the click command tree, so a new command or option is covered the
day it is added (a new command gets no base arguments until it is given some in ``BASE``; its
options are still tried). Every case runs in this process through ``cli.main`` on tiny inputs
(a few games), so the whole matrix takes about a minute on two cores.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import click
import polars as pl
import pytest

import cli
import sim
from sim.chunks import ChunkError
from sim.runner import stream_run

ROOT = Path(__file__).parents[2]
SEATS = "greedy,greedy,greedy"

INTS = ["0", "-1", str(2**63), str(10**30), "", "ü", "1.5", "abc"]
TEXTS = ["", "ü✓ñ", "-1", str(10**30), "a=b,=,"]
CHOICES = ["", "ü", "0", "nope"]
PATHS = ["@empty", "@nope", "@under_file", "@devnull", "@emptydir", "@fulldir", "@file", "@unicode"]

# what a command needs to get past its required arguments, by parameter name (argv pieces);
# positional arguments are given after "--" so that a value such as -1 stays a value
BASE = {
    "moves": {"position": [str(ROOT / "examples" / "one_turn.toml")]},
    "check-meld": {"cards": ["5S", "6S", "7S"]},
    "simulate": {"games": ["--games", "2"], "quiet": ["--quiet"]},
    "bench": {"games": ["--games", "2"]},
    "replay": {"seed": ["--seed", "1"], "index": ["--index", "0"]},
    "audit": {"trace": ["@trace"]},
    "verify": {"run_dir": ["@run"]},
    "summarize": {"run_dirs": ["@run"]},
    "compare": {"run_dirs": ["@run", "@run151"]},
    "report": {"run_dirs": ["@run"], "out_file": ["-o", "@newfile.html"]},
    "sweep": {
        "vary": ["--vary", "max_rebuys=0,1"],
        "games": ["--games", "2"],
        "out_dir": ["--out", "@newdir"],
        "no_experiment": ["--no-experiment"],
    },
    "rebuy-value": {"games": ["--games", "3"]},
    "findings": {"games": ["--games", "3"], "field_names": ["--field", "greedy,mixed"]},
    "calibrate": {"runs": ["--runs", "3"], "games": ["--games", "10"]},
    "tournament": {
        "pool": ["--seats-pool", "greedy,random"],
        "players": ["--players", "2"],
        "games": ["--games", "2"],
        "resamples": ["--resamples", "20"],
    },
    "advise": {
        "target_texts": ["--target", "rounds_per_game in 8..12"],
        "vary": ["--vary", "max_rebuys=0,1"],
        "budget": ["--budget", "1707"],
    },
    "tune": {
        "policy": ["hold"],
        "params": ["--param", "patience=0..3"],
        "games": ["--games", "8"],
        "trials": ["--trials", "2"],
    },
}
# a tested positional argument keeps these base values after it (compare needs two runs)
ARG_EXTRA = {("compare", "run_dirs"): ["@run151"]}
# base values left out when a parameter is tested (--resume takes the games from the run,
# replay RUN_DIR its seed)
BASE_DROP = {("simulate", "resume_dir"): {"games"}, ("replay", "run_dir"): {"seed"}}
EXIT_1 = {"check-meld", "audit", "verify"}  # documented: 1 = invalid meld / violations / damage
PATHLIKE = {"run_dirs", "run_dir", "trace", "position", "resume_dir"}
RUN_READERS = {("verify", "run_dir"), ("summarize", "run_dirs"), ("compare", "run_dirs")}
RUN_READERS |= {("report", "run_dirs"), ("simulate", "resume_dir"), ("replay", "run_dir")}
RULES_PARAMS = {"preset", "rules_opt"}  # --rules (and rules' PRESET): also house-rules files

# house-rules files (--rules FILE.toml): name -> file bytes (None: no file, "dir": a folder);
# each is used (exit 0) or refused in one sentence (exit 2) like any other value
HOUSE = {
    "good": b'label = "ok"\nseats = "greedy,greedy,greedy"\n[knobs]\nmax_rebuys = 0\n',
    "empty": b"",
    "not_toml": b"this is not toml\n",
    "binary": b"\xff\xfe\x00\x80",
    "knob_at_top": b"elimination_score = 151\n",
    "unknown_key": b'colour = "red"\n',
    "unknown_knob": b"[knobs]\nelimination_scor = 151\n",
    "bad_value": b'[knobs]\nelimination_score = "lots"\n',
    "float_value": b"[knobs]\nelimination_score = 1.5\n",
    "list_value": b"[knobs]\nescalera_min = [3, 4]\n",
    "table_value": b"[knobs.escalera_min]\nx = 1\n",
    "huge_value": b"[knobs]\nstake = 100000000000000000000\n",
    "knobs_not_table": b"knobs = 5\n",
    "unknown_game": b'game = "chess"\n',
    "other_game": b'game = "moon"\n[knobs]\ntarget = 0\n',
    "game_not_string": b"game = 1\n",
    "unknown_preset": b'preset = "nope"\n',
    "empty_label": b'label = ""\n',
    "seats_number": b"seats = 5\n",
    "seats_unknown": b'seats = ["greedy", "nope"]\n',
    "seats_one": b'seats = ["greedy"]\n',
    "seats_three": b'seats = "greedy,greedy,random"\n',
    "impossible": b"[knobs]\nscore_floor = 500\n",
    "missing": None,
    "directory": "dir",
}

# position files (moves POSITION, replay --position): name -> file bytes; the game is read
# from the file's 'game' key, so a Moon position goes to Moon's reader
POSITIONS = {
    "moon_example": (ROOT / "examples" / "moon_play.toml").read_bytes(),
    "moon_repeated_tile": (ROOT / "examples" / "moon_play.toml")
    .read_bytes()
    .replace(b'"5-3 5-2 5-1 4-2 4-1"', b'"5-3 5-2 5-1 4-2 6-4"'),
    "moon_no_phase": b'game = "moon"\nhands = ["6-4"]\n',
    "moon_hands_numbers": b'game = "moon"\nphase = "bid"\nhands = [1, 2, 3]\nwidow = "6-6"\n',
    "moon_trick_table_bad": b'game = "moon"\nphase = "play"\nhands = ["", "", ""]\n'
    b'widow = "6-6"\nbids = [21]\ntrump = "6"\ndiscard = "5-5"\ntricks = [{ x = 1 }]\n',
    "unknown_game": b'game = "chess"\n',
    "game_not_string": b"game = 1\n",
    "binary": b"\xff\xfe\x00\x80",
}

# damaged run directories: name -> (the run it spoils, what is done to it)
DAMAGE = {
    "flipped_bytes": ("run", lambda d: _flip(d / "seats.parquet" / "part-00000.parquet")),
    "flipped_bytes_interrupted": ("half", lambda d: _flip(d / "seats.parquet/part-00000.parquet")),
    "truncated_part": ("run", lambda d: _truncate(d / "games.parquet" / "part-00001.parquet")),
    "missing_part": ("run", lambda d: (d / "seats.parquet" / "part-00002.parquet").unlink()),
    "part_of_another_seed": (
        "run",
        lambda d: shutil.copy(
            d.parent / "seed5" / "games.parquet" / "part-00001.parquet",
            d / "games.parquet" / "part-00001.parquet",
        ),
    ),
    "duplicated_part": (
        "run",
        lambda d: shutil.copy(
            d / "games.parquet" / "part-00000.parquet",
            d / "games.parquet" / "part-00000 (copy).parquet",
        ),
    ),
    "unlisted_part": (
        "half",
        lambda d: shutil.copy(
            d / "games.parquet" / "part-00000.parquet", d / "games.parquet" / "part-00002.parquet"
        ),
    ),
    "stray_readme": ("run", lambda d: (d / "games.parquet" / "README.txt").write_text("hi")),
    "foreign_schema": (
        "run",
        lambda d: pl.DataFrame({"x": [1]}).write_parquet(d / "seats.parquet/part-00001.parquet"),
    ),
    "games_as_file": ("run", lambda d: _as_file(d / "games.parquet")),
    "subfolder_in_table": ("run", lambda d: (d / "games.parquet" / "sub").mkdir()),
    "manifest_not_json": ("run", lambda d: (d / "manifest.json").write_text("{nope")),
    "manifest_array": ("run", lambda d: (d / "manifest.json").write_text("[1, 2]")),
    "manifest_binary": ("run", lambda d: (d / "manifest.json").write_bytes(b"\xff\xfe\x00")),
    "manifest_deep": ("run", lambda d: (d / "manifest.json").write_text("[" * 100000)),
    "manifest_seats_null": ("run", lambda d: _edit(d, seats=None)),
    "manifest_seats_wrong": ("run", lambda d: _edit(d, seats="three")),
    "manifest_games_1e15": ("half", lambda d: _edit(d, games=10**15)),
    "manifest_games_negative": ("half", lambda d: _edit(d, games=-5)),
    "manifest_seed_huge": ("half", lambda d: _edit(d, seed=2**70)),
    "manifest_chunks_done_bad": ("half", lambda d: _edit(d, chunks_done="x")),
    "manifest_chunks_done_beyond": ("half", lambda d: _edit(d, chunks_done=[[0, 99]])),
    "manifest_parts_bad": ("half", lambda d: _edit(d, parts=5)),
    "manifest_part_wrong_games": ("half", lambda d: _edit_part(d, first=7)),
    "manifest_part_no_checksum": ("run", lambda d: _edit_part(d, files={})),
    "manifest_unknown_game": ("run", lambda d: _edit(d, game="chess")),
    "manifest_unknown_format": ("run", lambda d: _edit(d, format="loba-run/9")),
    "manifest_tables_bad": ("half", lambda d: _edit(d, tables=["games", "../x"])),
    "manifest_rules_id_bad": ("half", lambda d: _edit(d, rules_id="pagat(")),
    "no_manifest": ("run", lambda d: (d / "manifest.json").unlink()),
    "manifest_is_dir": ("run", lambda d: _manifest_dir(d)),
    "legacy_single_files": ("legacy", lambda d: None),
}

# malformed traces for loba audit: name -> file bytes (or a function of the good trace's lines)
TRACES = {
    "empty": b"",
    "blank_lines": b"\n\n  \n",
    "bare_header": b'{"type":"game"}\n',
    "json_array": b"[1, 2]\n",
    "not_json": b"not json\n",
    "binary": b"\x00\xff\xfe\x80",
    "players_three": lambda lines: [_set(lines[0], players="three")] + lines[1:],
    "players_negative": lambda lines: [_set(lines[0], players=-1)] + lines[1:],
    "unknown_game": lambda lines: [_set(lines[0], rules_id="chess:x")] + lines[1:],
    "bad_rules_id": lambda lines: [_set(lines[0], rules_id="loba:pagat(")] + lines[1:],
    "header_only": lambda lines: lines[:1],
    "truncated": lambda lines: lines[: len(lines) // 2],
    "events_shuffled": lambda lines: lines[:1] + lines[1:][::-1],
    "event_fields_nulled": lambda lines: lines[:1] + [_null(x) for x in lines[1:]],
    "event_fields_strings": lambda lines: lines[:1] + [_stringify(x) for x in lines[1:]],
    "event_type_unknown": lambda lines: lines[:1] + [_set(x, type="?") for x in lines[1:]],
    "huge_numbers": lambda lines: lines[:1] + [_huge(x) for x in lines[1:]],
}


def _flip(p: Path) -> None:
    b = bytearray(p.read_bytes())
    for i in (40, 41, 42):
        b[i] ^= 0xFF
    p.write_bytes(bytes(b))


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[:50])


def _as_file(p: Path) -> None:
    shutil.rmtree(p)
    pl.DataFrame({"x": [1]}).write_parquet(p)


def _manifest_dir(d: Path) -> None:
    (d / "manifest.json").unlink()
    (d / "manifest.json").mkdir()


def _edit(d: Path, **changes) -> None:
    m = json.loads((d / "manifest.json").read_text())
    m.update(changes)
    (d / "manifest.json").write_text(json.dumps(m))


def _edit_part(d: Path, **changes) -> None:
    m = json.loads((d / "manifest.json").read_text())
    m["parts"]["part-00000"].update(changes)
    (d / "manifest.json").write_text(json.dumps(m))


def _set(line: str, **changes) -> str:
    ev = json.loads(line)
    ev.update(changes)
    return json.dumps(ev)


def _null(line: str) -> str:
    ev = json.loads(line)
    return json.dumps({k: (v if k == "type" else None) for k, v in ev.items()})


def _stringify(line: str) -> str:
    ev = json.loads(line)
    return json.dumps({k: (v if k == "type" else str(v)) for k, v in ev.items()})


def _huge(line: str) -> str:
    ev = json.loads(line)
    return json.dumps({k: (10**30 if isinstance(v, int) else v) for k, v in ev.items()})


# ---------------------------------------------------------------------------- the world
@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """Run directories and a trace every case copies what it needs from."""
    base = tmp_path_factory.mktemp("matrix")
    stream_run("pagat", SEATS, games=60, seed=4, out_dir=base / "run", chunk_size=20)
    stream_run("pagat", SEATS, games=60, seed=5, out_dir=base / "seed5", chunk_size=20)
    stream_run("pagat(max_rebuys=0)", SEATS, games=40, seed=4, out_dir=base / "run151")
    os.environ["LOBA_FAIL_CHUNK"] = "1"
    try:
        with pytest.raises(ChunkError):
            stream_run("pagat", SEATS, games=60, seed=4, out_dir=base / "half", chunk_size=20)
    finally:
        del os.environ["LOBA_FAIL_CHUNK"]
    legacy = base / "legacy"  # a run directory from before run directories had parts
    legacy.mkdir()
    res = sim.simulate("pagat", SEATS, games=30, seed=4)
    res.games.write_parquet(legacy / "games.parquet")
    res.seats.write_parquet(legacy / "seats.parquet")
    drop = ("format", "game", "complete", "checksum", "tables")
    man = {k: v for k, v in res.manifest().items() if k not in drop}
    (legacy / "manifest.json").write_text(json.dumps(man))
    from sim.trace import replay, to_jsonl

    events = replay("pagat", SEATS, seed=1, game=0)
    (base / "trace.jsonl").write_text(to_jsonl(events))
    return base


def resolve(token: str, tmp: Path, shared: Path) -> str:
    """A symbolic value (``@run``, ``@devnull``, ``@damaged:...``) as a path made for this case."""
    if not token.startswith("@"):
        return token
    name = token[1:]
    if name in ("run", "run151", "half", "seed5", "legacy"):
        dst = tmp / name
        if not dst.exists():
            shutil.copytree(shared / name, dst)
        return str(dst)
    if name.startswith("damaged:"):
        which, spoil = DAMAGE[name.split(":", 1)[1]]
        if not (tmp / "seed5").exists():
            shutil.copytree(shared / "seed5", tmp / "seed5")
        dst = tmp / f"spoiled-{which}"
        shutil.copytree(shared / which, dst)
        spoil(dst)
        return str(dst)
    if name.startswith("trace:"):
        kind = TRACES[name.split(":", 1)[1]]
        if callable(kind):
            lines = (shared / "trace.jsonl").read_text().splitlines()
            data = ("\n".join(kind(lines)) + "\n").encode()
        else:
            data = kind
        (tmp / "t.jsonl").write_bytes(data)
        return str(tmp / "t.jsonl")
    if name == "trace":
        return str(shared / "trace.jsonl")
    if name.startswith("position:"):
        path = tmp / "pösition.toml"
        path.write_bytes(POSITIONS[name.split(":", 1)[1]])
        return str(path)
    if name.startswith("house:"):
        data = HOUSE[name.split(":", 1)[1]]
        path = tmp / "hoüse.toml"
        if data == "dir":
            path.mkdir()
        elif data is not None:
            path.write_bytes(data)
        return str(path)
    (tmp / "afile").write_text("x")
    (tmp / "fulldir").mkdir(exist_ok=True)
    (tmp / "fulldir" / "keep.txt").write_text("x")
    (tmp / "emptydir").mkdir(exist_ok=True)
    return {
        "empty": "",
        "nope": str(tmp / "nope" / "deeper"),
        "under_file": str(tmp / "afile" / "x"),
        "devnull": os.devnull,
        "emptydir": str(tmp / "emptydir"),
        "fulldir": str(tmp / "fulldir"),
        "file": str(tmp / "afile"),
        "unicode": str(tmp / "dïr✓" / "ñ"),
        "newdir": str(tmp / "new-out"),
        "newfile.html": str(tmp / "new-report.html"),
    }[name]


# ---------------------------------------------------------------------------- the cases
def _values(cmd: str, p: click.Parameter) -> list[str]:
    if isinstance(p, click.Option) and p.is_flag:
        return ["<flag>"]
    if (cmd, p.name) in RUN_READERS:
        return PATHS + ["@half", "@legacy"] + [f"@damaged:{k}" for k in DAMAGE]
    if (cmd, p.name) == ("audit", "trace"):
        return PATHS + [f"@trace:{k}" for k in TRACES]
    if p.name == "position":
        return PATHS + [f"@position:{k}" for k in POSITIONS]
    if isinstance(p.type, click.Path) or p.name in PATHLIKE:
        return PATHS
    if p.name in RULES_PARAMS:
        return TEXTS + [f"@house:{k}" for k in HOUSE]
    if isinstance(p.type, click.Choice):
        return CHOICES
    if isinstance(p.type, click.types.IntParamType):
        return INTS
    return TEXTS


def _cases():
    out = []
    for cmd_name, cmd in sorted(cli.cli.commands.items()):
        for p in cmd.params:
            if p.name in ("help", "version") or getattr(p, "hidden", False):
                continue
            for v in _values(cmd_name, p):
                out.append(pytest.param(cmd_name, p.name, v, id=f"{cmd_name}-{p.name}-{v}"))
    return out


def _argv(cmd_name: str, pname: str, value: str, tmp: Path, shared: Path) -> list[str]:
    cmd = cli.cli.commands[cmd_name]
    base = dict(BASE.get(cmd_name, {}))
    for name in BASE_DROP.get((cmd_name, pname), ()):
        base.pop(name)
    opts: list[str] = []
    args: list[str] = []
    for p in cmd.params:
        if p.name == pname:
            if isinstance(p, click.Option):
                flag = p.opts[-1] if p.opts[-1].startswith("--") else p.opts[0]
                opts += [flag] if value == "<flag>" else [flag, value]
            else:
                args += [value, *ARG_EXTRA.get((cmd_name, pname), [])]
        elif p.name in base:
            (args if isinstance(p, click.Argument) else opts).extend(base[p.name])
    argv = [cmd_name, *opts] + (["--", *args] if args else [])
    return [resolve(a, tmp, shared) for a in argv]


OUTCOMES: Counter = Counter()
NOT_INTS = ("", "ü", "1.5", "abc", str(10**30))  # (10^30: past every integer option's range)


def _must_refuse(cmd_name: str, pname: str, value: str) -> bool:
    """Values that no option may take (exit 2, never 0): an empty value (never a default), a
    non-number or an out-of-range number for a whole-number option, anything but its choices
    for a choice option."""
    if value == "":
        return True
    p = next(q for q in cli.cli.commands[cmd_name].params if q.name == pname)
    if isinstance(p.type, click.types.IntParamType):
        return value in NOT_INTS
    if isinstance(p.type, click.Choice):
        return value not in p.type.choices
    return False


@pytest.mark.parametrize("cmd_name, pname, value", _cases())
def test_every_option_with_degenerate_values(cmd_name, pname, value, shared, tmp_path, capsys):
    argv = _argv(cmd_name, pname, value, tmp_path, shared)
    try:
        code = cli.main(argv)
    except SystemExit as e:  # check-meld, audit and verify exit 0/1 themselves
        code = e.code
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "Traceback" not in out.out, argv
    allowed = {0, 2} | ({1} if cmd_name in EXIT_1 else set())
    if _must_refuse(cmd_name, pname, value):  # never silently read as something else
        allowed = {2}
    assert code in allowed, (argv, code, out.err)
    if code == 2:
        lines = out.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (argv, out.err)
        assert not lines[0].rstrip().endswith(":"), (argv, out.err)
    OUTCOMES[f"exit {code}"] += 1
    dump = os.environ.get("LOBA_MATRIX_DUMP")  # a file to append every case's outcome to
    if dump:
        with open(dump, "a") as f:
            f.write(json.dumps({"argv": argv[:12], "code": code, "err": out.err[-300:]}) + "\n")


def test_matrix_counts():
    """The matrix covers every command, and is large (its outcomes are printed, for the
    record, when it ran in this session)."""
    cases = _cases()
    assert len(cases) >= 500
    assert {c.values[0] for c in cases} == set(cli.cli.commands)
    refused = sum(_must_refuse(*c.values) for c in cases)
    assert refused >= len(cases) // 5
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(OUTCOMES.items()))
    print(f"\nbad-input matrix: {len(cases)} cases, {refused} of them must be refused; {counts}")

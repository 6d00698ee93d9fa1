"""Every command shown in README.md and docs/*.md runs, in order, in a scratch directory.

One test per document. Its fenced ``bash``/``sh``/``shell``, ``console`` and ``python`` blocks
are read in order, and every command in them is run with ``bash -c`` (``set -eo pipefail``) in
ONE scratch directory per document, so later commands see the files earlier ones made.
``examples/`` and ``tests/`` (the scripts the docs name) are copied in first; ``loba`` and
``python`` are this interpreter's, with ``PYTHONPATH`` set to this checkout. Other blocks
(toml, text, blocks without a language) are not run. The first failing command fails its
document's test, naming its line. The documents run two at a time (most of a command's time is
its single-threaded start-up); the test prints each one's slowest commands (``-s``).

**Bash blocks.** A line is a command; a line ending in ``\\`` goes on with the next, and a
compound (``for ... done``) or a here-document runs as one command (lines are joined until
``bash -n`` accepts them). Lines starting with ``#`` are not run: comment lines after a command
show illustrative output, which is not compared (timings, figures that depend on sizes). Each
command must exit 0, or the code a trailing ``# exit N`` states (a documented refusal). A bash
block without a command fails the test.

**Console blocks: exact output.** A line starting with ``$ `` is a command; the lines after it,
up to the next ``$ `` line, are its exact standard output (stderr is not compared), compared
line by line with trailing spaces dropped; a line ``...`` stands for any number of lines.
``# exit N`` works as above. Console blocks are for deterministic output (``check-meld``,
``check-trick``, ``moves``, ``audit``, a replay from a position, an example file); sizes in them
are never scaled (the test fails if one would be).

**Python blocks** run as one script each (``python -``), in order with the commands; they must
exit 0. Their sizes are not scaled: keep them small.

**Sizes are scaled down.** The docs show sizes for people (``--games 100000``); CI runs a
command with every number after an option in :data:`CAPS` above its cap replaced by the cap
(``--games 100000`` -> ``--games 1000``), the caps of the first entry whose pattern is in the
command. The figures the docs print beside such commands are illustrative.

**Commands CI cannot run as shown** (an install, CI itself, a Dask scheduler, a cold compile of
minutes) are rewritten or left out by :data:`REWRITES`, each with its reason; an entry no
document shows fails the test, so the table never goes stale. Nothing else is skipped.

Also checked: every relative link of the docs names a file, and a heading of it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
RUN_LANGS = {"bash", "sh", "shell", "console", "python"}
TIMEOUT = 600  # seconds, one command

# (pattern found in the command, {option: cap}): the first matching entry's caps apply
CAPS: list[tuple[str, dict[str, int]]] = [
    ("loba findings", {"--games": 60, "--games-expert": 2}),  # the expert field searches
    ("count,pimc", {"--games": 4, "--resamples": 20}),  # a Moon pimc seat: a few games a second
    ("pimc,", {"--games": 6}),
    ("audit_many.py", {"--games": 30}),
    ("--mode state", {"--games": 60, "--reps": 2}),
    ("loba rebuy-value", {"--games": 300, "--reps": 2}),
    ("loba tune", {"--games": 200, "--eval-games": 200, "--trials": 3}),
    ("loba advise", {"--budget": 6000, "--games": 1000}),
    ("loba tournament", {"--games": 40, "--resamples": 20}),
    ("loba calibrate", {"--runs": 3, "--games": 200}),
    ("loba sweep", {"--games": 200}),
    ("", {"--games": 1000, "--workers": 2, "--reps": 2}),
]

# a scheduler and a worker on this machine, a run through --scheduler, then both stopped
DASK_CLUSTER = """\
dask scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file sched.json \\
    >sched.log 2>&1 &
S=$!
trap 'kill $S $W 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for i in $(seq 300); do [ -s sched.json ] && break; sleep 0.2; done
A=$(python -c "import json; print(json.load(open('sched.json'))['address'])")
dask worker "$A" --nworkers 1 --no-dashboard >worker.log 2>&1 &
W=$!
timeout 300 loba simulate --games 1000 --out runs/cluster --backend dask --scheduler "$A"
"""
# command as shown (its trailing comment dropped) -> (what CI runs instead, or None: not run;
# the reason)
REWRITES: dict[str, tuple[str | None, str]] = {
    "pip install -e . && loba warm && loba simulate --games 20000": (
        "loba warm && loba simulate --games 1000",
        "CI installed the checkout already (an install here needs the network and minutes)",
    ),
    "bash .ci/run": (None, "it is CI itself: it runs this test"),
    "loba simulate --games 10000000 --out runs/big": (
        "LOBA_FAIL_CHUNK=2 loba simulate --games 1000 --chunk-size 250 --out runs/big  # exit 1",
        "CI cannot press Ctrl-C at 40%: a chunk that fails twice stops the run the same way,"
        " its finished chunks kept for --resume (LOBA_FAIL_CHUNK, sim/runner.py's test hook)",
    ),
    "dask scheduler": (
        DASK_CLUSTER,
        "the three lines run as one script: a scheduler and a worker on this machine, a run"
        " on them through --scheduler, then both stopped",
    ),
    'eval "$(_LOBA_COMPLETE=zsh_source loba)"': (
        "_LOBA_COMPLETE=zsh_source loba | grep -q '^#compdef loba'",
        "CI's shell is bash, which cannot read zsh's script: the script is made and checked",
    ),
    "_LOBA_COMPLETE=fish_source loba > ~/.config/fish/completions/loba.fish": (
        "_LOBA_COMPLETE=fish_source loba > loba.fish && grep -q 'complete' loba.fish",
        "CI does not write into the home directory: the script goes to the scratch directory",
    ),
    'time LOBA_CACHE_DIR="$(mktemp -d)" loba simulate --games 2000': (
        None,
        "compiles every kernel from nothing (20-60 s); tests/core/test_cold_compile.py checks the"
        " cold start's pieces",
    ),
    "python tests/tools/ab_bench.py 042db55 HEAD --clock cpu --reps 30 --games 1000": (
        "python tests/tools/ab_bench.py --help",
        "compiles one engine per revision (about 35 s each) from the git history, which the"
        " scratch directory lacks: its options are checked",
    ),
    "python tests/tools/ab_bench.py HEAD WORKTREE --reps 12": (
        "python tests/tools/ab_bench.py --help > /dev/null",
        "as above",
    ),
    "dask worker tcp://HOST:8786 --nworkers 1": (None, "run by the 'dask scheduler' rewrite"),
    "loba simulate ... --backend dask --scheduler tcp://HOST:8786": (
        None,
        "run by the 'dask scheduler' rewrite",
    ),
}


@dataclass
class Command:
    doc: str
    line: int  # 1-based line of the command in the document
    text: str  # as shown (continuations joined)
    run: str | None  # what is run (scaled, rewritten; None: not run)
    exit: int = 0
    expected: list[str] | None = None  # console blocks: the exact output
    note: str = ""  # why it was rewritten


def blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """The fenced blocks of a Markdown text: (language, line of the first body line, lines),
    the fence's indentation removed."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, lang, body, j = len(m.group(1)), m.group(2), [], i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        out.append((lang, i + 2, body))
        i = j + 1
    return out


def strip_comment(cmd: str) -> str:
    """The command without a trailing ``# ...`` comment (one without quotes in it)."""
    return re.sub(r"\s+#[^'\"\n]*$", "", cmd).rstrip()


def complete(text: str) -> bool:
    """Whether ``text`` is a complete shell command (a compound closed, a here-document ended,
    no dangling ``\\``)."""
    if text.rstrip().endswith("\\"):
        return False
    for word in re.findall(r"<<-?\s*['\"]?(\w+)['\"]?", text):
        if word not in [x.strip() for x in text.splitlines()[1:]]:
            return False
    r = subprocess.run(["bash", "-n", "-c", text], capture_output=True, text=True)
    return r.returncode == 0 or "unexpected end of file" not in r.stderr


def scale(cmd: str) -> str:
    """``cmd`` with its sizes capped (:data:`CAPS`)."""
    caps = next(c for pattern, c in CAPS if pattern in cmd)
    for opt, cap in caps.items():

        def cut(m, cap=cap):
            n = int(m.group(3).replace("_", "").replace(",", ""))
            return m.group(1) + m.group(2) + (str(cap) if n > cap else m.group(3))

        cmd = re.sub(rf"({re.escape(opt)})(\s+|=)(\d[\d_,]*)", cut, cmd)
    return cmd


def exit_code(cmd: str) -> int:
    m = re.search(r"#\s*exit (\d+)\b[^\n]*$", cmd)
    return int(m.group(1)) if m else 0


def commands(doc: str) -> list[Command]:
    """Every command of ``doc``'s runnable blocks, in order."""
    out: list[Command] = []
    for lang, first, body in blocks((ROOT / doc).read_text()):
        if lang not in RUN_LANGS:
            continue
        found = len(out)
        if lang == "python":  # the whole block is one script
            script = "\n".join(body)
            out.append(Command(doc, first, script, f"python - <<'LOBA_PY'\n{script}\nLOBA_PY"))
            continue
        i = 0
        while i < len(body):
            line, at = body[i], first + i
            i += 1
            if lang == "console":
                if not line.startswith("$ "):
                    raise AssertionError(f"{doc}:{at}: console output without a '$ ' command")
                text = line[2:]
                while text.rstrip().endswith("\\") and i < len(body):
                    text += "\n" + body[i]
                    i += 1
                expected = []
                while i < len(body) and not body[i].startswith("$ "):
                    expected.append(body[i].rstrip())
                    i += 1
                while expected and not expected[-1]:
                    expected.pop()
                run = scale(text)
                assert run == text, f"{doc}:{at}: a console block's command would be scaled"
                out.append(Command(doc, at, text, text, exit_code(text), expected))
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            text = line
            while not complete(text) and i < len(body):
                text += "\n" + body[i]
                i += 1
            assert complete(text), f"{doc}:{at}: an incomplete command at the block's end"
            out.append(Command(doc, at, text, scale(text), exit_code(text)))
        if len(out) == found:
            raise AssertionError(f"{doc}:{first}: a {lang} block without a command")
    for c in out:
        key = strip_comment(c.text)
        if key in REWRITES:
            c.run, c.note = REWRITES[key][0], REWRITES[key][1]
            if c.run is not None:
                c.exit = exit_code(c.run)
    return out


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` equals ``expected``, where an expected line ``...`` stands for any lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


def scratch(tmp: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp / "examples")
    shutil.copytree(
        ROOT / "tests", tmp / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    return tmp


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("LOBA_FAIL_CHUNK", None)
    env["COLUMNS"] = "200"
    return env


def run_doc(doc: str, where: Path) -> list[tuple[float, Command]]:
    env, times = environment(), []
    for c in commands(doc):
        if c.run is None:
            continue
        t0 = time.perf_counter()
        r = subprocess.run(
            ["bash", "-c", "set -eo pipefail\n" + c.run],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        times.append((time.perf_counter() - t0, c))
        shown = f"{doc}:{c.line}: {c.text}" + (f"\n  (run as: {c.run})" if c.run != c.text else "")
        tail = (r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]).strip()
        assert r.returncode == c.exit, f"{shown}\nexit {r.returncode}, not {c.exit}:\n{tail}"
        if c.expected is not None:
            got = [x.rstrip() for x in r.stdout.splitlines()]
            while got and not got[-1]:
                got.pop()
            assert matches(c.expected, got), (
                f"{shown}\nprinted:\n"
                + "\n".join(got)
                + "\nthe document shows:\n"
                + "\n".join(c.expected)
            )
    return times


def test_rewrites_are_used():
    """Every entry of REWRITES is a command some document shows (the table never goes stale)."""
    shown = {strip_comment(c.text) for doc in DOCS for c in commands(doc)}
    stale = [k for k in REWRITES if k not in shown]
    assert not stale, f"REWRITES entries no document shows: {stale}"


def test_readme_keeps_the_two_setup_commands():
    """The project's rule: the README always shows the two commands that set up a fresh
    machine, install and run the main job, and install and run the tests."""
    shown = [strip_comment(c.text) for c in commands("README.md")]
    assert "pip install -e . && loba warm && loba simulate --games 20000" in shown
    assert "bash .ci/run" in shown


def test_convention_helpers():
    assert scale("loba simulate --games 100000 --seed 7") == "loba simulate --games 1000 --seed 7"
    assert scale("loba simulate --games=500") == "loba simulate --games=500"
    tune = "loba tune hold --trials 20 --games 4000"
    assert scale(tune) == "loba tune hold --trials 3 --games 200"
    assert exit_code("loba check-meld KS KH KD KC   # exit 1: invalid") == 1
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and not matches(["a"], ["a", "b"])
    assert complete("for p in a b; do\n  echo $p\ndone") and not complete("for p in a b; do")
    assert not complete("cat > f <<'EOF'\nx = 1") and complete("cat > f <<'EOF'\nx = 1\nEOF")


def anchor(title: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def test_links_resolve():
    """Every relative link of the docs names a file that exists, and a heading of it."""
    bad = []
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            file = (ROOT / doc).parent / path if path else ROOT / doc
            if not file.exists():
                bad.append(f"{doc}: {target} (no such file)")
            elif frag and file.suffix == ".md":
                prose = re.sub(r"^\s*```.*?^\s*```", "", file.read_text(), flags=re.M | re.S)
                heads = re.findall(r"^#+ (.*)$", prose, flags=re.M)
                if frag not in {anchor(h) for h in heads}:
                    bad.append(f"{doc}: {target} (no such heading)")
    assert not bad, "\n".join(bad)


def run_docs(docs: list[str], tmp: Path) -> dict[str, tuple[list, str | None]]:
    """Run the documents two at a time (the commands are mostly single-threaded start-up):
    doc -> (timings, the first failure or None)."""

    def one(doc):
        where = tmp / re.sub(r"\W", "_", doc)
        where.mkdir()
        try:
            return run_doc(doc, scratch(where)), None
        except AssertionError as e:
            return [], str(e)

    longest_first = sorted(docs, key=lambda d: -len(commands(d)))
    with ThreadPoolExecutor(max(1, min(2, os.cpu_count() or 1))) as pool:
        done = dict(zip(longest_first, pool.map(one, longest_first), strict=True))
    return done


@pytest.fixture(scope="session")
def doc_results(request, tmp_path_factory):
    """Every selected document's commands, run once for the session (in parallel)."""
    docs = [
        item.callspec.params["doc"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_doc_commands_run"
    ]
    return run_docs(docs, tmp_path_factory.mktemp("docs"))


@pytest.mark.parametrize("doc", DOCS)
def test_doc_commands_run(doc, doc_results):
    times, failure = doc_results[doc]
    assert failure is None, failure
    slow = sorted(times, key=lambda t: -t[0])[:5]
    print(f"{doc}: {len(times)} commands in {sum(t for t, _ in times):.1f} s; slowest:")
    for t, c in slow:
        print(f"  {t:6.1f} s  {c.doc}:{c.line}  {c.run.splitlines()[0][:90]}")


if __name__ == "__main__":  # list what would run: python tests/cli/test_docs_commands.py [DOC...]
    for doc in sys.argv[1:] or DOCS:
        for c in commands(doc):
            flag = "" if c.run == c.text else f"   <- {c.note or 'scaled'}"
            print(f"{doc}:{c.line}: [{c.exit}] {c.run or '(not run)'}{flag}")

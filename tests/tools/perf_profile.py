"""Profile the batch kernel with Linux ``perf``, with the compiled functions named.

Numba's machine code has no symbols ``perf`` can see; this script writes
``/tmp/perf-<pid>.map`` (the format ``perf report`` reads for JIT code) from the dispatchers'
own function names and addresses, then plays games on one thread:

    perf record -F 4000 -o perf.data python tests/tools/perf_profile.py 20000
    perf report -i perf.data --no-children --sort symbol

Used for the figures in docs/performance.md. Sizes in the map are the gaps between functions,
so code that is not a named function (wrappers) is counted with the function before it.

Where inside one function the samples fall (``--dump NAME``, comma-separated short names such
as ``sim.loba.engine.play_turns``): the script also copies each named function's machine code
out of the process (``/tmp/NAME.bin``, its address in ``/tmp/NAME.addr``), and
``--annotate NAME`` then maps the samples of ``perf.data`` onto ``objdump`` of that code::

    F=sim.loba.engine.play_turns
    perf record -F 10000 -o perf.data python tests/tools/perf_profile.py 40000 --dump $F
    python tests/tools/perf_profile.py --annotate $F perf.data > play_turns.txt

(each instruction with its sample count, then the hottest windows). Samples pile up just after
a mispredicted branch or a slow load, not on it: read a window, and let a paired A/B
(``tests/tools/ab_bench.py``) decide.

What a function's out-of-line calls cost in arguments (``--calls NAME``, after ``--dump``):
Numba passes every array word by word (seven words a vector, nine a matrix, a named tuple of
arrays as all of them), and a call with many words pushes them on the stack before it. This
lists each call site with the ``push`` instructions before it, their samples and the callee's
name (from the perf map the dump was made with), most samples first::

    python tests/tools/perf_profile.py --calls $F perf.data

(how docs/performance.md "Calls that pass every array" found them).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path


def _short(name: str) -> str:
    """``_ZN3sim4loba6engine9play_turnB4v...`` -> ``sim.loba.engine.play_turn``."""
    if not name.startswith("_ZN"):
        return name
    i, parts = 3, []
    while i < len(name) and name[i].isdigit():
        digits = re.match(r"\d+", name[i:]).group()
        i += len(digits)
        parts.append(name[i : i + int(digits)])
        i += int(digits)
    return ".".join(parts)


def write_perf_map() -> tuple[str, int]:
    """Map every compiled function of the loaded ``sim``/``analysis`` dispatchers."""
    names: dict[int, str] = {}
    seen = set()
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not mod_name.startswith(("sim", "analysis")):
            continue
        for obj in vars(mod).values():
            if not hasattr(obj, "overloads") or id(obj) in seen:
                continue
            seen.add(id(obj))
            for cres in obj.overloads.values():
                lib = cres.library
                for module in (getattr(lib, "_shared_module", None), lib._final_module):
                    if module is None:
                        continue
                    for fn in module.functions:
                        if not fn.is_declaration:
                            addr = lib.get_pointer_to_function(fn.name)
                            if addr:
                                names[addr] = _short(fn.name)
    addrs = sorted(names)
    path = f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as f:
        for a, b in zip(addrs, addrs[1:] + [addrs[-1] + 4096], strict=True):
            f.write(f"{a:x} {min(b - a, 65536):x} {names[a]}\n")
    return path, len(addrs)


def dump_functions(path: str, names: list[str]) -> None:
    """Copy the machine code of the functions ``names`` of the perf map ``path`` to
    ``/tmp/NAME.bin`` (and their start and size to ``/tmp/NAME.addr``)."""
    import ctypes

    for line in open(path):
        start, size, name = line.split(maxsplit=2)
        if name.strip() in names:
            a, n = int(start, 16), int(size, 16)
            Path(f"/tmp/{name.strip()}.bin").write_bytes(ctypes.string_at(a, n))
            Path(f"/tmp/{name.strip()}.addr").write_text(f"{a:x} {n:x} {path}\n")


def annotate(name: str, data: str, window: int = 30, top: int = 15) -> None:
    """Print ``objdump`` of ``/tmp/NAME.bin`` with each instruction's samples from ``data``."""
    import collections
    import subprocess

    start, size = (int(x, 16) for x in Path(f"/tmp/{name}.addr").read_text().split()[:2])
    ips = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True
    ).stdout.split()
    hits = collections.Counter(int(ip, 16) - start for ip in ips if 0 <= int(ip, 16) - start < size)
    asm = subprocess.run(
        ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"/tmp/{name}.bin"],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    counts = []
    for line in asm:
        m = re.match(r"\s+([0-9a-f]+):", line)
        counts.append(hits.get(int(m.group(1), 16), 0) if m else 0)
        print(f"{counts[-1]:6d} {line}")
    sums = [sum(counts[i : i + window]) for i in range(len(counts))]
    chosen: list[int] = []
    for i in sorted(range(len(sums)), key=lambda i: -sums[i]):
        if len(chosen) == top:
            break
        if all(abs(i - j) > window for j in chosen):
            chosen.append(i)
    print(f"# {sum(counts)} samples in {name}; hottest windows of {window} lines (line: samples)")
    for i in sorted(chosen):
        print(f"# {i + 1}: {sums[i]}")


def calls(name: str, data: str, top: int = 15) -> None:
    """Print the call sites of ``/tmp/NAME.bin`` by the samples on the ``push`` instructions
    before each (the arguments the call passes on the stack): samples, pushes, offset, callee
    (the address last loaded into a register before the call, named from the dump's perf map;
    ``?`` when the call's target was not loaded so, as a first-class function's)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        annotate(name, data, top=0)
    funcs = []
    map_path = Path(f"/tmp/{name}.addr").read_text().split()[2:]
    if map_path and Path(map_path[0]).exists():
        for line in open(map_path[0]):
            a, n, fn = line.split(maxsplit=2)
            funcs.append((int(a, 16), int(n, 16), fn.strip()))

    def callee(addr: int | None) -> str:
        for a, n, fn in funcs:
            if addr is not None and a <= addr < a + n:
                return fn
        return "?"

    sites = []
    pushes = samples = 0
    loaded = None
    for line in out.getvalue().splitlines():
        m = re.match(r"\s*(\d+)\s+([0-9a-f]+):\s+(.*)", line)
        if not m:
            continue
        n, text = int(m.group(1)), m.group(3)
        if "movabs" in text and ",%r" in text:
            loaded = int(text.split("$")[-1].split(",")[0], 16)
        if "push" in text:
            pushes += 1
            samples += n
        elif "call" in text:
            if pushes:
                sites.append((samples, pushes, m.group(2), callee(loaded)))
            pushes = samples = 0
    total = sum(int(x.split()[0]) for x in out.getvalue().splitlines() if x[:6].strip().isdigit())
    print(f"# {total} samples in {name}; call sites by the samples on their pushes")
    print(f"{'samples':>8} {'pushes':>7} {'offset':>7}  callee")
    for smp, p, at, fn in sorted(sites, reverse=True)[:top]:
        print(f"{smp:8d} {p:7d} {at:>7}  {fn[:80]}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("--annotate", "--calls"):
        fn = annotate if sys.argv[1] == "--annotate" else calls
        fn(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "perf.data")
        return
    dump = []
    if "--dump" in sys.argv:
        i = sys.argv.index("--dump")
        dump = sys.argv[i + 1].split(",")
        del sys.argv[i : i + 2]
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    seats = sys.argv[2] if len(sys.argv) > 2 else "greedy,greedy,greedy,greedy"
    from sim.chunks import run_chunk, set_threads
    from sim.games import get_game
    from sim.policies import parse_seats
    from sim.setup import make_rules

    set_threads(1)
    spec = get_game("loba")
    R = make_rules().to_array()
    tables = spec.fn_tables(parse_seats(seats, len(seats.split(",")), "loba"))
    n = len(seats.split(","))
    run_chunk(spec, R, n, 1, 0, 2, tables, 0)  # compile or load first
    path, count = write_perf_map()
    print(f"perf map: {path} ({count} functions)", flush=True)
    dump_functions(path, dump)
    t = time.perf_counter()
    run_chunk(spec, R, n, 1, 0, games, tables, 0)
    print(f"{games} games in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()

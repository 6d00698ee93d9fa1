"""Profile the batch kernel with Linux ``perf``, with the compiled functions named.

Numba's machine code has no symbols ``perf`` can see; this script writes
``/tmp/perf-<pid>.map`` (the format ``perf report`` reads for JIT code) from the dispatchers'
own function names and addresses, then plays games on one thread:

    perf record -F 4000 -o perf.data python tests/perf_profile.py 20000
    perf report -i perf.data --no-children --sort symbol

Used for the figures in docs/performance.md. Sizes in the map are the gaps between functions,
so code that is not a named function (wrappers) is counted with the function before it.
"""

from __future__ import annotations

import os
import re
import sys
import time


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


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    seats = sys.argv[2] if len(sys.argv) > 2 else "greedy,greedy,greedy,greedy"
    from sim.games import get_game
    from sim.policies import parse_seats
    from sim.rules import make_rules
    from sim.runner import run_chunk, set_threads

    set_threads(1)
    spec = get_game("loba")
    R = make_rules().to_array()
    tables = spec.fn_tables(parse_seats(seats, len(seats.split(",")), "loba"))
    n = len(seats.split(","))
    run_chunk(spec, R, n, 1, 0, 2, tables, 0)  # compile or load first
    path, count = write_perf_map()
    print(f"perf map: {path} ({count} functions)", flush=True)
    t = time.perf_counter()
    run_chunk(spec, R, n, 1, 0, games, tables, 0)
    print(f"{games} games in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()

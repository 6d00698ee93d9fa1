"""The import graph of the shared code: no loop, and layers that only look down.

Read from the source with :mod:`ast` (nothing is imported): every ``import`` and ``from ...
import`` of ``sim/``, ``analysis/`` and ``cli.py``, at module level *and* inside functions (an
import in a function body that climbs back up is a loop all the same, only a later one); only
imports under ``if TYPE_CHECKING:`` are left out. Loops are found as the strongly connected
components of that graph (Tarjan).

- The shared modules — ``sim/*.py``, ``sim/policies``, ``analysis/*.py``, ``cli.py`` — form
  no loop.
- Nor do the modules inside each registered game's packages (``sim/<game>/``,
  ``analysis/<game>/``, their sub-packages): the game's spec gathers its pieces and none of
  them imports it back (they are handed it as an argument).
- ``sim`` never imports ``analysis`` or ``cli``: the engine is below the analysis.
- The shared modules of ``sim`` and ``analysis``, and ``cli.py``, never import a game's package
  (``sim/<game>/``, ``analysis/<game>/``): a game is reached through the registry
  (:mod:`sim.games`) and its spec's references (``GameSpec.analysis``), by name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sim.games import game_names

ROOT = Path(__file__).resolve().parents[2]


def modules() -> dict[str, Path]:
    files = [*ROOT.glob("sim/**/*.py"), *ROOT.glob("analysis/**/*.py"), ROOT / "cli.py"]
    out = {}
    for p in files:
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODS = modules()
PACKAGES = {m for m, p in MODS.items() if p.name == "__init__.py"}
GAME_PACKAGES = {m for m in PACKAGES if m.count(".") == 1 and (MODS[m].parent / "spec.py").exists()}
GAME_NAMES = {m.split(".")[1] for m in GAME_PACKAGES}


def is_game_module(m: str) -> bool:
    parts = m.split(".")
    return len(parts) >= 2 and parts[0] in ("sim", "analysis") and parts[1] in GAME_NAMES


def shared(m: str) -> bool:
    return not is_game_module(m)


def _known(name: str) -> str | None:
    while name and name not in MODS:
        name = name.rpartition(".")[0]
    return name or None


def targets(module: str, node) -> list[str]:
    """The project modules an import statement of ``module`` loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")
            if module not in PACKAGES:
                parts = parts[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, base] if base else parts)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODS else base for a in node.names]
    return [k for k in (_known(n) for n in names) if k is not None and k != module]


def _type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def edges() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m, p in MODS.items():
        found: set[str] = set()
        stack = [ast.parse(p.read_text(), str(p))]
        while stack:
            for c in ast.iter_child_nodes(stack.pop()):
                if _type_checking(c):
                    continue
                if isinstance(c, ast.Import | ast.ImportFrom):
                    found.update(targets(m, c))
                stack.append(c)
        out[m] = found
    return out


EDGES = edges()


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_graph_is_read():
    """The reader sees the imports it should (a broken reader would find no loop anywhere)."""
    assert {"sim.games", "sim.game"} <= EDGES["sim.setup"]
    assert "sim.chunks" in EDGES["sim.runner"]
    assert GAME_NAMES >= {"loba", "moon"}
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def described(graph: dict[str, set[str]], found: list[list[str]]) -> str:
    """Each loop in words: its modules, then which of them imports which."""
    return "\n".join(
        " -> ".join(c) + ": " + "; ".join(f"{a} imports {b}" for a in c for b in graph[a] if b in c)
        for c in found
    )


def test_shared_modules_form_no_import_loop():
    graph = {m: {t for t in ts if shared(t)} for m, ts in EDGES.items() if shared(m)}
    found = loops(graph)
    assert not found, "import loops among the shared modules:\n" + described(graph, found)


@pytest.mark.parametrize("game", game_names())
def test_a_game_package_forms_no_import_loop(game):
    assert f"sim.{game}" in GAME_PACKAGES, f"the registered game {game} has no package sim/{game}/"
    for pkg in (f"sim.{game}", f"analysis.{game}"):
        inside = {m for m in EDGES if m == pkg or m.startswith(pkg + ".")}
        graph = {m: EDGES[m] & inside for m in inside}
        found = loops(graph)
        assert not found, f"import loops inside {pkg}:\n" + described(graph, found)


def test_sim_never_imports_analysis_or_the_cli():
    up = {
        (m, t)
        for m, ts in EDGES.items()
        if m.split(".")[0] == "sim"
        for t in ts
        if t.split(".")[0] in ("analysis", "cli")
    }
    assert not up, f"sim imports the layers above it: {sorted(up)}"


def test_shared_modules_never_import_a_game_package():
    leaks = {
        (m, t)
        for m, ts in EDGES.items()
        if shared(m) and m.split(".")[0] in ("sim", "analysis", "cli")
        for t in ts
        if is_game_module(t)
    }
    assert not leaks, f"shared modules import a game's package: {sorted(leaks)}"

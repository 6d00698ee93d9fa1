"""The notebooks run top to bottom (small sizes set in their 'parameters' cell)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
DRAWS = re.compile(r"\b\w*_plot\(|\bplt\.|\.plot\(|subplots\(")  # a cell that makes a figure
SMALL = {
    "01_quickstart.ipynb": {"GAMES": 300},
    "02_rebuy_value.ipynb": {"POLICY_GAMES": 300, "STATE_GAMES": 6, "REPS": 2},
    "03_house_rules.ipynb": {"GAMES": 40, "ELIMINATION": [101, 151], "REBUYS": [0, 2]},
    "04_moon.ipynb": {"GAMES": 300},
    "05_skill.ipynb": {
        "LADDER_GAMES": 200,
        "TOURNAMENT_GAMES": 30,
        "TUNE_GAMES": 200,
        "TUNE_TRIALS": 2,
        "FIELD_GAMES": 200,
        "FINDINGS_GAMES": 100,
        "FINDINGS_EXPERT_GAMES": 3,
    },
    "06_advise.ipynb": {"BUDGET": 2400, "CHECK_GAMES": 300},
}


def test_every_notebook_is_covered_and_stored_without_outputs():
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == sorted(SMALL)
    for name in names:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        assert nb.metadata["kernelspec"]["name"] == "python3"
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
        assert "parameters" in code[0].metadata.get("tags", [])


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_top_to_bottom(name, tmp_path):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    params.source += "\n# test sizes\n" + "\n".join(f"{k} = {v!r}" for k, v in SMALL[name].items())
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert images, "the notebook draws its figures"
    for i, c in enumerate(nb.cells):  # every cell that draws shows its figure
        if c.cell_type == "code" and DRAWS.search(c.source):
            shown = [o for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
            assert shown, f"cell {i} of {name} draws but shows no figure:\n{c.source[:200]}"
    warned = [
        o.get("text", "") for c in nb.cells for o in c.get("outputs", [])
        if o.get("name") == "stderr" and "Warning" in o.get("text", "")
    ]  # fmt: skip
    assert not warned, warned

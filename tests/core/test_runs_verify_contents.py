"""`loba verify` checks what the parts hold, not only that their bytes match the manifest.

Each damage below is made by hand and then *hidden*: the part rewritten and its size, rows and
checksum written into the manifest, as a careful forger (or a buggy tool) would. Verification
must still name it, in one sentence, and so must ``summarize --verify`` and a resume.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from runs_util import run_cli

import cli


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    d = tmp_path_factory.mktemp("verify") / "run"
    args = ["simulate", "--games", "1200", "--chunk-size", "400", "--seed", "9", "--quiet",
            "--seats", "greedy,random,greedy", "--out", str(d)]  # fmt: skip
    assert cli.main(args) == 0
    return d


def _part(d: Path, table: str, k: int = 1) -> Path:
    return sorted((d / f"{table}.parquet").glob("*.parquet"))[k]


def _hide(d: Path, path: Path) -> None:
    """Write the rewritten part's rows, size and checksum into the manifest."""
    m = json.loads((d / "manifest.json").read_text())
    table = path.parent.name.removesuffix(".parquet")
    e = m["parts"][path.stem]["files"][table]
    e["rows"] = pl.read_parquet(path).height
    e["bytes"] = path.stat().st_size
    e["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (d / "manifest.json").write_text(json.dumps(m))


def _rewrite(d: Path, table: str, change) -> None:
    path = _part(d, table)
    df = change(pl.read_parquet(path))
    df.write_parquet(path)
    _hide(d, path)


def _edit_manifest(d: Path, change) -> None:
    m = json.loads((d / "manifest.json").read_text())
    change(m)
    (d / "manifest.json").write_text(json.dumps(m))


def _dup_game(df):  # game 501 twice, no game 500 (the first and last stay)
    return df.with_columns(
        pl.when(pl.col("game") == 500).then(501).otherwise(pl.col("game")).alias("game")
    )


def _drop_game(df):  # one game fewer, the rows fixed up
    return df.filter(pl.col("game") != 410)


def _retype(df):
    return df.with_columns(pl.col("rounds").cast(pl.Int64))


def _other_rules(df):
    return df.with_columns(pl.lit("loba:rami").cast(df.schema["rules_id"]).alias("rules_id"))


def _swap_policy(df):
    return df.with_columns(
        pl.when(pl.col("seat") == 1).then(pl.lit("greedy")).otherwise(pl.col("policy"))
        .cast(df.schema["policy"]).alias("policy")
    )  # fmt: skip


def _seats(m):
    m["seats"][1] = "greedy"


def _rules_id(m):
    m["rules_id"] = "loba:pagat(elimination_score=151)"


def _knob(m):
    m["rules"]["elimination_score"] = 151


DAMAGES = {
    "a game twice, another missing": (lambda d: _rewrite(d, "games", _dup_game), "game 500 0"),
    "a game dropped, rows fixed": (lambda d: _rewrite(d, "games", _drop_game), "game 410 0"),
    "a column of another type": (lambda d: _rewrite(d, "games", _retype), "column 'rounds'"),
    "a part of other rules": (lambda d: _rewrite(d, "games", _other_rules), "loba:rami"),
    "a seat's policy changed in the part": (lambda d: _rewrite(d, "seats", _swap_policy),
                                            "at seat 1"),  # fmt: skip
    "the manifest's seats edited": (lambda d: _edit_manifest(d, _seats), "at seat 1"),
    "the manifest's rules id edited": (lambda d: _edit_manifest(d, _rules_id), "rules id"),
    "the manifest's knobs edited": (lambda d: _edit_manifest(d, _knob), "rules id"),
    "seat rows of a game dropped": (lambda d: _rewrite(d, "seats", _drop_game), "game 410 0"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_verify_names_the_damage(damage, good, tmp_path, capsys):
    d = tmp_path / "run"
    shutil.copytree(good, d)
    make, says = DAMAGES[damage]
    make(d)
    code, out, err = run_cli(capsys, "verify", d)
    assert code in (1, 2), (damage, out, err)
    assert says in out + err, (damage, out, err)
    assert "Traceback" not in out + err
    code, out, err = run_cli(capsys, "summarize", "--verify", d)
    assert code == 2 and says in err, (damage, out, err)


def test_the_undamaged_run_verifies(good, capsys):
    code, out, err = run_cli(capsys, "verify", good)
    assert code == 0 and out.startswith("ok"), err

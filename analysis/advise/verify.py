"""The re-check: an answer (an advise's ``--out`` folder, or any rules) played again on
fresh games of a seed the advise never used, every target judged as the verification judges
(:func:`check`, ``loba advise --check``), and printed (:func:`check_text`)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import polars as pl

from ..errors import AnalysisError
from ..stats import LEVEL
from .constants import CHECK_SEED, MET
from .measure import _frame, assess
from .output import _conf, _fmt, _interval
from .search import _players, _whole
from .targets import parse_targets, read_targets_file


def read_advice(out) -> dict | None:
    """What an advise's ``--out`` folder holds for a check: ``question`` (its ``advise.json``),
    ``rules`` (its ``advised.toml``), ``verified`` (target -> field -> the verification's
    verdict in that field) and ``verify_seed``; None if ``out`` is not such a folder (no
    ``advise.json``). One sentence if the advise has not finished."""
    p = Path(str(out).strip()) if isinstance(out, str) else Path(out)
    if not p.is_dir() or not (p / "advise.json").is_file():
        return None
    try:
        question = json.loads((p / "advise.json").read_text())
        advice = json.loads((p / "advice.json").read_text())
    except FileNotFoundError:
        raise AnalysisError(
            f"'{p}' holds an advise that has not finished (no advice.json); the same 'loba"
            " advise' command on it finishes it."
        ) from None
    except (OSError, ValueError) as e:
        raise AnalysisError(f"'{p}' holds an advise whose files cannot be read ({e}).") from None
    if not (p / "advised.toml").is_file() or not advice.get("ranking"):
        raise AnalysisError(f"'{p}' holds no advised.toml; the same 'loba advise' command on it"
                            " writes it.")  # fmt: skip
    best = advice["ranking"][0]["targets"]
    fields = list(question.get("fields") or {})
    verified = {t: {f: (d.get(f) or {}).get("status") for f in fields} for t, d in best.items()}
    return {"question": question, "rules": p / "advised.toml", "verified": verified,
            "verify_seed": advice.get("verify_seed"), "path": p}  # fmt: skip


def check(
    targets=(),
    rules=None,
    seats=None,
    fields=None,
    games: int = 20_000,
    seed: int = CHECK_SEED,
    game=None,
    seconds_per_turn: float | None = None,
    targets_file=None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pl.DataFrame:
    """An independent re-simulation: ``rules`` (e.g. an advise's ``OUT/advised.toml``) played
    on ``games`` games of ``seed`` (take one the advise never used: its search plays the seed
    it was given, its verification :func:`analysis.tune.fresh_seed` of it) in each field, and
    every target measured on them with its 95% interval and judged as the verification judges
    (:func:`assess`): one row per field and target (``field, target, value, low, high, unit,
    status, confidence, games`` (those with a value), ``played``, ``rules_id``, ``seed``).

    ``rules`` may be an advise's ``--out`` folder (:func:`read_advice`): its ``advised.toml`` is
    played, its question's targets, fields (or seats) and seconds per turn are the defaults,
    each row gets ``verified`` (the advise's verdict on its fresh games in that field; null for
    a target it was not asked), and a seed the advise played is refused.
    ``progress(games, total)`` after each field."""
    from sim.runner import simulate
    from sim.setup import settings

    adv = read_advice(rules) if rules is not None else None
    if adv is not None:
        q = adv["question"]
        rules = adv["rules"]
        if not list(targets or ()) and targets_file is None:
            targets = q.get("targets") or ()
        qf = q.get("fields") or {}
        if fields is None and seats is None and qf:
            if len(qf) == 1 and next(iter(qf)) == next(iter(qf.values())):
                seats = next(iter(qf.values()))
            else:
                fields = list(qf)
        if seconds_per_turn is None:
            seconds_per_turn = q.get("seconds_per_turn")
        if not isinstance(seed, bool) and seed in (q.get("seed"), adv["verify_seed"]):
            raise AnalysisError(
                f"Seed {seed} is one the advise in '{adv['path']}' played (its search's or its"
                " verification's); a check needs games it never saw: give another --seed."
            )
    if fields is not None and seats is not None:
        raise AnalysisError("--field and --seats both name the players; give one of them.")
    tf = read_targets_file(targets_file) if targets_file is not None else None
    texts = [*(tf.targets if tf else []), *list(targets or ())]
    if rules is None and tf is not None and tf.game is not None and game is None:
        game = tf.game
    s = settings(rules, (), seats if fields is None else None, game)
    if tf is not None:
        tf.check_game(s.rules.game)
    spt = seconds_per_turn
    if spt is None and tf is not None:
        spt = tf.seconds_per_turn
    fmap, _, cat = _players(s.rules, s.seats, fields, spt)
    tlist = parse_targets(texts, cat)
    games = _whole(games, 2, 10**9, "The games of a check")
    seed = _whole(seed, 0, 2**63 - 1, "The seed")
    metrics = list({t.metric.name: t.metric for t in tlist}.values())
    rows = []
    for i, (f, text) in enumerate(fmap.items()):
        res = simulate(s.rules, text, games=games, seed=seed, threads=threads)
        data = cat.evaluate(res.games, res.seats, metrics)
        for t in tlist:
            d = assess(t, data, LEVEL)
            row = {"field": f, "target": t.text, "value": _finite(d["value"]), "low": d["low"],
                   "high": d["high"], "unit": t.unit, "status": d["status"],
                   "confidence": _finite(d["confidence"]), "games": d["games"],
                   "played": games}  # fmt: skip (NaN: null, so that JSON reads it)
            if adv is not None:
                row["verified"] = adv["verified"].get(t.text, {}).get(f)
            rows.append(row)
        if progress is not None:
            progress((i + 1) * games, len(fmap) * games)
    return _frame(rows).with_columns(pl.lit(s.rules.id).alias("rules_id"),
                                     pl.lit(seed).alias("seed"))  # fmt: skip


def _finite(x):
    return None if x is None or not math.isfinite(x) else x


def _precise(value, lo, hi, unit) -> tuple[str, str]:
    """An estimate and its interval to the decimals the interval's width needs (two
    significant digits of it: a check's many games narrow it); spreads and edges in points as
    :func:`_fmt` writes them."""
    from sim import fmt

    if unit == "pts" or fmt.is_na(value) or fmt.is_na(lo) or fmt.is_na(hi) or lo == hi:
        return _fmt(value, unit), _interval(lo, hi, unit)
    d = min(max(0, 1 - math.floor(math.log10(abs(hi - lo)))), 10)
    return f"{value:.{d}f}", f"[{lo:.{d}f}, {hi:.{d}f}]"


def check_text(df: pl.DataFrame) -> str:
    """A check (:func:`check`) as ``loba advise --check`` prints it: the rules and games, one
    row per field and target (estimate, 95% interval, verdict, confidence, and the advise's
    own verdict when the check read its folder), and a sentence: how many targets are met,
    and whether every target the advise verified as met is met again."""
    from ..text import aligned

    fields = df["field"].unique(maintain_order=True).to_list()
    many = len(fields) > 1
    has_v = "verified" in df.columns
    head = ["target", "estimate", "95% interval", "verdict", "confidence"]
    head = (["field"] if many else []) + head + (["verified"] if has_v else [])
    rows = []
    for r in df.iter_rows(named=True):
        row = [r["target"], *_precise(r["value"], r["low"], r["high"], r["unit"]), r["status"],
               _conf(r["confidence"])]  # fmt: skip
        rows.append(([r["field"]] if many else []) + row + ([r["verified"] or ""] if has_v else []))
    games = int(df["played"][0]) if df.height else 0
    where = f" in each field ({', '.join(fields)})" if many else f" ({fields[0]})"
    lines = [f"check: {df['rules_id'][0]} on fresh games of seed {df['seed'][0]}{where}", ""]
    lines.append(aligned(head, rows, [h in ("estimate", "confidence") for h in head]))
    targets = df["target"].unique(maintain_order=True).to_list()
    met = [t for t in targets if (df.filter(pl.col("target") == t)["status"] == MET).all()]
    text = f"{len(met)} of {len(targets)} targets met{' in every field' if many else ''}"
    text += f" ({games:,} games{' a field' if many else ''}, 95% intervals)."
    if has_v:
        claimed = df.filter(pl.col("verified") == MET)
        missed = claimed.filter(pl.col("status") != MET)
        if df["verified"].is_null().all():
            text += " None of these targets was the advise's."
        elif not claimed.height:
            text += " The advise verified no target as met."
        elif not missed.height:
            text += " Every target the advise verified as met is met again."
        else:
            text += " Verified as met but not met here: " + "; ".join(
                f"{r['target']}{' (' + r['field'] + ')' if many else ''}: {r['status']}"
                for r in missed.iter_rows(named=True)
            ) + "."
    lines += ["", text]
    return "\n".join(lines)


CHECK_FILES = ("check.csv", "check.json", "check.txt")  # what ``--check --out DIR`` writes


def write_check(df: pl.DataFrame, out) -> list[Path]:
    """A check (:func:`check`) into the folder ``out``: its rows (``check.csv``,
    ``check.json``) and what the command printed (``check.txt``), each file whole or not at
    all. The folder is checked before any game (``sim.files.check_out_dir``)."""
    from sim.files import atomic_output

    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    writers = (
        lambda t: df.write_csv(t),
        lambda t: Path(t).write_text(json.dumps(df.to_dicts(), indent=1, default=str) + "\n"),
        lambda t: Path(t).write_text(check_text(df) + "\n"),
    )
    for name, write in zip(CHECK_FILES, writers, strict=True):
        with atomic_output(outp / name) as tmp:
            write(tmp)
    return [outp / n for n in CHECK_FILES]

"""What an advise shows: :class:`AdviceResult` (the ranked table, the paragraph, the text,
the advised house rules, the files of ``--out``), its table from a written answer
(:func:`advice_rows`) and its figures (:func:`front_plot`, :func:`search_plot`)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..stats import LEVEL
from .constants import MET, NOT_MET, RACE_LEVEL, UNDECIDED
from .measure import Measured, _overall, setting_text
from .targets import Target, _bounds, _cond_text, _num, _split

if TYPE_CHECKING:
    from .search import AdvicePlan


# ---------------------------------------------------------------------------- the search
@dataclass
class AdviceResult:
    """What :func:`run_advise` found: the study (one row per trial), each trial's targets
    (``targets``: trial, field, target, value, low, high, status at the race level), the
    verified candidates in rank order (``verified``: :class:`Measured` on fresh games) and the
    verification table, the recommended setting and whether it meets every target."""

    plan: AdvicePlan
    study: pl.DataFrame
    trial_targets: pl.DataFrame
    verified: list[Measured]
    verification: pl.DataFrame
    never: list[str]
    played: int
    simulated: int
    search_played: int
    verify_games: int
    elapsed: float = 0.0
    optuna_study: object = field(default=None, repr=False)
    search: list[Measured] = field(default_factory=list, repr=False)

    @property
    def best(self) -> Measured:
        return self.verified[0]

    @property
    def feasible(self) -> bool:
        return all(self.best.status(t) == MET for t in self.plan.targets)

    @property
    def best_rules(self):
        return self.plan.base.spec.parse(self.best.rules_id)

    @property
    def conflict(self) -> bool:
        """No candidate met every target in the search (or the best did not on fresh games):
        the targets pull against each other somewhere in the space."""
        met = [m for m in self.search if all(m.status(t) == MET for t in self.plan.targets)]
        return not met or not self.feasible

    def to_dict(self) -> dict:
        from ..tune import _clean

        p = self.plan
        return _clean({
            **p.question(),
            "targets_detail": [{"target": t.text, "metric": t.metric.name, "unit": t.unit,
                                "about": t.metric.about} for t in p.targets],
            "verify_seed": p.verify_seed,
            "trial_games": p.trial_games,
            "rungs": p.rungs,
            "race_level": RACE_LEVEL,
            "level": LEVEL,
            "games_played": self.played,
            "search_games": self.search_played,
            "verify_games": self.verify_games,
            "trials": self.study.height,
            "stopped_early": int((self.study["state"] == "stopped").sum()),
            "feasible": self.feasible,
            "recommended": {"setting": self.best.values, "rules_id": self.best.rules_id},
            "ranking": [
                {"rank": i + 1, "setting": m.values, "rules_id": m.rules_id,
                 "targets": {t.text: {"status": m.status(t), **{f: m.by_field[f][t.text]
                                                                 for f in p.fields}}
                             for t in p.targets}}
                for i, m in enumerate(self.verified)
            ],
            "paragraph": self.paragraph(),
            "never": self.never,
            "study": self.study.to_dicts(),
        })  # fmt: skip

    # ------------------------------------------------------------------ words
    def _phrase(self, t: Target, m: Measured) -> str:
        parts = []
        for f, res in m.by_field.items():
            d = res[t.text]
            val = _fmt(d["value"], t.unit)
            ci = _interval(d["low"], d["high"], t.unit)
            who = f" with {f}" if self.plan.field_given else ""
            parts.append(f"{val} {ci}{who}".rstrip())
        st = m.status(t)
        tail = ""
        if st != MET:
            w = m.worst(t)
            if st == NOT_MET or w["distance"] > 0:
                tail = f", {_fmt(w['distance'], t.unit)} {_side(t, w['value'])} {_bound_text(t)}"
        return f"{t.words()} {'; '.join(parts)} ({t.text}: {st}{tail})"

    def paragraph(self) -> str:
        """The answer in words: the setting to play and what it gives; or, when a target is
        undecided, which; or, when none meets every target, the closest and which target it
        misses by how much; then what no setting with a knob value achieves."""
        p, m = self.plan, self.best
        play = _play_text(p.base, m.values)
        fresh = f"on {self.verify_games:,} fresh games"
        if p.field_given:
            fresh += f" in each field ({', '.join(p.fields)})"
        status = {t.text: m.status(t) for t in p.targets}
        if self.feasible:
            body = "; ".join(self._phrase(t, m) for t in p.targets)
            text = f"Play {play}: {body}. Every target is met {fresh} (95% intervals)."
        elif NOT_MET not in status.values():
            body = "; ".join(self._phrase(t, m) for t in p.targets)
            und = [t.text for t in p.targets if status[t.text] == UNDECIDED]
            text = (
                f"Play {play}: {body}. {', '.join(und)} {'is' if len(und) == 1 else 'are'}"
                f" undecided {fresh}: the interval holds the bound (a larger --budget narrows"
                " it); every other target is met."
            )
        else:
            met_all = [x for x in self.search if all(x.status(t) == MET for t in p.targets)]
            if met_all:
                head = (f"None of the {len(self.verified)} settings verified on fresh games meets"
                        " every target.")  # fmt: skip
            else:
                head = "No setting tried meets every target."
            miss = [t for t in p.targets if status[t.text] != MET]
            body = "; ".join(self._phrase(t, m) for t in miss)
            ok = [t.text for t in p.targets if status[t.text] == MET]
            rest = f" It meets {', '.join(ok)}." if ok else ""
            text = f"{head} The closest is {play}: {body} ({fresh}).{rest}"
        if self.never:
            text += " " + " ".join(self.never)
        return text

    def table_rows(self) -> tuple[list[str], list[list[str]]]:
        """The ranked table (:func:`ranked_rows`)."""
        p = self.plan
        return ranked_rows([(m.values, m.by_field) for m in self.verified],
                           [(t.text, t.unit) for t in p.targets], p.field_given)  # fmt: skip

    def text(self) -> str:
        """What ``loba advise`` prints: the search in one line, the ranked table, the answer."""
        from ..text import aligned

        p = self.plan
        st = self.study
        stopped = int((st["state"] == "stopped").sum())
        lines = [
            f"advise: {p.describe()}",
            f"search: {st.height} trials ({stopped} stopped early by the race at"
            f" {RACE_LEVEL:.0%}), {self.search_played:,} games; verification:"
            f" {len(self.verified)} settings x {self.verify_games:,} fresh games"
            f"{' x ' + str(len(p.fields)) + ' fields' if p.field_given else ''}"
            f" (seed {p.verify_seed}); {self.played:,} games in all",
            "",
        ]
        head, rows = self.table_rows()
        right = [h in ("estimate", "confidence") for h in head]
        lines.append(aligned(head, rows, right))
        lines += [
            "",
            "verdict: met / not met when the 95% interval on fresh games lies wholly inside /"
            " outside the target, else undecided; confidence: 1 - the one-sided p-value of"
            " 'not met'."
            + (" A target counts as met only if it is in every field." if p.field_given else ""),
            "",
            self.paragraph(),
        ]
        return "\n".join(lines)

    def toml(self) -> str:
        """The recommended setting as a house-rules file (``loba simulate --rules`` plays it),
        with the targets it was advised for as comments."""
        from sim.house import house_toml

        p = self.plan
        m = self.best
        seats = None if p.field_given else next(iter(p.fields.values()))
        body = house_toml(self.best_rules, seats, p.label)
        head = [
            "# advised by 'loba advise' (" + ("every target met" if self.feasible
                                               else "the closest: not every target met") + ")",
        ]  # fmt: skip
        for t in p.targets:
            d = m.worst(t)
            head.append(f"#   {t.text}: {m.status(t)}, {_fmt(d['value'], t.unit)}"
                        f" {_interval(d['low'], d['high'], t.unit)}")  # fmt: skip
        head.append(
            f"#   fresh games: {self.verify_games:,} of seed {p.verify_seed}"
            + (f" in each field ({', '.join(p.fields)})" if p.field_given else "")
        )
        return "\n".join(head) + "\n" + body

    def write(self, out) -> list[Path]:
        """Everything into ``out``: the study, each trial's targets, the verification, the
        answer (JSON and text), the advised house rules and, when targets conflict, the
        trade-off plot."""
        from sim.files import atomic_output

        outp = Path(out)
        written = []

        def put(name, write):
            with atomic_output(outp / name) as tmp:
                write(tmp)
            written.append(outp / name)

        put("study.parquet", self.study.write_parquet)
        put("study.csv", lambda t: self.study.write_csv(t))
        put("targets.parquet", self.trial_targets.write_parquet)
        put("verification.csv", lambda t: self.verification.write_csv(t))
        put("advice.json", lambda t: Path(t).write_text(json.dumps(self.to_dict(), indent=1)
                                                        + "\n"))  # fmt: skip
        put("advice.txt", lambda t: Path(t).write_text(self.text() + "\n"))
        put("advised.toml", lambda t: Path(t).write_text(self.toml()))
        if self.conflict and len(self.plan.targets) >= 2:
            fig = front_plot(self)
            if fig is not None:
                put("front.png", lambda t: fig.savefig(t, dpi=110, format="png"))
        return written


def ranked_rows(verified, targets, field_given: bool) -> tuple[list[str], list[list[str]]]:
    """The ranked table: one row per verified setting and target (and field, with fields;
    then ``all fields`` says whether the target counts as met, and where the fields
    disagree). ``verified``: (knob values, ``by_field[field][target text]`` of :func:`assess`)
    in rank order; ``targets``: (text, unit) of each target."""
    head = ["rank", "setting", "target", "estimate", "95% interval", "verdict", "confidence"]
    if field_given:
        head[3:3] = ["field"]
        head.append("all fields")
    rows = []
    for i, (values, by) in enumerate(verified):
        first = True
        for text, unit in targets:
            overall = _overall([by[f][text]["status"] for f in by])
            if len({by[f][text]["status"] for f in by}) > 1:
                overall += " (fields disagree)"
            for j, (f, res) in enumerate(by.items()):
                d = res[text]
                row = [str(i + 1) if first else "", setting_text(values) if first else "",
                       text if j == 0 else ""]  # fmt: skip
                if field_given:
                    row.append(f)
                row += [_fmt(d["value"], unit), _interval(d["low"], d["high"], unit),
                        d["status"], _conf(d["confidence"])]  # fmt: skip
                if field_given:
                    row.append(overall if j == 0 else "")
                rows.append(row)
                first = False
    return head, rows


def advice_rows(advice: dict) -> tuple[list[str], list[list[str]]]:
    """:func:`ranked_rows` of a written answer (``OUT/advice.json``, :meth:`AdviceResult.
    to_dict`)."""
    fields = list(advice["fields"])
    field_given = not (len(fields) == 1 and fields[0] == advice["fields"][fields[0]])
    units = [(t["target"], t["unit"]) for t in advice["targets_detail"]]
    verified = [(r["setting"], {f: {t: r["targets"][t][f] for t, _ in units} for f in fields})
                for r in advice["ranking"]]  # fmt: skip
    return ranked_rows(verified, units, field_given)


def _play_text(base, values: dict) -> str:
    """``pagat with elimination_score=85, max_rebuys=3 and one_turn_bonus=17``: the searched
    knobs whose values differ from the base rules' (``as it is`` when none does)."""
    changed = {k: v for k, v in values.items() if getattr(base, k) != v}
    if not changed:
        return f"{base.short_id} as it is"
    parts = setting_text(changed).split(",")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{base.short_id} with {text}"


def _fmt(x, unit) -> str:
    from sim import fmt

    if fmt.is_na(x):
        return fmt.NA
    if unit == "share":
        return fmt.number(float(x), 3)
    if unit == "pts":  # percentage points: two decimals, signed
        return f"{float(x):+.2f} pts"
    return fmt.number(float(x), 4)


def _interval(lo, hi, unit) -> str:
    from sim import fmt

    if lo is None and hi is None:
        return "none: exact"
    a = fmt.NA if lo is None else _fmt(lo, unit).removesuffix(" pts").lstrip("+")
    b = fmt.NA if hi is None else _fmt(hi, unit).removesuffix(" pts").lstrip("+")
    return f"[{a}, {b}]"


def _conf(c) -> str:
    if c is None or not math.isfinite(c):
        return "n/a"
    if c > 0.999:
        return ">99.9%"
    if c < 0.001:
        return "<0.1%"
    return f"{c * 100:.1f}%"


def _side(t: Target, v) -> str:
    if t.low is not None and v < t.low:
        return "below"
    return "above"


def _bound_text(t: Target) -> str:
    if t.op == "in":
        return f"{_num(t.low)}..{_num(t.high)}"
    return _num(t.low if t.high is None else t.high)


# ---------------------------------------------------------------------------- the front
def front_plot(res: AdviceResult):
    """The trade-off between targets that conflict: for up to three pairs (each target the
    closest setting misses, against each other target), every candidate of the search (its
    estimate at the most games it played; with fields, each target's worst field), the
    targets' bounds shaded, the
    candidates no other beats on both shortfalls joined and labelled with their settings."""
    from matplotlib.figure import Figure as MplFigure

    p = res.plan
    ts = p.targets
    order = {NOT_MET: 0, UNDECIDED: 1, MET: 2}
    miss = sorted([t for t in ts if res.best.status(t) != MET],
                  key=lambda t: order[res.best.status(t)]) or ts[:1]  # fmt: skip
    pairs = []
    for a in miss:
        for b in ts:
            if b is not a and (b, a) not in pairs and (a, b) not in pairs:
                pairs.append((a, b))
    pairs = pairs[:3]
    if not pairs:
        return None
    pts = [m for m in res.search if m.by_field]
    fig = MplFigure(figsize=(5.2 * len(pairs), 4.4))
    axes = fig.subplots(1, len(pairs), squeeze=False)
    for ax, (a, b) in zip(axes[0], pairs, strict=True):
        xs = np.array([m.worst(a)["value"] for m in pts], float)
        ys = np.array([m.worst(b)["value"] for m in pts], float)
        da = np.array([m.worst(a)["distance"] / a.width for m in pts])
        db = np.array([m.worst(b)["distance"] / b.width for m in pts])
        full = np.array([m.games >= p.trial_games for m in pts])
        ax.scatter(xs[~full], ys[~full], s=12, c="0.7", label="stopped early")
        ax.scatter(xs[full], ys[full], s=18, c="tab:blue", label="played in full")
        for t, span in ((a, ax.axvspan), (b, ax.axhspan)):
            lo = t.low if t.low is not None else -1e12
            hi = t.high if t.high is not None else 1e12
            span(lo, hi, color="tab:green", alpha=0.12)
        ax.set_xlim(*_lims(xs, a.low, a.high))
        ax.set_ylim(*_lims(ys, b.low, b.high))
        front = [i for i in range(len(pts))
                 if not any((da[j] <= da[i] and db[j] <= db[i]) and (da[j] < da[i] or db[j] < db[i])
                            for j in range(len(pts)))]  # fmt: skip
        front.sort(key=lambda i: xs[i])
        ax.plot(xs[front], ys[front], "-o", c="tab:red", ms=5, lw=1, label="trade-off front")
        for i in front[:8]:
            label = " / ".join(_cell_text(v) for v in pts[i].values.values())
            ax.annotate(label, (xs[i], ys[i]), fontsize=7, xytext=(4, 3),
                        textcoords="offset points", annotation_clip=True)  # fmt: skip
        ax.set_xlabel(f"{a.words()} (target {_cond_text((a.op, a.low, a.high))})", fontsize=8)
        ax.set_ylabel(f"{b.words()} (target {_cond_text((b.op, b.low, b.high))})", fontsize=8)
        ax.legend(fontsize=7, loc="best")
    title = "targets in conflict" + (" (each target in its worst field)" if p.field_given else "")
    knobs = " / ".join(a.knob for a in p.axes)
    fig.suptitle(f"{p.base.id}: {title}; green: where a target is met; red points labelled"
                 f" {knobs}", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return fig


def search_plot(trial_targets: pl.DataFrame, advice: dict):
    """The search, target by target: each trial's estimate (at the most games it played; with
    fields, each field's marker), the target's bounds shaded green, and the answer's estimate
    on fresh games as a red dashed line (each field's). ``trial_targets``: ``OUT/targets.
    parquet`` (:attr:`AdviceResult.trial_targets`); ``advice``: ``OUT/advice.json``."""
    from matplotlib.figure import Figure as MplFigure

    texts = list(advice["targets"])
    fields = list(advice["fields"])
    field_given = not (len(fields) == 1 and fields[0] == advice["fields"][fields[0]])
    best = advice["ranking"][0]["targets"]
    ncol = min(3, len(texts))
    nrow = math.ceil(len(texts) / ncol)
    fig = MplFigure(figsize=(4.6 * ncol, 3.3 * nrow))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for k, (ax, text) in enumerate(zip(axes.flat, texts, strict=False)):
        part = trial_targets.filter(pl.col("target") == text) if trial_targets.height else None
        vals: list[float] = []
        for j, f in enumerate(fields):
            pf = part.filter(pl.col("field") == f) if part is not None else pl.DataFrame()
            if pf.height:
                y = pf["value"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
                vals += list(y)
                ax.scatter(pf["trial"].to_numpy(), y, s=12, marker="os^Dv"[j % 5], alpha=0.8,
                           label=f if field_given else "a trial of the search")  # fmt: skip
            v = (best.get(text) or {}).get(f, {}).get("value")
            if v is not None and math.isfinite(v):
                vals.append(v)
                ax.axhline(v, color="tab:red", lw=1, ls="--",
                           label="the answer on fresh games" if j == 0 else None)  # fmt: skip
        lhs, op, rhs = _split(text)
        _, lo, hi = _bounds(op, rhs, text)
        ax.axhspan(-1e12 if lo is None else lo, 1e12 if hi is None else hi,
                   color="tab:green", alpha=0.12)  # fmt: skip
        ax.set_ylim(*_lims(np.array(vals, float), lo, hi))
        ax.set_title(text, fontsize=9)
        ax.set_xlabel("trial", fontsize=8)
        if k == 0:
            ax.legend(fontsize=7, loc="best")
    for ax in list(axes.flat)[len(texts):]:
        ax.set_visible(False)
    fig.suptitle(f"{advice['rules_id']}: each target over the search's trials; green: where it"
                 " is met", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return fig


def _cell_text(v) -> str:
    from sim.rules import fmt_value

    return fmt_value(v)


def _lims(v: np.ndarray, low, high) -> tuple[float, float]:
    v = v[np.isfinite(v)]
    pts = list(v) + [b for b in (low, high) if b is not None]
    lo, hi = min(pts), max(pts)
    pad = (hi - lo) * 0.08 or 1.0
    return lo - pad, hi + pad

"""Targets as data: what a game lets a target name (:class:`Catalog`, from its registration's
:class:`analysis.bygame.TargetSpec`), the grammar (:func:`parse_target`: ``METRIC in LO..HI``,
``METRIC <= X``, ``share(...) >= P``, ``q90(...) <= X``) and the targets file
(:func:`read_targets_file`)."""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..errors import AnalysisError
from ..estimate import Figure, per_game_columns
from ..metrics import M_SEAT_SPREAD, M_UNFINISHED, prep, with_seed
from .constants import MET, NOT_MET, UNDECIDED


# ---------------------------------------------------------------------------- metrics
def snake(text: str) -> str:
    """``"rounds per game"`` -> ``rounds_per_game`` (lower case, other characters ``_``)."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


@dataclass(frozen=True)
class Metric:
    """A targetable metric: its figure (or spread) name, the name targets show it by, its unit
    and the factor from the figure's value to that unit; ``figure`` (per-game ``y``/``x``) or
    ``group`` (a spread: the winner's group per game)."""

    name: str
    short: str
    unit: str
    scale: float = 1.0
    figure: Figure | None = None
    group: pl.Expr | None = None
    about: str = ""

    @property
    def spread(self) -> bool:
        return self.group is not None

    @property
    def per_game(self) -> bool:
        """Whether each game has a value of its own (share(...) and quantiles need one)."""
        return self.figure is not None


M_MINUTES = "minutes per game"


def _generic_frame(games, seats) -> pl.DataFrame:
    from ..io import collect

    return collect(with_seed(prep(games))).sort("game")


def _generic_figures(policies=()) -> list[Figure]:
    fin = pl.col("winner").is_not_null()
    return [Figure(M_UNFINISHED, "share", ~fin, pl.lit(1.0), "share", True)]


@dataclass
class Catalog:
    """Every metric a target may name in one game (:func:`catalog`): ``metrics`` by figure
    name, ``names`` every accepted spelling -> figure name, and how a game is evaluated."""

    game: str
    title: str
    metrics: dict[str, Metric]
    names: dict[str, str]
    short: list[str]
    frame: Callable
    seconds_per_turn: float | None
    turn: str

    def resolve(self, name: str) -> Metric:
        key = str(name).strip().strip("'\"").strip()
        for k in (key, key.lower(), snake(key)):
            if k in self.names:
                return self.metrics[self.names[k]]
        raise AnalysisError(
            f"Unknown metric '{name}': {self.title}'s targets are {', '.join(self.short)}"
            " (or any figure 'loba summarize' prints, by its name)."
        )

    def evaluate(self, games, seats, metrics: Sequence[Metric], keep=()) -> pl.DataFrame:
        """One row per game (``game``, ``n_players`` and the frame's columns ``keep``, e.g.
        ``variant``) with each metric's per-game columns: ``NAME|y`` and ``NAME|x`` of a
        figure, ``NAME|g`` (the winner's group, -1 when unfinished) of a spread."""
        df = self.frame(games, seats)
        cols = [pl.col(k) for k in keep]
        cols += [pl.col("game").cast(pl.Int64), pl.col("n_players").cast(pl.Int64)]
        figs = [m.figure for m in metrics if m.figure is not None]
        cols += per_game_columns(figs)
        cols += [
            m.group.cast(pl.Int64).fill_null(-1).alias(f"{m.name}|g") for m in metrics if m.spread
        ]
        return df.select(cols)


def catalog(game=None, policies=(), seconds_per_turn: float | None = None) -> Catalog:
    """The targetable metrics of ``game`` (a name or spec; None: the default game), from its
    analysis registration (:attr:`analysis.bygame.GameAnalysis.targets`), with ``policies``
    (the seated policies: ``games won by POLICY``) and ``seconds_per_turn`` (None: the game's
    default) for ``minutes``. A game without one has its unfinished share and seat spread."""
    from sim.games import get_game

    from ..bygame import for_game

    spec = get_game(game)
    ga = for_game(spec)
    ts = ga.targets if ga is not None else None
    if ts is not None:
        frame, figs, names = ts.frame, ts.figures(list(policies)), dict(ts.names)
        spreads, scale, about = dict(ts.spreads), dict(ts.scale), dict(ts.about)
        turns, turn = ts.turns, ts.turn
        spt = ts.seconds_per_turn if seconds_per_turn is None else seconds_per_turn
    else:
        frame, figs = _generic_frame, _generic_figures()
        names = {"unfinished": M_UNFINISHED, "seat_spread": M_SEAT_SPREAD}
        spreads, scale, about = {}, {M_SEAT_SPREAD: 100.0}, {}
        turns, turn, spt = None, "turn", seconds_per_turn
    spreads.setdefault(M_SEAT_SPREAD, pl.col("winner"))
    scale.setdefault(M_SEAT_SPREAD, 100.0)
    names.setdefault("seat_spread", M_SEAT_SPREAD)
    metrics: dict[str, Metric] = {}
    short_of = {v: k for k, v in names.items()}
    for f in figs:
        unit = "pts" if scale.get(f.name) == 100.0 else f.unit
        short = short_of.get(f.name, snake(f.name))
        metrics[f.name] = Metric(f.name, short, unit, scale.get(f.name, 1.0), figure=f,
                                 about=about.get(f.name, ""))  # fmt: skip
    for name, expr in spreads.items():
        short = short_of.get(name, snake(name))
        metrics[name] = Metric(name, short, "pts", scale.get(name, 100.0), group=expr,
                               about=about.get(name, ""))  # fmt: skip
    if turns is not None and spt is not None:
        fig = Figure(M_MINUTES, "minutes", turns, pl.lit(1.0))
        metrics[M_MINUTES] = Metric(
            M_MINUTES, "minutes", "minutes", float(spt) / 60, figure=fig,
            about=f"{turn}s per game x {spt:g} s / 60",
        )  # fmt: skip
        names["minutes"] = M_MINUTES
    spell: dict[str, str] = {}
    for n in metrics:
        spell.setdefault(n, n)
        spell.setdefault(n.lower(), n)
        spell.setdefault(snake(n), n)
    for short, n in names.items():
        if n in metrics:
            spell[short] = n
    short = [s for s, n in names.items() if n in metrics]
    return Catalog(spec.name, spec.title, metrics, spell, short, frame,
                   None if spt is None else float(spt), turn)  # fmt: skip


# ---------------------------------------------------------------------------- targets
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"\s*({_NUM})\s*\.\.\s*({_NUM})\s*")
_FUNC = re.compile(r"\s*(share|median|[qp](\d{1,2}))\s*\((.*)\)\s*", re.IGNORECASE | re.DOTALL)
_OPS = ("<=", ">=", "<", ">", "==", "=")
GRAMMAR = (
    "METRIC in LO..HI, METRIC <= X, METRIC >= X, share(METRIC in LO..HI) >= P or q90(METRIC) <= X"
)


def _split(text: str) -> tuple[str, str, str] | None:
    """(left, operator, right) at the last operator outside parentheses: ``in`` (a word),
    ``<=``, ``>=``, ``<``, ``>`` (and ``=``/``==``, refused later); None if there is none."""
    depth, found = 0, None
    i = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            m = re.match(r"\s+in\s+", text[i:])
            if m and i > 0:
                found = (i, i + m.end(), "in")
                i += m.end()
                continue
            for op in _OPS:
                if text.startswith(op, i):
                    found = (i, i + len(op), op)
                    i += len(op) - 1
                    break
        i += 1
    if found is None:
        return None
    a, b, op = found
    return text[:a].strip(), op, text[b:].strip()


def _number(text: str, what: str, head: str = "Target") -> float:
    if not re.fullmatch(_NUM, text.strip()):
        raise AnalysisError(f"{head} '{what}': '{text}' is not a number.")
    v = float(text)
    if not math.isfinite(v):
        raise AnalysisError(f"{head} '{what}': the bounds must be finite numbers.")
    return v


def _bounds(op: str, rhs: str, what: str,
            head: str = "Target") -> tuple[str, float | None, float | None]:  # fmt: skip
    """(op as kept: in, <=, >=, <, >), low, high; ``head`` names the text in an error
    (``Target``, ``--share``)."""
    if op in ("=", "==") and head == "--share":
        raise AnalysisError(
            f"{head} '{what}': write a range or a bound; a game's value of exactly X is"
            " METRIC in X..X."
        )
    if op in ("=", "=="):
        raise AnalysisError(
            f"{head} '{what}': an estimate never equals a number exactly; give a range"
            " (METRIC in LO..HI) or a bound (<=, >=)."
        )
    if op == "in":
        m = _RANGE.fullmatch(rhs)
        if not m:
            raise AnalysisError(f"{head} '{what}': '{rhs}' is not a range LO..HI such as 8..12.")
        lo, hi = _number(m.group(1), what, head), _number(m.group(2), what, head)
        if lo > hi:
            raise AnalysisError(f"{head} '{what}': the low end of {rhs} is above the high end.")
        return "in", lo, hi
    v = _number(rhs, what, head)
    return (op, None, v) if op in ("<=", "<") else (op, v, None)


@dataclass(frozen=True)
class Target:
    """One target: its metric, what is measured of it (``func`` None: the figure; ``share``:
    the share of games whose own value meets ``cond``; ``quantile``: the ``q`` quantile of the
    games' values) and the bound the measure must meet (``op`` ``in``, ``<=`` or ``>=``,
    ``low``/``high``)."""

    metric: Metric
    op: str
    low: float | None
    high: float | None
    func: str | None = None
    q: float | None = None
    cond: tuple[str, float | None, float | None] | None = None

    @property
    def measure(self) -> str:
        m = self.metric.short
        if self.func == "share":
            return f"share({m} {_cond_text(self.cond)})"
        if self.func == "quantile":
            return f"q{round(self.q * 100)}({m})"
        return m

    @property
    def text(self) -> str:
        return f"{self.measure} {_cond_text((self.op, self.low, self.high))}"

    @property
    def unit(self) -> str:
        return "share" if self.func == "share" else self.metric.unit

    def words(self) -> str:
        """What is measured, in words: ``rounds per game``, ``the share of games with rounds
        per game in 8..12``, ``the 90th percentile of rounds per game``."""
        name = self.metric.name
        if self.func == "share":
            return f"the share of games with {name} {_cond_text(self.cond)}"
        if self.func == "quantile":
            q = round(self.q * 100)
            return "the median of " + name if q == 50 else f"the {_ordinal(q)} percentile of {name}"
        return name

    @property
    def width(self) -> float:
        """The unit a shortfall or a margin is measured in: the half-width of a range, else the
        bound's size (1 for a bound of 0; 0.1 for a share of games)."""
        if self.op == "in":
            w = (self.high - self.low) / 2
            return w if w > 0 else max(abs(self.high), 1.0) * 0.05
        b = self.low if self.high is None else self.high
        if self.func == "share":
            return 0.1
        return abs(b) if b else 1.0

    def distance(self, v: float) -> float:
        """How far ``v`` is outside the bound (0 inside), in the target's units."""
        if v is None or not math.isfinite(v):
            return math.inf
        d = 0.0
        if self.low is not None and v < self.low:
            d = self.low - v
        if self.high is not None and v > self.high:
            d = v - self.high
        return d

    def margin(self, v: float) -> float:
        """How far ``v`` is inside the bound (negative outside), in the target's units: the
        nearer side's."""
        if v is None or not math.isfinite(v):
            return -math.inf
        sides = []
        if self.low is not None:
            sides.append(v - self.low)
        if self.high is not None:
            sides.append(self.high - v)
        return min(sides)

    def judge(self, value, low, high) -> str:
        """met / not met / undecided from an estimate and its interval (None: no interval,
        the value is exact)."""
        if value is None or not math.isfinite(value):
            return UNDECIDED
        lo = value if low is None else low
        hi = value if high is None else high
        inside_low = self.low is None or lo >= self.low
        inside_high = self.high is None or hi <= self.high
        if inside_low and inside_high:
            return MET
        if (self.low is not None and hi < self.low) or (self.high is not None and lo > self.high):
            return NOT_MET
        return UNDECIDED


def _ordinal(k: int) -> str:
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k if k < 20 else k % 10, 'th') }"


def _num(x: float) -> str:
    return f"{x:g}"


def _cond_text(c) -> str:
    op, lo, hi = c
    if op == "in":
        return f"in {_num(lo)}..{_num(hi)}"
    return f"{op} {_num(hi if op in ('<=', '<') else lo)}"


def parse_target(text: str, cat: Catalog) -> Target:
    """A target from its text (:mod:`analysis.advise`; :data:`GRAMMAR`); one sentence if it is not
    one."""
    t = " ".join(str(text).split())
    if not t:
        raise AnalysisError(f"A target is empty; write one such as {GRAMMAR}.")
    parts = _split(t)
    if parts is None or not parts[0] or not parts[2]:
        raise AnalysisError(f"'{t}' is not a target: write {GRAMMAR}.")
    lhs, op, rhs = parts
    kept, lo, hi = _bounds(op, rhs, t)
    kept = {"<": "<=", ">": ">="}.get(kept, kept)
    f = _FUNC.fullmatch(lhs)
    if f is None:
        m = cat.resolve(lhs)
        return Target(m, kept, lo, hi)
    name = f.group(1).lower()
    inner = f.group(3).strip()
    if name == "share":
        sub = _split(inner)
        if sub is None or not sub[0] or not sub[2]:
            raise AnalysisError(
                f"Target '{t}': share(...) takes a metric and a condition on each game's value,"
                " such as share(rounds_per_game in 8..12)."
            )
        m = _per_game_metric(cat.resolve(sub[0]), t)
        cond = _bounds(sub[1], sub[2], t)
        for b in (lo, hi):
            if b is not None and not 0 <= b <= 1:
                raise AnalysisError(
                    f"Target '{t}': a share of games is between 0 and 1, not {_num(b)}."
                )
        return Target(m, kept, lo, hi, "share", None, cond)
    q = 50 if name == "median" else int(f.group(2))
    if not 1 <= q <= 99:
        raise AnalysisError(f"Target '{t}': a quantile is q1 to q99 (q90: the 90th percentile).")
    return Target(_per_game_metric(cat.resolve(inner), t), kept, lo, hi, "quantile", q / 100)


def _per_game_metric(m: Metric, text: str, head: str = "Target") -> Metric:
    if not m.per_game:
        raise AnalysisError(
            f"{head} '{text}': {m.short} has no value of its own in each game (it compares the"
            " players over all the games); "
            + (f"target it directly, e.g. {m.short} <= 1.0." if head == "Target"
               else "'loba summarize' prints it over all the games.")  # fmt: skip
        )
    return m


def parse_targets(texts, cat: Catalog) -> list[Target]:
    """Every target of ``texts`` (each may hold several separated by ``;``), each once."""
    out: list[Target] = []
    for item in texts:
        for piece in str(item).split(";"):
            if not piece.strip() and ";" in str(item):
                continue
            t = parse_target(piece, cat)
            if any(o.text == t.text for o in out):
                raise AnalysisError(f"Target '{t.text}' is given twice; give each target once.")
            out.append(t)
    if not out:
        raise AnalysisError(f"Give at least one target: --targets FILE or --target '{GRAMMAR}'.")
    return out


# ---------------------------------------------------------------------------- the file
TARGET_KEYS = ("targets", "advise")
ADVISE_KEYS = ("vary", "seconds_per_turn")
RULE_KEYS = ("game", "preset", "knobs", "seats", "label")


@dataclass
class TargetsFile:
    """What a targets file holds: its targets, the ``[advise]`` settings (``vary``,
    ``seconds_per_turn``) and whether it holds house rules too."""

    path: Path
    targets: list[str]
    vary: list[str]
    seconds_per_turn: float | None
    has_rules: bool
    game: str | None

    def check_game(self, game) -> None:
        """Refuse, in one sentence, playing this file's targets in another game than the one
        it names (``game = "moon"``)."""
        from sim.games import get_game

        if self.game is None:
            return
        mine, other = get_game(self.game), get_game(game)
        if mine.name != other.name:
            raise AnalysisError(
                f"Targets file '{self.path}' is for {mine.title} (game = \"{self.game}\"), but"
                f" the rules given are {other.title}'s: give {mine.title}'s rules (or leave out"
                f" --game), or a targets file of {other.title}."
            )


def read_targets_file(path) -> TargetsFile:
    """Read a targets file (TOML): ``targets = ["rounds_per_game in 8..12", ...]`` and
    optionally ``[advise]`` (``vary = [...]``, ``seconds_per_turn = 8``) beside a house-rules
    file's keys (:mod:`sim.house`); one sentence if it cannot be used."""
    p = Path(str(path).strip() if isinstance(path, str) else path)
    where = f"Targets file '{p}'"
    try:
        if not p.exists():
            raise AnalysisError(f"{where} does not exist.")
        if p.is_dir():
            raise AnalysisError(f"{where} is a directory, not a .toml file.")
        with open(p, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        first = (str(e).strip().splitlines() or ["a syntax error"])[0].rstrip(".")
        raise AnalysisError(f"{where} is not valid TOML ({first}).") from None
    except UnicodeDecodeError:
        raise AnalysisError(f"{where} is not TOML: it is not UTF-8 text.") from None
    except OSError as e:
        raise AnalysisError(f"{where} cannot be read ({e.strerror or type(e).__name__}).") from None
    for key in data:
        if key not in TARGET_KEYS + RULE_KEYS:
            raise AnalysisError(
                f"{where} has an unknown key '{key}': it holds targets = [...], an [advise]"
                " table and, if it likes, house rules (game, preset, label, seats, [knobs])."
            )
    targets = data.get("targets", [])
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise AnalysisError(
            f"{where}: 'targets' must be a list of strings such as"
            ' ["rounds_per_game in 8..12", "seat_spread <= 1.0"].'
        )
    adv = data.get("advise", {})
    if not isinstance(adv, dict):
        raise AnalysisError(f"{where}: 'advise' must be a table ([advise]).")
    for key in adv:
        if key not in ADVISE_KEYS:
            raise AnalysisError(
                f"{where}: [advise] has an unknown key '{key}' (it takes {', '.join(ADVISE_KEYS)})."
            )
    vary = adv.get("vary", [])
    if isinstance(vary, str):
        vary = [vary]
    if not isinstance(vary, list) or not all(isinstance(v, str) for v in vary):
        raise AnalysisError(
            f"{where}: [advise] vary must be a list of strings such as"
            ' ["KNOB=LO..HI", "KNOB=A,B,C"].'
        )
    spt = adv.get("seconds_per_turn")
    if spt is not None and (isinstance(spt, bool) or not isinstance(spt, int | float)):
        raise AnalysisError(f"{where}: [advise] seconds_per_turn must be a number of seconds.")
    game = data.get("game") if isinstance(data.get("game"), str) else None
    has_rules = any(k in data for k in ("preset", "knobs", "seats", "label"))
    return TargetsFile(p, list(targets), list(vary), spt, has_rules, game)

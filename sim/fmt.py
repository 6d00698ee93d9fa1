"""The one number formatter of the command line, the HTML report and the notebooks.

Every number a person reads goes through here, so that the same figure looks the same
everywhere:

- shares (``unit == "share"``) as percentages, ``12.34%``; their differences in percentage
  points, ``+1.23 pts``;
- p-values with two significant digits, ``0.037``, ``1.9e-05``, and ``< 1e-300`` where the
  float underflowed to 0 (it means "smaller than anything a double can hold", not "zero");
- other numbers with four significant digits (``10.38``, ``0.0727``), thousands separated
  (``12,346``), whole numbers as they are;
- ``n/a`` where a figure does not apply or cannot be estimated: a missing value, NaN, or an
  interval of zero width (every game agreed, so no interval can be estimated from them).

Machine-readable outputs (``--format csv/json``, DataFrames) keep the raw numbers.
"""

from __future__ import annotations

import math
import re

NA = "n/a"
P_FLOOR = 1e-300

__all__ = [
    "NA",
    "diff",
    "interval",
    "is_na",
    "number",
    "points",
    "pvalue",
    "share",
    "unit_label",
    "value",
]


def is_na(x) -> bool:
    """None, NaN or infinite."""
    if x is None:
        return True
    try:
        return not math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def number(x, sig: int = 4, sign: bool = False) -> str:
    """A number with ``sig`` significant digits (no exponent between 1e-4 and 1e6), thousands
    separated from 1,000 on, whole numbers as they are; ``n/a`` for None/NaN."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if is_na(x):
        return NA
    plus = "+" if sign and x > 0 else ""
    if isinstance(x, int):
        return f"{plus}{x:,}"
    a = abs(x)
    if a == 0:
        return "0"
    if a >= 999.5:
        return f"{plus}{x:,.0f}"
    if a < 1e-4:
        return f"{plus}{x:.{max(sig - 1, 1)}g}"
    s = f"{x:.{sig}g}"
    if "e" in s:  # .g picked an exponent (e.g. 123.45 -> 123.5 is fine, 1e+03 is not)
        s = f"{x:.{max(sig - 1 - int(math.floor(math.log10(a))), 0)}f}"
    return plus + s


def share(x, digits: int = 2) -> str:
    """A share as a percentage: ``0.1234 -> 12.34%``; tiny shares keep three significant
    digits (``0.00187%``) rather than rounding to 0.00%."""
    if is_na(x):
        return NA
    v = 100 * float(x)
    if v != 0 and abs(v) < 10 ** (-digits):
        return f"{v:.3g}%"
    return f"{v:.{digits}f}%"


def points(x, digits: int = 2, sign: bool = True) -> str:
    """A difference of two shares in percentage points: ``0.0123 -> +1.23 pts``."""
    if is_na(x):
        return NA
    v = 100 * float(x)
    plus = "+" if sign and v > 0 else ""
    if v != 0 and abs(v) < 10 ** (-digits):
        return f"{plus}{v:.3g} pts"
    return f"{plus}{v:.{digits}f} pts"


def pvalue(p) -> str:
    """A p-value: ``0.037``, ``1.9e-05``, ``< 1e-300`` (underflow), ``1``; ``n/a`` if None."""
    if is_na(p):
        return NA
    p = float(p)
    if p < P_FLOOR:
        return "< 1e-300"
    if p >= 0.9995:
        return "1"
    if p >= 0.001:
        return f"{p:.2g}" if p < 0.01 else f"{p:.3f}".rstrip("0").rstrip(".")
    return f"{p:.2g}"


def value(x, unit: str | None = None) -> str:
    """``x`` in its unit: shares as percentages, p-values as p-values, the rest as numbers."""
    if unit == "share":
        return share(x)
    if unit == "pts":  # a spread of shares, in percentage points
        return points(x, sign=False)
    if unit == "p":
        return pvalue(x)
    return number(x)


def diff(x, unit: str | None = None) -> str:
    """A signed difference in ``unit``: percentage points for shares."""
    if unit in ("share", "pts"):
        return points(x)
    return number(x, sign=True)


def interval(lo, hi, unit: str | None = None, signed: bool = False) -> str:
    """``[lo, hi]`` in the unit (``signed``: as differences); ``n/a`` when either end is
    missing or the interval has zero width (no spread to estimate it from). Both ends with
    the precision the interval's width needs (:func:`ends`)."""
    if is_na(lo) or is_na(hi) or lo == hi:
        return NA
    return "[{}, {}]".format(*ends(lo, hi, unit, signed))


def ends(lo, hi, unit: str | None = None, signed: bool = False) -> tuple[str, str]:
    """The two ends of an interval written to the same number of decimals: two significant
    digits of its width (shares in %, differences of shares in pts), so that the ends never
    collapse into one number and never mix precisions (``+0.04 pts`` beside
    ``-0.000226 pts``). p-values keep their own form."""
    if unit == "p":
        return pvalue(lo), pvalue(hi)
    pct = unit in ("share", "pts")
    scale = 100.0 if pct else 1.0
    width = abs(float(hi) - float(lo)) * scale
    d = 2 if width == 0 else min(max(0, 1 - math.floor(math.log10(width))), 10)
    suffix = (" pts" if signed or unit == "pts" else "%") if pct else ""

    def one(x):
        v = float(x) * scale
        s = f"{v:+,.{d}f}" if signed else f"{v:,.{d}f}"
        return s + suffix

    return one(lo), one(hi)


_PLAIN = re.compile(r"[+-]?[\d,]*(\.(\d+))?")


def _same_decimals(a: str, b: str) -> tuple[str, str]:
    """Two plain numbers written to as many decimals as the longer (``+2.55``, ``+2.818`` ->
    ``+2.550``, ``+2.818``): significant digits alone drop trailing zeros."""
    ma, mb = _PLAIN.fullmatch(a), _PLAIN.fullmatch(b)
    if not (ma and mb):
        return a, b  # a unit, an exponent, n/a: left as they are
    da, db = len(ma.group(2) or ""), len(mb.group(2) or "")
    pad = lambda t, d, n: t + ("" if d else ".") + "0" * (n - d) if n > d else t  # noqa: E731
    return pad(a, da, db), pad(b, db, da)


def unit_label(unit: str | None, signed: bool = False) -> str:
    """The unit column of a table: ``%`` (``pts`` for differences of shares), ``p`` or the
    metric's own unit (rounds, turns, stakes...)."""
    if unit == "share":
        return "pts" if signed else "%"
    return unit or ""  # "pts" stays "pts"

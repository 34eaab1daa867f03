"""Inline-XBRL transformation rules for numbers: the displayed text of an ``ix:nonFraction``
-> its number, before ``scale`` and ``sign`` are applied.

The rules EDGAR filings use (Transformation Registry 3–5 and the SEC's ``ixt-sec``), by
their local name, whatever the prefix: ``num-dot-decimal`` / ``numdotdecimal`` (1,234.5),
``num-comma-decimal`` / ``numcommadecimal`` (1.234,5), ``fixed-zero`` / ``zerodash`` (a dash
for zero), ``num-word-en`` / ``numwordsen`` ("three", "no", "none"), ``num-unit-decimal``
("5 dollars 30 cents") and no format at all (a plain decimal). An unknown rule raises
``ValueError`` naming it: the fact is reported, never guessed.
"""
from __future__ import annotations

import re

_WORDS = {
    "no": 0, "none": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_DASHES = frozenset("-‐‑‒–—―−")


def _digits(text: str, decimal: str, group: str) -> float:
    t = "".join(text.split())
    if not t:
        raise ValueError("no digits")
    whole, _, frac = t.partition(decimal)
    whole = whole.replace(group, "").replace(" ", "")
    if not whole:
        whole = "0"
    if not whole.isdigit() or (frac and not frac.isdigit()):
        raise ValueError(f"not a number: {text!r}")
    return float(f"{whole}.{frac}" if frac else whole)


def _words(text: str) -> float:
    total, current = 0, 0
    for w in re.split(r"[\s-]+", text.lower().strip().rstrip(".")):
        if not w or w == "and":
            continue
        if w in _WORDS:
            current += _WORDS[w]
        elif w in _SCALES:
            current = max(current, 1) * _SCALES[w]
            if _SCALES[w] >= 1000:
                total, current = total + current, 0
        else:
            return _digits(text, ".", ",")
    return float(total + current)


def _unit_decimal(text: str) -> float:
    nums = re.findall(r"\d[\d,]*", text)
    if not nums:
        raise ValueError(f"not a number: {text!r}")
    whole = float(nums[0].replace(",", ""))
    return whole + (float(nums[1].replace(",", "")) / 100 if len(nums) > 1 else 0.0)


def number(text: str, rule: str | None) -> float:
    """The number displayed as ``text`` under transformation ``rule`` (``None``: a plain
    decimal with ``,`` grouping)."""
    name = (rule or "").rsplit(":", 1)[-1].lower().replace("-", "")
    stripped = text.strip()
    if name in ("fixedzero", "zerodash"):
        return 0.0
    if stripped and all(c in _DASHES for c in stripped):
        return 0.0  # a dash shown for a zero under a numeric rule
    if name in ("", "numdotdecimal", "numdotdecimalin", "numdecimal"):
        return _digits(stripped, ".", ",")
    if name in ("numcommadecimal", "numcommadecimalin"):
        return _digits(stripped.replace(".", "").replace("\u00a0", "").replace(" ", ""), ",", ".")
    if name in ("numwordsen", "numworden"):
        return _words(stripped)
    if name in ("numunitdecimal", "numunitdecimalin"):
        return _unit_decimal(stripped)
    raise ValueError(f"transformation rule {rule!r} is not supported")

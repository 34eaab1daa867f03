"""Report cells: how a metric's value is printed in evaluation.md, and where it is read from
an entry's curves. Shared by report.py and the metric modules (their report columns)."""
from __future__ import annotations


def pct(x, as_pct: bool = True) -> str:
    """A share as a percentage with one decimal (or a count with thousands separators); – for None."""
    if x is None:
        return "–"
    return f"{100 * x:.1f}" if as_pct else f"{x:,.0f}"


def at_k(k_curve: list[dict], k: int, key: str):
    """The value ``key`` at k of a recall-at-k curve, or None."""
    for p in k_curve:
        if p["k"] == k:
            return p[key]
    return None


def at_budget(b_curve: list[dict], chars: int, key: str = "recall"):
    """The value ``key`` at a character budget of a budget curve, or None."""
    for p in b_curve or []:
        if p["chars"] == chars:
            return p[key]
    return None

"""Span arithmetic: how much of a gold passage the delivered chunks cover.

Rule (corpus format): a gold passage is retrieved at k when the union of the spans of the
top-k chunks covers at least 50% of its characters; overlaps are not counted twice.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Iterable

RETRIEVED_FRACTION = 0.5


def _coalesce(ordered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted non-empty spans joined where they overlap or touch."""
    out: list[tuple[int, int]] = []
    for s, e in ordered:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open spans as sorted, disjoint spans."""
    return _coalesce(sorted((int(s), int(e)) for s, e in spans if e > s))


def union_merged(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``merge_spans(a + b)`` for two lists ``merge_spans`` returned (or parts of one: sorted,
    disjoint, non-empty int spans), without re-checking and converting every span; the sort
    of two sorted runs is one merge pass."""
    if not b:
        return list(a)
    if not a:
        return list(b)
    return _coalesce(sorted(a + b))


def covered(start: int, end: int, merged: list[tuple[int, int]]) -> int:
    """Characters of [start, end) inside the merged (sorted, disjoint) spans."""
    if not merged or end <= start:
        return 0
    total = 0
    k = max(0, bisect_right(merged, (start, float("inf"))) - 1)
    while k < len(merged) and merged[k][0] < end:
        s, e = merged[k]
        total += max(0, min(e, end) - max(s, start))
        k += 1
    return total


def coverage_fraction(start: int, end: int, merged: list[tuple[int, int]]) -> float:
    return covered(start, end, merged) / (end - start) if end > start else 0.0


def is_retrieved(start: int, end: int, merged: list[tuple[int, int]], threshold: float = RETRIEVED_FRACTION) -> bool:
    return coverage_fraction(start, end, merged) >= threshold

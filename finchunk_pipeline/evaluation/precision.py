"""Character-level precision and IoU of delivered document characters against gold characters.

Per answerable question: D = union of the raw document characters delivered (headers and
joiners are not document characters and count in neither set), G = union of the characters
of its gold passages. precision = |D ∩ G| / |D| (0 when nothing is delivered),
IoU = |D ∩ G| / |D ∪ G|; both averaged over answerable questions. The report gives them for
the top 5 whole chunks ("k": 5) and at a 1500-character budget under the budget rule of
``budget.py`` ("chars": 1500).
"""
from __future__ import annotations

from typing import Sequence

from .budget import REPORT_BUDGET
from .cells import pct
from .coverage import covered, merge_spans
from .metrics import REPORT_K, Column, MetricSpec

GoldPassage = tuple[str, int, int]


def span_total(merged: dict[str, list[tuple[int, int]]]) -> int:
    return sum(e - s for spans in merged.values() for s, e in spans)


def precision_iou(delivered: dict[str, list[tuple[int, int]]], gold: Sequence[GoldPassage]) -> tuple[float, float]:
    """``delivered``: merged spans by document (budget.deliver's first value)."""
    gold_by_doc: dict[str, list[tuple[int, int]]] = {}
    for d, s, e in gold:
        gold_by_doc.setdefault(d, []).append((s, e))
    gold_merged = {d: merge_spans(v) for d, v in gold_by_doc.items()}
    inter = sum(covered(s, e, delivered.get(d, [])) for d, spans in gold_merged.items() for s, e in spans)
    n_del, n_gold = span_total(delivered), span_total(gold_merged)
    union = n_del + n_gold - inter
    return (inter / n_del if n_del else 0.0), (inter / union if union else 0.0)


# --- the metric (metrics.py) ------------------------------------------------------------------
def _score(q) -> tuple[float, float, float, float]:
    """(precision, IoU) at k = 5 whole chunks, then at the report budget; zeros without gold."""

    if not q.gold:
        return 0.0, 0.0, 0.0, 0.0
    merged_k, _, _ = q.delivery(k=REPORT_K)
    merged_b, _, _ = q.delivery(budget=REPORT_BUDGET)
    return (*precision_iou(merged_k, q.gold), *precision_iou(merged_b, q.gold))


def _mean(pairs, i: int):
    return sum(v[i] for _, v in pairs) / len(pairs) if pairs else None


def _summarize(scored) -> dict:

    ans = scored.answerable()
    return {"precision": {"k": REPORT_K, "value": _mean(ans, 0), "chars": REPORT_BUDGET, "value_at_budget": _mean(ans, 2)},
            "iou": {"k": REPORT_K, "value": _mean(ans, 1), "chars": REPORT_BUDGET, "value_at_budget": _mean(ans, 3)}}


def _columns(table: str, budgets) -> list:

    at, key = (f"@{REPORT_BUDGET}ch", "value_at_budget") if table == "budget" else ("@5", "value")
    return [Column(f"prec{at}", lambda e: pct((e.get("precision") or {}).get(key))),
            Column(f"IoU{at}", lambda e: pct((e.get("iou") or {}).get(key)))]


METRIC = MetricSpec("precision", _score, _summarize, columns=_columns)

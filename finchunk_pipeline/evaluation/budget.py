"""Recall and full coverage at fixed context budgets (characters of indexed text delivered).

The budget rule (used by every budget metric in this package):

1. Chunks are delivered in rank order. A chunk "costs" the characters of its indexed text
   (``embedding_text``: the optional context header, then the body), as in the corpus format.
2. Whole chunks are delivered while they fit. The first chunk that does not fit is cut so the
   delivery ends exactly at the budget; no further chunks are delivered (no skipping ahead to
   a smaller chunk). Unused budget is left unused if the ranking runs out.
3. The cut chunk credits only document characters within the budget: its header comes first
   and covers no document characters; of its body, the ``b = remaining - header`` characters
   within budget are mapped to the *prefix* of the chunk's raw spans in reading order, of
   length ``floor(b * raw_len / body_len)`` (``raw_len`` = sum of span lengths, ``body_len`` =
   indexed characters after the header; they differ only by span joiners and parser views).
4. A gold passage then counts as retrieved by the usual 50%-coverage rule over the union of
   the credited spans; recall / full coverage as for recall@k.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .coverage import is_retrieved, merge_spans

BUDGETS = (500, 1000, 1500, 2000, 3000)
REPORT_BUDGET = 1500

GoldPassage = tuple[str, int, int]


@dataclass
class DeliveredChunk:
    """One ranked chunk as the budget rule sees it."""
    doc_id: str
    spans: Sequence[tuple[int, int]]  # raw document spans, reading order
    n_chars: int                      # indexed characters (header + body)
    header_chars: int = 0             # indexed characters before the body (no document characters)
    text: str = ""                    # indexed text (for answer containment)


def span_prefix(spans: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The first ``n`` characters of ``spans`` taken in reading order."""
    out = []
    for s, e in spans:
        if n <= 0:
            break
        take = min(n, e - s)
        if take > 0:
            out.append((s, s + take))
        n -= take
    return out


def deliver(ranked: Sequence[DeliveredChunk], budget: int | None = None, k: int | None = None
            ) -> tuple[dict[str, list[tuple[int, int]]], int, str]:
    """Delivered spans by document, characters delivered and the delivered text, for the top ``k``
    chunks (whole) or up to a character ``budget`` (rule above)."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    used = 0
    texts: list[str] = []
    for i, c in enumerate(ranked):
        if k is not None and i >= k:
            break
        if budget is not None and used >= budget:
            break
        remaining = None if budget is None else budget - used
        if remaining is None or c.n_chars <= remaining:
            by_doc.setdefault(c.doc_id, []).extend(c.spans)
            used += c.n_chars
            texts.append(c.text)
            continue
        body_len = max(1, c.n_chars - c.header_chars)
        body = max(0, remaining - c.header_chars)
        raw_len = sum(e - s for s, e in c.spans)
        by_doc.setdefault(c.doc_id, []).extend(span_prefix(c.spans, (body * raw_len) // body_len))
        used += remaining
        texts.append(c.text[:remaining])
        break
    return {d: merge_spans(s) for d, s in by_doc.items()}, used, "\n\n".join(texts)


def retrieved_count(gold: Sequence[GoldPassage], merged: dict[str, list[tuple[int, int]]]) -> int:
    return sum(1 for d, s, e in gold if is_retrieved(s, e, merged.get(d, [])))


@dataclass
class BudgetScore:
    question_id: str
    question_type: str
    n_gold: int
    retrieved: dict[int, int] = field(default_factory=dict)  # budget -> gold passages retrieved
    chars: dict[int, int] = field(default_factory=dict)      # budget -> characters delivered


def score_budgets(question_id: str, question_type: str, gold: Sequence[GoldPassage],
                  ranked: Sequence[DeliveredChunk], budgets: Sequence[int] = BUDGETS) -> BudgetScore:
    out = BudgetScore(question_id, question_type, len(gold))
    for b in budgets:
        merged, used, _ = deliver(ranked, budget=b)
        out.retrieved[b] = retrieved_count(gold, merged)
        out.chars[b] = used
    return out


def budget_curve(scores: Sequence[BudgetScore], budgets: Sequence[int] = BUDGETS) -> list[dict]:
    """[{"chars", "recall", "full_coverage", "delivered"}] over answerable questions
    ("delivered" = mean characters actually delivered: below the budget when rankings run out)."""
    scored = [s for s in scores if s.n_gold > 0]
    n = len(scored)
    return [{
        "chars": b,
        "recall": sum(s.retrieved[b] / s.n_gold for s in scored) / n if n else None,
        "full_coverage": sum(s.retrieved[b] == s.n_gold for s in scored) / n if n else None,
        "delivered": sum(s.chars[b] for s in scored) / n if n else None,
    } for b in budgets]

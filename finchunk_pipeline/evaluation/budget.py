"""Recall and full coverage at fixed context budgets: what the context assembler
(assembler.py, which states the budget rule) delivers within each budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .assembler import (
    DeliveredChunk,
    GoldPassage,
    retrieved_count,
    span_prefix,
    subtract,
)
from .cells import at_budget, pct
from .coverage import union_merged
from .metrics import Column, MetricSpec

DEFAULT_BUDGETS = (500, 1000, 1500, 2000, 3000, 5000, 8000)
BUDGETS = DEFAULT_BUDGETS
REPORT_BUDGET = 1500
BUDGET_RULE = "2"



def parse_budgets(text: str) -> tuple[int, ...]:
    """"500,1500,5000" -> (500, 1500, 5000); "" -> DEFAULT_BUDGETS. REPORT_BUDGET is always
    included (the report's per-type and precision figures are taken there)."""
    if not text.strip():
        return DEFAULT_BUDGETS
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = int(part)
        except ValueError as exc:
            raise ValueError(f"budgets: {part!r} is not a whole number of characters") from exc
        if value <= 0:
            raise ValueError(f"budgets: {value} must be > 0")
        out.add(value)
    out.add(REPORT_BUDGET)
    return tuple(sorted(out))


@dataclass
class BudgetScore:
    question_id: str
    question_type: str
    n_gold: int
    retrieved: dict[int, int] = field(default_factory=dict)  # budget -> gold passages retrieved
    chars: dict[int, int] = field(default_factory=dict)      # budget -> characters delivered

    def recall(self, budget: int) -> float | None:
        return self.retrieved[budget] / self.n_gold if self.n_gold else None


@dataclass(frozen=True)
class _Step:
    """One ranked chunk as the rule delivers it whole, after every chunk before it was
    delivered whole: the spans it adds, what it costs, and how a budget would cut it."""
    doc_id: str
    new: list[tuple[int, int]]   # its spans not delivered before (merged, reading order)
    cost: int                    # header (if new) + its new characters at its ratio
    head: int                    # its header's characters when not sent before, else 0
    ratio: float                 # indexed body characters per raw character
    new_len: int


def _whole_steps(ranked: Sequence[DeliveredChunk], limit: int) -> list[_Step]:
    """The chunks that add evidence, in rank order, each delivered whole, until the cost
    passes ``limit`` (the step that passes it included: a budget cuts it)."""
    steps: list[_Step] = []
    by_doc: dict[str, list[tuple[int, int]]] = {}
    sent: set[tuple[str, str]] = set()
    used = 0
    for c in ranked:
        if used >= limit:
            break
        have = by_doc.get(c.doc_id, [])
        new = subtract(c.merged, have)
        if not new:
            continue
        ratio, header_key = c.ratio, c.header_key
        head = c.header_chars if header_key is not None and header_key not in sent else 0
        new_len = sum(e - s for s, e in new)
        step = _Step(c.doc_id, new, head + round(new_len * ratio), head, ratio, new_len)
        steps.append(step)
        by_doc[c.doc_id] = union_merged(have, new)
        if header_key is not None:
            sent.add(header_key)
        used += step.cost
    return steps


def score_budgets(question_id: str, question_type: str, gold: Sequence[GoldPassage],
                  ranked: Sequence[DeliveredChunk], budgets: Sequence[int] = BUDGETS) -> BudgetScore:
    """Every budget from one pass over the ranking: the chunks a smaller budget delivers whole
    are the first ones a larger budget delivers whole (the rule's costs do not depend on the
    budget), so each budget is its prefix of whole chunks plus the one it cuts — exactly what
    ``deliver(ranked, budget=b)`` delivers, without assembling the ranking once per budget."""
    out = BudgetScore(question_id, question_type, len(gold))
    if not budgets:
        return out
    steps = _whole_steps(ranked, max(budgets))
    by_doc: dict[str, list[tuple[int, int]]] = {}
    used, i = 0, 0
    results: dict[int, tuple[int, int]] = {}
    for b in sorted(set(budgets)):
        while i < len(steps) and used < b and used + steps[i].cost <= b:   # delivered whole
            st = steps[i]
            by_doc[st.doc_id] = union_merged(by_doc.get(st.doc_id, []), st.new)
            used += st.cost
            i += 1
        merged, delivered = by_doc, used
        if i < len(steps) and used < b:   # the first chunk that does not fit is cut at the budget
            st = steps[i]
            body = max(0, b - used - st.head)
            take = int(body / st.ratio) if st.ratio > 0 else st.new_len
            merged = {**by_doc, st.doc_id: union_merged(by_doc.get(st.doc_id, []), span_prefix(st.new, take))}
            delivered = b
        results[b] = (retrieved_count(gold, merged), delivered)
    for b in budgets:
        out.retrieved[b], out.chars[b] = results[b]
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


# --- the metric (metrics.py) ------------------------------------------------------------------
def _score(q) -> BudgetScore:
    """Every budget scored over the chunks as delivered at it (``QuestionRun.delivered_at``): one
    pass per distinct delivery."""
    groups: dict[int, tuple[Sequence[DeliveredChunk], list[int]]] = {}
    for b in q.budgets:
        ranked = q.delivered_at(b)
        groups.setdefault(id(ranked), (ranked, []))[1].append(b)
    out = BudgetScore(q.question_id, q.question_type, len(q.gold))
    for ranked, budgets in groups.values():
        s = score_budgets(q.question_id, q.question_type, q.gold, ranked, budgets)
        out.retrieved.update(s.retrieved)
        out.chars.update(s.chars)
    out.retrieved = {b: out.retrieved[b] for b in q.budgets}
    out.chars = {b: out.chars[b] for b in q.budgets}
    return out


def _summarize(scored) -> dict:
    """The budget curve, and each answerable question's recall at every budget (in question
    order) for the comparisons question by question (compare.py)."""
    ans = scored.answerable()
    return {"budget": budget_curve(scored.values, scored.budgets),
            "per_question": {
                "ids": [s.question_id for s, _ in ans],
                "types": [s.question_type for s, _ in ans],
                "recall": {str(b): [round(x.recall(b), 6) for _, x in ans] for b in scored.budgets},
            }}


def _group(pairs) -> dict:
    ans = [(s, x) for s, x in pairs if s.n_gold > 0]
    n = len(ans)
    return {"budget_chars": REPORT_BUDGET,
            "recall_at_budget": sum(x.retrieved[REPORT_BUDGET] / s.n_gold for s, x in ans) / n if n else None}


def _columns(table: str, budgets: Sequence[int]) -> list:

    if table != "budget":
        return []
    return [Column(f"R@{b}ch", lambda e, b=b: pct(at_budget(e["budget"], b))) for b in budgets] + [
        Column(f"full@{REPORT_BUDGET}ch", lambda e: pct(at_budget(e["budget"], REPORT_BUDGET, "full_coverage")))]


METRIC = MetricSpec("budget", _score, _summarize, _group, _columns)

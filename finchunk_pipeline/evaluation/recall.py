"""recall@k, full coverage and characters delivered, per question and averaged.

recall@k of a question = fraction of its gold passages retrieved by the top-k chunks;
full coverage = all of them; unanswerable questions (no gold) are left out of recall.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .assembler import Assembler, DeliveredChunk
from .cells import at_k, pct
from .coverage import is_retrieved
from .metrics import REPORT_K, Column, MetricSpec

GoldPassage = tuple[str, int, int]  # doc_id, start, end


@dataclass
class RankedChunk:
    doc_id: str
    spans: Sequence[tuple[int, int]]
    n_chars: int  # characters of indexed text this chunk delivers


@dataclass
class QuestionScore:
    question_id: str
    question_type: str
    n_gold: int
    retrieved: list[int] = field(default_factory=list)  # gold passages retrieved at k = 1..K
    chars: list[int] = field(default_factory=list)      # characters delivered at k = 1..K

    def recall(self, k: int) -> float:
        return self.retrieved[k - 1] / self.n_gold

    def full(self, k: int) -> bool:
        return self.retrieved[k - 1] == self.n_gold


def score_question(question_id: str, question_type: str, gold: Sequence[GoldPassage],
                   ranked: Sequence, max_k: int) -> QuestionScore:
    """``ranked``: DeliveredChunk (assembler.py) or RankedChunk; characters at k are what the
    context assembler delivers for the top k (repeated evidence and headers sent once)."""
    score = QuestionScore(question_id, question_type, len(gold))
    assembler = Assembler()
    found = [False] * len(gold)   # each gold passage: retrieved by the chunks delivered so far
    for k in range(1, max_k + 1):
        if k <= len(ranked):
            c = ranked[k - 1]
            if not isinstance(c, DeliveredChunk):
                c = DeliveredChunk(c.doc_id, c.spans, c.n_chars)
            if assembler.add(c):   # only the passages of the document it added to can change
                merged = assembler.by_doc.get(c.doc_id, [])
                for g, (d, s, e) in enumerate(gold):
                    if d == c.doc_id and not found[g]:
                        found[g] = is_retrieved(s, e, merged)
        score.retrieved.append(sum(found))
        score.chars.append(assembler.used)
    return score


def answerable(scores: Sequence[QuestionScore]) -> list[QuestionScore]:
    return [s for s in scores if s.n_gold > 0]


def curve(scores: Sequence[QuestionScore], max_k: int) -> list[dict]:
    """Mean recall, full coverage and characters delivered for k = 1..max_k."""
    scored = answerable(scores)
    out = []
    for k in range(1, max_k + 1):
        n = len(scored)
        out.append({
            "k": k,
            "recall": sum(s.recall(k) for s in scored) / n if n else None,
            "full_coverage": sum(s.full(k) for s in scored) / n if n else None,
            "chars": sum(s.chars[k - 1] for s in scored) / n if n else None,
        })
    return out


def by_type(scores: Sequence[QuestionScore], k: int) -> dict[str, dict]:
    groups: dict[str, list[QuestionScore]] = {}
    for s in answerable(scores):
        groups.setdefault(s.question_type, []).append(s)
    return {
        t: {"k": k, "recall": sum(s.recall(k) for s in g) / len(g),
            "full_coverage": sum(s.full(k) for s in g) / len(g), "questions": len(g)}
        for t, g in sorted(groups.items())
    }


# --- the base metric (metrics.py) -------------------------------------------------------------
def _score(q) -> QuestionScore:
    return score_question(q.question_id, q.question_type, q.gold, q.delivered, q.max_k)


def _summarize(scored) -> dict:

    return {"curve": curve(scored.values, scored.max_k), "by_type": by_type(scored.values, REPORT_K)}


def _group(pairs) -> dict:

    ans = [s for s, _ in pairs if s.n_gold > 0]
    n = len(ans)
    return {"questions": n, "k": REPORT_K,
            "recall": sum(s.recall(REPORT_K) for s in ans) / n if n else None,
            "full_coverage": sum(s.full(REPORT_K) for s in ans) / n if n else None}


def _columns(table: str, budgets) -> list:

    if table != "k":
        return []
    recall = [Column(f"R@{k}", lambda e, k=k: pct(at_k(e.get("curve") or [], k, "recall"))) for k in (1, 3, 5, 10)]
    return recall + [
        Column("full@5", lambda e: pct(at_k(e.get("curve") or [], 5, "full_coverage"))),
        Column("chars@3", lambda e: pct(at_k(e.get("curve") or [], 3, "chars"), False)),
        Column("chars@5", lambda e: pct(at_k(e.get("curve") or [], 5, "chars"), False)),
    ]


METRIC = MetricSpec("recall", _score, _summarize, _group, _columns, needs_questions=False)

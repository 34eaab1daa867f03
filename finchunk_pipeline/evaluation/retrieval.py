"""Score one retriever over one chunk set against a corpus's labelled questions.

Per question: recall@k / full coverage / characters for k = 1..``max_k`` (``recall.py``),
recall and full coverage at character budgets (``budget.py``; configurable, default 500 to
8,000), character precision and IoU (``precision.py``) and answer containment
(``containment.py``), each at k = 5 whole chunks and at a 1500-character budget. Modes:
``global`` (whole index), ``filtered`` (restricted to the question's documents) and ``routed``
(the route the query analyzer infers from the question text and the documents' metadata:
only when a router is passed, see ``routing/search.py``).

A chunk set's policy may deliver each retrieved chunk as its bounded parent (small-to-big:
``expand`` in the chunker config, ``chunking/expand.py``): pass an ``expander`` and every
mode delivers the expansions, under the chunk's own context header, through the same
context assembler (``budget.py``) as every other policy.

``per_question`` in the summary keeps each answerable question's recall at every budget (in
question order), so two chunk sets can be compared question by question (``compare.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..chunking.store import spans_of
from .budget import BUDGETS, REPORT_BUDGET, BudgetScore, DeliveredChunk, budget_curve, deliver, score_budgets
from .containment import contains_answer, scorable
from .precision import precision_iou
from .recall import QuestionScore, by_type, curve, score_question

MAX_K = 50
REPORT_K = 5
DEPTH = 100           # chunks retrieved per question: enough to fill the largest budget
MODES = ("global", "filtered")
ROUTED = "routed"
ALL_MODES = MODES + (ROUTED,)

# Difficult slices (question types), reported separately.
SLICES = {
    "tables": ("table", "table_and_note", "filing_period", "table_and_text"),
    "footnotes": ("footnote", "table_and_note", "text_and_note", "proxy_footnote"),
}

# expander(row) -> (raw spans, source text) of the chunk at that row of chunks.parquet, expanded
# to its bounded parent context (chunking.expand.expand_chunk)
Expander = Callable[[int], tuple[Sequence[tuple[int, int]], str]]


@dataclass
class QuestionExtras:
    budget: BudgetScore
    precision_k: float = 0.0
    iou_k: float = 0.0
    precision_b: float = 0.0
    iou_b: float = 0.0
    contained_k: bool | None = None   # None: not scorable (type skipped or no answer)
    contained_b: bool | None = None


@dataclass
class RetrievalEvaluation:
    retriever: str
    mode: str
    questions: int
    scores: list[QuestionScore]
    extras: list[QuestionExtras] = field(default_factory=list)
    budgets: Sequence[int] = BUDGETS
    max_k: int = MAX_K

    def _answerable(self):
        return [(s, x) for s, x in zip(self.scores, self.extras) if s.n_gold > 0]

    def _mean(self, attr: str, pairs=None):
        pairs = self._answerable() if pairs is None else pairs
        return sum(getattr(x, attr) for _, x in pairs) / len(pairs) if pairs else None

    def _containment(self, attr: str, extras=None):
        vals = [getattr(x, attr) for x in (self.extras if extras is None else extras) if getattr(x, attr) is not None]
        return (sum(vals) / len(vals) if vals else None), len(vals)

    def _group(self, types: Sequence[str]) -> dict:
        pairs = [(s, x) for s, x in zip(self.scores, self.extras) if s.question_type in types]
        ans = [(s, x) for s, x in pairs if s.n_gold > 0]
        n = len(ans)
        ck, nc = self._containment("contained_k", [x for _, x in pairs])
        return {
            "questions": n,
            "k": REPORT_K,
            "recall": sum(s.recall(REPORT_K) for s, _ in ans) / n if n else None,
            "full_coverage": sum(s.full(REPORT_K) for s, _ in ans) / n if n else None,
            "budget_chars": REPORT_BUDGET,
            "recall_at_budget": sum(x.budget.retrieved[REPORT_BUDGET] / s.n_gold for s, x in ans) / n if n else None,
            "answer_containment": ck, "containment_questions": nc,
        }

    def summary(self) -> dict:
        out = {
            "retriever": self.retriever,
            "mode": self.mode,
            "questions": self.questions,
            "answerable": sum(1 for s in self.scores if s.n_gold),
            "curve": curve(self.scores, self.max_k),
            "by_type": by_type(self.scores, REPORT_K),
        }
        if not self.extras:
            return out
        for t, entry in out["by_type"].items():
            entry.update({k: v for k, v in self._group((t,)).items() if k not in entry})
        ck, nk = self._containment("contained_k")
        cb, _ = self._containment("contained_b")
        out.update({
            "budget": budget_curve([x.budget for x in self.extras], self.budgets),
            "per_question": {
                "ids": [s.question_id for s, _ in self._answerable()],
                "types": [s.question_type for s, _ in self._answerable()],
                "recall": {str(b): [round(x.budget.recall(b), 6) for _, x in self._answerable()]
                           for b in self.budgets},
            },
            "precision": {"k": REPORT_K, "value": self._mean("precision_k"),
                          "chars": REPORT_BUDGET, "value_at_budget": self._mean("precision_b")},
            "iou": {"k": REPORT_K, "value": self._mean("iou_k"),
                    "chars": REPORT_BUDGET, "value_at_budget": self._mean("iou_b")},
            "answer_containment": {"k": REPORT_K, "value": ck, "chars": REPORT_BUDGET,
                                   "value_at_budget": cb, "questions": nk},
            "slices": {name: self._group(types) for name, types in SLICES.items()},
        })
        return out


def gold_spans(passages: pd.DataFrame) -> dict[str, tuple[str, int, int]]:
    return {p: (d, int(s), int(e)) for p, d, s, e in
            zip(passages["passage_id"], passages["doc_id"], passages["start"], passages["end"])}


def _list(v) -> list:
    return list(v) if v is not None and not (isinstance(v, float) and v != v) else []


def question_languages(retriever, questions: list[dict]) -> list[str | None] | None:
    """Each question's language (its documents' language, as the retriever's index records
    them), or None for a retriever that does not know languages (dense)."""
    of = getattr(retriever, "question_language", None)
    if of is None:
        return None
    return [of(_list(q.get("doc_ids"))) for q in questions]


def evaluate_retriever(retriever, chunks: pd.DataFrame, passages: pd.DataFrame, questions: pd.DataFrame,
                       mode: str = "global", max_k: int = MAX_K, expander: Expander | None = None,
                       depth: int = DEPTH, budgets: Sequence[int] = BUDGETS, router=None) -> RetrievalEvaluation:
    """``chunks`` rows must be in the retriever's row order (chunks.parquet order); columns
    doc_id, spans, embedding_text (+ source_text for the header length, optional).
    With ``expander`` every retrieved chunk is delivered as its expansion (the policy's
    small-to-big delivery), costing its header plus the expanded text.
    Mode ``routed`` needs ``router`` (routing.search.Router): it ranks from the question texts only."""
    if mode not in ALL_MODES:
        raise ValueError(f"unknown evaluation mode {mode!r}; known: {ALL_MODES}")
    if mode == ROUTED and router is None:
        raise ValueError("mode 'routed' needs a router (routing.search.Router)")
    budgets = tuple(sorted(set(budgets) | {REPORT_BUDGET}))
    gold = gold_spans(passages)
    spans = [spans_of(v) for v in chunks["spans"]]
    doc_ids = chunks["doc_id"].to_numpy()
    texts = chunks["embedding_text"].tolist()
    n_chars = np.array([len(t) for t in texts])
    if "source_text" in chunks.columns:
        header = np.maximum(0, n_chars - chunks["source_text"].str.len().to_numpy())
    else:
        header = np.zeros(len(texts), dtype=int)
    qs = questions.to_dict("records")
    allowed = None
    if mode == "filtered":
        allowed = [np.isin(doc_ids, _list(q["doc_ids"])) for q in qs]
    # a question's language is its documents' language (index/languages.py): BM25 analyses
    # it in that language and answer containment reads its numbers in that locale
    langs = question_languages(retriever, qs)
    lang_kw = {"languages": langs} if langs is not None else {}
    if mode == ROUTED:
        hits = router.search_many(retriever, [q["question"] for q in qs], max(max_k, depth), **lang_kw)
    else:
        hits = retriever.search_many([q["question"] for q in qs], max(max_k, depth), allowed, **lang_kw)

    def delivered_chunk(r: int) -> DeliveredChunk:
        h = int(header[r])
        head = texts[r][:h]
        if expander is None:
            return DeliveredChunk(doc_ids[r], spans[r], int(n_chars[r]), h, texts[r], head)
        ex_spans, ex_text = expander(r)
        return DeliveredChunk(doc_ids[r], list(ex_spans), h + len(ex_text), h, head + ex_text, head)

    scores, extras = [], []
    for i, (q, ranked) in enumerate(zip(qs, hits)):
        gold_list = [gold[p] for p in _list(q["gold_passages"])]
        delivered = [delivered_chunk(r) for r, _ in ranked]
        score = score_question(q["question_id"], q["question_type"], gold_list, delivered, max_k)
        x = QuestionExtras(score_budgets(q["question_id"], q["question_type"], gold_list, delivered, budgets))
        if gold_list:
            merged_k, _, _ = deliver(delivered, k=REPORT_K)
            merged_b, _, _ = deliver(delivered, budget=REPORT_BUDGET)
            x.precision_k, x.iou_k = precision_iou(merged_k, gold_list)
            x.precision_b, x.iou_b = precision_iou(merged_b, gold_list)
        answer = q.get("answer")
        if scorable(q["question_type"], answer):
            lang = langs[i] if langs is not None else None
            x.contained_k = contains_answer(answer, deliver(delivered, k=REPORT_K)[2], lang)
            x.contained_b = contains_answer(answer, deliver(delivered, budget=REPORT_BUDGET)[2], lang)
        scores.append(score)
        extras.append(x)
    return RetrievalEvaluation(retriever.name, mode, len(qs), scores, extras, budgets, max_k)

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
context assembler (``budget.py``) as every other policy. An expander with ``at(budget)``
(expander.py: ``ParentExpander``) delivers at each budget parents of at most a third of it;
recall@k (no budget) reads the set's own bound.

``per_question`` in the summary keeps each answerable question's recall at every budget (in
question order), so two chunk sets can be compared question by question (``compare.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..types.chunks import spans_of
from .assembler import DeliveredChunk
from .budget import BUDGETS, REPORT_BUDGET  # noqa: F401  (REPORT_BUDGET re-exported)
from .metrics import BASE, REPORT_K, QuestionRun, Scored, metrics  # noqa: F401  (REPORT_K re-exported)
from .recall import QuestionScore

MAX_K = 50
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
class RetrievalEvaluation:
    """Every registered metric's per-question values (``values[name]``, question order) of one
    retriever x mode; ``scores`` are the base metric's (recall)."""

    retriever: str
    mode: str
    questions: int
    values: dict[str, list] = field(default_factory=dict)
    budgets: Sequence[int] = BUDGETS
    max_k: int = MAX_K

    @property
    def scores(self) -> list[QuestionScore]:
        return self.values.get(BASE, [])

    def _group(self, types: Sequence[str]) -> dict:
        """Every metric's entries over the questions of ``types``."""
        keep = [i for i, s in enumerate(self.scores) if s.question_type in types]
        out: dict = {}
        for name, spec in metrics().items():
            if name in self.values:
                out.update(spec.group([(self.scores[i], self.values[name][i]) for i in keep]))
        return out

    def summary(self) -> dict:
        out = {
            "retriever": self.retriever,
            "mode": self.mode,
            "questions": self.questions,
            "answerable": sum(1 for s in self.scores if s.n_gold),
        }
        for name, spec in metrics().items():
            if name in self.values and (self.questions or not spec.needs_questions):
                out.update(spec.summarize(Scored(self.scores, self.values[name], self.budgets, self.max_k)))
        if not self.questions:
            return out
        for t, entry in out["by_type"].items():
            entry.update({k: v for k, v in self._group((t,)).items() if k not in entry})
        out["slices"] = {name: self._group(types) for name, types in SLICES.items()}
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


def delivery(chunks: pd.DataFrame, expander: Expander | None = None) -> Callable[[int], DeliveredChunk]:
    """What retrieving row ``r`` of ``chunks`` delivers: its context header and its text, or
    with ``expander`` its header and its expansion. One DeliveredChunk per row, however many
    rankings hold it. ``chunks``: doc_id, spans, embedding_text (+ source_text for the header
    length, optional)."""
    spans = [spans_of(v) for v in chunks["spans"]]
    doc_ids = chunks["doc_id"].to_numpy()
    texts = chunks["embedding_text"].tolist()
    n_chars = np.array([len(t) for t in texts])
    if "source_text" in chunks.columns:
        header = np.maximum(0, n_chars - chunks["source_text"].str.len().to_numpy())
    else:
        header = np.zeros(len(texts), dtype=int)
    made: dict[int, DeliveredChunk] = {}

    def delivered_chunk(r: int) -> DeliveredChunk:
        c = made.get(r)
        if c is not None:
            return c
        h = int(header[r])
        head = texts[r][:h]
        if expander is None:
            c = DeliveredChunk(doc_ids[r], spans[r], int(n_chars[r]), h, texts[r], head)
        else:
            ex_spans, ex_text = expander(r)
            c = DeliveredChunk(doc_ids[r], list(ex_spans), h + len(ex_text), h, head + ex_text, head)
        made[r] = c
        return c

    return delivered_chunk


def delivery_at(chunks: pd.DataFrame, expander: Expander | None = None
                ) -> Callable[[int | None], Callable[[int], DeliveredChunk]]:
    """``deliver_at(budget)``: what a retrieved row delivers in a context of ``budget``
    characters (None: no budget) — ``delivery(chunks, expander)``, or with an expander whose
    parents a budget bounds (``expander.at``, expander.py ``parent_bound``) the delivery at that
    bound: one delivery per distinct bound, made on first use."""
    at = getattr(expander, "at", None)
    made: dict[int, Callable[[int], DeliveredChunk]] = {}

    def deliver_at(budget: int | None) -> Callable[[int], DeliveredChunk]:
        bounded = at(budget) if at is not None else expander
        if id(bounded) not in made:
            made[id(bounded)] = delivery(chunks, bounded)
        return made[id(bounded)]

    return deliver_at


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
    doc_ids = chunks["doc_id"].to_numpy()
    deliver_at = delivery_at(chunks, expander)
    delivered_chunk = deliver_at(None)
    at_budget = {b: d for b in budgets if (d := deliver_at(b)) is not delivered_chunk}   # narrower bounds
    distinct = {id(d): d for d in at_budget.values()}   # several budgets share one bound's delivery
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

    specs = metrics()
    values: dict[str, list] = {name: [] for name in specs}
    for i, (q, ranked) in enumerate(zip(qs, hits)):
        rows = [r for r, _ in ranked]
        lists = {key: [d(r) for r in rows] for key, d in distinct.items()}
        run = QuestionRun(q["question_id"], q["question_type"], [gold[p] for p in _list(q["gold_passages"])],
                          [delivered_chunk(r) for r in rows], q.get("answer"),
                          langs[i] if langs is not None else None, budgets, max_k,
                          {b: lists[id(d)] for b, d in at_budget.items()})
        for name, spec in specs.items():
            values[name].append(spec.score(run))
    return RetrievalEvaluation(retriever.name, mode, len(qs), values, budgets, max_k)

"""Score one retriever over one chunk set against a corpus's labelled questions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..chunking.store import spans_of
from .recall import QuestionScore, RankedChunk, by_type, curve, score_question

MAX_K = 10
REPORT_K = 5
MODES = ("global", "filtered")


@dataclass
class RetrievalEvaluation:
    retriever: str
    mode: str
    questions: int
    scores: list[QuestionScore]

    def summary(self) -> dict:
        return {
            "retriever": self.retriever,
            "mode": self.mode,
            "questions": self.questions,
            "answerable": sum(1 for s in self.scores if s.n_gold),
            "curve": curve(self.scores, MAX_K),
            "by_type": by_type(self.scores, REPORT_K),
        }


def gold_spans(passages: pd.DataFrame) -> dict[str, tuple[str, int, int]]:
    return {p: (d, int(s), int(e)) for p, d, s, e in
            zip(passages["passage_id"], passages["doc_id"], passages["start"], passages["end"])}


def evaluate_retriever(retriever, chunks: pd.DataFrame, passages: pd.DataFrame, questions: pd.DataFrame,
                       mode: str = "global", max_k: int = MAX_K) -> RetrievalEvaluation:
    """``chunks`` rows must be in the retriever's row order (chunks.parquet order)."""
    if mode not in MODES:
        raise ValueError(f"unknown evaluation mode {mode!r}; known: {MODES}")
    gold = gold_spans(passages)
    spans = [spans_of(v) for v in chunks["spans"]]
    doc_ids = chunks["doc_id"].to_numpy()
    n_chars = chunks["embedding_text"].str.len().to_numpy()
    qs = questions.to_dict("records")
    allowed = None
    if mode == "filtered":
        allowed = [np.isin(doc_ids, list(q["doc_ids"]) if q["doc_ids"] is not None else []) for q in qs]
    hits = retriever.search_many([q["question"] for q in qs], max_k, allowed)
    scores = []
    for q, ranked in zip(qs, hits):
        gold_list = [gold[p] for p in (q["gold_passages"] if q["gold_passages"] is not None else [])]
        ranked_chunks = [RankedChunk(doc_ids[r], spans[r], int(n_chars[r])) for r, _ in ranked]
        scores.append(score_question(q["question_id"], q["question_type"], gold_list, ranked_chunks, max_k))
    return RetrievalEvaluation(retriever.name, mode, len(qs), scores)

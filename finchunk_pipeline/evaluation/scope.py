"""Which questions can be scored: those whose documents were all chunked.

A document the pipeline rejected (empty, binary, unknown format) or could not parse has no
chunks; a question about it would count as a miss for every chunk set alike and hide the
comparison. Such questions are left out of scoring and counted, with their ids, so one bad
document costs one line in the report, not the corpus.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import pandas as pd


def _list(v) -> list:
    return list(v) if v is not None and not (isinstance(v, float) and v != v) else []


@dataclass
class Scope:
    questions: pd.DataFrame                      # the scorable questions
    excluded_ids: list[str] = field(default_factory=list)
    missing_documents: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {"questions_on_rejected_documents": len(self.excluded_ids),
                "question_ids": self.excluded_ids, "documents": self.missing_documents}


def scorable_questions(questions: pd.DataFrame, passages: pd.DataFrame | None,
                       available_docs: Iterable[str]) -> Scope:
    """Questions whose documents (``doc_ids`` and the documents of their gold passages) are
    all in ``available_docs``."""
    available = set(available_docs)
    passage_doc = dict(zip(passages["passage_id"], passages["doc_id"])) if passages is not None else {}
    keep, excluded, missing = [], [], set()
    for qid, doc_ids, gold in zip(questions["question_id"], questions["doc_ids"], questions["gold_passages"]):
        docs = set(_list(doc_ids)) | {passage_doc[p] for p in _list(gold) if p in passage_doc}
        absent = docs - available
        keep.append(not absent)
        if absent:
            excluded.append(qid)
            missing |= absent
    return Scope(questions[keep].reset_index(drop=True), excluded, sorted(missing))

"""Evaluate one chunk set: its chunks, indexes and a question set -> the payload of its
evaluation.json. Pure: builders/evaluation.py reads what is stored, computes the evaluation's key,
reuses a stored evaluation with the same key, else calls ``score_chunk_set`` and writes.

A payload holds the chunk set's configuration and manifest figures (``chunk_set_fields``),
the scope of the scorable questions, the gold resolution, every retriever x mode entry and,
for an enriched chunk set, the retrieval over each representation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import pandas as pd

from ..chunk_sets import ChunkerConfig
from ..chunking.registry import STRATEGIES
from ..models.backends import DEFAULT_BACKEND
from .gold_resolution import summary as gold_resolution_summary

HUMAN, GENERATED = "human", "generated"  # the question sets: the corpus's own, generated from inline XBRL
MANIFEST_FIELDS = ("chunks", "mean_chars", "mean_tokens", "max_tokens", "over_limit_fraction", "duplication")
OPTIONAL_MANIFEST_FIELDS = ("char_bound", "split_to_bound", "over_bound", "notes")


class Log(Protocol):
    def info(self, msg: str) -> None: ...

    def warning(self, msg: str) -> None: ...


@dataclass(frozen=True)
class EvaluationOptions:
    """The run's choices an evaluation depends on (PipelineResource / Settings)."""

    retrievers: tuple[str, ...]
    model: str | None          # embedding model folder; None: the packaged one
    budgets: tuple[int, ...]   # context budgets (characters)
    embed_backend: str = DEFAULT_BACKEND  # how queries are embedded (the dense index's marker key names it too)


@dataclass(frozen=True)
class QuestionSet:
    """The questions an evaluation scores (``gold``: HUMAN or GENERATED) and whether they are
    labelled."""

    gold: str
    questions: pd.DataFrame | None
    labelled: bool


def evaluation_file(gold: str = HUMAN) -> str:
    """A chunk set's evaluation file for a question set: evaluation.json for the corpus's own
    questions, evaluation-generated.json for the questions generated from inline XBRL."""
    return "evaluation.json" if gold == HUMAN else f"evaluation-{gold}.json"


def chunk_set_fields(config: ChunkerConfig, manifest: dict, enrichment: dict | None, index_bytes: int,
                     chunk_bytes: int) -> dict:
    """What every entry of the chunk set repeats: its configuration, its manifest's figures and
    the bytes of its indexes and chunks."""
    return {"name": config.name, "version": config.version_name, "strategy": config.strategy,
            "params": config.params, "header": config.header, "expand": config.expand,
            "family": STRATEGIES[config.strategy].family,
            **{k: manifest[k] for k in MANIFEST_FIELDS},
            **{k: manifest.get(k) for k in OPTIONAL_MANIFEST_FIELDS},
            "index_bytes": index_bytes, "chunk_bytes": chunk_bytes,
            "enricher": enrichment["describe"] if enrichment else None}


def _resolution(passages: pd.DataFrame, scope, log: Log) -> dict:
    """The gold resolution summary of the scorable questions (a warning names the questions
    left out)."""
    if scope.excluded_ids:
        log.warning(f"{len(scope.excluded_ids)} questions on rejected documents "
                    f"{scope.missing_documents} left out of scoring")
    return gold_resolution_summary(
        passages, {p for v in scope.questions["gold_passages"] if v is not None for p in v})


def score_chunk_set(corpus: str, question_set: QuestionSet, scoped, base: dict,
                    retrieve: Callable[[pd.DataFrame, pd.DataFrame], list[dict]],
                    enrich: Callable[[pd.DataFrame, pd.DataFrame, list[dict]], dict] | None, log: Log) -> dict:
    """The evaluation payload (without its key): every retriever x mode on the scorable
    questions, and an enriched chunk set's representations. ``scoped``: (the resolved gold
    passages, the questions' scope: evaluation/scope.py) of a labelled question set;
    ``retrieve(passages, questions)``: the entries; ``enrich(passages, questions, entries)``:
    an enriched chunk set's part (None: not enriched)."""
    passages = scope = resolution = None
    labelled, gold = question_set.labelled, question_set.gold
    if labelled:
        passages, scope = scoped
        resolution = _resolution(passages, scope, log)
    entries = retrieve(passages, scope.questions) if scope else []
    enriched = (enrich(passages, scope.questions, entries)
                if scope is not None and enrich is not None else None)
    if not labelled and gold == HUMAN:
        log.warning(f"corpus {corpus} has no labelled questions: nothing to score")
    questions = question_set.questions
    return {"corpus": corpus, "labelled": labelled, **({} if gold == HUMAN else {"gold": gold}),
            "questions": 0 if questions is None else len(questions),
            "excluded": scope.summary() if scope else None,
            "gold_resolution": resolution,
            "chunk_set": base, "entries": entries, "enrichment": enriched}

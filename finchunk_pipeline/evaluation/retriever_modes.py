"""Every retriever x mode over one chunk set's chunks and indexes (and, for an enriched chunk
set, over each representation): the entries of its evaluation.json.

Pure: the chunks are a table, the indexes are reached through ``Indexes`` (whether a
retriever's index was built, loading it, the bytes it reads), which builders/evaluation.py makes
over the stored ones; a retriever whose index was not built is skipped and said so in the log.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd

from ..chunk_sets import ChunkerConfig
from ..index.registry import needs, retrievers
from ..routing import Catalog
from ..routing.search import Router, routing_summary
from .retrieval import MODES, ROUTED, evaluate_retriever

CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "view_spans", "embedding_text", "source_text"]
ENRICHED_CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "embedding_text", "source_text"]


@dataclass(frozen=True)
class Indexes:
    """A chunk set's indexes as the evaluation reaches them, by retriever name."""

    exists: Callable[[str], bool]      # its index was built
    load: Callable[[str], Any]         # the retriever over it
    index_bytes: Callable[[str], int]  # the bytes of the indexes it reads


def _routed_summary(router: Router, questions: pd.DataFrame) -> dict:
    """Routing accuracy, scored against the questions' documents, which the router never saw."""
    return routing_summary(router.last_routes, questions["question_id"].tolist(),
                           [list(v) if v is not None else [] for v in questions["doc_ids"]])


def skip_reason(name: str, config: ChunkerConfig) -> str:
    """Why a retriever of the run has no index for ``config``'s chunk set."""
    embeds = any(retrievers()[n].index.embeds for n in needs().get(name, ()) if retrievers()[n].index)
    return "dense: false in the chunker config" if embeds and not config.dense else "no index built"


def evaluate_retrievers(config: ChunkerConfig, options, chunks: pd.DataFrame, indexes: Indexes,
                        catalog: Catalog, passages: pd.DataFrame, questions: pd.DataFrame, base: dict, log,
                        expander: Callable[[int], object] | None = None) -> list[dict]:
    """Every available retriever x mode (global, filtered, routed) on the scorable ``questions``;
    ``options``: retrievers and budgets (evaluation/chunk_set.EvaluationOptions); ``catalog``:
    the documents' metadata the router reads; ``expander``: the parent expansion, if declared."""
    router = Router(catalog, chunks["doc_id"].tolist())
    entries = []
    for name in options.retrievers:
        if not indexes.exists(name):
            log.info(f"{config.name}: {name} skipped ({skip_reason(name, config)})")
            continue
        retriever = indexes.load(name)
        own = indexes.index_bytes(name)
        for mode in (*MODES, ROUTED):
            summary = evaluate_retriever(retriever, chunks, passages, questions, mode,
                                         expander=expander, budgets=options.budgets, router=router).summary()
            if mode == ROUTED:
                summary["routing"] = _routed_summary(router, questions)
            entries.append({**base, "index_bytes_retriever": own, **summary})
            log.info(f"{config.name} {name} {mode}: recall@3 = {summary['curve'][2]['recall']:.3f}")
    return entries


def evaluate_enriched(load: Callable[[str, str], Any], options, chunks: pd.DataFrame, enrichment: pd.DataFrame,
                      manifest: dict, parsed: pd.DataFrame, passages: pd.DataFrame, questions: pd.DataFrame,
                      entries: list[dict], log) -> dict:
    """An enriched chunk set's retrieval over each representation (evaluation/enrichment.py);
    ``load(representation, retriever)``: its index, or None when not built; ``manifest``: the
    enrichment's; ``parsed``: the parsed documents' metadata."""
    from .enrichment import evaluate_enrichment

    doc_meta = {r["doc_id"]: r for r in parsed.to_dict("records")}
    result = evaluate_enrichment(load, list(options.retrievers), chunks, enrichment, passages, questions,
                                 doc_meta, entries, log=log.info)
    return {"enricher": manifest.get("enricher"), "enricher_version": manifest.get("enricher_version"),
            "describe": manifest.get("describe"), **result}

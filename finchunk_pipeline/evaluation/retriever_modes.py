"""Every retriever x mode over one chunk set's stored chunks and indexes (and, for an
enriched chunk set, over each representation): the entries of its evaluation.json.

Called by evaluation/chunk_set.py; a retriever whose index was not built is skipped and
said so in the log.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from ..chunk_sets import ChunkerConfig
from ..index.registry import LoadRequest, index_exists, load_retriever, needs, retrievers
from ..routing import Catalog
from ..routing.search import Router, routing_summary
from ..storage.workspace import Workspace
from .expander import parent_expander
from .retrieval import MODES, ROUTED, evaluate_retriever

CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "view_spans", "embedding_text", "source_text"]
ENRICHED_CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "embedding_text", "source_text"]


def dir_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


def retriever_index_bytes(name: str, index_dir: Path) -> int:
    """Bytes of the indexes a retriever reads: its own folder and marker, or, for hybrid
    (no files of its own), those of the bm25 and dense indexes it fuses."""
    return sum(dir_bytes(f) if f.is_dir() else f.stat().st_size
               for part in needs().get(name, (name,)) for f in index_dir.glob(f"{part}*"))


def _routed_summary(router: Router, questions: pd.DataFrame) -> dict:
    """Routing accuracy, scored against the questions' documents, which the router never saw."""
    return routing_summary(router.last_routes, questions["question_id"].tolist(),
                           [list(v) if v is not None else [] for v in questions["doc_ids"]])


def evaluate_retrievers(ws: Workspace, config: ChunkerConfig, options, passages: pd.DataFrame,
                        questions: pd.DataFrame, base: dict, log) -> list[dict]:
    """Every available retriever x mode (global, filtered, routed) on the scorable ``questions``;
    ``options``: retrievers, model and budgets (evaluation/chunk_set.EvaluationOptions)."""
    index_dir = ws.index_dir(config.version_name)
    chunks = ws.chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
    expander = parent_expander(chunks, ws.manifest_path, ws.blocks, config.expand) if config.expand else None
    router = Router(Catalog.from_parquet(ws.manifest_path), chunks["doc_id"].tolist())
    entries = []
    for name in options.retrievers:
        if not index_exists(name, index_dir):
            embeds = any(retrievers()[n].index.embeds for n in needs().get(name, ()) if retrievers()[n].index)
            why = "dense: false in the chunker config" if embeds and not config.dense else "no index built"
            log.info(f"{config.name}: {name} skipped ({why})")
            continue
        # the run's embedding cache, as the indexes were built with: one shared embedder (one
        # model in memory, one query memo) per run, not a second one over the default cache
        request = LoadRequest(chunks, options.model, ws.settings.embeddings_dir, embed_backend=options.embed_backend)
        retriever = load_retriever(name, index_dir, request)
        own = retriever_index_bytes(name, index_dir)
        for mode in (*MODES, ROUTED):
            summary = evaluate_retriever(retriever, chunks, passages, questions, mode,
                                         expander=expander, budgets=options.budgets, router=router).summary()
            if mode == ROUTED:
                summary["routing"] = _routed_summary(router, questions)
            entries.append({**base, "index_bytes_retriever": own, **summary})
            log.info(f"{config.name} {name} {mode}: recall@3 = {summary['curve'][2]['recall']:.3f}")
    return entries


def evaluate_enriched(ws: Workspace, config: ChunkerConfig, options, passages: pd.DataFrame,
                      questions: pd.DataFrame, entries: list[dict], log) -> dict:
    """An enriched chunk set's retrieval over each representation (evaluation/enrichment.py)."""
    from ..index.representations import load_representation, representation_exists
    from .enrichment import evaluate_enrichment

    index_dir = ws.index_dir(config.version_name)
    store = ws.enrichments
    chunks = ws.chunks.read(config.chunks_version_name, columns=ENRICHED_CHUNK_COLUMNS)
    enrichment = store.read(config.version_name, columns=["chunk_id", "enrichment_text"])
    parsed = pq.read_table(ws.manifest_path).to_pandas()
    doc_meta = {r["doc_id"]: r for r in parsed.to_dict("records")}
    memo = {}

    def load(rep: str, name: str):
        if not representation_exists(rep, name, index_dir):
            return None
        if (rep, name) not in memo:
            memo[(rep, name)] = load_representation(rep, name, index_dir, chunks, options.model,
                                                    ws.settings.embeddings_dir)
        return memo[(rep, name)]

    manifest = store.manifest(config.version_name) or {}
    result = evaluate_enrichment(load, list(options.retrievers), chunks, enrichment, passages, questions,
                                 doc_meta, entries, log=log.info)
    return {"enricher": manifest.get("enricher"), "enricher_version": manifest.get("enricher_version"),
            "describe": manifest.get("describe"), **result}

"""finchunk_pipeline: parse, chunk, index and evaluate financial documents.

The core packages (corpus, fetch, parse, chunking, index, evaluation, xbrl) are plain
Python; ``finchunk_pipeline.assets`` and ``finchunk_pipeline.definitions`` are the thin
Dagster shell over them.

The public API is the names in ``__all__``: the data types, loading a corpus, parsing,
chunking, the stores, retrieval and evaluation. Each is imported when first read (PEP 562),
so ``import finchunk_pipeline`` costs nothing and imports neither Dagster nor the model
stack; where a name's module lives is this file's business, not its users'.

    from finchunk_pipeline import load_corpus, select_parser, ChunkerConfig, chunk_document
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# public name -> (module under finchunk_pipeline, attribute there)
_PUBLIC: dict[str, tuple[str, str]] = {
    # the data types every stage passes on
    "Block": ("types.blocks", "Block"),
    "BlockKind": ("types.blocks", "BlockKind"),
    "ParsedDocument": ("types.blocks", "ParsedDocument"),
    "TaggedFact": ("types.blocks", "TaggedFact"),
    "Chunk": ("types.chunks", "Chunk"),
    "SPAN_JOINER": ("types.chunks", "SPAN_JOINER"),
    # settings
    "Settings": ("settings", "Settings"),
    "DEFAULT_CORPUS": ("settings", "DEFAULT_CORPUS"),
    "PROJECT_ROOT": ("settings", "PROJECT_ROOT"),
    # corpus
    "Corpus": ("corpus.loader", "Corpus"),
    "CorpusError": ("corpus.loader", "CorpusError"),
    "load_corpus": ("corpus.loader", "load_corpus"),
    # parse
    "select_parser": ("parse.registry", "select_parser"),
    "register_parser": ("parse.registry", "register"),
    "UnsupportedDocument": ("parse.registry", "UnsupportedDocument"),
    "parse_documents": ("builders.blocks", "parse_documents"),
    # chunking
    "ChunkerConfig": ("chunk_sets", "ChunkerConfig"),
    "Chunker": ("chunking.chunker", "Chunker"),
    "load_chunker_configs": ("chunk_sets", "load_chunker_configs"),
    "parse_chunker_configs": ("chunk_sets", "parse_chunker_configs"),
    "chunk_document": ("chunking.document", "chunk_document"),
    "build_chunk_set": ("builders.chunks", "build_chunk_set"),
    # enrichment
    "build_enrichment": ("builders.enrichment", "build_enrichment"),
    "EnrichmentError": ("enrichment.enriched_set", "EnrichmentError"),
    "Strategy": ("chunking.strategy", "Strategy"),
    "STRATEGIES": ("chunking.registry", "STRATEGIES"),
    "register_strategy": ("chunking.registry", "register"),
    "token_counter": ("models.tokens", "token_counter"),
    # the stores
    "RawStore": ("storage.raw", "RawStore"),
    "BlockStore": ("storage.blocks", "BlockStore"),
    "ChunkStore": ("storage.chunks", "ChunkStore"),
    "FactsStore": ("xbrl.store", "FactsStore"),
    "Workspace": ("storage.workspace", "Workspace"),
    # retrieval
    "get_analyzer": ("index.analyzer", "get_analyzer"),
    "load_retriever": ("index.registry", "load_retriever"),
    "register_retriever": ("index.registry", "register"),
    "RetrieverSpec": ("index.registry", "RetrieverSpec"),
    # evaluation
    "evaluate_retriever": ("evaluation.retrieval", "evaluate_retriever"),
    "build_report": ("evaluation.report", "build_report"),
    "render_markdown": ("evaluation.report", "render_markdown"),
    "compare_out_of_fold": ("evaluation.out_of_fold", "compare_out_of_fold"),
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value  # read once: later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

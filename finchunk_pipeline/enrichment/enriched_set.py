"""The enriched set of one chunk set, from its chunks: a pure stage.

``enrich_chunk_set`` takes the chunk set's chunks (a table read from its Parquet) and the
parsed-blocks manifest, hashes every chunk by what its enricher reads (``model.chunk_hash``),
looks each up in a cache by that hash, enriches only the chunks not found (reading their
documents through a function handed in) and puts what it made in the cache as it goes. It
returns one enrichment row per chunk, in the chunks' order; the chunks are never rewritten:
``source_text`` and ``spans`` stay exactly as chunked. Nothing here reads or writes a store
(the reuse of a stored enriched set, the chunk, block and enrichment stores and the text
cache's files: builders/enrichment.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol, Sequence

import pandas as pd
import pyarrow as pa

from ..hashing import stable_hash
from ..types.blocks import ParsedDocument
from ..types.chunks import spans_of
from .model import (
    ENRICHMENT_SCHEMA,
    LLM,
    META_FIELDS,
    STRUCTURAL,
    EnrichSpec,
    chunk_hash,
)
from .structural import ChunkRef, enrich_document

BUILD_VERSION = "1"
LLM_BATCH = 64        # chunks per round of requests: the cache is written after each round
STRUCTURAL_FLUSH = 5000


class EnrichmentError(RuntimeError):
    """Enrichment could not be completed (names the chunk set and what failed)."""


class EnrichmentCache(Protocol):
    """Enrichments by chunk hash (storage/text_cache.TextCache, under the enricher's version id)."""

    def get_many(self, keys: Iterable[str]) -> dict[str, dict]: ...

    def put_many(self, records: Sequence[dict]) -> None: ...


# a document's blocks, given its record of the parsed-blocks manifest (doc_id, sha, parser_key)
DocumentReader = Callable[[dict], ParsedDocument]

CHUNK_COLUMNS = ["chunk_id", "doc_id", "spans", "view_spans", "section_path", "source_text", "block_ids"]


@dataclass
class EnrichedSet:
    """What enriching a chunk set gave: one row per chunk, and what the manifest reports."""
    table: pa.Table
    chunks: int
    enriched_now: int
    cache_hits: int
    usage: dict = field(default_factory=dict)


def _ref(row) -> ChunkRef:
    return ChunkRef(row["chunk_id"], spans_of(row["view_spans"]), tuple(row["section_path"] if row["section_path"] is not None else ()),
                    row["source_text"], list(row["block_ids"] if row["block_ids"] is not None else []))


def enrichment_inputs(spec: EnrichSpec, chunks_manifest: dict) -> str:
    """Everything the enriched set is built from: the chunks (their inputs hash) and the
    enricher's version id."""
    return stable_hash({"chunks": chunks_manifest["inputs"], "enricher": spec.version_id, "build": BUILD_VERSION})


def enrich_chunk_set(config, chunks: pd.DataFrame, parsed: pd.DataFrame, read_document: DocumentReader,
                     cache: EnrichmentCache, client_factory: Callable[[], object] | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     log: Callable[[str], None] | None = None) -> EnrichedSet:
    """The enrichment of every chunk of ``chunks`` (CHUNK_COLUMNS of ``config``'s chunk set, a
    ChunkerConfig with ``enrich``): cached ones from ``cache``, the others made now (and put
    in ``cache``) from their documents, read by ``read_document``.

    ``parsed``: the parsed-blocks manifest (doc_id, sha, parser_key + metadata).
    ``client_factory``: makes the LLM client (enrichment/client.ChatClient) for ``llm``;
    called only when some chunk is not cached. Raises EnrichmentError when chunks could not
    be enriched (the ones that were are cached: a re-run asks only for the rest)."""
    spec: EnrichSpec = config.enrich
    where = {r["doc_id"]: r for r in parsed.to_dict("records")}
    df = _hashed_chunks(config, chunks, where)
    found = cache.get_many(set(df["chunk_hash"]))
    todo = df[~df["chunk_hash"].isin(found)].drop_duplicates("chunk_hash")
    usage: dict = {}
    new: dict[str, dict] = {}
    if len(todo):
        if spec.enricher == STRUCTURAL:
            new = _structural(spec, todo, where, read_document, cache, progress)
        elif spec.enricher == LLM:
            new, usage = _llm(config, spec, todo, where, read_document, cache, client_factory, progress, log)
        else:  # parse_enrich accepts only known enrichers
            raise ValueError(f"unknown enricher {spec.enricher!r}")
    return EnrichedSet(_enrichment_table(spec, df, new, found), len(df), len(new),
                       int(df["chunk_hash"].isin(found).sum()), usage)


def manifest(config, key: str, enriched: EnrichedSet, seconds: float) -> dict:
    """The enriched set's manifest: what it is (``key``: its ``enrichment_inputs``), its
    statistics, the LLM usage and the ``seconds`` its build took."""
    spec: EnrichSpec = config.enrich
    lengths = [len(t) for t in enriched.table.column("enrichment_text").to_pylist()]
    return {
        "chunk_set": config.name, "version": config.version_name, "chunks_version": config.chunks_version_name,
        "enricher": spec.enricher, "enricher_version": spec.version_id, "enricher_params": spec.params,
        "describe": spec.describe(), "inputs": key, "chunks": enriched.chunks,
        "enriched_now": enriched.enriched_now, "cache_hits": enriched.cache_hits,
        "empty": sum(1 for n in lengths if n == 0),
        "mean_chars": (sum(lengths) / len(lengths)) if lengths else 0.0, "max_chars": max(lengths, default=0),
        "usage": enriched.usage, "seconds": seconds,
    }


def _hashed_chunks(config, df: pd.DataFrame, where: dict[str, dict]) -> pd.DataFrame:
    """The chunk set's chunks with ``chunk_hash``: what an enrichment of the chunk is cached by."""
    missing_docs = sorted(set(df["doc_id"]) - set(where))
    if missing_docs:
        raise EnrichmentError(f"chunk set {config.chunks_version_name}: documents {missing_docs[:5]} are not in "
                              f"the parsed manifest; materialize parsed_blocks first")
    hashes = []
    for row in df.to_dict("records"):
        d = where[row["doc_id"]]
        hashes.append(chunk_hash(d["sha"], d["parser_key"], row["view_spans"], row["source_text"],
                                 row["section_path"], d))
    df["chunk_hash"] = hashes
    return df


def _enrichment_table(spec: EnrichSpec, df: pd.DataFrame, new: dict[str, dict], found: dict[str, dict]) -> pa.Table:
    """One row per chunk: its enrichment (made now or cached) and the tokens paid for it now."""
    texts, ptoks, ctoks = [], [], []
    for h in df["chunk_hash"]:
        rec = new.get(h) or found[h]
        texts.append(rec["text"])
        fresh = h in new
        ptoks.append(int(rec.get("prompt_tokens") or 0) if fresh else 0)
        ctoks.append(int(rec.get("completion_tokens") or 0) if fresh else 0)
    return pa.Table.from_pydict({
        "chunk_id": df["chunk_id"].tolist(), "doc_id": df["doc_id"].tolist(), "chunk_hash": df["chunk_hash"].tolist(),
        "enrichment_text": texts, "enricher": [spec.enricher] * len(df), "enricher_version": [spec.version_id] * len(df),
        "spans": [[{"start": s, "end": e} for s, e in spans_of(v)] for v in df["spans"]],
        "prompt_tokens": ptoks, "completion_tokens": ctoks,
    }, schema=ENRICHMENT_SCHEMA)


def _by_document(todo: pd.DataFrame):
    for doc_id, group in todo.groupby("doc_id", sort=False):
        yield doc_id, group.to_dict("records")


def _structural(spec, todo, where, read_document, cache, progress) -> dict[str, dict]:
    new: dict[str, dict] = {}
    pending: list[dict] = []
    done = 0
    for doc_id, rows in _by_document(todo):
        d = where[doc_id]
        doc = read_document(d)
        meta = {k: d.get(k) for k in META_FIELDS}
        texts = enrich_document(doc, meta, [_ref(r) for r in rows], int(spec.params["max_chars"]),
                                int(spec.params["key_terms"]))
        for r, text in zip(rows, texts):
            rec = {"key": r["chunk_hash"], "text": text, "prompt_tokens": 0, "completion_tokens": 0}
            new[r["chunk_hash"]] = rec
            pending.append(rec)
        if len(pending) >= STRUCTURAL_FLUSH:
            cache.put_many(pending)
            pending = []
        done += len(rows)
        if progress:
            progress(done, len(todo))
    cache.put_many(pending)
    return new


def _llm(config, spec, todo, where, read_document, cache, client_factory, progress, log) -> tuple[dict, dict]:
    from .llm import clean_output, enrich_jobs

    if client_factory is None:
        raise EnrichmentError(f"chunk set {config.name}: the llm enricher needs a client (FINCHUNK_LLM_* settings)")
    client = client_factory()
    new: dict[str, dict] = {}
    failures: dict[str, str] = {}
    chunk_of = {}
    batch: list[tuple[str, list[dict]]] = []
    done = 0

    def flush():
        nonlocal batch, done
        if not batch:
            return
        results, failed = client.complete_many(batch, max_tokens=int(spec.params["max_tokens"]),
                                               temperature=float(spec.params["temperature"]))
        recs = [{"key": k, "text": clean_output(c.text), "prompt_tokens": c.prompt_tokens,
                 "completion_tokens": c.completion_tokens} for k, c in results.items()]
        cache.put_many(recs)  # paid-for work is kept, whatever happens next
        new.update({r["key"]: r for r in recs})
        failures.update(failed)
        done += len(batch)
        batch = []
        if progress:
            progress(done, len(todo))

    for doc_id, rows in _by_document(todo):
        if client.fatal_error is not None:
            break
        d = where[doc_id]
        doc = read_document(d)
        meta = {k: d.get(k) for k in META_FIELDS}
        for r in rows:
            chunk_of[r["chunk_hash"]] = r["chunk_id"]
        for job in enrich_jobs(doc, meta, [(r["chunk_hash"], _ref(r)) for r in rows], spec.params):
            batch.append(job)
            if len(batch) >= LLM_BATCH:
                flush()
                if client.fatal_error is not None:
                    break
    if client.fatal_error is None:
        flush()
    usage = client.usage.as_dict(client.settings)
    if client.fatal_error is not None or failures:
        missing = len(todo) - len(new)
        first = next(iter(failures.items()), None)
        why = str(client.fatal_error) if client.fatal_error is not None else first[1]
        examples = [chunk_of.get(k, k) for k in list(failures)[:5]]
        raise EnrichmentError(
            f"chunk set {config.name}: llm enricher ({spec.describe()}) could not enrich {missing} of {len(todo)} "
            f"chunks; {len(new)} enriched now are cached (a re-run asks only for the rest). "
            f"First failure{f' (chunk {examples[0]})' if examples else ''}: {why}. Usage: {usage}")
    if log:
        log(f"{config.name}: {len(new)} chunks enriched by {settings_text(client)}; usage {usage}")
    return new, usage


def settings_text(client) -> str:
    s = client.settings
    return f"{s.model} at {s.url}"
